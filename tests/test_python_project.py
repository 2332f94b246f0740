"""Facts across a project's Python modules (`analysis.python_project`): CUDA graph capture
hazards whose cause sits in another module, found at the capture with the chain that proves
it, and their clean look-alikes. Every project here is a small training package of its own."""

from __future__ import annotations

import json
import os
import shutil
from functools import partial
from pathlib import Path

import pytest

from cursedlint.analysis.python_project import UngatheredFacts, recorded_questions
from cursedlint.cli import main
from cursedlint.context import FileContext
from cursedlint.findings import Finding
from cursedlint.registry import all_rules

import harness

lint = partial(harness.lint_project, rules=all_rules())

MONITOR = """\
import torch


def watch_memory(interval):
    while True:
        report_memory()
        torch.cuda.synchronize()


def report_memory():
    print(torch.cuda.memory_allocated())


def count_batches(queue):
    total = 0
    while queue.get() is not None:
        total += 1
    return total
"""

HELPERS = """\
import torch


def to_host(loss):
    return loss.item()


def scale(loss, factor):
    return loss * factor
"""


def codes_at(findings: list[Finding]) -> list[tuple[str, str, int]]:
    return [(f.code, f.path, f.line) for f in findings]


TRAIN_WITH_MONITOR = """\
import threading

import torch

from trainer.monitor import watch_memory


def record(model, static_input):
    watcher = threading.Thread(target=watch_memory, args=(5,), daemon=True)
    watcher.start()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_output = model(static_input)
    return graph, static_output
"""


def test_thread_target_in_another_module_that_synchronizes(tmp_path):
    findings = lint(tmp_path, {
        "trainer/__init__.py": "",
        "trainer/monitor.py": MONITOR,
        "trainer/train.py": TRAIN_WITH_MONITOR,
    })
    assert codes_at(findings) == [("CUR401", "trainer/train.py", 12)]
    message = findings[0].message + findings[0].help
    assert "watch_memory() (monitor.py)" in message
    assert "line 7 of monitor.py, where `torch.cuda.synchronize()` waits for the whole device" \
        in message
    assert [(step.line, step.path == "trainer/monitor.py")
            for step in findings[0].related] == [(7, True)]


def test_a_lint_of_one_file_reads_the_facts_of_the_others(tmp_path):
    findings = lint(tmp_path, {
        "trainer/__init__.py": "",
        "trainer/monitor.py": MONITOR,
        "trainer/train.py": TRAIN_WITH_MONITOR,
    }, paths=["trainer/train.py"])
    assert codes_at(findings) == [("CUR401", "trainer/train.py", 12)]


def test_chain_through_modules_relative_imports_and_a_package_reexport(tmp_path):
    findings = lint(tmp_path, {
        "src/trainer/__init__.py": "",
        "src/trainer/health/__init__.py": "from .gpu import watch_memory\n",
        "src/trainer/health/gpu.py": MONITOR,
        "src/trainer/loop.py": """\
            from . import health


            def heartbeat(interval):
                health.watch_memory(interval)
            """,
        "src/trainer/graphs.py": """\
            import threading

            import torch

            from .loop import heartbeat


            class StepGraph:
                def record(self, step, batch):
                    threading.Thread(target=heartbeat, args=(1.0,)).start()
                    graph = torch.cuda.CUDAGraph()
                    graph.capture_begin()
                    step(batch)
                    graph.capture_end()
                    return graph
            """,
    })
    assert codes_at(findings) == [("CUR401", "src/trainer/graphs.py", 12)]
    related = findings[0].related
    assert [(step.path.rpartition("/")[2], step.line) for step in related] == [
        ("loop.py", 5), ("gpu.py", 7)]
    assert "calls `watch_memory()` (gpu.py)" in related[0].note


def test_cpu_only_target_in_another_module_is_clean(tmp_path):
    findings = lint(tmp_path, {
        "trainer/__init__.py": "",
        "trainer/monitor.py": MONITOR,
        "trainer/train.py": TRAIN_WITH_MONITOR.replace("watch_memory", "count_batches"),
    })
    assert findings == []


def test_thread_local_capture_beside_a_thread_that_only_queries(tmp_path):
    """In thread_local mode only a device-wide synchronization in the thread is a finding;
    `report_memory` asks the host-side runtime only."""
    findings = lint(tmp_path, {
        "trainer/__init__.py": "",
        "trainer/monitor.py": MONITOR,
        "trainer/train.py": TRAIN_WITH_MONITOR.replace("watch_memory", "report_memory").replace(
            "torch.cuda.graph(graph)", 'torch.cuda.graph(graph, capture_error_mode="thread_local")'),
    })
    assert findings == []


def test_thread_joined_before_the_capture_is_clean(tmp_path):
    findings = lint(tmp_path, {
        "trainer/__init__.py": "",
        "trainer/monitor.py": MONITOR,
        "trainer/train.py": TRAIN_WITH_MONITOR.replace(
            "    watcher.start()\n", "    watcher.start()\n    watcher.join()\n"),
    })
    assert findings == []


def test_same_name_in_a_module_the_file_does_not_import_is_not_followed(tmp_path):
    findings = lint(tmp_path, {
        "trainer/__init__.py": "",
        "trainer/monitor.py": MONITOR,
        "other/__init__.py": "",
        "other/monitor.py": "def watch_memory(interval):\n    return interval\n",
        "trainer/train.py": TRAIN_WITH_MONITOR.replace("trainer.monitor", "other.monitor"),
    })
    assert findings == []


@pytest.mark.parametrize("call, found", [
    ("loss_value = helpers.to_host(loss)", True),
    ("scaled = helpers.scale(loss, 2.0)", False),
])
def test_sync_in_a_helper_of_another_module_inside_the_region(tmp_path, call, found):
    findings = lint(tmp_path, {
        "trainer/__init__.py": "",
        "trainer/helpers.py": HELPERS,
        "trainer/step.py": f"""\
            import torch

            from trainer import helpers


            def capture(model, batch):
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph):
                    loss = model(batch)
                    {call}
                return graph
            """,
    })
    if not found:
        assert findings == []
        return
    assert codes_at(findings) == [("CUR402", "trainer/step.py", 10)]
    assert "helpers.to_host() reaches it: `.item()` copies a value to the host (at helpers.py:5)" \
        in findings[0].message


@pytest.fixture
def trainer(tmp_path, monkeypatch):
    """The monitor and training modules, as a checkout leaves them (older than the window in
    which stat is not trusted), with the working directory at their root."""
    harness.write_project(tmp_path, {
        "trainer/__init__.py": "",
        "trainer/monitor.py": MONITOR,
        "trainer/train.py": TRAIN_WITH_MONITOR,
    })
    monkeypatch.chdir(tmp_path)
    for path in (tmp_path / "trainer").iterdir():
        os.utime(path, (path.stat().st_atime - 3600, path.stat().st_mtime - 3600))
    return tmp_path


@pytest.fixture
def linted(tmp_path, monkeypatch) -> list[list[str]]:
    """The files of each batch the linter lints (the first lint, then each lint with facts),
    relative to the project, sorted."""
    from cursedlint.engine import Linter

    batches: list[list[str]] = []
    lint_files = Linter.lint_files

    def recording(self, files, jobs, *more):
        batches.append(sorted(os.path.relpath(path, tmp_path) for path, _ in files))
        return lint_files(self, files, jobs, *more)

    monkeypatch.setattr(Linter, "lint_files", recording)
    return batches


@pytest.fixture
def ran(monkeypatch) -> list[str]:
    """The names of the files whose rules run, in order."""
    from cursedlint import engine

    names: list[str] = []
    real = engine.Linter._run_rules
    monkeypatch.setattr(engine.Linter, "_run_rules", lambda self, context, rules, result: (
        names.append(os.path.basename(context.source.path)), real(self, context, rules, result)))
    return names


def test_warm_runs_read_no_unchanged_file_and_follow_a_changed_one(trainer, monkeypatch, capsys):
    """Through the CLI, whose cache keeps the facts between runs."""
    from cursedlint import source

    def check() -> list[tuple[str, str, int]]:
        main(["check", "--output-format", "json", "trainer"])
        return [(f["code"], f["path"], f["line"]) for f in json.loads(capsys.readouterr().out)]

    capsys.readouterr()
    assert check() == [("CUR401", "trainer/train.py", 12)]
    read: list[str] = []
    real = source.read_bytes
    monkeypatch.setattr(source, "read_bytes", lambda path: read.append(path) or real(path))
    assert check() == [("CUR401", "trainer/train.py", 12)]
    assert read == []
    (trainer / "trainer" / "monitor.py").write_text(MONITOR.replace(
        "torch.cuda.synchronize()", "pass"))
    assert check() == []
    read_names = [os.path.basename(path) for path in read]
    assert read_names[0] == "monitor.py" and "train.py" in read_names  # new facts: re-linted


