"""C/C++ rules on generated inputs much wider, longer or deeper than people write (initializers
of many elements, one function of thousands of statements, nesting thousands deep, thousands of
functions): the findings stay right, no rule fails, and the rules' cost grows about linearly
with the input and stays near tree-sitter's own parse of it. Each input is linted at two sizes,
n and 4n: a linear cost grows about 4 times, a quadratic one 16 times (process CPU time, with
generous bounds)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from cursedlint.c.context import parse
from cursedlint.languages import language_of
from cursedlint.registry import all_rules

from harness import make_linter

UNCAPPED = 1 << 30  # these inputs are larger than max-file-size on purpose
LINTER = make_linter(all_rules(), settings={"max-file-size": UNCAPPED})  # made once: not timed
GROWTH_BOUND = 9  # lint time at 4n over lint time at n: 4 when linear, 16 when quadratic
PARSE_BOUND = 15  # lint time over tree-sitter's parse time, at 4n

REGISTERING = "void reg(struct ibv_pd *pd) { char b[8]; ibv_reg_mr(pd, b, 4, 0); }\n"
READING = ("long peek(pid_t pid, struct iovec *local, struct iovec *remote) {\n"
           "  ssize_t n = process_vm_readv(pid, local, 1, remote, 1, 0);\n")


def wide_initializer(n: int) -> str:
    """The reproducer of issue 14: one registration and an initializer of n elements."""
    return "void f(){ ibv_reg_mr(pd, buf, 4, 0); }\nint x[] = {" + "1," * n + "};\n"


def long_function(n: int) -> str:
    """One line: a function of n statements `n = n + 1;` and then the registration of a stack
    array whose length is the chain's end (too long a chain to evaluate: unknown)."""
    return ("void g(struct ibv_pd *pd) { char b[8]; int n = 0; " + "n = n + 1; " * n
            + "ibv_reg_mr(pd, b, n, 0); }\n")


def many_functions(n: int) -> str:
    """n functions, each registering 4 bytes of a stack array."""
    return "".join(f"void reg{k}(struct ibv_pd *pd) {{ char b[8]; ibv_reg_mr(pd, b, 4, 0); }}\n"
                   for k in range(n))


def same_local_in_each_function(n: int) -> str:
    """n functions, each registering `sizeof` a stack array of the same name: each use is
    looked up among n declarations of that name."""
    return "".join(f"void reg{k}(struct ibv_pd *pd) {{ char local[64]; "
                   f"ibv_reg_mr(pd, local, sizeof(local), 0); }}\n" for k in range(n))


def member_buffer_in_each_function(n: int) -> str:
    """n functions, each registering `sizeof` a struct's array member: each registration asks
    whether every field of that name in the file is an array (read once per file, not once per
    registration: 4,000 such functions took 241 s)."""
    return ("struct conn { char buf[64]; int len; };\n"
            + "".join(f"void reg{k}(struct ibv_pd *pd, struct conn *c) {{ "
                      f"ibv_reg_mr(pd, c->buf, sizeof(c->buf), 0); }}\n" for k in range(n)))


def deep_parentheses(n: int) -> str:
    """A registration inside n pairs of parentheses."""
    return ("void f(struct ibv_pd *pd) { char b[8]; " + "(" * n + "ibv_reg_mr(pd, b, 4, 0)"
            + ")" * n + "; }\n")


def deep_blocks_capture(n: int) -> str:
    """A synchronizing call in a capture region inside n nested blocks."""
    return ("void f(cudaStream_t s, cudaGraph_t *g) { " + "{" * n
            + "cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal); "
            + "cudaDeviceSynchronize(); cudaStreamEndCapture(s, g);" + "}" * n + " }\n")


def long_condition(n: int) -> str:
    """A check of a CMA result of n terms `n < 0 || n < 0 || ...` (a chain n levels deep,
    deeper than a check is followed: silent), then an assert."""
    return (READING + "  if (n < 0" + " || n < 0" * n + ") { log_failure(); }\n"
            "  assert(n > 0);\n  return n;\n}\n")


def nested_namespaces(n: int) -> str:
    """A cloning function inside n nested namespaces that copies a node pointer verbatim."""
    return ("namespace ir {" * n + "struct Node { Node *next; };\n"
            "struct Cloner { Node *clone(Node *n); };\n"
            "void copy(Node *dst, const Node *src, Cloner &c) { dst->next = src->next; }\n"
            + "}" * n + "\n")


def long_macro(n: int) -> str:
    """A registered length defined by a macro continued over n lines (`1 + 1 + ...`): longer
    than an evaluation may follow, so it is not parsed at all."""
    return ("#define LEN 1" + " + 1 \\\n" * n + "\n"
            "void f(struct ibv_pd *pd) { char b[8]; ibv_reg_mr(pd, b, LEN, 0); }\n")


def huge_string(n: int) -> str:
    """A string literal of n characters beside a registration."""
    return REGISTERING + 'const char *text = "' + "a" * n + '";\n'


def lint(path: str, text: str) -> tuple[list[tuple[int, str]], float]:
    """(line, code) of the findings, and the CPU seconds the lint took."""
    data = text.encode()
    start = time.process_time()
    result = LINTER.lint_bytes(path, data, language_of(path))
    spent = time.process_time() - start
    return sorted((finding.line, finding.code) for finding in result.findings), spent


def parse_cost(path: str, text: str) -> float:
    data = text.encode()
    start = time.process_time()
    parse(data, language_of(path))
    return time.process_time() - start


