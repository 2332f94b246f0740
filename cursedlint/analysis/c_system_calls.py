"""Calls of the C library's raw `syscall()` entry point, read as the system call they make.

`syscall(SYS_process_vm_readv, pid, local, n, remote, m, 0)` is `process_vm_readv(pid, local,
n, remote, m, 0)`: the same kernel entry, -1 and `errno` on failure. The number is spelled
`SYS_name` or `__NR_name` (a project may `#define` it itself where the C library's headers
lack it: `#define SYS_process_vm_readv 310`), or by an object-like macro standing for such a
spelling (`#define NR_READV __NR_process_vm_readv`): the file's own (`aliases`), or another
file's of the project (a header's), once a rule's index has found it there and handed it to
the file being linted (`add_project_aliases`; a file's summary for the index is made before
the project's facts are known, so another file's wrapper calling through a header's macro is
not followed). A bare number (`syscall(310, ...)`) differs between
architectures and is not read. `c_syntax.callee` names such a call by
its system call; `system_calls` finds the calls of given system calls, which a token search
for the name does not (`SYS_process_vm_readv` is one token); `calls_made` finds both, but a
copy between the calling process and itself (`copies_own_memory`), for every use CUR601 makes
of them: the copy, its wrappers and its error codes.
"""

from __future__ import annotations

from cursedlint.analysis.c_nodes import arguments, unwrapped
from cursedlint.patterns import LazyPattern

PREFIXES = ("SYS_", "__NR_")
"""How the C library's and the kernel's headers spell a system call's number."""
_NUMBER = LazyPattern(r"(?:SYS_|__NR_)([A-Za-z_]\w*)")
_ALIAS = LazyPattern(rb"(?m)^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+(?:\([ \t]*)?"
                     rb"(?:SYS_|__NR_)([A-Za-z_]\w*)[ \t]*(?:\)[ \t]*)?$")
_SPELLING = LazyPattern(rb"(?<![\w$])(?:SYS_|__NR_)([A-Za-z_]\w*)")
_SHARED, _SPELLED = "c-system-call-aliases", "c-system-calls-spelled"  # `CContext.of_tree`
_PROJECT = "c-system-call-project-aliases"
_MADE = "c-calls-made"  # (with the names and the count of the project's aliases)


def spellings(names) -> tuple[str, ...]:
    """The numbers' spellings for system calls `names` (words that mark a file making them)."""
    return tuple(prefix + name for name in names for prefix in PREFIXES)


def system_call(context, call) -> str:
    """The system call a `syscall(...)` call makes, by the spelling of its number; "" where it
    is not told."""
    given = arguments(call)
    first = unwrapped(given[0]) if given else None
    if first is None or first.type != "identifier":
        return ""
    text = context.text(first)
    number = _NUMBER.fullmatch(text)
    if number is not None:
        return number[1]
    return aliases(context).get(text, "") or context.shared(_PROJECT, dict).get(text, "")


def add_project_aliases(context, found: dict[str, str]) -> None:
    """Hand the file other files' macros standing for system calls' numbers (name -> call);
    its own win."""
    if found:
        known = context.shared(_PROJECT, dict)
        known.update((name, call) for name, call in found.items() if name not in known)


def aliases_of(data: bytes, names) -> dict[str, str]:
    """The object-like macros of `data` standing for the numbers of the system calls `names`
    (name -> call), found from the numbers' spellings: a search for each call's name (its
    spellings' places among its own), not a pass over every line of the file."""
    found = {}
    if not any(prefix.encode() in data for prefix in PREFIXES):
        return found
    for name in names:  # (as `spellings` orders them; each name's places found by one search)
        word, places = name.encode(), []
        at = data.find(word)
        while at >= 0:
            places.append(at)
            at = data.find(word, at + 1)
        for prefix in (prefix.encode() for prefix in PREFIXES):
            end = 0
            for at in (place - len(prefix) for place in places):
                if at < end or at < 0 or not data.startswith(prefix, at):
                    continue  # (the first spelling of a line reads the line)
                start = data.rfind(b"\n", 0, at) + 1
                end = data.find(b"\n", at)
                end = len(data) if end < 0 else end
                match = _ALIAS.fullmatch(data, start, end)
                if match is not None and match[2].decode() in names:
                    found[match[1].decode()] = match[2].decode()
    return found


