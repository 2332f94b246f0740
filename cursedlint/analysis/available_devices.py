"""A device chosen by `torch.cuda.is_available()`, as a forked child sees it.

`device = "cuda" if torch.cuda.is_available() else "cpu"`, or a helper that returns "cuda"
first under that test (`def best_device(): if torch.cuda.is_available(): return "cuda"`):
code that runs in a forked child picks the CUDA device wherever its parent initialized CUDA.
The parent's answer is kept in the child: PyTorch caches the device count the first time it
asks (c10's `device_count()` is a function-local static, copied by the fork), and
`is_available()` does not check for a bad fork (only `_lazy_init` does). A parent without a
GPU initialized nothing, so a parent shown holding CUDA has one, and the child's first use
of the device fails ("Cannot re-initialize CUDA in forked subprocess"). Anywhere else the
choice is not known: a flag, a config value, `torch.cuda.is_available() and use_gpu`.
"""

from __future__ import annotations

import ast

from cursedlint.analysis.capture_regions import FUNCTIONS

IS_AVAILABLE = frozenset({"torch.cuda.is_available"})
_TORCH_DEVICE = frozenset({"torch.device"})


def cuda_where_available(context, analysis, device: ast.AST | None) -> bool:
    """Whether `device` (an argument of `.to()` or a `device=` keyword) is the CUDA device
    wherever `torch.cuda.is_available()` holds: the choice itself, a name or `self`
    attribute bound to it, `torch.device(...)` of it, or a call of the module's function
    that returns it (`analysis`: the module's CaptureAnalysis, for bindings and defs)."""
    if device is None:
        return False
    value = analysis.value_of(device)
    if isinstance(value, ast.Call) and value.args and context.qualified_name(
            value.func, among=_TORCH_DEVICE):
        value = analysis.value_of(value.args[0])
    if isinstance(value, ast.IfExp):
        return _asks_available(context, value.test) and _is_cuda(context, value.body)
    if isinstance(value, ast.Call) and not value.args and not value.keywords:
        code = analysis.code_of(value.func)
        return isinstance(code, FUNCTIONS) and _returns_cuda_first(context, code)
    return False


def _returns_cuda_first(context, function: ast.AST) -> bool:
    """Whether the function's first statement (after a docstring) is `if
    torch.cuda.is_available(): return "cuda..."`."""
    body = [s for s in function.body if not (
        isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    first = body[0] if body else None
    return isinstance(first, ast.If) and _asks_available(context, first.test) and \
        isinstance(first.body[0], ast.Return) and _is_cuda(context, first.body[0].value)


def _asks_available(context, test: ast.AST) -> bool:
    return isinstance(test, ast.Call) and not test.args and context.qualified_name(
        test.func, among=IS_AVAILABLE) is not None


def _is_cuda(context, node: ast.AST | None) -> bool:
    """A "cuda..." string, or `torch.device` of one."""
    if isinstance(node, ast.Call) and node.args and context.qualified_name(
            node.func, among=_TORCH_DEVICE):
        node = node.args[0]
    value = context.evaluate(node) if node is not None else None
    return isinstance(value, str) and value.startswith("cuda")
