"""Frameworks' training loops as facts: which hooks of the project's classes PyTorch
Lightning's `Trainer.fit` (and its validation loop) and Hugging Face's `Trainer.train` run
while the iterator of their training (validation) DataLoader is alive, how that loader is
found, and what makes it pin memory in a background thread. Read from the frameworks' sources (Lightning 2.x at 7f0c343, `loops/`;
transformers 5.24 `trainer.py`, `training_args.py`):

- Lightning makes the training iterator in `fit_loop.setup_data()` (`iter(data_fetcher)`),
  before `on_train_start`; its epoch loop calls `next()` (the fetcher prefetches one batch),
  then runs the batch hooks, `training_step`, the backward and optimizer hooks, and
  `on_train_batch_end`. The loader is `fit`'s `train_dataloaders`, else the datamodule's
  `train_dataloader()`, else the LightningModule's; Lightning keeps its `pin_memory` and
  `num_workers` (it pins nothing itself).
- Lightning's evaluation loop (`Trainer.validate`, and `Trainer.fit`'s validation) makes its
  iterator likewise (`iter(data_fetcher)` in `setup_data`), and for each batch calls
  `next()`, then `on_validation_batch_start` and `validation_step`. The loader is
  `validate`'s `dataloaders` or `fit`'s `val_dataloaders`, else the datamodule's or the
  LightningModule's `val_dataloader()`.
- transformers' `_inner_training_loop` calls `on_train_begin` and each epoch's
  `on_epoch_begin` before `iter(train_dataloader)`; each step takes its batches with
  `next()` (`get_batch_samples`), then runs `on_step_begin`, `training_step` (and
  `compute_loss`), `on_pre_optimizer_step`, the optimizer, `on_optimizer_step`,
  `on_step_end`. `get_train_dataloader()` makes `DataLoader(pin_memory=
  args.dataloader_pin_memory, num_workers=args.dataloader_num_workers)` (defaults True and 0:
  no pin-memory thread unless workers are asked for).

The pin-memory thread makes CUDA calls while it pins a batch, and a batch arrives after the
main thread's `next()` hands the workers a new index: the hooks kept here are those that run
after it, until the next `next()`. Observed on an H200 (PyTorch 2.11, Lightning 2.6.6, a
callback capturing 12 graphs, `tests/test_framework_loop_gpu.py`): a global-mode capture in
`on_train_batch_start` failed 3 runs of 3 ("operation failed due to a previous error during
capture"), in `on_before_optimizer_step` 2 of 3, in `on_train_batch_end` 2 of 4 (0 of 3 in an
earlier session: after a short step the batch is still being pinned, or not), and in
`on_train_start` (the iterator alive, its first batches already pinned) 0 of 6, capturing 200
or 20,000 layers. With transformers 5.17, a TrainerCallback capturing 12 graphs in
`on_step_begin` failed 3 runs of 3 with `dataloader_num_workers=4` and captured in 3 of 3 with
the default 0 (pinned on the main thread). Capturing at each of 40 steps, `on_optimizer_step`
failed 6 runs of 6, and `on_step_end` 6 of 6 on one machine, on another 0 of 9 with 2 KiB rows,
1 of 3 with 32 KiB rows and 4 of 4 with 128 KiB rows (the pin-memory thread still busy after
the step);
every run captured with `thread_local` mode, with 0 workers, or in `on_train_begin`/
`on_epoch_begin` (before the epoch's iterator). `on_train_start`, like `setup`
and `on_fit_start` (before the iterator exists), is not reported.

A run is a Trainer built and run in the module. Its callbacks, model and Trainer subclass
may be classes of the module (the capture is reported in the hook) or of another module of
the project (reported where the module hands the class to the Trainer, the hook's capture
found through the `cuda-reach` index, whose trigger words `hook_classes` adds the class
names to). A Trainer run in a module that does not show its loader (`TrainingArguments` from
`HfArgumentParser`, a datamodule from a config) is not reported: the default loader pins in
no thread, and a loader it cannot see may not either."""

from __future__ import annotations

import ast
import os
from typing import TYPE_CHECKING, Iterator, NamedTuple

