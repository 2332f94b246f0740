"""The C/C++ parse is bounded: text that makes tree-sitter's time grow with the square of the
file (its lexer reads to the end of the file or line from each of many places) stops at the
budget and is reported CUR004, never a hang; a file within the budget parses exactly as a
whole-bytes parse does."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time

import pytest
import tree_sitter_c
import tree_sitter_cpp
from tree_sitter import Language, Parser

from cursedlint.c import parse_budget
from harness import lint_project

PROLOGUE = ("#include <infiniband/verbs.h>\n"
            "void f(struct ibv_pd *pd, char *b) { ibv_reg_mr(pd, b, 100, 0); }\n")
HOSTILE = {
    # each `/*` with no `*/` after it: the lexer tries a comment to the end of the file
    "unclosed comments": lambda n: PROLOGUE + "ibv_reg_mr /*" * n,
    # each `<` of one long line: the lexer tries a system header name to the line's end
    "include openers on one line": lambda n: PROLOGUE + "#include <" + " x #include <" * n,
}


def parser(language) -> Parser:
    return Parser(Language(language.language()))


def shape(node) -> list:
    """Every node's type and span, in order (`str(node)` leaves the spans out)."""
    cursor, found = node.walk(), []
    while True:
        found.append((cursor.node.type, cursor.node.start_byte, cursor.node.end_byte))
        if cursor.goto_first_child() or cursor.goto_next_sibling():
            continue
        while cursor.goto_parent():
            if cursor.goto_next_sibling():
                break
        else:
            return found


def real_looking_c(functions: int) -> bytes:
    return "".join(
        f"/* buffer {n} */\nstatic int fill_{n}(struct ibv_pd *pd, char *b, size_t n) {{\n"
        f"    if (n > {n}) {{ return -1; }}\n    for (size_t i = 0; i < n; i++) b[i] = i;\n"
        f"    return ibv_reg_mr(pd, b, n, IBV_ACCESS_LOCAL_WRITE) != NULL;\n}}\n"
        for n in range(functions)).encode()


@pytest.mark.parametrize("language", [tree_sitter_c, tree_sitter_cpp], ids=["c", "cpp"])
def test_a_file_within_the_budget_parses_as_a_whole_bytes_parse_does(language):
    data = real_looking_c(1_000)
    assert len(data) > parse_budget.BUDGETED_BYTES  # read from chunks
    budgeted = parse_budget.parse(parser(language), data)
    assert shape(budgeted.root_node) == shape(parser(language).parse(data).root_node)


def test_a_smaller_file_where_the_lexer_may_read_far_is_parsed_within_the_budget_too():
    """`f /*` x 10,000 (40 KB, under BUDGETED_BYTES): its `/*`s come after its last `*/`; the
    whole parse took 1.7 s. A file as small with nothing of the kind is parsed whole."""
    hostile = ("int g(void) { return 0; } /* done */\n" + "f /*" * 10_000).encode()
    assert len(hostile) < parse_budget.BUDGETED_BYTES
    with pytest.raises(parse_budget.ParseTooSlow):
        parse_budget.parse(parser(tree_sitter_c), hostile)
    honest = real_looking_c(100) + b"/* a comment left open at the end"
    assert parse_budget.RISKY_BYTES <= len(honest) < parse_budget.BUDGETED_BYTES
    assert shape(parse_budget.parse(parser(tree_sitter_c), honest).root_node) == \
        shape(parser(tree_sitter_c).parse(honest).root_node)


@pytest.mark.parametrize("name", HOSTILE)
def test_a_parse_past_its_budget_stops_near_it_and_the_parser_is_used_again(name):
    data = HOSTILE[name](12_000).encode()
    used = parser(tree_sitter_c)
    started = time.process_time()
    with pytest.raises(parse_budget.ParseTooSlow) as stopped:
        parse_budget.parse(used, data)
    spent = time.process_time() - started
    assert stopped.value.size == len(data)
    assert parse_budget.budget(len(data)) <= stopped.value.seconds <= spent
    assert spent < parse_budget.budget(len(data)) * 1.5 + 1  # unbounded: minutes
    honest = real_looking_c(200)  # the stopped parse is not resumed in the next one
    assert shape(parse_budget.parse(used, honest).root_node) == \
        shape(parser(tree_sitter_c).parse(honest).root_node)


