"""Tree-sitter parses with a bound on their CPU time and a check of their memory. Some text makes tree-sitter's lexer
read to the end of the file or line from each of many places (`x /*` repeated with no `*/`
after it, `#include <` repeated on one line): the parse then grows with the square of the
file (260 KB: 20 s; 2 MiB: about twenty minutes). A file of at least `BUDGETED_BYTES`, or of
at least `RISKY_BYTES` with such text possible in it (a `/*` after its last `*/`, a line longer
than `LONG_LINE`), is parsed from chunks, which lets tree-sitter ask between steps whether to
go on; past its budget it stops and the file is reported not checked. Other files cost at most
a few tenths of a second whatever they hold, and are parsed whole: a tree parsed from chunks
reads them again for each `node.text` (those files' lints cost 4-5% more instructions).

Before a file of at least `MEMORY_CHECKED_BYTES` is parsed, its tree's size is estimated from
its tokens (`tree_bytes`) and compared with the memory the process has left (`memory_left`):
where it would not fit, the file is reported not checked (`TooLittleMemory`) rather than
parsed: tree-sitter's allocator does not fail softly, and a 100 MB file under a 3 GiB
address-space limit ended the run in a segmentation fault.
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
MEMORY_CHECKED_BYTES = 1 << 20
"""Files from this size on are parsed only where their tree fits in the memory left (a
smaller one's tree takes at most about 200 MB: a process without that fails anyway)."""
TREE_BYTES_PER_TOKEN = 200
"""Memory a tree takes per token of its text (`_TOKENS`), measured (tree-sitter-c 0.24,
py-tree-sitter 0.26, 10 MB files): 100 bytes for real C (libfabric's sources, comments
counted as words), 140-150 for the densest text (`1,` repeated, `a+` repeated, `x=1;` lines),
and the re-parse of misread macro heads (`c_macros.parse`) holds 30% more while both trees live."""


class NotParsed(Exception):
    """Tree-sitter was not let parse a file to its end: the file is not checked."""

    size: int


class ParseTooSlow(NotParsed):
    """Tree-sitter ran past its budget on a file: `seconds` of CPU for `size` bytes."""

    def __init__(self, seconds: float, size: int):
        super().__init__(f"the C/C++ parser stopped after {seconds:.1f} s of CPU on {size:,} "
                         "bytes")
        self.seconds = seconds
        self.size = size


class TooLittleMemory(NotParsed):
    """A file's tree (about `needed` bytes) would not fit in the `left` bytes the process has
    (`limit` says what bounds it)."""

    def __init__(self, size: int, needed: int, left: int, limit: str):
        super().__init__(f"the C/C++ tree of {size:,} bytes would take about {needed:,} bytes; "
                         f"{left:,} are left ({limit})")
        self.size, self.needed, self.left, self.limit = size, needed, left, limit


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


_WORD_BYTES = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$"
_TOKENS = bytes(ord("a") if byte in _WORD_BYTES else ord(" ") if byte in b" \t\r\n\x0b\x0c"
                else ord(".") for byte in range(256))
"""Bytes as classes, for counting tokens: a run of word bytes is one, any other byte but a
blank one (more than tree-sitter reads in comments, strings and `->`: never fewer)."""


def tree_bytes(data: bytes) -> int:
    """About the most memory the tree of `data` takes (`TREE_BYTES_PER_TOKEN` per token)."""
    classes = data.translate(_TOKENS)
    tokens = classes.count(b".") + classes.count(b" a") + classes.count(b".a") + \
        classes.startswith(b"a")
    return tokens * TREE_BYTES_PER_TOKEN


def memory_left() -> tuple[int, str] | None:
    """The bytes the process can still take and what bounds them, the least of: its
    address-space limit (`ulimit -v`) less what it maps; its cgroup's memory limit less
    what the cgroup uses; the memory the system has available, swap included. None where
    none of these can be read (not Linux)."""
    import resource

    found = []
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    status = _numbers("/proc/self/status", ("VmSize",))
    if limit != resource.RLIM_INFINITY and "VmSize" in status:
        found.append((limit - status["VmSize"], "the address-space limit"))
    group = _cgroup_left()
    if group is not None:
        found.append((group, "the cgroup's memory limit"))
    system = _numbers("/proc/meminfo", ("MemAvailable", "SwapFree"))
    if "MemAvailable" in system:
        found.append((system["MemAvailable"] + system.get("SwapFree", 0),
                      "the system's available memory"))
    return min(found) if found else None


def _numbers(path: str, keys: tuple[str, ...]) -> dict[str, int]:
    """Of a `/proc` file of `Key: N kB` lines, the bytes of `keys` found there."""
    found = {}
    try:
        with open(path, encoding="ascii", errors="replace") as lines:
            for line in lines:
                key, _, value = line.partition(":")
                if key in keys and value.split():
                    found[key] = int(value.split()[0]) * 1024
    except (OSError, ValueError):
        return {}
    return found


def _cgroup_left() -> int | None:
    """A cgroup v2 memory limit less what the cgroup uses (None: none, or not readable)."""
    try:
        with open("/proc/self/cgroup", encoding="ascii", errors="replace") as lines:
            group = next((line[3:].strip() for line in lines if line.startswith("0::")), None)
        if group is None:
            return None
        folder = "/sys/fs/cgroup" + group.rstrip("/")
        with open(folder + "/memory.max", encoding="ascii") as limit:
            most = limit.read().strip()
        if not most.isdigit():
            return None
        with open(folder + "/memory.current", encoding="ascii") as used:
            return int(most) - int(used.read().strip())
    except (OSError, ValueError):
        return None


def check_memory(data: bytes) -> None:
    """Raise TooLittleMemory where the tree of `data` would not fit in the memory left."""
    if len(data) < MEMORY_CHECKED_BYTES:
        return
    left = memory_left()
    if left is None or len(data) * TREE_BYTES_PER_TOKEN <= left[0]:
        return  # (fewer tokens than bytes: it fits, whatever they are)
    needed = tree_bytes(data)
    if needed > left[0]:
        raise TooLittleMemory(len(data), needed, max(left[0], 0), left[1])


def parse(parser, data: bytes, old_tree=None):
    """`parser.parse(data, old_tree)`, raising ParseTooSlow past the budget of `data`, and
    TooLittleMemory, before a first parse (no `old_tree`), where its tree would not fit."""
    if old_tree is None:
        check_memory(data)
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
