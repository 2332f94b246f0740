"""Which project files a run over some of them draws facts from (`fact_files`): what the linted
files import and include, the files beside them, and the nearest up to a bound, never the
whole of a large monorepo."""

from __future__ import annotations

import os

import pytest

from cursedlint.analysis import python_modules
from cursedlint.project import fact_files
from cursedlint.cli import main
from cursedlint.config import Resolver
from cursedlint.project.discovery import ProjectWalk
from cursedlint.registry import all_rules
from cursedlint.settings import Settings

from harness import write_project
from test_python_project import KERNELS, MAIN, MONITOR, POOL_UTILS, TRAIN_WITH_MONITOR


def _facts(root, linted, settings=None, walked=True):
    root = str(root)
    files = [(os.path.join(root, path), language) for path, language in linted]
    return fact_files.FactFiles(
        root, files, ProjectWalk(Resolver(all_rules())) if walked else None,
        lambda path: open(path, "rb").read(), settings or Settings(enabled=frozenset()))


def _relative(root, files):
    return [os.path.relpath(path, str(root)) for path, _ in files]


def test_python_imports_reach_their_modules_and_packages_transitively(tmp_path):
    write_project(tmp_path, {
        ".git/HEAD": "",
        "apps/train/run.py": """\
            import os, numpy as np
            import shared.cuda.streams as streams
            from shared.io import (
                readers,  # a submodule
                open_file,  # a function
            )
            from . import config
            from .models.net import Net

            def docs():
                '''
                import not_a_module
                '''
            """,
        "apps/__init__.py": "",
        "apps/train/__init__.py": "",
        "apps/train/config.py": "from ..common import paths\n",
        "apps/train/models/__init__.py": "",
        "apps/train/models/net.py": "import torch\n",
        "apps/common/__init__.py": "",
        "apps/common/paths.py": "",
        "shared/__init__.py": "",
        "shared/cuda/__init__.py": "from .events import record\n",
        "shared/cuda/events.py": "",
        "shared/cuda/streams.py": "",
        "shared/io/__init__.py": "def open_file(): pass\n",
        "shared/io/readers.py": "",
        "shared/io/writers.py": "",
        "unrelated/big.py": "",
    })
    found = _facts(tmp_path, [("apps/train/run.py", "python")])
    assert _relative(tmp_path, found.reached) == [
        "apps/train/run.py",
        "shared/__init__.py", "shared/cuda/__init__.py", "shared/cuda/streams.py",
        "shared/io/__init__.py", "shared/io/readers.py",
        "apps/train/__init__.py", "apps/train/config.py",
        "apps/train/models/__init__.py", "apps/train/models/net.py",
        "shared/cuda/events.py",  # re-exported by the package's __init__
        "apps/common/__init__.py", "apps/common/paths.py",
    ]
    assert not found.bounded


def test_a_script_imports_from_its_own_directory_and_src(tmp_path):
    write_project(tmp_path, {
        "cursedlint.toml": "",
        "tools/bench.py": "import timing\nfrom mylib import kernels\n",
        "tools/timing.py": "",
        "src/mylib/__init__.py": "",
        "src/mylib/kernels.py": "",
    })
    found = _facts(tmp_path, [("tools/bench.py", "python")])
    assert _relative(tmp_path, found.reached) == [
        "tools/bench.py", "tools/timing.py", "src/mylib/__init__.py", "src/mylib/kernels.py"]


def test_ignored_and_excluded_modules_are_not_reached(tmp_path):
    write_project(tmp_path, {
        ".git/HEAD": "",
        ".gitignore": "generated/\n",
        "cursedlint.toml": "extend-exclude = ['vendor']\n",
        "run.py": "import generated.ops\nimport vendor.lib\nimport helpers\n",
        "generated/ops.py": "",
        "vendor/lib.py": "",
        "helpers.py": "",
    })
    found = _facts(tmp_path, [("run.py", "python")])
    assert _relative(tmp_path, found.reached) == ["run.py", "helpers.py"]


