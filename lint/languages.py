"""Which language a file is, by its extension.

Headers are parsed as C++ (tree-sitter-cpp reads C headers too, and `.h` is shared by both);
CUDA sources are C++ with launch syntax tree-sitter marks as error nodes.
"""

from __future__ import annotations

import os

PYTHON = "python"
C = "c"
CPP = "cpp"

LANGUAGES = (PYTHON, C, CPP)

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
}


def language_of(path: str) -> str | None:
    """The language of a path, or None when cursedlint does not lint files of its kind."""
    return EXTENSIONS.get(os.path.splitext(path)[1].lower())
