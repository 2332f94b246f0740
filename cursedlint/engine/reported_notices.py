"""The findings the engine itself reports (CUR0xx notices): a file it could not read, parse or
check, a rule that failed, facts it could not gather, suppression comments that do nothing."""

from __future__ import annotations

import os

from cursedlint import notices
from cursedlint.findings import Finding, Span
from cursedlint.project.index import FactError
from cursedlint.rule import Notice, Rule
from cursedlint.source import Source


def _size_text(size: int) -> str:
    """Bytes for a message: `12.6 MB`, or `2 MiB` for a whole number of MiB."""
    if size % (1 << 20) == 0:
        return f"{size >> 20} MiB"
    return f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size:,} bytes"


def notice(kind: type[Notice], path: str, span: Span, message: str, help: str = "") -> Finding:
    return Finding(path, span, kind.code, kind.name, message, kind.severity, help=help)


def too_large(path: str, size: int, limit: int) -> Finding:
    """A file some rule could fire on but too large to parse within bounded memory."""
    message = f"not checked: {_size_text(size)} is more than max-file-size ({_size_text(limit)})"
    help = ("the file holds words a rule looks for, but parsing it would cost too much "
            f"memory; raise max-file-size above {size} to check it, or exclude it (or "
            "per-file-ignores CUR004 to leave it unchecked without a finding)")
    return notice(notices.TooLargeFile, path, Span(1, 1, 1, 1), message, help)


def too_slow(path: str, error) -> Finding:
    """A C/C++ file whose parse ran past its budget (`c.parse_budget.ParseTooSlow`)."""
    message = (f"not checked: the C/C++ parser stopped after {error.seconds:.1f} s on this "
               f"{_size_text(error.size)} file (its time grows faster than the file here)")
    help = ("some text no compiler accepts makes tree-sitter's time grow with the square of "
            "the file (many `/*` with no `*/` after them, `#include <` repeated on one line); "
            "fix or exclude the file (or per-file-ignores CUR004 to leave it unchecked "
            "without a finding)")
    return notice(notices.TooLargeFile, path, Span(1, 1, 1, 1), message, help)


def too_little_memory(path: str, error, too_large: bool) -> Finding:
    """A C/C++ file whose tree would not fit in the memory the run has left
    (`c.parse_budget.TooLittleMemory`): CUR004 where it is enabled, else CUR000 (no rule
    checked the file: never a pass)."""
    message = (f"not checked: parsing this {_size_text(error.size)} file would take about "
               f"{_size_text(error.needed)}, more than the {_size_text(error.left)} left "
               f"({error.limit})")
    help = ("run with more memory, or set max-file-size below this file's size (or "
            "per-file-ignores CUR004) to leave it unchecked")
    kind = notices.TooLargeFile if too_large else notices.InternalError
    return notice(kind, path, Span(1, 1, 1, 1), message, help)


def syntax_error(source: Source, error: BaseException) -> Finding:
    if "\0" in source.text:  # SyntaxError or ValueError without a position, by version
        line, column = source.offset_to_position(source.text.index("\0"))
        message = "syntax error: the file contains a NUL byte; no rule could check this file"
    elif isinstance(error, SyntaxError) and error.lineno:
        line = error.lineno
        column = max(error.offset or 1, 1)
        read = " (in its Python reading)" if source.language == "cython" else ""
        message = f"syntax error{read}: {error.msg}; no rule could check this file"
    elif isinstance(error, MemoryError) and not parser_stack_overflow(error):
        line, column = 1, 1
        message = ("the Python parser ran out of memory on this file (it is nested too deeply, "
                   "or the run has too little memory); no rule could check it")
    else:
        line, column = 1, 1
        message = "the file is nested too deeply for the Python parser; no rule could check it"
    return notice(notices.SyntaxErrorNotice, source.path, Span(line, column, line, column), message)


def parser_stack_overflow(error: MemoryError) -> bool:
    """Whether CPython's parser said the MemoryError is its stack's, for nesting (3.8: "s_push:
    parser stack overflow", 3.12+: "Parser stack overflowed"). 3.9-3.11 raise it bare, as
    they do when memory runs out: then either may be the cause."""
    return "stack overflow" in str(error).lower()


