"""Which callables of a Python module are `torch.nn.Module` instances, and whether one is known
to sit on a CUDA device: what `cuda_tensors` asks to know a model's output as a CUDA tensor,
and `library_work` to find the layer a call runs.

An instance is known where a name (or `self.attr`) is bound once to the construction of a
`torch.nn` layer or of a class deriving from `torch.nn.Module` (of this module, or of another
module of the project by the `cuda-reach` index's class facts), also under the module's own
moves (`Net().cuda().eval()`), or where it is a parameter annotated with such a class and never
rebound. It is on a CUDA device where one of those moves is `.cuda()` or `.to("cuda")`, or the
constructor is given `device="cuda"`. A callable bound once to such a move of a name or
attribute (`model = model.cuda()`, the parameter's class unknown) is a module on the device."""

from __future__ import annotations

import ast
import builtins
import os

from cursedlint.analysis.capture_regions import (
    LOCAL_DEPTH, SEQUENTIALS, CaptureAnalysis, is_self_attribute, own_calls,
)
from cursedlint.analysis.python_project import (
    CALL_METHOD, NN_MODULE, OutCall, constructor_arguments, dotted, linted_imports,
    parameter_annotation,
)

NN = "torch.nn."
MODULE_MOVES = frozenset({"cuda", "to", "half", "bfloat16", "float", "double", "train", "eval",
                          "requires_grad_"})
"""Methods of an nn.Module that return the module itself (`nn.Linear(8, 8).cuda()`)."""


def constructed(value: ast.AST | None) -> ast.Call | None:
    """The constructor call under `Layer(...).cuda().eval()` (or the call itself)."""
    while (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
           and value.func.attr in MODULE_MOVES):
        value = value.func.value
    return value if isinstance(value, ast.Call) else None


def _moved_to_cuda(value: ast.AST | None, on_cuda) -> bool:
    """Whether `value` is a chain of module moves over a name or attribute (`model.cuda()`,
    `net.to("cuda").eval()`), one of them to a CUDA device: called, it is a module there
    (a tensor is not callable)."""
    cuda = False
    while (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
           and value.func.attr in MODULE_MOVES):
        cuda = cuda or on_cuda(value)
        value = value.func.value
    return cuda and isinstance(value, (ast.Name, ast.Attribute))


class NnModules:
    """The nn.Module instances a module's callables hold (`instance`)."""

    def __init__(self, context, analysis: CaptureAnalysis, project=None):
        self.context = context
        self.analysis = analysis
        self.project = project

    def instance(self, func: ast.AST, on_cuda) -> tuple[ast.AST, bool] | None:
        """(where it is made or declared, whether it is on a CUDA device) when `func` (a name
        or `self.attr`) holds an nn.Module instance; None when the module does not show one.
        `on_cuda(call)`: whether a call of the chain puts it on a CUDA device
        (`CudaUse.makes_cuda_tensor`)."""
        if not (isinstance(func, ast.Name) or is_self_attribute(func)):
            return None
        bound = self.analysis.value_of(func)
        if isinstance(bound, ast.Name) and is_self_attribute(func):  # `self.model = model`
            given = [self._made(self.analysis.value_of(value), on_cuda) for value in
                     constructor_arguments(self.context, bound)]  # (in `__init__`)
            if given and None not in given:  # every construction of the class gives one
                return given[0][0], all(cuda for _, cuda in given)
        made = constructed(bound)
        if made is not None:
            return self._made(bound, on_cuda)
        if _moved_to_cuda(bound, on_cuda):
            return bound, True
        if isinstance(func, ast.Name) and bound is None:
            annotation = parameter_annotation(self.context, func)
            if annotation is not None and self.is_module_class(annotation):
                return annotation, False
        return None

    def _made(self, value: ast.AST, on_cuda) -> tuple[ast.AST, bool] | None:
        """`instance`'s answer for an expression that constructs an nn.Module (moves over it
        included); None for any other."""
        made = constructed(value)
        if made is None or not self.is_module_class(made.func):
            return None
        chain, cuda = value, False
        while isinstance(chain, ast.Call):  # the constructor and the moves over it
            cuda = cuda or on_cuda(chain)
            chain = chain.func.value if chain is not made else None
        return made, cuda

    def is_module_class(self, node: ast.AST, depth: int = 0) -> bool:
        """Whether `node` names a `torch.nn` layer or a class deriving from `torch.nn.Module`
        (of this module, or of another module of the project)."""
        if depth > LOCAL_DEPTH:
            return False
        name = self.context.qualified_name(node)
        if name is not None:
            namespace, _, last = name.rpartition(".")
            if name == NN_MODULE or (last[:1].isupper() and (
                    namespace == "torch.nn" or namespace.startswith(f"{NN}modules"))):
                return True
        cls = self.context.definition(node) if isinstance(node, ast.Name) else None
        if isinstance(cls, ast.ClassDef):
            return any(self.is_module_class(base, depth + 1) for base in cls.bases)
        project, written = self.project, dotted(node)
        if project is None or written is None:
            return False
        path = os.path.abspath(self.context.source.path)
        found = project.definition(path, linted_imports(self.context), written)
        return found is not None and project.is_class(*found) and \
            project.subclasses(*found, NN_MODULE)


def instance_calls(context, analysis: CaptureAnalysis, function: ast.AST,
                   runs) -> list[OutCall]:
    """The calls `function` makes of an instance made by a call, where `runs(call)` says the
    call runs whenever the function does: of a name or `self` attribute bound once to
    `Block(...)` (moves over it included), of a loop's name over a `torch.nn` container of
    them (`for layer in self.layers:` with `self.layers = nn.ModuleList([Block(c) for _ in
    ...])`, `enumerate(...)` of one, a `ModuleDict`'s `.values()`), and of an `nn.Sequential`
    (each module it holds), as summary calls of each class's `__call__` (`Block.__call__`,
    which `ProjectFunctions` resolves to a `torch.nn.Module` class's `forward`)."""
    calls = []
    named = context.shared(_NAMED, lambda: _named(context))
    for node in own_calls(context, function):
        func = node.func
        if not (is_self_attribute(func) or type(func) is ast.Name and func.id not in named) \
                or not runs(node):
            continue
        made = constructed(analysis.constructor_of(func))
        if made is not None and analysis.named(made.func, SEQUENTIALS):
            items = analysis.module_items(made)
            parts = items.elts if isinstance(items, ast.List) else [
                analysis.item_constructor(items)]
            makers = [constructed(analysis.constructor_of(part)) if part is not None else None
                      for part in parts]
        else:
            makers = [made]
        for maker in dict.fromkeys(dotted(made.func) for made in makers if made is not None):
            if maker is not None:
                calls.append(OutCall(node.lineno, f"{maker}.{CALL_METHOD}"))
    return calls


_NAMED = "nn-modules-named"


def _named(context) -> frozenset[str]:
    """Names a call of which runs no instance the module makes: builtins, imports, and the
    module's own functions and classes."""
    return frozenset((*dir(builtins), *linted_imports(context), *(
        node.name for node in context.tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))))
