"""RDMA memory registrations of a C/C++ file and the ranges they register (CUR301, CUR302).

`registrations_of(context, project_wrappers)` computes, once for all CUR3xx rules of a file,
each call of a registration API (`APIS`), or of a function of the project that passes its
parameters straight through to one, or to one of its file's wrappers (up to `WRAPPER_DEPTH`
levels within a file: the file's own, `file_wrappers`, and other files' through the project
index, `project_wrappers`), with the address and length
expressions of the ranges it registers (for iovec-based APIs, what the calling function puts
in the iovecs). Lengths are evaluated with `analysis.c_constants` (with the project headers a
file includes, `HEADERS`); what an address points into is `analysis.c_memory`'s provenance,
within the calling function. Registrations a test asserts to fail (`analysis.c_expectations`)
are not registrations.

Calls through function pointers (`ops->reg_mr(...)`, `fl->regmr_fn(...)`) are registrations
where every function the project stores in that field (`analysis.c_function_pointers`: ops
tables, assignments, functions passed to a function that stores its parameter in the field)
is a registration API or a wrapper of the same API with the same positions; the fields and
their candidates become part of the chain (`Registration.chain`).
"""

from __future__ import annotations

import os
import re
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any, Callable

from msgspec import Struct

from cursedlint.analysis.c_calling_macros import (
    CallingMacro, MacroShape, calling_macros, macro_calls, macro_shapes, macros_reached,
    named_arguments, project_calling_macros, project_shapes,
)
from cursedlint.analysis.c_filled_members import filled_members
from cursedlint.analysis.c_forwarding import (
    Forward, Forwarder, exported_functions, forwarded_calls, forwarded_method_calls,
)
from cursedlint.analysis.c_function_pointers import (
    FieldFlows, FunctionPointerGraph, built_for, called_text, field_flows, project_graph,
    wrappers_by_name,
)
from cursedlint.analysis.c_receivers import Receivers, member_calls
from cursedlint.analysis.c_macros import function_scope
from cursedlint.analysis.c_syntax import (
    arguments as _arguments, assigns, callee, defined_functions, parameter_names, plain_function,
    scope_of, unwrapped,
)
from cursedlint.analysis.c_parameter_blocks import VALUES_INDEX
from cursedlint.analysis.includes import IncludedHeaders, header_constants, value_in
from cursedlint.findings import Step
from cursedlint.python.consteval import UNKNOWN
from cursedlint.patterns import LazyPattern

if TYPE_CHECKING:
    from cursedlint.analysis.c_memory import MemoryProvenance, Provenance

CHANGE_TRANSLATION = ("IBV_REREG_MR_CHANGE_TRANSLATION", 1)  # <infiniband/verbs.h>: 1 << 0
ON_DEMAND = ("IBV_ACCESS_ON_DEMAND", 1 << 6)
"""An on-demand-paging registration pins nothing: libibverbs' `ibv_reg_mr_iova2` calls
`ibv_dontfork_range` only without it (rdma-core, libibverbs/verbs.c)."""


class Api(Struct, frozen=True):
    """Argument positions of a registration: the address and the length; `flags`: the range
    changes only when this argument holds IBV_REREG_MR_CHANGE_TRANSLATION. `shape` "iovec":
    `address` is an iovec (array) holding the ranges (`fi_mr_regv`); "attr": a `fi_mr_attr`
    whose `mr_iov` does (`fi_mr_regattr`). A wrapper may pass only one of them through."""

    address: int | None
    length: int | None
    flags: int | None = None
    shape: str = "plain"


# ibv_reg_mr(3), ibv_rereg_mr(3) (rdma-core), rdma_reg_msgs(3) (librdmacm), fi_mr(3) (libfabric),
# mlx5dv_devx_umem_reg(3) (rdma-core's mlx5 provider: `ibv_dontfork_range(addr, size)` first,
# providers/mlx5/verbs.c, since 2a940a3b6 "mlx5: Add fork support for DEVX umem", v32)
APIS = {
    "ibv_reg_mr": Api(1, 2),
    "ibv_reg_mr_iova": Api(1, 2),
    "ibv_reg_mr_iova2": Api(1, 2),
    "ibv_rereg_mr": Api(3, 4, flags=1),
    "rdma_reg_msgs": Api(1, 2),
    "rdma_reg_read": Api(1, 2),
    "rdma_reg_write": Api(1, 2),
    "fi_mr_reg": Api(1, 2),
    "fi_mr_regv": Api(1, 2, shape="iovec"),
    "fi_mr_regattr": Api(1, None, shape="attr"),
    "mlx5dv_devx_umem_reg": Api(1, 2),
    # what a registration does to its range under fork protection, called directly (providers,
    # libraries pinning their own queues): libibverbs/memory.c, a no-op without it
    "ibv_dontfork_range": Api(0, 1),
}
ACCESS_FLAGS = {"ibv_reg_mr": 3, "ibv_reg_mr_iova": 4, "ibv_reg_mr_iova2": 4}
"""The access flags' position, where IBV_ACCESS_ON_DEMAND leaves the range alone (a call of the
API itself: a wrapper's or a field's other arguments may mean anything)."""
_WRAPPER_DEFINITIONS = "registration wrapper definitions"  # `CContext.of_tree`
_MARKS_ONLY = frozenset({"ibv_dontfork_range"})  # (the message says "covers", not "registers")
WRAPPERS_INDEX = "registration-wrappers"  # the CUR3xx rules' project index (its name)
HEADERS = IncludedHeaders("rdma-headers", APIS, after=(WRAPPERS_INDEX, VALUES_INDEX),
                          more_words=lambda gathered: _registering_names(
                              gathered.get(WRAPPERS_INDEX) or {}),
                          read_with=(VALUES_INDEX,), more_read=lambda gathered: [
                              path for path, facts in (gathered.get(WRAPPERS_INDEX) or {}).items()
                              if facts.flags])
"""The project headers and `-D` macros of the files holding a registration, a call of one of
the project's wrappers or a call through a field that registers (whose lengths and macros
their headers may define); in a run of named files, those of the files whose wrappers' access
flags their headers may define too (`RegistrationFacts.flags`)."""

_GIVEN_PARAMETER = LazyPattern(r"(?<![\w$])([A-Za-z_]\w*)\s*=\s*(?:\([^()=]*\)\s*)?([A-Za-z_]\w*)\s*;")
"""`s = (T *)p;`: a local given another name's value (a parameter's, where it is one)."""
_WORD = re.compile(r"[A-Za-z_]\w*")
_REST_OF_NAME = re.compile(rb"\w*")
_CALL_OPENS = re.compile(rb"\s*\(")
_NAME_BEFORE = LazyPattern(rb"[A-Za-z_]\w*$")


def _named_like_api(data: bytes) -> frozenset[str]:
    """The names called in `data` that hold a registration API's (`wrap_ibv_reg_mr(`), found
    by `bytes.find` (a pattern starting anywhere in a name tries every byte). A name is read
    once, from the API's first occurrence in it (read from each, a name made of the API's
    repeated cost its length squared in time and in the names kept)."""
    found = set()
    for prefix, names in _API_PREFIXES.items():
        places = []  # (the APIs sharing a prefix: the places of each, from one search)
        at = data.find(prefix)
        while at >= 0:
            places.append(at)
            at = data.find(prefix, at + 1)
        for word in names:
            end = after = -1
            for at in places:
                if at < after or not data.startswith(word, at):
                    continue  # (`after`: an occurrence overlapping the last is none)
                after = at + len(word)
                if after > end:  # (a later occurrence in the same name: read; an API's
                    end = _REST_OF_NAME.match(data, after).end()  # name is all \w)
                    if _CALL_OPENS.match(data, end):
                        start = _NAME_BEFORE.search(data, max(0, at - 64), at)
                        found.add(data[start.start() if start else at:end].decode("latin-1"))
    return frozenset(found)


def _prefixes(names) -> dict[bytes, tuple[bytes, ...]]:
    """The APIs' names grouped by a shared prefix of eight or more bytes (`fi_mr_reg`,
    `fi_mr_regv`, `fi_mr_regattr`), each group found by one search."""
    groups: dict[bytes, list[bytes]] = {}
    for name in sorted(name.encode() for name in names):
        shared = next((prefix for prefix in groups
                       if len(os.path.commonprefix([prefix, name])) >= 8), None)
        if shared is None:
            groups[name] = [name]
        else:
            groups[os.path.commonprefix([shared, name])] = [*groups.pop(shared), name]
    return {prefix: tuple(names) for prefix, names in groups.items()}


