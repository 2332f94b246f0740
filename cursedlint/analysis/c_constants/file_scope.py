"""`FileScopeRules`: whether a variable declared at file scope (`static char *buf;`, `__thread
uint8_t *buf;`) keeps the value a statement of a function stored into it until a later use in
that function. Beyond what `FlowRules._disturbed` reads for a local, nothing may change it
elsewhere: its address is taken nowhere in the file (`&buf`) and no macro body names it, and
no call in between may reach a function that writes it. The file's functions that write it
(C: assign or increment it; C++: any that names it, a reference may bind it) and those calling
them, transitively, are its writers; a `static` one nothing else can write, unless a writer's
name is used otherwise than called (a callback: any call may reach it); an extern one any
function of another file may write, so only calls of C library functions that call back
nothing (`_LEAVE_ALONE`) and of the file's functions calling only such ones and no writer
leave it alone. A call through a pointer or of a macro may change it."""

from __future__ import annotations

from cursedlint.analysis.c_constants.syntax import _Def
from cursedlint.analysis.c_syntax import callee, defined_functions, function_name

_LEAVE_ALONE = frozenset({
    "malloc", "calloc", "realloc", "free", "aligned_alloc", "valloc", "memalign",
    "posix_memalign", "memset", "memcpy", "memmove", "memcmp", "strlen", "strnlen", "strcmp",
    "strncmp", "strcpy", "strncpy", "strerror", "printf", "fprintf", "snprintf", "sprintf",
    "puts", "fputs", "perror", "getpagesize", "sysconf", "abort", "exit", "assert"})
"""C library functions (and `assert`, whose condition's own calls are read apart) that call no
code of the project (so change none of its variables)."""
_REACH = 8
"""Calls followed into the file's functions (deeper: taken to change the variable)."""


class FileScopeRules:
    """The file-scope variable side of `FlowRules`' value of a name at a use."""

    def _file_root(self, name: str, anchor) -> _Def | None:
        """The file-scope variable `name` names at `anchor`, declared once in the file, neither
        `volatile` nor a reference, whose address the file never takes and no macro body
        names; None otherwise."""
        defs = self._lookup(name, (), anchor, "names")[1]
        key = defs[0] if len(defs) == 1 else None
        if not isinstance(key, _Def) or key.kind != "var" or self._scope(key)[0] is not None:
            return None
        if any(self.context.text(child) == "volatile" or child.type == "ERROR"
               for child in key.owner.children) or key.node.type == "reference_declarator":
            return None
        if any(node.type == "preproc_arg" for _, _, node in self.context.hits((name,))):
            return None
        for position in self._name(name).modified:
            node = self.context.node_at(position, position + len(name))
            parent = self.context.parent(node)
            while parent is not None and parent.type == "parenthesized_expression":
                parent = self.context.parent(parent)
            if parent is None or parent.type in ("pointer_expression", "init_declarator") \
                    or self._enclosing_function(node) is None:
                return None  # `&buf`, a reference bound to it, a write outside functions
        return key

    def _file_scope_disturbed(self, root: _Def, assignment, anchor, function) -> bool:
        """Whether a call between the assignment and the use may change the file-scope `root`
        (see the module's docstring)."""
        writers, escaped = self._writers(root)
        static = any(self.context.text(child) == "static" for child in root.owner.children)
        foreign = not static or escaped  # (calls of other files' functions may change it)
        start, end = assignment.end_byte, self._region_end(assignment, anchor, function)
        calls = self._writes(function).calls
        for call_start, call_end in calls:
            if not start <= call_start < end or call_start <= anchor.start_byte < call_end:
                continue
            if self._may_change(self.context.node_at(call_start, call_end), writers, foreign,
                                anchor) and not self._returns_before(call_start, anchor,
                                                                     function):
                return True
        return False

    def _may_change(self, call, writers: frozenset, foreign: bool, anchor, depth: int = 0,
                    seen: set | None = None) -> bool:
        """Whether a call (a node from a function's `_Writes.calls`) may change a file-scope
        variable the functions `writers` write (`foreign`: so may other files' functions)."""
        if call is not None and call.type == "argument_list":
            above = self.context.parent(call)  # (a call's own: read as the call; a constructor's,
            return above is None or above.type != "call_expression" and foreign  # `T x(...)`)
        if call is None or call.type != "call_expression":
            return True
        name = callee(self.context, call, scoped=False)  # (`syscall(SYS_x, ...)`: `x`)
        if not name:
            return True
        if name in writers or self._is_macro(name, anchor) or depth >= _REACH:
            return True
        definition = self._defined(name)
        if definition is None:
            return foreign and name not in _LEAVE_ALONE
        if not foreign:
            return False  # (every function that reaches a writer is one)
        seen = seen if seen is not None else set()
        if definition.id in seen:
            return False
        seen.add(definition.id)
        return any(self._may_change(self.context.node_at(*span), writers, foreign, anchor,
                                    depth + 1, seen) for span in self._writes(definition).calls)

    def _defined(self, name: str):
        """The file's function definition named `name`, or None."""
        return defined_functions(self.context, (name,)).get(name)

    def _writers(self, root: _Def) -> tuple[frozenset, bool]:
        """(names of the file's functions that may write `root`, directly or through calls of
        the file, whether one of them is used otherwise than called), read once per name."""
        key = ("file-scope writers", root.name)
        if key not in self._memo:
            places = self._name(root.name).modified if not self.cpp else [
                start for start, _, _ in self.context.hits((root.name,))]
            found = {self._function_at(position) for position in places}
            anonymous = "" in found  # (a lambda's, a macro body's: it may run anywhere)
            names, added = set(found) - {None, ""}, found - {None, ""}
            while added:  # the functions calling those found, until none is new
                callers = {self._function_at(call.start_byte)
                           for _, call in self.context.calls(added)}
                anonymous |= "" in callers
                added = callers - names - {None, ""}
                names |= added
            escaped = anonymous or any(self.context.call_of(leaf) is None and not _declares(leaf)
                                       for _, leaf in self.context.tokens(names))
            self._memo[key] = (frozenset(names), escaped)
        return self._memo[key]

    def _function_at(self, position: int) -> str | None:
        """The name of the function holding byte `position`; "" for a lambda, a macro-defined
        body or a function of no plain name; None at file scope."""
        function = self._enclosing_function(self.context.node_at(position, position + 1))
        if function is None:
            return None
        return function_name(self.context, function) \
            if function.type == "function_definition" else ""


def _declares(leaf) -> bool:
    """Whether a function's name token is the name its definition or prototype declares."""
    parent = leaf.parent
    return parent is not None and parent.type == "function_declarator" \
        and parent.child_by_field_name("declarator") == leaf
