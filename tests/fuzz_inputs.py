"""Hostile and odd inputs for the linter, and the checks every run over them must pass.

Shared by the suite's fuzz test (tests/test_fuzz.py: a fixed seed, few examples) and the long
run by hand (benchmarks/fuzz.py). An input is a `Project`: files of the kinds cursedlint reads
and an optional configuration file. Files are random bytes, mutated rule examples, or programs
assembled from the rules' trigger words and example fragments in random syntactic positions;
configurations are random tables of right and wrong types. `check_project` lints a project in
this process four ways (`--jobs 1` and `--jobs 4` without the cache, then twice with it) and
returns what went wrong: an exit code other than 0/1/2, an exception, a traceback on stderr, a
CUR000 finding, outputs that differ, or a run over the time limit (`lint_project` also gives
the runs, with their times).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import gc
import importlib
import io
import json
import os
import re
import signal
import tempfile
import textwrap
import time
import traceback
from dataclasses import dataclass

from hypothesis import strategies as st

from cursedlint import engine
from cursedlint.cli import main
from cursedlint.registry import all_rules

# -- what a project is -------------------------------------------------------------------------

FILE_NAMES = {
    "python": ("a.py", "pkg/b.pyi"),
    "cython": ("i.pyx", "pkg/j.pxd"),
    "c": ("c.c",),
    "cpp": ("d.h", "e.cpp", "f.cu"),
    "shell": ("g.sh",),
    "dockerfile": ("Dockerfile",),
    "yaml": ("h.yaml",),
}
"""Every kind of file the linter reads, by language."""
LANGUAGES = tuple(FILE_NAMES)


@dataclass(frozen=True)
class Project:
    """Files (relative name -> bytes) and a configuration (name, bytes) or None."""

    files: tuple[tuple[str, bytes], ...]
    config: tuple[str, bytes] | None = None

    @property
    def entries(self) -> tuple[tuple[str, bytes], ...]:
        """The files, then the configuration."""
        return (*self.files, *((self.config,) if self.config else ()))

    @property
    def size(self) -> int:
        return sum(len(data) for _, data in self.entries)

    @property
    def largest(self) -> int:
        """The size of the largest file (or configuration)."""
        return max((len(data) for _, data in self.entries), default=0)

    def write(self, root: str) -> None:
        """Write the files under `root`, all modified long ago (so that the cache's stat fast
        path applies to them on a warm run)."""
        old = time.time() - 3600
        for name, data in self.entries:
            path = os.path.join(root, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as handle:
                handle.write(data)
            os.utime(path, (old, old))

    def text(self) -> str:
        """The project as a reader wants it in a report: each file's name, then its bytes."""
        return "\n".join(f"--- {name} ({len(data)} bytes)\n{data!r}"
                         for name, data in self.entries)


# -- the rules' own material -------------------------------------------------------------------


@functools.cache
def seeds() -> dict[str, tuple[bytes, ...]]:
    """language -> every rule's valid and invalid examples in that language (Cython, which
    the examples do not show: the rule cases' Cython files)."""
    found: dict[str, list[bytes]] = {language: [] for language in LANGUAGES}
    for rule in all_rules().values():
        for kind in ("valid", "invalid"):
            for example in rule.examples(kind):
                code = textwrap.dedent(example.code).lstrip("\n").encode()
                found[rule.example_language(example)].append(code)
    cases = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rules")
    for folder, _, names in sorted(os.walk(cases)):
        for name in sorted(names):
            if name.endswith((".pyx", ".pxd", ".pxi")):
                with open(os.path.join(folder, name), "rb") as handle:
                    found["cython"].append(handle.read())
    return {language: tuple(codes) for language, codes in found.items()}


@functools.cache
def trigger_words() -> dict[str, tuple[str, ...]]:
    """language -> the words whose presence makes a rule of that language look at a file
    (triggers, and default option values such as module names)."""
    found: dict[str, set[str]] = {language: set() for language in LANGUAGES}
    for rule in all_rules().values():
        words = {word for trigger in rule.triggers_for(rule.resolved_options())
                 for word in ((trigger,) if isinstance(trigger, str) else trigger)}
        for value in rule.resolved_options().values():
            if isinstance(value, (list, tuple)):
                words.update(item for item in value if isinstance(item, str))
        for language in rule.languages:
            found[language].update(words)
    return {language: tuple(sorted(words)) for language, words in found.items()}


def _identifier(word: str) -> str:
    return re.sub(r"\W", "", word) or "x"