_API_PREFIXES = _prefixes(APIS)


WRAPPER_DEPTH = 4  # levels of wrappers of wrappers a file's summary composes

# fi_mr_attr `iface` values of host memory (fi_mr(3), enum fi_hmem_iface); the others
# (FI_HMEM_CUDA, FI_HMEM_ROCR, FI_HMEM_ZE, FI_HMEM_NEURON, FI_HMEM_SYNAPSEAI) are devices'
HOST_IFACES = frozenset({"FI_HMEM_SYSTEM"})
def _device_iface(iface: str | None) -> bool:
    """Whether an `fi_mr_attr` `iface` (`Registrations._iface`) is a device's constant."""
    return bool(iface) and iface.startswith("FI_HMEM_") and iface not in HOST_IFACES


POINTER_RESULTS = frozenset({"ibv_reg_mr", "ibv_reg_mr_iova", "ibv_reg_mr_iova2",
                             "rdma_reg_msgs", "rdma_reg_read", "rdma_reg_write",
                             "mlx5dv_devx_umem_reg"})


class Registration(Struct, frozen=True):
    """One registration call: `function` is the called name (the field access of a call
    through a function pointer), `api` the registration API it reaches; `addresses` and
    `lengths` the expressions of the registered ranges (several, or none, for iovecs; a
    wrapper's caller may pass only one of the two); `chain`: for a call through a field, the
    functions stored in it (`findings.Step`s), and for a call of another file's wrapper, each
    function it passes through to the API, with its file and line."""

    function: str
    api: str
    call: object
    addresses: tuple
    lengths: tuple
    chain: tuple = ()
    indirect: bool = False
    every: bool = True  # (a call through a field: whether every function in it registers)

    @property
    def verb(self) -> str:
        """What the call does to its range, as the message says it ("may register" through a
        field some function of which does not register)."""
        if not self.every:
            return "may cover" if self.api in _MARKS_ONLY else "may register"
        return "covers" if self.api in _MARKS_ONLY else "registers"

    @property
    def described(self) -> str:
        """How the message names the call: the API, a wrapper with the API it wraps, or a
        call through a field (the functions it holds, and so the API, are in `chain`)."""
        if self.function == self.api or self.indirect:
            return f"{self.function}()"
        return f"{self.function}() (wraps {self.api}())"


Wrapper = tuple[str, "int | None", "int | None"]
"""A wrapper as the project index keeps it: (API, address position, length position)."""


class RegistrationFacts(Struct, frozen=True):
    """A file's facts for other files: its wrappers others can call (`wrappers`), those only
    it can name (`local`: `static`, reachable from elsewhere through a field it stores them
    in), the line of each wrapper's registering call (`lines`), its function-pointer flows
    (`flows`), and what its other functions pass their parameters on to (`forwarders`: a
    function handing them to another file's wrapper is a wrapper, `composed_wrappers`), and its
    other functions others can call (`defines`: a caller nearer this file than another's
    wrapper of the same name calls this one, `ComposedWrappers.nearest`), and what its C++
    member functions pass their parameters on to (`methods`, keyed `Class::name`: one handing
    them to a registration API, a registering field, a wrapper or another such member
    function is a member function wrapper, `composed_methods`), and the access flags' texts of
    the wrappers none of whose pinning calls' flags had a value, the file's wrappers they call
    included (`flags`: made before any header is read; where each is on-demand with the file's
    headers, the wrapper pins nothing, `Registrations._pins_nothing`)."""

    wrappers: dict[str, Wrapper] = {}
    local: dict[str, Wrapper] = {}
    flows: FieldFlows = FieldFlows()
    lines: dict[str, int] = {}
    forwarders: dict[str, Forwarder] = {}
    defines: frozenset[str] = frozenset()
    macros: dict[str, tuple[MacroShape, ...]] = {}
    macro_registrations: tuple[MacroRegistration, ...] = ()
    methods: dict[str, Forwarder] = {}
    flags: dict[str, tuple[str, ...]] = {}


class MacroRegistration(Struct, frozen=True, array_like=True):
    """A function's call of a macro the file does not define, given a registration API's name
    as argument number `position` (`PROFILE_CALL(ibv_reg_mr, pd, addr, len, flags)`): a
    registration where the project's macro calls it (`macro_wrappers`). `parameters`: the
    function's parameter each macro argument is, unchanged (-1: none); `on_demand`: the macro
    arguments that ask for on-demand paging."""

    function: str
    static: bool
    line: int
    macro: str
    position: int
    api: str
    parameters: tuple[int, ...]
    on_demand: tuple[int, ...] = ()


def registrations_of(context, project_wrappers=None) -> "Registrations":
    """The file's registration facts, computed once for all CUR3xx rules; `project_wrappers`:
    the project's files' `RegistrationFacts` (path -> facts), from the rules' project index
    (None: not gathered for this run)."""
    return context.shared(Registrations, lambda: Registrations(
        context, project_wrappers or {}, gathered=project_wrappers is not None))


