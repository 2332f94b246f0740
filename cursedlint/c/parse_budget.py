"""Tree-sitter parses with a bound on their CPU time. Some text makes tree-sitter's lexer
read to the end of the file or line from each of many places (`x /*` repeated with no `*/`
after it, `#include <` repeated on one line): the parse then grows with the square of the
file (260 KB: 20 s; 2 MiB: about twenty minutes). A file of at least `BUDGETED_BYTES`, or of
at least `RISKY_BYTES` with such text possible in it (a `/*` after its last `*/`, a line longer
than `LONG_LINE`), is parsed from chunks, which lets tree-sitter ask between steps whether to
go on; past its budget it stops and the file is reported not checked. Other files cost at most
a few tenths of a second whatever they hold, and are parsed whole: a tree parsed from chunks
reads them again for each `node.text` (those files' lints cost 4-5% more instructions).
"""

from __future__ import annotations

import time

BUDGETED_BYTES = 64 << 10
RISKY_BYTES = 8 << 10
LONG_LINE = 4096
SECONDS = 1.0
SECONDS_PER_MB = 2.0
"""The budget: a second and two per MB of CPU time (tree-sitter reads about 10 MB/s of real
C/C++ on one core: the budget is 20x that and more)."""
_CHUNK = 256  # bytes a read gives: `node.text` of a tree parsed from chunks reads them again
_BLOCK = (LONG_LINE + 1) // 2  # any LONG_LINE + 1 bytes hold such a block whole
_CHECK_EVERY = 16  # progress calls (about one per 100 bytes) between reads of the clock


class ParseTooSlow(Exception):
    """Tree-sitter ran past its budget on a file: `seconds` of CPU for `size` bytes."""

    def __init__(self, seconds: float, size: int):
        super().__init__(f"the C/C++ parser stopped after {seconds:.1f} s of CPU on {size:,} "
                         "bytes")
        self.seconds = seconds
        self.size = size


def budget(size: int) -> float:
    return SECONDS + SECONDS_PER_MB * size / 1e6


def _may_be_slow(data: bytes) -> bool:
    """Whether the lexer may read far from many places: a `/*` after the file's last `*/` (each
    such `/*` is tried as a comment to the file's end), or a long line (each `<` after an
    `#include` is tried to the line's end)."""
    return data.rfind(b"/*") > data.rfind(b"*/") or _long_line(data)


def _long_line(data: bytes) -> bool:
    """Whether a line of `data` is longer than LONG_LINE, without splitting it into lines: such
    a line holds a whole block of `_BLOCK` bytes from a multiple of `_BLOCK` on, so only the
    lines around blocks without a newline are measured."""
    for block in range(0, len(data) - _BLOCK + 1, _BLOCK):
        if data.find(b"\n", block, block + _BLOCK) < 0:
            end = data.find(b"\n", block + _BLOCK)
            if (len(data) if end < 0 else end) - (data.rfind(b"\n", 0, block) + 1) > LONG_LINE:
                return True
    return False


def parse(parser, data: bytes, old_tree=None):
    """`parser.parse(data, old_tree)`, raising ParseTooSlow past the budget of `data`."""
    if len(data) < BUDGETED_BYTES and not (len(data) >= RISKY_BYTES and _may_be_slow(data)):
        return parser.parse(data, old_tree) if old_tree is not None else parser.parse(data)
    allowed = budget(len(data))
    started = time.process_time()
    calls, stopped = 0, False

    def stop(offset: int, has_error: bool) -> bool:
        nonlocal calls, stopped
        calls += 1
        if calls % _CHECK_EVERY == 0 and time.process_time() - started > allowed:
            stopped = True
        return stopped

    read = lambda at, point: data[at:at + _CHUNK]  # noqa: E731
    try:
        return (parser.parse(read, old_tree, progress_callback=stop) if old_tree is not None
                else parser.parse(read, progress_callback=stop))
    except ValueError:  # py-tree-sitter's answer to a parse told to stop
        if not stopped:
            raise
        parser.reset()  # (a stopped parse would go on where it was, in the next one)
        raise ParseTooSlow(time.process_time() - started, len(data)) from None
