"""Constant evaluation of Python expressions (`PythonContext.evaluate`): literals, containers,
module constants and single local assignments are known; anything that can vary is UNKNOWN.

Each snippet passes the expressions under test to `probe(...)`; `values` returns what the
evaluator says for each argument, in source order.
"""

from __future__ import annotations

import ast
import time

import pytest

from cursedlint.python.consteval import UNKNOWN, is_known
from cursedlint.python.context import PythonContext
from cursedlint.settings import Settings
from cursedlint.source import Source


def context_of(text: str) -> PythonContext:
    return PythonContext(Source.from_text("m.py", text, "python"), Settings(enabled=frozenset()),
                         ast.parse(text))


def values(text: str) -> list:
    context = context_of(text)
    calls = sorted(
        (node for node in ast.walk(context.tree) if isinstance(node, ast.Call)
         and isinstance(node.func, ast.Name) and node.func.id == "probe"),
        key=lambda node: (node.lineno, node.col_offset),
    )
    return [context.evaluate(argument) for call in calls for argument in call.args]


def value(text: str):
    (only,) = values(text)
    return only


# -- literals and containers --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("42", 42),
        ("0x1F", 31),
        ("1_000", 1000),
        ("2.5", 2.5),
        ("3j", 3j),
        ("'text'", "text"),
        ("b'raw'", b"raw"),
        ("'implicit' ' concatenation'", "implicit concatenation"),
        ("None", None),
        ("True", True),
        ("False", False),
        ("...", ...),
        ("f'plain'", "plain"),
        ("f'{1}'", UNKNOWN),  # fields are not formatted
        ("f'-n{count}'", UNKNOWN),
        ("f'{\"nested\"}'", UNKNOWN),
    ],
)
def test_literals(expression, expected):
    assert value(f"probe({expression})") == expected


def test_containers_keep_their_shape():
    text = "probe([1, 'a'], (1, (2, 3)), {1, 2}, {'k': [1]}, [], (), {})"
    assert values(text) == [[1, "a"], (1, (2, 3)), {1, 2}, {"k": [1]}, [], (), {}]


def test_containers_with_unknown_elements():
    text = """
def check(program, key):
    probe([program, "-v"], (program,), {"flag": program}, {program}, {key: 1}, [*program],
          {**key}, [[program]])
"""
    listed, single, mapping, unknown_set, unknown_key, starred, spread, nested = values(text)
    assert listed == [UNKNOWN, "-v"] and len(listed) == 2
    assert single == (UNKNOWN,)
    assert mapping == {"flag": UNKNOWN}
    assert (unknown_set, unknown_key, starred, spread) == (UNKNOWN,) * 4
    assert nested == [[UNKNOWN]]
    assert not is_known(listed) and not is_known(nested) and not is_known(mapping)
    assert is_known(["a", ("b", {"c": 1})])


# -- names ----------------------------------------------------------------------------------------


def test_module_constants():
    text = """
PROGRAM = "rsync"
FLAGS = ["-a", "--delete"]
ARGV = [PROGRAM, *FLAGS]
COMMAND = [PROGRAM] + FLAGS
TIMEOUT: int = 30
PLAIN: int
PAGES = 2 ** 4
probe(PROGRAM, FLAGS, COMMAND, TIMEOUT, PAGES, ARGV, PLAIN, UNDEFINED)
"""
    assert values(text) == ["rsync", ["-a", "--delete"], ["rsync", "-a", "--delete"], 30, 16,
                            UNKNOWN, UNKNOWN, UNKNOWN]


def test_module_constants_seen_from_functions():
    text = """
import subprocess
GIT = "git"
def status(repo):
    args = [GIT, "-C", repo, "status"]
    return probe(GIT, args, len)
"""
    git, args, builtin = values(text)
    assert git == "git"
    assert args == ["git", "-C", UNKNOWN, "status"]
    assert builtin is UNKNOWN


def test_function_local_single_assignment():
    text = """
NAME = "module"
def check():
    NAME = "local"
    program = "ls"
    options = ["-l", program]
    probe(NAME, program, options)
def other():
    probe(NAME, program)
"""
    assert values(text) == ["local", "ls", ["-l", "ls"], "module", UNKNOWN]


def test_nested_functions_see_enclosing_assignments():
    text = """
def outer():
    program = "make"
    def inner(target):
        return probe(program, target)
    run = lambda flag: probe(program, flag)
"""
    assert values(text) == ["make", UNKNOWN, "make", UNKNOWN]


