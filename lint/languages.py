"""Which language a file is, by its name.

Headers are parsed as C++ (tree-sitter-cpp reads C headers too, and `.h` is shared by both);
CUDA sources are C++ with launch syntax tree-sitter marks as error nodes. Shell scripts,
Dockerfiles and YAML are text kinds: rules read their lines after the prefilter, no parser runs.
"""

from __future__ import annotations

import os

PYTHON = "python"
C = "c"
CPP = "cpp"
SHELL = "shell"
DOCKERFILE = "dockerfile"
YAML = "yaml"

LANGUAGES = (PYTHON, C, CPP, SHELL, DOCKERFILE, YAML)
TEXT_LANGUAGES = frozenset({SHELL, DOCKERFILE, YAML})
"""Languages without a parser: the suppression comment is `# noqa`, as in Python."""

EXTENSIONS = {
    ".py": PYTHON,
    ".pyi": PYTHON,
    ".c": C,
    ".h": CPP,
    ".cc": CPP,
    ".cpp": CPP,
    ".cxx": CPP,
    ".hh": CPP,
    ".hpp": CPP,
    ".hxx": CPP,
    ".cu": CPP,
    ".cuh": CPP,
    ".sh": SHELL,
    ".bash": SHELL,
    ".yaml": YAML,
    ".yml": YAML,
    ".dockerfile": DOCKERFILE,
}
DOCKERFILE_NAMES = ("dockerfile", "containerfile")


def language_of(path: str) -> str | None:
    """The language of a path, or None when cursedlint does not lint files of its kind.
    `Dockerfile`, `Dockerfile.gpu`, `Containerfile` and `x.dockerfile` are Dockerfiles."""
    name = os.path.basename(path)
    stem, extension = os.path.splitext(name)
    if name.lower() in DOCKERFILE_NAMES or stem.lower() in DOCKERFILE_NAMES:
        return DOCKERFILE
    return EXTENSIONS.get(extension.lower())
