"""The engine on realistic and on hostile input: prefilter, one parse per file, aliases,
parallel determinism, internal errors, bad input, fixes."""

from __future__ import annotations

import ast
import os
from functools import partial

import pytest

from cursedlint import engine
from cursedlint.engine import Linter
from cursedlint.settings import Settings

import harness
from engine_rules import notices_and_test_rules

RULES = notices_and_test_rules()


CHECKED = {code: rule for code, rule in RULES.items() if code != "CUR003"}
make_linter = partial(harness.make_linter, CHECKED)
lint = partial(harness.lint_result, rules=CHECKED, path="train.py", dedent=False)
"""The FileResult of `text` (str or bytes) in a file named `path` (which decides the language)."""


def codes(result) -> list[tuple[int, str]]:
    return [(finding.line, finding.code) for finding in result.findings]


WORKER = '''\
import os
from os import fork as spawn_child
import os as operating_system


def start_workers(count):
    for _ in range(count):
        if spawn_child() == 0:
            run_worker()
    operating_system.fork()
'''


def test_aliases_resolve_to_the_imported_name():
    assert codes(lint(WORKER)) == [(8, "CUR901"), (10, "CUR901")]


def test_imports_inside_functions_resolve_after_them():
    text = "def respawn():\n    import os as system\n    system.fork()\n"
    assert codes(lint(text)) == [(3, "CUR901")]


def test_a_local_function_named_like_an_import_is_not_it():
    text = "def fork():\n    return 0\n\nfork()\n"
    assert codes(lint(text)) == []