class Registrations:
    """The registration calls of one C/C++ file and what their arguments are."""

    def __init__(self, context, project_wrappers: dict, gathered: bool = False):
        self.context = context
        self.page = context.settings.page_size
        self.project_wrappers = project_wrappers
        self.gathered = gathered  # whether the index read every file holding its words
        self._asked: dict[tuple, Any] = {}  # (question, id of a registration) -> answer
        self._getters = None  # (`provenance`'s getters)
        self._file_calls: dict[frozenset, list[tuple]] = {}  # (`_calls` of the whole file)
        self._flags_read: list | None = None  # (`_holds`' answers, while wrappers are found)

    @cached_property
    def constants(self):
        """The file's `CConstants`, with the project headers' macros, enums and types in view.
        (`provenance` keeps functions of it, not methods of this object, which would hold it
        in a cycle, and with it the file's tree past its lint.)"""
        from cursedlint.analysis.c_constants import CConstants  # only files that need it pay the import

        return CConstants(self.context, extra=header_constants(self.context, HEADERS))

    @cached_property
    def value(self) -> Callable[[Any], Any]:
        """`value(node)`: the integer value of an expression of the file where it is used
        (locals and fields set by an earlier assignment count); UNKNOWN when unknown."""
        return partial(self.constants.evaluate, assignments=True)

    @cached_property
    def registrations(self) -> list[Registration]:
        from cursedlint.analysis.c_expectations import asserted_to_fail

        found = []
        apis = {**APIS, **self._wrappers}
        calls = [(name, call, apis[name], self._wrapped.get(name, name),
                  self._wrapper_steps.get(name, ()))
                 for name, call in self._calls(apis)]
        calls.extend(self._indirect_calls())
        plain = {call.start_byte for _, call, *_ in calls}
        calls.extend(found for found in self._method_calls() if found[1].start_byte not in plain)
        calls.sort(key=lambda found: found[1].start_byte)
        for name, call, api, underlying, chain, *every in calls:
            registration = self._registration(name, api, call, underlying, chain,
                                              (True, *every) if every else None)
            if registration is not None and not asserted_to_fail(
                    self.context, call, registration.api in POINTER_RESULTS):
                found.append(registration)
        return found

    # -- calls through function pointers -----------------------------------------------------

    def summary(self) -> RegistrationFacts:
        """What other files need of this one (the project index's summary) but `forwarders`
        (`forwarders`: made only for the files that may call a wrapper)."""
        def plain(wrappers):  # (a wrapper handing on its attr struct is the file's own)
            return {name: (api, shape.address, shape.length)
                    for name, (api, shape) in wrappers.items() if shape.shape == "plain"}
        exported = plain(self.exported_wrappers)
        local = {name: wrapper for name, wrapper in plain(self.file_wrappers).items()
                 if name not in exported}
        names = {**APIS, **self.file_wrappers}
        lines = {name: self._calls(names, function.child_by_field_name("body"))[0][1]
                 .start_point[0] + 1 for name, (_, function) in self._wrapper_definitions.items()}
        flags = {name: texts for name in (*exported, *local)
                 if (texts := self._unvalued_flags(name, set()))}
        return RegistrationFacts(exported, local, field_flows(self.context), lines, defines=(
            frozenset(exported_functions(self.context)) - set(exported)),
            macro_registrations=self._macro_registrations(),
            methods=forwarded_method_calls(self.context), flags=flags)

    def _unvalued_flags(self, name: str, seen: set) -> tuple[str, ...]:
        """The texts of the access flags of the wrapper's pinning calls (through the file's
        wrappers it calls), where none has a value; () where one pins whatever the headers
        say (flags with a value, an API with no access flags)."""
        seen.add(name)
        known = {**{api: (api, shape) for api, shape in APIS.items()}, **self.file_wrappers}
        texts: list[str] = []
        body = self._wrapper_definitions[name][1].child_by_field_name("body")
        for called, call in self._calls(known, body):
            arguments = _arguments(call)
            if called in self.file_wrappers:
                found = () if called in seen else self._unvalued_flags(called, seen)
            elif called not in ACCESS_FLAGS or len(arguments) <= ACCESS_FLAGS[called]:
                found = ()
            elif self._on_demand(called, arguments):
                continue
            else:
                flags = arguments[ACCESS_FLAGS[called]]
                found = (self.context.text(flags),) if self.value(flags) is UNKNOWN else ()
            if not found:
                return ()
            texts.extend(text for text in found if text not in texts)
        return tuple(texts)

    # -- calls made by macros ----------------------------------------------------------------

    @cached_property
    def _api_arguments(self) -> list[tuple]:
        """(API, call, position) for each API's name written as an argument of a call."""
        return list(named_arguments(self.context, APIS))

    @cached_property
    def _own_macros(self) -> dict[str, tuple[MacroShape, ...]]:
        """The file's macro shapes, read only where it gives an API's name to a call."""
        return macro_shapes(self.context.source.data) if self._api_arguments else {}

    @cached_property
    def calling_macros(self) -> dict[str, CallingMacro]:
        """The macros that call the function an argument names (`c_calling_macros`): the
        project's (as the index gathered them), the file's own definitions first."""
        own = self._own_macros
        project = project_calling_macros(self.project_wrappers)
        if not own:
            return project
        return calling_macros(own, {name: macro for name, macro in project.items()
                                    if name not in own})

    def _calls(self, names, node=None) -> list[tuple]:
        """`context.calls`, with the calls the file's calling macros make of `names`; over the
        whole file, found once per set of names (the registrations ask what the wrappers'
        first search found where the file has no wrappers)."""
        if node is None:
            key = frozenset(names)
            if key not in self._file_calls:
                self._file_calls[key] = self._calls_in(names, None)
            return self._file_calls[key]
        return self._calls_in(names, node)

    def _calls_in(self, names, node) -> list[tuple]:
        found = self.context.calls(names, node)
        if self.calling_macros:
            made = macro_calls(self.context, names, self.calling_macros, node)
            if made:
                found = sorted(found + made, key=lambda item: item[1].start_byte)
        return found

    def _macro_registrations(self) -> tuple[MacroRegistration, ...]:
        """The file's calls of macros it does not define given an API's name, in functions
        with no other registration (their wrappers: `macro_wrappers`)."""
        from cursedlint.analysis.c_memory import has_storage

        found = []
        for api, call, position in self._api_arguments:
            macro = callee(self.context, call)
            scope = scope_of(self.context, call)
            function = plain_function(scope) if macro not in APIS and \
                macro not in self.calling_macros and scope is not None and \
                scope.type == "function_definition" else None
            if function is None or self._calls(APIS, function[2]):
                continue
            parameters = parameter_names(self.context, function[1])
            given = _arguments(call)
            found.append(MacroRegistration(
                self.context.text(function[0]), has_storage(self.context, scope, ("static",)),
                call.start_point[0] + 1, macro, position, api,
                tuple(_or_none(self._passed([argument], parameters, function[2]))
                      for argument in given),
                tuple(index for index, argument in enumerate(given)
                      if self._holds(argument, ON_DEMAND))))
        return tuple(found)

    def forwarders(self) -> RegistrationFacts | None:
        """What the file's functions pass their parameters on to, and the shapes of its
        macros (`RegistrationFacts` with only `forwarders` and `macros`): the pieces made for
        the files that may call a wrapper or a macro given an API's name (`piece_names`)."""
        forwarders = forwarded_calls(self.context, set(self.file_wrappers), exported=True)
        macros = macro_shapes(self.context.source.data)
        return RegistrationFacts(forwarders=forwarders, macros=macros) \
            if forwarders or macros else None

    @cached_property
    def _path(self) -> str:
        """The file's path as the project index keys it."""
        return os.path.abspath(self.context.source.path)

    @cached_property
    def graph(self) -> FunctionPointerGraph:
        """The project's function-pointer graph, with this file's flows: the index's where it
        was gathered (a file it has no summary of has no flows that matter: a field or
        function its flows could touch would be one of the index's words), else read now."""
        graph = project_graph(self.project_wrappers)
        if self.gathered:
            return graph
        return graph.overlay(self._path, field_flows(self.context))

    def _indirect_calls(self) -> list[tuple]:
        """(label, call, API shape, API, chain, whether every candidate registers) for the
        file's calls through fields some candidate of which registers, every other one
        registering with the same shape or being a function of the project that does not."""
        found = []
        for _, call, (api, shape), candidates in self.graph.resolved_calls(
                self.context, self._stored_wrapper, registering_fields(self.project_wrappers),
                some=True):
            label = called_text(self.context, call)
            does = [self._stored_wrapper(candidate.function, candidate.path) is not None
                    for candidate in candidates]
            chain = tuple(step for candidate, registers in zip(candidates, does)
                          for step in candidate.steps(label, f"which registers with {api}()"
                                                      if registers else "which does not register"))
            found.append((label, call, shape, api, chain, all(does)))
        return found

    def _method_calls(self) -> list[tuple]:
        """(label, call, API shape, API, chain) for the file's calls of member functions
        that are wrappers (`composed_methods`), on a receiver whose class the declarations in
        view (the file's, its project headers') show."""
        methods = composed_methods(self.project_wrappers)
        names = {key.rpartition("::")[2] for key in methods.exported}
        found, receivers = [], None
        for name, call in member_calls(self.context, names) if names else ():
            if receivers is None:
                receivers = Receivers(self.context, [extra.context
                                                     for extra in self.constants.extra])
            owner = receivers.receiver_class(call)
            owner = owner and receivers.declaring(owner, name)  # (inherited: its base's)
            known = methods.nearest(f"{owner}::{name}", self._path) if owner else None
            if known is not None:
                api, shape, steps = known
                found.append((f"{owner}::{name}", call, shape, api, steps))
        return found

    def _stored_wrapper(self, function: str, path: str) -> tuple[str, Api] | None:
        """What a function stored in a field at `path` registers: an API itself, or a wrapper
        of the file storing it (its own, `static` ones included), else of another file."""
        if path == self._path and function in self.file_wrappers:
            return self.file_wrappers[function]
        return stored_wrapper(self.project_wrappers, function, path)

    def partial_pages(self, registration: Registration) -> list[tuple[object, int, str, tuple]]:
        """(length node, value, "" or "up to " where the value is the highest, the chain's
        links of the calls that give it) of the lengths known to be positive and not whole
        pages (worked out once per registration: each CUR3xx rule asks): a value; else
        bounds all below a page; else the value or bounds for a call of the function in its
        file that reaches the registration (`_in_contexts`)."""
        key = ("partial pages", id(registration))
        if key not in self._asked:
            found = []
            for node in registration.lengths:
                length = self.value(node)
                if length is UNKNOWN:
                    found.extend(self._in_contexts(registration, node))
                elif length > 0 and length % self.page:
                    found.append((node, length, "", ()))
            self._asked[key] = found
        return self._asked[key]

    def _in_contexts(self, registration: Registration, node) -> list[tuple]:
        """`partial_pages` of a length not known in its function: its bounds there, else in
        the first call context (`c_call_contexts`) that gives it a value or bounds of part
        of a page and, for a call through a field, stores a registering function in that
        field; none in a wrapper, or for a length that is a parameter as it is."""
        bounds = self.constants.bounds(node)
        if bounds is not None:
            return self._partial(node, bounds, ())
        function = function_scope(self.context, registration.call)
        plain = plain_function(function) if function is not None and \
            function.type == "function_definition" else None
        length = self.context.text(unwrapped(node) or node)
        if plain is None or self.context.text(plain[0]) in self._wrappers or \
                length in parameter_names(self.context, plain[1]):
            return []  # (a wrapper's calls are registrations of their own; a function handing
            # on its caller's length as it is is judged as a wrapper is, `_wrapper`)
        contexts = self.contexts.of(registration.call)
        for context in contexts:
            if not self.contexts.reaches(registration.call, context):
                continue
            if registration.indirect and self._stored_wrapper(*self.contexts.function_named(
                    registration.call.child_by_field_name("function"), context) or ("", "")
                    ) is None:
                continue
            found = self.contexts.evaluator(context).bounds(node)
            if found is not None and self._partial(node, found, ()):
                return self._partial(node, found, self.contexts.steps(
                    context, self.context.source.path))
        return []

    def _partial(self, node, bounds: tuple[int, int], steps: tuple) -> list[tuple]:
        low, high = bounds
        if low == high:
            return [(node, low, "", steps)] if low > 0 and low % self.page else []
        return [(node, high, "up to ", steps)] if low > 0 and high < self.page else []

    @property
    def contexts(self):
        """The file's `CallContexts` (the values its functions' parameters get at its calls
        of them), with the calls of other files once the project's index has read them
        (the index's seeds, `length_functions`, ask before)."""
        from cursedlint.analysis.c_call_contexts import CallContexts

        callers = self.context.project.get(VALUES_INDEX) or {}
        key = ("contexts", id(callers) if callers else 0)
        if key not in self._asked:
            self._asked[key] = CallContexts(self.context, self.constants.extra, callers,
                                            partial(value_in, self.context, HEADERS))
        return self._asked[key]

    # -- calls and wrappers ----------------------------------------------------------------

    def _registration(self, name: str, api: Api, call, underlying: str,
                      chain: tuple, through: tuple[bool, bool] | None) -> Registration | None:
        """The registration of a call (`through`: for a call through a field, (True, whether
        every function stored in it registers))."""
        arguments = _arguments(call)
        if not _fits(api, arguments):
            return None  # a macro or another function of the same name
        if api.flags is not None and not self._holds(arguments[api.flags], CHANGE_TRANSLATION):
            return None
        if self._on_demand(name, arguments):
            return None
        addresses, lengths = self._ranges(api, arguments, call)
        return Registration(name, underlying, call, addresses, lengths, chain,
                            *(through or ()))

    def _ranges(self, api: Api, arguments: list, call) -> tuple[tuple, tuple]:
        """(address expressions, length expressions) of the ranges a call registers."""
        if api.shape == "iovec":
            return self._iovecs(arguments[api.address], call)
        if api.shape == "attr":
            return self._attr_iovecs(arguments[api.address], call)
        return _picked(arguments, api.address), _picked(arguments, api.length)

    def _holds(self, flags, flag: tuple[str, int]) -> bool:
        """Whether a flags argument surely holds `flag` (its name, its bit): its value, or an
        or of names one of which is it."""
        value = self.value(flags)
        if value is not UNKNOWN:
            held = bool(value & flag[1])
        else:
            names, only_ors = set(), True
            for node in (flags, *self.context.descendants(flags)):
                if node.type == "identifier":
                    names.add(self.context.text(node))
                elif node.type == "binary_expression":
                    only_ors &= self.context.text(node.child_by_field_name("operator")) == "|"
            held = flag[0] in names and only_ors
        if self._flags_read is not None:
            self._flags_read.append((flags, flag, held))
        return held

    def _on_demand(self, name: str, arguments: list) -> bool:
        """Whether a call of a registration API asks for on-demand paging (nothing marked)."""
        position = ACCESS_FLAGS.get(name)
        return position is not None and len(arguments) > position and \
            self._holds(arguments[position], ON_DEMAND)

    @cached_property
    def _composed(self) -> dict[str, tuple[str, Api, tuple]]:
        """The wrappers this file calls, with the steps from each to its API: other files'
        (`project_wrappers`, composed across files) it calls, then its own functions that
        pass their parameters to one of those."""
        composed = composed_wrappers(self.project_wrappers)
        called = {name for name, _ in self.context.calls(composed.exported)} \
            if composed.exported else set()
        found = {name: known for name in called
                 if (known := composed.nearest(name, self._path)) is not None
                 and known[2][0].path != self._path and not self._pins_nothing(known[2])}
        for name in defined_functions(self.context, set(found)):
            del found[name]  # the file's own function of that name: another function
        own = {name: known for name, known in self._own_composed(
            composed.files.get(self._path, {})).items() if not self._pins_nothing(known[2])}
        if found:  # its own functions may pass their parameters to one of them
            compose_file(self._path, forwarded_calls(self.context, set(self.file_wrappers)),
                         own, found.get)
        found.update(own)
        return found

    def _own_composed(self, composed: dict) -> dict[str, tuple[str, Api, tuple]]:
        """The file's wrappers as the project composed them (`composed`), less those its
        summary found (made before any header was read) that `file_wrappers`, seeing the
        headers' values, does not (flags a header macro makes on-demand), and those composed
        upon one of them (their chains hold its step)."""
        summary = self.project_wrappers.get(self._path)
        if summary is None:
            return dict(composed)
        dropped = {composed[name][2][0] for name in (*summary.wrappers, *summary.local)
                   if name in composed and name not in self.file_wrappers}
        return {name: wrapper for name, wrapper in composed.items()
                if dropped.isdisjoint(wrapper[2])}

    def _pins_nothing(self, steps: tuple) -> bool:
        """Whether the wrapper of another file a chain ends in (its last step) asks for
        on-demand paging in every pinning call, its flags' texts (`RegistrationFacts.flags`)
        read after that file's project headers (`includes.value_in`; a file whose headers
        the run did not read stays a wrapper)."""
        base = steps[-1]
        summary = self.project_wrappers.get(base.path) if base.path != self._path else None
        texts = next((texts for name, texts in summary.flags.items()
                      if summary.lines.get(name) == base.line), ()) if summary else ()
        return bool(texts) and all(
            (value := value_in(self.context, HEADERS, base.path, text)) is not UNKNOWN
            and value & ON_DEMAND[1] for text in texts)

    @cached_property
    def _wrapper_facts(self) -> dict[str, tuple[str, Api]]:
        """The wrappers this file calls: other files', those of its own that call them, then
        the ones it composes alone."""
        found = {name: (api, wrapper) for name, (api, wrapper, _) in self._composed.items()}
        found.update(self.file_wrappers)
        return found

    @cached_property
    def _wrapper_steps(self) -> dict[str, tuple]:
        """Wrapper name -> the chain from it to its API through other files (`findings.Step`s)."""
        return {name: steps for name, (_, _, steps) in self._composed.items()
                if name not in self.file_wrappers and any(
                    step.path != self._path for step in steps)}

    @cached_property
    def file_wrappers(self) -> dict[str, tuple[str, Api]]:
        """Function name -> (API, the API's positions in its own parameters) for the file's
        functions that call one registration API with their own parameters unchanged."""
        return {name: wrapper for name, (wrapper, _) in self._wrapper_definitions.items()}

    @cached_property
    def exported_wrappers(self) -> dict[str, tuple[str, Api]]:
        """The file's wrappers that other files can call (not `static`)."""
        from cursedlint.analysis.c_memory import has_storage

        return {name: wrapper for name, (wrapper, function) in self._wrapper_definitions.items()
                if not has_storage(self.context, function, ("static",))}

    @cached_property
    def _wrapper_definitions(self) -> dict[str, tuple[tuple[str, Api], object]]:
        """Function name -> ((API, positions), definition) of the file's wrappers: functions
        that pass their parameters to an API, then (up to `WRAPPER_DEPTH` levels) those that
        pass them to one of the file's wrappers found so far, the positions carried through.
        Kept with the tree (`CContext.of_tree`) with what they read beyond it, the calling
        macros and each flag's answer (`_holds`: its value may come from a project header):
        a later context of the tree (the lint with facts) takes them where all are the same."""
        kept = self.context.of_tree(_WRAPPER_DEFINITIONS, list)
        macros = self.calling_macros
        for found, read_macros, flags_read in kept:
            if read_macros == macros and all(self._holds(flags, flag) == held
                                             for flags, flag, held in flags_read):
                return found
        self._flags_read = []
        try:
            found = self._defined_wrappers()
            kept.append((found, macros, tuple(self._flags_read)))
        finally:
            self._flags_read = None
        return found

    def _defined_wrappers(self) -> dict[str, tuple[tuple[str, Api], object]]:
        found: dict = {}
        known = {name: (name, api) for name, api in APIS.items()}
        for _ in range(WRAPPER_DEPTH):
            calls = (call for _, call in self._calls(known))
            added = {}
            for function in self.context.enclosing(calls, ("function_definition",)):
                plain = plain_function(function)
                if plain is None or self.context.text(plain[0]) in known:
                    continue  # methods are called through objects; API stubs are the API
                name, declarator, body = plain
                wrapper = self._wrapper(declarator, body, known)
                if wrapper is not None:
                    added[self.context.text(name)] = (wrapper, function, body)
            if not added:
                break
            found.update(added)
            known.update((name, wrapper) for name, (wrapper, _, _) in added.items())
        return {name: (wrapper, function)
                for name, (wrapper, function, _) in self._single_calls(found).items()}

    def _single_calls(self, found: dict) -> dict:
        """`found` less the wrappers whose registering calls, once all are known, do not all
        register the same parameters with the same API (a function calling two wrappers was
        taken for a wrapper of the first one known), and those left wrapping none."""
        while True:
            names = {name: (name, api) for name, api in APIS.items()}
            names.update((name, wrapper) for name, (wrapper, _, _) in found.items())
            dropped = {name for name, (wrapper, function, body) in found.items()
                       if self._wrapper(plain_function(function)[1], body, names) != wrapper}
            if not dropped:
                return found
            found = {name: facts for name, facts in found.items() if name not in dropped}

    @cached_property
    def _wrappers(self) -> dict[str, Api]:
        return {name: api for name, (_, api) in self._wrapper_facts.items()}

    @cached_property
    def _wrapped(self) -> dict[str, str]:
        return {name: underlying for name, (underlying, _) in self._wrapper_facts.items()}

    def _wrapper(self, declarator, body, known: dict) -> tuple[str, Api] | None:
        """(API, positions) when the function's calls of `known` (name -> (API, the positions
        it reads)) that pin memory (on-demand paging pins none) all pass its own unchanged
        parameters, the same ones, as address or length to the same API (a retry with other
        flags registers the same range)."""
        parameters = parameter_names(self.context, declarator)
        if not parameters:
            return None
        found = set()
        for name, call in self._calls(known, body):
            underlying, api = known[name]
            arguments = _arguments(call)
            if api.flags is not None or not _fits(api, arguments):
                return None
            if self._on_demand(name, arguments):
                continue
            if api.shape == "attr" and _device_iface(self._attr_iface(call)):
                return None  # (device memory: no host pages; an iface the caller picks is kept)
            through = self._passed([arguments[api.address]], parameters, body) \
                if api.shape == "attr" else None
            if through is not None:  # its own attr parameter, handed on whole
                found.add((underlying, Api(through, None, shape="attr")))
                continue
            positions = [self._passed(nodes, parameters, body)
                         for nodes in self._ranges(api, arguments, call)]
            found.add((underlying, Api(*positions)))
        if len(found) != 1:
            return None
        wrapper = found.pop()
        return None if wrapper[1] == Api(None, None) else wrapper

    def _passed(self, nodes, parameters: list[str], body) -> int | None:
        """The position of the first parameter among `nodes` left unchanged in `body`."""
        for node in map(unwrapped, nodes):
            name = self.context.text(node) if node.type == "identifier" else ""
            if name and name in parameters and not assigns(self.context, body, name):
                return parameters.index(name)
        return None

    # -- fi_mr_regv, fi_mr_regattr: ranges in iovecs -------------------------------------------

    def _iovecs(self, iov, call) -> tuple[tuple, tuple]:
        """The (iov_base, iov_len) expressions the calling function gives the iovec (array)
        `iov` names, through its initializer and member assignments."""
        name, scope = self._local(iov, call)
        if name is None:
            return (), ()
        return (tuple(self._member_values(scope, name, "iov_base", 0)),
                tuple(self._member_values(scope, name, "iov_len", 1)))

    def _attr_iovecs(self, attr, call) -> tuple[tuple, tuple]:
        """The ranges of the iovecs a `struct fi_mr_attr` points to with `mr_iov`."""
        name, scope = self._local(attr, call)
        addresses, lengths = [], []
        for iov in self._member_values(scope, name, "mr_iov", None) if name else ():
            found = self._iovecs(iov, call)
            addresses.extend(found[0])
            lengths.extend(found[1])
        return tuple(addresses), tuple(lengths)

    def _local(self, node, call) -> tuple:
        """(name, function) for `name` or `&name` used in a function, else (None, None)."""
        node = unwrapped(node)
        if node.type == "pointer_expression" and node.child(0).type == "&":
            node = node.child_by_field_name("argument")
        scope = scope_of(self.context, call)
        if node.type != "identifier" or scope is None:
            return None, None
        return self.context.text(node), scope

    def _member_values(self, scope, name: str, field: str, position: int | None) -> list:
        """The values `scope` gives member `field` of the struct (array) `name`: designated or
        positional (`position` in a two-member struct) initializers, and `name.field = v`,
        `name[i].field = v`."""
        from cursedlint.analysis.c_memory import declarations_in

        values = []
        for _, declarator in declarations_in(self.context, scope, name):
            if declarator.type == "init_declarator":
                values.extend(_initialized_member(declarator.child_by_field_name("value"),
                                                  field, position))
        for _, leaf in self.context.tokens((field,), scope):
            target = self.context.parent(leaf)
            assignment = self.context.parent(target) if target is not None else None
            if (leaf.type != "field_identifier" or target.type != "field_expression"
                    or target.child_by_field_name("field") != leaf or assignment is None
                    or assignment.type != "assignment_expression"
                    or assignment.child_by_field_name("left") != target
                    or assignment.child_by_field_name("operator").type != "="):
                continue
            base = unwrapped(target.child_by_field_name("argument"))
            if base.type == "subscript_expression":
                base = base.child_by_field_name("argument")
            value = assignment.child_by_field_name("right")
            if self.context.text(base) == name and value is not None and value.is_named:
                values.append(value)
        values.extend(filled_members(self.context, scope, name, field))
        return values

    # -- what the registered memory is ----------------------------------------------------

    @cached_property
    def provenance(self) -> MemoryProvenance:
        from cursedlint.analysis.c_allocators import (
            PAGE_ALLOCATORS, file_allocators, file_sized,
        )
        from cursedlint.analysis.c_memory import MemoryProvenance

        from cursedlint.analysis.c_parameter_blocks import (
            INDEX, MEMBER_INDEX, member_provenance, stores_into,
        )
        from cursedlint.analysis.c_typed_blocks import TYPED_INDEX, allocates, typed_provenance

        pages = self.context.project.get(PAGE_ALLOCATORS.name)
        allocators, rounding, library = file_allocators(self.context, pages)
        sized = file_sized(self.context, pages)
        provenance = MemoryProvenance(self.context, self.value, self.page, allocators, rounding,
                                      self.constants.assigned, library, sized)
        callers = self.context.project.get(INDEX) or {}
        # (a member's pointer is followed to a parameter only where its callers can be known)
        provenance.follow_parameters = bool(callers) or b"static" in self.context.source.data
        provenance.macro_writes = self.constants.macro_writes
        provenance.arrays = self.constants.array_typed
        wrappers = self._wrappers if self.gathered else ()  # (none known before)
        own = _OwnCalls(self.context)
        provenance.callers = partial(_passed_in, callers, frozenset((*APIS, *wrappers)),
                                     own, allocators, sized)
        members, data = self.context.project.get(MEMBER_INDEX), self.context.source.data
        if members is not None:  # (every store the project shows, the file's own now)
            provenance.members = lambda field: member_provenance(
                {**members, **own.stores(field)}, allocators, sized, field) \
                if stores_into(data, field) else None
        provenance.asks_type = partial(allocates, self.context)
        typed = self.context.project.get(TYPED_INDEX)
        if typed is not None:
            provenance.typed = partial(typed_provenance, typed, allocators=allocators)
        self._getters = _file_getters(self.context, self.constants.extra, provenance, own,
                                      members, allocators, sized)
        provenance.getters = self._getters.returned
        return provenance

    @cached_property
    def parameter_functions(self) -> set[tuple[str, int]]:
        """The functions of the file, no API, wrapper or `static` one among them (calls of
        the first two are registrations, of the last the file's own), with the position of
        their pointer parameter a registered address comes through (of those that may,
        `_may_be_passed`): their callers' files are worth reading. Before the project's wrappers are known (the
        lint that asks for the facts), a call whose callee's name holds an API's
        (`wrap_ibv_reg_mr`), as the rules' trigger words are found, is taken for a wrapper's
        whose arguments may be registered (and so is a registration API's call, its arguments
        all): a superset of the words to look for, never a finding, read without the file's
        registrations (the lint that asks reads no more: the iovecs and attributes of a
        registration and the file's own wrappers' calls are not looked through then)."""
        asked = [address for address in self._seed_addresses if self._may_be_passed(address)]
        wrappers = self._wrappers if self.gathered else {}
        if not asked:
            return set()
        provenance, follows = self.provenance, self.provenance.follow_parameters
        provenance.follow_parameters = True  # (the same answers, the parameter asked about)
        for address in asked:
            provenance.of(address)
        provenance.follow_parameters = follows
        return {(function, position) for function, position, static
                in provenance.parameters_asked
                if not static and function not in APIS and function not in wrappers}

    @cached_property
    def length_functions(self) -> set[str]:
        """The functions at the top of the file's contexts (`c_call_contexts.tops`) of the
        registrations whose lengths are not known in their functions: their calls in other
        files may give them (none before the project's wrappers are known, nor an API or a
        wrapper)."""
        if not self.gathered:
            return set()
        found = set()
        for registration in self.registrations:
            if any(self.value(node) is UNKNOWN for node in registration.lengths):
                found.update(name for name in self.contexts.tops(registration.call)
                             if name not in APIS and name not in self._wrappers)
        return found

    @cached_property
    def _seed_addresses(self) -> list:
        """The registered addresses (`parameter_functions` says which before the wrappers are
        known)."""
        if self.gathered:
            return [address for registration in self.registrations
                    for address in registration.addresses]
        if named := _named_like_api(self.context.source.data):
            return [argument for name, call in self.context.calls(named)
                    for argument in _presumed_addresses(self.context, name, call)]
        return []

    @cached_property
    def members_read(self) -> set[str]:
        """The names of the pointer members the file's registered addresses are read from
        with nothing in their function giving them a value (`p->m`) and that the file itself
        may store into (`stores_into`): the stores into members of those names are worth
        reading (`MemoryProvenance.members`); the registrations as `parameter_functions` finds
        them; and whose every store in the file may be whole pages or device memory (one
        that is not makes the answer not known whatever other files hold). (A member only
        other files store into is not followed: each name would send the
        index to files a run over forked workers then parses twice, and a file's stores cost
        about 4 times its parse, too much to read ahead from every linted file.)"""
        from cursedlint.analysis.c_parameter_blocks import (
            may_be_whole, member_stores, stores_into,
        )

        read = [address for address in self._seed_addresses
                if "->" in self.context.text(address) or "." in self.context.text(address)
                or unwrapped(address).type == "call_expression"]
        if not read:  # (only a member's or a getter's read asks: the others cost)
            return set()
        for address in read:
            self.provenance.of(address)
        names = frozenset(name for name in self.provenance.members_asked
                          if stores_into(self.context.source.data, name))
        own = member_stores(self.context, names) if names else None
        returned = {name for name in self._getters.unseen if name} | {
            name for name, text in self._getters.asked.items() if all(
            may_be_whole(store) for found in [member_stores(text, frozenset((name,)))]
            if found is not None for store in found.stores.get(name, ()))}
        return returned | {name for name in names if own is not None and name in own.stores
                           and all(may_be_whole(store) for store in own.stores[name])}

    @cached_property
    def types_read(self) -> set[str]:
        """The types of the pointers the file's registered members are reached through
        (`&p->m`, `p` a `T *`) that nothing else settles and that the file itself allocates:
        the project's objects of those types are worth reading (`MemoryProvenance.typed`);
        the registrations as `parameter_functions` finds them. (A type only other files
        make is not followed: its name would send the index to files a run over forked
        workers then parses twice, as `members_read`'s members.)"""
        read = [address for address in self._seed_addresses
                if "->" in self.context.text(address)]
        if not read:  # (the others ask no type: no provenance made for them)
            return set()
        for address in read:
            self.provenance.of(address)
        return set(self.provenance.types_asked)

    def _may_be_passed(self, address) -> str:
        """The function through whose parameter a registered address may come (one that other
        files can call, no API or wrapper): the address names a parameter, or a local given
        one (`T *s = (T *)param;`), by its text; "" where none."""
        from cursedlint.analysis.c_memory import has_storage

        scope = scope_of(self.context, address)
        function = plain_function(scope) if scope is not None \
            and scope.type == "function_definition" else None
        name = self.context.text(function[0]) if function is not None else ""
        if not name or name in APIS or self.gathered and name in self._wrappers or \
                has_storage(self.context, scope, ("static",)):
            return ""
        names = set(_WORD.findall(self.context.text(address)))
        parameters = set(parameter_names(self.context, function[1])) - {""}
        body = function[2]
        key = ("given names", body.start_byte, body.end_byte)  # (a body read once, not per address)
        if key not in self._asked:
            self._asked[key] = _GIVEN_PARAMETER.findall(self.context.text(body))
        if names & parameters or any(
                match[0] in names and match[1] in parameters for match in self._asked[key]):
            return name
        return ""

    def silent_for_length(self, registration: Registration) -> bool:
        """Whether a registration's sub-page length harms no host page the rule can name:
        device memory (by its allocator, or a `fi_mr_attr` whose `iface` is a device or not
        known), memory that may be a block of whole pages of its own ("maybe-whole": the
        function allocates it so on one path), or ranges that start page-aligned allocations
        and end within its whole pages
        (the rounded-out pages are the allocation's own; the last page of a block whose size
        is not whole pages is not)."""
        key = ("silent for length", id(registration))
        if key not in self._asked:
            self._asked[key] = self._silent_for_length(registration)
        return self._asked[key]

    def _silent_for_length(self, registration: Registration) -> bool:
        iface = self._iface(registration)
        if iface is not None and iface not in HOST_IFACES:
            return True
        found = [self.provenance.of(address) for address in registration.addresses]
        lengths = [length for _, length, *_ in self.partial_pages(registration)]
        return bool(found) and all(
            provenance.kind in ("device", "maybe-whole") or (
                provenance.kind == "page-aligned" and (provenance.whole or not provenance.offset)
                and (
                    provenance.shared_tail is None
                    or all(length <= provenance.shared_tail for length in lengths)))
            for provenance in found)

    def sharing(self, address) -> Provenance | None:
        """The provenance of a registered address that shares its pages, else None."""
        provenance = self.provenance.of(address)
        return provenance if provenance.shares_pages else None

    def _iface(self, registration: Registration) -> str | None:
        """The `iface` a `fi_mr_regattr` registration's attr is given: the constant's name,
        "" for any other expression, None when it is not given one (system memory)."""
        if APIS[registration.api].shape != "attr" or registration.function != registration.api:
            return None
        return self._attr_iface(registration.call)

    def _attr_iface(self, call) -> str | None:
        """`_iface` of a call of `fi_mr_regattr`."""
        name, scope = self._local(_arguments(call)[1], call)
        values = self._member_values(scope, name, "iface", None) if name else []
        if not values:
            return None
        names = {self.context.text(unwrapped(value)) for value in values}
        return names.pop() if len(names) == 1 else ""


