"""Platform branches (`cursedlint.analysis.platform`): which conditions and test skips rule code
out on Linux or macOS, and CUR101 staying silent on calls the target never makes."""

from __future__ import annotations

import ast
import textwrap

import pytest

from cursedlint.analysis.platform import excluding_guard
from cursedlint.analysis.subprocess_spawn import GLIBC, MACOS
from cursedlint.findings import Finding
from cursedlint.python.context import PythonContext
from cursedlint.rules.process_spawning import SubprocessForkPath
from cursedlint.settings import Settings
from cursedlint.source import Source

from harness import check_snippet

HEADER = "import os\nimport platform\nimport sys\n"


def guard(text: str, system: str = "linux", header: str = HEADER) -> str | None:
    """The condition that rules out the one call of `target()` in `text` (after `header`) on
    `system`, as source, or None when the call may run there."""
    text = header + textwrap.dedent(text)
    tree = ast.parse(text)
    context = PythonContext(Source.from_text("m.py", text, "python"),
                            Settings(enabled=frozenset()), tree)
    [call] = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
              and isinstance(node.func, ast.Name) and node.func.id == "target"]
    found = excluding_guard(call, system, context)
    return None if found is None else ast.unparse(found)


# -- the conditions ------------------------------------------------------------------------

RUNS, DEAD = "runs", "dead"


@pytest.mark.parametrize("condition, linux, darwin", [
    ('sys.platform == "win32"', DEAD, DEAD),
    ('sys.platform != "win32"', RUNS, RUNS),
    ('sys.platform in ("win32", "cygwin")', DEAD, DEAD),
    ('sys.platform not in ("win32", "cygwin")', RUNS, RUNS),
    ('sys.platform.startswith("win")', DEAD, DEAD),
    ('sys.platform.startswith(("freebsd", "openbsd"))', DEAD, DEAD),
    ('sys.platform.startswith("linux")', RUNS, DEAD),
    ('sys.platform == "linux2"', DEAD, DEAD),  # Python 2's name; 3.3+ says "linux"
    ('sys.platform == "darwin"', DEAD, RUNS),
    ('sys.platform[:3] == "win"', DEAD, DEAD),
    ('"win" in sys.platform', DEAD, RUNS),  # "darwin" holds "win"
    ('os.name == "nt"', DEAD, DEAD),
    ('os.name == "posix"', RUNS, RUNS),  # on Cygwin too, which is no Windows for os.name
    ('platform.system() == "Windows"', DEAD, DEAD),
    ('platform.system() == "Linux"', RUNS, DEAD),
    ('platform.system() == "Darwin"', DEAD, RUNS),
    ('platform.system().lower() == "windows"', DEAD, DEAD),
    ('not sys.platform.startswith("linux")', DEAD, RUNS),
    ('sys.platform == "win32" and use_console()', DEAD, DEAD),
    ('sys.platform == "darwin" or os.name == "nt"', DEAD, RUNS),
    # a POSIX function every Linux and macOS build of `os` has
    ('not hasattr(os, "fork")', DEAD, DEAD),
    ('not hasattr(os, "setreuid")', DEAD, DEAD),
    ('hasattr(os, "setgroups")', RUNS, RUNS),
])
def test_conditions_on_each_system(condition, linux, darwin):
    code = f"if {condition}:\n    target()\n"
    written = ast.unparse(ast.parse(condition))
    for system, expected in (("linux", linux), ("darwin", darwin)):
        assert guard(code, system) == (written if expected == DEAD else None), system


def test_spellings_through_imports():
    assert guard("""
        from sys import platform as host
        if host == "win32":
            target()
    """) == "host == 'win32'"
    assert guard("""
        import os as _os
        if _os.name == "nt":
            target()
    """) == "_os.name == 'nt'"
    assert guard("""
        from platform import system
        if system() == "Windows":
            target()
    """) == "system() == 'Windows'"


