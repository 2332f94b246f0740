"""Whether a foreign function keeps the callback it is handed (CUR202 reads it).

A ctypes or cffi callback object lives only while Python holds it; what matters is whether
the C side keeps its address after the call returns. A call that takes a callback back
(`removes`: its name, or its flag argument) keeps none; else three sources decide, in order:
- the name (`KEEPING_PATTERNS`, option `keeping-apis`): `*register*`, `*set_*callback*`, ...;
- the project's C definition of the function (`CParameters`, per `.c`/`.h` file of the
  project): a parameter stored in a struct field (`t->fn = fn`), a global or an array element
  keeps what the caller passed; one handed on to another function keeps it where that one does
  (the project's definition, up to `MAX_DEPTH` calls, or a C library function that keeps:
  `pthread_create`, `atexit`, `signal`, ...); one only called, or handed to a C library function
  that calls it before returning (`qsort`), does not. A definition that hands the parameter to a
  function the project does not define, nor the tables know, decides nothing;
- else the rule's default for unknown foreign functions.
The library a function belongs to and the prototype that made a callback may be bound in
another module of the project and imported (`from ._binder import gocode, func_string`): the
Python side of the facts (`ForeignFacts.libraries`, `prototypes`, `aliases`) names a module's
module-level libraries (a loader's call, or a call of the module's function that returns one),
prototypes (`CFUNCTYPE(...)`) and aliases of its libraries' functions (`f = lib.name`),
resolved through re-exports by `ModuleTable`, for a name imported from the module or read as
its attribute (`imported_binding`). An out-of-line cffi build's compiled module has no source:
its `lib` is known by the convention of importing it with its `ffi` (`cffi_export`), and its
C, where the build script hands it to `ffibuilder.set_source(...)` as a string, is read as
the project's C definitions (`_embedded_c`); declarations alone (`cdef` text, `.pyi` stubs,
headers) say which parameters are function pointers, never whether one is kept.
"""

from __future__ import annotations

import ast
import os
import re
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable, Iterator

from msgspec import Struct

from cursedlint.analysis.c_syntax import (
    arguments, callee, declared_names, file_scope, inner_declarator, parameter_names,
    plain_function, unwrapped, written_name,
)
from cursedlint.analysis.callback_apis import (
    FFI_FACTORIES, LIBRARY_LOADERS, NUMBA_DRIVER, PROTOTYPE_FACTORIES, REMOVING_FLAGS,
)
from cursedlint.analysis.capture_regions import is_self_attribute
from cursedlint.analysis.python_modules import (
    ModuleTable, is_package, is_project_module, module_name, resolve,
)
from cursedlint.analysis.python_project import linted_imports, value_of
from cursedlint.findings import Step
from cursedlint.languages import C, CPP, PYTHON, PYTHON_TREES
from cursedlint.python.context import statements
from cursedlint.source import Source
from cursedlint.project.index import Indexer
from cursedlint.patterns import LazyPattern

if TYPE_CHECKING:
    from cursedlint.triggers.second_look import MethodCall, Pattern

KEEPING_PATTERNS = ("*register*", "*set_*callback*", "*add_callback*", "*set_handler*")
"""Names (matched without case) of foreign functions that keep a callback to call later."""

C_KEEPING = frozenset({"atexit", "at_quick_exit", "on_exit", "signal", "pthread_create",
                       "pthread_atfork", "pthread_key_create", "thrd_create", "tss_create",
                       "pthread_once", "call_once"})
"""C library functions that keep a function pointer argument past the call (a thread runs it,
or the process calls it at exit, on a signal, on a fork)."""
SYNCHRONOUS_PATTERNS = ("*sort*", "*search*", "*each*", "*visit*", "enum*", "*_enum*",
                        "*iterate*", "*walk*", "*find*", "scandir", "*ftw")
"""Names (matched without case) of functions that call a function pointer argument before
they return, only: sorts and searches (`qsort`, `bsearch`), iterations and visits
(`Mix_EachSoundFont`, `clang_visitChildren`, `EnumWindows`, `dl_iterate_phdr`, `nftw`)."""
REMOVING_WORDS = frozenset({"remove", "del", "delete", "unregister", "deregister", "detach",
                            "disconnect", "unhook", "uninstall", "unsubscribe", "unset",
                            "unwatch"})
ADDING_WORDS = frozenset({"set", "add", "register", "attach", "connect", "install", "subscribe",
                          "on", "create", "new", "insert", "append", "push", "bind"})
"""Words of a function's name (split at `_` and case changes, without case): one of the first
and none of the second says the call takes back a callback an earlier call handed over
(`SDL_DelEventWatch`, `libvlc_event_detach`, `g_signal_handlers_disconnect_by_func`); an adding
word says a callback is kept for an event of removal (`set_remove_callback`, `on_delete`)."""
MESSAGE_LOOPS = frozenset({"GetMessage", "GetMessageA", "GetMessageW",
                           "PeekMessage", "PeekMessageA", "PeekMessageW"})
"""Functions that take the calling thread's Windows messages: a callback Windows delivers to
that thread (a hook's, `SetWindowsHookExW`; a thread timer's, `SetTimer`) runs inside them."""
MAX_DEPTH = 4
"""Calls a parameter is followed through, in the project's C definitions."""

KEPT, NOT_KEPT, UNDECIDED = "kept", "not kept", "undecided"

_WRAPPING = frozenset({"parenthesized_expression", "cast_expression"})
_PYTHON_WORDS = ("CFUNCTYPE", "WINFUNCTYPE", "PYFUNCTYPE", "CDLL", "PyDLL", "WinDLL", "cdll")
"""Words of a Python module that may bind a library or a prototype at module level."""
_FACTORY_WORDS = frozenset(name.rpartition(".")[2].encode() for name in PROTOTYPE_FACTORIES)
_BINDING = LazyPattern(rb"^[ \t]*([^\s=:,()\[\]#.]+)[ \t]*=(?!=)([^\n]*)", re.M)
"""A line binding one name (`name = value`, as a prototype is bound: `ast.Assign` to a name)."""
_WORD_RUN = LazyPattern(rb"\w+")
"""A run of word characters (ASCII letters, digits, `_`: what a bytes pattern's `\\w` matches)."""
_IMPORTED_AS = LazyPattern(rb"\b(?:%s)[ \t]+as[ \t]+([A-Za-z_]\w*)"
                          % b"|".join(sorted(_FACTORY_WORDS)))


