"""`CaptureStarts.trigger_names` (what a trigger-only gathering spares a module's summary for)
must hold every name the module's summary can give, read from its bytes alone."""

from __future__ import annotations

import ast
import re

import pytest

from cursedlint.analysis.cuda_reach import CAPTURE_STARTS
from cursedlint.analysis.python_project import call_names
from cursedlint.python.context import PythonContext
from cursedlint.settings import Settings
from cursedlint.source import Source
from cursedlint.triggers.statement_text import named_in_code, stated_names

CAPTURING = [
    "import torch\n\n\ndef record(g, step):\n    with torch.cuda.graph(g):\n        step()\n",
    "import torch\n\n\nasync def record(g, step):\n    with torch.cuda.graph(g):\n"
    "        step()\n",
    "\ufeffdef record(g):\n    g.capture_begin()\n    g.capture_end()\n",
    "import torch\n\n\nasync \\\n    def record(g, step):\n    with torch.cuda.graph(g):\n"
    "        step()\n",
    "import torch\r\rdef record(g, step):\r    with torch.cuda.graph(g):\r        step()\r",
    "import torch\r\n\r\ndef \\\r\n  record(g, step):\r\n    with torch.cuda.graph(g):\r\n"
    "        pass\r\n",
    "from torch.cuda import graph as cg  # the undef of a subclass for\n\n\n"
    "def record(g, step):\n    with cg(g):\n        step()\n",
    "import torch\n\n\nclass Recorder:\n    def __init__(self, g):\n"
    "        self.g = g\n        self.g.capture_begin()\n        self.g.capture_end()\n",
    "import torch\n\n\nclass Replayer:\n    def __call__(self, g, step):\n"
    "        with torch.cuda.graph(g):\n            step()\n",
    "import torch\n\n\ndef _begin(g, step):\n    with torch.cuda.graph(g):  # 'x'\n"
    "        step()\n\n\ndef warm(g, step):\n    _begin(g, step)\n",
    "import torch\nx = '#'; mode = 'global'\n\n\ndef record(m, x):\n"
    "    return torch.cuda.make_graphed_callables(m, (x,))\n",
    "import torch\n\n\n@torch.no_grad()\ndef record(g, step):\n"
    "    with torch.cuda.graphs.graph(g):\n        step()\n",
]


def _summary_names(text: str) -> set[bytes]:
    data = text.encode("utf-8")
    context = PythonContext(Source.from_bytes("m.py", data, "python"),
                            Settings(enabled=frozenset()), ast.parse(data))
    summary = CAPTURE_STARTS.summarize(context)
    return {part.encode() for qualname in summary or () for part in call_names(qualname)}


@pytest.mark.parametrize("text", CAPTURING)
def test_trigger_names_hold_every_name_the_summary_gives(text):
    names = _summary_names(text)
    assert names, "each module begins a global-mode capture"
    given = set(CAPTURE_STARTS.trigger_names(text.encode("utf-8")))
    assert names <= given <= set(CAPTURE_STARTS.trigger_names_at_most(text.encode("utf-8")))


@pytest.mark.parametrize("text", [
    "import torch\n\n\ndef plan(model):\n    # walks the graph( of modules\n"
    "    return model\n",
    "import torch\n\n\ndef plan(model):\n    return model.cuda_graph_impl(model)\n\n\n"
    "def describe():\n    # a graph as built: make_graphed_callables, capture_begin\n"
    "    return 0\n",
])
def test_a_module_naming_no_region_start_in_code_gives_no_name(text):
    assert _summary_names(text) == set()
    assert CAPTURE_STARTS.trigger_names(text.encode()) == []


def test_prose_words_after_def_or_class_are_no_names():
    """"the default for", "a subclass of" in comments and docstrings bind nothing."""
    text = (b'"""The default for each subclass of a graph(.\n\ndef example(): ...\n"""\n'
            b"import torch\n\n\ndef record(g):  # the def of\n    with torch.cuda.graph(g):\n"
            b"        pass\n")
    assert CAPTURE_STARTS.trigger_names(text) == [b"example", b"record"]


