"""The `cuda-reach` project index: per function of the project's modules, whether it
synchronizes the device, uses CUDA, waits for the GPU, begins a global-mode capture, returns a
pinned DataLoader, or starts a thread left running whose code uses CUDA (and whether it joins
threads), by itself or through its module's own functions. CUR4xx and CUR102 read it."""

from __future__ import annotations

import ast
import functools
import re

from msgspec.structs import replace

from cursedlint.analysis.capture_regions import (
    FUNCTIONS, GLOBAL, GRAPH_CONTEXTS, GRAPH_NAMES, GRAPHED_CALLABLES, PAIRINGS, REGION_WORDS,
    GRAPH_MODULES, WARP_SCOPED, CaptureAnalysis,
    body_of, capture_analysis, pinned_loader, position,
)
from cursedlint.analysis.cuda_facts import CudaFact
from cursedlint.analysis.python_modules import imports_project_module
from cursedlint.analysis.python_project import (
    ANY_QUESTION, HANDED, RUNNING, FunctionIndexer, FunctionSummary, Handed, ModuleSummary, ProjectFunctions,
    Reach, answered_otherwise, call_names, last_name, linted_imports, may_be_project,
    module_functions, own_nodes, project_names, recorded_questions, scope_nodes,
)
from cursedlint.patterns import LazyPattern
from cursedlint.project.index import Indexer


_LOADER_MADE = "cuda-reach-pinned-loader"  # whether the module makes a pinned DataLoader
_CAPTURE_WORDS = ("capture_begin", "begin_capture", "cudaStreamBeginCapture",
                  "cuStreamBeginCapture", "cuStreamBeginCapture_v2", "graph",
                  "make_graphed_callables")
"""`CudaUse` checks whose facts are summarized for the project (`CudaReach`)."""


