"""The parse-free scan behind CUR101's second prefilter look: it may say yes where no call of
the named functions has that many positional arguments or that keyword, never no where one has."""

from __future__ import annotations

import pytest

from cursedlint.python.scan import has_call_with_arguments

SEVEN = "P(cmd, -1, None, None, None, None, os.setsid)"


CALLEES = frozenset({b"P", b"Popen", b"run"})
MODULES = frozenset({b"subprocess"})


def scan(code: str | bytes) -> bool:
    data = code if isinstance(code, bytes) else code.encode()
    return has_call_with_arguments(data, CALLEES, modules=MODULES, positional=7)


@pytest.mark.parametrize("code", [
    SEVEN,
    "x = " + SEVEN,
    "P(\n    cmd,\n    -1, None, None,  # the streams\n    None, None,\n    os.setsid,\n)",
    "P(f(a, b), [1, 2], {'k': (3, 4)}, 'x,(y', None, None, os.setsid, close_fds=True)",
    "P(cmd, -1, None, None, None, None, lambda n=1: os.nice(n))",
    "P(cmd, -1, None, None, lambda x=0: x, None, os.setsid)",
    "P(a == b, c <= d, e != f, (g := 1), None, None, os.setsid)",
    "P(cmd, -1, None, None, None, None, \\\n  fn)",
    "s = '''a ( b'''\nP(cmd, -1, None, None, None, None, fn)",
    "P  (cmd, -1, None, None, None, None, fn)",
    "print((P(cmd, -1, None, None, None, None, fn)))",
    'print(f"{P(cmd, -1, None, None, None, None, fn)!r:>{width}}")',
    "x = f'{{literal}} {f\"{P(cmd, -1, None, None, None, None, fn)}\"}'",
])
def test_calls_with_seven_positional_arguments_are_found(code):
    assert scan(code)


@pytest.mark.parametrize("code", [
    "P(cmd, -1, None, None, None, None)",
    "P(cmd, stdin=a, stdout=b, stderr=c, cwd=d, env=e, shell=True, close_fds=False)",
    "x = (1, 2, 3, 4, 5, 6, 7)",
    "def f(a, b, c, d, e, f, g):\n    pass",
    "class C(A, B, C, D, E, F, G):\n    pass",
    "for x in (1, 2, 3, 4, 5, 6, 7):\n    pass",
    "P('a, b, c, d, e, f, g')",
    "P(a)  # (1, 2, 3, 4, 5, 6, 7) in a comment",
    'f"{{(1, 2, 3, 4, 5, 6, 7)}} {x}"',
    "P([1, 2], {3: 4}, (5, 6))",
])
def test_other_code_is_not_reported(code):
    assert not scan(code)


@pytest.mark.parametrize("code", [
    'P(f"{d["("]}", a)\n',  # Python 3.12 nests quotes in f-strings
    "P(cmd, 'unterminated\n",
    "P(cmd, -1\n",  # unbalanced
    "P(x, (y, [z)\n",
])
def test_text_it_cannot_read_counts_as_a_hit(code):
    assert scan(code)


@pytest.mark.parametrize("code, found", [
    ("subprocess.Popen(a, b, c, d, e, f, g)", True),
    ("import subprocess as sp\nsp . run (a, b, c, d, e, f, g)", True),
    ("from asyncio import subprocess\nsubprocess.\\\n    run(a, b, c, d, e, f, g)", True),
    ("import subprocess as sp\nｓｐ.run(a, b, c, d, e, f, g)", True),  # NFKC: sp
    ("import subprocess as ｓｐ\nsp.run(a, b, c, d, e, f, g)", True),
    ("Ｐｏｐｅｎ(a, b, c, d, e, f, g)", True),
    ("ｓｐ.run(a, b, c, d, e, f, g)", False),
    ("# to run (a, b, c, d, e, f, g)", False),
    ("x = '#'; run(a, b, c, d, e, f, g)", True),
    ("self.run(a, b, c, d, e, f, g)", False),
    ("tcl.call(0, 0, 0, 0, 0, 0, 0)\nrun(a)", False),
    ("get_module().run(a, b, c, d, e, f, g)", False),
    ("modules[0].run(a, b, c, d, e, f, g)", False),
    ("import os as subprocess_like\nsubprocess_like.run(a, b, c, d, e, f, g)", False),
    ("from subprocess import Popen as launch\nlaunch(a, b, c, d, e, f, g)", True),
    ("Pöpen(a, b, c, d, e, f, g)", False),
    ("x = (subprocess.run)(a, b, c, d, e, f, g)", True),
    ("def f():\n    return (subprocess).run(a, b, c, d, e, f, g)", True),
    ("x = ((subprocess)).run(a, b, c, d, e, f, g)", True),  # nested parentheses: unsure
    ("import os\n(subprocess).run(a, b, c, d, e, f, g)", True),
    ("wrap(subprocess).run(a, b, c, d, e, f, g)", False),
    ("struct.pack(a, b, c, d, e, f, g)", False),
    ("factory()(a, b, c, d, e, f, g)", False),
    ("table[0](a, b, c, d, e, f, g)", False),
    ("'Popen'(a, b, c, d, e, f, g)", False),
    # prose beside a call: a dash, an ellipsis, accented letters hold no name NFKC reads as one
    ("# a child — so the café’s pool… waits\nrun(a)\nsubprocess.run(a, b, c, d, e, f, g)", True),
    ("# a child — so the café’s pool… waits\nrun(a)\nprocess.run(a, b, c, d, e, f, g)", False),
    ("# a child — café …\nＰｏｐｅｎ(a, b, c, d, e, f, g)", True),
    ("Popeń(a, b, c, d, e, f, g)", False),
])
def test_callees_restrict_the_calls_that_count(code, found):
    assert scan(code) is found