def _value(data: bytes, binding: re.Match) -> bytes | None:
    """The text of a bound value: its line and, where the line ends with a backslash or leaves
    brackets open, the lines on to where they close (strings and comments count: more, never
    fewer); None past `_VALUE_BYTES` (any name may be held there)."""
    value = binding[2]
    if b"(" not in value and b"[" not in value and b"{" not in value and b"\\" not in value:
        return value  # (most lines: nothing to follow)
    end = binding.end()
    depth = _depth(value)
    while depth > 0 or value.rstrip().endswith(b"\\"):
        if len(value) > _VALUE_BYTES or end >= len(data):
            return None
        following = data.find(b"\n", end + 1)
        following = len(data) if following < 0 else following
        line = data[end:following]
        value, end, depth = value + line, following, depth + _depth(line)
    return value


def _depth(text: bytes) -> int:
    """The brackets `text` opens less those it closes."""
    return text.count(b"(") + text.count(b"[") + text.count(b"{") \
        - text.count(b")") - text.count(b"]") - text.count(b"}")


_VALUE_BYTES = 16 << 10


def keeping_calls(options) -> MethodCall:
    """Foreign functions that keep a callback by their name, called or read (an alias may call
    them): names of the keeping patterns (none saying `unregister`), on a receiver that may be
    a library the module loaded (or numba's driver object). One shape per option value, so
    that what it learns of names serves every file."""
    return _keeping_calls(tuple(options["keeping-apis"]))


@lru_cache(maxsize=None)
def any_foreign_call() -> MethodCall:
    """A function of a library by any name, called or read, on a receiver that may be a
    library (the second look of a rule whose C side decides keeping)."""
    return _keeping_calls(("*",))


@lru_cache(maxsize=None)
def _keeping_calls(keeping_apis: tuple[str, ...]) -> MethodCall:
    from cursedlint.triggers.second_look import MethodCall

    return MethodCall(
        (*KEEPING_PATTERNS, *keeping_apis),
        excluded=("unregister",),
        imported=frozenset(name.rpartition(".")[2].encode() for name in NUMBA_DRIVER),
        called=False,
    )


# -- the facts ---------------------------------------------------------------------------------


class CParameters(Struct, frozen=True):
    """What a C function definition (at `line`) does with its parameters that may outlive the
    call: `stored` (position, where, line) a parameter stored in a field, a global or an array
    element; `passed` (position, callee, callee's position, line) a function pointer handed on
    to a call. `pointers`: the positions declared as function pointers (`void (*cb)(int)`);
    `typed`: (position, type name) of those declared with a typedef's name, which may be one
    (`ForeignFacts.pointer_types` of the project says)."""

    line: int
    stored: list[tuple[int, str, int]] = []
    passed: list[tuple[int, str, int, int]] = []
    pointers: list[int] = []
    typed: list[tuple[int, str]] = []


class ForeignFacts(Struct, frozen=True):
    """One file's facts: C definitions by name (`functions`) and the typedef names of function
    pointer types it declares (`pointer_types`), of a C file or of the C text a cffi build
    script holds (`_embedded_c`); a Python module's imports as written,
    module-level library names, prototype names and `aliases`, the names it binds at module
    level to one of its libraries' functions (`f = lib.name`: `f` -> `name`), which other
    modules call as its attributes (`m.f(...)`)."""

    functions: dict[str, CParameters] = {}
    pointer_types: list[str] = []
    imports: dict[str, str] = {}
    libraries: list[str] = []
    prototypes: list[str] = []
    aliases: dict[str, str] = {}


