"""Functions a C/C++ file declares never to return, and the functions it defines that leave
by a jump instead (CUR601's fatal handlers: `c_fatal`).

`noreturn_declared(data)` gives name -> (line, mark) for each function whose declaration or
definition carries a no-return mark: `[[noreturn]]`, `_Noreturn`, `noreturn`,
`__attribute__((noreturn))` (or `__noreturn__`), `__declspec(noreturn)`, or a macro whose
all-capital name contains `NORETURN` (`CMK_NORETURN`, `UCS_F_NORETURN`, `G_NORETURN`: a
project's spelling of one of these, defined per compiler) or the kernel's `__noreturn`; before
the return type or after the parameter list. Read from the bytes, with comments, strings and
preprocessor lines blanked (a mark in a `#define`, `#if defined _Noreturn` is no declaration;
a `#if` between the mark and the declarator does not part them). The declared function is the
name just before the first `(` after the mark (a mark after the parameters: the first `(` of
the declaration), attributes taken out, after nothing but specifiers (a C++ access label
before them), the mark outside any parentheses: a pointer to a function (`void (*hook)(void)
NORETURN`) declares none, nor does a call given a constant so named (`handle_error(EP_NORETURN,
...)`).

`escaping(context)` gives the names of the file's `void` function definitions whose body throws or
jumps out (`throw`, `longjmp`, `siglongjmp`, `pthread_exit`, `thrd_exit`): a function declared
not to return that does one of these ends no process (its caller may catch or land
elsewhere), so it is no fatal handler, wherever in the project it is declared.
"""

from __future__ import annotations

import re

from cursedlint.analysis.c_syntax import function_name
from cursedlint.patterns import LazyPattern

_MARK = LazyPattern(
    rb"(?<![\w#])(?:_Noreturn|noreturn|__noreturn__|__noreturn|[A-Z][A-Z0-9_]*NORETURN"
    rb"[A-Z0-9_]*|NORETURN[A-Z0-9_]*)(?!\w)(?!\s*\()")
_NOISE = LazyPattern(
    rb"/\*.*?\*/|//[^\n]*|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'"
    rb"|(?m:^[ \t]*#(?:[^\n\\]|\\.|\\\n)*)", re.S)
"""Comments, string and character literals, preprocessor lines (with their continuations)."""
_ATTRIBUTE = LazyPattern(rb"\b(?:__attribute__|__declspec)\s*\(|\[\[")
_SPECIFIERS = LazyPattern(rb"(?:[\w\s*&<>,]|::)*")  # what a declaration has before its name
_LABEL = LazyPattern(rb"\s*(?:public|protected|private)\s*:(?!:)")  # (C++ members' access)
_DECLARED = LazyPattern(rb"(?:[A-Za-z_]\w*\s*::\s*)*([A-Za-z_]\w*)\s*$")
_NOT_NAMES = frozenset({
    b"void", b"int", b"char", b"short", b"long", b"float", b"double", b"signed", b"unsigned",
    b"bool", b"_Bool", b"auto", b"if", b"while", b"for", b"switch", b"return", b"sizeof",
    b"decltype", b"alignas", b"operator", b"typeof", b"__typeof__"})
_ESCAPES = re.compile(rb"\b(?:throw|longjmp|siglongjmp|_longjmp|pthread_exit|thrd_exit)\b")
_WORDS = (b"oreturn", b"ORETURN")  # (`noreturn`, `_Noreturn`, `NORETURN`: two searches)
_ESCAPE_WORDS = (b"throw", b"longjmp", b"d_exit")  # (`pthread_exit` and `thrd_exit` hold `d_exit`)
_DECLARED_KEY, _ESCAPING_KEY = "c-noreturn-declared", "c-noreturn-escaping"  # `shared` keys


def declared_in(context) -> dict[str, tuple[int, str]]:
    """`noreturn_declared` of the file, read once however many of its analyses ask."""
    return context.shared(_DECLARED_KEY, lambda: noreturn_declared(context.source.data))


