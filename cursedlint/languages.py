"""Which language a file is, by its name (an extensionless script by its `#!` line).

Headers are parsed as C++ (tree-sitter-cpp reads C headers too, and `.h` is shared by both);
CUDA sources are C++ with launch syntax tree-sitter marks as error nodes. Cython files
(`.pyx`, `.pxd`, `.pxi`) are read as Python by `python.cython`'s translation: the Python rules
that declare the language check them. Shell scripts,
Dockerfiles and YAML are text kinds: rules read their lines after the prefilter, no parser runs.
"""

from __future__ import annotations

import os
import re
import stat

PYTHON = "python"
CYTHON = "cython"
C = "c"
CPP = "cpp"
SHELL = "shell"
DOCKERFILE = "dockerfile"
YAML = "yaml"

LANGUAGES = (PYTHON, CYTHON, C, CPP, SHELL, DOCKERFILE, YAML)
PYTHON_TREES = frozenset({PYTHON, CYTHON})
"""Languages whose files become a Python `ast` (one walk drives the Python rules)."""
TEXT_LANGUAGES = frozenset({SHELL, DOCKERFILE, YAML})
"""Languages without a parser: the suppression comment is `# noqa`, as in Python."""
C_BUILD_FILES = ("Makefile.am", "Makefile.include", "Makefile", "GNUmakefile", "CMakeLists.txt",
                 "meson.build")
"""Files whose `-I` flags (`include_directories`, CMake's and Meson's) name where the C/C++
files of their directory, and below it, find their includes (`analysis.includes`)."""

EXTENSIONS = {
    ".py": PYTHON,
    ".pyi": PYTHON,
    ".pyx": CYTHON,
    ".pxd": CYTHON,
    ".pxi": CYTHON,
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
    return language_of_name(os.path.basename(path))


def language_of_name(name: str) -> str | None:
    """`language_of` a file's name (a directory entry's, without `os.path`'s splitting: a
    directory walk asks it of every file)."""
    lowered = name.lower()
    dot = lowered.rfind(".")
    if dot <= 0 or not lowered[:dot].strip("."):  # no extension (`.bashrc`), as splitext
        return DOCKERFILE if lowered in DOCKERFILE_NAMES else None
    if lowered in DOCKERFILE_NAMES or lowered[:dot] in DOCKERFILE_NAMES:
        return DOCKERFILE
    return EXTENSIONS.get(lowered[dot:])


_SHEBANG = re.compile(rb"#!\s*(\S+)(?:\s+(.*))?")
_INTERPRETERS = re.compile(r"(python|pypy)[0-9.]*|(sh|bash|dash|zsh|ksh|mksh|ash)")
SHEBANG_BYTES = 256


def script_language(path: str, head: bytes | None = None) -> str | None:
    """The language of a regular file without an extension whose first line is a `#!` naming
    a Python or POSIX-shell interpreter (`#!/usr/bin/env python3`, `#!/bin/bash -e`), as
    pre-commit identifies scripts; None otherwise. `head`: the file's first bytes where they
    are read already (standard input); else they are read here, never blocking (a FIFO is not
    read)."""
    if os.path.splitext(os.path.basename(path))[1]:
        return None
    return _shebang_language(head if head is not None else _head(path) or b"")


def _head(path: str) -> bytes | None:
    """The first SHEBANG_BYTES of a regular file; None for anything else or an error. The
    type is checked before the open (opening a device can act on it) and again on the
    descriptor (the path may have been swapped in between)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        return os.read(descriptor, SHEBANG_BYTES)
    except OSError:
        return None
    finally:
        os.close(descriptor)


def _shebang_language(head: bytes) -> str | None:
    """The language the interpreter of a `#!` first line names (through `env` and its
    options); `head`: the file's first bytes."""
    match = _SHEBANG.match(head.split(b"\n", 1)[0])
    if match is None:
        return None
    words = [os.path.basename(match[1])] + (match[2] or b"").split()
    if words[0] == b"env":
        words = [word for word in words[1:] if not word.startswith(b"-") and b"=" not in word]
    interpreter = _INTERPRETERS.fullmatch(words[0].decode("latin-1")) if words else None
    if interpreter is None:
        return None
    return PYTHON if interpreter[1] else SHELL