class ForeignKeeping(Indexer):
    """The C definitions of foreign functions the linted files call (by name, then the
    functions they hand a parameter to) and the Python modules that bind libraries and
    prototypes at module level (the names the linted files import from the project)."""

    name = "foreign-keeping"
    languages = (PYTHON, C, CPP)
    summary_type = ForeignFacts
    max_rounds = MAX_DEPTH
    max_files = 64
    max_bytes = 4 << 20

    def words(self, settings) -> Iterable[str]:
        return _PYTHON_WORDS

    def pattern(self, words: Iterable[str], first_round: bool):
        """The Python words where a module-level name may be bound with them (`lib =
        ctypes.CDLL(...)`, `Proto = CFUNCTYPE(...)`, indented under an `if` or a loader's def
        too); other words as whole identifiers."""
        others = sorted(set(words) - set(_PYTHON_WORDS))
        bound = "|".join(_PYTHON_WORDS)
        alternatives = [rf"^[ \t]*[A-Za-z_]\w*[ \t]*=[^=\n][^\n]*\b(?:{bound})\b"] \
            if set(_PYTHON_WORDS) & set(words) else []
        if others:
            named = "|".join(re.escape(word) for word in others)
            alternatives.append(rf"(?<![A-Za-z0-9_])(?:{named})(?![A-Za-z0-9_])")
        return re.compile("|".join(alternatives).encode() or b"(?!)", re.M)

    def needed_by(self, context) -> bool:
        """Python files (and Cython's) ask; C files only hold the facts."""
        return context.source.language in PYTHON_TREES

    def seed_words(self, context) -> Iterable[str]:
        """The foreign functions the file's rules asked about (`c_keeping_of`), those it may
        call and the library and prototypes it imports from the project for those calls
        (`_foreign_names`: it may not have been linted, only parsed)."""
        if context.source.language not in PYTHON_TREES:
            return
        yield from context.shared(_ASKED, set)
        yield from _foreign_names(context)

    def lookups(self, context) -> list[str] | None:
        """The questions the file's lint asked of the facts to come, or would ask of them
        (`imported_binding` without asking too: a lint again answers those): "k\tname" for
        what the project's C does with a foreign function's callback (`c_keeping_of`),
        "b\twritten\tattribute..." for what an import from the project binds."""
        if context.source.language not in PYTHON_TREES:
            return None
        imports = linted_imports(context)
        found = {f"k\t{function}" for function in context.shared(_ASKED, set)}
        for name, *attributes in context.shared(_QUESTIONS, set):
            written = imports.get(name)
            if written is not None and _from_project(context, written):
                found.add("\t".join(("b", written, *attributes)))
        return found

    def affects(self, facts: dict[str, ForeignFacts], path: str, lookups: list[str]) -> bool:
        """Whether a question the file asked has another answer with the facts than without:
        an import that binds a library, a prototype or a library's function; a foreign
        function the project's C defines (else the tables decide, as without facts)."""
        for lookup in lookups:
            kind, *parts = lookup.split("\t")
            if kind == "k" and any(parts[0] in summary.functions for summary in facts.values()):
                return True
            if kind == "b" and _binding_in(facts, path, parts[0], parts[1:]) is not None:
                return True
        return False

    def more_words(self, facts: dict[str, ForeignFacts], settings) -> Iterable[str]:
        """The functions the definitions found hand a function pointer parameter to."""
        types = pointer_types(facts)
        return {callee for summary in facts.values() for function in summary.functions.values()
                for position, callee, _, _ in function.passed
                if _is_pointer(function, position, types)}

    adds_triggers = True
    trigger_rounds = 0  # (the later rounds' words lead to C definitions, which bind no prototype)

    def trigger_names(self, data: bytes) -> set[bytes]:
        """The names the module may bind to a prototype (`trigger_words`): bound to a value
        (its lines, to where its brackets close) holding a prototype factory or, in turn, one
        of these names (an alias, `CF = ctypes.CFUNCTYPE`, then `Proto = CF(...)`; `CFUNCTYPE
        as CF`), as a whole word. More, never fewer. A word of word characters is held where
        it is one of the value's runs of them (each value's listed once: a pattern of the
        words, compiled again as they grow and tried at every byte of every value, cost 9% of
        a cold pre-commit run of a file importing torch); others by a pattern."""
        bindings = [(found[1], _value(data, found)) for found in _BINDING.finditer(data)]
        words = {word for word in _FACTORY_WORDS if word in data}  # (a value is a slice of data)
        if words:
            words.update(_IMPORTED_AS.findall(data))
        runs = [value if value is None else frozenset(_WORD_RUN.findall(value))
                for _, value in bindings]
        names: set[bytes] = set()
        while True:
            others = [word for word in words if not _WORD_RUN.fullmatch(word)]
            held = re.compile(rb"(?<![\w])(?:%s)(?![\w])" % b"|".join(map(re.escape, others))) \
                if others else None
            found = {name for (name, value), value_runs in zip(bindings, runs) if name not in names
                     and (value_runs is None or not value_runs.isdisjoint(words)
                          or held is not None and held.search(value))}
            if not found:
                return names
            names |= found
            words |= found

    def trigger_words(self, facts: dict[str, ForeignFacts]) -> Iterable[str]:
        """The project's prototypes bound at module level: a file that imports one may make a
        callback with no ctypes word in it. (A file that makes one otherwise names a ctypes
        or cffi word; the C functions that keep are no trigger: C files name them too.)"""
        for summary in facts.values():
            yield from summary.prototypes

    def summarize(self, context) -> ForeignFacts | None:
        if context.source.language == PYTHON:
            return _python_facts(context)
        functions = {name: found for name, found in _c_definitions(context)}
        types = sorted(_pointer_typedefs(context))
        return ForeignFacts(functions=functions, pointer_types=types) \
            if functions or types else None


FOREIGN_KEEPING = ForeignKeeping()
_ASKED = "foreign-keeping-asked"


def _foreign_names(context) -> set[str]:
    """The functions the file calls, with an argument that may be a callback object
    (`may_make_callback`), on a receiver that is a library it loads or a name it imports
    from the project (which may be one: its facts are not known yet), also kept in
    `self.<attr>`; and the names it imports from the project that such a call uses (the
    receiver, the prototype of an argument), by the name their module binds."""
    imported = dict(_imported_from_project(context))
    loading = _names_loader_here(context)  # (else no value loads one: `loads_library`)
    names = set()
    for node in context.met(ast.Call):  # (in no set order: the names are a set)
        func = node.func
        if not isinstance(func, ast.Attribute) or not node.args:
            continue
        receiver = func.value
        if type(receiver) is ast.Name and not loading and receiver.id not in imported:
            continue  # (the test below, before the arguments are looked at)
        made = [arg for arg in node.args if may_make_callback(context, arg)]
        if not made:
            continue
        if is_self_attribute(receiver):
            receiver = value_of(context, receiver)
        if not isinstance(receiver, ast.Name):
            continue
        if receiver.id in imported or loading and isinstance(
                bound := value_of(context, receiver), ast.Call) and loads_library(context, bound):
            names.add(func.attr)
            names.update(imported[name.id] for name in (
                receiver, *(arg.func for arg in made if isinstance(arg, ast.Call)))
                if isinstance(name, ast.Name) and name.id in imported)
    return names


def may_make_callback(context, node: ast.AST) -> bool:
    """Whether an argument may be a callback object, by its shape alone: a call of one
    argument (`Proto(f)`) or cffi's `ffi.callback(cdecl, f)`, a def under a decorator, or a
    name or `self.<attr>` bound (anywhere in the module) to one of those."""
    if isinstance(node, ast.Call):
        return _makes(node)
    if isinstance(node, ast.Name) or is_self_attribute(node):
        key = node.id if isinstance(node, ast.Name) else f"self.{node.attr}"
        return key in callback_names(context)
    return False


def callback_names(context) -> frozenset[str]:
    """The names (and `self.<attr>`) `may_make_callback` answers True for (once per tree)."""
    return context.derived(_MADE, lambda: _callback_names(context))


def _makes(call: ast.Call) -> bool:
    return not call.keywords and (len(call.args) == 1 or len(call.args) == 2 and isinstance(
        call.func, ast.Attribute) and call.func.attr == "callback")


_MADE = "foreign-keeping-made"