@pytest.mark.parametrize("constant", [
    'IS_WINDOWS = sys.platform == "win32"',
    '_mswindows = (sys.platform == "win32")',  # as CPython's subprocess.py writes it
    'ON_WINDOWS = os.name == "nt"',
    'WINDOWS = platform.system() == "Windows"',
    'PLATFORM = sys.platform\nIS_WINDOWS = PLATFORM.startswith("win")',
    'PREFIX = sys.platform[:3]\nWIN = PREFIX == "win"',
])
def test_module_constants(constant):
    name = constant.rpartition("\n")[2].partition(" =")[0]
    code = f"{constant}\n\ndef launch(argv):\n    if {name}:\n        target()\n"
    assert guard(code) == name


def test_constants_built_from_constants():
    code = """
        IS_WINDOWS = sys.platform == "win32"
        IS_POSIX = not IS_WINDOWS
        WINDOWS_PLATFORMS = ("win32", "cygwin")
        NATIVE = sys.platform in WINDOWS_PLATFORMS

        class Launcher:
            def start(self, argv):
                if {}:
                    target()
    """
    assert guard(code.format("not IS_POSIX")) == "not IS_POSIX"
    assert guard(code.format("NATIVE")) == "NATIVE"
    assert guard(code.format("IS_POSIX")) is None


# -- where the condition stands --------------------------------------------------------------

def test_branches_of_an_if_elif_else():
    code = """
        IS_WINDOWS = sys.platform == "win32"

        def open_terminal(path):
            if IS_WINDOWS:
                {windows}
            elif sys.platform == "darwin":
                {darwin}
            else:
                {other}
    """
    def at(branch, system):
        calls = {"windows": "pass", "darwin": "pass", "other": "pass", branch: "target(path)"}
        return guard(code.format(**calls), system)

    assert at("windows", "linux") == "IS_WINDOWS"
    assert at("windows", "darwin") == "IS_WINDOWS"
    assert at("darwin", "linux") == "sys.platform == 'darwin'"
    assert at("darwin", "darwin") is None
    assert at("other", "linux") is None
    assert at("other", "darwin") == "sys.platform == 'darwin'"


def test_else_of_a_linux_test():
    code = """
        IS_LINUX = sys.platform.startswith("linux")
        if IS_LINUX:
            pass
        else:
            target()
    """
    assert guard(code) == "IS_LINUX"
    assert guard(code, "darwin") is None


def test_conditional_expressions():
    assert guard("""
        IS_WINDOWS = os.name == "nt"
        shell = target() if IS_WINDOWS else "/bin/sh"
    """) == "IS_WINDOWS"
    assert guard("""
        IS_WINDOWS = os.name == "nt"
        shell = "cmd.exe" if IS_WINDOWS else target()
    """) is None


def test_short_circuits():
    assert guard('IS_WINDOWS = os.name == "nt"\nIS_WINDOWS and target()\n') == "IS_WINDOWS"
    assert guard('IS_WINDOWS = os.name == "nt"\nnot IS_WINDOWS or target()\n') == "not IS_WINDOWS"
    assert guard('IS_WINDOWS = os.name == "nt"\nIS_WINDOWS or target()\n') is None
    assert guard('IS_WINDOWS = os.name == "nt"\nnot IS_WINDOWS and target()\n') is None
    assert guard('ready = check() and sys.platform == "win32" and target()\n') \
        == "sys.platform == 'win32'"


def test_a_function_defined_in_a_dead_branch():
    assert guard("""
        if os.name == "nt":
            class Console:
                def attach(self, pid):
                    def run():
                        target(pid)
                    return run
    """) == "os.name == 'nt'"


@pytest.mark.parametrize("exit_statement", [
    "return None", "raise OSError('Linux only')", "sys.exit('Linux only')", "os._exit(2)",
])
def test_early_exits(exit_statement):
    code = f"""
        def read_cgroup_limits(path):
            if sys.platform != "linux":
                {exit_statement}
            with open(path) as limits:
                target(limits)
    """
    assert guard(code) is None
    assert guard(code, "darwin") == "sys.platform != 'linux'"