@pytest.mark.parametrize("shape, n, path, expected", [
    (wide_initializer, 40_000, "wide.cpp", lambda n: [(1, "CUR301")]),
    (long_function, 6_000, "long.c", lambda n: [(1, "CUR302")]),
    (many_functions, 1_500, "many.cpp", lambda n: [(k + 1, "CUR301") for k in range(n)]),
    (same_local_in_each_function, 1_000, "same.c", lambda n: [(k + 1, "CUR301") for k in range(n)]),
    (member_buffer_in_each_function, 1_000, "member.c",
     lambda n: [(k + 2, "CUR301") for k in range(n)]),
    (deep_parentheses, 2_000, "parens.cpp", lambda n: [(1, "CUR301")]),
    (deep_blocks_capture, 1_500, "capture.cpp", lambda n: [(1, "CUR402")]),
    (long_condition, 1_500, "check.c", lambda n: []),
    (nested_namespaces, 1_500, "clone.cpp", lambda n: [(3, "CUR501")]),
    (long_macro, 50_000, "macro.c", lambda n: [(n + 2, "CUR302")]),
    (huge_string, 1_000_000, "text.c", lambda n: [(1, "CUR301")]),
])
def test_findings_stay_right_and_cost_grows_linearly(shape, n, path, expected):
    lint(path, shape(n // 4))  # warm: modules, parsers, compiled queries
    found, small = lint(path, shape(n))
    assert found == expected(n)
    text = shape(4 * n)
    found, large = lint(path, text)
    assert found == expected(4 * n)
    parse = parse_cost(path, text)
    if large >= GROWTH_BOUND * max(small, 0.01) or large >= PARSE_BOUND * parse + 0.2:
        small = min(small, *(lint(path, shape(n))[1] for _ in range(2)))  # a busy machine:
        large = min(large, *(lint(path, text)[1] for _ in range(2)))  # the fastest of three
        parse = min(parse, *(parse_cost(path, text) for _ in range(2)))
    assert large < GROWTH_BOUND * max(small, 0.01), (small, large)
    assert large < PARSE_BOUND * parse + 0.2, large


def test_the_failure_path_is_followed_through_nesting_and_left_deeper():
    """Blocks inside the failure branch: followed to the assert when a few deep; deeper than
    the rule follows (thousands), silent, never a failure of the rule."""
    def nested(depth: int) -> str:
        return (READING + "  if (n < 0) { " + "{" * depth + "log_failure();" + "}" * depth
                + " }\n  assert(n > 0);\n  return n;\n}\n")

    assert lint("peek.c", nested(20))[0] == [(4, "CUR601")]
    assert lint("peek.c", nested(5_000))[0] == []


def test_nested_records_and_long_sums_are_unknown_not_a_failure():
    """sizeof of a struct nested thousands deep, a length summed from thousands of terms, an
    iovec initializer thousands of braces deep: evaluation gives up (unknown), silently."""
    depth = 3_000
    nested = "struct s0 { " + "".join(f"struct s{k} {{ " for k in range(1, depth)) + "int x; " \
        + "} m; " * (depth - 1) + "};\n"
    text = (nested + "void f(struct ibv_pd *pd, void *buf) {\n"
            "  ibv_reg_mr(pd, buf, sizeof(struct s0), 0);\n"
            "  ibv_reg_mr(pd, buf, 1" + " + 1" * depth + ", 0);\n"
            "}\n")
    iovecs = ("void g(struct fid_domain *d, struct fid_mr **mr) {\n"
              "  struct iovec iov[1] = " + "{" * depth + "0" + "}" * depth + ";\n"
              "  fi_mr_regv(d, iov, 1, 0, 0, 0, mr, 0);\n}\n")
    assert lint("nested.c", text)[0] == []
    assert lint("iovec.c", iovecs)[0] == []


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads VmHWM from /proc")
def test_peak_memory_stays_near_the_parse(tmp_path):
    """The rules add to tree-sitter's tree no more than half its size (plus a few MB): no list
    of every node, no capture of the whole file. (The peak is the process's own VmHWM: the
    peak getrusage reports includes the parent's at the fork.)"""
    text = ("void f(cudaStream_t s, cudaGraph_t *g) { "
            "cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal); cudaDeviceSynchronize(); "
            "cudaStreamEndCapture(s, g); int x[] = {" + "1," * 200_000 + "}; }\n"
            + REGISTERING + READING + "  assert(n > 0);\n  return n;\n}\n")
    probe = (
        "import gc, json, re, sys\n"
        "from cursedlint.c.context import parse\n"
        "from cursedlint.registry import all_rules\n"
        f"sys.path.insert(0, {os.path.dirname(__file__)!r})\n"
        "from harness import make_linter\n"
        "peak = lambda: int(re.search(r'VmHWM:\\s*(\\d+)', open('/proc/self/status').read())[1])\n"
        "data = open(sys.argv[1], 'rb').read()\n"
        f"linter = make_linter(all_rules(), settings={{'max-file-size': {UNCAPPED}}})\n"
        "linter.lint_bytes('small.cpp', b'void f(){ ibv_reg_mr(pd, b, 4, 0); }', 'cpp')\n"
        "base = peak()\n"
        "tree = parse(data, 'cpp'); parsed = peak(); del tree; gc.collect()\n"
        "codes = [f.code for f in linter.lint_bytes('big.cpp', data, 'cpp').findings]\n"
        "print(json.dumps([base, parsed, peak(), codes]))\n"
    )
    source = tmp_path / "wide.cpp"
    source.write_text(text)
    result = subprocess.run([sys.executable, "-c", probe, str(source)], capture_output=True,
                            text=True, check=True)
    base, parsed, linted, codes = json.loads(result.stdout)  # kilobytes
    assert sorted(codes) == ["CUR301", "CUR402", "CUR601"]
    assert linted - base <= 1.5 * (parsed - base) + 10 * 1024, (base, parsed, linted)