def test_the_engine_reports_a_file_its_parser_stopped_on_and_checks_the_others(
        tmp_path, monkeypatch):
    monkeypatch.setattr(parse_budget, "budget", lambda size: 0.0)  # stop at the first check
    slow = "#include <infiniband/verbs.h>\n" + "/* a large file */\n" * 4_000 + \
        "void f(struct ibv_pd *pd) { char b[64]; ibv_reg_mr(pd, b, 64, 0); }\n"
    small = "#include <infiniband/verbs.h>\n" \
        "void g(struct ibv_pd *pd) { char b[64]; ibv_reg_mr(pd, b, 64, 0); }\n"
    findings = lint_project(tmp_path, {"slow.c": slow, "small.c": small},
                            ["CUR301", "CUR302", "CUR004"])
    by_file = {(finding.path, finding.code) for finding in findings}
    assert ("slow.c", "CUR004") in by_file
    assert not {code for path, code in by_file if path == "slow.c"} - {"CUR004"}
    assert {code for path, code in by_file if path == "small.c"} & {"CUR301", "CUR302"}
    [notice] = [finding for finding in findings if finding.code == "CUR004"]
    assert notice.message.startswith("not checked: the C/C++ parser stopped after")
    assert len(notice.message) <= 150


@pytest.mark.parametrize("name", HOSTILE)
def test_the_command_line_ends_within_the_budget_with_a_finding(name, tmp_path):
    data = HOSTILE[name](12_000)
    (tmp_path / "hostile.c").write_text(data)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "cursedlint", "check", "--no-cache", "--jobs", "1", "."],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    assert done.returncode == 1, done.stderr
    assert "hostile.c:1:1: CUR004 not checked: the C/C++ parser stopped" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    assert cpu < 2 * parse_budget.budget(len(data)) + 3  # (the index may try the parse too)


@pytest.mark.parametrize("lengths", [
    [4096, 4096, 80], [4097], [80] * 200 + [4097], [2047, 4097, 2048], [6000], [4095, 1, 4096],
    [100] * 100, [2048, 2048, 2048], [0, 0, 4100], [12_000, 3],
])
def test_a_long_line_is_found_as_splitting_the_lines_finds_it(lengths):
    # the lines a file of macro tables or generated code has, up to one past the limit
    lines = [("x" * (length - 1) + ";" if length else "") for length in lengths]
    for data in ("\n".join(lines).encode(), ("\n".join(lines) + "\n").encode()):
        assert parse_budget._long_line(data) == any(
            len(line) > parse_budget.LONG_LINE for line in data.split(b"\n"))
    assert parse_budget._long_line(b"\n".join([b"int x;"] * 5000)) is False


def leaves(node) -> int:
    """The tree's leaves: the tokens tree-sitter made of the text."""
    cursor, count = node.walk(), 0
    while True:
        if cursor.goto_first_child():
            continue
        count += 1
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return count


@pytest.mark.parametrize("text", [
    real_looking_c(300),
    b"static const int table[] = {" + b"1," * 20_000 + b"};\n",
    b"int f(int a) { return " + b"a+" * 20_000 + b"0; }\n",
    b"void f(void) {\n" + b"x=1;\n" * 8_000 + b"}\n",
    b"const char *s = \"" + b"ab, " * 5_000 + b"\"; // a comment -> of words\n",
], ids=["real-looking", "initializer", "sum", "statements", "string-and-comment"])
def test_the_tree_estimate_counts_no_fewer_tokens_than_the_parser_makes(text):
    """`tree_bytes` charges TREE_BYTES_PER_TOKEN (the most measured per token) for each token
    it counts: it must count at least the leaves tree-sitter makes, on the densest text too."""
    counted = parse_budget.tree_bytes(text) // parse_budget.TREE_BYTES_PER_TOKEN
    assert counted >= leaves(parser(tree_sitter_c).parse(text).root_node)
    assert counted <= len(text)


