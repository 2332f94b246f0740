"""CUR2xx: Python callables handed to C as CUDA driver callbacks (Python).

CUR201 reports a Python callable that reaches a CUDA API which calls host code back
(`analysis.callbacks` follows it, `analysis.callback_apis` names the APIs; option `extra-apis`
adds names): handed over in the module, passed to a helper of the module that hands its
parameter over, or passed to a helper of another module of the project (the `callback-helpers`
index, `analysis.callback_helpers`), with the chain. CUR202 reports ctypes callback objects that
a foreign function keeps for later while only a temporary or a local refers to them. A value
whose nature the module does not show (a parameter nobody in the module passes a callable to, a
decorated function, an attribute of an unknown object) is not a finding.
"""

from __future__ import annotations

import ast
import os

from cursedlint.analysis.callback_apis import (
    ASYNC_CUDA_APIS, CALLBACK_APIS, KNOWN_PROTOTYPES, PERMANENT_KEEPERS, Callback, callback_words,
)
from cursedlint.analysis.callback_helpers import CallbackHelpers, callback_chain, helper_names
from cursedlint.analysis.callback_self_release import SELF_RELEASE_HELP, self_releases
from cursedlint.analysis.callbacks import (
    CallbackHandovers, CallbackTracer, Flow, Helper, foreign_function,
)
from cursedlint.analysis.capture_regions import is_self_attribute
from cursedlint.analysis.foreign_keeping import (
    FOREIGN_KEEPING, any_foreign_call, cffi_import, keeping_calls, kept_by_c, removes,
)
from cursedlint.analysis.cython_callbacks import (
    c_function, gil_held_in_driver, user_data_handovers,
)
from cursedlint.analysis.python_project import call_target, last_name, project_functions
from cursedlint.findings import Step
from cursedlint.languages import CYTHON
from cursedlint.python.consteval import UNKNOWN
from cursedlint.python.context import source_within
from cursedlint.rule import NAME_GLOB, PYTHON_NAME, Example, Option, Rule

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