def test_stated_names_leave_out_keywords_and_names_after_other_text():
    from cursedlint.analysis.cuda_reach import _DEFINED

    text = b"x = 1  # undef for\ndef f(): pass\n    async  def g(): pass\n# def for\n"
    assert stated_names(_DEFINED, text) == [b"f", b"g"]


@pytest.mark.parametrize("text, named", [
    (b"with cuda.graph(g):\n", True),
    (b"x = 1  # graph\n", False),
    (b"# graph\nx = cuda_graph\n", False),
    (b'"""A graph as built.\n\n    graph(x)\n"""\n', False),
    (b"'''graph''' + r'\\'graph'\nx = 1\n", False),
    (b'x = "a \\" graph"  # graph\n', False),
    (b'x = "#"; y = graph\n', True),
    (b'"""\n# graph\n""" ; graph(g)\n', True),
    (b'x = rb"graph" + f"{graph(g)}"\n', True),
    (b'x = f"{d["k"]:>{w}} graph"\n', True),  # (an f-string counts whole)
    (b'x = f"{d["k"]:>{w}}" ; "graph"\n', False),
    (b'x = f"{d["k"]:>{w}}" ; graph(g)\n', True),
    (b'x = f"{a!r}" ; graph(g)\n', True),
    (b'if"a": graph(g)\n', True),
    (b"x = 'unclosed\ngraph(g)\n", True),  # (unsure: code from there)
    (b'x = "graph" + f"{a != \'b\'}"\n', False),  # (unsure after the name's string)
    (b'x = f"{a != \'b\'}" "graph"\n', True),  # (unsure before it: code)
    (b"x = 1\r# graph\r", False),
    (b"graph", True),
    (b"\xc3\xa9graph = 1\n", False),
])
def test_named_in_code(text, named):
    """Comments and plain strings (docstrings) are prose; an f-string's fields are code; where
    the reading is unsure, what follows is code."""
    assert named_in_code(text, (b"graph",)) is named


@pytest.mark.parametrize("text", [
    b"graph(g)", b"x.graph (g)", b"_graph(g)", b"cuda_graph(g)",
    b"from torch.cuda import graph as g",
    b"graphs(g)", b"graph\\\n(g)", b"g.capture_begin()", b"\xc3\xa9graph(g)", b"graph", b"9graph(",
])
def test_region_start_pattern_finds_what_the_lookbehind_first_one_found(text):
    import re

    from cursedlint.analysis.cuda_reach import _REGION_START

    before = re.compile(
        rb"capture_begin|begin_capture|BeginCapture|make_graphed_callables|ScopedCapture|"
        rb"(?<![A-Za-z0-9_])graph(?:(?:\s|\\)*\(|(?:\s|\\)+as(?:\s|\\))")
    assert (_REGION_START.search(text) is None) == (before.search(text) is None)


@pytest.mark.parametrize("text, found", [
    (b"torch.cuda.graph(g)", True), (b"with graph (g):", True), (b"import graph as g\n", True),
    (b"from x import graph as\\\n g", True), (b"g.capture_begin()", True),
    (b"# make_graphed_callables", True), (b"x = ScopedCapture", True),
    (b"BeginCapture", True), (b"begin_capture", True), (b"cuda_graph(g)", False),
    (b"graphs(g)", False), (b"a graph of calls", False), (b"graph_pool = 1", False),
    (b"", False), (b"graph\n(", True),
])
def test_a_region_start_is_searched_as_the_one_alternation_finds_it(text, found):
    """`CaptureStarts.pattern` searches its words apart (`re` tried the alternation of all six
    at every byte beginning one): the same files are hits."""
    alternation = re.compile(
        rb"capture_begin|begin_capture|BeginCapture|make_graphed_callables|ScopedCapture|"
        rb"graph(?<![A-Za-z0-9_]graph)(?:(?:\s|\\)*\(|(?:\s|\\)+as(?:\s|\\))")
    pattern = CAPTURE_STARTS.pattern(CAPTURE_STARTS.words(None), True)
    for data in (text, b"x = 1\n" + text + b"\n", text + b" graph(g)"):
        assert (pattern.search(data) is not None) == (alternation.search(data) is not None)
    assert (pattern.search(text) is not None) == found