@pytest.mark.parametrize(
    "binding",
    [
        "x = 1\n    x = 2",
        "x = 1\n    x += 1",
        "x: int = 1\n    x = 2",
        "for x in range(3):\n        pass",
        "async for x in source():\n        pass",
        "x = 1\n    for _ in range(3):\n        x = x + 1",
        "with open('f') as x:\n        pass",
        "if (x := 4):\n        pass",
        "try:\n        pass\n    except OSError as x:\n        pass",
        "import os as x",
        "from os import sep as x",
        "def x():\n        pass",
        "class x:\n        pass",
        "x = 1\n    del x",
        "a, x = 1, 2",
        "x = y = 1",
        "[*x] = [1]",
        "global x\n    x = 1",
        "match 1:\n        case x:\n            pass",
        "match 1:\n        case [1, {'k': Point(y=[*_, x])}]:\n            pass",
        "if param:\n        while param:\n            try:\n                pass\n"
        "            finally:\n                x = 1\n    else:\n        x = 2",
    ],
)
def test_names_bound_in_other_ways_are_unknown(binding):
    text = f"async def check(param):\n    {binding}\n    probe(x)\n"
    assert value(text) is UNKNOWN


def test_assignment_inside_a_loop_body_is_one_assignment():
    text = """
def check(items):
    for item in items:
        flag = "-v"
        probe(flag, item)
"""
    assert values(text) == ["-v", UNKNOWN]


@pytest.mark.parametrize("signature", ["x", "x=1", "*x", "**x", "x, /", "*, x"])
def test_parameters_are_unknown(signature):
    assert value(f"x = 1\ndef check({signature}):\n    probe(x)\n") is UNKNOWN
    assert value(f"x = 1\ncheck = lambda {signature}: probe(x)\n") is UNKNOWN
    assert value(f"x = 1\ndef check({signature.replace('x', 'x: int')}):\n    probe(x)\n") \
        is UNKNOWN


def test_global_rebinding():
    text = """
MODE = "fast"
LIMIT = 10
def configure():
    global MODE
    MODE = "slow"
def reader():
    global LIMIT
    return probe(MODE, LIMIT)
probe(MODE, LIMIT)
"""
    # any function that declares a name global may rebind it
    assert values(text) == [UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN]


def test_comprehension_variables_do_not_leak():
    text = """
x = 1
squares = [x * x for x in range(3)]
probe(x)
"""
    assert value(text) == 1


def test_walrus_in_comprehension_binds_the_enclosing_scope():
    text = """
x = 1
found = [(x := item) for item in range(3)]
probe(x)
"""
    assert value(text) is UNKNOWN


def test_mutation_through_subscript_or_attribute_assignment():
    text = """
argv = ["ls", "-l"]
argv[0] = "rm"
config = {"shell": False}
config["shell"] = True
probe(argv, config)
"""
    assert values(text) == [UNKNOWN, UNKNOWN]


def test_cycles_and_self_reference():
    text = """
a = b
b = a
counter = counter + 1
probe(a, b, counter)
"""
    assert values(text) == [UNKNOWN, UNKNOWN, UNKNOWN]


def test_class_body_assignments():
    text = """
TIMEOUT = 5
class Job:
    TIMEOUT = 10
    argv = probe(TIMEOUT)
"""
    assert value(text) == 10


def test_nonlocal_rebinding():
    text = """
def outer():
    count = 0
    def bump():
        nonlocal count
        count += 1
    bump()
    return probe(count)
"""
    assert value(text) is UNKNOWN


def test_nonlocal_rebinding_two_functions_down():
    text = """
def outer():
    count = 0
    def middle():
        class Counter:
            def bump(self):
                nonlocal count
                count += 1
        return Counter
    middle()
    return probe(count)
"""
    assert value(text) is UNKNOWN


def test_nonlocal_in_another_function_leaves_a_name_known():
    text = """
def first():
    count = 0
    def bump():
        nonlocal count
        count += 1
def second():
    count = 3
    return probe(count)
"""
    assert value(text) == 3


def test_container_mutated_by_a_method():
    text = """
argv = ["git"]
argv.append("status")
probe(argv)
"""
    assert value(text) is UNKNOWN