def test_memory_left_reads_the_address_space_limit():
    """Under `ulimit -v`, what is left is at most the limit less what the process maps."""
    program = (
        "import resource\n"
        "from cursedlint.c import parse_budget\n"
        "hard = resource.getrlimit(resource.RLIMIT_AS)[1]\n"
        "resource.setrlimit(resource.RLIMIT_AS, (3 << 30, hard))\n"
        "left, limit = parse_budget.memory_left()\n"
        "print(left, limit)\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    left, limit = done.stdout.split(" ", 1)
    assert 0 < int(left) < 3 << 30
    assert limit.strip() in ("the address-space limit", "the cgroup's memory limit",
                             "the system's available memory")


def test_a_file_whose_tree_would_not_fit_under_the_address_space_limit_is_not_parsed():
    """A 2 MB initializer's tree takes about 300 MB: under a limit leaving 100 MB, the parse
    is refused before tree-sitter starts (its allocator would end the process: a 100 MB file
    under 3 GiB was a segmentation fault), and the parser is used again after it."""
    program = (
        "import resource, tree_sitter_c\n"
        "from tree_sitter import Language, Parser\n"
        "from cursedlint.c import parse_budget\n"
        "used = parse_budget._numbers('/proc/self/status', ('VmSize',))['VmSize']\n"
        "hard = resource.getrlimit(resource.RLIMIT_AS)[1]\n"
        "resource.setrlimit(resource.RLIMIT_AS, (used + (100 << 20), hard))\n"
        "parser = Parser(Language(tree_sitter_c.language()))\n"
        "try:\n"
        "    parse_budget.parse(parser, b'int t[] = {' + b'1,' * 1_000_000 + b'};')\n"
        "except parse_budget.TooLittleMemory as error:\n"
        "    print(error.limit, error.needed > error.left)\n"
        "print(parser.parse(b'int x;').root_node.type)\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["the address-space limit True", "translation_unit"]


RING = """\
#include <stdlib.h>
#include <infiniband/verbs.h>

struct ring { struct ibv_mr *mr; char *slots; };

int ring_register(struct ibv_pd *pd, struct ring *ring)
{
    ring->slots = malloc(64);
    ring->mr = ibv_reg_mr(pd, ring->slots, 64, IBV_ACCESS_LOCAL_WRITE);
    return ring->mr ? 0 : -1;
}
"""


@pytest.mark.parametrize("select, code, status", [([], "CUR004", 1), (["--select", "CUR3"],
                                                                      "CUR000", 2)],
                         ids=["all", "CUR3"])
def test_a_file_too_large_for_the_memory_left_is_reported_and_never_cached(
        tmp_path, monkeypatch, capsys, select, code, status):
    """With a small fake limit, the large file is CUR004 (CUR000 where CUR004 is not selected:
    no rule checked it, never a pass), the small one is checked, and nothing of the large
    one is cached: a run with the memory checks it."""
    from cursedlint.cli import main

    (tmp_path / ".git").mkdir()
    (tmp_path / "large.c").write_text(RING + "/* padding */\n" * 400)
    (tmp_path / "small.c").write_text(RING)
    monkeypatch.chdir(tmp_path)
    with monkeypatch.context() as patched:
        patched.setattr(parse_budget, "MEMORY_CHECKED_BYTES", 4096)
        patched.setattr(parse_budget, "memory_left", lambda: (50_000, "the address-space limit"))
        assert main(["check", "--concise", *select, "large.c", "small.c"]) == status
    out = capsys.readouterr().out
    size = (tmp_path / "large.c").stat().st_size
    assert f"large.c:1:1: {code} not checked: parsing this {size:,} bytes file would take " \
        "about 0.4 MB, more than the 50,000 bytes left (the address-space limit)" in out
    assert "small.c:9:44: CUR301" in out and "large.c:9:44: CUR301" not in out
    assert main(["check", "--concise", *select, "large.c", "small.c"]) == 1
    out = capsys.readouterr().out
    assert "large.c:9:44: CUR301" in out and "not checked" not in out