# -- the project's registering fields -----------------------------------------------------


def _presumed_addresses(context, name: str, call) -> list:
    """The arguments of a call named like a registration API that may be a registered address
    a parameter gives (`Registrations.parameter_functions` before the wrappers are known): an
    API's address argument, or any argument of another; not a parameter itself (a function
    handing its parameter on is a wrapper, its callers' calls the registrations)."""
    given = _arguments(call)
    api = APIS.get(name)
    if api is not None:
        given = given[api.address:api.address + 1] if api.address is not None else []
    scope = scope_of(context, call)
    function = plain_function(scope) if scope is not None \
        and scope.type == "function_definition" else None
    parameters = set(parameter_names(context, function[1])) if function is not None else set()
    return [argument for argument in given
            if not (unwrapped(argument) is not None and unwrapped(argument).type == "identifier"
                    and context.text(unwrapped(argument)) in parameters)]


def _passed_in(callers: dict, wrappers: frozenset, own: "_OwnCalls", allocators: dict,
               sized: dict, function: str, position: int, static: bool):
    """What the callers pass a parameter of `function` (the project index's `callers`; a
    `static` function's calls are its file's own, `own`); None for a wrapper of a registration
    API or an API (its callers' calls are registrations, reported there). `allocators`: the
    project's of whole pages (`c_allocators`), and `sized`, its page-aligned ones of a size
    the caller gives, for what members are given."""
    from cursedlint.analysis.c_parameter_blocks import caller_provenance

    if function in wrappers:
        return None
    if not static:
        return caller_provenance(callers, function, position, allocators=allocators,
                                 sized=sized)
    return caller_provenance({**callers, **own.calls(function)}, function, position, own.path,
                             allocators, sized)