def test_file_without_trigger_words_is_never_parsed(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("parsed a file that holds no trigger word")

    monkeypatch.setattr(ast, "parse", refuse)
    result = lint("import json\nprint(json.dumps({}))\n")
    assert result.status == "clean" and result.findings == []


def test_each_file_is_parsed_once_for_all_rules(monkeypatch):
    calls = []
    real_parse = ast.parse
    monkeypatch.setattr(ast, "parse", lambda *a, **k: calls.append(1) or real_parse(*a, **k))
    result = lint(WORKER + "launcher.old_spawn(['x'])\nthreshold = 1\n")
    assert len(calls) == 1
    assert {finding.code for finding in result.findings} == {"CUR901", "CUR902", "CUR907"}


def test_a_c_file_larger_than_the_kept_trees_budget_is_parsed_once(tmp_path, monkeypatch):
    """A C/C++ file that waits for facts keeps its tree for its lint with them. One larger than
    the whole budget is kept while no other tree is (so a 50 MB file is not parsed twice); a
    second one is not, nor anything after it: what is held stays within the larger of the
    budget and the largest file's own tree."""
    import cursedlint.c.context as c_context
    import cursedlint.engine.file_lint as file_lint

    reader = ("#include <sys/uio.h>\n"
              "ssize_t peek(pid_t pid, struct iovec *l, struct iovec *r) {\n"
              "    return process_vm_readv(pid, l, 1, r, 1, 0);\n}\n")
    files = {"a_big.c": reader + "/* padding */\n" * 60, "b_big.c": reader + "/* pad */\n" * 40,
             "c_small.c": reader}
    monkeypatch.setattr(file_lint, "KEPT_TREE_BYTES", len(files["c_small.c"]) + 100)
    parsed = []
    real_parse = c_context.parse
    monkeypatch.setattr(c_context, "parse", lambda data, language: parsed.append(
        data.count(b"\n")) or real_parse(data, language))
    harness.run_project(tmp_path, files, ["CUR601"])
    lines = {name: text.count("\n") for name, text in files.items()}
    assert sorted(parsed) == sorted([lines["a_big.c"], lines["b_big.c"], lines["b_big.c"],
                                     lines["c_small.c"], lines["c_small.c"]])


def test_a_run_on_one_process_keeps_the_trees_of_two_workers(tmp_path, monkeypatch):
    """A serial run keeps twice a worker's budget of trees: two files that together exceed
    one worker's budget are each parsed once (a run on several processes keeps one budget per
    worker)."""
    import cursedlint.c.context as c_context
    import cursedlint.engine.file_lint as file_lint

    reader = ("#include <sys/uio.h>\n"
              "ssize_t peek(pid_t pid, struct iovec *l, struct iovec *r) {\n"
              "    return process_vm_readv(pid, l, 1, r, 1, 0);\n}\n")
    files = {"a.c": reader + "/* a */\n" * 20, "b.c": reader + "/* b */\n" * 20}
    monkeypatch.setattr(file_lint, "KEPT_TREE_BYTES", len(files["a.c"]) + 10)
    assert file_lint.kept_tree_bytes(1) >= sum(map(len, files.values())) > \
        file_lint.kept_tree_bytes(2)
    parsed = []
    real_parse = c_context.parse
    monkeypatch.setattr(c_context, "parse", lambda data, language: parsed.append(
        data.count(b"\n")) or real_parse(data, language))
    findings = harness.run_project(tmp_path, files, ["CUR601"])[1]
    assert len(parsed) == 2 and findings == []


_IR_HEADER = """\
#pragma once
#include <sys/uio.h>
#include <vector>

namespace ir {

class Node {
 public:
  virtual ~Node() = default;
};

class NodeMapping {
 public:
  Node* lookup(const Node* from) const;
};

class Block {
 public:
  std::vector<Node*> nodes;
  Node* entry = nullptr;
};

inline ssize_t peekRemote(pid_t pid, void* local, void* remote, size_t len) {
  struct iovec to = {local, len}, from = {remote, len};
  return process_vm_readv(pid, &to, 1, &from, 1, 0);
}

}  // namespace ir
"""
_IR_CLONE = """\
#include "a_ir.hpp"

namespace ir {

void cloneBlock(const Block* src, Block* dst, NodeMapping& mapping) {
  for (Node* node : src->nodes) dst->nodes.push_back(mapping.lookup(node));
  dst->entry = src->entry;
}

}  // namespace ir
"""


@pytest.mark.parametrize("cloning", [True, False])
def test_classes_are_summarized_once_a_linted_file_needs_them(tmp_path, monkeypatch, cloning):
    """The lint summarizes a file for the cloners' classes only once a file linted so far
    needs them (one with a cloning function): the header linted first is summarized by the
    index, from the tree the lint kept (each file parsed once), and the finding that needs
    its declarations is made; where no file needs them, no file is summarized for them."""
    import cursedlint.c.context as c_context
    import cursedlint.rules.cloners as cloners

    files = {"a_ir.hpp": _IR_HEADER, **({"b_clone.cpp": _IR_CLONE} if cloning else {})}
    parsed, summarized = [], []
    real_parse, real_summarize = c_context.parse, cloners.ClonerIndex.summarize
    monkeypatch.setattr(c_context, "parse", lambda data, language: parsed.append(
        data.count(b"\n")) or real_parse(data, language))
    monkeypatch.setattr(cloners.ClonerIndex, "summarize", lambda self, context: summarized.append(
        os.path.basename(context.source.path)) or real_summarize(self, context))
    findings = harness.run_project(tmp_path, files, ["CUR501", "CUR601"])[1]
    assert [(finding.code, finding.line) for finding in findings] == (
        [("CUR501", 7)] if cloning else [])
    assert sorted(summarized) == sorted(files if cloning else [])
    assert sorted(parsed) == sorted(text.count("\n") for text in files.values())


def test_python_trees_are_kept_within_one_workers_budget(monkeypatch):
    """A serial run's doubled budget is for C/C++ trees: a Python tree (an ast takes several
    times a C/C++ tree of its source) is kept only while the trees kept stay within one
    worker's budget."""
    from types import SimpleNamespace

    import cursedlint.engine.file_lint as file_lint

    monkeypatch.setattr(file_lint, "KEPT_TREE_BYTES", 100)
    linter = harness.make_linter(["CUR601"])
    linter.keep_trees_within(file_lint.kept_tree_bytes(1))

    def parsed(name: str, language: str):
        return SimpleNamespace(source=SimpleNamespace(path=name, data=b"x" * 60,
                                                      language=language), tree=name)

    for name, language in (("a.py", "python"), ("b.py", "python"), ("c.c", "c"),
                           ("d.c", "c"), ("e.c", "c")):
        linter._keep_tree(parsed(name, language))
    assert sorted(os.path.basename(path) for path in linter._kept_trees) == [
        "a.py", "c.c", "d.c"]


def test_a_process_that_ends_at_once_leaves_the_kept_trees_to_its_end(monkeypatch):
    """The `cursedlint` command ends its process without the interpreter's teardown: the trees
    its run kept are left to that end, not freed node by node, until a next run of the
    process (another group's) begins; a linter in a process that goes on frees them."""
    from types import SimpleNamespace

    import cursedlint.engine.file_lint as file_lint

    monkeypatch.setattr(file_lint, "_LEFT_TO_EXIT", [])
    source = SimpleNamespace(path="a.py", data=b"x = 1\n", language="python")
    for ends in (False, True):
        linter = harness.make_linter(["CUR601"])
        linter.ends_process = ends
        linter.keep_trees_within(file_lint.kept_tree_bytes(1))
        linter._keep_tree(SimpleNamespace(source=source, tree="tree"))
        kept = linter._kept_trees
        linter.forget_kept_trees()
        assert linter._kept_trees == {} and (kept != {}) is ends
        assert file_lint._LEFT_TO_EXIT == ([kept] if ends else [])
    linter.keep_trees_within(file_lint.kept_tree_bytes(1))
    assert file_lint._LEFT_TO_EXIT == []


def test_a_kept_c_tree_keeps_its_identifier_index(tmp_path, monkeypatch):
    """The identifiers of a C/C++ file, indexed for its wide searches in the first lint (the
    summaries for the index), are not indexed again for its lint with the facts: the index
    is kept with the tree. The findings are those of a run searching the bytes."""
    import re

    import cursedlint.c.context as c_context

    files = {"peek.c": "#include <sys/uio.h>\n"
                       "static ssize_t peek(pid_t pid, struct iovec *l, struct iovec *r) {\n"
                       "    return process_vm_readv(pid, l, 1, r, 1, 0);\n}\n"
                       "void use(pid_t pid, struct iovec *l, struct iovec *r) {\n"
                       "    assert(peek(pid, l, r) > 0);\n}\n"}
    searched = harness.run_project(tmp_path, files, ["CUR601"])[1]
    made = []

    class Counted:
        def finditer(self, data):
            made.append(len(data))
            return re.finditer(rb"[\w$]+", data)

    monkeypatch.setattr(c_context, "_IDENTIFIER", Counted())
    monkeypatch.setattr(c_context, "WIDE_SEARCH_BYTES", 0)
    monkeypatch.setattr(c_context, "SEARCHES_BEFORE_INDEX", 0)
    assert harness.run_project(tmp_path, None, ["CUR601"])[1] == searched != []
    assert made == [len(files["peek.c"])]


def test_a_linted_c_file_is_read_once_and_its_tree_left_to_a_process_end(tmp_path, monkeypatch):
    """A C/C++ file the lint kept is read once: its bytes, kept with its tree, serve the
    index. Where the process ends at once, the tree its lint with the facts takes stays kept
    and is left to that end (not freed after that lint); the findings are the same."""
    import cursedlint.engine.file_lint as file_lint
    import cursedlint.source as source_module
    from cursedlint.engine.results import Project

    files = {"peek.c": "#include <sys/uio.h>\n"
                       "ssize_t peek(pid_t pid, struct iovec *l, struct iovec *r) {\n"
                       "    return process_vm_readv(pid, l, 1, r, 1, 0);\n}\n",
             "use.c": "#include <sys/uio.h>\nssize_t peek(pid_t, struct iovec *, struct iovec *);\n"
                      "void use(pid_t pid, struct iovec *l, struct iovec *r) {\n"
                      "    assert(peek(pid, l, r) > 0);\n}\n"}
    found = harness.run_project(tmp_path, files, ["CUR601"])[1]
    reads, read_bytes = [], source_module.read_bytes
    monkeypatch.setattr(source_module, "read_bytes",
                        lambda path: reads.append(os.path.basename(path)) or read_bytes(path))
    monkeypatch.setattr(file_lint, "_LEFT_TO_EXIT", [])
    every = harness.project_files(str(tmp_path))
    linter = harness.make_linter(["CUR601"], root=str(tmp_path))
    linter.ends_process = True
    results = linter.run(every, 1, Project(lambda: every, linted_all=True))
    # (use.c, without the call's trigger word, is not parsed by the first lint: the index
    # reads it, and its bytes serve its lint with the facts)
    assert sorted(reads) == ["peek.c", "use.c", "use.c"]
    assert linter.fact_passes and [sorted(map(os.path.basename, kept)) for kept
                                   in file_lint._LEFT_TO_EXIT] == [["peek.c"]]
    assert sorted((harness.relative(finding, str(tmp_path)) for result in results
                   for finding in result.findings), key=lambda f: f.sort_key) == found != []


def test_an_analysis_of_the_file_alone_is_made_once_for_both_lints(tmp_path, monkeypatch):
    """A C/C++ file linted first without the facts, then with them on the kept tree: what
    reads the file alone (the system calls it spells, `CContext.of_tree`) is made once and
    read by both lints; the findings are those of a run that makes it in each."""
    from cursedlint.analysis import c_system_calls
    from cursedlint.c.context import CContext

    files = {"peek.c": "#include <sys/syscall.h>\n#include <unistd.h>\n"
                       "long peek(pid_t pid, void *l, void *r) {\n"
                       "    return syscall(SYS_process_vm_readv, pid, l, 1, r, 1, 0);\n}\n",
             "use.c": "long peek(pid_t, void *, void *);\n"
                      "void use(pid_t pid, void *l, void *r) {\n"
                      "    assert(peek(pid, l, r) > 0);\n}\n"}
    spelling, read = c_system_calls._SPELLING, []

    class Counted:
        def finditer(self, data):
            read.append(data.count(b"\n"))
            return spelling.finditer(data)

    monkeypatch.setattr(c_system_calls, "_SPELLING", Counted())
    found = harness.run_project(tmp_path, files, ["CUR601"])[1]
    assert read == [5]  # (peek.c, once: use.c makes no system call)
    monkeypatch.setattr(CContext, "of_tree", lambda self, key, factory: factory())
    assert harness.run_project(tmp_path, None, ["CUR601"])[1] == found != []
    assert len(read) > 2 and set(read) == {5}  # (each context of peek.c's tree: both lints'
    # and the index's)


def test_rule_options_reach_the_rule():
    found = harness.lint("threshold = 2\n", {"CUR907": RULES["CUR907"]}, options={"limit": 9})
    assert [finding.message for finding in found] == ["limit=9"]


def test_a_crashing_rule_is_reported_and_the_others_still_run():
    result = lint("import os\nexplode()\nos.fork()\n")
    assert codes(result) == [(1, "CUR000"), (3, "CUR901")]
    assert "CUR906 (test-exploding): RuntimeError: boom" in result.findings[0].message


def test_a_crashing_c_rule_is_reported(tmp_path):
    result = lint("void explode(void) { ibv_fork_init(); }\n", path="init.c")
    assert codes(result) == [(1, "CUR000"), (1, "CUR905")]


def test_show_traceback_keeps_the_stack():
    result = lint("explode()\n", show_traceback=True)
    assert "RuntimeError: boom" in result.tracebacks[0] and "Traceback" in result.tracebacks[0]


def test_c_and_cpp_files_use_their_grammars_and_survive_macros():
    cpp = """\
#define CHECK(x) do { if (!(x)) abort(); } while (0)
template <typename T> struct Holder { T value; };
__global__ void kernel(float* out) { out[threadIdx.x] = 0; }
int setup() {
  kernel<<<1, 32>>>(nullptr);
  CHECK(ibv_fork_init() == 0);
  return ::ibv_fork_init();
}
"""
    result = lint(cpp, path="setup.cu")
    assert codes(result) == [(6, "CUR905"), (7, "CUR905")]
    span = result.findings[1].span
    assert (span.column, span.end_column) == (10, 27)  # `::ibv_fork_init()` after `return `


# -- bad input --------------------------------------------------------------------------------
def test_syntax_error_is_reported_at_the_parser_location():
    result = lint("import os\ndef launch(cmd:\n    os.fork()\n")
    assert codes(result) == [(2, "CUR001")]
    assert "syntax error" in result.findings[0].message


def test_syntax_error_is_not_reported_for_files_without_triggers():
    assert lint("def launch(cmd:\n").findings == []


def test_invalid_utf8_is_reported_with_its_position():
    result = lint(b"import os\nname = 'caf\xe9'\nos.fork()\n")
    assert codes(result) == [(2, "CUR002")]
    assert "invalid byte 0xe9 at line 2" in result.findings[0].message


def test_declared_encoding_is_honoured():
    data = "# -*- coding: latin-1 -*-\nimport os\nname = 'café'\nos.fork()\n".encode("latin-1")
    assert codes(lint(data)) == [(4, "CUR901")]


def test_nul_byte_early_means_binary_and_is_skipped_silently():
    result = lint(b"\x7fELF\x00\x00fork" + bytes(range(256)) * 10)
    assert result.status == "skipped" and result.findings == []


def test_nul_byte_late_in_a_text_file_is_a_syntax_error():
    data = b"import os\n" + b"# padding\n" * 1000 + b"os.fork()\x00\n"
    result = lint(data)
    assert codes(result) == [(1002, "CUR001")]
    assert "NUL byte" in result.findings[0].message


def test_empty_file():
    assert lint(b"").findings == [] and lint(b"", path="x.cpp").findings == []


@pytest.mark.parametrize(
    "body",
    [
        "x = " + "(" * 1000 + "1" + ")" * 1000,
        "x = " + "-" * 100_000 + "1",
        "".join("    " * i + "if fork:\n" for i in range(1000)) + "    " * 1000 + "pass\n",
    ],
    ids=["parentheses", "unary", "indentation"],
)
def test_deep_nesting_is_a_notice_not_a_crash(body):
    result = lint("import os\nos.fork()\n" + body)
    assert codes(result) == [(result.findings[0].line, "CUR001")]


def test_deep_but_parseable_tree_is_walked_without_recursion():
    body = "import os\nx = " + "-" * 900 + "os.fork()\n"
    assert codes(lint(body)) == [(2, "CUR001")] or codes(lint(body)) == [(2, "CUR901")]


def test_five_megabyte_file():
    line = "value_{0} = compute({0}) + 1  # padding padding padding padding\n"
    text = "import os\n" + "".join(line.format(i) for i in range(80_000)) + "os.fork()\n"
    assert len(text) > 5_000_000
    linter = Linter(Settings(enabled=frozenset(RULES), max_file_size=6_000_000), RULES)
    assert codes(linter.lint_bytes("train.py", text.encode(), "python")) == [(80_002, "CUR901")]


def test_a_file_larger_than_max_file_size_is_reported_not_parsed(monkeypatch):
    """Above `max-file-size` a file with trigger words gets CUR004 and is never parsed; one
    without them is clean as any such file; at the limit it is checked."""
    text = "import os\n" + "x = 1\n" * 100 + "os.fork()\n"
    size = len(text.encode())
    parsed, parse = [], ast.parse
    monkeypatch.setattr(ast, "parse", lambda *a, **k: parsed.append(1) or parse(*a, **k))
    small = Linter(Settings(enabled=frozenset(RULES), max_file_size=size - 1), RULES)
    result = small.lint_bytes("gen.py", text.encode(), "python")
    assert codes(result) == [(1, "CUR004")] and not parsed
    assert result.findings[0].message == f"not checked: {size:,} bytes is more than max-file-size ({size - 1:,} bytes)"
    assert codes(small.lint_bytes("gen.py", b"x = 1\n" * 200, "python")) == []
    exact = Linter(Settings(enabled=frozenset(RULES), max_file_size=size), RULES)
    assert codes(exact.lint_bytes("gen.py", text.encode(), "python")) == [(102, "CUR901")]
    quiet = Linter(Settings(enabled=frozenset(RULES) - {"CUR004"}, max_file_size=size - 1), RULES)
    assert codes(quiet.lint_bytes("gen.py", text.encode(), "python")) == []


def test_unreadable_paths_are_reported(tmp_path):
    linter = make_linter()
    broken = tmp_path / "broken.py"
    broken.symlink_to(tmp_path / "missing.py")
    directory = tmp_path / "package.py"
    directory.mkdir()
    for path in (broken, directory):
        result = linter.lint_path(str(path), "python")
        assert codes(result) == [(1, "CUR002")]
        assert "cannot read file" in result.findings[0].message


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_file_without_read_permission(tmp_path):
    path = tmp_path / "secret.py"
    path.write_text("os.fork()\n")
    path.chmod(0)
    assert codes(make_linter().lint_path(str(path), "python")) == [(1, "CUR002")]


def test_fifo_is_not_read(tmp_path):
    path = tmp_path / "pipe.py"
    os.mkfifo(path)
    assert codes(make_linter().lint_path(str(path), "python")) == [(1, "CUR002")]


# -- parallel runs ----------------------------------------------------------------------------
def test_the_parallel_threshold_is_read_when_linting_not_when_importing(tmp_path, monkeypatch):
    """The job-count comparisons set PARALLEL_MIN_BYTES to 0 to fork for small files; a default
    bound at import kept them serial, comparing one code path with itself."""
    from cursedlint.engine import forked

    forks = []
    real = forked.forked_map
    monkeypatch.setattr(forked, "forked_map",
                        lambda *args, **kwargs: forks.append(args[2]) or real(*args, **kwargs))
    monkeypatch.setattr(engine.scheduler, "PARALLEL_MIN_BYTES", 0)
    files = []
    for index in range(4):
        path = tmp_path / f"module_{index}.py"
        path.write_text(WORKER)
        files.append((str(path), "python"))
    make_linter().run(files, jobs=2)
    if engine.scheduler.CAN_FORK:
        assert forks == [2]


def test_output_is_identical_for_every_job_count(tmp_path, monkeypatch):
    monkeypatch.setattr(engine.scheduler, "PARALLEL_MIN_BYTES", 0)  # fork children even for small files
    files = []
    for index in range(40):
        path = tmp_path / f"module_{index:02}.py"
        body = WORKER if index % 3 else "import json\n"
        path.write_text(body + ("explode()\n" if index == 7 else ""))
        files.append((str(path), "python"))
    linter = make_linter()
    sequential = [r.findings for r in linter.run(files, jobs=1)]
    assert sequential == [r.findings for r in linter.run(files, jobs=2)]
    assert sequential == [r.findings for r in linter.run(files, jobs=4)]
    assert sum(len(findings) for findings in sequential) == 2 * 26 + 1
    monkeypatch.setattr(engine.scheduler, "CAN_FORK", False)  # the process pool used where there is no fork
    assert sequential == [r.findings for r in make_linter().run(files, jobs=2)]


# -- fixes ------------------------------------------------------------------------------------
def test_fixes_are_written_only_when_asked(tmp_path):
    path = tmp_path / "launch.py"
    original = "import launcher\nlauncher.old_spawn(['ls'])\nlauncher.old_launch(['ls'])\n"
    path.write_text(original)
    assert codes(make_linter().lint_path(str(path), "python")) == [(2, "CUR902"), (3, "CUR903")]
    assert path.read_text() == original

    result = make_linter(fix="safe").lint_path(str(path), "python")
    assert result.fixed == 1 and codes(result) == [(3, "CUR903")]
    assert path.read_text() == original.replace("old_spawn", "spawn")

    result = make_linter(fix="unsafe").lint_path(str(path), "python")
    assert result.fixed == 1 and result.findings == []
    assert path.read_text() == "import launcher\nlauncher.spawn(['ls'])\nlauncher.launch(['ls'])\n"


def test_a_fix_that_would_not_parse_is_refused(tmp_path):
    path = tmp_path / "launch.py"
    original = "break_me(1)\n"
    path.write_text(original)
    result = make_linter(fix="safe").lint_path(str(path), "python")
    assert result.fixed == 0 and codes(result) == [(1, "CUR904")]
    assert result.notes == ["fix for CUR904 at line 1 not applied: the fixed code would not parse"]
    assert path.read_text() == original


def test_good_fixes_are_kept_when_a_later_pass_would_break_the_code(tmp_path):
    path = tmp_path / "launch.py"
    path.write_text("launcher.old_spawn(['ls'])\nbreak_me(1)\n")
    result = make_linter(fix="safe").lint_path(str(path), "python")
    assert result.fixed == 1 and codes(result) == [(2, "CUR904")]
    assert result.notes == ["fix for CUR904 at line 2 not applied: the fixed code would not parse"]
    assert path.read_text() == "launcher.spawn(['ls'])\nbreak_me(1)\n"


def test_fixes_keep_the_declared_encoding_and_file_mode(tmp_path):
    path = tmp_path / "launch.py"
    original = "# -*- coding: latin-1 -*-\nlauncher.old_spawn('café')\n"
    path.write_bytes(original.encode("latin-1"))
    path.chmod(0o750)
    make_linter(fix="safe").lint_path(str(path), "python")
    assert path.read_bytes() == original.replace("old_spawn", "spawn").encode("latin-1")
    assert path.stat().st_mode & 0o777 == 0o750


# -- facts from other files -------------------------------------------------------------------
def test_project_facts_reach_rules_and_widen_the_prefilter(tmp_path):
    launcher = tmp_path / "launcher.py"
    launcher.write_text("import os\n\ndef launch_workers():\n    os.fork()\n")
    copy = tmp_path / "launcher_copy.py"
    copy.write_text(launcher.read_text())
    broken = tmp_path / "broken.py"
    broken.write_text("import os\nexplode_summary = os.fork\n")
    train = tmp_path / "train.py"
    train.write_text("from launcher import launch_workers\n\nlaunch_workers()\n")
    files = [(str(path), "python") for path in (launcher, copy, broken, train)]

    assert codes(make_linter().lint_path(str(train), "python")) == []  # no trigger word alone
    linter = make_linter()
    indexer = RULES["CUR908"].indexer
    type(indexer).summarize_calls = 0
    linter.index_project(files)
    assert indexer.summarize_calls == 2, "identical contents are summarized once"
    assert linter.project["forking-functions"] == {
        str(launcher): ["launch_workers"], str(copy): ["launch_workers"]
    }
    result = linter.lint_path(str(train), "python")
    assert codes(result) == [(3, "CUR908")]
    assert "launch_workers() forks" in result.findings[0].message
    assert [r.findings for r in linter.run(files, jobs=2)] == [
        r.findings for r in linter.run(files, jobs=1)
    ]


def test_a_second_gathering_takes_what_the_first_made_but_its_errors(tmp_path):
    """The facts pass may gather a second time (the words of files the facts named): it is
    given the first gathering's summaries (`ProjectIndex.made`) and parses none of those
    files again, but one whose summarizer raised, which it summarizes and reports again."""
    launcher = tmp_path / "launcher.py"
    launcher.write_text("import os\n\ndef launch_workers():\n    os.fork()\n")
    broken = tmp_path / "broken.py"
    broken.write_text("import os\nexplode_summary = os.fork\n")
    files = [(str(launcher), "python"), (str(broken), "python")]
    linter = make_linter()
    indexer = RULES["CUR908"].indexer
    type(indexer).summarize_calls = 0
    first = linter.index_project(files)
    assert indexer.summarize_calls == 2 and len(first.errors) == 1
    second = linter.index_project(files, summaries=first.made())
    assert indexer.summarize_calls == 3, "only the failed summary is made again"
    assert [error.path for error in second.errors] == [str(broken)]
    assert linter.project["forking-functions"] == {str(launcher): ["launch_workers"]}


def test_rules_without_project_triggers_need_no_index():
    settings = Settings(enabled=frozenset({"CUR901"}))
    assert not Linter(settings, RULES).indexing_rules()
    assert make_linter().indexing_rules()


def test_a_linter_pickles_for_workers_without_fork(tmp_path):
    """Where there is no fork, each worker gets a pickled linter: its prefilters (compiled
    automata) stay behind and are built again."""
    import pickle

    path = tmp_path / "worker.py"
    path.write_text(WORKER)
    linter = make_linter()
    before = linter.lint_path(str(path), "python").findings
    copy = pickle.loads(pickle.dumps(linter))
    assert before and copy.lint_path(str(path), "python").findings == before


def test_the_contexts_of_one_kept_tree_walk_it_once(monkeypatch):
    """A deferred file's first look, the index's contexts of it and its lint with facts share
    the tree and its `TreeIndex`: the whole tree is walked once, whichever context asks first."""
    from cursedlint.python.context import TreeIndex
    from cursedlint.source import Source

    source = Source.from_text("step.py", "import torch\n\n\ndef capture(g):\n"
                              "    with torch.cuda.graph(g):\n        run()\n", "python")
    linter = Linter(Settings(enabled=frozenset()), {})
    first = linter._parse(source, engine.FileResult("step.py"), frozenset())
    linter._keep_tree(first)
    linter.index_trees = {}
    summary_context = linter.parse_for_index(source)
    again = linter._parse(source, engine.FileResult("step.py"), frozenset())
    assert first.tree is summary_context.tree is again.tree
    walks = []
    real = TreeIndex._build
    monkeypatch.setattr(TreeIndex, "_build",
                        lambda self: walks.append(self.built) or real(self))
    call = first.tree.body[1].body[0].body[0].value
    assert [type(context.parent_of(call)) for context in (summary_context, again, first)] \
        == [ast.Expr] * 3
    assert [len(context.nodes(ast.Call)) for context in (first, again)] == [2, 2]
    assert walks.count(False) == 1


def test_a_tree_index_lists_nodes_as_ast_walk_does():
    from cursedlint.python.context import TreeIndex

    tree = ast.parse("import os\nwith open(f) as h:\n    from x import y\n    print(h.read())\n"
                     "async def g():\n    async with lock:\n        await go(a + b)\n")
    index = TreeIndex(tree)
    classes = (ast.Import, ast.ImportFrom, ast.With, ast.AsyncWith, ast.Call)
    assert index.of(*classes) == [node for node in ast.walk(tree) if type(node) in classes]
    assert index.of(ast.Call) == [node for node in ast.walk(tree) if type(node) is ast.Call]
    assert index.of(ast.Load, ast.Add) == [] and index.of(ast.Yield) == []
    assert all(index.parent_of(child) is node for node in ast.walk(tree)
               for child in ast.iter_child_nodes(node)
               if not isinstance(child, (ast.expr_context, ast.operator)))


def test_a_tree_index_finds_statements_without_its_whole_walk():
    """Statement classes are found by a walk of the statement blocks alone (no expression
    holds a statement), in `ast.walk`'s order all the same: Try's handlers before its else,
    match cases, nested functions and classes, a lambda's body left alone."""
    from cursedlint.python.context import TreeIndex

    tree = ast.parse(
        "try:\n    a = 1\nexcept E:\n    b: int = 2\nelse:\n    c = 3\nfinally:\n    d = 4\n"
        "match x:\n    case [y]:\n        e = 5\n    case _:\n        return_ = lambda: 6\n"
        "class K:\n    def m(self):\n        def inner():\n            return (f := 7)\n"
        "        return inner\nfor i in r:\n    g = 8\nelse:\n    h = 9\n")
    index = TreeIndex(tree)
    for classes in [(ast.Assign, ast.AnnAssign), (ast.Return,), (ast.ExceptHandler, ast.match_case),
                    (ast.FunctionDef, ast.ClassDef, ast.Module)]:
        assert index.of(*classes) == [node for node in ast.walk(tree) if type(node) in classes]
    assert not index.built, "no question about a statement walks the expressions"
    assert index.of(ast.NamedExpr)[0].target.id == "f" and index.built


def test_no_tree_is_left_to_the_cyclic_collector():
    """Every rule and indexer, over the rule cases (each rule's directory linted whole, and
    each project in it, which gathers facts from other modules), leaves no syntax tree in a reference cycle (a Python `ast`, or the context holding a
    tree-sitter tree): trees are freed by reference counting as soon as a file is done, not by
    full collections that walk every tree still held. (With the collector's threshold raised,
    a C/C++ file's first tree, kept alive by a rule's cycle, was still held while the file was
    parsed again for its lint with facts: twice the parse's memory.)"""
    import gc

    from cursedlint.c.context import CContext
    from cursedlint.registry import all_rules

    cases = os.path.join(os.path.dirname(__file__), "rules")
    codes = [os.path.join(cases, code) for code in sorted(os.listdir(cases))]
    projects = [os.path.join(code, name) for code in codes for name in sorted(os.listdir(code))
                if os.path.isdir(os.path.join(code, name))]
    assert len(projects) >= 10
    rules = list(all_rules())
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for project in codes + projects:
            harness.run_project(project, None, rules)
        gc.collect()
        trees = [item for item in gc.garbage if isinstance(item, (ast.AST, CContext))]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert trees == []


def test_a_cycle_frozen_between_files_is_collected_once_memory_grows(monkeypatch):
    """What outlives a file's lint is frozen out of the collector's generations
    (`settle_survivors`), a cycle the file left among it; once the peak memory has grown by
    FROZEN_GROWTH all is put back and collected: cycles cannot hold memory without bound."""
    import gc
    import weakref

    from cursedlint.engine import linter as run

    class Node:
        pass

    peak = [1 << 30]  # (the process's peak memory, as the files' lints make it grow)
    monkeypatch.setattr(run, "_peak_bytes", lambda: peak[0])
    monkeypatch.setattr(run, "_collected_at", [])
    gc.collect()
    try:
        run.settle_survivors()  # (the peak to grow from)
        cycle = Node()
        cycle.itself = cycle
        watched = weakref.ref(cycle)
        del cycle
        peak[0] += run.FROZEN_GROWTH // 2
        run.settle_survivors()
        gc.collect(2)
        assert watched() is not None, "frozen: no collection frees it"
        peak[0] += run.FROZEN_GROWTH // 2 + 1
        run.settle_survivors()
        assert watched() is None and gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()


_ASKS_FOR_FACTS = {
    "sim/__init__.py": "",
    "sim/engine.py": (
        "import multiprocessing as mp\nimport os\nimport subprocess\n\nimport torch\n\n\n"
        "def rollout(seed):\n    return torch.randn(4, device=\"cuda\").sum().item()\n\n\n"
        "def upload(path):\n"
        "    subprocess.run([\"/usr/bin/s5cmd\", \"cp\", path], preexec_fn=os.setsid)\n\n\n"
        "class Simulator:\n    def __init__(self, seeds):\n        self.seeds = seeds\n\n"
        "    def generate(self):\n        with mp.Pool(len(self.seeds)) as pool:\n"
        "            return pool.map(rollout, self.seeds)\n"),
    "run_sim.py": (
        "import torch\n\nfrom sim.engine import Simulator\n\n"
        "if __name__ == \"__main__\":\n    torch.cuda.set_device(0)\n"
        "    sim = Simulator([1, 2, 3])\n    print(sim.generate())\n"),
}


def test_a_file_linted_again_for_facts_runs_again_only_the_rules_reading_them(
        tmp_path, monkeypatch):
    """engine.py asks who calls `generate` (CUR102's start-method facts): linted again with
    them, CUR102 runs again and CUR101 (which reads no facts) keeps its first findings; the
    findings are those of running every rule again."""
    from cursedlint.engine.facts_run import FactsRun
    from cursedlint.registry import all_rules

    rules = {code: all_rules()[code] for code in ("CUR101", "CUR102")}
    chosen = []
    rules_again = FactsRun._rules_again
    monkeypatch.setattr(FactsRun, "_rules_again",
                        lambda self, *args: chosen.append(rules_again(self, *args)) or chosen[-1])
    found = harness.run_project(tmp_path / "a", _ASKS_FOR_FACTS, rules)[1]
    monkeypatch.setattr(FactsRun, "_rules_again", lambda self, *args: {})
    every_rule = harness.run_project(tmp_path / "b", _ASKS_FOR_FACTS, rules)[1]
    assert [(f.path, f.span.line, f.code) for f in found] == [
        (os.path.join("sim", "engine.py"), 13, "CUR101"),
        (os.path.join("sim", "engine.py"), 21, "CUR102")]
    assert [(f.path, f.span, f.code, f.message, f.related) for f in found] == \
        [(f.path, f.span, f.code, f.message, f.related) for f in every_rule]
    assert [{os.path.relpath(path, tmp_path / "a"): codes for path, codes in again.items()}
            for again in chosen] == [{os.path.join("sim", "engine.py"): {"CUR102"}}]


_ASKS_OF_FOREIGN_BINDINGS = {
    "audio/__init__.py": "",
    "audio/_native.py": (
        "import ctypes\nfrom ctypes import CFUNCTYPE, c_int, c_void_p\n\n"
        "_snd = ctypes.CDLL(\"libsnd.so.2\")\n"
        "STREAM_CALLBACK = CFUNCTYPE(c_int, c_void_p, c_int)\n"
        "stream_count = _snd.snd_stream_count\n"),
    "audio/levels.py": (
        "\"\"\"Level probes in Python.\"\"\"\n\n\n"
        "class Probe:\n    def __init__(self, render):\n        self.render = render\n"),
    "audio/stream.py": (
        "import ctypes\n\nfrom ._native import STREAM_CALLBACK\n\n"
        "_snd = ctypes.CDLL(\"libsnd.so.2\")\n"
        "LEVEL_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int)\n\n\n"
        "def start(device, process):\n"
        "    _snd.snd_register_stream(device, STREAM_CALLBACK(process))\n"),
    "audio/meters.py": (
        "import ctypes\n\nfrom .levels import Probe\n\n"
        "_meter = ctypes.CDLL(\"libmeter.so.1\")\n"
        "_meter.meter_register.argtypes = [ctypes.CFUNCTYPE(None, ctypes.c_int)]\n\n\n"
        "def show(render):\n    return _meter.meter_register(Probe(render))\n"),
}


def test_a_file_whose_foreign_questions_the_facts_leave_unanswered_is_not_linted_again(
        tmp_path, monkeypatch):
    """stream.py and meters.py each ask what a name they import from the project binds
    (CUR202's foreign-keeping facts: is the argument's maker a prototype?). The facts bind
    `_native`'s `STREAM_CALLBACK` to a prototype, so stream.py is linted again and reported;
    they know nothing of `levels`, so meters.py keeps its first lint (`ForeignKeeping.affects`):
    the findings are those of linting both again. (`_native.py` names a word the facts make a
    trigger, its own prototype: linted again either way.)"""
    from cursedlint.analysis.foreign_keeping import ForeignKeeping
    from cursedlint.engine.linter import Linter as RunLinter
    from cursedlint.registry import all_rules

    rules = {"CUR202": all_rules()["CUR202"]}
    again = []
    lint_files = RunLinter.lint_files

    def recorded(self, files, *args):
        if self.facts_key is not None:
            again.append(sorted(os.path.basename(path) for path, _ in files))
        return lint_files(self, files, *args)

    monkeypatch.setattr(RunLinter, "lint_files", recorded)
    found = harness.run_project(tmp_path / "a", _ASKS_OF_FOREIGN_BINDINGS, rules)[1]
    monkeypatch.setattr(ForeignKeeping, "affects", lambda self, *args: True)
    both_again = harness.run_project(tmp_path / "b", _ASKS_OF_FOREIGN_BINDINGS, rules)[1]
    assert [(f.path, f.span.line, f.code) for f in found] == [
        (os.path.join("audio", "stream.py"), 10, "CUR202")]
    assert [(f.path, f.span, f.message, f.related) for f in found] == \
        [(f.path, f.span, f.message, f.related) for f in both_again]
    assert again == [["_native.py", "stream.py"], ["_native.py", "meters.py", "stream.py"]]


def test_a_file_that_needs_foreign_facts_is_linted_again_for_a_question_it_did_not_ask(
        tmp_path):
    """meters.py needs the foreign-keeping facts for one question (is `Probe` a prototype?,
    which they leave unanswered) and reads `_native.register_stream` without asking (a
    question any call may raise: noted, not asked). The facts answer the second (an alias of
    a library function that keeps its callback), so meters.py is linted again and reported,
    as when every file needing the facts was."""
    from cursedlint.registry import all_rules

    files = {**_ASKS_OF_FOREIGN_BINDINGS, "audio/meters.py": (
        "import ctypes\n\nfrom . import _native\nfrom .levels import Probe\n\n"
        "_meter = ctypes.CDLL(\"libmeter.so.1\")\n\n\n"
        "def show(render):\n    return _meter.meter_register(Probe(render))\n\n\n"
        "def stream(device, process):\n"
        "    handler = ctypes.CFUNCTYPE(None, ctypes.c_int)(process)\n"
        "    _native.register_stream(device, handler)\n")}
    files["audio/_native.py"] += "register_stream = _snd.snd_register_stream\n"
    found = harness.run_project(tmp_path, files, {"CUR202": all_rules()["CUR202"]})[1]
    assert [(f.path, f.span.line, f.code) for f in found] == [
        (os.path.join("audio", "meters.py"), 15, "CUR202"),
        (os.path.join("audio", "stream.py"), 10, "CUR202")]


def test_a_file_linted_again_runs_only_the_rules_of_the_facts_that_affect_it():
    """A file that asked two indexers' facts, both found, of which only one reaches what it
    reads (`Indexer.affects`): only the rules reading that one run again (the other's answer
    as no facts did)."""
    from types import SimpleNamespace

    from cursedlint.engine.facts_run import FactsRun

    def rule(code, *names):
        indexers = [SimpleNamespace(name=name) for name in names]
        return SimpleNamespace(code=code, indexers=lambda: indexers)

    run = FactsRun(SimpleNamespace(fix=False, warn_unused=False, show_traceback=False))
    using = [rule("CUR401", "cuda-reach"), rule("CUR202", "foreign-keeping"),
             rule("CUR201", "callback-helpers", "foreign-keeping")]
    again = run._rules_again([0, 1], [("step.py", "python"), ("loader.py", "python")],
                             {0: {"cuda-reach"}, 1: {"foreign-keeping"}}, using)
    assert again == {"step.py": {"CUR401"}, "loader.py": {"CUR202", "CUR201"}}


def test_an_analysis_rules_share_is_fed_once_per_node_and_fails_for_each():
    """`walk_feeds`: the walk calls a shared analysis's visitors once per node, where the first
    rule naming it is; when it raises, every rule naming it is reported and dropped from the
    next node on, the others go on."""
    from cursedlint.source import Source

    source = Source.from_text("step.py", "f(1)\ng(2)\nh(3)\n", "python")
    linter = Linter(Settings(enabled=frozenset()), {})
    context = linter._parse(source, engine.FileResult("step.py"), frozenset())
    order = []

    class Analysis:
        def visit_Call(self, node):
            order.append(("analysis", node.func.id))
            if node.func.id == "g":
                raise ValueError("broken")

    class Sharing:
        walk_feeds = ("analysis",)

        def __init__(self, name, analysis):
            self.name, self.analysis = name, analysis

        def visit_Call(self, node):
            order.append((self.name, node.func.id))

    class Plain:
        def visit_Call(self, node):
            order.append(("plain", node.func.id))

    analysis = Analysis()
    one, plain, two = Sharing("one", analysis), Plain(), Sharing("two", analysis)
    failed = []
    context.walk([one, plain, two], lambda rule, error: failed.append(rule))
    assert order == [("analysis", "f"), ("one", "f"), ("plain", "f"), ("two", "f"),
                     ("analysis", "g"), ("one", "g"), ("plain", "g"), ("two", "g"),
                     ("plain", "h")]
    assert failed == [one, two]


def _walked_calls(text: str, *rules) -> None:
    from cursedlint.source import Source

    source = Source.from_text("job.py", text, "python")
    linter = Linter(Settings(enabled=frozenset()), {})
    context = linter._parse(source, engine.FileResult("job.py"), frozenset())
    context.walk(list(rules), lambda rule, error: None)


class _CallRecorder:
    """A call visitor noting the callee text of each call it is shown."""

    def __init__(self, callee_names=None):
        self.callee_names = callee_names
        self.seen = []

    def visit_Call(self, node):
        self.seen.append(ast.unparse(node.func))


def test_a_call_visitor_declaring_callee_names_sees_only_calls_that_may_be_them():
    """`Rule.callee_names`: the walk hands a call visitor the calls whose callee ends in one of
    its names, names an import binds (any of them: `launch` may be an alias of one) and callees
    that are neither a name nor an attribute; a visitor without names, every call."""
    text = (
        "import subprocess as sp\n"
        "from shutil import which as launch\n"
        "def start(cmd, pool):\n"
        "    sp.Popen(cmd)\n"
        "    Popen(cmd)\n"
        "    launch(cmd)\n"
        "    print(cmd)\n"
        "    pool.submit(cmd)\n"
        "    handlers[0](cmd)\n"
        "    self.run(cmd)\n"
    )
    named, every = _CallRecorder(frozenset({"Popen", "run"})), _CallRecorder()
    _walked_calls(text, named, every)
    assert named.seen == ["sp.Popen", "Popen", "launch", "handlers[0]", "self.run"]
    assert every.seen == ["sp.Popen", "Popen", "launch", "print", "pool.submit", "handlers[0]",
                          "self.run"]


def test_a_function_level_import_widens_the_calls_shown_from_where_it_is_met():
    """A name an import inside a function binds is any callee from that import on (the walk
    adds it to the table as it meets it), not before."""
    text = (
        "def early():\n"
        "    spawn('a')\n"
        "def late():\n"
        "    from os import posix_spawn as spawn\n"
        "    spawn('b')\n"
    )
    named = _CallRecorder(frozenset({"posix_spawn"}))
    _walked_calls(text, named)
    assert named.seen == ["spawn"]


def test_an_analysis_fed_by_the_walk_declares_its_own_callee_names():
    """The names of an analysis named in `walk_feeds` decide its own calls; the rule feeding it
    keeps its own (none: every call)."""

    class Analysis(_CallRecorder):
        pass

    class Feeding(_CallRecorder):
        walk_feeds = ("analysis",)

    analysis = Analysis(frozenset({"graph"}))
    rule = Feeding()
    rule.analysis = analysis
    _walked_calls("torch.cuda.graph(g)\nmodel(x)\n", rule)
    assert analysis.seen == ["torch.cuda.graph"]
    assert rule.seen == ["torch.cuda.graph", "model"]
