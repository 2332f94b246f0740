"""Hugging Face `datasets`' `map`/`filter` given `num_proc`: a fork-based start inside a library.

Read in the source of datasets 2.21.0, 3.0.0, 4.0.0 and 5.2.0 (`arrow_dataset.py`):
`Dataset.map(..., num_proc=N)` runs the shards in `multiprocess.Pool(N)` (a fork of
`multiprocessing` with its own start method), for N > 1 up to 4.0.0 and for N >= 1 in 5.2.0;
`filter` and `DatasetDict.map` call it. The function is handed to each worker with its task.
multiprocess 0.70.19's default context is `fork` on Linux for every Python, 3.14 included
(its `context.py` keeps fork where CPython 3.14 moved to forkserver), so only
`multiprocess.set_start_method("spawn")` (not `multiprocessing`'s) changes it.

`dataset_workers(context, call)`: whether `call` is such a map whose workers fork: `num_proc`
written and not a constant None, 0 or 1 (a name the module does not show may fork), in a
module that sets no other start method for multiprocess. The `num_proc` keyword on `map` or
`filter` is what names the library: the look-alikes of other libraries spell it otherwise
(`num_procs`, `num_workers`).
"""

from __future__ import annotations

import ast

from cursedlint.python.consteval import is_known

MAP_METHODS = frozenset({"map", "filter"})
NUM_PROC = "num_proc"
MULTIPROCESS_SETTER = "multiprocess.set_start_method"


def dataset_workers(context, call: ast.Call) -> bool:
    """Whether `call` is `<dataset>.map(...)`/`.filter(...)` given a `num_proc` that may be
    more than 1, with multiprocess left on its default start method (fork)."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr in MAP_METHODS):
        return False
    given = next((k.value for k in call.keywords if k.arg == NUM_PROC), None)
    if given is None or context.imports.qualified_name(call.func) is not None:
        return False  # no workers, or a module's own function (not a dataset's method)
    count = context.evaluate(given)
    if is_known(count) and not (isinstance(count, int) and count > 1):
        return False
    return not context.shared("multiprocess-start-method", lambda: _other_start_method(context))


def map_function(context, call: ast.Call):
    """The function the workers run (`function`, the first argument): None for `map()`
    without one (each row to itself), UNKNOWN where a spread may give it."""
    function = context.argument(call, 0, "function")
    if isinstance(function, ast.Constant) and function.value is None:
        return None
    return function


def _other_start_method(context) -> bool:
    """Whether the module sets multiprocess's start method to anything but a written 'fork'
    (the datasets documentation's fix: `multiprocess.set_start_method("spawn")`)."""
    for node in context.nodes(ast.Call):
        if context.qualified_name(node.func, among=frozenset({MULTIPROCESS_SETTER})) is not None:
            if context.evaluate(context.argument(node, 0, "method")) != "fork":
                return True
    return False