class CudaReach(FunctionIndexer):
    """Per function of the project's modules: whether it synchronizes the device, uses CUDA,
    waits for the GPU, or begins a global-mode capture, by itself or through the module's own
    functions; whether it runs cuBLAS or cuDNN work; and whether it returns a pinned
    DataLoader (a factory). The kinds: `CudaFact`."""

    name = "cuda-reach"
    handed = {CudaFact.TASK_CAPTURE: Handed((CudaFact.GLOBAL_CAPTURE, CudaFact.TASK_CAPTURE)),
              CudaFact.TASK_CUDA: Handed((CudaFact.CUDA,)),
              CudaFact.THREAD_CAPTURE: Handed(
                  (CudaFact.GLOBAL_CAPTURE, CudaFact.TASK_CAPTURE), running=True),
              CudaFact.THREAD_CUDA: Handed((CudaFact.CUDA, CudaFact.TASK_CUDA), running=True)}

    def words(self, settings):
        """Modules that begin a capture, start threads (their names become trigger words) or
        make a DataLoader (a factory a loop of another module iterates); the rest is read
        from the names the files that need facts use (`seed_words`)."""
        return (*_CAPTURE_WORDS, "DataLoader", "Thread", "Timer", "ThreadPoolExecutor",
                "run_in_executor", "to_thread")

    def seed_words(self, context):
        """What a file that needs the facts uses from the project's modules."""
        return project_names(context)

    def trigger_words(self, facts):
        """The project's functions that begin a global-mode capture (a finding across modules
        needs one, and they are few), its classes whose framework hooks reach one
        (`framework_loops.hook_classes`: a module that hands one to a Trainer names no
        capture itself), and its functions that run one on another thread (`TASK_CAPTURE`:
        a module that runs one beside other work names neither capture nor thread; nor does
        one making two components whose threads, left running, capture and use CUDA: a
        `THREAD_CAPTURE` is a `TASK_CAPTURE` too)."""
        return self._project_words(facts)[0]

    def gated_trigger_words(self, facts):
        """The project's functions that reach a global-mode capture through other modules'
        functions too, on their thread or another, for a module that runs coroutines or executor
        tasks beside each other (CUR401's `fact_gated` words). Sound: units race only where
        one's code reaches a capture of the project (`concurrent_units`), in the module itself
        (its capture words trigger it anyway) or in another, through a call the module's code
        makes, which names one of these (a unit's own function included). A module that names
        none, in a project without a global-mode capture above all, is not parsed for it."""
        return self._project_words(facts)[1]

    _words_of: tuple = ((), None)

    def _project_words(self, facts) -> tuple[tuple[str, ...], frozenset[str]]:
        """`trigger_words` and `gated_trigger_words`, from one walk of the facts' reach, kept
        for the same summaries (the rules reading these facts, and their second looks, ask
        each several times a run)."""
        from cursedlint.analysis.framework_loops import hook_classes

        summaries = tuple(facts.items())  # (held with the words: their ids stay theirs)
        known, words = self._words_of
        if words is not None and len(known) == len(summaries) and all(
                a[0] == b[0] and a[1] is b[1] for a, b in zip(known, summaries)):
            return words
        functions = ProjectFunctions(facts, self.handed)
        tasks = functions.reaching(CudaFact.TASK_CAPTURE)
        words = ((*capturing_names(facts), *sorted(hook_classes(facts)), *sorted(tasks)),
                 functions.reaching(CudaFact.GLOBAL_CAPTURE) | tasks)
        self._words_of = (summaries, words)
        return words

    # (its trigger words alone, where they are wanted: `CaptureStarts`, set below)

    def needed_by(self, context) -> bool:
        """Only a module that imports another one of the project can call into it."""
        return imports_project_module(context)

    def lookups(self, context) -> set[str]:
        """What the file reaches the facts through (`FunctionIndexer.lookups`), and the
        questions its lint asked of the facts to come (`recorded_questions`: each a JSON
        list), or `ANY_QUESTION` where it read them otherwise, or ran with none to come."""
        questions = recorded_questions(context, self.name) if context.facts_to_come else None
        return {*super().lookups(context), *(questions if questions is not None
                                             else (ANY_QUESTION,))}

    def affects(self, facts: dict[str, ModuleSummary], path: str, lookups: list[str]) -> bool:
        """Whether the facts lead anywhere from what the file reaches them through
        (`FunctionIndexer.affects`), and one of the questions it asked has another answer
        with them than it had without (`answered_otherwise`): its findings can change only
        then (each test alone is sound)."""
        questions = [lookup for lookup in lookups if lookup.startswith("[")]
        if ANY_QUESTION not in lookups and not answered_otherwise(  # (first: the cheaper)
                self.name, facts, self.handed, questions):
            return False
        names = [lookup for lookup in lookups if not lookup.startswith(("[", ANY_QUESTION))]
        return super().affects(facts, path, names)

    def local_facts(self, context, function: ast.AST) -> dict[str, Reach]:
        from cursedlint.analysis.thread_starts import ThreadStarts

        module = context.shared(_ModuleCudaFacts, lambda: _ModuleCudaFacts(context))
        facts = {kind: Reach(line, what, tuple(via))
                 for kind, (line, what, via) in module.of(function).items()}
        loader = _returned_loader(capture_analysis(context), function) if context.shared(
            _LOADER_MADE, lambda: _makes_pinned_loader(context)) else None
        if loader is not None:
            facts[CudaFact.PINNED_LOADER] = Reach(loader.lineno, "a pinned DataLoader is made")
        if _starts_threads(context):
            threads = context.shared(
                ThreadStarts, lambda: ThreadStarts(context, module.analysis, module.uses))
            off = _off_thread(context, threads)
            facts.update(threads.thread_facts(function, (off.capture, off.cuda, off.captures)))
            if CudaFact.THREAD_CAPTURE in facts:  # (a thread left running is a thread)
                facts.setdefault(CudaFact.TASK_CAPTURE, facts[CudaFact.THREAD_CAPTURE])
            for kind, (line, what, via, serial) in off.facts(function).items():
                facts[kind] = Reach(line, what, tuple(via), detail=serial)
            facts.update(_task_pairs(context, off, function))
            submitted = threads.submitted_parameter(function)
            if submitted is not None:
                facts[CudaFact.SUBMITS_PARAMETER] = Reach(
                    function.lineno, f"submits its parameter `{submitted[1]}` to "
                    f"`{submitted[2]}`", detail=":".join(map(str, submitted)))
        return facts

    def extended(self, context, summary: ModuleSummary | None,
                 calls: list) -> ModuleSummary | None:
        """The summary with the calls each function makes of instances of the project's
        classes (`nn_modules.instance_calls`: a module's `self.block(x)`, `for layer in
        self.layers: x = layer(x)`; only where the call runs whenever the function does),
        the callables it hands to threads and executor tasks (`HANDED` calls, which the
        `TASK_*` and `THREAD_*` kinds follow into other modules), and, in the methods a class
        hands to threads or tasks and those they call, the calls through `self` attributes
        holding instances (`OffThread.instance_calls`)."""
        from cursedlint.analysis.nn_modules import instance_calls

        module = context.shared(_ModuleCudaFacts, lambda: _ModuleCudaFacts(context))
        functions = dict(summary.functions) if summary else {}
        imports = linted_imports(context)
        local = {getattr(node, "name", "") for node in context.tree.body}
        defs = dict(module_functions(context.tree))
        added = {qualname: [call for call in instance_calls(
            context, module.analysis, function, functools.partial(module.runs, function))
            if may_be_project(call.name, imports, local)] for qualname, function in defs.items()}
        if _starts_threads(context):
            from cursedlint.analysis.thread_starts import ThreadStarts

            threads = context.shared(
                ThreadStarts, lambda: ThreadStarts(context, module.analysis, module.uses))
            off = _off_thread(context, threads)
            handed = {qualname: off.handed(function) for qualname, function in defs.items()}
            for qualname in _thread_methods(handed, functions):
                handed[qualname] = [*handed[qualname], *(
                    call for call in off.instance_calls(defs[qualname])
                    if may_be_project(call.name, imports, local))]
            for qualname, calls in handed.items():
                added[qualname] = [*calls, *added[qualname]]
        for qualname, calls in added.items():
            if calls:
                known = functions.get(qualname)
                calls = tuple(dict.fromkeys(calls if known is None else (*known.calls, *calls)))
                functions[qualname] = FunctionSummary(defs[qualname].lineno, {}, calls) \
                    if known is None else replace(known, calls=calls)
        if summary is None:
            return ModuleSummary({}, functions) if functions else None
        return replace(summary, functions=functions, defined=tuple(
            qualname for qualname in summary.defined if qualname not in functions))


