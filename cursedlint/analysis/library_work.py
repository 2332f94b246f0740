"""Which calls of a Python module run cuBLAS or cuDNN: matrix products and convolutions by
function, method or `@`, and calls of `torch.nn` layers and of modules whose `forward` reaches
them (a class of this module, or of another module of the project through the `cuda-reach`
index, where `CudaFact.LIBRARY_WORK` is a fact kind); and whether code before a capture
region warms them up. CUR404 and the index ask it."""

from __future__ import annotations

import ast
import os

from cursedlint.analysis.capture_regions import (
    CaptureAnalysis, Region, body_of, is_self_attribute, key, position,
)
from cursedlint.analysis.cuda_use import CudaUse, located, through
from cursedlint.analysis.cuda_facts import CudaFact, remote_kind
from cursedlint.analysis.nn_modules import NN as _NN, constructed
from cursedlint.analysis.python_project import dotted, linted_imports, own_nodes
from cursedlint.findings import Step

LIBRARY_FUNCTIONS = frozenset({
    *(f"torch.{name}" for name in ("matmul", "mm", "bmm", "addmm", "baddbmm", "addbmm",
                                   "einsum")),
    *(f"torch.nn.functional.{name}" for name in ("linear", "bilinear", "conv1d", "conv2d",
                                                 "conv3d", "conv_transpose1d",
                                                 "conv_transpose2d", "conv_transpose3d")),
})
"""Functions that run cuBLAS (matrix products) or cuDNN (convolutions) on CUDA tensors."""
LIBRARY_METHODS = frozenset({"matmul", "mm", "bmm", "addmm", "baddbmm"})
LIBRARY_MODULES = frozenset(f"{_NN}{name}" for name in (
    "Linear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
    "ConvTranspose3d", "LSTM", "GRU", "RNN", "MultiheadAttention"))
"""`torch.nn` layers whose forward pass is a cuBLAS or cuDNN call."""
CONTAINERS = frozenset({f"{_NN}Sequential"})
_STREAM_CONTEXTS = frozenset({"torch.cuda.stream"})


class LibraryWork:
    """Library work per node of a module, following its own functions (through `uses`)."""

    def __init__(self, context, analysis: CaptureAnalysis, uses: CudaUse):
        self.context = context
        self.analysis = analysis
        self.uses = uses
        self._expanding: set[int] = set()  # forward() bodies being searched (recursion guard)
        self._steps: dict[int, tuple[Step, ...]] = {}

    @remote_kind(CudaFact.LIBRARY_WORK)
    def library_work(self, node: ast.AST) -> str | None:
        """Why `node` runs cuBLAS or cuDNN, or None."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            return "`@` is a cuBLAS matrix product"
        if not isinstance(node, ast.Call):
            return None
        name = self.context.qualified_name(node.func, among=LIBRARY_FUNCTIONS)
        if name:
            return f"`{name}()` calls cuBLAS or cuDNN"
        if isinstance(node.func, ast.Attribute) and node.func.attr in LIBRARY_METHODS \
                and node.args and not is_self_attribute(node.func):
            return f"`.{node.func.attr}()` is a cuBLAS matrix product"
        if isinstance(node.func, ast.Name) or is_self_attribute(node.func):
            return self._module_work(node)
        return None

    def _module_work(self, call: ast.Call) -> str | None:
        """Why calling the nn.Module that `call.func` holds runs cuBLAS or cuDNN, or None."""
        func = call.func
        made = constructed(self.analysis.value_of(func))
        if made is None:
            return None
        label = f"`{ast.unparse(func)}` (created on line {made.lineno})"
        layer = self._layer(made)
        if layer:
            return f"{label} runs a {layer}, which calls cuBLAS or cuDNN"
        forward = self._forward(made.func)
        if forward is None:
            return self._project_forward(call, made, label)
        if id(forward) in self._expanding:
            return None
        self._expanding.add(id(forward))
        found = self.uses.first(body_of(forward), self.library_work)
        self._expanding.discard(id(forward))
        if found is None:
            return None
        node, what, path = found
        return f"{label} runs forward(){through(path)}, which reaches line {node.lineno}: {what}"

    def _layer(self, made: ast.Call) -> str | None:
        """The torch.nn layer (or a Sequential's first library layer) a call constructs."""
        name = self.context.qualified_name(made.func, among=LIBRARY_MODULES | CONTAINERS)
        if name in LIBRARY_MODULES:
            return f"`{name[len(_NN):]}`"
        if name in CONTAINERS:
            elements = [e for a in made.args
                        for e in (a.elts if isinstance(a, (ast.List, ast.Tuple)) else [a])]
            return next((f"{layer} inside `{name[len(_NN):]}`" for layer in (
                self._layer(c) for c in map(constructed, elements) if c) if layer), None)
        return None

    def _forward(self, func: ast.AST) -> ast.AST | None:
        """The `forward` of a class of this module that `func` names."""
        cls = self.context.definition(func) if isinstance(func, ast.Name) else None
        return CaptureAnalysis.own_method(cls, "forward") if isinstance(cls, ast.ClassDef) \
            else None


    def _project_forward(self, call: ast.Call, made: ast.Call, label: str) -> str | None:
        """Why calling an instance of another project module's class runs library work: its
        `forward` reaches it (the chain is kept for `steps_for`)."""
        project = self.uses.project
        name = dotted(made.func) if project else None
        path = os.path.abspath(self.context.source.path)
        forward = project.method(path, linted_imports(self.context), name, "forward") \
            if name else None
        steps = project.reach(*forward, CudaFact.LIBRARY_WORK) if forward else None
        if not steps:
            return None
        self._steps[id(call)] = steps
        return f"{label} runs `{forward[1]}()`: {located(steps[-1])}"

    def steps_for(self, node: ast.AST) -> tuple[Step, ...]:
        """The chain through another module behind a node `library_work` answered for."""
        return self._steps.get(id(node), ())

    # -- what counts as a warm-up -----------------------------------------------------------
    def warmed_up(self, region: Region) -> bool:
        """Whether anything before the region, in its function or module-level script, runs
        or may run its work: a call of a callable the region calls, a call passed one,
        library work of its own or through the module's functions, a call inside
        `with torch.cuda.stream(...)` (PyTorch's documented warm-up loop)."""
        scope = self.context.scope_of(region.start) or self.context.tree
        start = position(region.start)
        captured = {key(n.func) for n in own_nodes(region.body) if isinstance(n, ast.Call)}
        earlier = [n for n in own_nodes(body_of(scope)) if isinstance(n, (ast.Call, ast.BinOp))
                   and position(n) < start]
        return any(self._runs_or_passes(node, captured) or self._stream_block_call(node)
                   for node in earlier) or self.uses.first(earlier, self.library_work) \
            is not None

    @staticmethod
    def _runs_or_passes(node: ast.AST, captured: set[str]) -> bool:
        """`model(x)` or `warm_up(model)` for a callable `model` the region calls."""
        if not isinstance(node, ast.Call):
            return False
        arguments = [*node.args, *(k.value for k in node.keywords)]
        return key(node.func) in captured or any(
            isinstance(a, (ast.Name, ast.Attribute)) and key(a) in captured
            for a in arguments)

    def _stream_block_call(self, node: ast.AST) -> bool:
        """A call inside `with torch.cuda.stream(...)`: the documented warm-up loop."""
        return any(isinstance(a, (ast.With, ast.AsyncWith)) and any(
            isinstance(item.context_expr, ast.Call)
            and self.analysis.named(item.context_expr.func, _STREAM_CONTEXTS)
            for item in a.items) for a in self.context.ancestors(node))
