"""Which expressions of a capture region (or of a function called in one) hold a CUDA tensor,
and which nodes format one or read its value to decide control flow or make a Python number (a
synchronizing copy to the host), or copy host data to the device and wait for it: what CUR402
reads besides the region's synchronizing calls."""

from __future__ import annotations

import ast
from typing import Iterable

from cursedlint.analysis.arguments import bind
from cursedlint.analysis.capture_regions import (
    LOCAL_DEPTH, CaptureAnalysis, is_self_attribute, never_rebound,
)
from cursedlint.analysis.cuda_use import CudaUse
from cursedlint.analysis.nn_modules import NnModules, constructed
from cursedlint.analysis.python_project import (
    last_name, own_nodes, positional_parameters, scope_nodes,
)
from cursedlint.patterns import LazyPattern
from cursedlint.python.reaching import bindings_of, reaching

FORMATTERS = frozenset({"builtins.print", "builtins.str", "builtins.repr", "builtins.format"})
CONVERSIONS = frozenset({"builtins.bool", "builtins.int", "builtins.float", "builtins.complex"})
_NOT_ELEMENTWISE = (ast.Is, ast.IsNot, ast.In, ast.NotIn)
_TESTS = {ast.If: "`if`", ast.While: "`while`", ast.IfExp: "a conditional expression",
          ast.Assert: "`assert`"}
LOG_LEVELS = ("debug", "info", "warning", "error", "critical", "exception", "log")
LOGGING_CALLS = frozenset(f"logging.{level}" for level in LOG_LEVELS)
_PRINTING = FORMATTERS | LOGGING_CALLS
_GET_LOGGER = frozenset({"logging.getLogger"})
TORCH_OP_NAMESPACES = frozenset({"torch", "torch.nn.functional", "torch.linalg", "torch.fft",
                                 "torch.special"})
HOST_VALUE_FUNCTIONS = frozenset({
    "is_tensor", "is_storage", "is_floating_point", "is_complex", "is_nonzero", "numel",
    "typename", "equal", "allclose", "result_type", "can_cast", "promote_types",
    "get_default_dtype", "is_grad_enabled", "manual_seed", "seed", "initial_seed",
    "get_rng_state", "no_grad", "enable_grad", "inference_mode",
})
"""torch functions that return a host value, not a CUDA tensor."""
TORCH_FACTORIES = frozenset({
    "tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "arange", "range",
    "linspace", "logspace", "eye", "rand", "randn", "randint", "randperm", "empty_strided",
    "scalar_tensor",
})
"""torch functions that make a CPU tensor unless given a CUDA `device=`."""
NORM_RESULTS = frozenset({"torch.nn.utils.clip_grad_norm_", "torch.nn.utils.get_total_norm",
                          "torch.nn.utils.clip_grad.clip_grad_norm_"})
"""Gradient-clipping functions that return the total norm as a tensor on the gradients'
device."""
CUPY_NAMESPACES = frozenset({"cupy", "cupy.linalg", "cupy.fft", "cupy.random"})
CUPY_HOST_FUNCTIONS = frozenset({
    "asnumpy", "get_array_module", "isscalar", "ndim", "shape", "size", "result_type",
    "can_cast", "min_scalar_type", "promote_types", "get_default_memory_pool",
    "get_default_pinned_memory_pool", "show_config", "is_available", "fuse", "binary_repr",
    "base_repr", "iterable", "seed", "get_random_state", "set_random_state",
})
"""cupy functions that return a host value; the other lower-case ones return an array on the
GPU (CuPy has no CPU arrays), but NumPy's scalar types and dtype helpers that cupy re-exports
(`cupy.float32(2)` is a host scalar: `NUMPY_TYPE_NAMES`)."""
NUMPY_TYPE_NAMES = LazyPattern(
    r"(?:u?int|float|complex|bool|intp|uintp|u?byte|u?short|u?intc|u?longlong|single|double|"
    r"half|csingle|cdouble|clongdouble|longdouble|dtype|finfo|iinfo)\d*_?")
WARP_ARRAYS = frozenset(f"warp.{name}" for name in (
    "array", "zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like",
    "full_like"))
"""Warp functions that make an array on the device given as `device=`."""
ARRAY_COPIES = {"get": "CuPy's `.get()`", "list": "Warp's `.list()`"}
"""Methods of a CuPy or Warp array on the GPU that copy it to the host and wait for it."""
HOST_COMPARISONS = ("equal", "allclose")
"""torch functions and tensor methods that compare tensors and return a Python `bool`."""
HOST_VALUE_METHODS = frozenset({
    "item", "tolist", "cpu", "numpy", "size", "dim", "ndimension", "numel", "nelement",
    "stride", "data_ptr", "element_size", "get_device", "storage_offset", "type", "equal",
    "allclose", "pin_memory", "to",
})
"""Tensor methods whose result is not known to be a CUDA tensor (`.to` is, with a CUDA
target)."""