def _thread_methods(handed: dict[str, list], functions: dict) -> set[str]:
    """The methods a class hands to threads or tasks (`self.method`), and those they call
    (`self.other()`): where a thread's code meets the instances its object holds."""
    methods = set()
    for qualname, calls in handed.items():
        cls = qualname.partition(".")[0] if "." in qualname else None
        for call in calls if cls else ():
            name = call.name.removeprefix(HANDED).removeprefix(RUNNING)
            if name.startswith("self."):
                methods.add(f"{cls}.{name[5:]}")
    called = {f"{qualname.partition('.')[0]}.{call.name[5:]}" for qualname in methods
              if qualname in functions for call in functions[qualname].calls
              if call.name.startswith("self.") and "." not in call.name[5:]}
    return {qualname for qualname in methods | called if qualname in handed}


def host_sync_of(context, function: ast.AST) -> tuple[int, str, list[str]] | None:
    """Where a function of the module waits for the GPU without a condition, itself or through
    the module's own functions, as its facts for the index say (a CUDA tensor read on the host
    included): (line, what, [functions through which]), or None."""
    return _host_sync_facts(context).of(function).get(CudaFact.HOST_SYNC)


def _host_sync_facts(context) -> "_ModuleCudaFacts":
    return context.shared((_ModuleCudaFacts, CudaFact.HOST_SYNC),
                          lambda: _ModuleCudaFacts(context, only=CudaFact.HOST_SYNC))