def _file_getters(context, extra, provenance, own, members, allocators, sized):
    """The `Getters` of a file's calls (`analysis.c_getters`): an expression of a header is
    read with a `MemoryProvenance` made for that header with the file's allocators; a member a
    getter returns is what every store into members of its name that the project's index
    (`members`) shows puts there, the file's own stores first (not a header's: its summary,
    which a run from the cache reads, lacks its function bodies). Nothing made here refers to
    the file's provenance or to the `Getters` (no cycle holds the file's tree)."""
    from cursedlint.analysis.c_getters import Getters
    from cursedlint.analysis.c_memory import MemoryProvenance
    from cursedlint.analysis.c_parameter_blocks import member_provenance

    evaluators = {id(evaluator.context): evaluator for evaluator in extra}
    page, rounding, library = provenance.page, provenance.rounding, provenance.library
    asked: dict[str, object] = {}

    def member(text, field):
        asked.setdefault(field, text)
        if members is None:
            return None
        own_stores = own.stores(field) if text is context else {}
        return member_provenance({**members, **own_stores}, allocators, sized, field)

    def header_provenance(text):
        evaluator = evaluators[id(text)]
        found = MemoryProvenance(text, partial(evaluator.evaluate, assignments=True), page,
                                 allocators, rounding, evaluator.assigned, library, sized)
        found.members = partial(member, text)
        return found

    return Getters(Receivers(context, [evaluator.context for evaluator in extra]),
                   header_provenance, member, asked)