def _callback_names(context) -> frozenset[str]:
    """The names (and `self.<attr>`) the module binds to a value holding a call of one argument
    (or cffi's `callback`: `Proto(f)`, `ctypes.cast(Proto(f), T).value`), or to a decorated
    def."""
    names = set()
    for node, keys in _assigned(context):
        value = node.value
        if isinstance(value, ast.Attribute):
            value = value.value
        if isinstance(value, ast.Call) and type(node) is ast.Assign and (_makes(value) or any(
                isinstance(arg, ast.Call) and _makes(arg) for arg in value.args)):
            names.update(keys)
    names.update(node.name for node in context.nodes(ast.FunctionDef, ast.AsyncFunctionDef)
                 if node.decorator_list)
    return frozenset(names)


_LOADER_WORDS = frozenset({"CDLL", "PyDLL", "WinDLL", "OleDLL", "LoadLibrary", "dlopen", "cdll",
                           "pydll", "windll", "oledll", "LibraryLoader"})


def may_be_library(context, receiver: ast.AST) -> bool:
    """Whether a name or `self.<attr>` may hold a library, by the module's text alone: a name
    it imports from ctypes, cffi, numba or a module of the project, one it assigns a value
    naming a loader (`CDLL`, `dlopen`, ...), or one it assigns such a name (the cheap test
    before following bindings). A name the module neither imports nor assigns (`self`, a
    parameter) is none, without reading the module's bindings; one it only imports, without
    reading its assignments."""
    key = receiver.id if isinstance(receiver, ast.Name) else f"self.{receiver.attr}"
    imported, assigned = context.derived(_BOUND, lambda: _bound_keys(context))
    if key in imported and key in context.shared(_IMPORTED, lambda: _imported_libraries(context)):
        return True
    return key in assigned and key in context.shared(_LIBRARIES, lambda: _library_names(context))


_LIBRARIES = "foreign-keeping-libraries"
_LIBRARY_MODULES = ("ctypes", "cffi", "numba")
"""Where an imported name may be a library object (`from ctypes import pythonapi`, numba's
driver); besides these, only a name imported from the project's modules may be one."""


def may_be_function_alias(context, node: ast.AST) -> bool:
    """Whether a name or `self.<attr>` may hold a library's function (`f = lib.name`): the
    module assigns it an attribute of something that may be a library (a name or
    `self.<attr>` only where `may_be_library`; the cheap test before following bindings).
    Only the receivers of the name's own assignments are asked about."""
    key = node.id if isinstance(node, ast.Name) else f"self.{node.attr}"
    receivers = context.derived(_ALIASES, lambda: _attribute_bindings(context)).get(key)
    return receivers is not None and any(
        not (isinstance(receiver, ast.Name) or is_self_attribute(receiver))
        or may_be_library(context, receiver) for receiver in receivers)


def may_name_foreign(context, node: ast.AST) -> bool:
    """Whether a name or `self.<attr>` may name a library's function, by the module's
    bindings alone (the cheap test before `callbacks.foreign_function` follows it): one the
    module assigns an attribute (`may_be_function_alias`), a name it imports (another module
    may bind it so: `imported_binding`), or `self.<attr>` where the module binds `self`
    itself (which may then be a library)."""
    keys, any_self = context.derived(_NAMING, lambda: _naming_keys(context))
    if isinstance(node, ast.Name):
        return node.id in keys
    return any_self or f"self.{node.attr}" in keys


def foreign_callee_names(context) -> frozenset[str] | None:
    """The last names of the callees `may_name_foreign` may answer for: the names, and the
    attributes of `self.<attr>`, of its keys; None where the module binds `self` itself
    (every `self.<attr>` may)."""
    keys, any_self = context.derived(_NAMING, lambda: _naming_keys(context))
    return None if any_self else frozenset(key.removeprefix("self.") for key in keys)


def _naming_keys(context) -> tuple[frozenset[str], bool]:
    """`may_name_foreign`'s answers from one look-up (it is asked of every such callee): the
    names and `self.<attr>` the module assigns an attribute, with the names it imports; and
    whether the module binds `self` itself."""
    imported, assigned = context.derived(_BOUND, lambda: _bound_keys(context))
    keys = context.derived(_ALIASES, lambda: _attribute_bindings(context)).keys() | \
        linted_imports(context).keys()
    return frozenset(keys), "self" in imported or "self" in assigned


def _attribute_bindings(context) -> dict[str, list[ast.AST]]:
    """Name (or `self.<attr>`) -> the receivers of the attributes the module assigns it
    (`lib` of `f = lib.name`)."""
    found: dict[str, list[ast.AST]] = {}
    for assign, keys in _assigned(context):
        value = assign.value
        if isinstance(value, ast.Attribute):
            for key in keys:
                found.setdefault(key, []).append(value.value)
    return found


def _bound_keys(context) -> tuple[frozenset[str], frozenset[str]]:
    """The names the module binds by an import, and the names (and `self.<attr>`) it assigns
    a value: any library name is one of them."""
    imported = {alias.asname or (alias.name if isinstance(node, ast.ImportFrom)
                                 else alias.name.partition(".")[0])
                for node in context.nodes(ast.Import, ast.ImportFrom) for alias in node.names}
    assigned = {key for _, keys in _assigned(context) for key in keys}
    return frozenset(imported), frozenset(assigned)


def _assigned(context) -> list[tuple[ast.Assign | ast.AnnAssign, list[str]]]:
    """Each assignment of a value to names or `self.<attr>` with their keys (`_keys`), in walk
    order: what the analyses of the module's bindings here read, found once per tree."""
    return context.derived(_ASSIGNED, lambda: [
        (node, keys) for node in context.nodes(ast.Assign, ast.AnnAssign)
        if node.value is not None and (keys := _keys(_targets(node)))])


def _targets(assign: ast.Assign | ast.AnnAssign) -> list[ast.AST]:
    return assign.targets if isinstance(assign, ast.Assign) else [assign.target]


def _keys(targets: list[ast.AST]) -> list[str]:
    """The keys of the targets that are names or `self.<attr>`."""
    return [target.id if isinstance(target, ast.Name) else f"self.{target.attr}"
            for target in targets if isinstance(target, ast.Name) or is_self_attribute(target)]


_ALIASES = "foreign-keeping-attribute-bindings"
_ASSIGNED = "foreign-keeping-assigned"
_NAMING = "foreign-keeping-naming-keys"
_BOUND = "foreign-keeping-bound-names"
_IMPORTED = "foreign-keeping-imported-libraries"