from cursedlint.analysis.capture_regions import BEGINS_GLOBAL, CaptureAnalysis, body_of
from cursedlint.analysis.cuda_facts import CudaFact
from cursedlint.analysis.pinned_loaders import Loader, PinnedLoaders
from cursedlint.analysis.python_project import (
    ModuleSummary, ProjectFunctions, dotted, linted_imports, own_method, own_nodes,
)
from cursedlint.findings import Step
from cursedlint.python.consteval import UNKNOWN

if TYPE_CHECKING:
    from cursedlint.analysis.cuda_use import CudaUse


class Framework(NamedTuple):
    """A framework's training (or validation) loop: the hooks it runs with the iterator of
    its `loader` alive."""

    name: str
    loop: str
    alive: str
    callback_hooks: frozenset[str]
    own_hooks: frozenset[str]
    """Hooks of the model (Lightning) or of the Trainer subclass (transformers)."""
    in_loop: str
    """How messages name the loop."""
    loader: str = "training"
    loader_method: str = "train_dataloader"
    """The method of a LightningModule or datamodule that gives the loader."""
    before_loop: str = "on_fit_start or setup"
    """Hooks that run before the loader's iterator exists (where a fix may capture)."""


_LIGHTNING_CALLBACK_HOOKS = frozenset({
    "on_train_batch_start", "on_before_zero_grad", "on_before_backward", "on_after_backward",
    "on_before_optimizer_step", "on_train_batch_end"})
LIGHTNING = Framework(
    "PyTorch Lightning", "Trainer.fit",
    "its training epoch loop runs them after each next() on the training DataLoader's "
    "iterator, while the batch that next() asked the workers for is pinned",
    _LIGHTNING_CALLBACK_HOOKS,
    _LIGHTNING_CALLBACK_HOOKS | {
        "training_step", "backward", "optimizer_step", "optimizer_zero_grad",
        "configure_gradient_clipping", "on_before_batch_transfer", "transfer_batch_to_device",
        "on_after_batch_transfer"}, "Trainer.fit's loop")
LIGHTNING_VALIDATION = Framework(
    "PyTorch Lightning", "Trainer.fit or Trainer.validate",
    "its evaluation loop runs them after each next() on the validation DataLoader's "
    "iterator, while the batch that next() asked the workers for is pinned",
    frozenset({"on_validation_batch_start"}),
    frozenset({"on_validation_batch_start", "validation_step"}),
    "Lightning's validation loop", "validation", "val_dataloader")
HUGGING_FACE = Framework(
    "Hugging Face transformers", "Trainer.train",
    "its _inner_training_loop runs them after each step's next() calls on "
    "iter(train_dataloader), while the batches they asked the workers for are pinned",
    frozenset({"on_step_begin", "on_pre_optimizer_step", "on_optimizer_step", "on_step_end"}),
    frozenset({"training_step", "compute_loss"}), "Trainer.train's loop",
    before_loop="on_train_begin")

LIGHTNING_TRAINERS = frozenset({
    "lightning.Trainer", "lightning.pytorch.Trainer", "lightning.pytorch.trainer.Trainer",
    "lightning.pytorch.trainer.trainer.Trainer", "pytorch_lightning.Trainer",
    "pytorch_lightning.trainer.Trainer", "pytorch_lightning.trainer.trainer.Trainer"})
LIGHTNING_MODULES = frozenset({
    "lightning.LightningModule", "lightning.pytorch.LightningModule",
    "lightning.pytorch.core.LightningModule", "lightning.pytorch.core.module.LightningModule",
    "pytorch_lightning.LightningModule", "pytorch_lightning.core.LightningModule",
    "pytorch_lightning.core.module.LightningModule",
    "pytorch_lightning.core.lightning.LightningModule"})
HF_TRAINERS = frozenset({"transformers.Trainer", "transformers.trainer.Trainer",
                         "transformers.Seq2SeqTrainer", "transformers.trainer_seq2seq.Seq2SeqTrainer"})
HF_ARGUMENTS = frozenset({
    "transformers.TrainingArguments", "transformers.training_args.TrainingArguments",
    "transformers.Seq2SeqTrainingArguments",
    "transformers.training_args_seq2seq.Seq2SeqTrainingArguments"})
