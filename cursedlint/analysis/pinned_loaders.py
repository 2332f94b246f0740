"""The iterators of pinned DataLoaders (`pin_memory=True`, worker processes) alive at a capture
region: a `for` loop over the loader around it (also through `enumerate`/`zip` and
`itertools.cycle`/`islice`), or an `iter(loader)` (or `cycle(loader)`, `islice(loader, n)`,
which take the loader's iterator when made) bound before it in its function or module, or by
the class's `__init__`. The
loader is made in the module (`capture_regions.pinned_loader`) or returned by a factory of
another module of the project (the `cuda-reach` index). CUR403 reads them."""

from __future__ import annotations

import ast
import os
from typing import TYPE_CHECKING, Iterator, NamedTuple

from cursedlint.analysis.capture_regions import (
    LOADER_ITERATORS, CaptureAnalysis, Region, body_of, enclosing_class, iterated,
    pinned_loader, position,
)
from cursedlint.analysis.cuda_facts import CudaFact
from cursedlint.analysis.python_project import call_target, own_nodes
from cursedlint.findings import Step

if TYPE_CHECKING:
    from cursedlint.analysis.cuda_use import CudaUse


class Loader(NamedTuple):
    """A pinned DataLoader: how it is made, and the chain when another module makes it."""

    made: str
    steps: tuple[Step, ...]


class PinnedLoaders:
    """The pinned DataLoaders whose iterators a module holds, and where."""

    def __init__(self, context, analysis: CaptureAnalysis, uses: CudaUse):
        self.context = context
        self.analysis = analysis
        self.uses = uses

    def alive_at(self, region: Region) -> Iterator[tuple[Loader, str]]:
        """The loaders whose iterators are alive where the region begins, with how."""
        scope = self.context.scope_of(region.start)
        for ancestor in self.context.ancestors(region.start):
            if ancestor is scope:
                break
            if isinstance(ancestor, (ast.For, ast.AsyncFor)):
                loader = self.iterated_by(ancestor)
                if loader is not None:
                    yield loader, f"the for loop on line {ancestor.lineno} iterates it"
        yield from self._bound_iterators(scope or self.context.tree, region)

    def iterated_by(self, loop: ast.For | ast.AsyncFor) -> Loader | None:
        """The pinned loader a `for` loop iterates, or None."""
        return self.pinned(iterated(self.analysis, loop.iter))

    def _bound_iterators(self, scope: ast.AST, region: Region) -> Iterator[tuple[Loader, str]]:
        """`it = iter(loader)` before the region in its scope (a function or the module),
        `self.it = iter(loader)` in the class's `__init__`."""
        cls = enclosing_class(self.context, scope) if scope is not self.context.tree else None
        init = CaptureAnalysis.own_method(cls, "__init__") if cls else None
        for root in (scope, init) if init not in (None, scope) else (scope,):
            for node in own_nodes(body_of(root)):
                if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                        and self.analysis.named(node.value.func, LOADER_ITERATORS)
                        and node.value.args):
                    continue
                if root is scope and position(node) >= position(region.start):
                    continue
                loader = self.pinned(node.value.args[0])
                if loader is not None:
                    called = self.context.text_of(node.value.func).rpartition(".")[2]
                    yield loader, f"{called}() on line {node.lineno} holds it"

    def pinned(self, node: ast.AST) -> Loader | None:
        """The pinned DataLoader `node` refers to: made in the module, or returned by a
        project factory of another module."""
        made = pinned_loader(self.analysis, node)
        if made is not None:
            return Loader(f"created on line {made.lineno}", ())
        call = node if isinstance(node, ast.Call) else self.analysis.value_of(node)
        project = self.uses.project
        if not isinstance(call, ast.Call) or project is None:
            return None
        target = call_target(self.context, project, call.func)
        reach = project.fact(*target, CudaFact.PINNED_LOADER) if target else None
        if reach is None:
            return None
        return Loader(f"made by {target[1]}() on line {call.lineno} "
                      f"({os.path.basename(target[0])}:{reach.line})",
                      (Step(target[0], reach.line, f"`{target[1]}()` returns a pinned "
                            "DataLoader with worker processes"),))