def _imported_libraries(context) -> frozenset[str]:
    """The names imported from ctypes, cffi, numba or a module of the project."""
    names = {local for local, written in linted_imports(context).items()
             if written.lstrip(".").startswith(_LIBRARY_MODULES)}
    names.update(local for local, qualified in context.imports.names.items()
                 if qualified.startswith(_LIBRARY_MODULES))
    names.update(local for local, _ in _imported_from_project(context))
    return frozenset(names)


def _library_names(context) -> frozenset[str]:
    """The names that may hold a library: those imported so (`_imported_libraries`), those
    assigned a value naming a loader, and those assigned one of these names."""
    names = set(context.shared(_IMPORTED, lambda: _imported_libraries(context)))
    loading = _loader_lines(context)
    aliases = []
    for node, keys in _assigned(context):
        value = node.value
        if isinstance(value, ast.Name) or is_self_attribute(value):
            aliases.append((keys, value))
        elif loading and (not loading.isdisjoint(range(value.lineno, value.end_lineno + 1)) and any(
                isinstance(part, ast.Name) and part.id in _LOADER_WORDS
                or isinstance(part, ast.Attribute) and part.attr in _LOADER_WORDS
                for part in ast.walk(value)) or isinstance(value, ast.Call)
                and loads_library(context, value)):
            names.update(keys)
    for _ in range(2):  # (a name bound to a name bound to a loader)
        for keys, value in aliases:
            if (value.id if isinstance(value, ast.Name) else f"self.{value.attr}") in names:
                names.update(keys)
    return frozenset(names)


def _loader_lines(context) -> set[int]:
    """The lines that name a loader (`_LOADER_WORDS`, anywhere in a word): only a value on one
    of them can name one (walking every assigned value took 3% of the stdlib worst case).
    The pattern is tried only in a text holding a part every loader word holds (`_LOADER_PARTS`):
    its scan of every file cost more than the walk it saves."""
    if not _may_name_loader_here(context):
        return set()
    source = context.source
    return {source.offset_to_position(match.start())[0]
            for match in _LOADER_PATTERN.finditer(source.text)}


def _may_name_loader(text: str) -> bool:
    """False when the text names no loader word (`_LOADER_PARTS`: four searches, not eleven
    nor a pattern tried at every position)."""
    return any(part in text for part in _LOADER_PARTS)


_LOADER_PATTERN = LazyPattern("|".join(sorted(_LOADER_WORDS)))
_LOADER_PARTS = ("DLL", "dll", "dlopen", "Library")
"""Each loader word holds one of these."""


def _may_name_loader_here(context) -> bool:
    """`_may_name_loader` of the module's text, once per tree: each context of it asks (the
    lint's, the index's, the lint again's), for `_loader_lines` and `_names_loader_here`."""
    return context.derived(_MAY_NAME_LOADER, lambda: _may_name_loader(context.source.text))


def _names_loader_here(context) -> bool:
    """`_names_loader` of the module's text, once per tree."""
    return _may_name_loader_here(context) and context.derived(
        _NAMES_LOADER, lambda: _names_loader(context.source.text))


_MAY_NAME_LOADER = "foreign-keeping-may-name-loader"
_NAMES_LOADER = "foreign-keeping-names-loader"


def _names_loader(text: str) -> bool:
    """Whether the text names a loader word: no call of a module that names none loads a
    library (`loads_library`: each of `LIBRARY_LOADERS`, `dlopen` and `module_loaders` is
    named by one, where it is imported or called)."""
    return _may_name_loader(text) and any(word in text for word in _LOADER_WORDS)


def _imported_from_project(context) -> Iterator[tuple[str, str]]:
    """(local name, the name its module binds) for the names the file imports by name from
    the project's modules."""
    root = context.settings.root or os.getcwd()
    for local, written in linted_imports(context).items():
        module, _, attribute = written.partition(":")
        if attribute and is_project_module(context.source.path, module, root):
            yield local, attribute


# -- C: what a definition does with its parameters ---------------------------------------------


def pointer_types(facts: dict[str, ForeignFacts]) -> frozenset[str]:
    """The typedef names of function pointer types the project's facts declare."""
    return frozenset(name for summary in facts.values() for name in summary.pointer_types)


def _is_pointer(function: CParameters, position: int, types: frozenset[str]) -> bool:
    return position in function.pointers or any(
        at == position and name in types for at, name in function.typed)


def _c_definitions(context) -> Iterator[tuple[str, CParameters]]:
    for definition in _file_level(context, "function_definition"):
        plain = plain_function(definition)
        if plain is None:
            continue
        name, declarator, body = plain
        names = parameter_names(context, declarator)
        if not any(names):
            continue
        pointers, typed = _parameter_kinds(context, declarator)
        uses = _Uses(context, body, names, pointers | {at for at, _ in typed})
        stored, passed = uses.parameters()
        yield context.text(name), CParameters(definition.start_point[0] + 1, stored, passed,
                                              sorted(pointers), typed)


def _parameter_kinds(context, declarator) -> tuple[set[int], list[tuple[int, str]]]:
    """The positions of parameters declared as function pointers, and (position, type name)
    of those declared by a typedef's name, as a value."""
    pointers, typed = set(), []
    parameters = declarator.child_by_field_name("parameters")
    for position, parameter in enumerate(parameters.named_children if parameters else ()):
        inner = parameter.child_by_field_name("declarator")
        kind = parameter.child_by_field_name("type")
        if inner is not None and _declares_function(inner):
            pointers.add(position)
        elif inner is not None and inner.type == "identifier" and kind is not None \
                and kind.type == "type_identifier":
            typed.append((position, context.text(kind)))
    return pointers, typed


def _declares_function(declarator) -> bool:
    """Whether a declarator declares a function (pointer): `(*cb)(int)`, `cb(int)`."""
    node = declarator
    while node is not None and node.type != "function_declarator":
        node = inner_declarator(node)
    return node is not None


def _pointer_typedefs(context) -> Iterator[str]:
    """The names the file's `typedef`s give function pointer types (`typedef void
    (*cb_f)(int);`)."""
    for node in _file_level(context, "type_definition"):
        for declarator in node.children_by_field_name("declarator"):
            name = written_name(context, declarator) if _declares_function(declarator) else ""
            if name:
                yield name