def test_early_exits_in_loops_at_module_level_and_in_an_else():
    assert guard("""
        for tool in tools:
            if os.name == "nt":
                continue
            target(tool)
    """) is None
    assert guard("""
        for tool in tools:
            if sys.platform.startswith("linux"):
                break
            target(tool)
    """) == "sys.platform.startswith('linux')"
    assert guard("""
        if sys.platform != "win32":
            raise ImportError("this module needs the Windows registry")
        import winreg

        def query(key):
            target(key)
    """) == "sys.platform != 'win32'"
    assert guard("""
        def probe():
            if sys.platform == "darwin":
                pass
            else:
                return
            target()
    """) == "sys.platform == 'darwin'"


# -- look-alikes: the call may run ---------------------------------------------------------

@pytest.mark.parametrize("code", [
    # an unknown condition: a call, a configuration value, a parameter
    'if use_windows_paths():\n    target()\n',
    'if config.platform == "win32":\n    target()\n',
    'def run(sys):\n    if sys.platform == "win32":\n        target()\n',
    # a constant bound twice, or rebound through `global`
    'IS_WINDOWS = sys.platform == "win32"\nIS_WINDOWS = os.environ.get("FORCE_WIN")\n'
    'if IS_WINDOWS:\n    target()\n',
    'IS_WINDOWS = sys.platform == "win32"\ndef force():\n    global IS_WINDOWS\n'
    '    IS_WINDOWS = True\nif IS_WINDOWS:\n    target()\n',
    # imported from another module: unknown until the project model resolves it
    'from .compat import IS_WINDOWS\nif IS_WINDOWS:\n    target()\n',
    # the live branches of Windows tests
    'IS_WINDOWS = sys.platform == "win32"\nif not IS_WINDOWS:\n    target()\n',
    'IS_WINDOWS = sys.platform == "win32"\nif IS_WINDOWS:\n    pass\nelse:\n    target()\n',
    # the test of the branch itself runs
    'IS_WINDOWS = sys.platform == "win32"\nif IS_WINDOWS or target():\n    pass\n',
    # a list the module changes
    'PLATFORMS = ["win32"]\nPLATFORMS.append(sys.platform)\n'
    'if sys.platform in PLATFORMS:\n    target()\n',
    # assert is removed by python -O
    'def f():\n    assert sys.platform == "win32"\n    target()\n',
    # an early exit that does not always leave, or that comes after the call
    'def f():\n    if sys.platform == "linux":\n        log("linux")\n    target()\n',
    'def f():\n    target()\n    if sys.platform == "linux":\n        return\n',
    'def f():\n    if sys.platform == "linux":\n        return\n\ndef g():\n    target()\n',
    # names that refer to each other never settle
    'A = not B\nB = not A\nif A:\n    target()\n',
    # `hasattr` of a function not every POSIX `os` has, of another module, or rebound
    'if not hasattr(os, "sched_setaffinity"):\n    target()\n',
    'if not hasattr(os, "pidfd_open"):\n    target()\n',
    'import shutil\nif not hasattr(shutil, "fork"):\n    target()\n',
    'def hasattr(module, name):\n    return False\nif not hasattr(os, "fork"):\n    target()\n',
    'def f(os):\n    if not hasattr(os, "fork"):\n        target()\n',
])
def test_calls_that_may_run(code):
    assert guard(code) is None


def test_deep_conditions_are_unknown_not_a_crash():
    negations = "not " * 400
    assert guard(f"if {negations}sys.platform == 'win32':\n    target()\n") is None
    chain = "\n".join(f"N{index} = not N{index - 1}" for index in range(1, 300))
    assert guard(f"N0 = sys.platform == 'win32'\n{chain}\nif N299:\n    target()\n") is None


# -- test skips ---------------------------------------------------------------------------

WINDOWS_TEST = """
    {imports}
    {decorator}
    def test_console_encoding(self):
        target(["chcp"])
"""