def test_c_includes_reach_headers_and_the_sources_that_share_their_names(tmp_path):
    write_project(tmp_path, {
        ".git/HEAD": "",
        "src/net/ib/post.c": """\
            #include <stdio.h>
            #include <infiniband/verbs.h>
            #include "ib_md.h"
            #include "util/ring.h"
            """,
        "src/net/ib/ib_md.h": "#include \"ib_log.h\"\n",
        "src/net/ib/ib_md.c": "",
        "src/net/ib/ib_log.h": "",
        "src/util/ring.h": "",
        "src/util/ring.cc": "",
        "src/util/other.c": "",
    })
    found = _facts(tmp_path, [("src/net/ib/post.c", "c")])
    assert _relative(tmp_path, found.reached) == [
        "src/net/ib/post.c", "src/net/ib/ib_md.h", "src/net/ib/ib_md.c",
        "src/util/ring.h", "src/util/ring.cc", "src/net/ib/ib_log.h"]


def test_the_compilation_database_decides_where_includes_are_found(tmp_path):
    write_project(tmp_path, {
        ".git/HEAD": "",
        "src/post.c": '#include "ring.h"\n',
        "include/ring.h": "",
        "other/ring.h": "",
    })
    (tmp_path / "compile_commands.json").write_text(
        '[{"directory": "%s", "file": "src/post.c", "arguments": ["cc", "-Iother", "-c", '
        '"src/post.c"]}]' % tmp_path)
    settings = Settings(enabled=frozenset(),
                        compile_commands=str(tmp_path / "compile_commands.json"))
    found = _facts(tmp_path, [("src/post.c", "c")], settings)
    assert _relative(tmp_path, found.reached) == ["src/post.c", "other/ring.h"]
    found = _facts(tmp_path, [("src/post.c", "c")])  # no database: the nearest above
    assert _relative(tmp_path, found.reached) == ["src/post.c", "include/ring.h"]
    (tmp_path / "src" / "include").mkdir()
    (tmp_path / "src" / "include" / "ring.h").write_text("")
    found = _facts(tmp_path, [("src/post.c", "c")])
    assert _relative(tmp_path, found.reached) == ["src/post.c", "src/include/ring.h"]


def test_beside_and_nearest_fill_outward_up_to_the_bound(tmp_path, monkeypatch):
    write_project(tmp_path, {
        ".git/HEAD": "",
        "a/b/run.py": "",
        "a/b/peer.py": "",
        "a/b/c/deep.py": "",
        "a/side.py": "",
        "a/z/far.py": "",
        "top.py": "",
        "other/x.py": "",
        "notes.txt": "",
    })
    found = _facts(tmp_path, [("a/b/run.py", "python")])
    assert _relative(tmp_path, found.beside) == ["a/b/run.py", "a/b/peer.py"]
    assert _relative(tmp_path, found.nearest) == [
        "a/b/run.py", "a/b/peer.py", "a/b/c/deep.py", "a/side.py", "a/z/far.py", "top.py",
        "other/x.py"]
    assert not found.bounded
    monkeypatch.setattr(fact_files, "MAX_FILES", 3)
    found = _facts(tmp_path, [("a/b/run.py", "python")])
    assert _relative(tmp_path, found.nearest) == [
        "a/b/run.py", "a/b/peer.py", "a/b/c/deep.py", "a/side.py"]
    assert found.bounded


def test_a_directory_that_is_no_project_gives_only_the_files_beside(tmp_path):
    write_project(tmp_path, {"a/run.py": "import helper\n", "a/helper.py": "", "a/b/deep.py": "",
                             "top.py": ""})
    found = _facts(tmp_path, [("a/run.py", "python")], walked=False)
    assert _relative(tmp_path, found.nearest) == ["a/run.py", "a/helper.py"]


def _monorepo(root, unrelated: int):
    """A git work tree holding two projects, one of which calls a helper from a shared
    package at the root, the other with a start method set by its entry point, and
    `unrelated` files of other teams, sorted before them."""
    write_project(root, {
        ".git/HEAD": "",
        "common/__init__.py": "",
        "common/monitor.py": MONITOR,
        "projects/vision/trainer/__init__.py": "",
        "projects/vision/trainer/train.py": TRAIN_WITH_MONITOR.replace(
            "from trainer.monitor", "from common.monitor"),
        "projects/nlp/preprocess/__init__.py": "",
        "projects/nlp/preprocess/pool_utils.py": POOL_UTILS,
        "projects/nlp/main.py": MAIN,
    })
    for number in range(unrelated):
        target = root / "aaa_other" / f"team{number % 7}" / f"mod{number}.py"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("import threading\nimport torch\n\ndef work():\n"
                          "    threading.Thread(target=torch.cuda.synchronize).start()\n")