HOOKS = LIGHTNING.own_hooks | LIGHTNING_VALIDATION.own_hooks | HUGGING_FACE.callback_hooks | \
    HUGGING_FACE.own_hooks
_WORDS = (b"Trainer", b"LightningModule")
"""What a module that runs or defines a framework loop's classes names."""
_LIGHTNING_RUNS = {
    "fit": ((LIGHTNING, (1, "train_dataloaders"), (3, "datamodule"), (1, "train_dataloaders")),
            (LIGHTNING_VALIDATION, (2, "val_dataloaders"), (3, "datamodule"),
             (1, "train_dataloaders"))),
    "validate": ((LIGHTNING_VALIDATION, (1, "dataloaders"), (4, "datamodule"),
                  (1, "dataloaders")),)}
"""A Lightning Trainer's method -> the loops it runs: (the loop, the slots of its loaders,
of the datamodule, and of the first loaders argument, which may hold a datamodule)."""


def hook_classes(facts: dict) -> set[str]:
    """The names of the project's classes (path -> `ModuleSummary` of the `cuda-reach`
    index) with a method named like a framework hook that reaches a global-mode capture: the
    words of a module that runs them in a framework's loop (it need not name a capture)."""
    summaries = {path: summary for path, summary in facts.items()
                 if isinstance(summary, ModuleSummary)}
    candidates = [(path, qualname) for path, summary in summaries.items()
                  for qualname in summary.functions
                  if qualname.count(".") == 1 and qualname.partition(".")[2] in HOOKS]
    if not candidates:
        return set()
    project = ProjectFunctions(summaries)
    return {qualname.partition(".")[0] for path, qualname in candidates
            if project.reach(path, qualname, CudaFact.GLOBAL_CAPTURE)}


class Remote(NamedTuple):
    """A class of another module of the project whose hooks a run calls: where the module
    names it, and the name it is called by here."""

    node: ast.AST
    name: str
    hooks: frozenset[str]


class Run(NamedTuple):
    """A framework loop the module runs (or a LightningModule's own loader): the loader it
    iterates, and the classes whose hooks it calls (the module's, with the hooks, and the
    project's other modules')."""

    framework: Framework
    site: ast.AST
    loader: Loader
    loader_line: int
    classes: tuple[tuple[ast.ClassDef, frozenset[str]], ...]
    remote: tuple[Remote, ...] = ()


class HookCapture(NamedTuple):
    """A global-mode capture a hook begins inside a framework's loop over a pinned loader:
    reported at `node` (the capture, the hook's call that reaches it, or where the module
    names another module's class), `head` says what begins it."""

    node: ast.AST
    head: str
    hook: str
    run: Run
    steps: tuple[Step, ...]