def syncing_backwards(context):
    """A check (for `CudaUse.first`; the index's `CudaFact.BACKWARD_SYNC` for other modules)
    for a node of the module that applies one of its autograd Functions (`F.apply(...)`)
    whose `backward` waits for the GPU whenever it runs: what a captured backward runs."""
    def applies_syncing_backward(node: ast.AST) -> str | None:
        return _applied_backward_sync(context, node)

    applies_syncing_backward.remote_kind = CudaFact.BACKWARD_SYNC
    return applies_syncing_backward


_BACKWARDS = frozenset({"torch.autograd.backward", "torch.autograd.grad"})


def backward_runs(context):
    """A check (for `CudaUse.first`) for a node that runs autograd's backward
    (`loss.backward()`, `torch.autograd.backward`, `torch.autograd.grad`)."""
    def runs_backward(node: ast.AST) -> str | None:
        return _runs_backward(context, node) if isinstance(node, ast.Call) else None

    return runs_backward


def _runs_backward(context, node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "backward" and \
            context.qualified_name(func) in (None, "torch.autograd.backward"):
        return f"`{ast.unparse(func)}()` runs the backward"
    name = context.qualified_name(func, among=_BACKWARDS)
    return f"`{name}()` runs the backward" if name else None


def _applied_backward_sync(context, node: ast.AST) -> str | None:
    func = node.func if isinstance(node, ast.Call) else None
    if not (isinstance(func, ast.Attribute) and func.attr == "apply"
            and isinstance(func.value, ast.Name)):
        return None  # (most nodes: before the imports, which cost more than this test)
    from cursedlint.analysis.cuda_tensors import AUTOGRAD_FUNCTIONS
    from cursedlint.analysis.cuda_use import through

    cls = context.definition(func.value)
    if not (isinstance(cls, ast.ClassDef) and any(
            context.qualified_name(base, among=AUTOGRAD_FUNCTIONS) for base in cls.bases)):
        return None
    read = context.shared(("backward-sync", id(cls)), lambda: _backward_sync(context, cls))
    if read is None:
        return None
    line, what, via = read
    return f"`{cls.name}.backward()`{through(via)} waits for the GPU at line {line}: {what}"


def _backward_sync(context, cls: ast.ClassDef) -> tuple[int, str, list[str]] | None:
    """Where an autograd Function's `backward` waits for the GPU whenever it runs: a wait of
    its own or of the module's functions it calls, or a read on the host of a gradient it is
    given (`gradient_parameters`)."""
    backward = CaptureAnalysis.own_method(cls, "backward")
    if not isinstance(backward, FUNCTIONS):
        return None
    from cursedlint.analysis.cuda_tensors import gradient_parameters

    found = host_sync_of(context, backward)
    gradients = gradient_parameters(backward)
    if found is not None or not gradients:
        return found
    return parameter_read(context, backward, gradients)


def parameter_read(context, function: ast.AST,
                   parameters: frozenset[str]) -> tuple[int, str, list[str]] | None:
    """Where a function of the module reads on the host, whenever it runs, one of its
    `parameters` known to hold a CUDA tensor (`CudaTensors.host_read`): (line, what, [])."""
    read = parameter_read_at(context, function, parameters)
    return None if read is None else (read[0].lineno, read[1], [])


def parameter_read_at(context, function: ast.AST,
                      parameters: frozenset[str]) -> tuple[ast.AST, str] | None:
    """`parameter_read`'s (node, what)."""
    from cursedlint.analysis.cuda_tensors import CudaTensors

    facts = _host_sync_facts(context)
    tensors = CudaTensors(context, facts.analysis, facts.uses, body_of(function), parameters)
    for node in facts.ordered(function):
        if isinstance(node, _READS) and id(node) not in facts.conditional:
            read = tensors.host_read(node)
            if read:
                return read
    return None


_THREAD_WORDS = LazyPattern(r"Thread|Timer|Executor|run_in_executor|to_thread")


def _starts_threads(context) -> bool:
    """Whether the module may start a thread or an executor task (by its text)."""
    return context.shared(_THREAD_WORDS, lambda: bool(_THREAD_WORDS.search(context.source.text)))


def _task_pairs(context, off, function) -> dict[str, Reach]:
    from cursedlint.analysis.concurrent_units import ConcurrentUnits
    from cursedlint.analysis.task_pairs import pairs_fact

    units = context.shared(ConcurrentUnits, lambda: ConcurrentUnits(off.threads, off))
    return pairs_fact(off, units, function)


def _off_thread(context, threads):
    from cursedlint.analysis.concurrent_units import OffThread

    return context.shared(OffThread, lambda: OffThread(threads))
_NESTED = (*FUNCTIONS, ast.Lambda, ast.ClassDef)
"""What `ordered` does not enter (their code runs when called, not with the function)."""
_UNCONDITIONAL = (CudaFact.HOST_SYNC, CudaFact.BACKWARD_SYNC)
"""Kinds a function has only where it does the thing whenever it runs (not under an `if`)."""
_TENSOR_WORDS = (b"torch", b"cuda", b"cupy")
"""What a module that makes a CUDA tensor (`CudaTensors`) writes."""
_ANSWERED = {
    CudaFact.DEVICE_WIDE: (ast.Call, ast.For, ast.AsyncFor),  # (`CudaUse.thread_use`)
    CudaFact.CUDA: (ast.Call, ast.For, ast.AsyncFor),
    CudaFact.SURE_CUDA: (ast.Call, ast.For, ast.AsyncFor),
    CudaFact.CUDA_INIT: (ast.Call,), CudaFact.CUDA_NEEDED: (ast.Call,),
    CudaFact.HOST_SYNC: (ast.Call, ast.Subscript),  # (a boolean mask)
    CudaFact.BACKWARD_SYNC: (ast.Call,), CudaFact.LIBRARY_WORK: (ast.Call, ast.BinOp)}
"""The node types each check of `_ModuleCudaFacts` can answer for (none said: every type):
the others answer None before anything else, and are not asked."""
_READS = (ast.If, ast.While, ast.IfExp, ast.Assert, ast.Call, ast.FormattedValue, ast.BinOp)
"""Nodes that may read a CUDA tensor's value on the host (`CudaTensors.host_read`: tests,
conversions, formatting): a function that does so unconditionally synchronizes
(`CudaFact.HOST_SYNC`) where a capture calls it."""


class _ModuleCudaFacts:
    """The CUDA facts of each function of a module parsed for the index, in one walk per
    function for all kinds, following the module's own functions (memoized, cycles cut):
    kind -> (line, what, [functions through which])."""

    def __init__(self, context, only: CudaFact | None = None):
        """`only`: the one kind looked for (else all)."""
        from cursedlint.analysis.cuda_use import checked_types, module_cuda_use
        from cursedlint.analysis.library_work import LibraryWork

        self.context = context
        self.analysis = _fed(capture_analysis(context))
        self.uses = module_cuda_use(context)
        self.checked = checked_types(context)  # (the node types a check answers for)
        self.conditional: set[int] = set()  # the nodes under an `if` (`ordered`)
        data = context.source.data  # (no CUDA tensor is made where none of these is written)
        self._reads = any(word in data for word in _TENSOR_WORDS)
        # (no check is bound to self: the cycle would keep the module's tree for the collector)
        checks = {
            CudaFact.DEVICE_WIDE: lambda: self.uses.device_wide_use,
            CudaFact.CUDA: lambda: self.uses.any_use,
            CudaFact.SURE_CUDA: lambda: self.uses.sure_use,
            CudaFact.CUDA_INIT: lambda: self.uses.initializes,
            CudaFact.CUDA_NEEDED: lambda: self.uses.needs_cuda,
            CudaFact.HOST_SYNC: lambda: functools.partial(
                _unconditional_sync, self.conditional, self.uses.host_sync),
            CudaFact.BACKWARD_SYNC: lambda: functools.partial(
                _unconditional_sync, self.conditional, syncing_backwards(context)),
            CudaFact.GLOBAL_CAPTURE: lambda: self.analysis.begins,
            CudaFact.LIBRARY_WORK: lambda: LibraryWork(
                context, self.analysis, self.uses).library_work}
        self.checks = {kind: made() for kind, made in checks.items()
                       if only is None or kind is only}
        self._asked = {kind: [(fact, check) for fact, check in self.checks.items()
                              if _ANSWERED.get(fact) is None or kind in _ANSWERED[fact]]
                       for kind in self.checked}  # node type -> the checks that may answer
        self._memo: dict[int, dict] = {}

    def of(self, function: ast.AST) -> dict[CudaFact, tuple[int, str, list[str]]]:
        key = id(function)
        if key in self._memo:
            return self._memo[key]
        from cursedlint.analysis.cuda_tensors import CudaTensors

        self._memo[key] = {}  # a call back into a function being read adds nothing
        found: dict[CudaFact, tuple[int, str, list[str]]] = {}
        tensors = None  # (the function's, made when a test or conversion may read one)
        asked = self._asked
        for node in self.ordered(function):
            checks = asked.get(type(node))  # (parsed nodes: no subclasses)
            if checks:
                for kind, check in checks:
                    if kind not in found:
                        what = check(node)
                        if what:
                            found[kind] = (node.lineno, what, [])
            if self._reads and CudaFact.HOST_SYNC in self.checks and \
                    CudaFact.HOST_SYNC not in found and isinstance(node, _READS) and \
                    id(node) not in self.conditional:
                tensors = tensors or CudaTensors(self.context, self.analysis, self.uses,
                                                 body_of(function))
                read = tensors.host_read(node)
                if read:
                    found[CudaFact.HOST_SYNC] = (read[0].lineno, read[1], [])
            callee = self.uses.callee(node)
            if callee is not None:
                for kind, (line, what, via) in self.of(callee).items():
                    if kind not in _UNCONDITIONAL or id(node) not in self.conditional:
                        found.setdefault(kind, (line, what, [callee.name, *via]))
            if len(found) == len(self.checks):
                break
        self._memo[key] = found
        return found

    def runs(self, function: ast.AST, node: ast.AST) -> bool:
        """Whether a node of the function's own runs whenever it does (not under an `if`)."""
        self.of(function)  # (its walk notes the nodes under an `if`: memoized)
        return id(node) not in self.conditional

    def ordered(self, function: ast.AST) -> list[ast.AST]:
        """The function's own nodes that a check can answer for (and the tests and
        conversions that may read a CUDA tensor on the host), by position, noting those under
        an `if` (not in its test, which runs whenever the `if` does). Taken from the list
        `scope_nodes` keeps for the tree (the summary's calls read it too): only the branches
        are walked again, for what they hold."""
        kept, under_if = self.checked + _READS, self.conditional
        own = scope_nodes(self.context, function)
        nodes = [node for node in own if isinstance(node, kept)]
        walked: set[int] = set()  # (the branches inside a branch walked: walked with it)
        for node in own:
            if isinstance(node, _BRANCHES) and id(node) not in walked:
                if isinstance(node, ast.Assert):  # (its message is made only when it fails)
                    _note_branch(node.msg, kept, under_if, walked)
                else:
                    _note_branch(node.body, kept, under_if, walked)
                    _note_branch(node.orelse, kept, under_if, walked)
        return sorted(nodes, key=position)


_BRANCHES = (ast.If, ast.IfExp, ast.Assert)


def _note_branch(branch: ast.AST | list | None, kept: tuple[type, ...], under_if: set[int],
                 walked: set[int]) -> None:
    """Note the nodes of `kept` types that run with a branch (an `if`'s body or else, an
    assert's message) as under an `if`, and the branches within it as walked."""
    from cursedlint.python.context import child_fields

    pending = list(branch) if type(branch) is list else [] if branch is None else [branch]
    node_class = ast.AST
    while pending:
        node = pending.pop()
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, kept):
            under_if.add(id(node))
        if isinstance(node, _BRANCHES):
            walked.add(id(node))
        for name in child_fields(type(node)):
            value = getattr(node, name, None)
            if type(value) is list:
                pending.extend(child for child in value if isinstance(child, node_class))
            elif isinstance(value, node_class):
                pending.append(value)