def test_a_pre_commit_run_lints_a_changed_module_once_with_the_facts(trainer, ran, capsys):
    """A run that lints a few files (pre-commit names the changed ones) runs the rules of one
    that asks for facts of other modules twice, before they are gathered and with them, and
    finds what a whole run finds; the next run takes its result from the cache, and a change
    of the facts lints it again."""

    def check(*paths: str) -> list[tuple[str, str, int]]:
        main(["check", "--output-format", "json", *paths])
        return [(f["code"], f["path"], f["line"]) for f in json.loads(capsys.readouterr().out)]

    capsys.readouterr()
    assert check("trainer") == [("CUR401", "trainer/train.py", 12)]
    train = trainer / "trainer" / "train.py"
    train.write_text("# the step the monitor watches\n" + TRAIN_WITH_MONITOR)
    ran.clear()
    assert check("trainer/train.py") == [("CUR401", "trainer/train.py", 13)]
    assert ran == ["train.py", "train.py"]
    ran.clear()
    assert check("trainer/train.py") == [("CUR401", "trainer/train.py", 13)]
    assert ran == []
    (trainer / "trainer" / "monitor.py").write_text(MONITOR.replace(
        "torch.cuda.synchronize()", "pass"))
    assert check("trainer/train.py") == []
    assert ran == ["train.py"]
    assert check("trainer") == []


def test_files_linted_again_with_the_facts_are_linted_in_forked_workers(tmp_path, monkeypatch,
                                                                        capsys):
    """Past AGAIN_PARALLEL_MIN_BYTES, the files the facts can change are linted again in forked
    children (a first lint too small for workers keeps none), and find what one process does."""
    from cursedlint import engine

    harness.write_project(tmp_path, {
        "trainer/__init__.py": "",
        "trainer/monitor.py": MONITOR,
        "trainer/train.py": TRAIN_WITH_MONITOR,
        "trainer/eval.py": TRAIN_WITH_MONITOR,
    })
    monkeypatch.chdir(tmp_path)
    log = tmp_path / "pids.log"
    real = engine.Linter.lint_chunk

    def logged(self, files):
        with open(log, "a") as handle:
            handle.writelines(f"{os.getpid()} {os.path.basename(path)}\n" for path, _ in files)
        return real(self, files)

    monkeypatch.setattr(engine.Linter, "lint_chunk", logged)
    monkeypatch.setattr(engine.scheduler, "AGAIN_PARALLEL_MIN_BYTES", 0)
    main(["check", "--no-cache", "--jobs", "2", "--output-format", "json", "trainer"])
    found = sorted((f["path"], f["line"]) for f in json.loads(capsys.readouterr().out))
    assert found == [("trainer/eval.py", 12), ("trainer/train.py", 12)]
    again = [line.split() for line in log.read_text().splitlines()
             if line.split()[1] in ("train.py", "eval.py")]
    assert len(again) == 4 and all(pid != str(os.getpid()) for pid, _ in again[2:])

def test_a_change_that_keeps_the_facts_lints_no_other_file_again(trainer, ran, capsys):
    """Results linted with facts are kept under a digest of the facts: a change to a module
    that leaves its summary as it was lints only that module; one that moves its lines lints
    again only the files whose findings cite it (their chains now cite the new line), not one
    the facts reach whose findings do not (the thread joined before the capture)."""
    (trainer / "trainer" / "joined.py").write_text(TRAIN_WITH_MONITOR.replace(
        "    watcher.start()\n", "    watcher.start()\n    watcher.join()\n"))
    os.utime(trainer / "trainer" / "joined.py", (0, 0))

    def check(*options: str) -> list[tuple[str, list[str]]]:
        main(["check", "--output-format", "json", *options, "trainer"])
        return [(f"{f['path']}:{f['line']}", [f"{step['path']}:{step['line']}"
                                              for step in f["related"]])
                for f in json.loads(capsys.readouterr().out)]

    capsys.readouterr()
    before = check()
    assert before == [("trainer/train.py:12", ["trainer/monitor.py:7"])]
    assert "joined.py" in ran  # the facts reach it
    monitor = trainer / "trainer" / "monitor.py"
    monitor.write_text(MONITOR + "# tuned for the nightly runs\n")
    ran.clear()
    assert check() == before
    assert "train.py" not in ran
    monitor.write_text("# the memory watcher\n" + MONITOR)
    ran.clear()
    moved = [("trainer/train.py:12", ["trainer/monitor.py:8"])]
    assert check() == moved
    assert ran == ["train.py"]
    assert check("--no-cache") == moved


KERNELS = """\
from numba import cuda


def best_block(kernel, shared_memory_for):
    context = cuda.current_context()
    return context.get_max_potential_block_size(kernel, shared_memory_for, 0, 1024)


def launch_size(kernel, blocks):
    return blocks * 32
"""


@pytest.mark.parametrize("argument, found", [
    ("lambda block_size: 0", True),
    ("bytes_for", True),
    ("0", False),  # no callback
    ("compiled.address", False),  # a numba.cfunc address: compiled, no GIL needed
])
def test_callable_passed_to_a_helper_of_another_module(tmp_path, argument, found):
    findings = lint(tmp_path, {
        "solver/__init__.py": "",
        "solver/kernels.py": KERNELS,
        "solver/run.py": f"""\
            import numba

            from .kernels import best_block, launch_size


            @numba.cfunc("uintp(int32)")
            def compiled(block_size):
                return 0


            def bytes_for(block_size):
                return 4 * block_size


            def tune(kernel):
                grid, block = best_block(kernel, {argument})
                return launch_size(kernel, grid)
            """,
    })
    if not found:
        assert findings == []
        return
    assert codes_at(findings) == [("CUR201", "solver/run.py", 16)]
    assert "is passed to best_block(), which hands it to get_max_potential_block_size " \
        "(kernels.py:6)" in findings[0].message
    assert [(step.path, step.line) for step in findings[0].related] == [
        ("solver/kernels.py", 4), ("solver/kernels.py", 6)]


def test_only_files_whose_imports_lead_to_a_fact_are_linted_again(tmp_path, linted):
    """Both modules call a helper of kernels.py and may need its facts; only the one whose
    helper hands a parameter to a callback API is linted a second time, with the facts."""
    calls = "import numba\n\nfrom .kernels import {0}\n\n\ndef tune(kernel):\n" \
        "    return {0}(kernel, lambda size: 0)\n"
    findings = lint(tmp_path, {
        "solver/__init__.py": "",
        "solver/kernels.py": KERNELS,
        "solver/run.py": calls.format("best_block"),
        "solver/grid.py": calls.format("launch_size"),
    })
    assert codes_at(findings) == [("CUR201", "solver/run.py", 7)]
    assert "solver/grid.py" in linted[0]
    assert linted[1] == ["solver/kernels.py", "solver/run.py"]  # kernels.py holds the facts


def test_parameters_handed_on_to_no_callback_api_lint_no_file_again(tmp_path, linted):
    """Modules whose functions hand parameters on to imported functions that reach no
    callback API have facts of the callback helpers, but no helper: no file is linted again."""
    findings = lint(tmp_path, {
        "solver/__init__.py": "",
        "solver/paths.py": "import os\n\n\ndef normalized(path):\n"
                           "    return os.path.normpath(path)\n",
        "solver/run.py": "from .paths import normalized\n\n\n"
                         "def load(name, on_done):  # not handed to cuLaunchHostFunc\n"
                         "    on_done(normalized(name))\n",
    })
    assert findings == [] and linted == [["solver/__init__.py", "solver/paths.py",
                                          "solver/run.py"]]


@pytest.mark.parametrize("native, again", [
    ("import os\n\n\ndef register(device, callback):\n    return os.fspath(device)\n", False),
    ("import ctypes\n\n_lib = ctypes.CDLL('./libsnd.so')\nregister = _lib.snd_register\n", True),
])
def test_a_callback_object_handed_to_a_project_module_lints_again_where_it_binds_a_library(
        tmp_path, linted, native, again):
    """A callback object handed to a function of a project module asks the facts whether the
    module binds a library: the file is linted again only where the module's facts say so."""
    findings = lint(tmp_path, {
        "snd/__init__.py": "",
        "snd/native.py": native,
        "snd/play.py": "import ctypes\n\nfrom . import native\n\n\n"
                       "def play(device):\n    on_end = ctypes.CFUNCTYPE(None, ctypes.c_int)\n"
                       "    native._lib.snd_open(device)\n"
                       "    native.register(device, on_end(lambda code: None))\n",
    })
    assert codes_at(findings) == ([("CUR202", "snd/play.py", 9)] if again else [])
    assert linted[1:] == ([["snd/play.py"]] if again else [])


def test_a_run_where_no_file_needs_facts_gathers_none(tmp_path):
    """The facts are gathered after a first lint, only for the files that say they need them:
    a project where nothing captures or hands a callback never lists its files for them."""
    from cursedlint.engine import Project

    (tmp_path / "monitor.py").write_text(MONITOR)
    (tmp_path / "helpers.py").write_text(HELPERS)
    files = [(str(tmp_path / name), "python") for name in ("helpers.py", "monitor.py")]
    linter = harness.make_linter(all_rules())

    def unexpected():
        raise AssertionError("the project's files were listed")

    results = linter.run(files, 1, Project(unexpected, linted_all=True))
    assert [result.needs for result in results] == [[], []] and linter.project == {}


DATA = """\
from torch.utils.data import DataLoader


def make_loader(dataset, workers=4):
    return DataLoader(dataset, batch_size=32, num_workers=workers, pin_memory=True)


def make_eval_loader(dataset):
    return DataLoader(dataset, batch_size=32, num_workers=2)
"""

GRAPHS = """\
import torch


class StepGraphs:
    def __init__(self, model):
        self.model = model
        self.graph = None

    def record(self, static_x):
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.static_y = self.model(static_x)

    def record_locally(self, static_x):
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph, capture_error_mode="thread_local"):
            self.static_y = self.model(static_x)

    def replay(self):
        self.graph.replay()
"""