class FrameworkLoops:
    """The framework loops of a module and the global-mode captures their hooks begin."""

    def __init__(self, context, analysis: CaptureAnalysis, uses: CudaUse,
                 loaders: PinnedLoaders):
        self.context = context
        self.analysis = analysis
        self.uses = uses
        self.loaders = loaders
        self.path = context.source.path
        self._class_names: set[str] = set()
        self._abspath = os.path.abspath(self.path)

    def hook_captures(self) -> Iterator[HookCapture]:
        """Each capture (or call reaching one) that a hook begins, once, with its chain."""
        if not any(word in self.context.source.data for word in _WORDS):
            return
        self._class_names = {cls.name for cls in self.context.nodes(ast.ClassDef)}
        seen: set[int] = set()
        for run in self._runs():
            for cls, hooks in run.classes:
                for hook in self._hooks_of(cls, hooks):
                    found = self.uses.first(body_of(hook), self.analysis.begins)
                    if found is None or id(found[0]) in seen:
                        continue
                    seen.add(id(found[0]))
                    yield self._capture(run, cls, hook, found)
            for remote in run.remote:
                found = self._remote_capture(run, remote) if id(remote.node) not in seen \
                    else None
                if found is not None:
                    seen.add(id(remote.node))
                    yield found

    def _remote_capture(self, run: Run, remote: Remote) -> HookCapture | None:
        """The first hook of another module's class that reaches a global-mode capture (the
        `cuda-reach` index), reported where this module names the class."""
        project = self.uses.project
        imports = linted_imports(self.context)
        for hook in sorted(remote.hooks):
            method = project.method(self._abspath, imports, remote.name, hook)
            chain = project.reach(*method, CudaFact.GLOBAL_CAPTURE) if method else None
            if chain:
                name = f"{method[1]}"
                framework = run.framework
                steps = (Step(method[0], chain[0].line,
                              f"`{name}` is a {framework.name} hook that begins a global-mode "
                              "capture"), *chain,
                         *self._loop_steps(run, hook))
                return HookCapture(remote.node, f"`{name}` ({os.path.basename(method[0])})",
                                   name, run, steps)
        return None

    def _loop_steps(self, run: Run, hook: str) -> tuple[Step, ...]:
        """The chain's links from the framework's loop to the pinned loader."""
        framework = run.framework
        return (Step(self.path, run.site.lineno,
                     f"{framework.name} {framework.loop} runs `{hook}` with the "
                     f"{framework.loader} DataLoader's iterator alive: {framework.alive}"),
                *run.loader.steps,
                Step(self.path, run.loader_line,
                     f"the {framework.loader} DataLoader ({run.loader.made}) pins memory in a "
                     "background thread (pin_memory=True, worker processes)"))

    def _capture(self, run: Run, cls: ast.ClassDef, hook: ast.AST, found) -> HookCapture:
        node, what, path = found
        framework = run.framework
        name = f"{cls.name}.{hook.name}"
        via = f" (through {' -> '.join(path)})" if path else ""
        steps = (Step(self.path, hook.lineno, f"`{name}` is a {framework.name} hook{via}; {what}"),
                 *self._loop_steps(run, hook.name))
        local = self.analysis.begins(node)
        short = local.partition(BEGINS_GLOBAL)[0] if local else f"{ast.unparse(node.func)}()"
        return HookCapture(node, f"{short} in `{name}`", name, run,
                           (*steps, *self.uses.steps_for(node)))

    def _hooks_of(self, cls: ast.ClassDef, hooks: frozenset[str],
                  depth: int = 0) -> Iterator[ast.AST]:
        """The class's defs of `hooks`, its own and those of the module's classes it derives
        from (a def overrides the same name of a base)."""
        named = {item.name: item for item in cls.body
                 if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))}
        yield from (named[hook] for hook in sorted(hooks & named.keys()))
        for base in cls.bases if depth < 3 else ():
            parent = self._module_class(base)
            if parent is not None and parent is not cls:
                yield from self._hooks_of(parent, hooks - named.keys(), depth + 1)

    def _module_class(self, node: ast.AST) -> ast.ClassDef | None:
        found = self.context.definition(node) if isinstance(node, ast.Name) else None
        return found if isinstance(found, ast.ClassDef) else None

    def _instance_class(self, node: ast.AST | None) -> ast.ClassDef | None:
        """The module's class of which `node` is an instance (or which it names)."""
        if node is None or node is UNKNOWN:
            return None
        if isinstance(node, ast.Name) and self._module_class(node) is not None:
            return self._module_class(node)
        return self.analysis.module_class(self.analysis.constructor_of(node))

    # -- the runs ------------------------------------------------------------------------

    def _runs(self) -> Iterator[Run]:
        for call in self.context.nodes(ast.Call):
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr in _LIGHTNING_RUNS:
                runs = [self._lightning_run(call, *spec) for spec in _LIGHTNING_RUNS[func.attr]]
            elif isinstance(func, (ast.Name, ast.Attribute)):
                runs = [self._hf_trainer(call)]
            else:
                runs = []
            yield from filter(None, runs)
        for cls in self.context.nodes(ast.ClassDef):
            if self._derives(cls, LIGHTNING_MODULES):
                for framework in (LIGHTNING, LIGHTNING_VALIDATION):
                    loader = self._class_loader(cls, framework.loader_method)
                    if loader is not None:
                        yield Run(framework, cls, *loader, ((cls, framework.own_hooks),))

    def _lightning_run(self, call: ast.Call, framework: Framework, loaders_slot, datamodule_slot,
                       first_slot) -> Run | None:
        """`trainer.fit(model, train_dataloaders=..., val_dataloaders=..., datamodule=...)` or
        `trainer.validate(model, dataloaders=..., datamodule=...)` of a Lightning Trainer made
        in the module, for one of the loops it runs: its loader, its callbacks and the
        model's class."""
        trainer = self.analysis.constructor_of(call.func.value)
        if trainer is None or not self.analysis.named(trainer.func, LIGHTNING_TRAINERS):
            return None
        model = self.context.argument(call, 0, "model")
        loaders, datamodule, first = (self.context.argument(call, *slot)
                                      for slot in (loaders_slot, datamodule_slot, first_slot))
        model_class = self._instance_class(model)
        given = loaders not in (None, UNKNOWN)
        first_given = first not in (None, UNKNOWN)
        loader = self._given_loader(loaders) if given else None
        # (the first loaders argument may be a datamodule given positionally)
        holder = datamodule if datamodule not in (None, UNKNOWN) else \
            first if first_given and self._given_loader(first) is None else None
        method = framework.loader_method
        if loader is None and holder is not None:
            loader = self._instance_loader(holder, method)
        elif loader is None and not given and not first_given and datamodule is None and \
                model_class is not None:
            loader = self._class_loader(model_class, method)
        if loader is None:
            return None
        classes, remote = self._classes(self._callbacks(trainer), framework.callback_hooks)
        if model not in (None, UNKNOWN):
            more, further = self._classes((model,), framework.own_hooks)
            classes += more
            remote += further
        return Run(framework, call, *loader, tuple(classes), tuple(remote))

    def _hf_trainer(self, call: ast.Call) -> Run | None:
        """`Trainer(model, args, callbacks=[...])` of transformers (or the module's subclass
        of it), with a pinned training loader: its own `get_train_dataloader`, or the
        default one under `args`."""
        own = self.analysis.module_class(call) if isinstance(call.func, ast.Name) and \
            call.func.id in self._class_names else None
        subclass = self._project_class(call.func, HF_TRAINERS) if own is None else None
        if not (self.analysis.named(call.func, HF_TRAINERS) or subclass is not None
                or own is not None and self._derives(own, HF_TRAINERS)):
            return None
        if not self._trained(call):
            return None
        loader = self._class_loader(own, "get_train_dataloader") if own else None
        if loader is None and (own is None or self._own_def(own, "get_train_dataloader") is None):
            loader = self._hf_default_loader(self.context.argument(call, 1, "args"))
        if loader is None:
            return None
        classes, remote = self._classes(self._callbacks(call), HUGGING_FACE.callback_hooks)
        if own is not None:
            classes.append((own, HUGGING_FACE.own_hooks))
        elif subclass is not None:
            remote.append(Remote(call, subclass, HUGGING_FACE.own_hooks))
        return Run(HUGGING_FACE, call, *loader, tuple(classes), tuple(remote))

    def _trained(self, trainer: ast.Call) -> bool:
        """Whether the module calls `train()` on the Trainer `trainer` makes."""
        return any(isinstance(call.func, ast.Attribute) and call.func.attr == "train"
                   and self.analysis.constructor_of(call.func.value) is trainer
                   for call in self.context.nodes(ast.Call))

    def _hf_default_loader(self, args: ast.AST | None) -> tuple[Loader, int] | None:
        """The default training loader under `TrainingArguments(...)`: pinned unless
        `dataloader_pin_memory` is false, with a pin-memory thread only when
        `dataloader_num_workers` is above 0 (or a value the module does not show)."""
        made = self.analysis.constructor_of(args) if args not in (None, UNKNOWN) else None
        if made is None or not self.analysis.named(made.func, HF_ARGUMENTS):
            return None
        pin = self.context.argument(made, None, "dataloader_pin_memory")
        if pin is not None and self.context.evaluate(pin) is not True:
            return None
        workers = self.context.argument(made, None, "dataloader_num_workers")
        count = self.context.evaluate(workers) if workers is not None else 0
        if not (count is UNKNOWN or isinstance(count, int) and count > 0):
            return None
        return Loader(f"Trainer.get_train_dataloader() under the TrainingArguments of line "
                      f"{made.lineno}: dataloader_pin_memory defaults to True", ()), made.lineno

    def _classes(self, items, hooks: frozenset[str]):
        """The classes of `items` (instances, or classes named): the module's, with `hooks`,
        and the project's other modules' (`Remote`)."""
        classes: list[tuple[ast.ClassDef, frozenset[str]]] = []
        remote: list[Remote] = []
        for item in items:
            cls = self._instance_class(item)
            if cls is not None:
                classes.append((cls, hooks))
                continue
            made = self.analysis.constructor_of(item)
            name = self._project_class(made.func if made is not None else item)
            if name is not None:
                remote.append(Remote(item, name, hooks))
        return classes, remote

    def _project_class(self, node: ast.AST, bases: frozenset[str] | None = None) -> str | None:
        """The dotted name `node` calls a class of another module of the project by (one
        deriving from one of `bases`, where given); None otherwise."""
        project = self.uses.project
        name = dotted(node)
        if not project or name is None:
            return None
        found = project.definition(self._abspath, linted_imports(self.context), name)
        if found is None or not project.is_class(*found):
            return None
        if bases is not None and not any(project.subclasses(*found, base) for base in bases):
            return None
        return name

    def _callbacks(self, trainer: ast.Call) -> list[ast.AST]:
        """The callbacks given to the Trainer: `callbacks=[...]`, and
        `trainer.add_callback(...)` on a name bound to it."""
        given = self.context.argument(trainer, None, "callbacks")
        items = list(given.elts) if isinstance(given, (ast.List, ast.Tuple)) else []
        for call in self.context.nodes(ast.Call):
            if isinstance(call.func, ast.Attribute) and call.func.attr == "add_callback" and \
                    call.args and self.analysis.constructor_of(call.func.value) is trainer:
                items.append(call.args[0])
        return items

    # -- loaders -------------------------------------------------------------------------

    def _given_loader(self, node: ast.AST) -> tuple[Loader, int] | None:
        """A pinned DataLoader passed as it is (made here or by a project factory)."""
        if node is UNKNOWN:
            return None
        loader = self.loaders.pinned(node)
        if loader is None:
            return None
        made = node if isinstance(node, ast.Call) else self.analysis.value_of(node)
        return loader, getattr(made, "lineno", node.lineno)

    def _instance_loader(self, node: ast.AST, method: str) -> tuple[Loader, int] | None:
        """The pinned loader `method` of the object's class returns: a class of the module,
        or of another module of the project (its fact in the `cuda-reach` index)."""
        cls = self._instance_class(node)
        if cls is not None:
            return self._class_loader(cls, method)
        made = self.analysis.constructor_of(node)
        project = self.uses.project
        name = dotted(made.func) if made is not None else None
        found = project.method(os.path.abspath(self.path), linted_imports(self.context), name,
                               method) if project is not None and name else None
        reach = project.fact(*found, CudaFact.PINNED_LOADER) if found else None
        if reach is None:
            return None
        return Loader(f"made by {found[1]}() ({os.path.basename(found[0])}:{reach.line})",
                      (Step(found[0], reach.line, f"`{found[1]}()` returns a pinned DataLoader "
                            "with worker processes"),)), made.lineno

    def _class_loader(self, cls: ast.ClassDef, method: str) -> tuple[Loader, int] | None:
        """The pinned loader the class's own (or module base's) `method` returns."""
        function = self._own_def(cls, method)
        for node in own_nodes(body_of(function)) if function is not None else ():
            if isinstance(node, ast.Return) and node.value is not None:
                found = self._given_loader(node.value)
                if found is not None:
                    return found
        return None

    def _own_def(self, cls: ast.ClassDef, method: str, depth: int = 0) -> ast.AST | None:
        function = own_method(cls, method)
        for base in cls.bases if function is None and depth < 3 else ():
            parent = self._module_class(base)
            function = self._own_def(parent, method, depth + 1) if parent else None
            if function is not None:
                break
        return function

    def _derives(self, cls: ast.ClassDef, bases: frozenset[str], depth: int = 0) -> bool:
        """Whether the class derives from one of `bases` (directly or through the module's
        classes)."""
        for base in cls.bases:
            if self.analysis.named(base, bases):
                return True
            parent = self._module_class(base)
            if parent is not None and parent is not cls and depth < 3 and \
                    self._derives(parent, bases, depth + 1):
                return True
        return False