class PythonCallbackIntoCuda(Rule):
    """## What it does
    Finds a Python callable (lambda, function, bound method, `functools.partial`, an instance
    with `__call__`) that reaches a CUDA API which calls host code back: the occupancy
    calculators (`cuOccupancyMaxPotentialBlockSize[WithFlags]`, numba's
    `get_max_potential_block_size`), host functions and stream callbacks (`cuLaunchHostFunc`,
    `cuStreamAddCallback` and their runtime twins, CuPy's `launchHostFunc`/`streamAddCallback`,
    `Stream.launch_host_func`/`add_callback` of CuPy and Numba streams), graph host nodes (the
    `fn` field of `CUDA_HOST_NODE_PARAMS`/`cudaHostNodeParams`) and user-object destructors
    (`cuUserObjectCreate`), through ctypes, cuda-python or numba's driver. The callable is
    followed through local names, ctypes prototypes (`CFUNCTYPE(...)(f)`), `ctypes.cast`,
    `int.from_bytes`, one level of parameter passing inside the module, and into the project's
    other modules through helpers that hand their parameter to the driver or on to another module's such helper (to
    the project model's depth): a caller that passes a callable is a finding, with the chain. Streams are CuPy and Numba streams the module makes, in a name or in a `self`
    attribute its class assigns. The option `extra-apis` adds
    function names (any argument may be the callback). Compiled callbacks
    (`numba.cfunc(...).address`, functions of a loaded library, integer addresses) and values
    of unknown nature are not findings. A callable that reaches the call through `*args` or
    `**kwargs` (a tuple, list or dict bound before it) is reported at that call, its own line
    in the chain. In Cython (`.pyx`, `.pxd`, `.pxi`) a `cdef` function handed to such a C
    function is a finding when it takes the GIL (declared `with gil`, or holding a
    `with gil:` block) and the module waits in the driver holding the GIL: the handoff made
    outside a `with nogil:` block, or a stream, event or device synchronization made so. One
    that never takes the GIL is compiled; a module that releases the GIL around those calls
    is the safe pattern.

    ## Why it is cursed
    The driver calls the callback while it holds its own locks (the occupancy calculator
    inside the call; host functions on its callback thread, with the stream blocked). A ctypes
    or CuPy trampoline must take the GIL before it can run Python. If another thread holds the
    GIL while it waits for that driver lock (a CUDA call from C or Cython that does not release
    the GIL) or for that stream, neither can proceed: the process hangs. Incident 002: numba
    0.45 passed `lambda tpb: 0` to `cuOccupancyMaxPotentialBlockSize`; RAPIDS spent weeks in
    GDB on the resulting deadlock between the GIL and a `pthread_rwlock` of libcuda. Reproduced
    on an H100 (driver 580): while such a callback runs, a thread that holds the GIL and calls
    `cuMemAlloc`, `cuModuleLoadData` or the occupancy calculator hangs, and so does the process.

    ## Example
    ```python
    from numba import cuda

    ctx = cuda.current_context()
    grid, block = ctx.get_max_potential_block_size(kernel, lambda tpb: 0, 0, 1024)
    ```

    ## Fix
    Pass a compiled function that never needs the GIL: `numba.cfunc("uintp(int32)")(f).address`
    (or `.ctypes`), a C function from a shared library, or `0` for none. For stream callbacks,
    record an event after the work and do the Python part on a host thread that waits for it.

    ## References
    - Incident 002, "Debugging a Mixed Python and C Language Stack" (NVIDIA blog):
      https://developer.nvidia.com/blog/debugging-mixed-python-and-c-language-stack/
    - Numba PR #4581, the fix: https://github.com/numba/numba/pull/4581
    - Driver API, occupancy (`CUoccupancyB2DSize` callback):
      https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__OCCUPANCY.html
    - Runtime API, `cudaLaunchHostFunc`, `cudaStreamAddCallback` (callbacks must not call
      CUDA, run in stream order) and `cudaUserObjectCreate` (destructor on a shared internal
      thread): https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__STREAM.html
    - Host node parameters (`fn` is called when the node executes):
      https://docs.nvidia.com/cuda/cuda-driver-api/cuda_driver_api/structCUDA__HOST__NODE__PARAMS__v1.html
    - CuPy `Stream.launch_host_func`, `add_callback`, `cupy.cuda.runtime.launchHostFunc`:
      https://docs.cupy.dev/en/stable/reference/generated/cupy.cuda.Stream.html
    - cuda.core `host_launch` (a ctypes callback wrapping Python takes the GIL and is subject
      to the same deadlock): https://nvidia.github.io/cuda-python/cuda-core/latest/
    """

    code = "CUR201"
    name = "python-callback-into-cuda"
    languages = ("python", "cython")
    indexer = CallbackHelpers(code)
    triggers = callback_words()
    summary = "a Python callable passed to a CUDA API that calls it back while holding a lock"
    options = {
        "extra-apis": Option(
            (list, tuple),
            (),
            "more function names that hand a callable to the CUDA driver (any argument may be "
            "the callback), e.g. a project's own ctypes wrapper.",
            item=str, form=PYTHON_NAME,
        )
    }

    @classmethod
    def triggers_for(cls, options):
        return callback_words(options["extra-apis"])

    @classmethod
    def look(cls, options, target_python, language):
        """Every API and struct is recognized by its whole name (as called, as imported under
        an alias, or as constructed), never as part of a longer name (`_add_callback`)."""
        from cursedlint.triggers.second_look import Names

        return Names(frozenset(word.encode() for word in cls.triggers_for(options)))

    valid = (
        """
        import numba
        from numba import cuda

        @numba.cfunc("uintp(int32)")
        def no_shared_memory(block_size):
            return 0

        ctx = cuda.current_context()
        grid, block = ctx.get_max_potential_block_size(kernel, no_shared_memory.address, 0, 1024)
        """,
        """
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        compare = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
        libc.qsort(items, len(items), 8, compare(lambda a, b: 0))
        """,
        """
        import ctypes

        libcuda = ctypes.CDLL("libcuda.so.1")
        helpers = ctypes.CDLL("./libhelpers.so")
        HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
        mark_done = ctypes.cast(helpers.mark_done, ctypes.c_void_p).value
        libcuda.cuLaunchHostFunc(stream, HostFn(mark_done), None)
        libcuda.cuLaunchHostFunc(stream, HostFn(0x7F00DEAD0000), None)
        """,
        """
        class Scheduler:
            def add_callback(self, callback):
                self.pending.append(callback)

        Scheduler().add_callback(lambda: print("done"))
        """,
        """
        from cuda.bindings import driver

        def enqueue(stream, host_fn, data):
            driver.cuLaunchHostFunc(stream, host_fn, data)
        """,
    )
    invalid = (
        """
        from numba import cuda

        ctx = cuda.current_context()
        grid, block = ctx.get_max_potential_block_size(k, lambda tpb: 0, 0, 1024)  # error: CUR201
        """,
        """
        import ctypes

        libcuda = ctypes.CDLL("libcuda.so.1")
        HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

        def release(data):
            print("batch done")

        libcuda.cuLaunchHostFunc(stream, HostFn(release), None)  # error: CUR201, CUR202
        """,
        """
        import cupy

        def on_done(arg):
            print("copied", arg)

        stream = cupy.cuda.Stream(non_blocking=True)
        stream.launch_host_func(on_done, "batch 3")  # error: CUR201
        """,
        """
        import ctypes
        from numba.cuda.cudadrv.driver import driver
        from numba.cuda.cudadrv.drvapi import cu_occupancy_b2d_size

        def best_block(kernel, shared_bytes_for):
            grid, block = ctypes.c_int(), ctypes.c_int()
            b2d = cu_occupancy_b2d_size(shared_bytes_for)
            driver.cuOccupancyMaxPotentialBlockSize(
                ctypes.byref(grid), ctypes.byref(block), kernel.handle, b2d, 0, 1024)
            return block.value

        threads = best_block(kernel, lambda tpb: 4 * tpb)  # error: CUR201
        """,
        Example(
            """
            import ctypes
            from mylib import gpu

            HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
            gpu.enqueue_host(stream, HostFn(lambda data: None))  # error: CUR201
            """,
            settings={"options": {"extra-apis": ["enqueue_host"]}},
        ),
    )

    walk_feeds = ("handovers",)  # (the walk's calls, assignments and keywords)

    def __init__(self, context, options=None):
        super().__init__(context, options)
        self.handovers = CallbackHandovers(context, self.option["extra-apis"])
        self.tracer = self.handovers.tracer
        self.reported: set[int] = set()

    def check(self) -> None:
        """The callables handed to the driver in the module; then the one-level
        interprocedural case: callers passing a callable to a helper's parameter that the
        helper hands to the driver (a helper of the module, or of another module)."""
        for handed in self.handovers.handed:
            steps = ()
            if c_function(self.context, handed.flow.origin):  # a Cython trampoline
                held = handed.call and gil_held_in_driver(self.context, handed.call)
                if not held:
                    continue  # the module never waits in the driver holding the GIL
                steps = (Step(self.context.source.path, *held),)
            self._report(handed.flow, handed.argument,
                         f"is handed to {handed.api} as a C callback", handed.callback,
                         steps, handed.call)
        project = project_functions(self.context, self.indexer)
        own_helpers = {helper.function.name for helper in self.handovers.helpers}
        project_helpers = helper_names(project.summaries) if project is not None \
            else frozenset()
        if not (own_helpers or project_helpers):
            return  # (most modules: no call to look at)
        for call in self.handovers.calls():
            name = last_name(call.func)
            if name in own_helpers:  # a helper's call names its def
                for helper in self.handovers.helpers_called(call):
                    self._check_caller(call, helper)
            elif name in project_helpers:
                self._check_project_caller(call, project)

    def _check_project_caller(self, call: ast.Call, project) -> None:
        """A call of another module's function that hands a parameter to a callback API,
        itself or through the helpers of further modules it hands it on to."""
        target = call_target(self.context, project, call.func)
        function = project.summaries[target[0]].functions.get(target[1]) if target else None
        if function is None or "." in target[1]:
            return  # methods of other modules' classes: their receiver is not followed yet
        for parameter, fact in function.facts.items():
            chain = callback_chain(project, *target, parameter)
            argument = self.context.argument(call, fact.position, parameter) if chain else None
            flow = None if argument in (None, UNKNOWN) else self.tracer.trace(argument)
            if flow is not None and flow.parameter is None and \
                    not c_function(self.context, flow.origin):  # (a trampoline: not followed)
                steps, reached = chain
                where = f"{os.path.basename(steps[-1].path)}:{reached.line}"
                how = "which hands it on to " if len(steps) > 2 else "which hands it to "
                self._report(flow, argument, f"is passed to {target[1]}(), {how}"
                             f"{reached.api} ({where})", reached.callback, steps, call)

    def _check_caller(self, call: ast.Call, helper: Helper) -> None:
        argument = helper.argument_in(self.context, call)
        flow = None if argument is UNKNOWN else self.tracer.trace(argument)
        if flow is not None and flow.parameter is None and \
                not c_function(self.context, flow.origin):  # (a trampoline: not followed)
            path = (f"is passed to {helper.function.name}(), which hands "
                    f"'{helper.parameter}' to {helper.api} (line {helper.site.lineno})")
            self._report(flow, argument, path, helper.callback, call=call)

    # -- reporting ---------------------------------------------------------------------------------
    def _report(self, flow: Flow, argument: ast.AST, path: str, callback: Callback,
                steps: tuple[Step, ...] = (), call: ast.Call | None = None) -> None:
        """Report at the callable (or where it is made a C function pointer), or at `call`,
        the call that hands it over, when the callable is written elsewhere and reaches the
        call through `*args`/`**kwargs` (a dict or tuple bound before it): there the user acts,
        and the callable's place joins the chain."""
        target = flow.wrap or argument
        if call is not None and not source_within(argument, call):
            steps = (Step(self.context.source.path, argument.lineno,
                          f"{flow.what} is put in the call's arguments here"), *steps)
            target = call
        if id(target) in self.reported:
            return
        self.reported.add(id(target))
        subject = f"{flow.what}, a C pointer here," if flow.wrap else flow.what
        self.report(
            target,
            f"{subject} {path}",
            help=f"The driver calls it {callback.when}, holding its own lock, and a Python "
            "callback must take the GIL first: a thread that holds the GIL while it waits for "
            f"that lock (or that stream) deadlocks the process. Fix: {callback.fix}.",
            related=steps,
        )


