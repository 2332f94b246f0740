"""Calls of the C library's raw `syscall()` entry point, read as the system call they make.

`syscall(SYS_process_vm_readv, pid, local, n, remote, m, 0)` is `process_vm_readv(pid, local,
n, remote, m, 0)`: the same kernel entry, -1 and `errno` on failure. The number is spelled
`SYS_name` or `__NR_name` (a project may `#define` it itself where the C library's headers
lack it: `#define SYS_process_vm_readv 310`), or by an object-like macro of the file standing
for such a spelling (`#define NR_READV __NR_process_vm_readv`). A bare number (`syscall(310,
...)`) differs between architectures and is not read. `c_syntax.callee` names such a call by
its system call; `system_calls` finds the calls of given system calls, which a token search
for the name does not (`SYS_process_vm_readv` is one token).
"""

from __future__ import annotations

from cursedlint.patterns import LazyPattern

PREFIXES = ("SYS_", "__NR_")
"""How the C library's and the kernel's headers spell a system call's number."""
_NUMBER = LazyPattern(r"(?:SYS_|__NR_)([A-Za-z_]\w*)")
_ALIAS = LazyPattern(rb"(?m)^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+\(?[ \t]*"
                     rb"(?:SYS_|__NR_)([A-Za-z_]\w*)[ \t]*\)?[ \t]*$")
_SPELLING = LazyPattern(rb"(?<![\w$])(?:SYS_|__NR_)([A-Za-z_]\w*)")
_SHARED, _SPELLED = "c-system-call-aliases", "c-system-calls-spelled"  # `FileContext.shared`


def spellings(names) -> tuple[str, ...]:
    """The numbers' spellings for system calls `names` (words that mark a file making them)."""
    return tuple(prefix + name for name in names for prefix in PREFIXES)


def system_call(context, call) -> str:
    """The system call a `syscall(...)` call makes, by the spelling of its number; "" where it
    is not told."""
    given = call.child_by_field_name("arguments")
    first = next((child for child in given.named_children if child.type != "comment"), None) \
        if given is not None else None
    while first is not None and first.type in ("parenthesized_expression", "cast_expression"):
        first = first.named_children[-1] if first.named_children else None
    if first is None or first.type != "identifier":
        return ""
    text = context.text(first)
    number = _NUMBER.fullmatch(text)
    if number is not None:
        return number[1]
    return _aliases(context).get(text, "")


def _aliases(context) -> dict[str, str]:
    """The file's object-like macros standing for a system call's number: name -> the call."""
    return context.shared(_SHARED, lambda: {
        match[1].decode(): match[2].decode()
        for match in _ALIAS.finditer(context.source.data)} if b"define" in
        context.source.data else {})


def _spelled(context) -> frozenset[str]:
    """The system calls whose numbers the file spells (`SYS_name`, `__NR_name`), none where it
    makes no `syscall`."""
    data = context.source.data
    return context.shared(_SPELLED, lambda: frozenset(
        match[1].decode() for match in _SPELLING.finditer(data)) if b"syscall" in data
        else frozenset())


def system_calls(context, names, node=None) -> list[tuple[str, object]]:
    """(system call, call) for each `syscall(...)` within `node` (default: the file) that makes
    one of the system calls `names` (others are left out), in order."""
    wanted = _spelled(context).intersection(names)
    if not wanted:
        return []
    found = []
    for _, call in context.calls(("syscall",), node):
        made = system_call(context, call)
        if made in wanted:
            found.append((made, call))
    return found


def calls_made(context, names, node=None) -> list[tuple[str, object]]:
    """`context.calls(names, node)` with the `syscall(...)` calls making one of `names`."""
    found = context.calls(names, node)
    raw = system_calls(context, names, node)
    return sorted([*found, *raw], key=lambda item: item[1].start_byte) if raw else found