@pytest.mark.parametrize("imports, decorator, linux, darwin", [
    ("import unittest", '@unittest.skipUnless(sys.platform == "win32", "Windows only")',
     DEAD, DEAD),
    ("import unittest", '@unittest.skipIf(sys.platform == "win32", "POSIX only")', RUNS, RUNS),
    ("import unittest", '@unittest.skipIf(sys.platform == "darwin", "no chcp")', RUNS, DEAD),
    ("import unittest", '@unittest.skipIf(os.name == "posix", "needs cmd.exe")', DEAD, DEAD),
    ("import unittest",
     '@unittest.skipUnless(condition=os.name == "nt", reason="Windows only")', DEAD, DEAD),
    ("from unittest import skipUnless", '@skipUnless(os.name == "nt", "Windows only")',
     DEAD, DEAD),
    ("import unittest as ut", '@ut.skipUnless(os.name == "nt", "Windows only")', DEAD, DEAD),
    ("from unittest import case", '@case.skipIf(os.name != "nt", "Windows only")', DEAD, DEAD),
    ('import unittest\n    mswindows = (sys.platform == "win32")',
     '@unittest.skipUnless(mswindows, "Windows only")', DEAD, DEAD),
    ('import unittest\n    windows_only = unittest.skipUnless(os.name == "nt", "Windows")',
     "@windows_only", DEAD, DEAD),
    ("import pytest", '@pytest.mark.skipif(sys.platform != "win32", reason="Windows only")',
     DEAD, DEAD),
    ("import pytest",
     '@pytest.mark.skipif(condition=sys.platform != "win32", reason="Windows only")',
     DEAD, DEAD),
    ("import pytest", '@pytest.mark.skipif(shutil.which("chcp") is None, os.name != "nt", '
     'reason="needs chcp")', DEAD, DEAD),
    ("from pytest import mark",
     '@mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")', RUNS, DEAD),
    ('import pytest\n    windows_only = pytest.mark.skipif(os.name != "nt", reason="Windows")',
     "@windows_only", DEAD, DEAD),
    # CPython's own tests of `user=` where `os` has no setreuid: no Linux or macOS runs them
    ("import unittest", "@unittest.skipIf(hasattr(os, 'setreuid'), 'setreuid() available')",
     DEAD, DEAD),
    ("import unittest", "@unittest.skipUnless(hasattr(os, 'setgroups'), 'no setgroups()')",
     RUNS, RUNS),
])
def test_skip_decorators_on_a_test(imports, decorator, linux, darwin):
    code = WINDOWS_TEST.format(imports=imports, decorator=decorator)
    for system, expected in (("linux", linux), ("darwin", darwin)):
        assert (guard(code, system) is None) is (expected == RUNS), system


@pytest.mark.parametrize("condition, linux, darwin", [
    ("\"sys.platform != 'win32'\"", DEAD, DEAD),
    ("\"sys.platform == 'win32'\"", RUNS, RUNS),
    ("\"sys.platform.startswith('linux')\"", DEAD, RUNS),
    ("\"os.name == 'nt' or platform.system() == 'Darwin'\"", RUNS, DEAD),
    ("'not IS_WINDOWS'", DEAD, DEAD),  # the module's globals
    ("\"IS_WINDOWS\"", RUNS, RUNS),
    ("WINDOWS_ONLY", DEAD, DEAD),  # a name bound to the string
])
def test_pytest_string_conditions(condition, linux, darwin):
    code = f"""
        import pytest

        IS_WINDOWS = sys.platform == "win32"
        WINDOWS_ONLY = "not IS_WINDOWS"

        @pytest.mark.skipif({condition}, reason="Windows only")
        def test_console():
            target()
    """
    for system, expected in (("linux", linux), ("darwin", darwin)):
        assert guard(code, system) == (condition if expected == DEAD else None), system
    negated = code.replace("skipif(", "skipif(not ")  # no string: `not "..."` is False
    assert guard(negated, "linux") is None


def test_string_conditions_see_pytest_modules_the_module_does_not_import():
    code = """
        import pytest

        @pytest.mark.skipif("sys.platform != 'win32' and os.name != 'nt'", reason="Windows")
        def test_console():
            target()
    """
    assert guard(code, header="") == "\"sys.platform != 'win32' and os.name != 'nt'\""
    assert guard(code, header="import pytest\nsys = None\n") is None  # the module's own `sys`