# -- CUR202 ----------------------------------------------------------------------------------------

_ASYNC_API_NAMES = frozenset(name.encode() for name in ASYNC_CUDA_APIS)


class CtypesCallbackLifetime(Rule):
    """## What it does
    Finds a ctypes or cffi callback object (`CFUNCTYPE(...)(f)`, `ffi.callback(cdecl, f)`,
    numba's `cu_stream_callback_pyobj(f)`, a def under a prototype decorator) of a Python
    function, created inline in the arguments of, or bound only to a local passed to, a foreign
    function that keeps it to call later: the asynchronous CUDA host functions, stream callbacks
    and user-object destructors (`cuLaunchHostFunc`, `cuStreamAddCallback`, `cuUserObjectCreate`
    and their runtime twins), and functions of a ctypes or cffi library (`CDLL`, `ffi.dlopen`, a
    function of the module returning one; loaded in the module, or in a project module it
    imports the library, a function alias or a prototype from, by name or as that module's
    attribute: `_native.open_stream(...)`; a compiled cffi module's `lib`, imported with its
    `ffi`), called through any alias (`self._lib.f`, `f = lib.f`). A call taking a callback back
    keeps none (by its name, `SDL_DelEventWatch`, or a flag, `SetConsoleCtrlHandler(f, 0)`).
    Else what decides, in order: the function's name (option `keeping-apis`, default
    `*register*`, `*set_*callback*`, `*add_callback*`, `*set_handler*`); the project's C
    definition of it (a cffi build's `set_source` text too: the parameter stored in a field, a
    global or an array, or handed on to a function that stores it, 4 calls deep; one only called
    does not keep); then names of synchronous use (`*sort*`, `*search*`, `*each*`, `*visit*`,
    `enum*`, `*iterate*`, `*walk*`, `*find*`: not kept) and C library functions that keep
    (`pthread_create`, `atexit`, `signal`); else option `unknown-foreign-functions`, default
    `keep`: in 7 ctypes bindings (pyGLFW, llama-cpp-python, python-vlc, PySDL2, pynput,
    libchronicle, neonize), 40 of the 43 foreign functions taking a callback that no keeping
    pattern matches keep it (`glfwSetKeyCallback`, `SDL_AddTimer`, `libvlc_event_attach`,
    `llama_log_set`, `SetWindowsHookExW`), 3 call it only before returning (`Mix_EachSoundFont`,
    `SDL_FilterEvents`, neonize's `GetAllDevices`). An object kept in `self.<attr>` is reported
    only where the module shows its instance dying while C keeps it
    (`analysis.instance_lifetime`: made and dropped, or held by a local only read; for XLA's FFI
    targets, `jax.ffi.register_ffi_target(name, jax.ffi.pycapsule(address))`, which keep the
    pointer for the process, also returned to callers rather than kept at module level). A
    synchronous use, an object kept at module level, and a local used anywhere else in the
    function, or whose function synchronizes or after it takes its thread's Windows messages
    (`GetMessageW`, where hooks run; in a method it calls too) are not findings. Reported at the
    argument handing it to C. Also an object in `self.<attr>` wrapping a method of the class,
    handed to calls and held nowhere else, that the method itself (or a method it calls:
    `self.close()`) rebinds or deletes: reported there (`analysis.callback_self_release`). In
    Cython, the same for a Python object handed as `<void*>` user data to those CUDA functions
    (or to a C function called by a name the keeping patterns match, with a function pointer
    parameter in the file's `cdef extern from` declaration of it, or handed a `cdef` function of
    the module): a temporary, or a local that nothing else holds (no `Py_INCREF`); and an object
    whose one reference the `cdef` trampoline releases (`Py_DECREF`) on its first call, handed
    to `cu[da]LaunchHostFunc` by a function that does not ask whether the stream captures.

    ## Why it is cursed
    ctypes does not keep the callback object alive for C: when the last Python reference goes
    (the call returns, the function holding the local returns, the callback clears its own
    attribute), the object and its trampoline are freed. C still holds the pointer and calls
    it later (or returns through it: python-libusb1 issue #47) into freed memory: a crash far
    from the cause, when the collector or allocator happens to reuse it first. A `<void*>` cast
    in Cython takes no reference either. A host function launched while a stream captures
    becomes a graph node that runs on every launch of the graph: a trampoline that drops the
    object's reference after the first run hands freed memory to the second (CuPy issue
    #9274, a crash on replaying a graph that captured `Stream.launch_host_func`).

    ## Example
    ```python
    def on_done(data):
        print("batch done")

    def enqueue(stream):
        libcuda.cuLaunchHostFunc(stream, HostFn(on_done), None)
    ```

    ## Fix
    Keep the callback object as long as C may call it: bind it at module level or in an
    attribute of an object that outlives the registration, and drop it only after the callback
    ran or was unregistered. For CUDA host functions prefer a compiled function
    (`numba.cfunc(sig)(f).address`), which has no Python object to keep (see CUR201).

    ## References
    - ctypes, callback functions ("Make sure you keep references to CFUNCTYPE() objects as
      long as they are used from C code"):
      https://docs.python.org/3/library/ctypes.html#callback-functions
    - `cuLaunchHostFunc` and `cuStreamAddCallback` run the function after the call returns:
      https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html
    - CuPy PR #9279, keeping captured host functions alive for the graph's life:
      https://github.com/cupy/cupy/pull/9279
    """

    code = "CUR202"
    name = "ctypes-callback-lifetime"
    languages = ("python", "cython")
    triggers = ("FUNCTYPE", "cffi", "ffi.callback", *sorted(ASYNC_CUDA_APIS), "void*",
                *(name.rpartition(".")[2] for name in KNOWN_PROTOTYPES))
    summary = "a ctypes or cffi callback that C keeps for later but Python frees when the call returns"
    indexer = FOREIGN_KEEPING
    options = {
        "unknown-foreign-functions": Option(
            str, "keep",
            "what a foreign function that neither its name nor the project's C definition "
            "decides does with a callback: `ignore` (assume it calls it before returning) or "
            "`keep` (assume it keeps it).",
            choices=("ignore", "keep"),
        ),
        "keeping-apis": Option(
            (list, tuple), (),
            "more names (shell-style patterns, matched without case) of foreign functions "
            "that keep a callback to call later.",
            item=str, form=NAME_GLOB,
        )
    }

    valid = (
        """
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        Compare = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)

        def sort(items, count):
            libc.qsort(items, count, 8, Compare(lambda a, b: 0))
        """,
        """
        import ctypes

        lib = ctypes.CDLL("./libsensor.so")
        OnSample = ctypes.CFUNCTYPE(None, ctypes.c_double)

        def record(value):
            print(value)

        ON_SAMPLE = OnSample(record)  # kept for the life of the process
        lib.register_sample_callback(ON_SAMPLE)
        """,
        """
        import ctypes

        lib = ctypes.CDLL("./libsensor.so")
        OnSample = ctypes.CFUNCTYPE(None, ctypes.c_double)

        class Sensor:
            def start(self):
                self._on_sample = OnSample(self.record)
                lib.register_sample_callback(self._on_sample)

            def record(self, value):
                print(value)
        """,
        """
        import ctypes

        OnEvent = ctypes.CFUNCTYPE(None, ctypes.c_int)

        class Bus:
            def add_callback(self, callback):
                self.callbacks.append(callback)

        Bus().add_callback(OnEvent(print))
        """,
    )
    invalid = (
        """
        import ctypes

        libcuda = ctypes.CDLL("libcuda.so.1")
        HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

        def on_done(data):
            print("batch done")

        def enqueue(stream):
            libcuda.cuLaunchHostFunc(stream, HostFn(on_done), None)  # error: CUR201, CUR202
        """,
        """
        import ctypes

        lib = ctypes.CDLL("./liblogger.so")
        LogFn = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p)

        def install(level):
            handler = LogFn(lambda lvl, text: print(lvl, text))
            lib.set_log_callback(handler)  # error: CUR202
        """,
        Example(
            """
            import ctypes

            lib = ctypes.CDLL("./libev.so")
            Watcher = ctypes.CFUNCTYPE(None, ctypes.c_int)

            def watch(fd):
                lib.ev_watch(fd, Watcher(lambda events: None))  # error: CUR202
            """,
            settings={"options": {"keeping-apis": ["ev_watch"]}},
        ),
    )

    @classmethod
    def look(cls, options, target_python, language):
        """A CUDA function that calls back later (by its whole name); in Python, `r.name` called
        or read (an alias may call it), `r` no bare name the module never assigns (a module, a
        parameter: not `codecs.register`; numba's `driver` is), or an import of a cffi module's
        `ffi` and `lib`; in Cython, a bare call a keeping pattern may match (`ev_register_x(`)."""
        from cursedlint.triggers.second_look import AnyOf, NameCall, Names

        if language == CYTHON:
            bare = NameCall(keeping_calls(options).patterns, excluded=("unregister",))
            return AnyOf((Names(_ASYNC_API_NAMES), bare))
        return AnyOf((Names(_ASYNC_API_NAMES), any_foreign_call(), cffi_import()))

    def __init__(self, context, options=None):
        super().__init__(context, options)
        self.keeping = keeping_calls(self.option)
        self.tracer = CallbackTracer(context)

    def check(self) -> None:
        """Callback objects their own callback drops; Cython: `<void*>` user data."""
        path = self.context.source.path
        for dropped in self_releases(self.context, self.tracer.is_wrap):
            self.report(dropped.release, dropped.message(self.tracer.maker(dropped.made.value)),
                        related=dropped.steps(path), help=SELF_RELEASE_HELP)
        for handed in user_data_handovers(self.context, self.keeping.matches):
            self.report(
                handed.argument,
                f"<void*> user data of {handed.api}: {handed.problem}",
                related=tuple(Step(path, line, note) for line, note in handed.steps),
                help=f"{handed.api} keeps the pointer and its callback reads the object after "
                "the call returns, but a <void*> cast holds no reference: keep one for as long "
                "as C may call (Py_INCREF it, or hold it in an object that outlives the "
                "stream or graph) and release it only after the last call.",
            )

    def visit_Call(self, node: ast.Call) -> None:
        if not self.tracer.may_hand_callback(node):
            return
        foreign = foreign_function(self.context, node.func)
        name = foreign or last_name(node.func)
        permanent = bool(self.context.qualified_name(node.func, among=PERMANENT_KEEPERS))
        by_name = name in ASYNC_CUDA_APIS or permanent or bool(foreign) and self.keeping.matches(foreign)
        if not (by_name or foreign) or not by_name and name in CALLBACK_APIS \
                or removes(name, node.args):
            return  # (the CUDA APIs that call back before they return; a removal)
        keywords = ((None, keyword.value) for keyword in node.keywords)
        for position, argument in (*enumerate(node.args), *keywords):
            if not isinstance(argument, ast.Starred):
                self._check_argument(argument, name, None if by_name else position, permanent)

    def _check_argument(self, argument: ast.AST, api: str, position: int | None,
                        permanent: bool = False) -> None:
        """`position`: where a foreign function its name does not decide takes the argument (its
        C decides, else `unknown-foreign-functions`); `permanent`: kept for the process."""
        if (handed := self.tracer.handed(argument)) is None:
            return
        (wrap, where), dropped = handed, ()
        if is_self_attribute(wrap):  # (its instance may die first)
            from cursedlint.analysis.instance_lifetime import dying_attribute

            dying = dying_attribute(self.context, wrap, self.tracer.is_wrap, permanent)
            if dying is None:
                return
            wrap, where, dropped = dying.wrap, dying.where, (dying.step(self.context),)
        if not self.tracer.is_wrap(wrap):
            return
        flow = self.tracer.trace(wrap)
        decorated = isinstance(wrap, _FUNCTIONS)  # (made by the decorator over it)
        what = f"def {wrap.name}()" if decorated else self.tracer.callable_shape(wrap) \
            if flow is None else flow.what if flow.parameter is None \
            else self.tracer.callable_parameter(flow) and f"the parameter '{flow.parameter}'"
        if not what:
            return
        keeping = () if position is None else kept_by_c(
            self.context, api, position, argument.lineno, self.option["unknown-foreign-functions"])
        if keeping is None:
            return
        maker = self.tracer.maker(wrap)
        self.report(  # (at the call that hands it to C: where the reference must be kept)
            argument, f"{maker} callback of {what} {where}; {api} calls it later",
            related=(*self.tracer.made_here(wrap, argument), *dropped, *keeping),
            help=f"{api} keeps the function pointer and calls it after the call returns, but "
            f"{maker} keeps no reference for C: the trampoline is freed and the later call jumps "
            "into freed memory (a crash far from here). Keep the object alive as long as C may "
            "call it (module level or an attribute), or pass a compiled function.",
        )