def _file_level(context, kind: str) -> Iterator:
    """The nodes of `kind` at file scope (under `#if`s, `extern "C"`, namespaces too)."""
    return (child for child in file_scope(context) if child.type == kind)


class _Uses:
    """The uses of a function's parameters that may keep them."""

    def __init__(self, context, body, names: list[str], passing: set[int]):
        self.context, self.body = context, body
        self.positions = {name: position for position, name in enumerate(names) if name}
        self.passing = passing  # (the positions whose hand-ons are kept: function pointers)
        self.local = _locals(context, body)

    def parameters(self) -> tuple[list, list]:
        stored, passed = [], []
        for spelling, leaf in self.context.tokens(self.positions, self.body):
            if leaf.type != "identifier" or spelling in self.local:
                continue
            position = self.positions[spelling]
            node, parent = leaf, self.context.parent(leaf)
            while parent is not None and parent.type in _WRAPPING:
                node, parent = parent, self.context.parent(parent)
            at = leaf.start_point[0] + 1
            if parent is None:
                continue
            if parent.type == "assignment_expression" \
                    and parent.child_by_field_name("right") == node:
                where = self._store(parent.child_by_field_name("left"))
                if where:
                    stored.append((position, where, at))
            elif parent.type == "argument_list" and position in self.passing:
                call = self.context.parent(parent)
                name = callee(self.context, call) if call is not None else ""
                if name:
                    passed.append((position, name, arguments(call).index(node), at))
        return stored, passed

    def _store(self, left) -> str:
        """Where an assignment to `left` keeps its value: a field (not of a local struct
        value), an array element, a variable that is not the function's own; "" else."""
        left = unwrapped(left)
        if left is None:
            return ""
        if left.type == "field_expression":
            target = unwrapped(left.child_by_field_name("argument"))
            operator = left.child_by_field_name("operator")
            if operator is not None and operator.type == "." and target is not None \
                    and self.context.text(target) in self.local:
                return ""  # a field of a struct on the stack
            return f"the field `{self.context.text(left.child_by_field_name('field'))}`"
        if left.type == "subscript_expression":
            array = unwrapped(left.child_by_field_name("argument"))
            text = self.context.text(array) if array is not None else ""
            return "" if text in self.local else f"the array `{text}`"
        if left.type == "identifier":
            text = self.context.text(left)
            return "" if text in self.local or text in self.positions \
                else f"the global `{text}`"
        return ""


def _locals(context, body) -> set[str]:
    """The names the function body declares (not `static` ones: those outlive the call)."""
    found, stack = set(), [body]
    while stack:
        node = stack.pop()
        if node.type == "declaration":
            if any(child.type == "storage_class_specifier"
                   and context.text(child) == "static" for child in node.children):
                continue
            for declarator in node.children_by_field_name("declarator"):
                if declarator.type == "init_declarator":
                    declarator = declarator.child_by_field_name("declarator")
                found.update(declared_names(context, declarator))
        stack.extend(node.named_children)
    return found


# -- Python: libraries and prototypes bound at module level ------------------------------------


def is_library_call(context, call: ast.Call) -> bool:
    """Whether `call` loads a library: a ctypes loader, or cffi's `ffi.dlopen(...)`."""
    return (context.qualified_name(call.func, among=LIBRARY_LOADERS) is not None
            or is_ffi_method(context, call.func, "dlopen"))


def loads_library(context, call: ast.Call) -> bool:
    """Whether `call` loads a library (`is_library_call`) or calls a function of the module
    that returns one (`module_loaders`)."""
    return is_library_call(context, call) or (
        isinstance(call.func, ast.Name) and call.func.id in module_loaders(context))


def is_ffi_method(context, func: ast.AST, method: str) -> bool:
    """Whether `func` is `ffi.<method>` of a cffi `FFI()` the module makes (in a name, or in
    `self.<attr>`) or imports with its `lib` (`cffi_export`)."""
    if not (isinstance(func, ast.Attribute) and func.attr == method):
        return False
    receiver = func.value
    if isinstance(receiver, ast.Name) and cffi_export(context, receiver) == "ffi":
        return True
    if isinstance(receiver, ast.Name) or is_self_attribute(receiver):
        receiver = value_of(context, receiver)
    return (isinstance(receiver, ast.Call)
            and context.qualified_name(receiver.func, among=FFI_FACTORIES) is not None)


def _embedded_c(context) -> tuple[dict[str, CParameters], set[str]]:
    """The C definitions (`_c_definitions`, at their lines in the Python file) and function
    pointer typedef names of the C text a cffi build script hands its `FFI()` as a string
    literal, or a module-level name bound to one: `ffibuilder.set_source(module, source)`
    (API mode: the C compiled into the extension, definitions of the functions the `lib`
    exports included) and `ffibuilder.cdef(declarations)` (typedefs)."""
    functions: dict[str, CParameters] = {}
    types: set[str] = set()
    if "set_source" not in context.source.text and "cdef" not in context.source.text:
        return functions, types
    from cursedlint.c.context import CContext, parse  # (only here: a Python run loads no C)
    from cursedlint.c.parse_budget import NotParsed

    for call in context.nodes(ast.Call):
        method = call.func.attr if isinstance(call.func, ast.Attribute) else None
        at = {"set_source": 1, "cdef": 0}.get(method)
        if at is None or len(call.args) <= at or not is_ffi_method(context, call.func, method):
            continue
        text = call.args[at]
        if isinstance(text, ast.Name):
            text = value_of(context, text)
        if not (isinstance(text, ast.Constant) and isinstance(text.value, str)):
            continue
        try:
            tree = parse(text.value.encode(errors="replace"), C)
        except NotParsed:
            continue
        embedded = CContext(Source.from_text(context.source.path, text.value, C),
                            context.settings, tree)
        shift = text.lineno - 1
        for name, found in _c_definitions(embedded):
            functions[name] = CParameters(
                found.line + shift, [(a, where, line + shift) for a, where, line in found.stored],
                [(a, callee, b, line + shift) for a, callee, b, line in found.passed],
                found.pointers, found.typed)
        types.update(_pointer_typedefs(embedded))
    return functions, types