@pytest.mark.parametrize("condition", [
    '"requires Windows"',  # a reason written as a condition: no expression
    '"sys.platform ==\\x00 \'win32\'"',  # a NUL byte
    '"  sys.platform == \'win32\'"',  # leading spaces: an IndentationError for pytest too
    '"(" * 300',  # not a string literal
    '"' + "(" * 300 + "sys.platform" + ")" * 300 + " == 'win32'\"",  # nested too deep
    '"' + "not " * 400 + "sys.platform != 'win32'\"",
    '"' + "sys.platform == 'win32' and " * 100 + "True\"",  # longer than read
    '"__import__(\'os\').system(\'touch /tmp/pwned\')"',  # parsed, never run
])
def test_string_conditions_that_are_unknown(condition):
    code = f"""
        import pytest

        @pytest.mark.skipif({condition}, reason="Windows only")
        def test_console():
            target()
    """
    assert guard(code) is None


def test_a_skipped_class_rules_out_every_method():
    code = """
        import unittest

        @unittest.skipUnless(sys.platform == "win32", "Windows-specific tests")
        class ConsoleTests(unittest.TestCase):
            CHCP = shutil.which("chcp")

            def setUp(self):
                {setup}

            def _run(self, *argv):
                def attempt():
                    {helper}
                return attempt()

            async def test_code_page(self, timeout={default}):
                {test}
    """
    def at(place):
        calls = {"setup": "pass", "helper": "pass", "default": "5", "test": "pass"}
        return guard(code.format(**{**calls, place: "target()"}))

    windows = "sys.platform == 'win32'"
    assert at("setup") == at("helper") == at("test") == windows
    assert at("default") is None  # evaluated when the class body runs, on import
    assert guard(code.format(setup="pass", helper="pass", default="5", test="pass")
                 .replace('CHCP = shutil.which("chcp")', 'CHCP = target("chcp")')) is None


def test_pytest_marks_on_a_class_and_on_the_module():
    on_class = """
        import pytest

        @pytest.mark.skipif(os.name != "nt", reason="Windows only")
        class TestRegistry:
            def setup_method(self):
                target()
    """
    assert guard(on_class) == "os.name != 'nt'"
    module = """
        import pytest

        pytestmark = {marks}

        class TestRegistry:
            def {method}(self):
                {registry}

        def {function}():
            {function_body}

        class FakeHive:
            def open(self):
                {fake}
    """
    def at(place, marks='pytest.mark.skipif(os.name != "nt", reason="Windows only")',
           method="test_open", function="test_query"):
        calls = {"registry": "pass", "function_body": "pass", "fake": "pass"}
        return guard(module.format(marks=marks, method=method, function=function,
                                   **{**calls, place: "target()"}))

    assert at("registry") == at("function_body") == "os.name != 'nt'"
    assert at("registry", method="read_key") == "os.name != 'nt'"  # a method of a Test class
    assert at("function_body", function="open_hive") is None  # a helper others may import
    assert at("fake") is None  # a class pytest does not collect
    listed = '[pytest.mark.timeout(30), pytest.mark.skipif(os.name != "nt", reason="")]'
    assert at("function_body", marks=listed) == "os.name != 'nt'"
    assert at("function_body", marks="pytest.mark.skipif(sys.platform == 'win32', reason='')") \
        is None


def test_module_level_skips_are_early_exits():
    for exit_statement in ('pytest.skip("Windows only", allow_module_level=True)',
                           'raise unittest.SkipTest("Windows only")'):
        assert guard(f"""
            import pytest
            import unittest

            if sys.platform != "win32":
                {exit_statement}

            def test_console():
                target()
        """) == "sys.platform != 'win32'"


def test_skips_without_a_condition_rule_out_everywhere():
    """A test skipped always (`@unittest.skip("slow")`) never runs on any system: its calls are
    not reported, and they are again once the skip is removed."""
    for decorator, skip in (('@unittest.skip("flaky on CI")', "unittest.skip('flaky on CI')"),
                            ("@unittest.skip", "unittest.skip"),
                            ('@pytest.mark.skip(reason="slow")', "pytest.mark.skip(reason='slow')"),
                            ('@pytest.mark.skipif(reason="slow")',
                             "pytest.mark.skipif(reason='slow')")):
        code = f"""
            import pytest
            import unittest

            {decorator}
            def test_soak():
                target()
        """
        assert guard(code) == guard(code, "darwin") == skip