@pytest.mark.parametrize("bound", [10_000, 12])
def test_a_named_file_in_a_monorepo_reads_what_it_reaches_and_what_is_near(
        tmp_path, monkeypatch, capsys, bound):
    """A pre-commit run over files of a monorepo finds what a run over the whole repository
    finds, drawing facts from what the files import (a helper at the root) and from the
    files nearest them (the entry point that sets a start method), and past the bound from
    nothing else."""
    monkeypatch.setattr(fact_files, "MAX_FILES", bound)
    _monorepo(tmp_path, unrelated=60)
    monkeypatch.chdir(tmp_path)
    named = ["projects/vision/trainer/train.py", "projects/nlp/preprocess/pool_utils.py"]
    for paths in (named, ["."]):
        assert main(["check", "--no-cache", "--concise", "-v", *paths]) == 1
        captured = capsys.readouterr()
        assert [line.split(" ")[:2] for line in captured.out.splitlines()[:-1]
                if "projects/" in line] == [
            ["projects/vision/trainer/train.py:12:10:", "CUR401"]]
        assert "CUR102" not in captured.out  # main.py, beside the package, sets "spawn"
    assert main(["check", "--no-cache", "--concise", "-v", *named]) == 1
    err = capsys.readouterr().err
    assert "facts for 2 linted files from " in err
    assert ("stopped at the bound of 12" in err) == (bound == 12)


@pytest.mark.parametrize("paths", [["."], ["trainer/train.py"]], ids=["whole", "named"])
@pytest.mark.parametrize("how", ["summarize", "look"])
def test_an_indexer_that_raises_is_reported_as_cur000_never_passed_over(
        tmp_path, monkeypatch, capsys, paths, how):
    """An error gathering facts (a summarizer on a file the facts are drawn from, or an
    indexer's look at a linted file) is a CUR000 on that file, whether or not it is linted;
    the run's other findings stand (those that needed the missing facts are missing)."""
    from cursedlint.analysis.cuda_reach import CUDA_REACH

    write_project(tmp_path, {
        ".git/HEAD": "",
        "trainer/__init__.py": "",
        "trainer/monitor.py": MONITOR,
        "trainer/train.py": TRAIN_WITH_MONITOR,
        "trainer/broken.py": "import torch\n\ndef capture(graph):\n"
                             "    with torch.cuda.graph(graph):\n        pass\n",
    })
    if how == "summarize":
        real = type(CUDA_REACH).summarize

        def summarize(self, context):
            if context.source.path.endswith("broken.py"):
                raise ValueError("a summarizer's bug")
            return real(self, context)

        monkeypatch.setattr(type(CUDA_REACH), "summarize", summarize)
        broken, message = "trainer/broken.py", "ValueError: a summarizer's bug"
    else:
        def seed_words(self, context):
            raise KeyError("a look's bug")

        monkeypatch.setattr(type(CUDA_REACH), "seed_words", seed_words)
        broken, message = "trainer/train.py", "KeyError: \"a look's bug\""
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--no-cache", "--concise", *paths]) == 2  # an internal error
    out = capsys.readouterr().out
    assert f"{broken}:1:1: CUR000 internal error gathering facts (cuda-reach) from this " \
           f"file: {message};" in out
    if how == "summarize":  # (a failed look loses the names train.py takes from monitor.py)
        assert "trainer/train.py:12:10: CUR401 " in out