TRAIN_LOOP = """\
from trainer.data import make_loader, make_eval_loader
from trainer.graphs import StepGraphs


def train(model, dataset, static_x, steps):
    graphs = StepGraphs(model)
    for step, batch in enumerate(make_loader(dataset)):
        static_x.copy_(batch)
        if step == 10:
            graphs.record(static_x)
        graphs.replay()
"""


@pytest.mark.parametrize("change, found", [
    ((), True),
    (("make_loader(dataset)", "make_eval_loader(dataset)"), False),  # not pinned
    (("graphs.record(static_x)", "graphs.record_locally(static_x)"), False),  # thread_local
])
def test_loop_over_a_factory_loader_calls_a_capture_of_another_module(tmp_path, change, found):
    train = TRAIN_LOOP.replace(*change) if change else TRAIN_LOOP
    files = {"trainer/__init__.py": "", "trainer/data.py": DATA, "trainer/graphs.py": GRAPHS,
             "trainer/train.py": train}
    for paths in ((), ("trainer/train.py",)):  # the whole project, and a pre-commit run
        findings = lint(tmp_path, files, paths=paths or None)
        if not found:
            assert findings == []
            continue
        assert codes_at(findings) == [("CUR403", "trainer/train.py", 10)]
        message = findings[0].message + findings[0].help
        assert message.startswith("graphs.record() (graphs.py:11) begins a global-mode capture "
                                  "with a pinned DataLoader's")
        assert "DataLoader made by make_loader() on line 7 (data.py:5)" in message
        assert [(step.path, step.line) for step in findings[0].related] == [
            ("trainer/data.py", 5), ("trainer/graphs.py", 11)]


HEALTH = """\
import threading
import time

import torch


class Heartbeat:
    def __init__(self, interval):
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def start(self):
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._thread.join()

    def _loop(self):
        while not self._stop.is_set():
            torch.cuda.synchronize()
            time.sleep(self.interval)


class CpuHeartbeat(Heartbeat):
    def __init__(self, interval):
        super().__init__(interval)
        self._thread = threading.Thread(target=self._beat, daemon=True)

    def _beat(self):
        while not self._stop.is_set():
            print("alive")
            time.sleep(self.interval)
"""

TRAIN_WITH_HEARTBEAT = """\
from trainer.graphs import StepGraphs
from trainer.health import CpuHeartbeat, Heartbeat


def train(model, static_x, steps):
    heartbeat = Heartbeat(30.0)
    heartbeat.start()
    graphs = StepGraphs(model)
    graphs.record(static_x)
    for _ in range(steps):
        graphs.replay()
    heartbeat.stop()
"""


def test_monitor_thread_started_by_another_modules_method_alive_at_a_capture(tmp_path):
    findings = lint(tmp_path, {
        "trainer/__init__.py": "", "trainer/health.py": HEALTH, "trainer/graphs.py": GRAPHS,
        "trainer/train.py": TRAIN_WITH_HEARTBEAT,
    })
    assert codes_at(findings) == [("CUR401", "trainer/train.py", 9)]
    message = findings[0].message
    assert message == (
        "the thread that heartbeat.start() starts on line 7 (health.py:14) is alive when "
        "graphs.record() (graphs.py:11) begins a capture (global "
        "mode)")
    message = findings[0].help
    assert message.startswith("Its code reaches line 22 of health.py")
    assert "`torch.cuda.synchronize()` waits for the whole device" in message
    assert [(step.path, step.line) for step in findings[0].related] == [
        ("trainer/health.py", 14), ("trainer/graphs.py", 11)]


