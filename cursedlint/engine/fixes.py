"""Applying fixes: text edits from findings (and structural rewrites of Python calls, made with
libcst), only when asked, only when the result still parses.

Edits of one pass that overlap an earlier-accepted edit are left for the next pass (the engine
re-lints the fixed text), so two fixes can never corrupt each other. The fixed file is written
in place (`write`), only while it still holds what was linted: it stays the file it was, line
endings, links, owner, mode and attributes.
"""

from __future__ import annotations

import io
import os
import stat
from typing import Sequence

from cursedlint.findings import Edit, Finding, Rewrite
from cursedlint.languages import CYTHON, PYTHON_TREES
from cursedlint.source import _LINE_BREAK, Source, parse_python


def _offset(source: Source, line: int, column: int) -> int:
    return source.line_starts[line - 1] + column - 1


def fixable(findings: list[Finding], unsafe: bool) -> list[Finding]:
    return [f for f in findings if f.fix is not None and (f.fix.safe or unsafe)]


def line_ending(text: str) -> str:
    """The line ending of the file, as its first line ends: \\r\\n, \\r or \\n (\\n for a file
    of one line)."""
    match = _LINE_BREAK.search(text)
    return match.group() if match else "\n"


def apply(source: Source, findings: list[Finding]) -> tuple[str, int]:
    """The text with the fixes of `findings` applied (non-overlapping ones), and how many. Every
    line break in an edit's content is written as the file's own line ending."""
    newline = line_ending(source.text)
    chosen: list[tuple[int, int, str]] = []
    applied = 0
    for finding in findings:
        edits = [_as_range(source, edit, newline) for edit in finding.fix.edits]
        try:
            edits += [_rewritten(source, rewrite, newline) for rewrite in finding.fix.rewrites]
        except ValueError:  # the call is no longer what the finding saw
            continue
        if any(_overlaps(edit, other) for edit in edits for other in chosen):
            continue
        chosen.extend(edits)
        applied += 1
    text = source.text
    for start, end, content in sorted(chosen, reverse=True):
        text = text[:start] + content + text[end:]
    return text, applied


def _as_range(source: Source, edit: Edit, newline: str) -> tuple[int, int, str]:
    span = edit.span
    return (
        _offset(source, span.line, span.column),
        _offset(source, span.end_line, span.end_column),
        _LINE_BREAK.sub(newline, edit.content),
    )


def _rewritten(source: Source, rewrite: Rewrite, newline: str) -> tuple[int, int, str]:
    """A structural rewrite as a range of the text and its new content (libcst, imported
    here: only runs that apply or show fixes need it)."""
    from cursedlint.engine.structural_fixes import rewritten

    start, end, _ = _as_range(source, Edit(rewrite.span, ""), newline)
    return start, end, _LINE_BREAK.sub(newline, rewritten(source.text[start:end], rewrite))


def unified_diff(path: str, before: str, after: str) -> str:
    """The change from `before` to `after` of the file at `path`, as `git diff` writes it, for
    `git apply` or `patch` to apply.

    The name is quoted as git quotes it, C-style in double quotes (`_header_name`), when it
    holds a character that could end a line, command a terminal or be taken for quoting:
    `--- "a/nl\\n+++ evil.py"` is one line. The lines of the file are split at \\n only, as
    git and patch read them, and written raw, as git writes them: `git apply` needs their
    exact content, so a CR or an escape sequence in a line of the file reaches the terminal
    as it does in `git diff`. Each of them starts with ' ', '+' or '-', so none can start a
    header or a hunk; a last line without a line break is followed by git's
    "\\ No newline at end of file"."""
    import difflib

    lines = difflib.unified_diff(_diff_lines(before), _diff_lines(after),
                                 _header_name(f"a/{path}"), _header_name(f"b/{path}"))
    return "".join(line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n"
                   for line in lines)


def _diff_lines(text: str) -> list[str]:
    """The lines of `text` with their line breaks, split at \\n only."""
    return io.StringIO(text, newline="\n").readlines()


_C_ESCAPES = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f",
              "\r": "\\r", '"': '\\"', "\\": "\\\\"}


