"""Python module names: what a file is imported as, and what its imports refer to.

A file's dotted name comes from the directories above it that hold an `__init__.py` (a `src/`
layout works as is: `src` has none). An import is first read as written (`written_imports`:
`..env:IS_WINDOWS` for `from ..env import IS_WINDOWS`, `mypkg.env` for `import mypkg.env as
env`), which depends only on the file's text, and then resolved against the importing module's
name (`resolve`). `ModuleTable` finds the module of a dotted name among the project's files,
following re-exports (`from .env import IS_WINDOWS` in a package's `__init__.py`).
"""

from __future__ import annotations

import ast
import os
from functools import lru_cache
from typing import Callable, Iterable, Mapping, NamedTuple

from cursedlint.python.consteval import _Bindings, globals_declared
from cursedlint.python.imports import ImportTable

MAX_REEXPORTS = 8  # re-exports followed from one name; a longer chain is unknown
_INIT_FILES = ("__init__.py", "__init__.pyi")


class Imported(NamedTuple):
    """What an import binds: a module, or an `attribute` taken from one."""

    module: str  # absolute dotted module name
    attribute: str | None = None

    @property
    def dotted(self) -> str:
        return self.module if self.attribute is None else f"{self.module}.{self.attribute}"


def is_package(path: str) -> bool:
    """Whether the file is a package's `__init__` (its relative imports start at itself)."""
    return os.path.basename(path) in _INIT_FILES


def module_name(path: str) -> str:
    """The dotted name the file is imported as: its stem, under each enclosing directory that
    holds an `__init__.py` (`src/mypkg/env.py` -> `mypkg.env`; `mypkg/__init__.py` ->
    `mypkg`), or that lacks one inside a package that has one (`mypkg/engine/run.py` ->
    `mypkg.engine.run`: Python imports such a directory as a namespace package)."""
    return _dotted_name(path, namespaces=True)


def script_name(path: str) -> str:
    """The name the file is imported as from its own directory's nearest regular package
    (`mypkg/tools/run.py` -> `run` where `tools` holds no `__init__.py`): a script's siblings
    import it so."""
    return _dotted_name(path, namespaces=False)


def _dotted_name(path: str, namespaces: bool) -> str:
    directory, file_name = os.path.split(os.path.abspath(path))
    parts = [] if is_package(path) else [os.path.splitext(file_name)[0]]
    while _holds_init(directory) or (namespaces and _holds_init(os.path.dirname(directory))):
        directory, package = os.path.split(directory)
        if not package:
            break
        parts.append(package)
    return ".".join(reversed(parts))


@lru_cache(maxsize=4096)
def _holds_init(directory: str) -> bool:
    """Whether the directory holds an `__init__.py` or `__init__.pyi`, remembered: the module
    name of each linted file, and of each summary its facts are read against, asks (probes
    of the same directories were 1% of the stdlib worst case)."""
    return any(os.path.isfile(os.path.join(directory, name)) for name in _INIT_FILES)


def written_imports(tree: ast.Module, text: str) -> dict[str, str]:
    """The module-level names bound by exactly one import and nothing else in the module (of
    source `text`), each with its source as written: `module` for `import module as name`
    (`import a.b` binds `a`: `a`), `module:name` for `from module import name`, the module
    with its leading dots when relative (`..env:IS_WINDOWS`, `.:env`)."""
    imports: dict[str, str | None] = {}
    for statement in _module_level_imports(tree):
        for alias in statement.names:
            if alias.name == "*":
                continue
            local, written = _written(statement, alias)
            imports[local] = None if local in imports else written
    if not any(written is not None for written in imports.values()):
        return {}
    counts = _BindingCounts.of(tree, ":=" in text)  # (no `:=`: no expression binds a name)
    rebound = globals_declared(text)
    return {
        local: written for local, written in imports.items()
        if written is not None and counts.get(local) == 1 and local not in rebound
    }


def _written(statement: ast.Import | ast.ImportFrom, alias: ast.alias) -> tuple[str, str]:
    if isinstance(statement, ast.Import):
        if alias.asname:
            return alias.asname, alias.name
        top = alias.name.partition(".")[0]
        return top, top
    source = "." * statement.level + (statement.module or "")
    return alias.asname or alias.name, f"{source}:{alias.name}"


def resolve(written: str, importer: str, package: bool) -> Imported | None:
    """What an import written so (see `written_imports`) binds in module `importer` (a package's
    `__init__` when `package`); None when a relative import climbs above the top package."""
    source, _, attribute = written.partition(":")
    relative = source[: len(source) - len(source.lstrip("."))]
    module = source[len(relative):]
    if relative:
        parts = importer.split(".") if importer else []
        if not package:
            parts = parts[:-1]
        climb = len(relative) - 1
        if climb >= len(parts):
            return None
        parts = parts[: len(parts) - climb]
        module = ".".join([*parts, module] if module else parts)
    return Imported(module, attribute or None)