def capturing_names(facts: dict) -> tuple[str, ...]:
    """Names of the project's functions (path -> ModuleSummary of `CUDA_REACH`) that begin a
    global-mode capture themselves (through their module's own functions)."""
    names = {part for summary in facts.values()
             for qualname, function in summary.functions.items()
             if CudaFact.GLOBAL_CAPTURE in function.facts for part in call_names(qualname)}
    return tuple(sorted(names))


def _fed(analysis: CaptureAnalysis) -> CaptureAnalysis:
    """The analysis of a module parsed for the index (no walk fed it): its regions (only the
    calls named like a region's start are read; none where the source names none)."""
    data = analysis.context.source.data
    if not any(word in data for word in _REGION_NAMES):
        return analysis
    starts = _REGION_STARTS | analysis.graph_modules  # (and the calls of a CudaGraphModule)
    for node in analysis.context.nodes(ast.With, ast.AsyncWith, ast.Call):
        if not isinstance(node, ast.Call):
            analysis.visit_With(node)
        elif last_name(node.func) in starts:
            analysis.visit_Call(node)
    return analysis


_REGION_STARTS = frozenset(PAIRINGS) | {name.rpartition(".")[2] for name in GRAPHED_CALLABLES}
_REGION_NAMES = REGION_WORDS | GRAPH_NAMES | {name.encode() for name in _REGION_STARTS}
_STARTED_BY = tuple(sorted({name.encode() for name in _REGION_STARTS} | {
    name.rpartition(".")[2].encode() for name in GRAPH_CONTEXTS | WARP_SCOPED | GRAPH_MODULES}))