def test_explain_shows_the_chain_the_project_and_the_facts_gathered(tmp_path, monkeypatch,
                                                                    capsys):
    _monorepo(tmp_path, unrelated=5)
    monkeypatch.chdir(tmp_path)
    assert main(["explain", "projects/vision/trainer/train.py:12"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "projects/vision/trainer/train.py:12: 1 finding"
    assert out[1].startswith("  CUR401 error at 12:10: thread `watcher` running watch_memory()")
    assert "    step: common/monitor.py:7: `torch.cuda.synchronize()` waits for the whole " \
           "device" in out
    assert f"project: {tmp_path}" in out
    assert any(line.startswith("  facts for 1 linted file from ") and
               "reached by imports and includes" in line for line in out)
    assert "    reached: common/monitor.py" in out
    assert any(line.startswith("  cuda-reach: ") and line.endswith("with facts")
               for line in out)
    assert main(["explain", "projects/vision/trainer/train.py:3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["projects/vision/trainer/train.py:3: no finding on this line",
                       "  findings elsewhere in the file, on lines 12"]
    for bad in ("projects/vision/trainer/train.py", "nothing.py:3", "train.py:0"):
        assert main(["explain", bad]) == 2
        assert "cursedlint: error: " in capsys.readouterr().err


def test_verbose_names_the_project_and_what_each_indexer_gathered(tmp_path, monkeypatch,
                                                                   capsys):
    _monorepo(tmp_path, unrelated=5)
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--no-cache", "-v", "projects/vision/trainer/train.py"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert f"facts from the project at {tmp_path}:" in err
    assert any(line.startswith("  cuda-reach: ") for line in err)


def test_an_error_in_the_walk_an_indexer_runs_is_reported(tmp_path, monkeypatch, capsys):
    """`callback-helpers` reads a module with the walk CUR201 reads it with
    (`CallbackHandovers`): an error in it was dropped (the helper's fact went missing in
    silence)."""
    from cursedlint.analysis.callbacks import CallbackHandovers

    write_project(tmp_path, {
        ".git/HEAD": "",
        "solver/__init__.py": "",
        "solver/kernels.py": KERNELS,
        "solver/run.py": "from .kernels import best_block\n\n\n"
                         "def tune(kernel):\n    return best_block(kernel, lambda size: 0)\n",
    })
    real = CallbackHandovers.visit_Call

    def visit_call(self, node):
        if self.context.source.path.endswith("kernels.py"):
            raise RuntimeError("a walk's bug")
        return real(self, node)

    monkeypatch.setattr(CallbackHandovers, "visit_Call", visit_call)
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--no-cache", "--concise", "solver/run.py"]) == 2
    assert "solver/kernels.py:1:1: CUR000 internal error gathering facts (callback-helpers) " \
           "from this file: RuntimeError: a walk's bug;" in capsys.readouterr().out


@pytest.mark.parametrize("select, code", [([], "CUR001"), (["--select", "CUR4"], "CUR000")],
                         ids=["all", "CUR4"])
def test_a_file_that_runs_the_parser_out_of_memory_never_passes(tmp_path, monkeypatch, capsys,
                                                                select, code):
    """A MemoryError parsing a file was a CUR001 "nested too deeply", and with CUR001 not
    selected a clean pass (CPython 3.9-3.11 raise it bare for both); parsing a module the
    facts are drawn from, a missing fact."""
    from cursedlint import engine

    write_project(tmp_path, {
        ".git/HEAD": "",
        "trainer/__init__.py": "",
        "trainer/monitor.py": MONITOR,
        "trainer/train.py": TRAIN_WITH_MONITOR,
    })
    real = engine.file_lint.parse_python
    failing = []

    def parse(text, *args, **kwargs):
        if any(word in text for word in failing):
            raise MemoryError()
        return real(text, *args, **kwargs)

    monkeypatch.setattr(engine.file_lint, "parse_python", parse)
    monkeypatch.chdir(tmp_path)
    failing[:] = ["def record"]  # train.py itself
    assert main(["check", "--no-cache", "--concise", *select, "trainer/train.py"]) == 2
    assert f"trainer/train.py:1:1: {code} the Python parser ran out of memory on this file" in \
        capsys.readouterr().out
    failing[:] = ["def watch_memory"]  # monitor.py, which the facts are drawn from
    assert main(["check", "--no-cache", "--concise", *select, "trainer/train.py"]) == 2
    assert "trainer/monitor.py:1:1: CUR000 internal error gathering facts (cuda-reach) from " \
           "this file: MemoryError: ;" in capsys.readouterr().out


RX_RING = """\
    #include <stdlib.h>
    #include <rdma/fi_domain.h>

    struct rx_ring {
        struct fid_mr *mr;
        char *slots;
    };

    int rx_ring_register(struct fid_domain *domain, struct rx_ring *ring)
    {
        ring->slots = malloc(64);
        if (!ring->slots)
            return -1;
        return fi_mr_reg(domain, ring->slots, 64, FI_RECV, 0, 0, 0, &ring->mr, NULL);
    }
"""


@pytest.mark.parametrize("named, found", [("trainer/train.py", "CUR401"),
                                          ("transport/rx_ring.c", "CUR301")],
                         ids=["python", "c"])
def test_a_file_whose_lint_runs_out_of_memory_after_its_parse_never_passes(
        tmp_path, monkeypatch, capsys, named, found):
    """A MemoryError past the parse (a 10 MB module's walk indexing its parents under a 0.8 GB
    cap, a C file's flows) ended the whole run with "internal error"; now the file is reported
    not checked (exit 2), the result is not cached, and a run with the memory checks it."""
    from cursedlint.engine.file_lint import FileLinter

    write_project(tmp_path, {
        ".git/HEAD": "",
        "trainer/__init__.py": "",
        "trainer/monitor.py": MONITOR,
        "trainer/train.py": TRAIN_WITH_MONITOR,
        "transport/rx_ring.c": RX_RING,
    })
    real = FileLinter._run_rules

    def run_rules(self, context, rules, result):
        if context.source.path.endswith(named):
            raise MemoryError()
        return real(self, context, rules, result)

    monkeypatch.chdir(tmp_path)
    with monkeypatch.context() as patched:
        patched.setattr(FileLinter, "_run_rules", run_rules)
        assert main(["check", "--concise", "--exit-zero", named]) == 2
    out = capsys.readouterr().out
    size = (tmp_path / named).stat().st_size
    assert f"{named}:1:1: CUR000 not checked: the run ran out of memory checking this file " \
           f"({size} bytes)" in out
    assert found not in out and "passed" not in out
    assert main(["check", "--concise", named]) == 1  # (the cache held no result of it)
    assert found in capsys.readouterr().out


def test_a_warm_run_reads_no_file_the_imports_reached_before(tmp_path, monkeypatch, capsys):
    """Each file's imports and includes are kept in the index store by content: a warm
    pre-commit run follows them without reading the files again (it read every reached module
    each run, twice the time of 0.3.0's warm run on Megatron-LM)."""
    _monorepo(tmp_path, unrelated=3)
    for path in tmp_path.rglob("*.py"):  # older than the 2 s a stat is not trusted for
        os.utime(path, (path.stat().st_atime - 60, path.stat().st_mtime - 60))
    monkeypatch.chdir(tmp_path)
    scanned = []
    real = fact_files.written_edges
    monkeypatch.setattr(fact_files, "written_edges",
                        lambda data, language: scanned.append(data) or real(data, language))
    named = "projects/vision/trainer/train.py"
    assert main(["check", "--concise", named]) == 1
    first = capsys.readouterr().out
    assert "CUR401" in first and len(scanned) >= 2  # train.py, the monitor it imports
    scanned.clear()
    assert main(["check", "--concise", named]) == 1
    assert capsys.readouterr().out == first and scanned == []


def _age(root, seconds: int = 60) -> None:
    """Files and directories older than the 2 s their stat is not trusted for."""
    for path in [root, *root.rglob("*")]:
        os.utime(path, (path.stat().st_atime - seconds, path.stat().st_mtime - seconds))


def test_a_warm_run_resolves_no_import_again_until_a_directory_changes(tmp_path, monkeypatch,
                                                                        capsys):
    """Where each reached import leads is kept in the store with the entries of the
    directories that decided it: a warm run looks nothing up (the cache made at the root
    changes none); a module added where an import looks (here `common/monitor.py` shadowed by
    a new package `common/monitor/`) is found."""
    _monorepo(tmp_path, unrelated=3)
    _age(tmp_path)
    monkeypatch.chdir(tmp_path)
    looked = []
    real = python_modules.module_files  # (what `FactFiles.module` imports when it resolves)
    monkeypatch.setattr(python_modules, "module_files",
                        lambda *args, **options: looked.append(args[1]) or real(*args, **options))
    named = "projects/vision/trainer/train.py"
    main(["check", "--concise", "-v", named])
    first = capsys.readouterr()
    assert "CUR401" in first.out and "common.monitor" in looked
    _age(tmp_path)
    looked.clear()
    main(["check", "--concise", "-v", named])
    again = capsys.readouterr()
    assert again.out == first.out and looked == []
    (tmp_path / "common" / "monitor").mkdir()
    (tmp_path / "common" / "monitor" / "__init__.py").write_text("from .memory import watch\n")
    (tmp_path / "common" / "monitor" / "memory.py").write_text("def watch():\n    pass\n")
    _age(tmp_path)
    main(["check", "--concise", "-v", named])
    changed = capsys.readouterr()
    assert "common.monitor" in looked and "3 reached by imports" in changed.err
    assert "2 reached by imports" in first.err


def _reaching(monkeypatch) -> list[str]:
    """The files whose imports a run follows (appended to the list returned)."""
    followed: list[str] = []
    real = fact_files._Reach.targets
    monkeypatch.setattr(fact_files._Reach, "targets", lambda self, path, language, **more: (
        followed.append(path), real(self, path, language, **more))[1])
    return followed


def test_a_warm_run_keeps_what_the_linted_file_reaches_until_what_decided_it_changes(
        tmp_path, monkeypatch, capsys):
    """The closure of a pre-commit run's files is kept with what decided it: a warm run, or
    one over the file edited without touching its imports, follows no import (1,500 modules'
    imports were followed again each warm run over a file importing torch). Each of an import
    added to the file, a reached module whose own imports change, a module added where an
    import looks, and an ignore file that now excludes a reached module makes it follow the
    imports again, and find what a cold run finds."""
    _monorepo(tmp_path, unrelated=3)
    for package in ("projects", "projects/nlp"):
        (tmp_path / package / "__init__.py").write_text("")
    _age(tmp_path)
    monkeypatch.chdir(tmp_path)
    named = "projects/vision/trainer/train.py"
    train, monitor = tmp_path / named, tmp_path / "common" / "monitor.py"
    followed = _reaching(monkeypatch)

    def run(*options):
        followed.clear()
        main(["check", "--concise", "-v", *options, named])
        captured = capsys.readouterr()
        return captured.out, captured.err.split("facts for")[1].split("\n")[0]

    def changed(path, text):  # written, and older than the 2 s its stat is not trusted for
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
        os.utime(path, (path.stat().st_atime - 60, path.stat().st_mtime - 60))
        cold = run("--no-cache")
        assert run() == cold and followed
        assert run() == cold and followed == []
        return cold[1]

    cold = run("--no-cache")
    assert run() == cold and followed and "2 reached by imports" in cold[1]
    assert run() == cold and followed == []
    train.write_text(train.read_text() + "\n\ndef later():\n    return 1\n")  # just edited
    assert run() == cold and followed == []
    assert "6 reached" in changed(train, "from projects.nlp.preprocess import pool_utils\n"
                                  + train.read_text())
    assert "7 reached" in changed(monitor, "import projects.nlp.main\n" + monitor.read_text())
    package = tmp_path / "projects" / "nlp" / "main" / "__init__.py"  # shadows main.py
    assert "7 reached" in changed(package, "from . import steps\n")
    assert "8 reached" in changed(package.parent / "steps.py", "")
    assert "6 reached" in changed(tmp_path / "projects" / ".gitignore", "nlp/main/\n")
    config = tmp_path / "common" / "cursedlint.toml"  # a configuration that excludes a module
    assert "5 reached" in changed(config, 'extend-exclude = ["monitor.py"]\n')
    assert "6 reached" in changed(config, "extend-exclude = []\n")  # the same file, edited


def test_a_warm_run_follows_includes_again_when_a_build_file_names_other_directories(
        tmp_path, monkeypatch, capsys):
    """A kept closure holds while the build files above the linted file are unchanged: an
    edited `-I` in src/Makefile.am sends `"ring.h"` to another directory, whose header
    includes one more."""
    write_project(tmp_path, {
        ".git/HEAD": "",
        "src/Makefile.am": "AM_CPPFLAGS = -I$(top_srcdir)/lib/a\n",
        "src/post.c": '#include "ring.h"\n',
        "lib/a/ring.h": "",
        "lib/b/ring.h": '#include "ring_slots.h"\n',
        "lib/b/ring_slots.h": "",
    })
    _age(tmp_path)
    monkeypatch.chdir(tmp_path)
    followed = _reaching(monkeypatch)

    def reached():
        followed.clear()
        main(["check", "--concise", "-v", "src/post.c"])
        return capsys.readouterr().err.split(" other file")[0].rsplit(" ", 1)[1]

    assert reached() == "1" and followed
    assert reached() == "1" and followed == []
    makefile = tmp_path / "src" / "Makefile.am"
    makefile.write_text("AM_CPPFLAGS = -I$(top_srcdir)/lib/b\n")
    os.utime(makefile, (makefile.stat().st_atime - 60, makefile.stat().st_mtime - 60))
    assert reached() == "2" and followed


def test_the_reach_store_is_read_and_written_only_where_imports_are_resolved(
        tmp_path, monkeypatch, capsys):
    """Every reached file's imports and their resolutions are kept apart from the index's
    other facts: a warm run, or one over the file edited without touching its imports, reads
    and writes none of them (3.3 of 4.3 MB over a file importing torch); an import added
    reads them and writes them with the new file's."""
    from cursedlint.project import index as project_index

    _monorepo(tmp_path, unrelated=3)
    _age(tmp_path)
    monkeypatch.chdir(tmp_path)
    used = []
    load, save = project_index.load_store, project_index.save_store
    monkeypatch.setattr(project_index, "load_store", lambda path, schema: (
        used.append(("load", os.path.basename(path)[:12])), load(path, schema))[1])
    monkeypatch.setattr(project_index, "save_store", lambda path, payload: (
        used.append(("save", os.path.basename(path)[:12])), save(path, payload))[1])
    named = tmp_path / "projects/vision/trainer/train.py"
    main(["check", "--concise", str(named)])
    first = capsys.readouterr().out
    assert ("save", "index-reach-") in used
    _age(tmp_path)
    main(["check", "--concise", str(named)])
    assert capsys.readouterr().out == first
    used.clear()
    main(["check", "--concise", str(named)])
    named.write_text(named.read_text() + "# edited\n")
    main(["check", "--concise", str(named)])
    assert capsys.readouterr().out == first * 2
    assert not [use for use in used if use[1] == "index-reach-"]
    named.write_text("import os\n" + named.read_text())
    main(["check", "--concise", str(named)])
    assert ("load", "index-reach-") in used and ("save", "index-reach-") in used


def test_a_warm_run_lists_no_directory_whose_stat_is_unchanged(tmp_path, monkeypatch, capsys):
    """A kept closure's directories are told unchanged by their stats (and their ignore and
    configuration files'), not listed again; one whose stat changed (a module added) is
    listed, and what it now reaches is found. A symbolic link among a directory's entries
    (its target may change kind, the directory's stat not) keeps it listed."""
    _monorepo(tmp_path, unrelated=3)
    (tmp_path / "common" / "linked").symlink_to(tmp_path / "projects")
    _age(tmp_path)
    monkeypatch.chdir(tmp_path)
    listed = []
    real = fact_files._directory_stamp
    monkeypatch.setattr(fact_files, "_directory_stamp", lambda directory, *args, **options: (
        listed.append(directory), real(directory, *args, **options))[1])
    named = "projects/vision/trainer/train.py"
    main(["check", "--concise", named])
    first = capsys.readouterr().out
    _age(tmp_path)  # (the cache directory made at the root, older than its stat is trusted)
    main(["check", "--concise", named])
    listed.clear()
    main(["check", "--concise", named])
    assert capsys.readouterr().out == first + first
    inside = [path for path in listed if path.startswith(str(tmp_path))]
    assert inside == [str(tmp_path / "common")]  # (the one holding a link)
    (tmp_path / "projects" / "vision" / "trainer" / "helpers.py").write_text("import os\n")
    (tmp_path / named).write_text("from . import helpers\n" + (tmp_path / named).read_text())
    _age(tmp_path)
    listed.clear()
    main(["check", "--concise", "-v", named])
    warm = capsys.readouterr()
    main(["check", "--concise", "-v", "--no-cache", named])
    cold = capsys.readouterr()
    assert warm.out == cold.out and str(tmp_path / "projects" / "vision" / "trainer") in listed
    reached = [err.split("facts for")[1].split("\n")[0] for err in (warm.err, cold.err)]
    assert reached[0] == reached[1] and "4 reached by imports" in reached[0]


@pytest.mark.parametrize("text", [
    "import os; import sys\nfrom . import (a,\n  import_b,\n b)\n  from x import y # import z\n",
    "# import q\nx = 'import y'\nfrom .m import(c)\nimport",
    "from a import (\n import os\n)\nimport b\n",
    "\nimport\timport\n   import   a as b  # c\n",
    "import x\r\nfrom y import z\r\nfrom ..pkg.sub import (p,\n q)\n",
    "def f():\n    '''\n    import not_a_module\n    '''\n    from .inner import g\n",
])
def test_imports_are_read_only_where_a_line_holds_import_as_the_pattern_reads_them(text):
    """The import lines are found from each `import` of the bytes (the pattern anchored at
    every line's start tried every byte): the same edges as the pattern over the whole file."""
    data = text.encode()
    assert fact_files.written_edges(data, "python") == tuple(
        tuple(part.decode() for part in edge) for edge in fact_files._IMPORT.findall(data))