@functools.cache
def python_fragments() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(imports, expressions, simple statements) found in the rules' Python examples."""
    imports, expressions, statements = set(), set(), set()
    for code in seeds()["python"]:
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                imports.add(ast.unparse(node))
            elif isinstance(node, (ast.Call, ast.Attribute, ast.Subscript, ast.Lambda)):
                expressions.add(ast.unparse(node))
            elif isinstance(node, (ast.Assign, ast.Expr, ast.AugAssign, ast.AnnAssign,
                                   ast.Return, ast.Raise, ast.Assert, ast.Delete)):
                statements.add(ast.unparse(node))

    def one_line(texts: set[str]) -> tuple[str, ...]:
        return tuple(sorted(t for t in texts if len(t) <= 240 and "\n" not in t))

    return one_line(imports), one_line(expressions), one_line(statements)


C_FRAGMENT_TYPES = {
    "top": ("preproc_include", "preproc_def", "preproc_function_def", "function_definition",
            "declaration", "struct_specifier", "class_specifier", "namespace_definition",
            "template_declaration", "type_definition"),
    "statement": ("expression_statement", "declaration", "return_statement", "if_statement",
                  "for_statement", "while_statement"),
    "expression": ("call_expression", "field_expression", "pointer_expression", "identifier",
                   "number_literal", "string_literal", "sizeof_expression", "cast_expression"),
}


@functools.cache
def c_fragments() -> dict[str, tuple[str, ...]]:
    """"top" (declarations, functions, includes), "statement" and "expression" texts found in
    the rules' C and C++ examples."""
    from cursedlint.c.context import parse

    found: dict[str, set[str]] = {kind: set() for kind in C_FRAGMENT_TYPES}
    for language in ("c", "cpp"):
        for code in seeds()[language]:
            pending = [parse(code, "cpp").root_node]
            while pending:
                node = pending.pop()
                pending.extend(node.named_children)
                text = code[node.start_byte:node.end_byte].decode()
                for kind, types in C_FRAGMENT_TYPES.items():
                    if node.type in types and len(text) <= 600:
                        if kind != "top" or node.parent.type == "translation_unit":
                            found[kind].add(text)
    return {kind: tuple(sorted(texts)) for kind, texts in found.items()}


# -- random and mutated bytes ------------------------------------------------------------------

TOKENS = (
    b"(", b")", b"[", b"]", b"{", b"}", b"<", b">", b"'", b'"', b'"""', b"'''", b"#", b"//",
    b"/*", b"*/", b"\\\n", b"\r\n", b"\r", b"\n", b"\t", b"\x0c", b" ", b":", b";", b",", b".",
    b"=", b"\\", b"@", b"*", b"**", b"&", b"::", b"->", b"<<<", b">>>", b":=", b"lambda:",
    b"f'{", b"}'", b'R"(', b')"', b"#define X(a) ", b"#if 0\n", b"#endif\n", b"#include <", b"0x",
    b"1e999", b"\xef\xbb\xbf", b"# -*- coding: latin-1 -*-\n", b"# coding: utf-16\n",
    b"\xff\xfe", b"\xc3\x28", b"\xe2\x80\xa8", "é".encode(), "\u2028".encode(), b"\x00",
    b"<<EOF\n", b"EOF\n", b"- name: ", b"value: ", b"ENV ", b"export ", b"${", b"$(", b"`",
    b".  " + b"#" * 30, b"\n" + b"#" * 79 + b"\n", b"(  # " + b"-" * 70 + b"\n", b"# # # # # #",
)
"""Bytes that mean something to one of the languages (brackets, quotes, comments, banners,
line ends, encodings, macros) or to none."""


@st.composite
def tokens(draw, language: str) -> bytes:
    """A token: syntax of some language, a trigger word of this one, or random bytes."""
    return draw(st.one_of(
        st.sampled_from(TOKENS),
        st.sampled_from(trigger_words()[language]).map(str.encode),
        st.binary(min_size=1, max_size=8),
    ))


@st.composite
def mutated(draw, language: str) -> bytes:
    """One of the rules' examples in `language` with a few random edits: bytes replaced,
    tokens inserted, ranges deleted, duplicated or repeated, lines swapped, comment banners
    added, another example spliced in."""
    data = bytearray(draw(st.sampled_from(seeds()[language] or seeds()["python"])))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(data)))
        end = draw(st.integers(at, min(len(data), at + 200)))
        edit = draw(st.sampled_from(("replace", "insert", "delete", "duplicate", "repeat",
                                     "swap", "splice", "banner")))
        if edit == "replace" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif edit == "insert":
            data[at:at] = draw(tokens(language))
        elif edit == "delete":
            del data[at:end]
        elif edit == "duplicate":
            data[end:end] = data[at:end]
        elif edit == "repeat":
            data[at:at] = draw(tokens(language)) * draw(st.integers(2, 300))
        elif edit == "swap":
            lines = data.split(b"\n")
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
            data = bytearray(b"\n".join(lines))
        elif edit == "banner":  # a comment banner after a '.' (an attribute, a sentence)
            dots = [index + 1 for index, byte in enumerate(data) if byte == ord(".")] or [at]
            at = draw(st.sampled_from(dots))
            data[at:at] = b"  " + b"#" * draw(st.integers(10, 80)) + b"\n"
        elif edit == "splice":
            other = draw(st.sampled_from(seeds()[draw(st.sampled_from(LANGUAGES))]))
            start = draw(st.integers(0, len(other)))
            data[at:at] = other[start:start + draw(st.integers(0, 400))]
    return bytes(data)