"""The last names of the calls and `with`s that begin a region (`CaptureAnalysis`)."""


def _makes_pinned_loader(context) -> bool:
    """Whether one of the module's calls makes a pinned DataLoader: only then can a function
    of it return one (asked once per module, not by a walk of each function)."""
    if b"DataLoader" not in context.source.data:
        return False
    analysis = capture_analysis(context)
    return any(pinned_loader(analysis, call) for call in context.nodes(ast.Call))


def _returned_loader(analysis: CaptureAnalysis, function: ast.AST) -> ast.Call | None:
    """The pinned DataLoader a factory returns (directly or through a name)."""
    for node in own_nodes(body_of(function)):
        if isinstance(node, ast.Return) and node.value is not None:
            loader = pinned_loader(analysis, node.value)
            if loader is not None:
                return loader
    return None


class CaptureStarts(Indexer):
    """Per module: its functions that begin a global-mode capture, by themselves or through
    the module's own functions (`CudaReach`'s global-capture facts alone, at a fraction of
    its cost, within the same bounds). What gives `CudaReach`'s trigger words where only
    they are wanted: only a module that captures can define a function that begins one."""

    name = "capture-starts"
    languages = CudaReach.languages
    summary_type = tuple[str, ...]
    max_rounds = 0
    max_files, max_bytes = CudaReach.max_files, CudaReach.max_bytes
    adds_triggers = True

    def trigger_names(self, data: bytes) -> list[bytes]:
        """The names the module's `def`s define (`trigger_words` are the last parts of
        `module_functions`' names), and its classes' where one defines `__init__` or
        `__call__` (`call_names`: such a class gives its own name); none where its code
        names no region's start (`_STARTED_BY`: a region begins only at a call or `with`
        whose name ends so, or an import binding one, in code; a module that names one only
        in comments, docstrings or inside longer names such as `cuda_graph_impl` begins
        none)."""
        from cursedlint.triggers.statement_text import named_in_code

        return self.trigger_names_at_most(data) if named_in_code(data, _STARTED_BY) else []

    def trigger_names_at_most(self, data: bytes) -> list[bytes]:
        """`trigger_names` as if the code named a region's start (the `def`s' names and the
        classes' where needed): a regular expression's reading, where the code's is a
        tokenizer's."""
        from cursedlint.triggers.statement_text import stated_names

        names = stated_names(_DEFINED, data)
        return [*names, *stated_names(_CLASS, data)] if {b"__init__", b"__call__"} & {*names} \
            else names

    def words(self, settings):
        return ("capture_begin", "begin_capture", "BeginCapture", "make_graphed_callables",
                "graph", "ScopedCapture", "CudaGraphModule")

    def pattern(self, words, first_round):
        """A region's start (`REGION_TRIGGERS`): `graph` only called or imported as, a whole
        name as the capture rules' second look reads it (`Call(GRAPH_NAMES)`: `cuda_graph(`
        is another function)."""
        return _REGION_START

    def summarize(self, context) -> tuple[str, ...] | None:
        module = _ModuleCudaFacts(context, only=CudaFact.GLOBAL_CAPTURE)
        if not any(region.mode == GLOBAL for region in module.analysis.regions):
            return None  # (no function can reach a global capture the module never begins)
        return tuple(qualname for qualname, function in module_functions(context.tree)
                     if module.of(function)) or None

    def trigger_words(self, facts: dict) -> tuple[str, ...]:
        """`capturing_names` of these facts."""
        return tuple(sorted({part for names in facts.values() for qualname in names
                             for part in call_names(qualname)}))