def test_names_in_another_encoding_count_as_a_hit():
    code = "# -*- coding: latin-1 -*-\nimport subprocess as spª\nspa.run(a, b, c, d, e, f, g)\n"
    assert scan(code.encode("latin-1"))


def test_calls_nested_beyond_reason_count_as_a_hit():
    code = ("run(" * 2000 + ")" * 2000).encode()
    assert has_call_with_arguments(code, CALLEES, positional=7)


@pytest.mark.parametrize("code, found", [
    ('P(["sh", "-c", "echo )"], -1, None, None, None, None, f)', True),
    ("P(cmd, -1, None, None, None, None)  # , f, g, h", False),
    ("P(cmd, r'\\\\', b')', f'{x}(', None, None)", False),
    ("P(cmd, '''a, b,\n c, d''', None)", False),
])
def test_strings_and_comments_in_the_arguments_are_skipped(code, found):
    assert scan(code) is found


USER = frozenset({b"user", b"preexec_fn"})


@pytest.mark.parametrize("code", [
    "run(cmd, user=1000)",
    "import subprocess as sp\nsp.run(cmd,\n    check=True,\n    user =  # the account\n        1000)",
    "P(cmd, f(a=1), [x for x in y], preexec_fn=os.setsid)",
    "P(cmd, key=lambda a=1, b=2: a, user=0)",
    "from subprocess import run as go\ngo(cmd, user='nobody')",
    "print(P(cmd, **opts, preexec_fn=f))",
    "import subprocess\nx = (subprocess  # the module\n     .run(cmd, user=1))",
    "run(cmd, check=True,  # the account:\n    user=0)",
])
def test_keyword_arguments_of_the_named_calls_are_found(code):
    assert has_call_with_arguments(code.encode(), CALLEES, modules=MODULES, keywords=USER)


@pytest.mark.parametrize("code", [
    "shutil.chown(path, user=uid, group=gid)",
    "user = pwd.getpwuid(os.getuid())[0]",
    "self.user = user\nrun(cmd)",
    "run(cmd, env=dict(user=1))",
    "run(cmd, superuser=1, user_name=2)",
    "run(cmd, check=user == 0)",
    "posix_spawn(path, args, env, setpgroup=0)",
    "run(cmd)  # user=1000",
    "run(cmd, input='user=1000')",
    "self.run(cmd, user=1000)",
    "run(cmd,  # user=1\n    check=True)",
    "run(cmd, env={'user': 1}, input='user=0')",
])
def test_other_keywords_and_assignments_are_not_found(code):
    assert not has_call_with_arguments(
        code.encode(), CALLEES, modules=MODULES, keywords=USER
    )


@pytest.mark.parametrize("token, fields", [
    (b'f"environ({{{items}}})"', [b"items"]),
    (b'f"{{x}}"', []),
    (b'f"{a:{w}}"', [b"a:{w}"]),
    (b'f"}"', None),
    (b'f"{d["', None),  # Python 3.12 nested quotes: the token ends inside a field
])
def test_replacement_fields_follow_pythons_brace_rules(token, fields):
    from cursedlint.python.scan import _replacement_fields

    assert _replacement_fields(token[1:]) == fields


@pytest.mark.parametrize("code, found", [
    ("options = {'preexec_fn': os.setsid}\nsubprocess.run(cmd, **options)\n", True),
    ("options = dict(cwd='/', user=3)\nsubprocess.run(cmd, **options)\n", True),
    ("options = {}\nsubprocess.run(cmd, **options)\n", False),  # holds no forcing keyword
    ("def launch(cmd, **options):\n    subprocess.run(cmd, **options)\n", False),  # a parameter
    ("subprocess.run(cmd, **self.options)\n", False),  # an attribute: unknown to the rule
    ("subprocess.run(**dict(preexec_fn=hook))\n", True),
    ("subprocess.run(**{'preexec_fn': hook})\n", True),
    ("subprocess.run(**{'cwd': '/'})\n", False),
    ("subprocess.run(**{'preexec_fn'\n", True),  # does not close: unsure
    ("args = (a, b, c, d, e, f, g)\nsubprocess.run(*args)\n", True),
    ("args = (d, e, f, g)\nsubprocess.run(a, b, c, *args)\n", True),
    ("args = [a]\nsubprocess.run(*args)\n", False),  # too few for the 7th
    ("subprocess.run(a, *(b, c, d, e, f, g))\n", True),
])
def test_spreads_the_rules_can_read_are_calls_to_parse(code, found):
    """A `*`/`**` spread the argument binding can read (a display or dict(...), written at
    the call or assigned to the name spread) passes when it may hold what the look asks for."""
    data = code.encode()
    assert has_call_with_arguments(
        data, CALLEES, modules=MODULES, positional=7,
        keywords=frozenset({b"preexec_fn", b"user"}),
    ) is found


@pytest.mark.parametrize("code, found", [
    ("import multiprocessing as mp\nmp.set_start_method('spawn')\n", True),
    ("# set_start_method is left to the caller\nimport multiprocessing\n", True),  # any text
    ("import multiprocessing as mp\nmp.set_executable(path)\n", False),
    ("# Start method: spawn — see the launcher\nimport multiprocessing\n", False),  # prose
    ("import multiprocessing as mp\nmp.\uff53et_start_method('spawn')\n", True),  # NFKC
    ("import multiprocessing as mp\nmp.s\u00e9t_start_method('spawn')\n", False),  # keeps é
])
def test_may_name_answers_false_only_where_no_name_of_the_code_can_be_one(code, found):
    from cursedlint.python.scan import may_name

    assert may_name(code.encode(), frozenset({b"set_start_method"})) is found
    assert may_name(code.encode("utf-16"), frozenset({b"set_start_method"}))  # unsure