def _header_name(name: str) -> str:
    """`name` as git writes a file name in a diff header: as it is, unless it holds a control
    character, a character that prints nothing (str.isprintable: line and paragraph
    separators, format characters such as U+202E, a byte that was not UTF-8), a double quote
    or a backslash; then in double quotes, with each of those written as C writes it: `\\n`,
    `\\"`, `\\\\`, or each of its bytes in octal (`\\033`). `git apply` and `patch` read both.
    A name with a space is followed by a tab, as git writes it: else patch takes the space
    for the end of the name."""
    if not name.isprintable() or '"' in name or "\\" in name:
        name = '"' + "".join(_C_ESCAPES.get(char) or (char if char.isprintable() else _octal(char))
                             for char in name) + '"'
    return f"{name}\t" if " " in name else name


def _octal(char: str) -> str:
    return "".join(f"\\{byte:03o}" for byte in os.fsencode(char))


def _overlaps(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    return a[0] < b[1] and b[0] < a[1] or (a[0] == a[1] == b[0] == b[1])


def still_parses(text: str, source: Source) -> bool:
    """A fix must leave code that parses: Python re-parses with ast (Cython, its
    translation); C/C++ may not gain tree-sitter error nodes."""
    if source.language in PYTHON_TREES:
        try:
            if source.language == CYTHON:
                from cursedlint.python.cython import parse_cython

                parse_cython(text)
            else:
                parse_python(text)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return False
        return True
    from cursedlint.c.context import parse
    from cursedlint.c.parse_budget import NotParsed

    try:
        before = parse(source.data, source.language).root_node
        after = parse(source.encode(text), source.language).root_node
    except NotParsed:
        return False
    return after.has_error <= before.has_error


class NotWritable(Exception):
    """A file whose fixes cursedlint declines to write; the message says why."""


class WriteFailed(Exception):
    """Writing a file's fixes failed (an I/O error); the message says why and what became of
    the file."""


def write_roots(paths: Sequence[str], project_root: str) -> tuple[str, ...]:
    """Where fixes may be written, as real paths: the linted directories (a symlink to one that
    was named is resolved, as discovery walks it), the linted files as named (a symlink among
    them is not followed) and the project's root directory."""
    def real(path: str) -> str:
        if os.path.isdir(path):
            return os.path.realpath(path)
        directory, name = os.path.split(os.path.abspath(path))
        return os.path.join(os.path.realpath(directory), name)

    return tuple(sorted({real(path) for path in (*paths, project_root)}))


def write(path: str, original: bytes, fixed: bytes, roots: Sequence[str] | None = None) -> None:
    """Write `fixed` over the file `path` names (its content: `original`), keeping the file
    itself. A symlink's target is written when it lies within `roots` (`write_roots`; default:
    the directory `path` is in). Raises NotWritable (the symlink leads elsewhere, the file is
    read-only or this user may not write it, or it no longer holds `original`) or WriteFailed
    (an I/O error).

    An editor may save the file while it is linted and fixed: right before the overwrite, the
    file must still hold `original`, read again through the descriptor that writes it, and
    the path must still name that file (an editor may save by renaming a new file over it);
    else it is left as it is now (`_check_unchanged`).

    The file is overwritten in place, not replaced by a new file renamed over it: only in place
    does it keep its inode, and so its hard links, owner and group, mode, ACLs, extended
    attributes (security labels included, which an unprivileged copy cannot set) and file
    flags. So that no failure loses data, a backup copy of `original` is first written and
    flushed beside the file (same file system); if the overwrite fails, `original` is written
    back and the copy removed, and if even that fails, the copy is kept and the message names
    it. A directory the copy cannot be created in (read-only, full) leaves the file unchanged.

    A file is read-only when its owner may not write it (its mode bits), whoever runs
    cursedlint: root may write any file, so asking the operating system alone would rewrite a
    0444 file under root."""
    target = _target(path, roots)
    descriptor = _open_for_writing(target)
    try:
        backup = _write_backup(target, original)
        try:
            _check_unchanged(descriptor, target, original)
        except (NotWritable, WriteFailed):
            _discard(backup)
            raise
        failure = _overwrite(descriptor, original, fixed, backup)
    finally:
        _close(descriptor)
    _discard(backup)
    if failure:
        raise WriteFailed(f"{failure}; the file is unchanged")


def _target(path: str, roots: Sequence[str] | None) -> str:
    """The real path of `path` when it lies within `roots` and its mode lets its owner write."""
    target = os.path.realpath(path)
    if roots is None:
        roots = (os.path.realpath(os.path.dirname(os.path.abspath(path))),)
    if not any(_is_within(target, root) for root in roots):
        raise NotWritable(
            f"it leads through a symlink to {target}, outside the linted paths and the "
            "project; cursedlint writes nothing there"
        )
    try:
        mode = os.stat(target).st_mode
    except OSError as error:
        raise WriteFailed(f"cannot read its mode: {_reason(error)}") from None
    if not mode & stat.S_IWUSR:
        raise NotWritable(
            f"the file is read-only (mode {stat.S_IMODE(mode):04o}); make it writable "
            "(chmod u+w) to have them applied"
        )
    return target


def _is_within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _open_for_writing(target: str) -> int:
    """A descriptor to read the file again and write it through, without changing it yet
    (never following a symlink swapped in since `_target`, never waiting on a FIFO)."""
    flags = os.O_RDWR | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        return os.open(target, flags | getattr(os, "O_BINARY", 0))
    except PermissionError as error:
        raise NotWritable(f"this user may not write the file: {_reason(error)}") from None
    except OSError as error:
        raise WriteFailed(f"cannot open it for writing: {_reason(error)}; the file is unchanged") from None


def _write_backup(target: str, original: bytes) -> str:
    import tempfile  # only --fix writes files

    directory = os.path.dirname(target)
    try:
        descriptor, backup = tempfile.mkstemp(dir=directory, prefix=".cursedlint-fix-", suffix=".bak")
    except OSError as error:
        raise WriteFailed(
            f"cannot create a backup copy in {directory}: {_reason(error)}; the file is unchanged"
        ) from None
    try:
        _put(descriptor, original)
    except OSError as error:
        _discard(backup)
        raise WriteFailed(
            f"cannot write a backup copy in {directory}: {_reason(error)}; the file is unchanged"
        ) from None
    finally:
        _close(descriptor)
    return backup


def _check_unchanged(descriptor: int, target: str, original: bytes) -> None:
    """Raise NotWritable unless the open file still holds `original` and `target` still names
    it (an editor saves in place, or renames a new file over the old one), WriteFailed when it
    cannot be read. Its size is compared first; its bytes are read only when that is the same."""
    try:
        status = os.fstat(descriptor)
        same_file = os.path.samestat(status, os.stat(target))
    except OSError:  # the name leads to no file now
        same_file = False
    if not same_file or status.st_size != len(original) or \
            _head(descriptor, len(original) + 1) != original:
        raise NotWritable("the file changed since cursedlint read it; run cursedlint again to "
                          "fix it")


def _head(descriptor: int, limit: int) -> bytes:
    """The first `limit` bytes of the open file (fewer when it is shorter)."""
    content = bytearray()
    try:
        os.lseek(descriptor, 0, os.SEEK_SET)
        while chunk := os.read(descriptor, limit - len(content)):
            content += chunk
    except OSError as error:
        raise WriteFailed(
            f"cannot read it again: {_reason(error)}; the file is unchanged") from None
    return bytes(content)


def _overwrite(descriptor: int, original: bytes, fixed: bytes, backup: str) -> str | None:
    """Write `fixed` over the file; if that fails, write `original` back and say why it failed.
    Raises WriteFailed when even that fails (the backup is kept)."""
    try:
        _put(descriptor, fixed)
    except OSError as error:
        try:
            _put(descriptor, original)
        except OSError:
            raise WriteFailed(
                f"writing it failed: {_reason(error)}, and so did restoring its content: the "
                f"original is kept in {backup}"
            ) from None
        return f"writing it failed: {_reason(error)}"
    return None


def _put(descriptor: int, data: bytes) -> None:
    """`data` as the whole content of the open file, flushed to disk (fsync): only then does a
    backup copy survive a power loss, and on NFS a full disk or quota is reported only then."""
    os.lseek(descriptor, 0, os.SEEK_SET)
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]
    os.ftruncate(descriptor, len(data))
    os.fsync(descriptor)


def _close(descriptor: int) -> None:
    """Close a file `_put` wrote: its data is flushed, so an error closing it changes nothing."""
    try:
        os.close(descriptor)
    except OSError:
        pass


def _discard(backup: str) -> None:
    """Remove a backup copy whose content the file holds (written back, or never changed): if
    that fails, a stray copy is left and nothing is lost."""
    try:
        os.unlink(backup)
    except OSError:
        pass


def _reason(error: OSError) -> str:
    return error.strerror or str(error)