class _OwnCalls:
    """The linted file's own `CallerBlocks` of a function's calls (path -> them), read when
    first asked (a `static` function's callers pass their own parameters on only as far as
    they are other files' functions: the index's)."""

    def __init__(self, context):
        self.context = context
        self.path = os.path.abspath(context.source.path)
        self._calls: dict[str, dict] = {}
        self._stores: dict[str, dict] = {}

    def calls(self, function: str) -> dict:
        from cursedlint.analysis.c_parameter_blocks import caller_blocks

        if function not in self._calls:
            found = caller_blocks(self.context, frozenset((function,)))
            self._calls[function] = {} if found is None else {self.path: found}
        return self._calls[function]

    def stores(self, field: str) -> dict:
        """The linted file's own stores into members named `field` (path -> `CallerBlocks`),
        read once."""
        from cursedlint.analysis.c_parameter_blocks import member_stores

        if field not in self._stores:
            found = member_stores(self.context, frozenset((field,)))
            self._stores[field] = {} if found is None else {self.path: found}
        return self._stores[field]


def stored_wrapper(facts: dict, function: str, path: str) -> tuple[str, Api] | None:
    """What `function`, stored in a field at `path`, registers: a registration API itself,
    a wrapper of that file (`static` ones included), or the one wrapper of that name the
    project's files (path -> `RegistrationFacts`) export; None if none or several."""
    if function in APIS:
        return function, APIS[function]
    here = facts.get(path)
    own = here and (here.wrappers.get(function) or here.local.get(function))
    if own:
        return (own[0], Api(own[1], own[2])) if own[0] in APIS else None
    found = built_for(facts, "registration exports", wrappers_by_name).get(function, ())
    if len(found) != 1:
        return None
    api, address, length = next(iter(found))
    return (api, Api(address, length)) if api in APIS else None