@pytest.mark.parametrize("code", [
    # a skip whose condition is live, or unknown
    'import unittest\n@unittest.skipIf(sys.platform == "win32", "POSIX")\n'
    'def test_fork():\n    target()\n',
    'import unittest\n@unittest.skipUnless(hasattr(os, "fork"), "needs fork")\n'
    'def test_fork():\n    target()\n',
    'import unittest\n@unittest.skipUnless(os.name == "nt" or FORCE, "Windows")\n'
    'def test_fork():\n    target()\n',
    'import pytest\n@pytest.mark.skipif(*WINDOWS_ONLY, reason="Windows")\n'
    'def test_fork():\n    target()\n',
    'import pytest\n@pytest.mark.skipif(**WINDOWS_ONLY)\ndef test_fork():\n    target()\n',
    # a skip on the argument of another decorator: one parameter is skipped, not the test
    'import pytest\n@pytest.mark.parametrize("shell", ["sh", pytest.param("cmd", '
    'marks=pytest.mark.skipif(os.name != "nt", reason="Windows"))])\n'
    'def test_shell(shell):\n    target(shell)\n',
    'import unittest\n@mock.patch.object(os, "name", unittest.skip("no"))\n'
    'def test_shell(shell):\n    target(shell)\n',
    # a pytest mark where pytest collects no test: a fixture, a helper, a nested function
    'import pytest\n@pytest.fixture\n@pytest.mark.skipif(os.name != "nt", reason="Windows")\n'
    'def console():\n    return target()\n',
    'import pytest\ndef test_outer():\n    @pytest.mark.skip(reason="unused")\n'
    '    def test_inner():\n        target()\n    test_inner()\n',
    # the skip decorator's own arguments run on import
    'import unittest\n@unittest.skipIf(target(), "no tool")\ndef test_tool():\n    pass\n',
    # `pytestmark` bound under a condition, or changed after
    'import pytest\nif os.name == "nt":\n    pytestmark = pytest.mark.skip(reason="hangs")\n'
    'def test_tool():\n    target()\n',
    'import pytest\npytestmark = [pytest.mark.skipif(os.name != "nt", reason="W")]\n'
    'pytestmark.clear()\ndef test_tool():\n    target()\n',
    # a module that may lack a Windows module is no platform test
    'try:\n    import _winapi\nexcept ImportError:\n    _winapi = None\n'
    'def test_handles():\n    if _winapi is not None:\n        target()\n',
])
def test_tests_that_may_run(code):
    assert guard(code) is None


# -- CUR101 --------------------------------------------------------------------------------

LAUNCHER = '''
import os
import shlex
import subprocess
import sys

IS_WINDOWS = sys.platform == "win32"
_mswindows = (sys.platform == "win32")
ON_MAC = sys.platform == "darwin"


def open_in_editor(path):
    if IS_WINDOWS:
        return subprocess.call(["notepad.exe", path])
    if ON_MAC:
        return subprocess.call(["open", "-t", path])  # {mac}
    return subprocess.call(["xdg-open", path])  # {linux}


def run_tool(argv, shell=False):
    command = subprocess.list2cmdline(argv) if _mswindows else shlex.join(argv)
    _mswindows and subprocess.run(command, shell=True)
    return subprocess.run(command, shell=True, cwd="/srv/tools")  # {both}


def gpu_inventory():
    if os.name == "nt":
        output = subprocess.check_output(["nvidia-smi.exe", "-L"])
    elif sys.platform.startswith("linux"):
        output = subprocess.check_output(["nvidia-smi", "-L"])  # {linux}
    else:
        output = subprocess.check_output(["system_profiler", "SPDisplaysDataType"])  # {mac}
    return output.decode()


def drop_caches():
    if sys.platform != "linux":
        return
    subprocess.run(["sync"])  # {linux}
'''