def _python_facts(context) -> ForeignFacts | None:
    libraries, prototypes, aliases = set(), set(), {}
    for node in _module_statements(context.tree.body):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            continue
        name, value = node.targets[0].id, node.value
        if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) \
                and value.value.id in libraries:
            aliases[name] = value.attr
        elif not isinstance(value, ast.Call):
            continue
        elif loads_library(context, value):
            libraries.add(name)
        elif context.qualified_name(value.func, among=PROTOTYPE_FACTORIES):
            prototypes.add(name)
    imports = dict(linted_imports(context))
    functions, types = _embedded_c(context)
    if not (libraries or prototypes or functions or types):
        return ForeignFacts(imports=imports) if imports else None
    return ForeignFacts(functions=functions, pointer_types=sorted(types), imports=imports,
                        libraries=sorted(libraries), prototypes=sorted(prototypes),
                        aliases=aliases)


def module_loaders(context) -> frozenset[str]:
    """The module's functions that return a library they load (`def _load(): return
    CDLL(path)`): a module-level name bound to a call of one is a library."""
    return context.shared(_LOADERS, lambda: _module_loaders(context))


_LOADERS = "foreign-keeping-loaders"


def _module_loaders(context) -> frozenset[str]:
    if not _names_loader_here(context):
        return frozenset()
    loaders = set()
    assigned: dict[int, dict[str, list[ast.AST]]] = {}  # id(function) -> `_assigned_values`
    for ret in context.nodes(ast.Return):
        function = context.scope_of(ret)
        if isinstance(function, ast.FunctionDef) and context.parent_of(function) is context.tree \
                and ret.value is not None and _loads(context, function, ret.value, assigned):
            loaders.add(function.name)
    return frozenset(loaders)


def _loads(context, function: ast.FunctionDef, value: ast.AST,
           assigned: dict[int, dict[str, list[ast.AST]]]) -> bool:
    """Whether a returned value is a library the function loads (a call of a loader, or a
    local bound only to one). `assigned`: each function's `_assigned_values`, read once for
    all its returns (each return read the function's statements again)."""
    if isinstance(value, ast.Call):
        return is_library_call(context, value)
    if not isinstance(value, ast.Name):
        return False
    values = assigned.get(id(function))
    if values is None:
        values = assigned[id(function)] = _assigned_values(function)
    bound = values.get(value.id, ())
    return bool(bound) and all(isinstance(b, ast.Call) and is_library_call(context, b)
                               for b in bound)


def _assigned_values(function: ast.FunctionDef) -> dict[str, list[ast.AST]]:
    """Name -> the values of the function's assignments to it (`name = value`, a name among
    the targets), in the order of its statements."""
    values: dict[str, list[ast.AST]] = {}
    for node in statements(function):
        if isinstance(node, ast.Assign):
            for name in dict.fromkeys(t.id for t in node.targets if isinstance(t, ast.Name)):
                values.setdefault(name, []).append(node.value)
    return values


def _module_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The module's statements, those under `if`/`try`/`with` at module level too."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in ("body", "orelse", "finalbody"):
                yield from _module_statements(getattr(node, block, []))
            for handler in getattr(node, "handlers", []):
                yield from _module_statements(handler.body)


# -- the questions the rule asks ---------------------------------------------------------------


def foreign_facts(context) -> dict[str, ForeignFacts]:
    """The run's facts (path -> summary); none yet where the run gathers them after this
    lint (the question is noted: the file is linted again with them)."""
    facts = context.project.get(FOREIGN_KEEPING.name)
    if not facts and context.facts_to_come and FOREIGN_KEEPING.name not in context.project:
        context.asked.add(FOREIGN_KEEPING.name)
    return facts or {}