_DEPTH = 2 * LOCAL_DEPTH
"""How deep `holds` follows an expression and the names it reads (`y = x * 2`, `done =
y.max() > 3`, `if done:` is five steps from `x`)."""


AUTOGRAD_FUNCTIONS = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})


def gradient_parameters(backward: ast.FunctionDef) -> frozenset[str]:
    """The gradients an autograd Function's `backward(ctx, *grads)` is given (its parameters
    after `ctx`) that it never rebinds: run by a captured backward, they are the captured
    stream's CUDA tensors."""
    arguments = backward.args
    if arguments.vararg is not None:
        return frozenset()
    return never_rebound(backward, {arg.arg for arg in
                                     (*arguments.posonlyargs, *arguments.args)[1:]})


_UPLOADS = frozenset({"torch.tensor", "torch.as_tensor"})
_UPLOAD_NAMES = frozenset({"to", "cuda", "tensor", "as_tensor"})
_COMPARISON_NAMES = frozenset(f"torch.{name}" for name in HOST_COMPARISONS)


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant)
                                               and isinstance(node.value, str))


class CudaTensors:
    """Which expressions of one capture region are known to hold a CUDA tensor, and which
    nodes of it format one. Known: a tensor made on the GPU (`.cuda()`, `.to("cuda")`,
    `device="cuda"`), the result of a torch op (not a factory without a CUDA device) or of
    `@`, a tensor method's result, arithmetic, indexing, negation or one comparison (`==`,
    `<`, ...: a bool tensor) on a known CUDA tensor, a name
    whose one binding is such a value inside the region, a name or `self` attribute whose one
    binding anywhere is a tensor made on the GPU, and the output of an nn.Module
    (`nn_modules`) on a CUDA device or given a known CUDA tensor. Anything else (a parameter,
    a name bound outside the region to anything else or bound twice, the output of another
    callable, `t.shape`, `len(t)`) is unknown."""

    def __init__(self, context, analysis: CaptureAnalysis, uses: CudaUse,
                 body: Iterable[ast.AST], parameters: frozenset[str] = frozenset()):
        """`body`: the statements of the region (or of a function called in one);
        `parameters`: the function's parameters known to hold CUDA tensors (never rebound in
        it: `gradient_parameters`)."""
        self.context = context
        self.analysis = analysis
        self.uses = uses
        self._body = body
        self._parameters = parameters
        self._inside_ids: set[int] | None = None
        self._modules: NnModules | None = None

    @property
    def _inside(self) -> set[int]:
        """The ids of the body's own nodes (listed when a name's binding is first asked)."""
        if self._inside_ids is None:
            self._inside_ids = {id(node) for node in own_nodes(self._body)}
        return self._inside_ids

    def formatted(self, node: ast.AST) -> str | None:
        """Why `node` copies a CUDA tensor to the host to format it, or None."""
        found = self._formatting(node)
        if found is None:
            return None
        how, values = found
        tensor = next((value for value in values if self.holds(value)), None)
        if tensor is None:
            return None
        return (f"{how} formats the CUDA tensor `{ast.unparse(tensor)}` (a synchronizing copy "
                "to the host)")

    def converted(self, node: ast.AST) -> tuple[ast.AST, str] | None:
        """(where, why) when `node` reads a CUDA tensor's value on the host to decide Python
        control flow or to make a Python number: `if found_inf:`, `while not done:`,
        `x if t > 0 else y`, `assert t`, `bool(t)`, `int(t)`, `float(t)` (the tensor's
        `__bool__`/`__int__`/`__float__` copy it to the host and wait for it); else None."""
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            tensor = self._tested(node.test, 0)
            if tensor is not None:
                return node.test, (f"{_TESTS[type(node)]} tests the CUDA tensor "
                                   f"`{ast.unparse(tensor)}` (a synchronizing copy to the host)")
        if isinstance(node, ast.Call):
            compared = self._compared(node)
            if compared is not None:
                return node, compared
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ARRAY_COPIES and not node.args and not node.keywords and \
                self.holds(node.func.value):
            return node, (f"{ARRAY_COPIES[node.func.attr]} copies the device array "
                          f"`{ast.unparse(node.func.value)}` to the host and waits for it")
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
            name = self.context.qualified_name(node.func, among=CONVERSIONS)
            if name and self.holds(node.args[0]):
                return node, (f"`{name.removeprefix('builtins.')}()` of the CUDA tensor "
                              f"`{ast.unparse(node.args[0])}` (a synchronizing copy to the host)")
        return None

    def host_read(self, node: ast.AST) -> tuple[ast.AST, str] | None:
        """(where, why) when `node` copies a CUDA tensor to the host: `converted`, or
        `formatted` (print, str, an f-string, `%`, `.format`, logging); or copies host data
        to the device and waits for it (`uploaded`)."""
        converted = self.converted(node)
        if converted is None and type(node) is ast.Call and \
                last_name(node.func) in _UPLOAD_NAMES:  # (most calls are not named so)
            converted = self.uploaded(node)
        if converted is not None:
            return converted
        formatted = self.formatted(node)
        return None if formatted is None else (node, formatted)

    def uploaded(self, node: ast.AST) -> tuple[ast.AST, str] | None:
        """(where, why) when `node` copies host memory to a CUDA device and waits for the copy
        (pageable memory, no `non_blocking=True`): `torch.tensor(data, device=D)` or
        `torch.as_tensor(data, device=D)` of data not known to be on the GPU, and `t.to(D)` or
        `t.cuda()` of a tensor the module makes on the CPU (a factory without a device, not
        pinned), where D is a CUDA device or the device of a known CUDA tensor; else None."""
        func = node.func if isinstance(node, ast.Call) else None
        if last_name(func) not in _UPLOAD_NAMES or any(  # (most calls: by their name alone)
                k.arg == "non_blocking" and not (isinstance(k.value, ast.Constant)
                                                and k.value.value is False)
                for k in node.keywords):
            return None
        if isinstance(func, ast.Attribute) and func.attr in ("to", "cuda"):
            if func.attr == "cuda" and node.args or func.attr == "to" and not any(
                    self._cuda_device(target) for target in
                    (*node.args[:1], *(k.value for k in node.keywords if k.arg == "device"))):
                return None
            if not self._made_on_cpu(func.value):
                return None
            return node, (f"`.{func.attr}()` copies the CPU tensor `{ast.unparse(func.value)}` "
                          "to the GPU and waits for it")
        name = self.context.qualified_name(func, among=_UPLOADS)
        device = next((k.value for k in node.keywords if k.arg == "device"), None)
        if not name or not node.args or not self._cuda_device(device) or \
                self.holds(node.args[0]):
            return None
        return node, (f"`{name}()` copies host data to the GPU and waits for it")

    def _cuda_device(self, node: ast.AST | None) -> bool:
        """A CUDA device: named (`"cuda:0"`), or `t.device` of a known CUDA tensor."""
        if isinstance(node, ast.Attribute) and node.attr == "device":
            return self.holds(node.value)
        return self.uses.is_cuda_device(node)

    def _made_on_cpu(self, node: ast.AST) -> bool:
        """Whether a name or `self` attribute is bound once to a tensor the module makes on
        the CPU: `torch.Tensor(...)`, or a factory (`TORCH_FACTORIES`) given no device and
        not `pin_memory=True`."""
        bound = self.analysis.value_of(node) if isinstance(node, ast.Name) or \
            is_self_attribute(node) else None
        if not isinstance(bound, ast.Call) or any(
                k.arg in ("device", "pin_memory") for k in bound.keywords):
            return False
        name = self.context.qualified_name(bound.func)
        return name == "torch.Tensor" or bool(name) and name.startswith("torch.") and \
            name.rpartition(".")[2] in TORCH_FACTORIES and name.count(".") == 1

    def passed(self, call: ast.Call, function: ast.AST) -> frozenset[str]:
        """The parameters of `function` (the module's def that `call` calls) to which the
        call passes a known CUDA tensor, where the function never rebinds them."""
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return frozenset()
        positional = positional_parameters(function, isinstance(call.func, ast.Attribute))
        bound = bind(call, self.context)
        names = {name for index, name in enumerate(positional)
                 if isinstance(value := bound.get(index, name), ast.AST) and self.holds(value)}
        names.update(arg.arg for arg in function.args.kwonlyargs
                     if isinstance(value := bound.get(None, arg.arg), ast.AST)
                     and self.holds(value))
        return never_rebound(function, names)

    def _compared(self, call: ast.Call) -> str | None:
        """Why `torch.equal(a, b)`, `torch.allclose(a, b)`, `a.equal(b)` or `a.allclose(b)`
        reads a CUDA tensor on the host (its answer is a Python `bool`), or None."""
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in HOST_COMPARISONS and \
                self.context.qualified_name(func) is None:
            if not self.holds(func.value):  # (another object's `equal` method)
                return None
            how, values = f"`.{func.attr}()`", [func.value]
        else:
            name = self.context.qualified_name(func, among=_COMPARISON_NAMES)
            if name is None:
                return None
            how, values = f"`{name}()`", list(call.args)
        tensor = next((value for value in values if self.holds(value)), None)
        if tensor is None:
            return None
        return f"{how} reads the CUDA tensor `{ast.unparse(tensor)}` on the host (a synchronizing copy)"

    def _tested(self, test: ast.AST, depth: int) -> ast.AST | None:
        """The CUDA tensor whose truth value a condition reads: the condition itself, a side
        of a comparison (not `is`, `in`), under `not`, or the first operand of `and`/`or`
        (the others are read only when it lets them be)."""
        if depth > _DEPTH:
            return None
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self._tested(test.operand, depth + 1)
        if isinstance(test, ast.BoolOp):  # the later operands are read only on the way
            return self._tested(test.values[0], depth + 1)
        if isinstance(test, ast.Compare):
            if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in test.ops):
                return None
            return next((side for side in (test.left, *test.comparators) if self.holds(side)),
                        None)
        return test if self.holds(test) else None

    def _formatting(self, node: ast.AST) -> tuple[str, list[ast.AST]] | None:
        """How `node` formats values and which: print/str/repr/format, logging calls,
        f-strings, `"..." % values`, `"...".format(...)`."""
        if isinstance(node, ast.FormattedValue):
            return "the f-string", [node.value]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _is_text(node.left):
            right = node.right
            return "`%` on a string", list(right.elts) if isinstance(right, ast.Tuple) else \
                [right]
        if not isinstance(node, ast.Call):
            return None
        values = [*node.args, *(k.value for k in node.keywords)]
        name = self.context.qualified_name(node.func, among=_PRINTING)
        if name:
            return f"`{name.removeprefix('builtins.')}()`", values
        func = node.func
        if isinstance(func, ast.Attribute) and (
                (func.attr == "format" and _is_text(func.value))
                or (func.attr in LOG_LEVELS and self._is_logger(func.value))):
            return f"`.{func.attr}()`", values
        return None

    def _is_logger(self, node: ast.AST) -> bool:
        made = self.analysis.value_of(node)
        return isinstance(made, ast.Call) and self.analysis.named(made.func, _GET_LOGGER)

    def holds(self, node: ast.AST, depth: int = 0) -> bool:
        """Whether `node` is known to hold a CUDA tensor (see the class docstring)."""
        if depth > _DEPTH:
            return False
        if isinstance(node, ast.Name):
            if node.id in self._parameters:
                return True
            bound = self.context.definition(node)
            if bound is None:
                return self._rebound(node, depth)
            return self._bound_to(bound, depth)
        if is_self_attribute(node):  # one value in the class, made on the GPU
            return self._made_on_gpu(self.analysis.value_of(node))
        if isinstance(node, ast.BinOp):
            if _is_text(node.left) or _is_text(node.right):
                return False
            return isinstance(node.op, ast.MatMult) or self.holds(node.left, depth + 1) or \
                self.holds(node.right, depth + 1)
        if isinstance(node, ast.Subscript):
            return self.holds(node.value, depth + 1)
        if isinstance(node, ast.Compare):  # elementwise: a bool tensor on the same device
            right = node.comparators[0]
            return len(node.ops) == 1 and not isinstance(node.ops[0], _NOT_ELEMENTWISE) and \
                not (isinstance(right, ast.Constant) and right.value is None) and (
                    self.holds(node.left, depth + 1) or self.holds(right, depth + 1))
        if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
            return self.holds(node.operand, depth + 1)
        return isinstance(node, ast.Call) and self._makes(node, depth)

    def _bound_to(self, value: ast.AST, depth: int) -> bool:
        """Whether a value a name is bound to holds a CUDA tensor: bound inside the body to a
        known one, or anywhere to a tensor made on the GPU."""
        return (id(value) in self._inside and self.holds(value, depth + 1)) or \
            self._made_on_gpu(value)

    def _rebound(self, name: ast.Name, depth: int) -> bool:
        """Whether a name bound more than once holds a CUDA tensor where it is read: every
        binding that may reach the read does (`python.reaching`), or, in a `while` loop's
        test, every one that reaches the loop (the test is read at least once with it)."""
        if not self._may_hold(bindings_of(self.context, name, self._scope_nodes), depth):
            return False
        found = reaching(self.context, name)
        if found is None:
            return False
        key = id(name)
        first = found.first.get(key)
        return self._all_hold(found, found.at[key], depth, set()) or (
            first is not None and self._all_hold(found, first, depth, set()))

    def _scope_nodes(self, scope: ast.AST) -> list[ast.AST]:
        return scope_nodes(self.context, scope)

    def _may_hold(self, bindings: list[ast.AST] | None, depth: int) -> bool:
        """Whether a name's bindings (flow aside) leave it a chance: assignments, `+=` and
        the like, parameters (a later binding may hide them) alone, one giving a CUDA
        tensor."""
        if not bindings or not all(
                isinstance(b, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr, ast.arg))
                or isinstance(b, ast.Assign) and len(b.targets) == 1
                and isinstance(b.targets[0], ast.Name) for b in bindings):
            return False
        return any(self.holds(b.value, depth + 1) if isinstance(b, ast.AugAssign)
                   else self._bound_to(b.value, depth)
                   for b in bindings if not isinstance(b, ast.arg))

    def _all_hold(self, found, bindings, depth: int, open_: set[int]) -> bool:
        """Whether each of a name's `bindings` gives it a CUDA tensor: a plain assignment
        (`_bound_to`), or `+=` and the like of one (inside the body also of a Python number
        given a CUDA tensor). `open_`: the augmented assignments being asked (a loop's `x +=`
        reaches itself: taken as holding, the loop's other ways in decide)."""
        if not bindings or depth > _DEPTH:
            return False
        for binding in bindings:
            if isinstance(binding, ast.AugAssign):
                if id(binding) in open_:
                    continue
                if id(binding) in self._inside and self.holds(binding.value, depth + 1):
                    continue
                if not self._all_hold(found, found.at.get(id(binding)), depth + 1,
                                      open_ | {id(binding)}):
                    return False
            elif not (isinstance(binding, (ast.AnnAssign, ast.NamedExpr)) or (
                    isinstance(binding, ast.Assign) and len(binding.targets) == 1
                    and isinstance(binding.targets[0], ast.Name))) or \
                    not self._bound_to(binding.value, depth):
                return False
        return True

    def _makes(self, call: ast.Call, depth: int) -> bool:
        if self.uses.makes_cuda_tensor(call):
            return True
        name = self.context.qualified_name(call.func)
        if name in NORM_RESULTS:
            return True
        if name:
            namespace, _, function = name.rpartition(".")
            if namespace in CUPY_NAMESPACES:
                return (function.islower() and function not in CUPY_HOST_FUNCTIONS
                        and not NUMPY_TYPE_NAMES.fullmatch(function))
            if name in WARP_ARRAYS:
                return self.uses.is_cuda_device(next(
                    (k.value for k in call.keywords if k.arg == "device"), None))
            return (namespace in TORCH_OP_NAMESPACES and function.islower()
                    and function not in HOST_VALUE_FUNCTIONS | TORCH_FACTORIES)
        func = call.func
        if isinstance(func, ast.Name) or is_self_attribute(func):
            return self._module_output(call, depth)
        return (isinstance(func, ast.Attribute) and func.attr not in HOST_VALUE_METHODS
                and not func.attr.startswith("is_") and self.holds(func.value, depth + 1))

    def _made_on_gpu(self, bound: ast.AST | None) -> bool:
        """Whether a value (bound anywhere) is a tensor made on the GPU: `.cuda()`,
        `.to("cuda")`, `device="cuda"`, not an nn.Module moved or made there."""
        if not (isinstance(bound, ast.Call) and self.uses.makes_cuda_tensor(bound)):
            return False
        made = constructed(bound)
        return made is None or not self._nn_modules().is_module_class(made.func)

    def _nn_modules(self) -> NnModules:
        if self._modules is None:
            self._modules = NnModules(self.context, self.analysis, self.uses.project)
        return self._modules

    def _module_output(self, call: ast.Call, depth: int) -> bool:
        """Whether `call` runs an nn.Module (`nn_modules`) on a CUDA device (moved there, or
        given a CUDA tensor): the tensor it returns is on the device (a module's forward
        computes on its parameters' and inputs' device; observed on an H200 in capture)."""
        found = self._nn_modules().instance(call.func, self.uses.makes_cuda_tensor)
        return found is not None and (found[1] or any(
            self.holds(value, depth + 1) for value in (*call.args,
                                                       *(k.value for k in call.keywords))))