TEST_MODULE = '''
import os
import subprocess
import sys
import unittest
from unittest import skipUnless

import pytest

MSWINDOWS = sys.platform == "win32"
windows_only = pytest.mark.skipif(not MSWINDOWS, reason="Windows only")

if sys.platform == "darwin":
    pytest.skip("no /proc on macOS", allow_module_level=True)


class ProcessTests(unittest.TestCase):
    @unittest.skipIf(MSWINDOWS, "no sleep command")
    def test_timeout(self):
        subprocess.run(["sleep", "5"], timeout=1)  # {linux}

    @unittest.skipUnless(MSWINDOWS, "Windows only")
    def test_start_new_console(self):
        subprocess.run(["cmd", "/c", "ver"])

    @unittest.skip("hangs on CI until the pipe fix")
    def test_large_output(self):
        subprocess.run(["yes"], timeout=1)

    @unittest.skipUnless(hasattr(os, "setsid"), "needs setsid")
    def test_new_session(self):
        subprocess.run(["ps", "-o", "sid="], preexec_fn=os.setsid)  # {linux}


@skipUnless(MSWINDOWS, "Windows-specific tests")
class Win32Tests(unittest.TestCase):
    def _kill(self, method):
        return subprocess.Popen(["timeout", "30"])

    def test_kill(self):
        self._kill("kill").wait()


@windows_only
def test_shell_builtin():
    subprocess.run("dir", shell=True)


@pytest.mark.skipif("sys.platform != 'linux'", reason="reads /proc")
def test_proc_status():
    subprocess.run(["cat", "/proc/self/status"])  # {linux}


@pytest.mark.parametrize("shell", [
    "sh", pytest.param("cmd", marks=pytest.mark.skipif(not MSWINDOWS, reason="Windows")),
])
def test_each_shell(shell):
    subprocess.run([shell, "-c", "exit 0"])  # {linux}
'''


def check_cur101(system: str, code: str = LAUNCHER) -> list[Finding]:
    """CUR101 (target 3.8) on `system`'s libc reports exactly the calls marked for it (`{linux}`,
    `{mac}`, `{both}`); those marked for the other system are its look-alikes."""
    libc, other = {"linux": (GLIBC, "mac"), "mac": (MACOS, "linux")}[system]
    text = (code.replace("{both}", "warning: CUR101").replace(f"{{{system}}}", "warning: CUR101")
            .replace(f"{{{other}}}", "ok: CUR101"))
    return check_snippet(text, SubprocessForkPath, path="launcher.py", options={"libc": libc},
                         settings={"target-python": "3.8"})


def test_cur101_reports_only_calls_linux_makes():
    assert len(check_cur101("linux")) == 4


def test_cur101_reports_only_calls_macos_makes():
    assert len(check_cur101("mac")) == 3


def test_cur101_in_tests_the_target_skips():
    """Linux runs four of the tests' calls; macOS none: the module skips itself there."""
    assert len(check_cur101("linux", TEST_MODULE)) == 4
    assert check_cur101("mac", TEST_MODULE) == []


POOL = """\
import multiprocessing
import sys

import torch

IS_WINDOWS = sys.platform == "win32"


def embed(item):
    return torch.tensor(item, device="cuda").sum().item()


def preprocess(items):
    torch.cuda.init()
    {guard}
        with multiprocessing.Pool(4) as pool:
            return pool.map(embed, items)
    return [embed(item) for item in items]
"""


@pytest.mark.parametrize("guard, reported", [
    ("if IS_WINDOWS:", False),  # Windows spawns: nothing forks there
    ('if sys.platform == "win32":', False),
    ('if sys.platform == "darwin":', True),  # macOS can fork ('fork' context; default < 3.8)
    ("if len(items) > 100:", True),
])
def test_cur102_is_silent_on_a_branch_only_windows_takes(guard, reported):
    from cursedlint.engine import Linter
    from cursedlint.rules.process_spawning import ForkInAcceleratedProcess
    from cursedlint.settings import Settings

    linter = Linter(Settings(enabled=frozenset({"CUR102"})),
                    {"CUR102": ForkInAcceleratedProcess})
    code = POOL.replace("{guard}", guard)
    findings = linter.lint_bytes("prep.py", code.encode(), "python").findings
    assert bool(findings) is reported