def noreturn_declared(data: bytes) -> dict[str, tuple[int, str]]:
    """Name -> (line, the mark's spelling) of the functions declared never to return (see the
    module)."""
    if not any(word in data for word in _WORDS) or not any(map(_may_declare, _MARK.finditer(
            data))):
        return {}
    text = _NOISE.sub(lambda match: re.sub(rb"[^\n]", b" ", match.group()), data)
    found: dict[str, tuple[int, str]] = {}
    for mark in _MARK.finditer(text):
        start = max(text.rfind(b";", 0, mark.start()), text.rfind(b"{", 0, mark.start()),
                    text.rfind(b"}", 0, mark.start())) + 1
        ends = [at for at in (text.find(b";", mark.end()), text.find(b"{", mark.end()))
                if at >= 0]
        declaration = _without_attributes(text[start:min(ends) if ends else len(text)])
        at = mark.start() - start
        if _depth(declaration, at):
            continue  # (the mark among a call's arguments: `f(EP_NORETURN, g(x))`)
        opening = declaration.find(b"(", at)  # a mark before the declarator: the `(` after it
        first = mark.end() - start
        if opening < 0:  # a mark after the parameters: the name before the first `(`
            opening = declaration.find(b"(")
            label = _LABEL.match(declaration)
            first = label.end() if label else 0
        named = _DECLARED.search(declaration, first, opening) if opening > first else None
        if named is None or named.group(1) in _NOT_NAMES \
                or not _SPECIFIERS.fullmatch(declaration, first, named.start()):
            continue  # (an expression: `case X_NORETURN: mark_dead(a);`, `x = NORETURN + f()`)
        name = named.group(1).decode("utf-8", errors="replace")
        line = data.count(b"\n", 0, start + named.start(1)) + 1
        found.setdefault(name, (line, mark.group().decode()))
    return found


def _may_declare(mark) -> bool:
    """Whether a mark may be a declaration's, by the byte before it: a macro's after `(`, `,`
    or an operator is an argument or an operand (`handle_error(EP_NORETURN, ...)`, read in
    many files: a cheap look before the file's bytes are cleaned)."""
    if not mark.group().isupper():
        return True
    before = mark.string[max(0, mark.start() - 64):mark.start()].rstrip()
    return not before or before[-1:] not in b"(,=!<>?:|&+-"


def _depth(text: bytes, at: int) -> int:
    """How many parentheses opened before `at` are still open there."""
    return max(0, text.count(b"(", 0, at) - text.count(b")", 0, at))


def _closing(text: bytes, opening: int) -> int:
    """Where the parenthesis opened at `opening` closes (the end of `text` if it does not)."""
    depth = 0
    for index in range(opening, len(text)):
        byte = text[index]
        if byte == 40:  # (
            depth += 1
        elif byte == 41:  # )
            depth -= 1
            if depth == 0:
                return index
    return len(text)


def _without_attributes(text: bytes) -> bytes:
    """`text` with its `__attribute__((...))`, `__declspec(...)` and `[[...]]` blanked (the
    offsets kept)."""
    while True:
        found = _ATTRIBUTE.search(text)
        if found is None:
            return text
        closing = b"]]" if found.group() == b"[[" else b")"
        at = found.end()
        if closing == b"]]":
            end = text.find(b"]]", at)
            end = len(text) if end < 0 else end + 2
        else:
            end = _closing(text, at - 1) + 1
        text = text[:found.start()] + b" " * (end - found.start()) + text[end:]


def escaping(context) -> frozenset[str]:
    """The names of the file's `void` function definitions whose body throws or jumps out
    (read once per file)."""
    return context.shared(_ESCAPING_KEY, lambda: _escaping(context))


def _escaping(context) -> frozenset[str]:
    data = context.source.data
    if not any(word in data for word in _ESCAPE_WORDS) or _ESCAPES.search(data) is None:
        return frozenset()
    names = set()
    for _, _, node in context.hits(_ESCAPES):
        definition = next((around for around in (node, *context.ancestors(node))
                           if around.type == "function_definition"), None)
        returned = definition.child_by_field_name("type") if definition is not None else None
        if returned is not None and returned.text == b"void":  # (as one never returning is)
            names.add(function_name(context, definition))
    return frozenset(names - {""})