@st.composite
def random_bytes(draw, language: str) -> bytes:
    """Random bytes, or a soup of this language's tokens, trigger words and random bytes."""
    if draw(st.booleans()):
        return draw(st.binary(max_size=600))
    return b"".join(draw(st.lists(tokens(language), max_size=80)))


def file_bytes(language: str):
    """Random, token-soup or mutated bytes for a file of `language`."""
    return st.one_of(random_bytes(language), mutated(language), mutated(language))


# -- programs assembled from trigger words -----------------------------------------------------

NAMES = ("x", "g", "stream", "self", "model", "lib", "cb", "t", "loader", "pool", "buf")


def _one_of(draw, *builders):
    """The value of one of `builders` (functions of no argument), only that one built. Drawn
    by index: a strategy sampling these new functions would have a new label at each call,
    which hypothesis keeps for good (13 KB an input, for programs)."""
    return builders[draw(st.integers(0, len(builders) - 1))]()


@st.composite
def python_atom(draw) -> str:
    """An expression that brings a rule's trigger word: an example's call or attribute, or a
    trigger word used as a call, an attribute, a name, a string or an f-string."""
    _, expressions, _ = python_fragments()
    word = draw(st.sampled_from(trigger_words()["python"]))
    name, other = _identifier(word), draw(st.sampled_from(NAMES))
    return _one_of(
        draw, lambda: draw(st.sampled_from(expressions)), lambda: f"{other}.{name}({other})",
        lambda: f"{name}({other}, {other}=None)", lambda: f"{other}.{name}", lambda: name,
        lambda: repr(word), lambda: f"f'{{{other}!r}} {word}'",
    )


@st.composite
def python_expression(draw, depth: int, in_async: bool = False) -> str:
    """An expression holding trigger words in a random syntactic position: lambdas,
    comprehensions, f-strings, walrus, calls with default, star and keyword arguments, ..."""
    if depth <= 0 or draw(st.integers(0, 3)) == 0:
        return draw(python_atom())
    inner = lambda: f"({draw(python_expression(depth - 1, in_async))})"
    v = draw(st.sampled_from(NAMES))
    forms = [
        lambda: f"lambda {v}, *a, k={inner()}, **kw: {inner()}",
        lambda: f"lambda: {inner()}",
        lambda: f"[{inner()} for {v} in {inner()} if {inner()}]",
        lambda: f"{{{v}: {inner()} for {v} in {inner()}}}",
        lambda: f"{{{inner()} for _ in {inner()}}}",
        lambda: f"({inner()} for {v} in {inner()})",
        lambda: f'f"{{{inner()}!r:>{{{inner()}}}}}"',
        lambda: f"({v} := {inner()})",
        lambda: f"{inner()} if {inner()} else {inner()}",
        lambda: f"{inner()}({inner()}, *{inner()}, key={inner()}, **{inner()})",
        lambda: f"{inner()}[{inner()}]",
        lambda: f"({inner()}).attr",
        lambda: f"({inner()}, {inner()})",
        lambda: f"not {inner()} or {inner()} @ {inner()}",
        lambda: f"{inner()} < {inner()} == {inner()}",
    ]
    if in_async:
        forms.append(lambda: f"(await {inner()})")
    return _one_of(draw, *forms)


def _indented(lines: list[str], unit: str) -> list[str]:
    return [unit + line for line in lines] or [unit + "pass"]


@st.composite
def python_block(draw, depth: int, unit: str, in_async: bool = False) -> list[str]:
    return [line for _ in range(draw(st.integers(1, 2)))
            for line in draw(python_statement(depth, unit, in_async))]