def import_bases(path: str, root: str, probe=os.path) -> tuple[str, ...]:
    """Where an absolute import in the file at `path` is found in the project, as Python finds
    it: the directory above the file's top package (a script's own directory), the project's
    `root` and its `src/`. `probe`: what tells whether a path is a file or directory."""
    top = os.path.dirname(os.path.abspath(path))
    while probe.isfile(os.path.join(top, "__init__.py")) and os.path.dirname(top) != top:
        top = os.path.dirname(top)
    return tuple(dict.fromkeys((top, root, os.path.join(root, "src"))))


def module_files(bases: Iterable[str], module: str, whole: bool = False,
                 probe=os.path) -> tuple[list[str], str | None]:
    """The files importing the dotted `module` runs, from the first of `bases` holding its
    first part: each package's `__init__.py` (which may not exist: a namespace package) and
    the module's file; and the module's directory when it is a package. With `whole`,
    nothing unless the whole module is found. `probe`: as `import_bases`'s."""
    parts = module.split(".")
    for base in bases:
        files: list[str] = []
        directory = base
        for position, part in enumerate(parts):
            here = os.path.join(directory, part)
            last = position == len(parts) - 1
            if probe.isdir(here):
                files.append(os.path.join(here, "__init__.py"))
                directory = here
                if last:
                    return files, here
                continue
            if last and probe.isfile(here + ".py"):
                return files + [here + ".py"], None
            break
        if files and not whole:
            return files, None
    return [], None


def is_project_module(path: str, module: str, root: str) -> bool:
    """Whether the import of the dotted `module` (with its leading dots when relative) in the
    file at `path` names a module of the project at `root` (found as `import_bases` says); the
    one answer to that question for every rule and index."""
    return module.startswith(".") or _top_found(
        _import_bases(path if os.path.isabs(path) else os.path.abspath(path), root),
        module.partition(".")[0])


def imports_project_module(context) -> bool:
    """Whether the parsed module imports a module of the project (`is_project_module`), at any
    depth: only then can it call into another module's code."""
    root = context.settings.root or os.getcwd()
    path = os.path.abspath(context.source.path)  # (once, not per import)
    for statement in context.nodes(ast.Import, ast.ImportFrom):
        if isinstance(statement, ast.ImportFrom):
            names = ["." * statement.level + (statement.module or "")]
        else:
            names = [alias.name for alias in statement.names]
        if any(is_project_module(path, name, root) for name in names):
            return True
    return False


@lru_cache(maxsize=4096)
def _import_bases(path: str, root: str) -> tuple[str, ...]:
    """`import_bases` of an absolute path, remembered: every import statement of a file asks
    (the probes of the directories above it took 2% of the stdlib worst case)."""
    return import_bases(path, root)


@lru_cache(maxsize=4096)
def _top_found(bases: tuple[str, ...], top: str) -> bool:
    return bool(top) and bool(module_files(bases, top)[0])


class ModuleTable:
    """The project's modules by dotted name (`module_name`, and `script_name` where it differs;
    a name two files claim is left out), and where a dotted name is defined among them."""

    def __init__(self, paths: Iterable[str]):
        by_name: dict[str, str | None] = {}
        for path in paths:
            for name in {module_name(path), script_name(path)}:
                by_name[name] = None if name in by_name else path
        self.paths = {name: path for name, path in by_name.items() if path is not None}

    def split(self, dotted: str) -> tuple[str, list[str]] | None:
        """The file of the longest module `dotted` starts with, and the attributes after it."""
        parts = dotted.split(".")
        for end in range(len(parts), 0, -1):
            path = self.paths.get(".".join(parts[:end]))
            if path is not None:
                return path, parts[end:]
        return None

    def definition(
        self, dotted: str, imports_of: Callable[[str], Mapping[str, str]]
    ) -> tuple[str, str] | None:
        """The file and the module-level name that `dotted` (`mypkg.IS_MAC`) refers to,
        following the re-exports `imports_of(path)` gives (a module's `written_imports`); None
        when no project module defines it within MAX_REEXPORTS steps."""
        for _ in range(MAX_REEXPORTS + 1):
            found = self.split(dotted)
            if found is None or not found[1]:
                return None
            path, (name, *rest) = found
            written = imports_of(path).get(name)
            if written is None:
                return (path, name) if not rest else None
            imported = resolve(written, module_name(path), is_package(path))
            if imported is None:
                return None
            dotted = ".".join([imported.dotted, *rest])
        return None


class _BindingCounts(_Bindings):
    """How many times each name is bound in one scope (the constant evaluator's reading of
    what binds a name)."""

    def bind(self, name: str, value: ast.AST | None) -> None:
        self.values[name] = self.values.get(name, 0) + 1


def _module_level_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The import statements of the module body, including those under if/try/with, in
    source order (as the import table reads them)."""
    table = _ImportStatements()
    table.add_module_level(tree)
    return table.statements


class _ImportStatements(ImportTable):
    """An import table that keeps the statements instead of the names."""

    def __init__(self) -> None:
        super().__init__()
        self.statements: list[ast.Import | ast.ImportFrom] = []

    def add(self, node: ast.Import | ast.ImportFrom) -> None:
        self.statements.append(node)
