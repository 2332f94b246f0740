"""`--fix` and `--diff`: fixes applied pass by pass, re-linting in between, and written once."""

from __future__ import annotations

from typing import Callable

import cursedlint.engine.fixes as fixes
from cursedlint.engine.results import FileResult
from cursedlint.findings import Finding
from cursedlint.source import Source

MAX_FIX_PASSES = 10


class FixWriter:
    """Applies a file's fixes. `lint_bytes(path, data, language)`: the file's result;
    `mode`: "safe" or "unsafe" (also fixes marked unsafe); `roots`: the real paths fixes may
    be written within (`fixes.write_roots`; default: each file's own directory); `show_diff`:
    write nothing, each result holds its fixes as a unified diff."""

    def __init__(self, lint_bytes: Callable[[str, bytes, str], FileResult], mode: str,
                 roots: tuple[str, ...] | None = None, show_diff: bool = False):
        self.lint_bytes = lint_bytes
        self.unsafe = mode == "unsafe"
        self.roots = roots
        self.show_diff = show_diff

    def fixable(self, result: FileResult) -> bool:
        """Whether the result has a fix this writer applies."""
        return bool(fixes.fixable(result.findings, self.unsafe))

    def fix_file(self, path: str, data: bytes, language: str, result: FileResult) -> FileResult:
        """Apply fixes pass by pass, re-linting in between, and write the file once. A fix that
        would leave code that does not parse is left out (and noted); the others still apply.
        A file that may not be written (`fixes.write`), or whose write fails, keeps its
        content and its findings, with a note saying why. `result` always describes the
        current `source`."""
        original = result
        source, fixed, result = self._fixed(path, data, language, result)
        if fixed and self.show_diff:
            result.diff = fixes.unified_diff(path, Source.from_bytes(path, data, language).text,
                                             source.text)
        elif fixed:
            try:
                fixes.write(path, data, source.data, self.roots)
            except (fixes.NotWritable, fixes.WriteFailed) as reason:
                original.notes.append(f"fixes not written: {reason}")
                original.write_failed = isinstance(reason, fixes.WriteFailed)
                return original
        return result

    def fix_bytes(self, path: str, data: bytes, language: str) -> tuple[bytes, FileResult]:
        """The bytes of a file that is no file (standard input) with its fixes applied as
        `fix_file` applies them (`data` itself when none applies), and their result."""
        result = self.lint_bytes(path, data, language)
        if not self.fixable(result):
            return data, result
        source, _, result = self._fixed(path, data, language, result)
        return source.data, result

    def _fixed(self, path: str, data: bytes, language: str,
               result: FileResult) -> tuple[Source, int, FileResult]:
        """The source with the fixes applied pass by pass, re-linting in between (those that
        would leave code that does not parse left out, with a note), how many applied, and
        the result of the fixed source (its `fixed` set)."""
        source = Source.from_bytes(path, data, language)
        fixed = 0
        rejected: set[tuple] = set()
        for _ in range(MAX_FIX_PASSES):
            candidates = [
                finding
                for finding in fixes.fixable(result.findings, self.unsafe)
                if finding.sort_key not in rejected
            ]
            text, count = self._parseable_fixes(source, candidates, rejected)
            if not count:
                break
            source = Source(path, source.encode(text), text, language, source.encoding)
            fixed += count
            result = self.lint_bytes(path, source.data, language)
        result.notes.extend(
            f"fix for {code} at line {line} not applied: the fixed code would not parse"
            for _, line, _, code, _ in sorted(rejected)
        )
        result.fixed = fixed
        return source, fixed, result

    @staticmethod
    def _parseable_fixes(source: Source, candidates: list[Finding], rejected: set) -> tuple[str, int]:
        """The text with as many of `candidates` applied as keep it parseable and encodable:
        all together when they can, else the first one that can alone."""
        singles = [[finding] for finding in candidates] if len(candidates) > 1 else []
        for batch in ([candidates] if candidates else []) + singles:
            text, count = fixes.apply(source, batch)
            try:
                source.encode(text)
            except UnicodeEncodeError:
                ok = False
            else:
                ok = fixes.still_parses(text, source)
            if ok:
                return text, count
            if len(batch) == 1:
                rejected.add(batch[0].sort_key)
        return source.text, 0