def imported_binding(context, node: ast.AST, ask: bool = True) -> tuple[str, str] | None:
    """What a name, or attributes read on one (`libusb1.set_notifiers` of a module imported
    as `libusb1`), is in the project module that binds it at module level (through
    re-exports): ("library", name), ("prototype", name) or ("function", the library function's
    own name) for an alias of a library's function; None else, or when the name is not
    imported from the project. Answered once per name and attributes in a file. Without
    `ask`, from the facts the run already has: where they are not gathered yet, None, and the
    file is not linted again for them (a question any call may raise, `m.f(...)`, would have
    every file of a project linted twice)."""
    attributes = []
    while isinstance(node, ast.Attribute):
        attributes.insert(0, node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    if not context.project.get(FOREIGN_KEEPING.name):
        if context.facts_to_come:  # (what a lint again would ask: `ForeignKeeping.affects`)
            context.shared(_QUESTIONS, set).add((node.id, *attributes))
        if not ask:
            return None
    written = linted_imports(context).get(node.id)
    if written is None:
        return None
    known = context.shared(_BINDINGS, dict)
    key = (node.id, *attributes)
    if key not in known:
        known[key] = _imported_binding(context, written, attributes)
    return known[key]


_BINDINGS = "foreign-keeping-imported-bindings"
_QUESTIONS = "foreign-keeping-questions"


def _imported_binding(context, written: str, attributes: list[str]) -> tuple[str, str] | None:
    if not _from_project(context, written):
        return None
    facts = foreign_facts(context)
    return _binding_in(facts, context.source.path, written, attributes) if facts else None


def _from_project(context, written: str) -> bool:
    """Whether an import written so (`linted_imports`) names a module of the project."""
    root = context.settings.root or os.getcwd()
    return is_project_module(context.source.path, written.partition(":")[0], root)


def _binding_in(facts: dict[str, ForeignFacts], path: str, written: str,
                attributes: list[str]) -> tuple[str, str] | None:
    """`imported_binding` in `facts` of the module at `path`, of what its import written so
    binds (and `attributes` read on it)."""
    path = os.path.abspath(path)
    imported = resolve(written, module_name(path), is_package(path))
    table = _tables(tuple(sorted(facts)))
    found = table.definition(".".join((imported.dotted, *attributes)),
                             lambda p: facts[p].imports if p in facts else {}) \
        if imported is not None else None
    if found is None or found[0] not in facts:
        return None
    summary, bound = facts[found[0]], found[1]
    if bound in summary.aliases:
        return "function", summary.aliases[bound]
    return ("library", bound) if bound in summary.libraries else \
        ("prototype", bound) if bound in summary.prototypes else None


def cffi_export(context, name: ast.Name) -> str | None:
    """"ffi" or "lib" when `name` is the `ffi` or the `lib` of a module the file imports both
    from by name (`from ._ev_cffi import ffi, lib`): the two objects an out-of-line cffi build
    exports from its compiled module (which has no Python source to read), or a project module
    binding `ffi = FFI()` and `lib = ffi.dlopen(...)`."""
    return context.shared(_CFFI_EXPORTS, lambda: _cffi_exports(context)).get(name.id)


_CFFI_EXPORTS = "foreign-keeping-cffi-exports"


def _cffi_exports(context) -> dict[str, str]:
    imports = linted_imports(context)
    written = set(imports.values())
    return {local: attribute for local, (module, _, attribute) in (
                (local, source.partition(":")) for local, source in imports.items())
            if attribute in ("ffi", "lib") and {f"{module}:ffi", f"{module}:lib"} <= written}
def cffi_import() -> Pattern:
    """`from <module> import ffi, lib` (or `lib, ffi`) in a file's bytes: the second look's view
    of `cffi_export` (its `lib` is a library that no assignment of the file binds)."""
    from cursedlint.triggers.second_look import Pattern

    return Pattern(
        rb"^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t(]+(?:ffi|lib)[ \t]*,[ \t]*(?:ffi|lib)\b")


@lru_cache(maxsize=8)
def _tables(paths: tuple[str, ...]) -> ModuleTable:
    return ModuleTable(path for path in paths if path.endswith(".py"))


class Keeping(Struct, frozen=True):
    """What the project's C says of a foreign function's parameter: `verdict` (KEPT,
    NOT_KEPT, UNDECIDED) and, when kept, the chain of steps that shows where."""

    verdict: str
    steps: tuple[Step, ...] = ()


def removes(function: str, arguments: list[ast.AST]) -> bool:
    """Whether a call of the foreign function takes a callback back rather than keeping it: its
    name says so (`REMOVING_WORDS`), or its flag argument does (`REMOVING_FLAGS`: a constant
    zero, `SetConsoleCtrlHandler(handler, 0)`)."""
    flag = REMOVING_FLAGS.get(function)
    if flag is not None and flag.position < len(arguments):
        value = _constant_number(arguments[flag.position])
        if value is not None and (value == 0 or flag.below_one and value < 1):
            return True
    words = _name_words(function)
    return not words.isdisjoint(REMOVING_WORDS) and words.isdisjoint(ADDING_WORDS)


@lru_cache(maxsize=1024)
def _name_words(name: str) -> frozenset[str]:
    return frozenset(word.lower() for word in _NAME_WORD.findall(name))


_NAME_WORD = LazyPattern(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")
"""A word of an identifier: a run of capitals (`SDL`), or one capital or none and lower-case
letters (`Del`, `event`)."""


def _constant_number(node: ast.AST) -> int | float | None:
    """The value of a number or bool literal, negated ones too (`-1`); None else."""
    negated = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    if negated:
        node = node.operand
    if not (isinstance(node, ast.Constant) and isinstance(node.value, (int, float))):
        return None
    return -node.value if negated else node.value


def synchronous(function: str) -> bool:
    """Whether the name says the function calls its callback before returning, only."""
    return any(fnmatchcase(function.lower(), pattern) for pattern in SYNCHRONOUS_PATTERNS)


def kept_by_c(context, function: str, position: int, line: int,
              unknown: str) -> tuple[Step, ...] | None:
    """The chain that shows `function` keeps the callback the linted file's call on `line`
    hands it at `position` (`c_keeping_of`; where nothing decides, `unknown` does: "keep"
    says it is kept); None when it is not kept."""
    keeping = c_keeping_of(context, function, position)
    if keeping.verdict == KEPT:
        return keeping.steps
    if keeping.verdict == UNDECIDED and unknown == "keep":
        return (Step(context.source.path, line, f"no C definition of {function}() in the "
                     "project says what it does with it: assumed to keep it (option "
                     "unknown-foreign-functions)"),)
    return None


def c_keeping_of(context, function: str, position: int) -> Keeping:
    """`c_keeping` over the run's facts, for the linted file (its question noted: the
    function's name is a word of the facts' first round)."""
    context.shared(_ASKED, set).add(function)
    return c_keeping(foreign_facts(context), function, position)


def c_keeping(facts: dict[str, ForeignFacts], function: str, position: int,
              depth: int = 0) -> Keeping:
    """Whether the project's C definitions of `function` keep their parameter at `position`:
    KEPT when every definition does, NOT_KEPT when none does nor may, else UNDECIDED
    (definitions that disagree, a hand-on to a function nobody knows). Without a definition,
    the tables decide: `C_KEEPING`, `SYNCHRONOUS_PATTERNS`; else UNDECIDED."""
    definitions = [(path, summary.functions[function]) for path, summary in facts.items()
                   if function in summary.functions]
    if not definitions:
        return Keeping(KEPT if function in C_KEEPING else NOT_KEPT if synchronous(function)
                       else UNDECIDED)
    if depth > MAX_DEPTH:
        return Keeping(UNDECIDED)
    verdicts = [_definition_keeps(facts, path, found, function, position, depth)
                for path, found in definitions]
    kinds = {verdict.verdict for verdict in verdicts}
    return verdicts[0] if len(kinds) == 1 else Keeping(UNDECIDED)


def _definition_keeps(facts, path: str, found: CParameters, function: str, position: int,
                      depth: int) -> Keeping:
    short = os.path.basename(path)
    for at, where, line in found.stored:
        if at == position:
            return Keeping(KEPT, (Step(path, line, f"`{function}()` ({short}) stores the "
                                                   f"function pointer in {where}"),))
    verdict = NOT_KEPT
    for at, name, their, line in found.passed:
        if at != position or name == function:
            continue
        below = c_keeping(facts, name, their, depth + 1)
        if below.verdict == KEPT:
            return Keeping(KEPT, (Step(path, line, f"`{function}()` hands it to `{name}()`"),
                                  *below.steps))
        if below.verdict == UNDECIDED:
            verdict = UNDECIDED
    return Keeping(verdict)