def _registering_names(facts: dict) -> set[str]:
    """The project's wrappers, registering fields and member function wrappers' names
    (`HEADERS`' more words)."""
    return {*wrapper_names(facts), *registering_fields(facts), *method_names(facts)}


def registering_fields(facts: dict) -> set[str]:
    """The fields of the project (path -> `RegistrationFacts`) some function of which
    registers, every other registering the same way or being a function of the project that
    does not (`FunctionPointerGraph.doing`; worked out once per run)."""
    return built_for(facts, "registering fields", lambda found: set(project_graph(
        found).doing(lambda function, path: stored_wrapper(found, function, path))))


class ComposedWrappers(Struct, frozen=True):
    """The project's wrappers, each as (API, positions, steps to the API): `exported`, name ->
    path -> those other files can call; `files`, path -> every wrapper of that file, `static`
    ones included; `definers`, name -> the files defining a function of that name others can
    call, wrapper or not."""

    exported: dict
    files: dict
    definers: dict

    def nearest(self, name: str, caller: str) -> tuple | None:
        """The wrapper a call of `name` in the file `caller` reaches: of the files defining
        it, those with the most directories in common with the caller (a vendored copy of a
        library calls its own copy's function), where each of them defines it as a wrapper
        and all of them alike; None else."""
        defined = self.exported.get(name)
        if not defined:
            return None
        found = [defined.get(path) for path in nearest_files(self.definers[name], caller)]
        if None in found or len({(api, shape) for api, shape, _ in found}) != 1:
            return None
        return found[0]


def piece_names(facts: dict) -> set[str]:
    """The names whose callers' `forwarders` and `macros` may matter: the wrappers
    (`wrapper_names`) and the macros given an API's name (`macro_words`)."""
    return {*wrapper_names(facts), *macro_words(facts)}


def wrapper_names(facts: dict) -> set[str]:
    """The names of the project's wrappers (path -> `RegistrationFacts`), composed across
    files: only a file calling one can have `forwarders` that matter (a forwarded call is
    followed only where its callee is a wrapper)."""
    return {*composed_wrappers(facts).exported,
            *(name for summary in facts.values() for name in (*summary.wrappers, *summary.local))}


def composed_wrappers(facts: dict) -> ComposedWrappers:
    """The wrappers of the project's files (path -> `RegistrationFacts`, each file's composed
    within it), composed across files (worked out once per run)."""
    return built_for(facts, "composed wrappers", _composed_wrappers)


def _composed_wrappers(facts: dict) -> ComposedWrappers:
    """Each file's wrappers, then (up to `WRAPPER_DEPTH` rounds) its functions whose one
    forwarded call registering is a call, made once, of one of the file's wrappers or of
    another file's exported one, with a parameter in the place of the address or the
    length: a wrapper of the same API, the positions carried through."""
    files, public, definers = {}, set(), {}
    for path, summary in sorted(facts.items()):
        for name in (*summary.wrappers, *summary.defines):
            definers.setdefault(name, set()).add(path)
        files[path] = {name: (api, Api(address, length), (Step(
            path, summary.lines.get(name, 0), f"`{name}()` registers with {api}()"),))
            for name, (api, address, length) in {**summary.local, **summary.wrappers}.items()
            if api in APIS}
        public.update((path, name) for name in summary.wrappers)
    for path, wrappers in macro_wrappers(facts).items():
        for name, (api, shape, static, line, macro) in wrappers.items():
            files[path].setdefault(name, (api, shape, (Step(
                path, line, f"`{name}()` registers with {api}() through {macro}()"),)))
            if not static:
                public.add((path, name))
                definers.setdefault(name, set()).add(path)
    for _ in range(WRAPPER_DEPTH):
        composed = ComposedWrappers(_exported(files, public), files, definers)
        added = False
        for path, summary in sorted(facts.items()):
            for function, forwarder in compose_file(
                    path, summary.forwarders, files[path],
                    partial(composed.nearest, caller=path), rounds=1):
                added = True
                if not forwarder.static:
                    public.add((path, function))
                    definers.setdefault(function, set()).add(path)
        if not added:
            break
    return ComposedWrappers(_exported(files, public), files, definers)


def method_names(facts: dict) -> set[str]:
    """The names of the project's member function wrappers (`regMr` of `Pd::regMr`)."""
    return {key.rpartition("::")[2] for key in composed_methods(facts).exported}


def composed_methods(facts: dict) -> ComposedWrappers:
    """The project's member function wrappers, keyed `Class::name` (worked out once per
    run)."""
    return built_for(facts, "composed methods", _composed_methods)


def _composed_methods(facts: dict) -> ComposedWrappers:
    """The member functions (`RegistrationFacts.methods`) whose one forwarded call that
    registers is made once, with a parameter in the place of the address or the length: a
    call of a registration API, through a field every function stored in which registers
    alike, of a wrapper (`composed_wrappers`) or of a member function wrapper found in an
    earlier round (up to `WRAPPER_DEPTH`)."""
    methods = {path: summary.methods for path, summary in sorted(facts.items())
               if summary.methods}
    definers: dict[str, set] = {}
    for path, found in methods.items():
        for key in found:
            definers.setdefault(key, set()).add(path)
    files: dict[str, dict] = {path: {} for path in methods}
    if not methods:
        return ComposedWrappers({}, files, definers)
    graph = project_graph(facts)
    fields = graph.agreeing(lambda function, path: stored_wrapper(facts, function, path), {
        _FIELD_CALLED.search(call.callee).group(1) for found in methods.values()
        for forwarder in found.values() for call in forwarder.calls
        if _FIELD_CALLED.search(call.callee)})
    public: set = set()
    for _ in range(WRAPPER_DEPTH):
        composed = ComposedWrappers(_exported(files, public), files, definers)
        added = False
        for path, found in methods.items():
            for key, forwarder in found.items():
                target = partial(_method_target, owner=key.rpartition("::")[0], path=path,
                                 facts=facts, methods=composed, fields=fields)
                if compose_file(path, {key: forwarder}, files[path], target, rounds=1):
                    public.add((path, key))
                    added = True
        if not added:
            break
    return ComposedWrappers(_exported(files, public), files, definers)


