"""Parse-free facts about Python source bytes, for a rule's second prefilter look (`may_fire`).

Every answer over-approximates: True where the fact may hold, False only where it cannot. Text
the scanner cannot read with certainty (an unterminated or nested-quote string, unbalanced
brackets, or more than MAX_TOKENS brackets and commas to read for calls nested in calls)
answers True, so the file is parsed as before.
"""

from __future__ import annotations

import re
from typing import Iterable

MAX_TOKENS = 1_000_000

# String literals (any prefix: the prefix letters stay in the text, harmlessly) and comments.
_STRING_OR_COMMENT = re.compile(
    rb"'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"
    rb'|"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'
    rb"|'[^'\\\r\n]*(?:\\(?:\r\n|.)[^'\\\r\n]*)*'"
    rb'|"[^"\\\r\n]*(?:\\(?:\r\n|.)[^"\\\r\n]*)*"'
    rb"|#[^\r\n]*",
    re.S,
)
_HASH = ord("#")
_PREFIX_LETTERS = frozenset(b"rRbBuUfF")
_PREFIX_BEFORE = re.compile(rb"(?<![\w])[rRbBuUfF]{1,2}$")  # a string prefix right before a quote
_BRACE = re.compile(rb"[{}]")
_OPEN = ord("{")
_CONTINUATION = re.compile(rb"\\\r?\n")
_KEYWORD_EQUALS = re.compile(rb"[^=!<>:]=(?!=)")
_NON_ASCII = re.compile(rb"[\x80-\xff]+")
_BLANK_BYTES = frozenset(b" \t\r\n\f")
_AS_NAME = re.compile(rb"as[ \t\r\n\f]+([\w\x80-\xff]+)")  # literal first: a fast scan
_DOT = ord(".")
_NAME_BYTES = frozenset(
    b"_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" + bytes(range(0x80, 0x100))
)
_ARGUMENT_TOKEN = re.compile(rb"[()\[\]{},=]|lambda")


def code_only(data: bytes) -> bytes | None:
    """`data` with every string literal replaced by `0`, comments and line continuations by a
    space, and the expressions in f-strings' replacement fields added as lines of code at the
    end; None when its strings cannot be delimited with certainty (an f-string whose braces do
    not balance, as Python 3.12's nested quotes give, or a stray quote)."""
    fields: list[bytes] = []
    unsure = False

    def blank(token: re.Match) -> bytes:
        nonlocal unsure
        start = token.start()
        if data[start] == _HASH:
            return b" "
        if start == 0 or data[start - 1] not in _PREFIX_LETTERS:
            return b"0"
        prefix = _PREFIX_BEFORE.search(data, max(0, start - 3), start)
        if prefix and b"f" in prefix.group().lower():
            found = _replacement_fields(token.group())
            if found is None:
                unsure = True
            else:
                fields.extend(found)
        return b"0"

    text = _STRING_OR_COMMENT.sub(blank, data)
    if unsure or b"'" in text or b'"' in text:
        return None
    for field in fields:
        code = code_only(field)
        if code is None:
            return None
        text += b"\n" + code
    return _CONTINUATION.sub(b" ", text)


def _replacement_fields(token: bytes) -> list[bytes] | None:
    """The text inside the top-level `{...}` of an f-string token (quotes included); None when
    its braces do not balance."""
    quote = 3 if token[:3] in (b"'''", b'"""') and len(token) >= 6 else 1
    body = token[quote:-quote]
    braces = [brace.start() for brace in _BRACE.finditer(body)]
    fields, depth, begin, index = [], 0, 0, 0
    while index < len(braces):
        at = braces[index]
        opening = body[at] == _OPEN
        if depth == 0:
            doubled = index + 1 < len(braces) and braces[index + 1] == at + 1
            if doubled and body[at + 1] == body[at]:
                index += 2  # {{ or }} outside a field: a literal brace
                continue
            if not opening:
                return None
            depth, begin = 1, at + 1
        elif opening:
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                fields.append(body[begin:at])
        index += 1
    return fields if depth == 0 else None