def aliases(context) -> dict[str, str]:
    """The file's object-like macros standing for a system call's number: name -> the call."""
    return context.of_tree(_SHARED, lambda: {
        match[1].decode(): match[2].decode()
        for match in _ALIAS.finditer(context.source.data)} if b"define" in
        context.source.data else {})


def _spelled(context) -> frozenset[str]:
    """The system calls whose numbers the file spells (`SYS_name`, `__NR_name`), none where it
    makes no `syscall`."""
    data = context.source.data
    return context.of_tree(_SPELLED, lambda: frozenset(
        match[1].decode() for match in _SPELLING.finditer(data)) if b"syscall" in data
        else frozenset())


def system_calls(context, names, node=None) -> list[tuple[str, object]]:
    """(system call, call) for each `syscall(...)` within `node` (default: the file) that makes
    one of the system calls `names` (others are left out), in order."""
    wanted = _spelled(context).intersection(names)
    project = context.shared(_PROJECT, dict)
    if project and b"syscall" in context.source.data:
        wanted |= {call for alias, call in project.items()
                   if call in names and alias.encode() in context.source.data}
    if not wanted:
        return []
    found = []
    for _, call in context.calls(("syscall",), node):
        made = system_call(context, call)
        if made in wanted:
            found.append((made, call))
    return found


def calls_made(context, names, node=None, own=False) -> list[tuple[str, object]]:
    """`context.calls(names, node)` with the `syscall(...)` calls making one of `names`; a
    copy between the calling process and itself is none (`copies_own_memory`) unless `own`
    (a seccomp filter or a kernel without the call refuses it too). Over the whole file, found
    once per set of names (and of the project's aliases, which only grow): CUR601's wrappers,
    error codes, gates and check ask of the same names; kept with the tree (`of_tree`: the
    file's first lint and its lint with facts ask the same) while no other file's alias is
    known, since the calls are then of the tree alone."""
    if node is None:
        project = context.shared(_PROJECT, dict)
        key = (_MADE, frozenset(names), len(project))
        found = (context.shared if project else context.of_tree)(
            key, lambda: _calls_made(context, names, None))
    else:
        found = _calls_made(context, names, node)
    return list(found) if own else of_other_processes(context, found)


def _calls_made(context, names, node) -> list[tuple[str, object]]:
    found = context.calls(names, node)
    raw = system_calls(context, names, node)
    return sorted([*found, *raw], key=lambda item: item[1].start_byte) if raw else found


def of_other_processes(context, found) -> list[tuple[str, object]]:
    """The (name, call) of `found` but the copies of the calling process itself."""
    return [(name, call) for name, call in found
            if name not in OWN_MEMORY_COPIES or not copies_own_memory(context, call)]


OWN_MEMORY_COPIES = frozenset({"process_vm_readv", "process_vm_writev"})


def copies_own_memory(context, call) -> bool:
    """Whether a `process_vm_readv`/`process_vm_writev` call (or its `syscall(SYS_..., ...)`
    form) names the calling process itself, `getpid()`, as the other one: the kernel grants a
    process its own memory before any ptrace check (`__ptrace_may_access` in kernel/ptrace.c
    returns at once for the same thread group: "Don't let security modules deny
    introspection"), so no ptrace restriction refuses it."""
    function = call.child_by_field_name("function")
    raw = function is not None and context.text(function) == "syscall"
    given = arguments(call)
    pid = unwrapped(given[1 if raw else 0]) if len(given) > raw else None
    called = pid.child_by_field_name("function") \
        if pid is not None and pid.type == "call_expression" else None
    return called is not None and context.text(called).lstrip(":") == "getpid"
