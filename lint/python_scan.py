"""Parse-free facts about Python source bytes, for a rule's second prefilter look (`may_fire`).

Every answer over-approximates: True where the fact may hold, False only where it cannot. Text
the scanner cannot read with certainty (an unterminated or nested-quote string, unbalanced
brackets, nesting deeper than MAX_DEPTH, or more than MAX_TOKENS brackets and commas to read
for calls nested in calls) answers True, so the file is parsed as before.
"""

from __future__ import annotations

import re

MAX_DEPTH = 100
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
_PAREN_GROUP = re.compile(rb"\(([^()]*)\)")
_INNERMOST = re.compile(rb"[(\[{][^()\[\]{}]*[)\]}]")
_BRACKET = re.compile(rb"[()\[\]{}]")
_KEYWORD_EQUALS = re.compile(rb"[^=!<>:]=(?!=)")
_NOT_A_CALLEE = re.compile(
    rb"(?:^|[^\w])(?:and|as|assert|await|del|elif|else|except|for|from|if|import|in|is|lambda"
    rb"|not|or|raise|return|while|with|yield|def\s+\w+|class\s+\w+)$"
)
_NAME_CHAR = re.compile(rb"[\w\x80-\xff]")
_NON_ASCII = re.compile(rb"[\x80-\xff]")
_ARGUMENT_TOKEN = re.compile(rb"[()\[\]{},=]|lambda")
_AS_ALIAS = re.compile(rb"as\s+([\w\x80-\xff]+)")  # (and some words ending in "as")
_BEFORE_NON_CALL = frozenset(b"=([{,:+-*/%&|^~<>@;")


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


def has_call_with_positional_arguments(
    text: bytes | None, count: int, callees: frozenset[bytes] | None = None
) -> bool:
    """Whether code (`code_only`'s answer; None: unreadable) may hold a call with at least
    `count` (> 1) positional arguments before any keyword argument. With `callees`, only calls
    of a name or attribute chain whose last name is one of them (or names an `as` alias, or is
    not ASCII) count."""
    if text is None:
        return True
    if callees is not None:
        return _named_call_with_positional_arguments(text, count, callees)
    for _ in range(MAX_DEPTH):
        for group in _PAREN_GROUP.finditer(text):
            inside = group.group(1)
            if inside.count(b",") < count - 1:
                continue
            if b"lambda" not in inside:  # a lambda's default `=` is not a keyword argument
                keyword = _KEYWORD_EQUALS.search(b" " + inside)
                if keyword and inside.count(b",", 0, keyword.start()) < count - 1:
                    continue
            if _may_be_call(text, group.start()):
                return True
        flattened = _INNERMOST.sub(b"0", text)
        if flattened == text:
            return _BRACKET.search(text) is not None  # unbalanced: unsure
        text = flattened
    return True


def _may_be_call(text: bytes, paren: int) -> bool:
    """Whether the `(` at `paren` may open the arguments of a call: not a tuple, a group, a
    `def`'s parameters or a class's bases."""
    start = max(0, paren - 200)
    window = text[start:paren].rstrip()
    if not window:
        return start > 0  # only blanks before it: unsure, unless the file starts there
    if window[-1] in _BEFORE_NON_CALL:
        return False
    keyword = _NOT_A_CALLEE.search(window)
    return keyword is None or (keyword.start() == 0 and start > 0)  # cut off: unsure


def _named_call_with_positional_arguments(
    text: bytes, count: int, callees: frozenset[bytes]
) -> bool:
    """The same question for calls of `callees`, their `as` aliases and non-ASCII names only:
    each such call's arguments are read up to its closing parenthesis."""
    names = [re.escape(name) for name in sorted(callees | set(_AS_ALIAS.findall(text)))]
    if _NON_ASCII.search(text):
        names.append(rb"[\w\x80-\xff]*[\x80-\xff][\w\x80-\xff]*")
    call = re.compile(rb"(?:%s)\s*\(" % b"|".join(names))
    budget = MAX_TOKENS
    for found in call.finditer(text):
        if found.start() and _NAME_CHAR.match(text, found.start() - 1):
            continue  # the end of a longer name
        depth, commas, lambdas = 0, 0, False
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
                commas += 1
                if commas >= count - 1:
                    return True
            elif mark == b"lambda":
                lambdas = True  # its defaults' `=` are not keyword arguments
            elif not lambdas and _KEYWORD_EQUALS.match(text, token.start() - 1):
                break  # keyword arguments follow
        else:
            return True  # unbalanced: unsure
    return False