# -- arithmetic -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("1 + 2 * 3", 7),
        ("7 // 2", 3),
        ("-7 // 2", -4),  # Python floors, unlike C
        ("7 % -2", -1),
        ("7 / 2", 3.5),
        ("2 ** 10", 1024),
        ("1 << 12", 4096),
        ("4096 >> 3", 512),
        ("0xF0 | 0x0F", 0xFF),
        ("0xF0 & 0x3C", 0x30),
        ("0xFF ^ 0x0F", 0xF0),
        ("-5", -5),
        ("+5", 5),
        ("~0", -1),
        ("not 0", True),
        ("'ab' + 'cd'", "abcd"),
        ("'ab' * 3", "ababab"),
        ("3 * 'ab'", "ababab"),
        ("b'x' * 2", b"xx"),
        ("[0] * 3", [0, 0, 0]),
        ("(1,) + (2,)", (1, 2)),
        ("'%s-%d' % ('a', 3)", "a-3"),
        ("1 / 0", UNKNOWN),
        ("1 % 0", UNKNOWN),
        ("'a' + 1", UNKNOWN),
        ("-'a'", UNKNOWN),
        ("1 << -1", UNKNOWN),
        ("1 < 2", True),  # comparisons and boolean operators as Python works them out
        ("1 < 2 < 2", False),
        ("'a' == 'a' != 'b'", True),
        ("None is None", True),
        ("1 is not None", True),
        ("1 is 1", UNKNOWN),  # identity of equal numbers: CPython's choice
        ("'a' < 1", UNKNOWN),
        ("[1] == [1]", UNKNOWN),
        ("1 and 2", 2),
        ("0 and undefined", 0),
        ("None or 'x'", "x"),
        ("1 or undefined", 1),
        ("undefined or 1", UNKNOWN),
        ("1 in (1, 2)", UNKNOWN),  # calls, membership, subscripts and if-expressions are not
        ("len('abc')", UNKNOWN),
        ("'abc'[0]", UNKNOWN),
        ("1 if True else 2", UNKNOWN),
    ],
)
def test_arithmetic(expression, expected):
    assert value(f"probe({expression})") == expected


def test_arithmetic_on_names():
    text = """
KIB = 1024
PAGE = 4 * KIB
def check(extra):
    pages = PAGE * 2
    probe(pages, pages + extra, "-j" + str(pages))
"""
    assert values(text) == [8192, UNKNOWN, UNKNOWN]


@pytest.mark.parametrize(
    "expression",
    [
        '"x" * 10**9',
        '10**9 * "x"',
        'b"x" * 10**9',
        "[0] * 10**9",
        "(0,) * 10**9",
        "2 ** 10**9",
        "10 ** 10**9",
        "2.0 ** 10**9",
        "1 << 10**9",
        "2 ** -(10**9)",
    ],
)
def test_size_guards(expression):
    started = time.perf_counter()
    assert value(f"probe({expression})") is UNKNOWN
    assert time.perf_counter() - started < 1


@pytest.mark.parametrize("expression", ['"x" * 65536 * 2', "(2 ** 65536) ** 2"])
def test_size_guards_bound_results(expression):
    assert value(f"probe({expression})") is UNKNOWN


def test_direct_results_over_the_bound_are_unknown():
    assert values("probe('x' * 131072, 2 ** 131072)") == [UNKNOWN, UNKNOWN]


def test_size_guard_on_formatting():
    assert value("probe('%0200000d' % 0)") is UNKNOWN


def test_deep_expressions_are_unknown():
    text = "probe(" + "1 + " * 400 + "1)"
    started = time.perf_counter()
    assert value(text) is UNKNOWN
    assert time.perf_counter() - started < 1


def test_long_chains_of_names():
    chain = "\n".join(f"n{i} = n{i - 1}" for i in range(1, 200))
    assert values(f"n0 = 7\n{chain}\nprobe(n3, n199)\n") == [7, UNKNOWN]


@pytest.mark.parametrize(
    "mutation",
    ["env['A'] = '2'", "env['A'] += 'x'", "del env['A']", "env.update(A='2')"],
)
def test_a_container_changed_in_place_is_unknown(mutation):
    text = f"env = {{'A': '1'}}\n{mutation}\nprobe(env)\n"
    assert values(text) == [UNKNOWN]


def test_item_assignment_does_not_rebind_the_key_or_the_container_name():
    text = "import os\nKEY = 'A'\nos.environ[KEY] = '1'\nprobe(KEY)\n"
    assert values(text) == ["A"]
