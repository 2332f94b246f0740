"""Structural fixes of Python calls, made with libcst (the concrete syntax tree keeps the call's
formatting and comments). Imported only when fixes are applied or shown: a `findings.Rewrite`
names the call and the keyword argument to set; `rewritten` makes the new text of the call.
"""

from __future__ import annotations

import libcst as cst

from cursedlint.findings import Edit, Rewrite, Span

_TIGHT = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                         whitespace_after=cst.SimpleWhitespace(""))


class NotACall(ValueError):
    """The rewritten text is not one call expression (the source changed under the fix)."""


def rewritten(text: str, rewrite: Rewrite) -> str:
    """`text`, the source of one call expression, with `rewrite.keyword` set to
    `rewrite.value`: in place of the keyword `rewrite.replaces` (or of itself) where the call
    has it, else added after the last argument in the call's own layout."""
    try:
        call = cst.parse_expression(text)
    except cst.ParserSyntaxError as error:
        raise NotACall(str(error)) from None
    if not isinstance(call, cst.Call):
        raise NotACall(f"not a call: {text!r}")
    value = cst.parse_expression(rewrite.value)
    names = {rewrite.keyword, rewrite.replaces}
    args = list(call.args)
    for index, arg in enumerate(args):
        if arg.keyword is not None and arg.keyword.value in names:
            args[index] = arg.with_changes(keyword=cst.Name(rewrite.keyword), value=value)
            return cst.Module([]).code_for_node(call.with_changes(args=args))
    return cst.Module([]).code_for_node(call.with_changes(args=_appended(call, value, rewrite)))


def _appended(call: cst.Call, value: cst.BaseExpression, rewrite: Rewrite) -> list[cst.Arg]:
    """The call's arguments with `keyword=value` added last: on a line of its own, indented as
    the first argument, where the arguments are laid out one per line; else after `, `. A
    comment after the last argument stays on its line."""
    new = cst.Arg(value=value, keyword=cst.Name(rewrite.keyword), equal=_TIGHT)
    args = list(call.args)
    if not args:
        return [new]
    last = args[-1]
    multiline = isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace)
    between = call.whitespace_before_args if multiline else cst.SimpleWhitespace(" ")
    trailing = isinstance(last.comma, cst.Comma)
    closing = last.comma.whitespace_after if trailing else last.whitespace_after_arg
    kept, closing = _split(closing, between)
    args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=kept),
                                 whitespace_after_arg=cst.SimpleWhitespace(""))
    if trailing:  # the new argument keeps the trailing comma, before the closing parenthesis
        return [*args, new.with_changes(comma=cst.Comma(whitespace_after=closing))]
    return [*args, new.with_changes(whitespace_after_arg=closing)]


def _split(closing: cst.BaseParenthesizableWhitespace, between):
    """Whitespace that ran from the last argument to `)`, split in two: up to the new
    argument (the old line's comment kept, then `between`'s indentation) and from it to `)`."""
    if not isinstance(closing, cst.ParenthesizedWhitespace) or \
            not isinstance(between, cst.ParenthesizedWhitespace):
        return between, closing
    kept = closing.with_changes(indent=between.indent, last_line=between.last_line)
    fresh = closing.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=())
    return kept, fresh


def as_edit(text: str, rewrite: Rewrite) -> Edit:
    """The rewrite as the one text edit it makes of `text`, the source of the call at
    `rewrite.span` (its lines joined by \\n), placed in the file: the part that changes,
    widened to whole words (`preexec_fn=os.setsid` -> `start_new_session=True`); an argument
    added on a line of its own is inserted at that line's start. What formats show of a
    structural fix. Raises NotACall as `rewritten` does."""
    new = rewritten(text, rewrite)
    start = 0
    while start < min(len(text), len(new)) and text[start] == new[start]:
        start += 1
    kept = 0  # characters both end with, after `start`
    while kept < min(len(text), len(new)) - start and text[-1 - kept] == new[-1 - kept]:
        kept += 1
    while _word(text, start - 1) and (_word(text, start) or _word(new, start)):
        start -= 1
    while kept and _word(text, len(text) - kept) and (_word(text, len(text) - kept - 1)
                                                      or _word(new, len(new) - kept - 1)):
        kept -= 1
    stop, content = len(text) - kept, new[start:len(new) - kept]
    while start == stop and start and text[start - 1] in " \t" and content[-1:] == text[start - 1]:
        start, stop, content = start - 1, stop - 1, text[start - 1] + content[:-1]
    return Edit(Span(*_position(text, start, rewrite.span), *_position(text, stop, rewrite.span)),
                content)


def _word(text: str, index: int) -> bool:
    """Whether `text[index]` is a character of a word (not where `index` is outside `text`)."""
    return 0 <= index < len(text) and (text[index].isalnum() or text[index] == "_")


def _position(text: str, offset: int, span: Span) -> tuple[int, int]:
    """The (line, column) in the file of `offset` in `text`, which starts where `span` does."""
    breaks = text.count("\n", 0, offset)
    if not breaks:
        return span.line, span.column + offset
    return span.line + breaks, offset - text.rindex("\n", 0, offset)