@st.composite
def python_statement(draw, depth: int, unit: str, in_async: bool = False) -> list[str]:
    """A statement (as lines) that holds trigger words: an example's statement or whole
    code, an assignment, or a compound statement (decorated nested defs, async defs, classes, with,
    try, for, while, if, match) around more of them."""
    expr = lambda: draw(python_expression(draw(st.integers(0, 2)), in_async))
    v = draw(st.sampled_from(NAMES))
    if depth <= 0 or draw(st.integers(0, 2)) == 0:
        _, _, statements = python_fragments()
        return _one_of(
            draw, lambda: [draw(st.sampled_from(statements))], lambda: [f"{v} = {expr()}"],
            lambda: [expr()], lambda: [f"{v}: {expr()} = {expr()}"],
            lambda: [f"assert {expr()}, {expr()}"], lambda: [f"return {expr()}"],
            lambda: [f"raise {expr()} from {expr()}"], lambda: [f"{v} += {expr()}"],
            lambda: draw(st.sampled_from(seeds()["python"])).decode().splitlines(),
        )
    block = lambda asynchronous=in_async: _indented(
        draw(python_block(depth - 1, unit, asynchronous)), unit)
    name = _identifier(draw(st.sampled_from(trigger_words()["python"])))
    decorators = lambda: [f"@{expr()}" for _ in range(draw(st.integers(0, 2)))]
    form = draw(st.sampled_from(("def", "async def", "class", "with", "try", "for", "while",
                                 "if", "match")))
    if form == "def":
        return [*decorators(), f"def {name}({v}, k={expr()}, *a, w={expr()}, **kw):", *block(False)]
    if form == "async def":
        return [*decorators(), f"async def {name}({v}={expr()}):", *block(True)]
    if form == "class":
        return [*decorators(), f"class {name.capitalize()}({expr()}, metaclass={expr()}):",
                f"{unit}{v} = {expr()}", *block()]
    if form == "with":
        keyword = "async with" if in_async and draw(st.booleans()) else "with"
        return [f"{keyword} {expr()} as {v}, {expr()}:", *block()]
    if form == "try":
        return ["try:", *block(), f"except ({expr()}) as error:", *block(), "else:", *block(),
                "finally:", *block()]
    if form == "for":
        keyword = "async for" if in_async and draw(st.booleans()) else "for"
        return [f"{keyword} {v} in {expr()}:", *block(), "else:", *block()]
    if form == "while":
        return [f"while {expr()}:", *block()]
    if form == "if":
        return [f"if ({v} := {expr()}):", *block(), f"elif {expr()}:", *block(), "else:",
                *block()]
    return [f"match {expr()}:", f"{unit}case [{v}, *rest] if {expr()}:",
            *_indented(block(), unit), f"{unit}case _:", *_indented(block(), unit)]


@st.composite
def python_program(draw) -> bytes:
    """Imports of the rules' examples, then statements holding trigger words."""
    imports, _, _ = python_fragments()
    unit = draw(st.sampled_from(("    ", "  ", "\t")))
    lines = draw(st.lists(st.sampled_from(imports), min_size=1, max_size=6))
    for _ in range(draw(st.integers(1, 3))):
        lines.extend(draw(python_statement(2, unit)))
    return ("\n".join(lines) + "\n").encode()


@st.composite
def c_expression(draw) -> str:
    word = _identifier(draw(st.sampled_from(trigger_words()["cpp"])))
    e = lambda: draw(st.sampled_from(c_fragments()["expression"]))
    return _one_of(
        draw, e, lambda: f"{word}({e()}, {e()})", lambda: f"obj->{word}",
        lambda: f"ns::{word}<int>({e()})", lambda: f"[&]() {{ return {e()}; }}()",
        lambda: f"{{{e()}, {{{e()}}}}}", lambda: f"sizeof({word})", lambda: f"(void *)&{word}",
        lambda: f"\"{word}\"", lambda: f"{word}<<<1, 2, 0, stream>>>({e()})",
    )


@st.composite
def c_statement(draw, depth: int) -> str:
    """A statement holding trigger words: an example's statement, or nested blocks, control
    flow, lambdas, initializer lists, preprocessor conditionals, try/catch around more."""
    if depth <= 0 or draw(st.integers(0, 2)) == 0:
        e = lambda: draw(c_expression())
        return _one_of(
            draw, lambda: draw(st.sampled_from(c_fragments()["statement"])), lambda: f"{e()};",
            lambda: f"int values[] = {{{e()}, {e()}}};",
            lambda: f"struct ibv_sge sge = {{.addr = (uintptr_t){e()}, .length = 4}};",
            lambda: f"CHECK({e()});",
        )
    inner = lambda: draw(c_statement(depth - 1))
    e = lambda: draw(c_expression())
    return _one_of(
        draw,
        lambda: f"{{\n{inner()}\n{{\n{inner()}\n}}\n}}",
        lambda: f"if ({e()}) {{\n{inner()}\n}} else {inner()}",
        lambda: f"for (int i = 0; i < {e()}; ++i) {{\n{inner()}\n}}",
        lambda: f"while ({e()}) {inner()}",
        lambda: f"do {{\n{inner()}\n}} while (0);",
        lambda: f"switch ({e()}) {{ case 1: {inner()} break; default: {inner()} }}",
        lambda: f"auto fn = [&, x](int v) mutable -> int {{\n{inner()}\nreturn v; }};",
        lambda: f"#if defined(USE_IT)\n{inner()}\n#else\n{inner()}\n#endif",
        lambda: f"try {{\n{inner()}\n}} catch (...) {{\n{inner()}\n}}",
        lambda: f"retry:\n{inner()}\nif ({e()}) goto retry;",
    )