def test_a_pre_commit_run_summarizes_only_capturing_modules_defining_a_name_it_holds(
        tmp_path, monkeypatch, capsys):
    """A file linted alone that holds no trigger word of its own gathers which functions
    begin a capture only for the names it calls (`trigger_names`): a module whose
    functions it names none of is not summarized, and the finding is the one a cold run and
    a run over the whole project give; with a capturing module it calls taken away, none."""
    from cursedlint.analysis import cuda_reach

    for name, text in {
        ".git/HEAD": "", "trainer/__init__.py": "", "trainer/health.py": HEALTH,
        "trainer/graphs.py": GRAPHS, "trainer/train.py": TRAIN_WITH_HEARTBEAT,
        "trainer/replay.py": "import torch\n\n\ndef trace(graph, step):\n"
                             "    with torch.cuda.graph(graph):\n        step()\n",
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    summarized = []
    real = cuda_reach.CaptureStarts.summarize
    monkeypatch.setattr(cuda_reach.CaptureStarts, "summarize", lambda self, context: (
        summarized.append(os.path.basename(context.source.path)), real(self, context))[1])
    runs = []
    for options in (["--no-cache"], [], [], ["--no-cache", "."]):
        main(["check", "--concise", *options, *([] if "." in options else ["trainer/train.py"])])
        runs.append([line for line in capsys.readouterr().out.splitlines() if "CUR" in line])
        if len(runs) == 1:
            assert "graphs.py" in summarized and "replay.py" not in summarized
    assert runs[0] == runs[1] == runs[2] == runs[3]
    assert len(runs[0]) == 1 and runs[0][0].startswith("trainer/train.py:9:")
    assert "CUR401" in runs[0][0]
    (tmp_path / "trainer" / "train.py").write_text(TRAIN_WITH_HEARTBEAT.replace(
        "graphs.record(static_x)", "graphs.replay()"))
    main(["check", "--concise", "--no-cache", "trainer/train.py"])
    assert "CUR401" not in capsys.readouterr().out


PROSE_GRAPHS = '''\
"""Step graphs: each step is captured once (see graph(...) in the docs) and replayed."""
from torch.cuda import CUDAGraph, graph as cuda_graph  # the default for a subclass of graphs


class StepGraphs:
    def __init__(self, model):
        self.model = model
        self.graph = None

    def record(self, static_x):
        """Capture the model's step (a graph( of its kernels)."""
        self.graph = CUDAGraph()
        with cuda_graph(self.graph):
            self.static_y = self.model(static_x)

    def replay(self):
        self.graph.replay()
'''
PROSE_ONLY = '''\
"""Plans which steps graph(...) capture; captures nothing itself."""
import torch


def record(plan):
    # each record is a graph( of steps, kept for the planner
    return torch.cuda.device_count() + len(plan)
'''


def test_a_pre_commit_run_reads_capture_starts_past_prose(tmp_path, monkeypatch, capsys):
    """Named alone, a file calling another module's capturing method is reported where that
    module names its capture through an import alias and writes about graphs in docstrings
    and comments; a module naming a capture's start only in prose is not summarized, though
    it defines a name the file holds (`CaptureStarts.trigger_names`)."""
    from cursedlint.analysis import cuda_reach

    for name, text in {
        ".git/HEAD": "", "trainer/__init__.py": "", "trainer/health.py": HEALTH,
        "trainer/graphs.py": PROSE_GRAPHS, "trainer/plans.py": PROSE_ONLY,
        "trainer/train.py": TRAIN_WITH_HEARTBEAT.replace(
            "from trainer.graphs", "import trainer.plans\nfrom trainer.graphs"),
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    summarized = []
    real = cuda_reach.CaptureStarts.summarize
    monkeypatch.setattr(cuda_reach.CaptureStarts, "summarize", lambda self, context: (
        summarized.append(os.path.basename(context.source.path)), real(self, context))[1])
    runs = []
    for options in (["--no-cache", "trainer/train.py"], ["--no-cache", "."]):
        main(["check", "--concise", *options])
        runs.append([line for line in capsys.readouterr().out.splitlines() if "CUR" in line])
        if len(runs) == 1:
            assert summarized == ["graphs.py"]
    assert runs[0] == runs[1]
    assert len(runs[0]) == 1 and runs[0][0].startswith("trainer/train.py:10:")
    assert "CUR401" in runs[0][0]


RECORDER = """\
import torch


class Recorder:
    def __init__(self, model, static_x):
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.static_y = model(static_x)
"""


def test_a_pre_commit_run_gathers_a_capturing_constructor_by_its_class_name(
        tmp_path, monkeypatch, capsys):
    """A class whose `__init__` begins a capture gives its own name as the trigger word: the
    module is summarized for a file that names the class and no `__init__`."""
    train = TRAIN_WITH_HEARTBEAT.replace("from trainer.graphs import StepGraphs",
                                         "from trainer.recorder import Recorder").replace(
        "    graphs = StepGraphs(model)\n    graphs.record(static_x)\n",
        "    graphs = Recorder(model, static_x)\n")
    assert "__init__" not in train
    for name, text in {
        ".git/HEAD": "", "trainer/__init__.py": "", "trainer/health.py": HEALTH,
        "trainer/recorder.py": RECORDER, "trainer/train.py": train,
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    runs = []
    for options in (["--no-cache", "trainer/train.py"], ["--no-cache", "."]):
        main(["check", "--concise", *options])
        runs.append([line for line in capsys.readouterr().out.splitlines() if "CUR" in line])
    assert runs[0] == runs[1] and len(runs[0]) == 1 and "CUR401" in runs[0][0]


@pytest.mark.parametrize("body, whole", [
    ("def merged(parts, gather_output=True):\n    return all_gather(parts) if gather_output"
     " else parts\n", False),  # `gather` inside longer names, no asyncio
    ("import asyncio\n\n\nasync def both(a, b):\n    return await asyncio.gather(a, b)\n",
     True),
    ("def later(loop, f):\n    return loop.run_in_executor(None, f)\n", True),
], ids=["longer-names", "asyncio-gather", "executor"])
def test_a_pre_commit_run_gathers_the_whole_capture_facts_only_for_a_module_running_units(
        tmp_path, monkeypatch, capsys, body, whole):
    """CUR401's unit words (`asyncio` with `gather`, `run_in_executor`, ...) gate the whole
    capture facts of a named file's run: a file holding `gather` only inside `all_gather` and
    `gather_output` (every tensor-parallel module) needs the capturing names alone."""
    for name, text in {".git/HEAD": "", "trainer/__init__.py": "", "trainer/graphs.py": GRAPHS,
                       "trainer/dist.py": "import torch\n\n\n" + body}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    main(["check", "--no-cache", "-v", "trainer/dist.py"])
    passes = [line.split(":")[0].strip() for line in capsys.readouterr().err.splitlines()
              if line.startswith("  ")]
    assert ("cuda-reach" in passes) is whole and ("capture-starts" in passes) is not whole


@pytest.mark.parametrize("change", [
    ("    heartbeat.start()\n", "    heartbeat.start()\n    heartbeat.stop()\n"),  # joined
    ("graphs.record(static_x)", "graphs.replay()"),  # nothing captured
    ("Heartbeat(30.0)", "CpuHeartbeat(30.0)"),  # its thread only prints
])
def test_monitor_thread_look_alikes_across_modules(tmp_path, change):
    findings = lint(tmp_path, {
        "trainer/__init__.py": "", "trainer/health.py": HEALTH, "trainer/graphs.py": GRAPHS,
        "trainer/train.py": TRAIN_WITH_HEARTBEAT.replace(*change),
    })
    assert findings == []


POOL_UTILS = """\
import multiprocessing

import torch


def tokenize_all(texts):
    with multiprocessing.Pool(4) as pool:
        return pool.map(str.split, texts)


def encode(texts):
    return [torch.tensor([len(text)]) for text in tokenize_all(texts)]
"""

MAIN = """\
import multiprocessing as mp

from preprocess.pool_utils import encode


def main(paths):
    texts = [open(path).read() for path in paths]
    return encode(texts)


if __name__ == "__main__":
    mp.set_start_method("spawn")
    main(["a.txt"])
"""


@pytest.mark.parametrize("files, found", [
    ({"main.py": MAIN}, False),
    ({"main.py": MAIN.replace('"spawn"', '"fork"')}, True),
    ({"main.py": MAIN.replace('    mp.set_start_method("spawn")\n    main(["a.txt"])',
                              '    main(["a.txt"])\n    mp.set_start_method("spawn")')}, True),
    ({"main.py": MAIN, "bench.py": "from preprocess.pool_utils import encode\n\n"
                                  "encode(['x'])\n"}, True),  # another caller, no setting
    ({}, True),  # a library helper nobody in the project calls: any caller may fork
    ({"main.py": MAIN.replace('    mp.set_start_method("spawn")\n', "").replace(
        "    texts = [", '    mp.set_start_method("spawn")\n    texts = [')}, False),  # in main()
    ({"main.py": MAIN.replace("mp.set_start_method", "mp.set_executable")}, True),
])
def test_a_start_method_set_by_the_entry_point_clears_its_helpers(tmp_path, files, found):
    findings = lint(tmp_path, {
        "preprocess/__init__.py": "", "preprocess/pool_utils.py": POOL_UTILS, **files,
    }, options={"all-forks": True})
    assert codes_at(findings) == ([("CUR102", "preprocess/pool_utils.py", 7)] if found else [])


WORKERS = """\
import threading

import torch


class Prefetcher(threading.Thread):
    def __init__(self, batches):
        super().__init__(daemon=True)
        self.batches = batches

    def run(self):
        for batch in self.batches:
            batch.pin_memory()


class Logger:
    def start(self):
        return self

    def run(self):
        torch.cuda.synchronize()


def copy_every(seconds, tensor):
    while True:
        tensor.cuda()
"""


@pytest.mark.parametrize("start, found", [
    ("Prefetcher(batches).start()", "the thread running Prefetcher.run() (workers.py)"),
    ("threading.Thread(target=functools.partial(copy_every, 5, x)).start()",
     "the thread running copy_every() (workers.py)"),
    ("Logger().start()", None),  # not a Thread: its start() runs nothing in another thread
])
def test_thread_subclass_and_partial_targets_of_another_module(tmp_path, start, found):
    findings = lint(tmp_path, {
        "loader/__init__.py": "", "loader/workers.py": WORKERS,
        "loader/capture.py": f"""\
            import functools
            import threading

            import torch

            from loader.workers import Logger, Prefetcher, copy_every


            def capture(model, x, batches):
                {start}
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph):
                    y = model(x)
                return graph, y
            """,
    })
    if found is None:
        assert findings == []
        return
    assert codes_at(findings) == [("CUR401", "loader/capture.py", 12)]
    assert findings[0].message.startswith(found)


EVALUATE = """\
import torch


def evaluate(shard):
    model = torch.load(shard).cuda()
    return model(torch.ones(4, device="cuda")).item()


def tokenize(text):
    return text.split()
"""


def cur102(tmp_path, main: str, options=None, **more: str) -> list[tuple[str, int, str]]:
    """CUR102's findings in a small job package: (severity, line, message, then each related
    step as `file:line: note`)."""
    findings = lint(tmp_path, {
        "jobs/__init__.py": "", "jobs/work.py": EVALUATE, "jobs/main.py": main,
        **{f"jobs/{name}.py": text for name, text in more.items()},
    }, options=options)
    return [(f.severity.value, f.line, " | ".join([f.message, *(
        f"{os.path.basename(step.path)}:{step.line}: {step.note}"
        for step in f.related)])) for f in findings if f.code == "CUR102"]


TRAIN = """\
import multiprocessing

import torch

from jobs.work import {child}


def train(texts):
    model = torch.nn.Linear(8, 8).cuda()
    with multiprocessing.Pool(4) as pool:
        results = pool.map({child}, texts)
    return model, results
"""


def test_a_fork_after_cuda_work_whose_child_uses_cuda_is_an_error(tmp_path):
    [(severity, line, message)] = cur102(tmp_path, TRAIN.format(child="evaluate"))
    assert (severity, line) == ("error", 10)
    assert message.startswith("multiprocessing.Pool() forks: the child uses CUDA (work.py:5) "
                              "but CUDA was initialized before the fork (line 9) | ")
    assert "main.py:9: `.cuda()` allocates and copies on the GPU | " in message
    assert "work.py:5: " in message and "Cannot re-initialize CUDA in forked subprocess" in message


def test_a_fork_after_cuda_work_whose_child_does_cpu_work_is_silent(tmp_path):
    """Observed: such children work (tests/gpu_fork_cases.py, cuda_parent_cpu_child)."""
    assert cur102(tmp_path, TRAIN.format(child="tokenize")) == []
    assert cur102(tmp_path, TRAIN.format(child="tokenize"), {"all-forks": True}) == []


def test_a_child_that_uses_cuda_in_a_process_without_cuda_is_silent_by_default(tmp_path):
    """Observed: it works (plain_parent_cuda_child); `all-forks` lists it, naming who decides."""
    main = """\
        import multiprocessing

        import torch

        from jobs.work import evaluate


        def score(shards):
            with multiprocessing.Pool(4) as pool:
                return pool.map(evaluate, shards)
        """
    assert cur102(tmp_path, main) == []
    [(severity, line, message)] = cur102(tmp_path, main, {"all-forks": True})
    assert (severity, line) == ("warning", 9)
    assert message.startswith("multiprocessing.Pool() forks by default (Python < 3.14); the "
                              "child uses CUDA (work.py:5): callers of score() decide if CUDA "
                              "was initialized | ")


@pytest.mark.parametrize("backend, found", [("nccl", True), ("gloo", False)])
def test_an_nccl_group_before_the_fork_initializes_cuda(tmp_path, backend, found):
    """Observed: nccl_parent_cuda_child breaks, gloo_parent_cuda_child works."""
    findings = cur102(tmp_path, f"""\
        import multiprocessing

        import torch.distributed as dist

        from jobs.work import evaluate


        def checkpoint(state, path):
            dist.init_process_group(backend="{backend}")
            saver = multiprocessing.Process(target=evaluate, args=(path,))
            saver.start()
        """)
    assert [(severity, line, message.split(" | ")[1]) for severity, line, message in findings] \
        == ([("error", 10, "main.py:9: an NCCL process group is made")] if found else [])


@pytest.mark.parametrize("query, found", [
    ("torch.cuda.is_available()", True),  # observed: queried_parent_cuda_child breaks
    ("torch.cuda.device_count()", False),  # NVML first: counted_parent_cuda_child works
    ("torch.cuda.is_initialized()", False),  # asks without initializing
    ("torch.cuda.manual_seed(0)", False),  # queued until CUDA is initialized
    ("torch.cuda.empty_cache()", False),  # does nothing before
    ("torch.randn(4)", False),  # CPU work: imported_parent_pinned_child works
])
def test_a_query_that_initializes_cuda_counts_as_cuda_state(tmp_path, query, found):
    findings = cur102(tmp_path, f"""\
        import multiprocessing

        import torch

        from jobs.work import evaluate

        DEVICE = "cuda" if {query} else "cpu"

        if __name__ == "__main__":
            with multiprocessing.Pool(2) as pool:
                pool.map(evaluate, ["a.pt"])
        """)
    assert [line for _, line, _ in findings] == ([10] if found else [])


def test_a_query_answered_by_nvml_leaves_cuda_uninitialized(tmp_path):
    """PYTORCH_NVML_BASED_CUDA_CHECK=1 makes is_available() ask NVML (observed:
    nvml_queried_parent_cuda_child works); a module that names it is taken to set it."""
    findings = cur102(tmp_path, """\
        import multiprocessing
        import os

        import torch

        from jobs.work import evaluate

        os.environ["PYTORCH_NVML_BASED_CUDA_CHECK"] = "1"
        DEVICE = "cuda" if torch.cuda.is_available() else "cpu"

        if __name__ == "__main__":
            with multiprocessing.Pool(2) as pool:
                pool.map(evaluate, ["a.pt"])
        """)
    assert findings == []


@pytest.mark.parametrize("main", [
    # CPU-only children started in __main__ before any CUDA work
    """\
    import multiprocessing

    import torch

    from jobs.work import evaluate, tokenize

    if __name__ == "__main__":
        with multiprocessing.Pool(4) as pool:
            tokens = pool.map(tokenize, ["a b", "c"])
        print(evaluate("model.pt"))
    """,
    # a Manager's server serves a dict, made at import time
    """\
    import multiprocessing

    import torch

    shared = multiprocessing.Manager().dict()
    """,
])
def test_starts_before_any_accelerator_work_with_cpu_children_are_silent(tmp_path, main):
    assert cur102(tmp_path, main) == []
    assert cur102(tmp_path, main, {"all-forks": True}) == []


def test_a_library_helper_without_evidence_warns_with_all_forks_and_names_who_decides(tmp_path):
    main = """\
        import multiprocessing

        import torch

        from jobs.work import tokenize


        def tokenize_all(texts):
            with multiprocessing.Pool(4) as pool:
                return pool.map(tokenize, texts)
        """
    assert cur102(tmp_path, main) == []
    [(severity, line, message)] = cur102(tmp_path, main.replace("map(tokenize", "map(len"),
                                         {"all-forks": True})
    assert (severity, line) == ("warning", 9)
    assert message.endswith("; callers of tokenize_all() decide if CUDA/RDMA state exists")
    assert len(message) < 120


def test_a_wait_under_a_condition_in_another_module_is_not_followed(tmp_path):
    """Whether `sync_if_eager` waits depends on its argument, which another module's caller
    cannot be seen to give: silent, where an unconditional wait is a finding."""
    helpers = HELPERS + "\n\ndef sync_if_eager(loss, buffer):\n    if buffer.eager:\n" \
                        "        return loss.item()\n    return loss\n"
    findings = lint(tmp_path, {
        "trainer/__init__.py": "",
        "trainer/helpers.py": helpers,
        "trainer/step.py": """\
            import torch

            from trainer import helpers


            def capture(model, batch, buffer):
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph):
                    loss = model(batch)
                    helpers.sync_if_eager(loss, buffer)
                return graph
            """,
    })
    assert findings == []


@pytest.mark.parametrize("body, found", [
    ("    if loss.item() > 0:\n        buffer.append(loss)\n", True),  # a test always runs
    ("    assert loss.item() > 0\n", True),
    ("    if buffer.eager:\n        buffer.clear()\n    buffer.append(loss.item())\n", True),
    ("    if buffer.eager:\n        buffer.clear()\n    else:\n        loss.item()\n", False),
    ("    if buffer.eager:\n        if loss.item() > 0:\n            buffer.clear()\n", False),
    ("    buffer.append(loss.item() if buffer.eager else 0)\n", False),
    ("    if (loss.item() if buffer.eager else 0):\n        buffer.clear()\n", False),
    ("    assert buffer, f'loss {loss.item()}'\n", False),  # made only when it fails
    ("    while buffer:\n        if buffer.pop():\n            continue\n"
     "        assert loss.item() > 0\n", True),
])
def test_waits_in_branches_of_another_module(tmp_path, body, found):
    """A helper waits for the GPU whenever it runs only where the wait is outside every `if`
    body, `else`, conditional expression and assert message (an `if`'s own test and an
    assert's run whenever they do): a loop's body is not a branch."""
    findings = lint(tmp_path, {
        "trainer/__init__.py": "",
        "trainer/helpers.py": "import torch\n\n\ndef log_loss(loss, buffer):\n" + body,
        "trainer/step.py": """\
            import torch

            from trainer import helpers


            def capture(model, batch, buffer):
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph):
                    loss = model(batch)
                    helpers.log_loss(loss, buffer)
                return graph
            """,
    })
    if not found:
        assert findings == []
        return
    assert codes_at(findings) == [("CUR402", "trainer/step.py", 10)]
    assert "helpers.log_loss() reaches it: `.item()` copies a value to the host" \
        in findings[0].message


MODELS = """\
import torch
from torch import nn


class Projection(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        return self.proj(x)


class Scale(nn.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def forward(self, x):
        return x * self.factor
"""

CAPTURE_MODEL = """\
import torch

from nets.models import {model}


def record(static_input):
    model = {model}(64).cuda()
    graph = torch.cuda.CUDAGraph(){warmup}
    with torch.cuda.graph(graph):
        static_output = model(static_input)
    return graph, static_output
"""


def capture_model(tmp_path, model: str, warmup: str = "") -> list[dict]:
    return lint(tmp_path, {
        "nets/__init__.py": "",
        "nets/models.py": MODELS,
        "nets/record.py": CAPTURE_MODEL.format(model=model, warmup=warmup),
    })


def test_a_model_of_another_module_whose_forward_runs_cublas_needs_a_warm_up(tmp_path):
    [finding] = capture_model(tmp_path, "Projection")
    assert codes_at([finding]) == [("CUR404", "nets/record.py", 9)]
    assert "runs `Projection.forward()`: `self.proj`" in finding.help
    assert [(step.path, step.line) for step in finding.related] == [
        ("nets/models.py", 11)]
    assert "Linear" in finding.related[-1].note


def test_a_warmed_up_or_elementwise_model_of_another_module_is_clean(tmp_path):
    warmed = "\n    model(static_input)"
    assert capture_model(tmp_path, "Projection", warmed) == []
    assert capture_model(tmp_path, "Scale") == []


@pytest.mark.parametrize("subclass, found", [
    ("class NamedHeartbeat(Heartbeat):\n    def name(self):\n        return 'beat'\n", True),
    # its own state: the inherited start() may start another thread
    ("class NamedHeartbeat(Heartbeat):\n    def __init__(self, interval):\n"
     "        super().__init__(interval)\n        self.label = 'beat'\n", False),
    # overrides what the inherited start() calls on self
    ("class NamedHeartbeat(Heartbeat):\n    def _run(self):\n        pass\n", None),
])
def test_a_method_inherited_from_another_modules_class_is_followed(tmp_path, subclass, found):
    health = HEALTH.replace("    def start(self):\n        self._thread.start()\n",
                            "    def start(self):\n        self._run()\n\n"
                            "    def _run(self):\n        self._thread.start()\n")
    train = TRAIN_WITH_HEARTBEAT.replace("from trainer.health import CpuHeartbeat, Heartbeat",
                                         "from trainer.named import NamedHeartbeat") \
        .replace("Heartbeat(30.0)", "NamedHeartbeat(30.0)")
    findings = lint(tmp_path, {
        "trainer/__init__.py": "", "trainer/health.py": health, "trainer/graphs.py": GRAPHS,
        "trainer/named.py": "from trainer.health import Heartbeat\n\n\n" + subclass,
        "trainer/train.py": train,
    })
    assert codes_at(findings) == ([("CUR401", "trainer/train.py", 9)] if found else [])


# -- CUR102: the start method followed through the code -------------------------------------

LAUNCHERS = """\
import multiprocessing as mp
from dataclasses import dataclass

import torch


class Launcher:
    def __init__(self, start_method="fork"):
        self.ctx = mp.get_context(start_method)

    def launch(self, fn):
        worker = self.ctx.Process(target=fn)
        worker.start()
        return worker


def launch(fn, start_method="spawn"):
    ctx = mp.get_context(start_method)
    ctx.Process(target=fn).start()


@dataclass
class PoolConfig:
    workers: int = 4
    start_method: str = "fork"


def pool_from(config: PoolConfig):
    return mp.get_context(config.start_method).Pool(config.workers)
"""


def start_method_findings(tmp_path, files: dict[str, str], **options) -> list[str]:
    """CUR102's findings in a launcher package as `file:line message | step | ...`: every
    fork-based start (`all-forks`), unless `options` say otherwise."""
    findings = lint(tmp_path, {"jobs/__init__.py": "", **files},
                    options={"all-forks": True, **options})
    return [" | ".join([f"{os.path.basename(f.path)}:{f.line} {f.message}", *(
        f"{os.path.basename(step.path)}:{step.line}: {step.note}"
        for step in f.related)]) for f in findings if f.code == "CUR102"]


@pytest.mark.parametrize("main, found", [
    # no call of either launcher in the project: their defaults decide
    ("", ["launchers.py:12 self.ctx.Process() forks (a 'fork' context); callers "
          "of launch() decide if CUDA/RDMA state exists"
          " | launchers.py:8: `start_method` defaults to 'fork'",
          "launchers.py:29 mp.get_context(config.start_method).Pool() forks (a 'fork' "
          "context); callers of pool_from() decide if CUDA/RDMA state exists"
          " | launchers.py:25: `PoolConfig.start_method` is 'fork'"]),
    # every construction passes 'spawn'; the function's 'spawn' default is overridden by a call
    ("from jobs.launchers import Launcher, launch\n\n\ndef main(fn):\n"
     "    Launcher(start_method='spawn').launch(fn)\n    launch(fn, start_method='fork')\n",
     ["launchers.py:19 ctx.Process() forks (a 'fork' context); callers of "
      "launch() decide if CUDA/RDMA state exists"
      " | main.py:6: a call of launch() passes start_method='fork'",
      "launchers.py:29 mp.get_context(config.start_method).Pool() forks (a 'fork' "
      "context); callers of pool_from() decide if CUDA/RDMA state exists"
      " | launchers.py:25: `PoolConfig.start_method` is 'fork'"]),
    # a launcher made with its default in another module; a call passing a value not known
    ("from jobs.launchers import Launcher, launch\n\n\ndef main(fn, method):\n"
     "    Launcher().launch(fn)\n    launch(fn, start_method=method)\n", [
         "launchers.py:12 self.ctx.Process() forks (a 'fork' context); callers "
         "of launch() decide if CUDA/RDMA state exists"
         " | launchers.py:8: `start_method` defaults to 'fork'",
         "launchers.py:29 mp.get_context(config.start_method).Pool() forks (a "
         "'fork' context); callers of pool_from() decide if CUDA/RDMA state exists"
         " | launchers.py:25: `PoolConfig.start_method` is 'fork'"]),
])
def test_a_start_method_from_defaults_attributes_and_callers_in_other_modules(
        tmp_path, main, found):
    files = {"jobs/launchers.py": LAUNCHERS, **({"jobs/main.py": main} if main else {})}
    assert start_method_findings(tmp_path, files) == found


@pytest.mark.parametrize("config, use, found", [
    ('START_METHOD = "fork"\n', "from jobs.config import START_METHOD\n\n\ndef run(fn):\n"
     "    mp.get_context(START_METHOD).Process(target=fn).start()\n",
     "run.py:8 mp.get_context(START_METHOD).Process() forks (a 'fork' context); "
     "callers of run() decide if CUDA/RDMA state exists | config.py:1: `START_METHOD` is "
     "'fork'"),
    ('START_METHOD = "forkserver"\n', "from jobs.config import START_METHOD\n\n\ndef run(fn):\n"
     "    mp.get_context(START_METHOD).Process(target=fn).start()\n", None),
    ("class Settings:\n    start_method = 'fork'\n", "from jobs import config\n\n\n"
     "def run(fn, settings: config.Settings):\n"
     "    mp.get_context(settings.start_method).Process(target=fn).start()\n",
     "run.py:8 mp.get_context(settings.start_method).Process() forks (a 'fork' "
     "context); callers of run() decide if CUDA/RDMA state exists | config.py:2: "
     "`config.Settings.start_method` is 'fork'"),
    # a method that sets the attribute makes the class default no answer
    ("class Settings:\n    start_method = 'fork'\n\n    def safe(self):\n"
     "        self.start_method = 'spawn'\n", "from jobs import config\n\n\n"
     "def run(fn, settings: config.Settings):\n"
     "    mp.get_context(settings.start_method).Process(target=fn).start()\n", None),
    ("class Settings:\n    start_method = 'fork'\n", "from jobs import config\n\n\n"
     "def run(fn):\n    settings = config.Settings(start_method='spawn')\n"
     "    mp.get_context(settings.start_method).Process(target=fn).start()\n", None),
])
def test_a_start_method_from_a_constant_or_a_config_class_of_another_module(
        tmp_path, config, use, found):
    findings = start_method_findings(tmp_path, {
        "jobs/config.py": config,
        "jobs/run.py": "import multiprocessing as mp\n\nimport torch\n" + use,
    })
    assert findings == ([found] if found else [])


@pytest.mark.parametrize("choice, found", [
    ('"spawn" if torch.version.hip else "fork"', True),
    ('"spawn" if torch.version.hip else "forkserver"', False),
    ("method", False),  # a parameter no call passes and without a default: unknown
])
def test_a_start_method_chosen_by_a_local_conditional(tmp_path, choice, found):
    findings = start_method_findings(tmp_path, {"jobs/run.py": f"""\
        import torch
        import torch.multiprocessing as mp


        def run(fn, method):
            start_method = {choice}
            mp.start_processes(fn, nprocs=2, start_method=start_method)
        """})
    assert findings == (["run.py:7 mp.start_processes() forks (start method 'fork'); callers of "
                         "run() decide if CUDA/RDMA state exists"] if found else [])


AIO_HELPER = """\
from multiprocessing import Pool

import torch


def run_pool(jobs):
    with Pool(jobs) as pool:
        return pool.map(str, range(jobs))


def run_serial(jobs):
    return [str(job) for job in range(jobs)]
"""


@pytest.mark.parametrize("entry, found", [
    # main() sets spawn, then calls the helper through a local that picks one of two
    ("    mp.set_start_method('spawn')\n    job = run_pool if args.pool else run_serial\n"
     "    job(8)\n", False),
    ("    job = run_pool if args.pool else run_serial\n    job(8)\n", True),
    ("    job = run_pool if args.pool else run_serial\n    job(8)\n"
     "    mp.set_start_method('spawn')\n", True),
])
def test_a_spawn_setting_clears_a_helper_called_through_a_local_choice(tmp_path, entry, found):
    findings = start_method_findings(tmp_path, {
        "jobs/helpers.py": AIO_HELPER,
        "jobs/cli.py": "import multiprocessing as mp\n\nfrom jobs.helpers import run_pool, "
                       "run_serial\n\n\ndef main(args):\n" + entry +
                       "\n\nif __name__ == '__main__':\n    main(None)\n",
    })
    assert [finding.partition(" ")[0] for finding in findings] == \
        (["helpers.py:7"] if found else [])


FORK_TEST = """\
import multiprocessing
import os

import torch


def test_{name}():
    torch.ones(1, device="cuda")
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply(probe)


def probe():
    return torch.ones(1, device="cuda").sum().item()
"""


@pytest.mark.parametrize("path, name, found", [
    ("tests/test_amp.py", "cuda_is_bad_after_fork", False),  # the test is about fork
    ("tests/test_fork_safety.py", "cuda_state", False),  # so is the whole module
    ("tests/test_amp.py", "cuda_state", True),  # a test that forks, not about fork
    ("jobs/fork_check.py", "cuda_is_bad_after_fork", True),  # not a test module
])
def test_a_test_of_fork_behaviour_is_not_reported(tmp_path, path, name, found):
    findings = start_method_findings(tmp_path, {
        path: FORK_TEST.format(name=name)})
    assert [finding.split(" | ")[0] for finding in findings] == ([
        f"{os.path.basename(path)}:9 multiprocessing.get_context('fork').Pool() forks: the "
        "child uses CUDA (line 14) but CUDA was initialized before the fork (line 8)"]
        if found else [])


def test_a_fork_context_on_self_used_for_queues_and_a_recursive_default_start_nothing(tmp_path):
    assert start_method_findings(tmp_path, {"jobs/channels.py": """\
        import multiprocessing as mp

        import torch


        class Channels:
            def __init__(self):
                self.ctx = mp.get_context("fork")

            def make(self):
                return self.ctx.Queue(), self.ctx.Event()


        def relaunch(fn, tries, start_method="spawn"):
            if tries:
                return relaunch(fn, tries - 1, start_method)
            return mp.get_context(start_method).Process(target=fn)
        """}) == []


def test_a_fork_context_swapped_in_for_a_mock_starts_nothing_itself(tmp_path):
    """The test hands a fork context to the code under test; the start is that code's, judged
    where it is made (here from a parameter: unknown, silent)."""
    assert start_method_findings(tmp_path, {
        "jobs/runner.py": """\
            import torch


            def run(fn, ctx):
                worker = ctx.Process(target=fn)
                worker.start()
                return worker
            """,
        "tests/test_runner.py": """\
            import multiprocessing as mp
            from unittest import mock

            import torch

            from jobs import runner


            def test_run_in_a_child(monkeypatch):
                monkeypatch.setattr(runner, "CONTEXT", mp.get_context("fork"))
                with mock.patch.object(mp, "get_context", return_value=mp.get_context("fork")):
                    runner.run(print, mp.get_context("fork")).join()
            """,
    }) == []


@pytest.mark.parametrize("factory, found", [
    ("def make_graphs(model):\n    return StepGraphs(model)\n", True),
    ("def make_graphs(model):\n    if model is None:\n        return None\n"
     "    return StepGraphs(model)\n", False),  # not always a StepGraphs: unknown
    ("def make_graphs(model):\n    graphs = StepGraphs(model)\n", False),  # returns nothing
])
def test_an_instance_made_by_a_factory_of_another_module(tmp_path, factory, found):
    train = TRAIN_WITH_HEARTBEAT.replace("from trainer.graphs import StepGraphs",
                                         "from trainer.graphs import make_graphs") \
        .replace("StepGraphs(model)", "make_graphs(model)")
    findings = lint(tmp_path, {
        "trainer/__init__.py": "", "trainer/health.py": HEALTH,
        "trainer/graphs.py": GRAPHS + "\n\n" + factory, "trainer/train.py": train,
    })
    assert codes_at(findings) == ([("CUR401", "trainer/train.py", 9)] if found else [])


@pytest.mark.parametrize("tuning, found", [
    ("def tune(kernel, memory_for):\n    return best_block(kernel, memory_for)\n", True),
    ("def tune(kernel, memory_for):\n    return best_block(kernel, lambda size: 0)\n", False),
    # the parameter goes to a function that hands nothing to the driver
    ("def tune(kernel, memory_for):\n    return launch_size(kernel, memory_for)\n", False),
])
def test_callable_handed_on_through_helpers_of_two_modules(tmp_path, tuning, found):
    """run.py passes a lambda to tuning.tune, which hands it on to kernels.best_block, which
    hands it to the occupancy API: reported at run.py's call with the whole chain."""
    findings = lint(tmp_path, {
        "solver/__init__.py": "",
        "solver/kernels.py": KERNELS,
        "solver/tuning.py": "from .kernels import best_block, launch_size\n\n\n" + tuning,
        "solver/run.py": """\
            from .tuning import tune


            def plan(kernel):
                return tune(kernel, lambda block_size: 4 * block_size)
            """,
    })
    if not found:
        assert [f for f in findings if f.path == "solver/run.py"] == []
        return
    assert codes_at(findings) == [("CUR201", "solver/run.py", 5)]
    assert "is passed to tune(), which hands it on to get_max_potential_block_size " \
        "(kernels.py:6)" in findings[0].message
    assert [(step.path, step.line) for step in findings[0].related] == [
        ("solver/tuning.py", 4), ("solver/tuning.py", 5), ("solver/kernels.py", 6)]


def test_callback_facts_taken_from_the_index_store_give_the_same_chain(tmp_path, monkeypatch,
                                                                      capsys):
    """The callback-helpers facts (a parameter reaching an API, one handed on by keyword)
    decode from the index store as they were made: a run after the caller changed, which
    takes the helpers' summaries from the store, reports what the cold run did."""
    from cursedlint.analysis.callback_helpers import CallbackHelpers

    harness.write_project(tmp_path, {
        ".git/HEAD": "",
        "solver/__init__.py": "",
        "solver/kernels.py": KERNELS + "\n\ndef enqueue(stream, fn):\n"
                             "    cuda.stream().add_callback(fn, None)\n",
        "solver/tuning.py": "from .kernels import enqueue\n\n\n"
                            "def later(stream, callback):\n    enqueue(stream, fn=callback)\n",
        "solver/run.py": "from .tuning import later\n\n\n"
                         "def plan(stream):\n    later(stream, lambda s, status, d: None)\n",
    })
    monkeypatch.chdir(tmp_path)

    def check() -> list:
        main(["check", "--output-format", "json", "solver/run.py"])
        return [(f["line"], f["message"], f["help"], f["related"])
                for f in json.loads(capsys.readouterr().out)]

    capsys.readouterr()
    cold = check()
    assert [message for _, message, _, _ in cold] == [
        "lambda on line 5 is passed to later(), which hands it on to add_callback "
        "(kernels.py:14)"]
    summarized: list[str] = []
    real = CallbackHelpers.summarize
    monkeypatch.setattr(CallbackHelpers, "summarize", lambda self, context: (
        summarized.append(os.path.basename(context.source.path)), real(self, context))[1])
    (tmp_path / "solver" / "run.py").write_text(
        "from .tuning import later\n\n\ndef plan(stream):\n"
        "    later(stream, lambda s, status, d: None)  # changed\n")
    assert check() == cold
    assert summarized == ["run.py"]


@pytest.mark.parametrize("marker", [None, ".git", "cursedlint.toml"])
def test_a_directory_that_is_no_project_is_not_walked_for_facts(tmp_path, monkeypatch, capsys,
                                                                marker):
    """`cursedlint check train.py` in a home directory (no configuration, no version control)
    takes facts from the files beside it, never from the rest of the tree below it (6 GB of
    unrelated checkouts took over a minute); a small project is taken whole."""
    (tmp_path / "monitor.py").write_text(MONITOR)
    (tmp_path / "train.py").write_text(TRAIN_WITH_MONITOR.replace("trainer.monitor", "monitor"))
    (tmp_path / "checkouts" / "other").mkdir(parents=True)
    (tmp_path / "checkouts" / "other" / "model.py").write_text("import torch\n")
    if marker == ".git":
        (tmp_path / ".git").mkdir()
    elif marker:
        (tmp_path / marker).write_text("")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--no-cache", "--concise", "-v", "train.py"]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith("train.py:12:10: CUR401 ")
    others = "2 other files" if marker else "1 other file"
    assert f"facts for 1 linted file from {others} of " in captured.err


@pytest.mark.parametrize("top", ["", "src/", "python/", "packages/core/"])
def test_a_package_anywhere_in_the_project_keeps_its_cross_module_finding(tmp_path, top):
    """One answer to "is this import a module of the project" (`is_project_module`): a
    package under `python/` lost the finding that the same package at the root or under
    `src/` kept."""
    findings = lint(tmp_path, {
        f"{top}trainer/__init__.py": "",
        f"{top}trainer/monitor.py": MONITOR,
        f"{top}trainer/train.py": TRAIN_WITH_MONITOR,
    })
    assert codes_at(findings) == [("CUR401", f"{top}trainer/train.py", 12)]


REPORTER = """\
import multiprocessing

import torch

from trainer.monitor import watch_memory


def report(model, static_input):
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        sizes = pool.map(abs, [1, 2])
    watch_memory(5)
    torch.cuda.synchronize()
    return sizes
"""


def test_a_file_whose_rules_ask_nothing_of_the_facts_needs_none(tmp_path, ran):
    """The rules of a file run first, before the facts of other modules are gathered, and
    note what they ask of them: a file that imports a project module but starts only spawn
    children and captures nothing needs no facts; one whose capture starts a thread on
    another module's function does."""
    from cursedlint.analysis.python_project import UngatheredFacts, project_functions
    from cursedlint.engine import FileResult, Project

    harness.write_project(tmp_path, {"trainer/__init__.py": "", "trainer/monitor.py": MONITOR,
                                     "trainer/report.py": REPORTER,
                                     "trainer/train.py": TRAIN_WITH_MONITOR})
    files = [(str(tmp_path / "trainer" / name), "python")
             for name in ("__init__.py", "monitor.py", "report.py", "train.py")]
    linter = harness.make_linter(all_rules())
    results = linter.run(files, 1, Project(lambda: files, linted_all=True))
    assert ran == ["report.py", "train.py", "train.py"]  # train.py linted again
    assert [(f.code, os.path.basename(f.path), f.line)
            for result in results for f in result.findings] == [("CUR401", "train.py", 12)]
    assert "start-methods" not in linter.project  # no file asked for them

    from cursedlint.analysis.cuda_reach import CUDA_REACH
    from cursedlint.source import Source

    source = Source.from_bytes("report.py", REPORTER.encode(), "python")
    context = linter._parse(source, FileResult("report.py"), frozenset())
    assert context is not None
    context.project, context.facts_to_come = {}, True  # a first lint, before the facts
    facts = project_functions(context, CUDA_REACH)
    assert isinstance(facts, UngatheredFacts) and context.asked == set()
    assert facts.callee(context.source.path, {}, "watch_memory") is None
    assert context.asked == {"cuda-reach"}


def test_facts_to_come_note_each_question_asked_and_what_else_is_read():
    """`gathered` is read without noting the facts asked; a question notes them and is
    recorded with its arguments, answered as without facts; a read of the summaries
    themselves records that the facts were read whole."""
    context = FileContext(None, None)
    facts = UngatheredFacts(context, "cuda-reach")
    assert not facts.gathered and context.asked == set()
    assert facts.reaching("global_capture") == frozenset()
    assert facts.callee("/p/run.py", {"step": "p.graphs:step"}, "step") is None
    assert context.asked == {"cuda-reach"}
    assert recorded_questions(context, "cuda-reach") == {
        '["reaching", "global_capture"]', '["callee", "/p/run.py", {"step": "p.graphs:step"}, "step"]'}
    assert facts.summaries == {}
    assert recorded_questions(context, "cuda-reach") is None


MEMORY_REPORT = """\
import torch


def report_memory():
    print(torch.cuda.memory_allocated())
"""

TRAIN_WITH_LOGGER = """\
import threading

import torch

from trainer import monitor


def log_sizes(sizes):
    print(sum(sizes))


def record(model, static_input):
    logger = threading.Thread(target=log_sizes, args=(static_input.shape,), daemon=True)
    logger.start()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, capture_error_mode="thread_local"):
        static_output = model(static_input)
    monitor.report_memory()
    return graph, static_output
"""


@pytest.mark.parametrize("monitor, train, again", [(MEMORY_REPORT, TRAIN_WITH_LOGGER, False),
                                                   (MONITOR, TRAIN_WITH_MONITOR, True)])
def test_a_file_is_linted_again_only_where_the_facts_answer_its_questions_otherwise(
        tmp_path, monkeypatch, ran, monitor, train, again):
    """train.py asks the cuda-reach facts what the calls around its capture and its thread
    reach (`UngatheredFacts` records the questions). Where it calls `report_memory` (CUDA
    work) after a thread-local capture, the facts answer every question as none did
    (nothing of the project waits for the device or begins a capture): it keeps its first
    lint; where its capture runs beside a thread on `watch_memory`, which waits for the
    device, it is linted again and reported. The findings are those of linting again every
    file that asked."""
    from cursedlint.analysis.cuda_reach import CudaReach

    files = {"trainer/__init__.py": "", "trainer/monitor.py": monitor,
             "trainer/train.py": train}
    found = lint(tmp_path / "a", files)
    assert ran == (["train.py", "train.py"] if again else ["train.py"])
    monkeypatch.setattr(CudaReach, "affects", lambda self, *args: True)
    every = lint(tmp_path / "b", files)
    assert codes_at(found) == ([("CUR401", "trainer/train.py", 12)] if again else [])
    assert [(f.path, f.span, f.message, f.related) for f in found] == \
        [(f.path, f.span, f.message, f.related) for f in every]


_CUDA_REACH_PROJECTS = sorted(
    case for code in ("CUR102", "CUR401", "CUR402", "CUR403")
    for case in (Path(__file__).parent / "rules" / code).iterdir()
    if case.is_dir() and len(list(case.rglob("*.py"))) > 1)


@pytest.mark.parametrize("case", _CUDA_REACH_PROJECTS, ids=lambda case: case.name)
def test_the_questions_recorded_are_all_a_lint_asks_of_the_cuda_reach_facts(
        tmp_path, monkeypatch, case):
    """Each project case of the rules reading the cuda-reach facts, linted whole with every
    rule: a file is linted again only where the facts answer one of the questions its first
    lint asked otherwise (`CudaReach.affects`), and its findings are those of linting again
    every file that asked (a question not recorded would leave a finding out)."""
    from cursedlint.analysis.cuda_reach import CudaReach

    shutil.copytree(case, tmp_path / "a")
    shutil.copytree(case, tmp_path / "b")
    found = harness.run_project(tmp_path / "a", None, all_rules())[1]
    monkeypatch.setattr(CudaReach, "affects", lambda self, *args: True)
    every = harness.run_project(tmp_path / "b", None, all_rules())[1]
    assert [(f.path, f.span, f.code, f.message, f.related) for f in found] == \
        [(f.path, f.span, f.code, f.message, f.related) for f in every]


def test_a_lint_with_the_cuda_reach_facts_asks_what_its_first_lint_recorded_until_an_answer_differs(
        tmp_path, monkeypatch):
    """Each file linted again with the facts (every rule, every file that asked) asks of them,
    in order, only questions its first lint recorded, up to the first whose answer differs
    from the first lint's: what makes the facts' answers to the recorded questions alone say
    whether its findings can change (a question the first lint asked and did not record
    would show here as one asked before any answer differs)."""
    from cursedlint.analysis import python_project
    from cursedlint.analysis.cuda_reach import CUDA_REACH, CudaReach
    from cursedlint.engine.facts_run import FactsRun
    from cursedlint.engine.file_lint import FileLinter

    recorded: dict[str, set[str]] = {}
    asked: dict[str, list[tuple[str, bool]]] = {}
    ran: dict[str, list[list[str]]] = {}
    linting = []
    none = python_project.ProjectFunctions({}, CUDA_REACH.handed)

    def recording(name):
        method = getattr(python_project.ProjectFunctions, name)

        def question(self, *args):
            built = python_project._BUILT.get(CUDA_REACH.name)
            if linting and built is not None and self is built[1] and not linting[-1][1]:
                linting[-1][1] = True
                try:
                    answer = method(self, *args)
                finally:
                    linting[-1][1] = False
                asked.setdefault(linting[-1][0], []).append((
                    json.dumps([name, *args]), answer != getattr(none, name)(*args)))
                return answer
            return method(self, *args)
        return question

    for name in python_project.QUESTIONS:
        monkeypatch.setattr(python_project.ProjectFunctions, name, recording(name))
    run_rules = FileLinter._run_rules

    def running(self, context, rules, result):
        path = context.source.path
        ran.setdefault(path, []).append(sorted(rule.code for rule in rules))
        linting.append([path, False])
        try:
            return run_rules(self, context, rules, result)
        finally:
            linting.pop()

    affecting = FactsRun._affecting

    def noting(self, path, result, found, indexers):
        if result.lookups.get(CUDA_REACH.name) is not None:
            recorded[path] = set(result.lookups[CUDA_REACH.name])
        return affecting(self, path, result, found, indexers)

    monkeypatch.setattr(FileLinter, "_run_rules", running)
    monkeypatch.setattr(FactsRun, "_affecting", noting)
    monkeypatch.setattr(FactsRun, "_rules_again", lambda self, *args: {})
    monkeypatch.setattr(CudaReach, "affects", lambda self, *args: True)
    checked = 0
    for case in _CUDA_REACH_PROJECTS:  # (each file's first lint, then with the facts)
        shutil.copytree(case, tmp_path / case.name)
        harness.run_project(tmp_path / case.name, None, all_rules())
    for path, questions in recorded.items():
        if len(ran.get(path, ())) != 2 or ran[path][0] != ran[path][1] or \
                python_project.ANY_QUESTION in questions:
            continue  # (not linted again, or other rules ran: the facts made triggers; or
            # the facts were read otherwise than asked)
        checked += 1
        for question, differs in asked.get(path, ()):
            assert question in questions, (os.path.relpath(path, tmp_path), question)
            if differs:
                break
    assert checked >= 20, checked


def test_a_loop_over_a_literal_table_binds_each_class_in_turn():
    import ast as _ast

    from cursedlint.analysis.python_project import loop_choices

    tree = _ast.parse(
        "pages = {'caption': (CaptionTab, 2), 'export': (ExportTab, 1)}\n"
        "for title, (page, stretch) in pages.items():\n    page()\n"
        "for cls in [Reader, *more]:\n    cls()\n"
        "for name in sorted(names):\n    name()\n")
    values = {"pages": tree.body[0].value}
    first, spread, computed = tree.body[1:]
    choices = loop_choices(first, lambda name: values.get(name.id))
    assert [_ast.unparse(node) for node in choices["page"]] == ["CaptionTab", "ExportTab"]
    assert [_ast.unparse(node) for node in choices["stretch"]] == ["2", "1"]
    assert loop_choices(spread, values.get) == {}  # a spread hides what it holds
    assert loop_choices(computed, values.get) == {}  # not a literal collection


def test_reaching_follows_handed_callables_to_the_kinds_they_must_reach():
    """`reaching` answers none without following a call where no function has a fact of the
    kind asked or of a kind its handed callables must reach: a project whose only capture is
    global, run on a worker thread, still has a task that reaches a capture (TASK_CAPTURE
    follows a handed callable to GLOBAL_CAPTURE), and one without any capture has none."""
    from cursedlint.analysis.cuda_facts import CudaFact
    from cursedlint.analysis.cuda_reach import CUDA_REACH
    from cursedlint.analysis.python_project import (
        HANDED, FunctionSummary, ModuleSummary, OutCall, ProjectFunctions, Reach,
    )

    def project(capture: bool) -> dict:
        facts = {CudaFact.GLOBAL_CAPTURE: Reach(12, "a global-mode capture")} if capture else {}
        return {"/p/jobs.py": ModuleSummary({}, {
            "record": FunctionSummary(10, facts, ()),
            "warm": FunctionSummary(20, {}, (OutCall(21, "record"),)),
            "launch": FunctionSummary(30, {}, (OutCall(31, HANDED + "warm"),)),
        })}

    capturing = ProjectFunctions(project(True), CUDA_REACH.handed)
    assert capturing.reaching(CudaFact.GLOBAL_CAPTURE) == {"record", "warm"}
    assert capturing.reaching(CudaFact.TASK_CAPTURE) == {"launch"}
    assert capturing.reaching(CudaFact.CUDA) == frozenset()
    plain = ProjectFunctions(project(False), CUDA_REACH.handed)
    assert plain.reaching(CudaFact.GLOBAL_CAPTURE) == plain.reaching(CudaFact.TASK_CAPTURE) \
        == frozenset()


HOOKS = """\
import torch


class Synchronizing:
    def __call__(self, x):
        torch.cuda.synchronize()
        return x


class TimedStep(Synchronizing):
    pass


class Stepper:
    def forward(self, x):
        torch.cuda.synchronize()
        return x
"""

HOOKED_MODEL = """\
from torch import nn

from nets.hooks import {hook}


class Hooked(nn.Module):
    def __init__(self):
        super().__init__()
        self.hook = {hook}()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        return self.proj(self.hook(x))
"""

CAPTURE_HOOKED = """\
import torch

from nets.hooked import Hooked


def record(static_x):
    model = Hooked().cuda()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        return model(static_x)
"""


@pytest.mark.parametrize("hook, found", [
    ("TimedStep", True),  # an instance whose class inherits a project `__call__`
    ("Stepper", False),  # not a module, no `__call__`: its `forward` is not what a call runs
])
def test_an_instance_a_models_forward_calls_runs_its_call(tmp_path, hook, found):
    findings = lint(tmp_path, {
        "nets/__init__.py": "", "nets/hooks.py": HOOKS,
        "nets/hooked.py": HOOKED_MODEL.format(hook=hook), "nets/record.py": CAPTURE_HOOKED,
    })
    syncs = [finding for finding in findings if finding.code == "CUR402"]
    assert codes_at(syncs) == ([("CUR402", "nets/record.py", 10)] if found else [])
    if found:
        assert [(step.path, step.line) for step in syncs[0].related] == [
            ("nets/hooked.py", 13), ("nets/hooks.py", 6)]
