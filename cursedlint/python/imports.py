"""The engine's own import table: local names to the dotted names they were imported as.

`import subprocess as sp` binds `sp` -> `subprocess`; `from subprocess import Popen as P` binds
`P` -> `subprocess.Popen`; `import os.path` binds `os` -> `os`. With the table, `P(...)` and
`sp.Popen(...)` both resolve to `subprocess.Popen` without libcst's whole-module metadata, which
is ~100x slower than parsing. Resolution is flow-insensitive: a later rebinding of an imported
name (`run = my_run`) is not tracked. Star imports and relative imports resolve to nothing.
"""

from __future__ import annotations

import ast
import builtins

BUILTIN_NAMES = frozenset(dir(builtins))


class ImportTable:
    """Maps local names to qualified names, fed with import statements as they are found."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self._resolved: dict[ast.AST, str | None] = {}  # node -> its name

    def add(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            bound = [(alias.asname, alias.name) if alias.asname else
                     (alias.name.partition(".")[0],) * 2 for alias in node.names]
        elif node.level == 0 and node.module:
            bound = [(alias.asname or alias.name, f"{node.module}.{alias.name}")
                     for alias in node.names if alias.name != "*"]
        else:
            return
        names = self.names
        changed = [(local, name) for local, name in dict(bound).items()
                   if names.get(local) != name]
        if changed:  # what an expression resolves to may change (the walk adds the module's
            self._resolved.clear()  # own imports again: they change nothing)
            names.update(changed)

    def add_module_level(self, module: ast.Module) -> None:
        """Imports of the module body, including those under top-level if/try/with blocks, in
        source order (a later import of a name wins)."""
        pending = list(reversed(module.body))
        while pending:
            statement = pending.pop()
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                self.add(statement)
            elif isinstance(statement, (ast.If, ast.Try, ast.With)) or type(statement).__name__ == "TryStar":
                nested = list(statement.body)
                for handler in getattr(statement, "handlers", ()):
                    nested.extend(handler.body)
                nested.extend(getattr(statement, "orelse", ()))
                nested.extend(getattr(statement, "finalbody", ()))
                pending.extend(reversed(nested))

    def qualified_name(self, node: ast.AST) -> str | None:
        """`subprocess.Popen` for `P`, `sp.Popen` or `subprocess.Popen` when imported so;
        `builtins.open` for an unshadowed builtin; None when the name is not an import.
        Remembered per node until the next import is added: several rules ask about each call."""
        resolved = self._resolved
        if node in resolved:
            return resolved[node]
        name = resolved[node] = self._resolve(node)
        return name

    def may_resolve_to(self, node: ast.AST, last_names: frozenset[str]) -> bool:
        """Whether `qualified_name(node)` may end in one of `last_names` (those of the names
        asked about), without resolving: an attribute of such a name, or a name that is one or
        that an import binds (`P` of `from subprocess import Popen as P`)."""
        kind = type(node)
        if kind is ast.Attribute:
            return node.attr in last_names
        return kind is ast.Name and (node.id in last_names or node.id in self.names)

    def _resolve(self, node: ast.AST) -> str | None:
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        base = self.names.get(node.id)
        if base is None:
            if node.id in BUILTIN_NAMES:
                base = f"builtins.{node.id}"
            else:
                return None
        return ".".join([base, *reversed(parts)])

    def local_name(self, qualified: str) -> str | None:
        """How this module can spell `qualified` through its imports (`sh.which` after
        `import shutil as sh`), or None."""
        for local, bound in self.names.items():
            if bound == qualified:
                return local
            if qualified.startswith(bound + "."):
                return local + qualified[len(bound):]
        return None

    def imports_module(self, prefix: str) -> bool:
        """Whether any import binds `prefix` or a submodule/member of it."""
        return any(
            name == prefix or name.startswith(prefix + ".") for name in self.names.values()
        )