@st.composite
def c_declaration(draw) -> str:
    """A top-level declaration holding trigger words: an example's declaration or function,
    or a function of random form (attributes, K&R parameters, template, CUDA kernel, macro)
    around statements, in a namespace or extern "C" block."""
    body = lambda: "\n".join(draw(c_statement(2)) for _ in range(draw(st.integers(1, 2))))
    name = _identifier(draw(st.sampled_from(trigger_words()["cpp"])))
    form = draw(st.sampled_from((
        "fragment", "fragment", "plain", "attributes", "k&r", "template", "kernel", "macro",
        "namespace", "extern", "struct",
    )))
    if form == "fragment":
        return draw(st.sampled_from(c_fragments()["top"]))
    if form == "plain":
        return f"int {name}_fn(void *buf, size_t len)\n{{\n{body()}\nreturn 0;\n}}"
    if form == "attributes":
        return (f"__attribute__((noinline, unused)) static inline int "
                f"{name}_fn(int a) __attribute__((cold))\n{{\n{body()}\n}}\n"
                f"[[nodiscard]] [[gnu::always_inline]] inline auto {name}_g() noexcept "
                f"-> int {{ {body()} }}")
    if form == "k&r":
        return f"int {name}_fn(a, b)\n    int a;\n    char *b;\n{{\n{body()}\n}}"
    if form == "template":
        return (f"template <typename T, int N = 4>\nT {name}_fn(T t, const T (&a)[N]) "
                f"{{\n{body()}\nreturn t;\n}}\ntemplate <> struct Box<int> {{ int v = N; }};")
    if form == "kernel":
        return f"__global__ void {name}_kernel(float *x)\n{{\n{body()}\n}}"
    if form == "macro":
        return f"#define {name.upper()}_DO(a, ...) do {{ \\\n    {body()} \\\n}} while (0)"
    if form == "namespace":
        return f"namespace {name}_ns {{\n{draw(c_declaration())}\n}}  // namespace"
    if form == "extern":
        return f"extern \"C\" {{\n{draw(c_declaration())}\n}}"
    return (f"struct {name}_s {{\n  {name}_s(const {name}_s &other, Cloner &cloner)\n"
            f"      : a(other.a), b(cloner.clone(other.b)) {{ {body()} }}\n"
            f"  Node *a;\n  Node *b = nullptr;\n}};")


@st.composite
def c_program(draw) -> bytes:
    includes = [text for text in c_fragments()["top"] if text.startswith("#include")]
    lines = draw(st.lists(st.sampled_from(includes), max_size=4))
    lines.extend(draw(c_declaration()) for _ in range(draw(st.integers(1, 3))))
    return ("\n".join(lines) + "\n").encode()


TEXT_FORMS = {
    "shell": ("export {w}=1", "{w}=1 torchrun train.py", "env -u X {w}=\"1\" python x.py",
              "mpirun -x {w}=1 ./a.out \\\n  --flag", "cat <<EOF\n{w}=1\nEOF", "# {w}=1",
              "[ -n \"${w}\" ] && echo ${{{w}:-1}}", "echo '{w}=1'"),
    "dockerfile": ("ENV {w}=1", "ENV {w} 1", "ENV A=1 \\\n    {w}=1", "RUN export {w}=1 && x",
                   "ARG {w}=1", "# {w}=1", "RUN <<EOF\n{w}=1\nEOF", "FROM base AS {w}"),
    "yaml": ("- name: {w}\n  value: \"1\"", "{w}: \"1\"", "env:\n  - {w}=1", "# {w}: 1",
             "x: &anchor\n  {w}: 1\ny: *anchor", "key: |\n  {w}=1", "? {w}\n: 1",
             "- {{name: {w}, value: 1}}"),
}
"""Lines of the text kinds, `{w}` a trigger word: settings, quoting, comments, heredocs,
continuations."""


@st.composite
def text_program(draw, language: str) -> bytes:
    """Lines of a shell script, Dockerfile or YAML file: the examples' lines and settings of
    trigger words in random forms, at random indentation."""
    example_lines = [line for code in seeds()[language] for line in code.decode().splitlines()]
    lines = []
    for _ in range(draw(st.integers(1, 12))):
        word = draw(st.sampled_from(trigger_words()[language]))
        line = draw(st.one_of(st.sampled_from(example_lines),
                              st.sampled_from(TEXT_FORMS[language]).map(
                                  lambda form, w=word: form.format(w=w))))
        lines.append(" " * draw(st.integers(0, 6)) + line)
    return ("\n".join(lines) + "\n").encode()