def out_of_memory(source: Source, parsed: bool = False) -> Finding:
    """A file the parser gave up on for memory, where CUR001 is not selected, or (`parsed`)
    whose lint ran out of memory after its parse: no rule checked it, which a run must never
    report as a pass (an internal error: the run's exit is 2, and the result is not cached)."""
    if parsed:
        message = (f"not checked: the run ran out of memory checking this file "
                   f"({_size_text(len(source.data))})")
        help = ("run with more memory, or set max-file-size below this file's size to "
                "leave it unchecked (CUR004)")
        return notice(notices.InternalError, source.path, Span(1, 1, 1, 1), message, help)
    message = (f"the Python parser ran out of memory on this file ({len(source.data):,} bytes; "
               "or it is nested too deeply); no rule could check it")
    return notice(notices.InternalError, source.path, Span(1, 1, 1, 1), message)


def internal_error(path: str, rule: type[Rule], error: BaseException) -> Finding:
    message = (
        f"internal error in rule {rule.code} ({rule.name}): {type(error).__name__}: {error}; "
        "the rule was skipped for this file (--show-traceback prints the stack)"
    )
    return notice(notices.InternalError, path, Span(1, 1, 1, 1), message)


def fact_error(path: str, error: FactError) -> Finding:
    message = (f"internal error gathering facts ({error.indexer}) from this file: "
               f"{error.error}; the facts it holds are missing (--show-traceback prints the "
               "stack)")
    return notice(notices.InternalError, path, Span(1, 1, 1, 1), message)


def unmatched(path: str, block) -> Finding:
    other = "NOLINTEND" if block.kind == "BEGIN" else "NOLINTBEGIN"
    where = "after" if block.kind == "BEGIN" else "before"
    return notice(notices.UnmatchedSuppressionBlock, path, block.span,
                   f"NOLINT{block.kind} without a matching {other} {where} it: it suppresses "
                   "nothing")


def unused(source: Source, found, enabled: frozenset[str], known: frozenset[str]
            ) -> list[Finding]:
    unused = []
    for suppression in found:
        if suppression.invalid:
            comment = source.line_text(suppression.span.line)[suppression.span.column - 1:]
            unused.append(notice(
                notices.UnusedSuppression, source.path, suppression.span,
                f"`{comment.strip()}` is not `# noqa: CODE[,CODE]`: it suppresses nothing"))
            continue
        unknown = suppression.unknown_codes(known)
        if unknown:
            comment = _comment_text(source, suppression)
            unused.append(notice(
                notices.UnusedSuppression, source.path, suppression.span,
                f"`{comment}` names {', '.join(unknown)}, which no cursedlint code is"))
            continue
        codes = suppression.named_codes()
        if suppression.used or not codes or not codes <= enabled:
            continue
        comment = _comment_text(source, suppression)
        message = (
            f"`{comment}` suppresses nothing: no finding of {', '.join(sorted(codes))} "
            "starts on the line it covers; remove it so it cannot hide the next real finding"
        )
        unused.append(notice(notices.UnusedSuppression, source.path, suppression.span, message))
    return unused


def _comment_text(source: Source, suppression) -> str:
    text = source.line_text(suppression.span.line)
    return text[suppression.span.column - 1 : suppression.span.end_column - 1]


def report_fact_errors(results: list, errors: list[FactError], show_traceback: bool) -> None:
    """Each error of the facts' gathering as a CUR000 finding: on its file's result when
    that file is linted, else (a file the facts were drawn from) on the first result that
    asked for that indexer's facts, naming its file."""
    from cursedlint.formats.shared import as_given

    for error in dict.fromkeys(errors):
        path = os.path.abspath(error.path)
        owner = next((r for r in results if os.path.abspath(r.path) == path), None) or \
            next((r for r in results if error.indexer in r.needs), None) or \
            (results[0] if results else None)
        if owner is None:
            continue
        owner.findings.append(fact_error(
            owner.path if os.path.abspath(owner.path) == path else as_given(path), error))
        owner.findings.sort(key=lambda finding: finding.sort_key)
        if show_traceback:
            owner.tracebacks.append(error.traceback)