def has_call_with_arguments(
    text: bytes | None,
    callees: frozenset[bytes],
    *,
    modules: frozenset[bytes] = frozenset(),
    positional: int | None = None,
    keywords: frozenset[bytes] = frozenset(),
) -> bool:
    """Whether code (`code_only`'s answer; None: unreadable) may hold a call of one of `callees`
    with at least `positional` (> 1) positional arguments before its first keyword argument,
    or with one of `keywords` written as a keyword argument. A call counts where an import
    table could resolve it: a bare callee, or one ending an attribute chain that begins with
    one of `modules`; the names a callee or module is imported `as` count as it does, and so
    does any name that is not ASCII (NFKC may turn it into one). Each such call's arguments
    are read up to its closing parenthesis."""
    if text is None:
        return True
    aliases = _as_pairs(text)
    callee_aliases = {alias for name, alias in aliases if name in callees}
    roots = modules | {alias for name, alias in aliases if name in modules}
    names = callees | callee_aliases | _non_ascii_names(text)
    call = re.compile(rb"(?:%s)\s*\(" % b"|".join(map(re.escape, sorted(names))))
    budget = MAX_TOKENS
    for found in call.finditer(text):
        if found.start() and text[found.start() - 1] in _NAME_BYTES:
            continue  # the end of a longer name
        root = _chain_root(text, found.start())
        if root is None or (
            root != text[found.start() : found.end()].rstrip(b" \t\r\n\f(")
            and root not in roots
            and root.isascii()
        ):
            continue  # a method of some other object
        depth, commas, lambdas, keyword_seen = 0, 0, False, False
        argument = found.end()  # where the current argument starts
        for token in _ARGUMENT_TOKEN.finditer(text, found.end()):
            budget -= 1
            if budget < 0:
                return True  # calls nested beyond reason: unsure
            mark = token.group()
            if mark in b"([{":
                depth += 1
            elif mark in b")]}":
                depth -= 1
                if depth < 0:
                    break  # the call's closing parenthesis
            elif depth:
                continue
            elif mark == b",":
                argument = token.end()
                if not keyword_seen:
                    commas += 1
                    if positional is not None and commas >= positional - 1:
                        return True
            elif mark == b"lambda":
                lambdas = True  # its defaults' `=` are not keyword arguments
            elif _KEYWORD_EQUALS.match(text, token.start() - 1):
                if text[argument:token.start()].strip() in keywords:
                    return True  # (or a lambda's parameter of that name: unsure)
                if not lambdas:
                    keyword_seen = True
                    if not keywords:
                        break  # only keyword arguments follow
        else:
            return True  # unbalanced: unsure
    return False


def _non_ascii_names(text: bytes) -> set[bytes]:
    """The names in code that hold a non-ASCII byte (found from those bytes: a regex for such
    names would backtrack through every ASCII name)."""
    names: set[bytes] = set()
    if text.isascii():
        return names
    for found in _NON_ASCII.finditer(text):
        begin, end = found.start(), found.end()
        while begin and text[begin - 1] in _NAME_BYTES:
            begin -= 1
        while end < len(text) and text[end] in _NAME_BYTES:
            end += 1
        names.add(text[begin:end])
    return names


def _as_pairs(text: bytes) -> list[tuple[bytes, bytes]]:
    """Every `name as alias` in code (imports, and `with`/`except` targets, harmlessly)."""
    pairs = []
    for found in _AS_NAME.finditer(text):
        end = found.start()
        if not end or text[end - 1] not in _BLANK_BYTES:
            continue
        while end and text[end - 1] in _BLANK_BYTES:
            end -= 1
        begin = end
        while begin and text[begin - 1] in _NAME_BYTES:
            begin -= 1
        if begin < end:
            pairs.append((text[begin:end], found.group(1)))
    return pairs


def _chain_root(text: bytes, start: int) -> bytes | None:
    """The first name of the attribute chain whose last name starts at `start` (that name
    itself when no `.` precedes it); None when the chain does not begin with a plain name
    (`f().run`, `x[0].run`)."""
    begin = start
    while True:
        at = begin - 1
        while at >= 0 and text[at] in _BLANK_BYTES:
            at -= 1
        if at < 0 or text[at] != _DOT:
            end = begin
            while end < len(text) and text[end] in _NAME_BYTES:
                end += 1
            return text[begin:end]
        at -= 1
        while at >= 0 and text[at] in _BLANK_BYTES:
            at -= 1
        end = at + 1
        while at >= 0 and text[at] in _NAME_BYTES:
            at -= 1
        if at + 1 == end:
            return None
        begin = at + 1


def has_name(data: bytes, names: Iterable[bytes]) -> bool:
    """Whether one of `names` occurs in `data` as a whole name: neither preceded nor followed by
    a letter, digit, `_` or non-ASCII byte (so `_add_callback` does not hold `add_callback`)."""
    for name in names:
        at = data.find(name)
        while at >= 0:
            end = at + len(name)
            if (at == 0 or data[at - 1] not in _NAME_BYTES) and (
                end == len(data) or data[end] not in _NAME_BYTES
            ):
                return True
            at = data.find(name, at + 1)
    return False