def program(language: str):
    """A program assembled from trigger words for a file of `language`."""
    if language in ("python", "cython"):  # (Cython reads Python)
        made = python_program()
    elif language in ("c", "cpp"):
        made = c_program()
    else:
        made = text_program(language)
    return made


# -- projects ----------------------------------------------------------------------------------


def every_kind(content) -> st.SearchStrategy[tuple[tuple[str, bytes], ...]]:
    """One file of each name in FILE_NAMES, its bytes drawn from `content(language)`."""
    return st.tuples(*(content(language).map(lambda data, name=name: (name, data))
                       for language, names in FILE_NAMES.items() for name in names))


def byte_projects() -> st.SearchStrategy[Project]:
    return every_kind(file_bytes).map(Project)


def program_projects() -> st.SearchStrategy[Project]:
    return every_kind(program).map(Project)


# -- configurations ----------------------------------------------------------------------------

GOOD_SELECTORS = ("ALL", "CUR", "CUR1", "CUR10", "CUR101", "CUR4", "CUR40", "CUR000",
                  "CUR003", "CUR5", "CUR601")
BAD_SELECTORS = ("cur101", "CUR9", "X", "", "CUR1O1", "C")
GOOD_PATTERNS = ("*.py", "build/", "!keep.py", "**/x", "pkg/", "*.cu", "/", "a.py", "**",
                 "[abc].py", "d.*")
BAD_PATTERNS = ("[", "\\", "", "[!]", " ")


def _mostly(good, bad):
    """`good` fifteen times in sixteen, else `bad` (so that many configurations are valid
    and the rules run under them)."""
    return st.integers(0, 15).flatmap(lambda n: good if n else bad)


def _scalar():
    return st.one_of(st.integers(-(2 ** 63), 2 ** 63 - 1), st.floats(), st.booleans(),
                     st.text(max_size=12), st.sampled_from(GOOD_SELECTORS + BAD_PATTERNS),
                     st.datetimes(), st.dates(), st.times())


@dataclass(frozen=True)
class DeepArray:
    """An array nested `depth` deep: `[[[...]]]` (written without recursion)."""

    depth: int


def _value(depth: int = 2):
    """A TOML value of any type, nested at most `depth` deep."""
    if depth <= 0:
        return _scalar()
    return st.one_of(_scalar(), st.lists(_value(depth - 1), max_size=3),
                     st.dictionaries(st.text(max_size=6), _value(depth - 1), max_size=3))


def _names():
    """Items for a list option: trigger words and other names, empty strings and values of
    other types."""
    names = st.one_of(st.sampled_from(trigger_words()["python"] + trigger_words()["cpp"]),
                      st.text(min_size=1, max_size=12).filter(str.strip))
    return st.one_of(names, st.just(""), _scalar())


def option_value(spec):
    """A value for a rule option: of its type (one of its choices, a list of names), or of
    any other."""
    kinds = spec.kind if isinstance(spec.kind, tuple) else (spec.kind,)
    if spec.choices:
        good = st.sampled_from(spec.choices)
    elif list in kinds or tuple in kinds:
        good = st.lists(_names(), max_size=4)
    else:
        good = _value()
    return _mostly(good, _value())


def _selectors(size: int = 3):
    return st.lists(_mostly(st.sampled_from(GOOD_SELECTORS), st.sampled_from(BAD_SELECTORS)),
                    max_size=size)


def _patterns():
    return _mostly(st.sampled_from(GOOD_PATTERNS), st.sampled_from(BAD_PATTERNS))


CONFIG_VALUES = {
    "select": _selectors, "extend-select": _selectors, "ignore": _selectors,
    "exclude": lambda: st.lists(_patterns(), max_size=3),
    "extend-exclude": lambda: st.lists(_patterns(), max_size=3),
    "per-file-ignores": lambda: st.dictionaries(_patterns(), _selectors(2), max_size=2),
    "force-exclude": st.booleans, "respect-gitignore": st.booleans,
    "target-python": lambda: _mostly(st.sampled_from(("3.8", "3.10", "3.12", " 3.11 ")),
                                     st.sampled_from(("3.15", "2.7", "3.x", "3"))),
    "page-size": lambda: _mostly(st.sampled_from((4096, 65536, 1 << 30)),
                                 st.sampled_from((1000, 0, -4096, 1 << 40))),
}
"""Each configuration key -> the values of its type (mostly valid ones)."""