class _RegionStart:
    """`CaptureStarts.pattern`: its words but `graph` anywhere, or `graph` a whole name called
    or imported as (the boundary checked behind it: with the lookbehind first, `re` tried the
    pattern at every byte). Searched apart: as one alternation of the six, `re` tried it at
    every byte that begins one of them (2.2x as long over the torch wheel's modules)."""

    _WORDS = (b"capture_begin", b"begin_capture", b"BeginCapture", b"make_graphed_callables",
              b"ScopedCapture", b"CudaGraphModule")
    _ANY_WORD = LazyPattern(b"|".join(_WORDS))
    _GRAPH = LazyPattern(rb"graph(?<![A-Za-z0-9_]graph)(?:(?:\s|\\)*\(|(?:\s|\\)+as(?:\s|\\))")

    def search(self, data: bytes) -> re.Match[bytes] | None:
        found = self._ANY_WORD.search(data) if any(word in data for word in self._WORDS) \
            else None
        return found or self._GRAPH.search(data)


_REGION_START = _RegionStart()
_DEFINED = LazyPattern(rb"def(?:\s|\\)+([^\s(\[\\:]+)")
"""The name a `def` defines, with words ending in `def` (`stated_names` keeps those that begin
a line; a pattern that starts with its literal is searched fastest)."""
_CLASS = LazyPattern(rb"class(?:\s|\\)+([^\s(\[\\:]+)")
"""The name a `class` statement binds (more, never fewer, as `_DEFINED`)."""
CAPTURE_STARTS = CaptureStarts()
CudaReach.trigger_indexer = CAPTURE_STARTS
CUDA_REACH = CudaReach()


def _unconditional_sync(conditional: set[int], host_sync, node: ast.AST) -> str | None:
    """A wait for the GPU (`host_sync`, or another check) that runs whenever the function
    does: one under an `if` (`conditional`) depends on values another module's caller cannot
    be seen to give."""
    return None if id(node) in conditional else host_sync(node)