_FIELD_CALLED = LazyPattern(r"(?:\.|->)\s*(\w+)$")
"""The field a call through a field names (`ibv.reg_mr`, `t->ops.reg`)."""


def _method_target(called: str, owner: str, path: str, facts: dict, methods: ComposedWrappers,
                   fields: dict) -> tuple | None:
    """(API, positions, steps) of what a member function of `owner` at `path` calls as
    `called` (`c_forwarding.forwarded_method_calls`' names), where it registers."""
    if "::" in called and called in methods.definers:
        return methods.nearest(called, path)
    field = _FIELD_CALLED.search(called.replace("::", "."))  # (no member function of that
    # name: a field, which holds functions only where no class declares such a method)
    if field is not None:
        if field.group(1) not in fields:
            return None
        (api, shape), candidates = fields[field.group(1)]
        return api, shape, tuple(step for candidate in candidates for step in candidate.steps(
            called, f"which registers with {api}()"))
    if called in APIS:
        return None if APIS[called].flags is not None else (called, APIS[called], ())
    if f"{owner}::{called}" in methods.definers:  # (a member of its class, not a function)
        return methods.nearest(f"{owner}::{called}", path)
    composed = composed_wrappers(facts)
    return composed.files.get(path, {}).get(called) or composed.nearest(called, path)


def _exported(files: dict, public: set) -> dict:
    exported: dict[str, dict] = {}
    for path, wrappers in files.items():
        for name, known in wrappers.items():
            if (path, name) in public:
                exported.setdefault(name, {})[path] = known
    return exported


TEST_DIRECTORIES = frozenset({"test", "tests", "testing", "unittest", "unittests", "mock", "mocks"})
"""Directories whose files only tests link: their functions (mocks of a library's) are not what
a caller outside them reaches where the project defines the name elsewhere too."""


def nearest_files(paths, caller: str) -> list[str]:
    """Of `paths`, those with the most leading directories in common with `caller`, passing
    over those in test directories (below the paths' common root) where the caller is not in
    one and another path is not."""
    paths = list(paths)
    root = os.path.commonpath([os.path.dirname(caller), *map(os.path.dirname, paths)])

    def in_tests(path: str) -> bool:
        return not TEST_DIRECTORIES.isdisjoint(
            os.path.relpath(os.path.dirname(path), root).split(os.sep))

    if not in_tests(caller):
        paths = [path for path in paths if not in_tests(path)] or paths

    def shared(path: str) -> int:
        return len(os.path.commonpath((os.path.dirname(path), os.path.dirname(caller))))

    ranked = {path: shared(path) for path in paths}
    best = max(ranked.values(), default=0)
    return sorted(path for path, common in ranked.items() if common == best)


def compose_file(path: str, forwarders: dict, wrappers: dict, exported: Callable,
                 rounds: int = WRAPPER_DEPTH) -> list[tuple[str, Forwarder]]:
    """Add to `wrappers` (a file's: name -> (API, positions, steps)) its functions that
    `forwarders` show passing their parameters to one of them or to the wrapper of another
    file a call of that name reaches (`exported(name)`; up to `rounds` rounds); the (name,
    forwarder) of those added."""
    found = []
    for _ in range(rounds):
        added = False
        for function, forwarder in forwarders.items():
            if function in wrappers:
                continue
            calls = [(call, known) for call in forwarder.calls if (known := (
                wrappers.get(call.callee) if call.local else exported(call.callee)))
                is not None]
            composed = _through(path, function, *calls[0]) if len(calls) == 1 else None
            if composed is not None:
                wrappers[function] = composed
                found.append((function, forwarder))
                added = True
        if not added:
            break
    return found


def _through(path: str, function: str, call: Forward, known: tuple) -> tuple | None:
    """(API, positions, steps) of `function`, which makes `call` of the wrapper `known`:
    the parameters it gives in the wrapper's address and length places, if any."""
    api, wrapper, steps = known
    given = dict(call.pairs)
    address, length = (None if place is None else given.get(place)
                       for place in (wrapper.address, wrapper.length))
    if not call.once or (address is None and length is None):
        return None
    passed = " and ".join(what for what, place in (("address", address), ("length", length))
                          if place is not None)
    return api, Api(address, length), (
        Step(path, call.line, f"`{function}()` passes its {passed} to `{call.callee}()`"),
        *steps)


# -- tree helpers ------------------------------------------------------------------------------


def _or_none(position: int | None) -> int:
    return -1 if position is None else position


def macro_wrappers(facts: dict) -> dict[str, dict[str, tuple]]:
    """Path -> function -> (API, positions, static, line, macro) for the functions of the
    project's files (path -> facts) whose calls of macros given an API's name
    (`MacroRegistration`) the project's macros make registrations, all of the same parameters
    with the same API."""
    return built_for(facts, "macro wrappers", _macro_wrappers)


def _macro_wrappers(facts: dict) -> dict[str, dict[str, tuple]]:
    macros = project_calling_macros(facts) if any(
        summary.macro_registrations for summary in facts.values()) else {}
    found: dict[str, dict[str, tuple]] = {}
    for path, summary in facts.items():
        made: dict[str, set] = {}
        for call in summary.macro_registrations:
            macro, api = macros.get(call.macro), APIS[call.api]
            given = macro.mapped(list(range(len(call.parameters)))) \
                if macro is not None and macro.function == call.position else None
            if given is None or not _fits(api, given) or api.shape != "plain" \
                    or api.flags is not None:  # (as `Registrations._wrapper`)
                continue
            flags = ACCESS_FLAGS.get(call.api)
            if flags is not None and flags < len(given) and given[flags] in call.on_demand:
                continue
            address, length = (_parameter(call, given, index) for index in (api.address,
                                                                              api.length))
            made.setdefault(call.function, set()).add(
                (call.api, Api(address, length), call.static, call.line, call.macro))
        wrappers = {function: min(shapes, key=lambda shape: shape[3])
                    for function, shapes in made.items()
                    if len({shape[:2] for shape in shapes}) == 1
                    and next(iter(shapes))[1] != Api(None, None)}
        if wrappers:
            found[path] = wrappers
    return found


def macro_words(facts: dict) -> set[str]:
    """The macros the project's files call with an API's name, and those their definitions
    (found so far) hand that name on to (`macros_reached`): the index reads the files
    defining them."""
    return macros_reached(project_shapes(facts), {
        (call.macro, call.position) for summary in facts.values()
        for call in summary.macro_registrations})


def _parameter(call: MacroRegistration, given: list, index: int | None) -> int | None:
    if index is None or index >= len(given) or call.parameters[given[index]] < 0:
        return None
    return call.parameters[given[index]]


def _picked(arguments: list, index: int | None) -> tuple:
    return () if index is None else (arguments[index],)


def _fits(api: Api, arguments: list) -> bool:
    """Whether a call has the arguments the API reads."""
    return max(i for i in (api.address, api.length, api.flags) if i is not None) < len(arguments)


def _initialized_member(value, field: str, position: int | None) -> list:
    """The expressions an initializer gives member `field`: `{.field = v}`, `{a, b}` (the
    member at `position` of a two-member struct such as iovec), or an array of these."""
    found, pending = [], [value]
    while pending:
        value = pending.pop()
        if value is None or value.type != "initializer_list":
            continue
        items = [item for item in value.named_children if item.type != "comment"]
        if items and all(item.type == "initializer_list" for item in items):
            pending.extend(reversed(items))
            continue
        pairs = [item for item in items if item.type == "initializer_pair"]
        given = next((item.child_by_field_name("value") for item in pairs
                      if _designates(item, field)), None)
        if given is not None:
            found.append(given)
        elif position is not None and not pairs and len(items) == 2:
            found.append(items[position])
    return found


def _designates(pair, field: str) -> bool:
    designator = pair.child_by_field_name("designator")
    return designator is not None and designator.text.lstrip(b".") == field.encode()