@st.composite
def config_table(draw) -> dict:
    """A configuration table: keys with values of their type or of any other, sometimes an
    unknown key, and rule options (of known and unknown rules and options)."""
    rules = all_rules()
    table = {}
    for key in draw(st.lists(st.sampled_from(sorted(CONFIG_VALUES)), max_size=4, unique=True)):
        table[key] = draw(_mostly(CONFIG_VALUES[key](), _value()))
    if draw(st.integers(0, 15)) == 0:
        table[draw(st.text(min_size=1, max_size=10))] = draw(_value())
    if draw(st.integers(0, 15)) == 0:
        table[draw(st.sampled_from(sorted(CONFIG_VALUES)))] = draw(
            st.integers(100, 5000).map(DeepArray))
    codes = [code for code, rule in rules.items() if rule.options]
    options = {}
    for code in draw(st.lists(_mostly(st.sampled_from(codes),
                                      st.sampled_from(("CUR999", "cur101", "CUR001"))),
                              max_size=3)):
        specs = getattr(rules.get(code), "options", {})
        names = draw(st.lists(_mostly(st.sampled_from(sorted(specs) or ["x"]),
                                      st.just("no-such-option")), max_size=2))
        options[code] = {name: draw(option_value(specs[name]) if name in specs else _value())
                         for name in names}
    if options:
        table["rules"] = options
    return table


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def toml_value(value) -> str:
    """`value` written as TOML (inline arrays and tables)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return repr(value)  # nan, inf, -inf and 1e+300 are TOML as Python writes them
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(map(toml_value, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml_key(k)} = {toml_value(v)}"
                               for k, v in value.items()) + "}"
    if isinstance(value, DeepArray):
        return "[" * value.depth + "]" * value.depth
    return value.isoformat()  # datetime, date, time


def toml_document(table: dict, prefix: str = "") -> str:
    """The table as a TOML document: plain keys first, then `[rules.CODE]` tables."""
    lines = [f"[{prefix}]"] if prefix else []
    rules = table.get("rules")
    for key, value in table.items():
        if key != "rules" or not isinstance(rules, dict):
            lines.append(f"{_toml_key(key)} = {toml_value(value)}")
    if isinstance(rules, dict):
        head = f"{prefix}.rules" if prefix else "rules"
        lines.append(f"[{head}]")
        for code, options in rules.items():
            lines.append(f"[{head}.{_toml_key(code)}]")
            for name, value in (options.items() if isinstance(options, dict) else ()):
                lines.append(f"{_toml_key(name)} = {toml_value(value)}")
    return "\n".join(lines) + "\n"


@st.composite
def configurations(draw) -> tuple[str, bytes]:
    """A cursedlint.toml, or a pyproject.toml with a [tool.cursedlint] table; sometimes with
    its bytes mutated."""
    table = draw(config_table())
    if draw(st.booleans()):
        name, text = "cursedlint.toml", toml_document(table)
    else:
        name, text = "pyproject.toml", "[project]\nname = \"x\"\n" + toml_document(
            table, "tool.cursedlint")
    data = bytearray(text.encode())
    for _ in range(draw(_mostly(st.just(0), st.integers(1, 2)))):
        at = draw(st.integers(0, len(data)))
        data[at:at + draw(st.integers(0, 3))] = draw(st.sampled_from(TOKENS))
    return name, bytes(data)


def config_projects() -> st.SearchStrategy[Project]:
    """A random configuration over files that hold every rule's triggers."""
    files = every_kind(lambda language: st.one_of(
        st.sampled_from(seeds()[language] or (b"",)), program(language)))
    return st.builds(Project, files, configurations())


def projects() -> st.SearchStrategy[Project]:
    """Any of the three kinds of input."""
    return st.one_of(byte_projects(), program_projects(), config_projects())


# -- the checks --------------------------------------------------------------------------------


class Hang(BaseException):
    """A run went past its time limit (a BaseException, so that nothing on the way out
    mistakes it for the linter's own error); its argument says where it was."""


@dataclass(frozen=True)
class Failure:
    """What went wrong: `kind` (one of the checks) and `detail`, one line that tells failures
    of one cause from others (for grouping and minimizing)."""

    kind: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"


@dataclass(frozen=True)
class Run:
    code: int | None
    out: str
    err: str
    raised: str | None = None
    seconds: float = 0.0


def run_cli(argv: list[str]) -> Run:
    """`cursedlint` with `argv`, in this process: exit code, stdout, stderr, what it raised
    (its innermost frame and message) if it did, and the seconds it took."""
    out, err = io.StringIO(), io.StringIO()
    code, raised = None, None
    started = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 2
        except Exception as error:
            raised = _raised(error)
    return Run(code, out.getvalue(), err.getvalue(), raised, time.perf_counter() - started)


def _raised(error: Exception) -> str:
    """The exception, where it was raised and the last line of its message (a worker's
    error ends with the worker's exception)."""
    last = (str(error).strip().splitlines() or [""])[-1]
    where = _where(traceback.extract_tb(error.__traceback__))
    return f"{type(error).__name__} at {where}: {last}"[:300]


def _where(frames: traceback.StackSummary) -> str:
    """The innermost frame of cursedlint's own code among `frames` (the same for one cause,
    however deep the stack was when it overflowed)."""
    own = [frame for frame in frames if frame.filename.startswith(_PACKAGE_DIRS)]
    frame = (own or frames)[-1]
    return f"{os.path.basename(frame.filename)}:{frame.lineno} in {frame.name}"


_PACKAGE_DIRS = tuple(os.path.dirname(module.__file__) + os.sep
                      for module in (engine, importlib.import_module("cursedlint.rules")))


@contextlib.contextmanager
def forking_always():
    """`--jobs N` forks workers for any input (not only above 1 MiB), so that the comparison
    of `--jobs 1` and `--jobs 4` compares two code paths."""
    saved = engine.scheduler.PARALLEL_MIN_BYTES
    engine.scheduler.PARALLEL_MIN_BYTES = 0
    try:
        yield
    finally:
        engine.scheduler.PARALLEL_MIN_BYTES = saved


@contextlib.contextmanager
def time_limit(seconds: float):
    """Raise Hang in this (main) thread after `seconds`."""
    def expire(signum, frame):
        raise Hang(_where(traceback.extract_stack(frame)))

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


BASE_ARGS = ["check", ".", "--output-format", "json"]
WAYS = {
    "--no-cache --jobs 1": ["--no-cache", "--jobs", "1"],
    "--no-cache --jobs 4": ["--no-cache", "--jobs", "4"],
    "cold cache": ["--jobs", "1"],
    "warm cache": ["--jobs", "1"],
}
"""The runs of one project, in order; all must print the same and exit alike."""


def run_failures(way: str, run: Run) -> list[Failure]:
    """What is wrong with one run on its own."""
    if run.raised:
        return [Failure("exception", run.raised)]
    found = []
    if run.code not in (0, 1, 2):
        found.append(Failure("exit code", f"{run.code} ({way})"))
    if "Traceback (most recent call last)" in run.err:
        last = run.err.strip().splitlines()[-1]
        found.append(Failure("traceback on stderr", last[:300]))
    if run.code in (0, 1) or run.out:
        try:
            findings = json.loads(run.out)
        except ValueError:
            return [*found, Failure("invalid output", f"not JSON ({way}): {run.out[:100]!r}")]
        for finding in findings:
            if finding["code"] == "CUR000":
                message = finding["message"].split("; the rule was skipped")[0]
                found.append(Failure("CUR000", re.sub(r"^internal error in rule ", "", message)))
    return found


def check_project(project: Project, limit: float = 20.0) -> list[Failure]:
    """Lint `project` the four WAYS in a fresh directory; every failure found (each run's own,
    then outputs or exit codes that differ from the first run's). `limit`: seconds for all the
    runs."""
    return lint_project(project, limit)[1]


def lint_project(project: Project, limit: float = 20.0,
                 collect: bool = False) -> tuple[dict[str, Run], list[Failure]]:
    """`check_project`'s runs (those done before a hang), by way, and its failures. `collect`:
    free each run's cyclic garbage before the next run (whose own process would start without
    it), so that each run's peak memory is its own."""
    cwd = os.getcwd()
    runs: dict[str, Run] = {}
    with tempfile.TemporaryDirectory(prefix="cursedlint-fuzz-") as root:
        project.write(root)
        os.chdir(root)
        try:
            with time_limit(limit), forking_always():
                for way, args in WAYS.items():
                    runs[way] = run_cli(BASE_ARGS + args)
                    if collect:
                        gc.collect()
        except Hang as hang:
            hung = Failure("hang", f"past the time limit in run {len(runs) + 1}, at {hang}")
            return runs, [hung]
        finally:
            os.chdir(cwd)
    failures = [failure for way, run in runs.items() for failure in run_failures(way, run)]
    if failures:
        return runs, list(dict.fromkeys(failures))
    first_way, first = next(iter(runs.items()))
    for way, run in runs.items():
        if (run.code, run.out) != (first.code, first.out):
            kind = "jobs differ" if "jobs 4" in way else "cache differs"
            failures.append(Failure(kind, f"{way} (exit {run.code}) vs {first_way} "
                                          f"(exit {first.code})"))
    return runs, failures


def describe(project: Project, failures: list[Failure]) -> str:
    """A report of one failing input, for an assertion message."""
    return "\n".join(map(str, failures)) + "\n" + project.text()
