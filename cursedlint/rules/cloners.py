"""CUR5xx: IR cloners — pointers copied around the cloner leave the copy pointing into the
source container (C++).

An IR container owns its nodes; a cloner maps each source node to its copy. Clone code that
copies a node pointer verbatim instead of through the cloner leaves the copy referring to nodes
the *source* owns: when the source frees them (dead-code removal, destruction) the copy dangles.

Facts come from the project index (`ClonerIndex`: class declarations of the project's C++
files, found from the files naming a cloner type and, round by round, the files declaring the
classes cloning functions copy, their bases, and the classes deriving from a cloneable one),
joined with the linted file's own classes. Cloneable types are learned from the cloner: the
pointer and reference parameters of its methods (not constructors, static or template methods,
nor the types its constructors take: the destination container), or the pointer types of a
cloner alias (`using ValueMap = std::unordered_map<const Node*, Node*>`); failing those, the
classes with a cloning constructor; and every class derived from those. What cannot be
resolved (a member of a class the index does not hold, a type it cannot name) is not reported.
"""

from __future__ import annotations

import functools
import os
import re
from bisect import bisect_left
from functools import cached_property

from msgspec import Struct

from cursedlint.analysis.c_syntax import function_declarator, unwrapped, written_name
from cursedlint.analysis.cpp_returns import Returning, auto_locals, functions_returning, returned_by
from cursedlint.cpp_classes import (
    ClassFacts,
    ClassIndex,
    FileClasses,
    TypeFacts,
    file_classes,
    is_const,
    named_type,
    type_facts,
)
from cursedlint.findings import Severity, Step
from cursedlint.languages import CPP
from cursedlint.project_index import Indexer
from cursedlint.rule import C_NAME_PART, Example, Option, Rule
from cursedlint.second_look import Shape

DEFAULT_CLONER_TYPES = ("Cloner", "CloneContext", "Mapper", "Mapping", "IRMapping",
                        "ValueToValueMapTy")
DEFAULT_COPY_FUNCTIONS = ("copy", "clone", "deepCopy")
MAPPING_METHOD_PREFIXES = ("clone", "lookup", "remap", "map", "find", "get")
"""Names of the cloner methods a finding suggests, in this order of preference."""
INSERTERS = frozenset({"push_back", "emplace_back", "push_front", "emplace_front", "insert",
                       "emplace", "emplace_hint", "try_emplace", "insert_or_assign"})
_UNWRAPPING_CALLS = frozenset({"std::move", "move", "std::as_const", "as_const"})
_CASTS = frozenset({"static_cast", "const_cast", "reinterpret_cast", "dynamic_cast"})
_CLONER_TYPES_OPTION = Option(
    list, list(DEFAULT_CLONER_TYPES),
    "name endings of cloner/mapper types: a function with a parameter of such a type is a "
    "cloning function, and the type's methods say which classes it clones",
    item=str, form=C_NAME_PART,
)
_CONSEQUENCE = (
    "The copy keeps pointers to {what} owned by the source container; when the source frees "
    "them (dead-code removal, its destruction) the copy dangles and fails later as a "
    "heap-use-after-free far from this line"
)


# -- the project index: classes of the project's C++ files ---------------------------------------
def cloner_types(settings) -> tuple[str, ...]:
    """The cloner name endings configured for either CUR5xx rule."""
    endings: set[str] = set()
    for rule in (PointerCopiedAroundCloner, MemberMissedByCloner):
        endings.update(rule.resolved_options(settings.rule_options.get(rule.code))["cloner-types"])
    return tuple(sorted(endings))


def copy_function_names(settings) -> tuple[str, ...]:
    """The copy-function names configured for CUR501."""
    rule = PointerCopiedAroundCloner
    return tuple(rule.resolved_options(settings.rule_options.get(rule.code))["copy-functions"])


class MappedIfCloner(Struct, frozen=True):
    """What a copy routine maps through an `auto` local initialized by a call of `callee` (in
    a function of class `own_class`): mapped after cloning if the callee returns a cloner."""

    callee: str
    own_class: str
    names: tuple[str, ...]


class ClonerFacts(Struct, frozen=True):
    """One file's classes, and the classes its cloning functions copy (by the names written in
    their definitions), whose declarations the index must then find."""

    classes: FileClasses
    wanted: tuple[str, ...]
    mapped: tuple[str, ...] = ()  # `mapped_after_cloning`
    returning: tuple[Returning, ...] = ()  # functions returning a cloner
    mapped_if: tuple[MappedIfCloner, ...] = ()


class ClonerIndex(Indexer):
    """Classes, members and methods of the project's C++ files that matter to cloning: first the
    files naming a cloner type, then, round by round, the files declaring the classes their
    cloning functions copy and the classes deriving from a cloneable one."""

    name = "cpp-classes"
    languages = (CPP,)
    summary_type = ClonerFacts

    def words(self, settings):
        return cloner_types(settings)

    def more_words(self, facts, settings):
        index = ClassIndex((path, found.classes) for path, found in facts.items())
        names = {name for found in facts.values() for name in found.wanted}
        by_short: dict[str, list[ClassFacts]] = {}
        for _, found in index.classes.values():
            by_short.setdefault(found.short_name, []).append(found)
        pending = list(names)
        while pending:  # the copied classes' members may live in their base classes
            for found in by_short.get(pending.pop(), ()):
                for base in found.bases:
                    short = base.split("::")[-1]
                    if short not in names:
                        names.add(short)
                        pending.append(short)
        for cloner in cloners_in(index, cloner_types(settings)):
            names |= {name.split("::")[-1] for name in cloneable_for(index, cloner)}
        return names

    def pattern(self, words, first_round):
        alternatives = "|".join(re.escape(word) for word in sorted(words))
        if first_round:
            return _ending_pattern(words)
        # a name, but not one of the keywords that start a match: each chain of names is read
        # from one start (`class class class ...` was read to its end from every `class`)
        name = rb"(?!(?:public|protected|private|virtual|class|struct)(?![A-Za-z0-9_]))[A-Za-z_]\w*"
        qualifiers = rb"(?:" + name + rb"\s*::\s*)*"
        return re.compile(  # a class declared with one of these names, or deriving from one
            rb"(?:\b(?:public|protected|private|virtual)\s+" + qualifiers
            + rb"|\b(?:class|struct)\s+(?:" + name + rb"\s+)*"
            + rb"(?:" + name + rb"\s*(?:final\s*)?:\s*" + qualifiers + rb")?)"
            + rf"(?:{alternatives})(?![A-Za-z0-9_])".encode()
        )

    def needed_by(self, context) -> bool:
        settings = context.settings
        return bool(cloning_candidates(
            context, cloner_types(settings), copy_function_names(settings)
        ))

    def summarize(self, context):
        classes = file_classes(context)
        candidates = cloning_candidates(
            context, cloner_types(context.settings), copy_function_names(context.settings))
        wanted = tuple(sorted(copied_classes(candidates)))
        mapped = mapped_after_cloning(context, candidates)
        returning = tuple(cloners_returned(context, cloner_types(context.settings)))
        mapped_if = tuple(mapped_if_cloner(context, candidates))
        if classes.classes or classes.aliases or wanted or mapped or returning or mapped_if:
            return ClonerFacts(classes, wanted, mapped, returning, mapped_if)
        return None


class Candidate(Struct, frozen=True):
    """A function definition that may be a cloning function, read from its text alone."""

    node: object
    declarator: object  # its function_declarator
    name: str  # as declared, template arguments dropped: `Expr::Expr`, `Scalar::Scalar`
    parameters: tuple  # (name or None, TypeFacts, const) per parameter
    cloner_parameters: frozenset  # indices into `parameters`
    local_cloners: tuple  # (name, TypeFacts) of cloners declared in the body
    called_cloners: tuple = ()  # (name, TypeFacts, callee, used, own class) of `auto` locals
    # initialized by a call (`_local_cloners`), resolved by `CloneAnalysis`


def cloning_candidates(context, endings, copy_functions) -> list[Candidate]:
    """Definitions that may be cloning functions: with a parameter of a cloner type (other than
    the class the function belongs to: a mapping's own methods merge mappings), or a cloner
    declared inside a function whose name begins with a copy-function name (`auto` ones too:
    `_local_cloners`); something to copy
    from (another pointer or reference parameter, or `this` in a member function); and, unless
    it is a constructor taking the cloner and a source, at least one write of a form the rules
    read (an initializer, an assignment to a name or member, an insertion into one). No
    lookup: a superset of what `CloneAnalysis` reports on, so the project index is needed only
    when a linted file has one."""
    endings, copy_functions = tuple(endings), tuple(name.lower() for name in copy_functions)
    mentions = (node for _, _, node in context.hits(_ending_pattern(endings)))
    found = []
    for node in context.enclosing(mentions, ("function_definition",)):
        declarator = node.child_by_field_name("declarator")
        function = function_declarator(declarator) if declarator is not None else None
        body = node.child_by_field_name("body")
        if function is None or body is None:
            continue
        name = re.sub(r"<[^<>]*>", "", written_name(context, function) or "")
        own = name.split("::")[-2].strip() if "::" in name else _enclosing_class(context, node)
        parameters = tuple(_parameters(context, function))
        cloner_parameters = frozenset(
            index for index, (_, facts, _) in enumerate(parameters)
            if _ends_with(facts.named, endings) and facts.named.split("::")[-1] != own
        )
        local_cloners, called_cloners = (), ()
        if name.split("::")[-1].lower().startswith(copy_functions):
            local_cloners, called = _local_cloners(context, body, endings, parameters)
            called_cloners = tuple((*local, own) for local in called)
        if not cloner_parameters and not local_cloners and not called_cloners:
            continue
        constructor = bool(own) and name.split("::")[-1] == own
        source_parameter = any(
            (facts.pointer or facts.reference) and index not in cloner_parameters
            for index, (_, facts, _) in enumerate(parameters)
        )
        if constructor and cloner_parameters and source_parameter:
            copies = True  # CUR502 judges it even when it writes nothing
        else:
            copies = (source_parameter or bool(own)) and _has_write(context, node, body)
        if copies:
            found.append(Candidate(node, function, name, parameters, cloner_parameters,
                                   local_cloners, called_cloners))
    return found


def _ends_with(named: str, endings) -> bool:
    return bool(named) and named.split("::")[-1].endswith(endings)


def _enclosing_class(context, node) -> str:
    """The name of the class whose body holds a definition directly, or ""."""
    for parent in context.ancestors(node):
        if parent.type == "namespace_definition":
            return ""
        if parent.type in ("class_specifier", "struct_specifier"):
            label = parent.child_by_field_name("name")
            if label is not None and label.type == "template_type":
                label = label.child_by_field_name("name")
            return context.text(label) if label is not None else ""
    return ""


def _parameters(context, function_declarator):
    parameters = function_declarator.child_by_field_name("parameters")
    for parameter in parameters.named_children if parameters is not None else ():
        if parameter.type in ("parameter_declaration", "optional_parameter_declaration"):
            declarator = parameter.child_by_field_name("declarator")
            facts = type_facts(context, parameter.child_by_field_name("type"), declarator)
            name = written_name(context, declarator) or None if declarator else None
            yield name, facts, is_const(context, parameter)


def _local_cloners(context, body, endings, parameters):
    """The cloners declared in a body, as (name, type) pairs, and the `auto` locals that may be
    cloners, as (name, type as declared, callee, used) tuples (`used`: None, or whether through
    a pointer):
    - a local of a cloner type: `IrCloner cloner(to);`, `IRMapping m;`;
    - an `auto` local initialized by a call of a named function (`auto c = Container::copy(from,
      to)`, `auto c = IrCloner(to)`): a cloner if the project index knows that function to
      return one, or that name to be a cloner type (`CloneAnalysis`), or else if it is `used`
      as one (`_used_as_cloners`);
    - any other `auto` local used as a cloner (of a type not known)."""
    declarations = context.captures("(declaration) @d", body).get("d", ())
    declared = []
    for declaration in sorted(declarations, key=lambda node: node.start_byte):
        type_node = declaration.child_by_field_name("type")
        if type_node is None or not _ends_with(named_type(context, type_node), endings):
            continue
        for declarator in declaration.children_by_field_name("declarator"):
            name = written_name(context, declarator)
            if name:
                declared.append((name, type_facts(context, type_node, declarator)))
    autos = list(auto_locals(context, body))
    if not autos:
        return tuple(declared), ()
    excluded = {name for name, _ in declared} | {name for name, _, _ in parameters if name} | {
        name for name, _, _ in autos}
    used = _used_as_cloners(context, body, excluded)
    called = []
    for name, facts, callee in autos:
        if callee:
            called.append((name, facts, callee, used.get(name)))
        elif name in used:
            declared.append((name, TypeFacts(facts.text, "", (), used[name], facts.reference)))
    return tuple(declared), tuple(called)


def _used_as_cloners(context, body, excluded: set[str]) -> dict[str, bool]:
    """Objects of a body used as a cloner — `c.clone(val)`, `c->clone(from->inputs_)`: one
    argument that is neither one of `excluded` (parameters, cloners, `auto` locals) nor `this`,
    as in `node->clone(to)` or `node->clone(&cloner)` (a node copying itself) — and whether
    through a pointer."""
    found: dict[str, bool] = {}
    for call in context.captures("(call_expression) @c", body).get("c", ()):
        function = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        if (function is None or function.type != "field_expression" or arguments is None
                or arguments.named_child_count != 1
                or context.text(function.child_by_field_name("field")) != "clone"):
            continue
        receiver = function.child_by_field_name("argument")
        argument = unwrapped(arguments.named_children[0])
        if argument.type == "pointer_expression":  # &mapping
            argument = unwrapped(argument.child_by_field_name("argument"))
        if receiver.type != "identifier" or argument.type == "this" or (
                argument.type == "identifier" and context.text(argument) in excluded):
            continue
        arrow = context.text(function.child_by_field_name("operator")) == "->"
        found.setdefault(context.text(receiver), arrow)
    return found


_WRITES = """
[(field_initializer) @w
 (assignment_expression left: [(identifier) (field_expression)]) @w
 (call_expression function: (field_expression
    argument: [(identifier) (field_expression)] field: (field_identifier) @inserter))]
"""


def _has_write(context, node, body) -> bool:
    captures = context.captures(_WRITES, node)
    if captures.get("w"):
        return True
    return any(context.text(field) in INSERTERS for field in captures.get("inserter", ()))


def copied_classes(candidates: list[Candidate]) -> set[str]:
    """Short names of the classes a file's cloning candidates belong to or take as pointers or
    references (by the text of the definitions: no lookup)."""
    names: set[str] = set()
    for candidate in candidates:
        if "::" in candidate.name:
            names.add(candidate.name.split("::")[-2].strip())
        names.update(
            facts.named.split("::")[-1] for _, facts, _ in candidate.parameters
            if (facts.pointer or facts.reference) and facts.named
            and not facts.named.startswith("std::")
        )
    return {name for name in names if name and name.isidentifier()}


def mapped_after_cloning(context, candidates: list[Candidate]) -> tuple[str, ...]:
    """The members and setters a file's copy functions (among its cloning `candidates`) apply,
    through the cloner, to the objects the cloner made:
    `cloner.clone(v)->setUses(cloner.clone(v->uses()))`, `cloner.clone(v)->uses_ = ...`
    (a container's copy routine mapping what the cloning constructors leave unset)."""
    found = set()
    for candidate in candidates:
        cloners = {name for name, _ in candidate.local_cloners} | {
            candidate.parameters[index][0] for index in candidate.cloner_parameters} | {
            name for name, _, _, used, _ in candidate.called_cloners if used is not None}
        cloners.discard(None)
        found |= _mapped_through(context, candidate, cloners)
    return tuple(sorted(found))


def mapped_if_cloner(context, candidates: list[Candidate]):
    """What the copy functions map as `mapped_after_cloning` does through an `auto` local that
    is a cloner only if its initializer's callee returns one (which the index tells)."""
    for candidate in candidates:
        for name, _, callee, used, own in candidate.called_cloners:
            names = _mapped_through(context, candidate, {name}) if used is None else ()
            if names:
                yield MappedIfCloner(callee, own, tuple(sorted(names)))


def _mapped_through(context, candidate: Candidate, cloners: set[str]) -> set[str]:
    found = set()
    body = candidate.node.child_by_field_name("body")
    for target, value in _member_uses(context, body):
        receiver = target.child_by_field_name("argument")
        if (_is_call_on(context, receiver, cloners)
                and any(leaf.type == "identifier" for _, leaf in context.tokens(cloners, value))):
            found.add(context.text(target.child_by_field_name("field")))
    return found


def cloners_returned(context, endings) -> list[Returning]:
    """The functions a file declares or defines returning a cloner (`static IrCloner
    copy(const Container* from, Container* to);`)."""
    mentions = (node for _, _, node in context.hits(_ending_pattern(endings)))
    return functions_returning(context, mentions, lambda named: _ends_with(named, endings))


def _member_uses(context, body):
    """(field expression, what it is given) for `x->f(args)` calls and `x->f = value`."""
    for call in context.captures("(call_expression) @c", body).get("c", ()):
        function = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        if function is not None and function.type == "field_expression" and arguments:
            yield function, arguments
    for assignment in context.captures("(assignment_expression) @a", body).get("a", ()):
        left = assignment.child_by_field_name("left")
        if left is not None and left.type == "field_expression":
            yield left, assignment.child_by_field_name("right")


def _is_call_on(context, node, objects: set[str]) -> bool:
    """Whether `node` is a method call on one of `objects` (`cloner.clone(v)`)."""
    node = unwrapped(node) if node is not None else None
    function = node.child_by_field_name("function") if node is not None and \
        node.type == "call_expression" else None
    return (function is not None and function.type == "field_expression"
            and context.text(function.child_by_field_name("argument")) in objects)


def setter_subject(name: str) -> str:
    """What a member or setter name is about: `uses_`, `m_uses`, `setUses`, `set_uses` ->
    `uses`."""
    name = re.sub(r"^(?:set_?(?=[A-Z_])|m_)", "", name.strip("_"))
    return name.replace("_", "").lower()


def cloners_in(index: ClassIndex, endings) -> list[str]:
    """Qualified names of the index's classes and aliases whose names end in a cloner word."""
    return [
        name for name in (*index.classes, *index.aliases)
        if name.split("::")[-1].endswith(tuple(endings))
    ]


def cloneable_for(index: ClassIndex, cloner: str | None, short_name: str = "") -> set[str]:
    """Classes the cloner (qualified name in the index, or None when only its name is known)
    clones: its mapping methods' pointer parameters or its alias's pointer types — else, when
    those name no class, the classes with a constructor taking it — and every class derived
    from those."""
    roots: set[str] = set()
    short = cloner.split("::")[-1] if cloner else short_name
    if cloner in index.classes:
        scope = index.classes[cloner][1].scope
        methods = list(index.methods(cloner))
        targets = {  # what its constructors take: the destination container, not a node
            name
            for method in methods if method.name == short
            for parameter in method.parameters
            for name in _resolved_pointees(index, parameter, scope)
        }
        for method in methods:
            if _maps(method, short):
                for parameter in method.parameters:
                    roots.update(_resolved_pointees(index, parameter, scope) - targets)
    elif cloner in index.aliases:
        alias = index.aliases[cloner][1]
        roots.update(_resolved_pointees(index, alias.type, alias.scope))
    if not roots:  # every mapping method is a template: the classes with cloning constructors
        roots = {
            name for name in _constructors_taking(index).get(short, ())
            if any(
                _names_cloner(index, parameter, index.classes[name][1].scope, cloner, short)
                for method in index.classes[name][1].methods
                if method.name == index.classes[name][1].short_name
                for parameter in method.parameters
            )
        }
    roots.discard(cloner)
    return index.derived_from(roots) if roots else set()


_shared: list = [None, None]  # [project facts, their ClassIndex], kept for the process


def _index_for(context, facts: dict) -> ClassIndex:
    """The class index a file is analyzed with: the project's, built once per process, when the
    file's own facts are in it (the command-line case: linted files are project files); else
    the project's facts joined with the file's own classes."""
    path = os.path.abspath(context.source.path)
    summary = facts.get(path)
    if summary is not None and summary.classes == file_classes(context):
        if _shared[0] is not facts:
            _shared[:] = [facts, ClassIndex((p, f.classes) for p, f in facts.items())]
        return _shared[1]
    project = [(p, f.classes) for p, f in facts.items() if p != path]
    return ClassIndex([(context.source.path, file_classes(context)), *project])


def cached_cloneable_for(index: ClassIndex, cloners: tuple) -> frozenset[str]:
    """The classes any of `cloners` ((qualified name or "", short name) pairs) clones,
    remembered on the index (shared by every file and function of a run: no set is copied
    per function)."""
    memo = index.__dict__.setdefault("_cloneable", {})
    if cloners not in memo:
        memo[cloners] = frozenset().union(
            *(cloneable_for(index, qualified or None, short) for qualified, short in cloners)
        )
    return memo[cloners]


@functools.cache
def _cloner_use_pattern(endings: tuple[str, ...]) -> re.Pattern[bytes]:
    """A cloner type used for a parameter, a local declaration or a function's return type
    (`IrCloner Fusion::copy(...)`, whose cloner may be an `auto` local), in raw bytes: what
    every cloning candidate holds (a parse-free look, wider than `cloning_candidates`).
    Template arguments and attributes are read up to 256 bytes: unbounded, each of many uses
    on a line would read to its end."""
    name = (
        rb"(?:[A-Za-z_]\w*\s*::\s*)*(?<![A-Za-z0-9_])\w*?(?:"
        + "|".join(re.escape(ending) for ending in endings).encode()
        + rb")(?![A-Za-z0-9_])(?:\s*<[^;{}()]{0,256}>)?"
    )
    qualifiers = rb"(?:(?:const|volatile|struct|class|static)\s+)*"
    after = rb"(?:\s*(?:const|volatile|[&*]))*\s*"
    parameter = (rb"[(,]\s*(?:\[\[[^\]]{0,256}\]\]\s*)?" + qualifiers + name + after
                 + rb"(?:[A-Za-z_]\w*)?\s*(?:=[^,()]*)?(?:[,)]|/[/*])")
    local = (rb"(?:^|[;{}(])\s*" + qualifiers + name + after
             + rb"(?:[A-Za-z_]\w*\s*::\s*)*[A-Za-z_]\w*\s*[({;=]")
    return re.compile(parameter + rb"|(?m:" + local + rb")")


@functools.cache
def probe_words(endings: tuple[str, ...]) -> tuple[str, ...]:
    """The fewest words one of which each cloner ending contains (endings sharing a prefix of
    four or more characters are found by it: Cloner and CloneContext by "Clone"), for the
    prefilter; the second look (`ClonerUse`) then looks for the endings themselves."""
    words: set[str] = set()
    for ending in sorted(endings, key=len):
        if any(word in ending for word in words):
            continue
        shared = [os.path.commonprefix([ending, other]) for other in endings if other != ending]
        words.add(max((prefix for prefix in shared if len(prefix) >= 4), key=len, default=ending))
    return tuple(sorted(word for word in words if not any(o != word and o in word for o in words)))


LOOK_BEHIND, LOOK_AHEAD = 160, 200
"""Bytes around a cloner ending that hold the declaration it may be part of."""


_last_look: list = [None, None, False]  # the bytes and endings last looked at, and the answer


def cloner_used(data, endings: tuple[str, ...]) -> bool:
    """Whether a cloner type is used for a parameter or a local somewhere in `data`: each
    occurrence of an ending is found by a plain search, and only the text around it is
    matched against the declaration forms (remembered for the last bytes looked at). The
    windows of occurrences closer than a window are matched as one (matched one by one, a
    text dense with them had each byte read by dozens: 2 MB of `,IrCloner<` took 14 s)."""
    if _last_look[0] is data and _last_look[1] == endings:
        return _last_look[2]
    pattern = _cloner_use_pattern(endings)
    found = False
    for ending in endings:
        needle = ending.encode()
        at = data.find(needle)
        while at != -1 and not found:
            start, end = max(0, at - LOOK_BEHIND), at + len(needle) + LOOK_AHEAD
            at = data.find(needle, at + 1)
            while at != -1 and at - LOOK_BEHIND <= end:
                end = at + len(needle) + LOOK_AHEAD
                at = data.find(needle, at + 1)
            found = pattern.search(data[start:end]) is not None
        if found:
            break
    _last_look[:] = [data, endings, found]
    return found


class ClonerUse(Struct, Shape, frozen=True):
    """A cloner type (a name ending in one of `endings`) used for a parameter or a local."""

    endings: tuple[str, ...]

    def may_match(self, data: bytes) -> bool:
        return cloner_used(data, self.endings)


def _ending_pattern(endings) -> re.Pattern[bytes]:
    """A name ending in one of the cloner words, in raw source bytes."""
    alternatives = "|".join(re.escape(ending) for ending in sorted(endings))
    return re.compile(rf"(?:{alternatives})(?![A-Za-z0-9_])".encode())


def _constructors_taking(index: ClassIndex) -> dict[str, set[str]]:
    """Type short name -> the classes with a constructor taking a parameter of that name
    (computed once per index)."""
    found = getattr(index, "_constructors_taking", None)
    if found is None:
        found = {}
        for name, (_, facts) in index.classes.items():
            for method in facts.methods:
                if method.name == facts.short_name:
                    for parameter in method.parameters:
                        if parameter.named:
                            found.setdefault(parameter.named.split("::")[-1], set()).add(name)
        index._constructors_taking = found
    return found


def _maps(method, cloner_short_name: str) -> bool:
    """Whether a cloner method's parameters name what it maps: any method but constructors,
    destructors, operators other than [], static and template methods."""
    name = method.name
    if method.template or method.static or name in (cloner_short_name, f"~{cloner_short_name}"):
        return False
    return name == "operator[]" or not name.startswith("operator")


def _resolved_pointees(index: ClassIndex, facts: TypeFacts, scope) -> set[str]:
    names = set(facts.pointees)
    if facts.reference and not facts.pointer and facts.named:
        names.add(facts.named)  # clone(const Node&)
    resolved = (index.resolve(name, scope) for name in names)
    return {name for name in resolved if name}


def _names_cloner(index, parameter: TypeFacts, scope, cloner, short) -> bool:
    if not parameter.named or parameter.named.split("::")[-1] != short:
        return False
    resolved = index.resolve(parameter.named, scope) or index.resolve_alias(parameter.named, scope)
    return resolved == cloner or resolved is None


# -- cloning functions of the linted file ---------------------------------------------------------
class ClonerVariable(Struct, frozen=True):
    name: str
    arrow: bool  # a pointer: reached with ->
    type_name: str  # as written
    qualified: str | None  # its class or alias in the index


class CloningFunction(Struct):
    """A function that copies through a cloner: the cloners it can use, the objects it copies
    from (`this` included), the variables it copies into (parameter or local -> class), and
    whether writes to its own object count too (`into_this`: constructors, `copyFrom`)."""

    node: object
    name: str
    owner: str | None
    constructor: bool
    cloners: list[ClonerVariable]
    cloner_parameter: bool
    sources: dict[str, str]  # name -> how its members are reached ("->" or ".")
    destinations: dict[str, list[tuple[int, int, int, str]]]  # see CloneAnalysis._local_copies
    into_this: bool
    cloneable: frozenset[str]


class Write(Struct, frozen=True):
    """One copy into a destination member: `node` to report, the member and its object's
    class, the value copied and whether the member receives it as an element (push_back)."""

    node: object
    member: str
    owner: str
    value: object
    element: bool


class CloneAnalysis:
    """The cloning functions of one file and what they write, shared by CUR501 and CUR502."""

    def __init__(self, context, facts: dict, endings: tuple[str, ...], copy_functions):
        self.context = context
        self.endings = tuple(endings)
        self.copy_functions = tuple(copy_functions)
        self.facts = facts
        self._locals: dict[int, set[str]] = {}
        self._remappings: dict[int, list[tuple[int, int]]] = {}
        self._words: dict[tuple, list[int]] = {}

    @cached_property
    def index(self) -> ClassIndex:
        return _index_for(self.context, self.facts)

    @cached_property
    def mapped_after_cloning(self) -> set[str]:
        """The subjects (`setter_subject`) of what the project's copy routines, this file's
        included, set through the cloner on the objects it made."""
        names = {name for found in self.facts.values() for name in found.mapped}
        names.update(mapped_after_cloning(self.context, self._candidates))
        conditional = [entry for found in self.facts.values() for entry in found.mapped_if]
        conditional += mapped_if_cloner(self.context, self._candidates)
        for entry in conditional:
            if self.called_cloner(entry.callee, entry.own_class, ()) is not None:
                names.update(entry.names)
        return {setter_subject(name) for name in names}

    @cached_property
    def _returning(self) -> list[Returning]:
        """The functions of the project, this file's included, that return a cloner."""
        path = os.path.abspath(self.context.source.path)
        found = cloners_returned(self.context, self.endings)
        found += [function for where, facts in self.facts.items() if where != path
                  for function in facts.returning]
        return found

    def called_cloner(self, callee: str, own_class: str, scope) -> TypeFacts | None:
        """The cloner type a call of `callee` (from an `auto` local's initializer) gives: what
        a function of the project declared to return a cloner returns, or the cloner class or
        alias it names (`IrCloner(to)`)."""
        returned = returned_by(self._returning, callee, own_class)
        if returned is None and self.is_cloner_type(callee) and (
                self.index.resolve(callee, scope) or self.index.resolve_alias(callee, scope)):
            returned = TypeFacts(callee, callee, (), False, False)
        return returned

    @cached_property
    def functions(self) -> list[CloningFunction]:
        """The file's cloning functions (the class index is built only when the file has a
        candidate)."""
        return [function for function in map(self._cloning_function, self._candidates)
                if function]

    @cached_property
    def _candidates(self) -> list[Candidate]:
        return cloning_candidates(self.context, self.endings, self.copy_functions)

    def _cloning_function(self, candidate: Candidate) -> CloningFunction | None:
        node, name, parameters = candidate.node, candidate.name, list(candidate.parameters)
        scope, owner = self._scope_and_owner(node, name)
        short = name.split("::")[-1]
        cloners = [
            self._cloner(parameters[index][0], parameters[index][1], scope)
            for index in sorted(candidate.cloner_parameters)
        ]
        cloner_parameter = bool(cloners)
        cloners += [self._cloner(cname, facts, scope) for cname, facts in candidate.local_cloners]
        for cname, facts, callee, used, own in candidate.called_cloners:
            returned = self.called_cloner(callee, own, scope)
            if returned is not None:  # `auto c = Container::copy(from, to)`: its return type
                pointer = returned.pointer or facts.pointer
                facts = TypeFacts(returned.text, returned.named, (), pointer, facts.reference)
            elif used is not None:  # used as a cloner: of a type not known
                facts = TypeFacts(facts.text, "", (), used, facts.reference)
            else:
                continue
            cloners.append(self._cloner(cname, facts, scope))
        classes = {
            pname: self.index.resolve(facts.named, scope)
            for index, (pname, facts, _) in enumerate(parameters)
            if pname and index not in candidate.cloner_parameters
            and (facts.pointer or facts.reference)
        }
        classes = {pname: qualified for pname, qualified in classes.items() if qualified}
        constructor = owner is not None and short == owner.split("::")[-1]
        sources, destinations, into_this = self._roles(
            node, scope, owner, constructor, parameters, classes,
            {cloner.name for cloner in cloners}, cloner_parameter,
        )
        if not sources or not (destinations or into_this):
            return None
        cloneable = cached_cloneable_for(
            self.index, tuple(sorted({(c.qualified or "", c.type_name.split("::")[-1])
                                      for c in cloners}))
        )
        if not cloneable:
            return None
        return CloningFunction(node, name, owner, constructor, cloners, cloner_parameter,
                               sources, destinations, into_this, cloneable)

    def _roles(self, node, scope, owner, constructor, parameters, classes, cloner_names,
               cloner_parameter):
        """(sources, destinations, into_this) of a cloning function:
        - `copy(const X* from, X* to)`: the writable parameter of the source's class;
        - a constructor, or a method taking the cloner and a parameter of its own kind
          (`copyFrom(const X& other, Cloner&)`): its own object, from that parameter;
        - otherwise (`X* X::clone(Cloner&) const`, `cloneFunction(const F& f)`): the locals
          holding new objects of the copied class, from the parameters of its own kind or,
          when it has none, from `this` and the locals that alias it."""
        access = {pname: "->" if facts.pointer else "." for pname, facts, _ in parameters}
        body = node.child_by_field_name("body")
        destination = self._destination(parameters, classes)
        sources = {pname: access[pname] for pname in classes if pname != destination}
        if destination:
            whole = (node.start_byte, node.end_byte, node.start_byte)
            return sources, {destination: [(*whole, classes[destination])]}, False
        if owner is not None:  # a member function: sources are of its own kind
            related = {pname: kind for pname, kind in sources.items()
                       if self._related(classes[pname], owner)}
            sources = related if related or not constructor else sources
        if constructor:
            return sources, {}, True
        into_this = owner is not None and cloner_parameter and bool(sources)
        if not sources and owner is not None:
            sources = {"this": "->", **self._aliases_of_this(body)}
        copied = {classes[name] for name in sources if name in classes}
        if "this" in sources:
            copied.add(owner)
        destinations = self._local_copies(body, scope, copied, cloner_names | set(sources))
        return sources, destinations, into_this

    def _related(self, one: str, other: str) -> bool:
        """Whether two classes are the same or one derives from the other."""
        return one == other or one in self.index.ancestors(other) or (
            other in self.index.ancestors(one)
        )

    def _aliases_of_this(self, body) -> dict[str, str]:
        """Locals initialized with `this` or `*this`, possibly cast: `auto* sort =
        static_cast<const SortOp*>(this)`."""
        aliases = {}
        for declarator in self.context.captures(
            "(declaration declarator: (init_declarator) @d)", body
        ).get("d", ()):
            value = self.unwrapped(declarator.child_by_field_name("value"))
            if value is not None and value.type == "pointer_expression":
                value = self.unwrapped(value.child_by_field_name("argument"))
            name = written_name(self.context, declarator)
            if value is not None and value.type == "this" and name:
                aliases[name] = "->"
        return aliases

    def _local_copies(self, body, scope, copied: set[str], excluded: set[str]) -> dict:
        """Locals that hold a new object of a copied class or of a class derived from one
        (`auto copy = std::make_unique<Graph>()`, `auto* load = new LoadInst(...)`): name ->
        [(block start, block end, declaration start, class)], one entry per declaration (the
        same name may hold another class in another block)."""
        found: dict[str, list] = {}
        for declaration in self.context.captures("(declaration) @d", body).get("d", ()):
            named = None
            for identifier in self.context.captures("(type_identifier) @t", declaration).get("t", ()):
                qualified = self.index.resolve(self.context.text(identifier), scope)
                if qualified and (qualified in copied or self.index.ancestors(qualified) & copied):
                    named = qualified
                    break
            if named is None:
                continue
            block = declaration.parent
            for declarator in declaration.children_by_field_name("declarator"):
                name = written_name(self.context, declarator)
                if name and name not in excluded:
                    found.setdefault(name, []).append(
                        (block.start_byte, block.end_byte, declaration.start_byte, named)
                    )
        return found

    def _scope_and_owner(self, node, name: str) -> tuple[tuple[str, ...], str | None]:
        """The scope a function's names are looked up from, and the class it is a member of
        (written `Class::f` outside it, or defined inside its body)."""
        enclosing: list[str] = []  # innermost first
        innermost = None  # the kind of scope the definition sits in directly
        for parent in self.context.ancestors(node):
            label = parent.child_by_field_name("name")
            if parent.type == "namespace_definition" and label is not None:
                enclosing.extend(reversed(self.context.text(label).split("::")))
                innermost = innermost or "namespace"
            elif parent.type in ("class_specifier", "struct_specifier") and label is not None:
                if label.type == "template_type":
                    label = label.child_by_field_name("name")
                enclosing.append(self.context.text(label))
                innermost = innermost or "class"
        scope = tuple(part.strip() for part in reversed(enclosing) if part.strip())
        qualifier = re.sub(r"<[^<>]*>", "", name.rpartition("::")[0])  # Scalar<T>::Scalar
        if qualifier:
            owner = self.index.resolve(qualifier, scope)
            return (self.index.classes[owner][1].scope, owner) if owner else (scope, None)
        if innermost == "class":
            return scope, self.index.resolve("::" + "::".join(scope), ())
        return scope, None

    def is_cloner_type(self, named: str) -> bool:
        return bool(named) and named.split("::")[-1].endswith(self.endings)

    def _cloner(self, name, facts: TypeFacts, scope) -> ClonerVariable:
        qualified = self.index.resolve(facts.named, scope) or self.index.resolve_alias(
            facts.named, scope
        )
        return ClonerVariable(name or "", facts.pointer, facts.named, qualified)

    @staticmethod
    def _destination(parameters, classes) -> str | None:
        """In copy(from, to): the parameter copied into — the one not const among parameters
        of one class, else the one named like a destination, else the second."""
        by_class: dict[str, list[tuple[str, bool]]] = {}
        for pname, _, const in parameters:
            if pname in classes:
                by_class.setdefault(classes[pname], []).append((pname, const))
        for group in by_class.values():
            if len(group) < 2:
                continue
            writable = [pname for pname, const in group if not const]
            if len(writable) == 1:
                return writable[0]
            named = [pname for pname, _ in group
                     if pname.lower() in ("to", "dst", "dest", "destination", "target", "into")]
            if len(named) == 1:
                return named[0]
            return group[1][0]
        return None

    # -- what a cloning function writes -------------------------------------------------------
    def writes(self, function: CloningFunction) -> list[Write]:
        found = []
        if function.constructor:
            for initializer in self.initializers(function):
                member = initializer.named_children[0]
                arguments = [
                    argument
                    for values in initializer.named_children[1:]
                    if values.type in ("argument_list", "initializer_list")
                    for argument in values.named_children
                ]
                if len(arguments) == 1:
                    found.append(Write(initializer, self.context.text(member), function.owner,
                                       arguments[0], False))
        body = function.node.child_by_field_name("body")
        for assignment in self.context.captures(
            "(assignment_expression) @a", body
        ).get("a", ()):
            if self.context.text(assignment.child_by_field_name("operator")) != "=":
                continue
            target = self._destination_member(function, assignment.child_by_field_name("left"))
            if target:
                found.append(Write(assignment, *target, assignment.child_by_field_name("right"),
                                   False))
        for call in self.context.captures("(call_expression) @c", body).get("c", ()):
            callee = call.child_by_field_name("function")
            if callee is None or callee.type != "field_expression":
                continue
            if self.context.text(callee.child_by_field_name("field")) not in INSERTERS:
                continue
            target = self._destination_member(function, callee.child_by_field_name("argument"))
            arguments = call.child_by_field_name("arguments")
            if target and arguments is not None and not self.mentions_cloner(function, arguments):
                for argument in arguments.named_children:
                    found.append(Write(call, *target, argument, True))
        return sorted(found, key=lambda write: write.node.start_byte)

    def initializers(self, function: CloningFunction):
        """The entries of a constructor's initializer list."""
        for child in function.node.named_children:
            if child.type == "field_initializer_list":
                for item in child.named_children:
                    if item.type == "field_initializer" and item.named_children:
                        yield item

    def _destination_member(self, function: CloningFunction, target) -> tuple[str, str] | None:
        """(member, its object's class) for a target naming a destination's member: `m_` and
        `this->m_` when the function copies into its own object, `to->m_`, `copy.m_`."""
        if target is None:
            return None
        if target.type == "identifier" and function.into_this:
            name = self.context.text(target)
            return None if name in self.locals(function) else (name, function.owner)
        if target.type == "field_expression":
            argument = target.child_by_field_name("argument")
            field = target.child_by_field_name("field")
            if argument is None or field is None:
                return None
            if argument.type == "this":
                return (self.context.text(field), function.owner) if function.into_this else None
            if argument.type == "identifier":
                owner = self._declared_class(function, self.context.text(argument), target)
                if owner:
                    return self.context.text(field), owner
        return None

    @staticmethod
    def _declared_class(function: CloningFunction, name: str, use) -> str | None:
        """The class of the destination `name` means at `use`: the latest declaration before
        it whose block encloses it."""
        visible = [
            (start, named)
            for block_start, block_end, start, named in function.destinations.get(name, ())
            if block_start <= use.start_byte < block_end and start <= use.start_byte
        ]
        return max(visible)[1] if visible else None

    def locals(self, function: CloningFunction) -> set[str]:
        """Names declared in the function (parameters and locals), which hide members; read
        once per function."""
        if function.node.id not in self._locals:
            self._locals[function.node.id] = self._declared_in(function)
        return self._locals[function.node.id]

    def _declared_in(self, function: CloningFunction) -> set[str]:
        names = set()
        for node in self.context.captures(
            "[(parameter_declaration declarator: (_) @n) (declaration declarator: (_) @n)"
            " (for_range_loop declarator: (_) @n)]",
            function.node,
        ).get("n", ()):
            name = written_name(self.context, node)
            if name:
                names.add(name)
        return names

    def from_source(self, function: CloningFunction, value) -> bool:
        """Whether a value is data of a source object (`src->m`, `other.m()`, `from->v[0]`, an
        element of a loop over such data), not passed through anything else."""
        while True:
            value = self.unwrapped(value)
            if value is None:
                return False
            kind = value.type
            if kind == "field_expression":
                inner = self.unwrapped(value.child_by_field_name("argument"))
            elif kind == "subscript_expression":
                inner = self.unwrapped(value.child_by_field_name("argument"))
                if self._is_source(function, inner):
                    return False  # src[0]: the source object itself indexed
            elif kind == "call_expression":
                callee = value.child_by_field_name("function")
                arguments = value.child_by_field_name("arguments")
                count = arguments.named_child_count if arguments is not None else 0
                if callee is None or count > 1 or self.mentions_cloner(function, value):
                    return False
                if callee.type == "identifier":  # lod(): a getter of `this`, when it is the source
                    return "this" in function.sources and any(
                        method.name == self.context.text(callee)
                        for method in self.index.methods(function.owner)
                    )
                if callee.type != "field_expression":
                    return False
                inner = self.unwrapped(callee.child_by_field_name("argument"))
            elif kind == "identifier":
                loop = self.range_loop_of(value)
                if loop is not None:
                    value = loop.child_by_field_name("right")
                    continue
                name = self.context.text(value)  # a member of `this`, when `this` is the source
                return "this" in function.sources and name not in self.locals(function) and (
                    self.index.member(function.owner, name) is not None
                )
            else:
                return False
            if self._is_source(function, inner):
                return True
            value = inner

    def _is_source(self, function: CloningFunction, node) -> bool:
        if node is None:
            return False
        if node.type == "pointer_expression":  # (*src).m
            node = self.unwrapped(node.child_by_field_name("argument"))
        if node is not None and node.type == "this":
            return "this" in function.sources
        return node is not None and node.type == "identifier" and (
            self.context.text(node) in function.sources
        )

    def unwrapped(self, node):
        """The expression inside parentheses, casts and std::move."""
        while node is not None:
            if node.type == "parenthesized_expression":
                node = node.named_children[0] if node.named_children else None
            elif node.type == "cast_expression":
                node = node.child_by_field_name("value")
            elif node.type == "call_expression":
                callee = node.child_by_field_name("function")
                arguments = node.child_by_field_name("arguments")
                if callee is None or arguments is None or arguments.named_child_count != 1:
                    return node
                name = callee
                if callee.type == "template_function":
                    name = callee.child_by_field_name("name")
                text = self.context.text(name)
                if text in _UNWRAPPING_CALLS or text in _CASTS:
                    node = arguments.named_children[0]
                else:
                    return node
            else:
                return node
        return None

    def range_loop_of(self, identifier):
        """The range-for loop whose loop variable an identifier names, if it is inside it."""
        name = self.context.text(identifier)
        for parent in self.context.ancestors(identifier):
            if parent.type == "function_definition":
                return None
            if parent.type == "for_range_loop":
                declarator = parent.child_by_field_name("declarator")
                if declarator is not None and written_name(self.context, declarator) == name:
                    return parent
        return None

    def mentions_cloner(self, function: CloningFunction, node) -> bool:
        names = {cloner.name for cloner in function.cloners}
        return any(leaf.type == "identifier" for _, leaf in self.context.tokens(names, node))

    def remapped_later(self, function: CloningFunction, write: Write) -> bool:
        """Whether a statement after the copy touches the member together with a cloner (the
        copied pointers are mapped in place afterwards)."""
        member_at = self._words_in(function, (write.member,))
        for start, end in self._remappings_of(function):
            if start >= write.node.end_byte:
                first = bisect_left(member_at, start)
                if first < len(member_at) and member_at[first] < end:
                    return True
        return False

    def _remappings_of(self, function: CloningFunction) -> list[tuple[int, int]]:
        """(start, end) of the statements of the function that mention one of its cloners (a
        remapping, when they also touch the member), read once."""
        key = function.node.id
        if key not in self._remappings:
            body = function.node.child_by_field_name("body")
            cloner_at = self._words_in(function, tuple(c.name for c in function.cloners))
            found = []
            for statement in self.context.captures(
                "[(expression_statement) (for_range_loop) (for_statement) (while_statement)] @s",
                body
            ).get("s", ()):
                first = bisect_left(cloner_at, statement.start_byte)
                if first < len(cloner_at) and cloner_at[first] < statement.end_byte:
                    found.append((statement.start_byte, statement.end_byte))
            self._remappings[key] = sorted(found)
        return self._remappings[key]

    def _words_in(self, function: CloningFunction, words: tuple[str, ...]) -> list[int]:
        """Where any of `words` is written as a whole word in the function's body, in order;
        found once per function and words."""
        key = (function.node.id, words)
        if key not in self._words:
            body = function.node.child_by_field_name("body")
            pattern = re.compile(rb"(?<![\w\x80-\xff])(?:%s)(?![\w\x80-\xff])" % b"|".join(
                re.escape(word.encode()) for word in words))
            self._words[key] = [match.start() for match in pattern.finditer(
                self.context.source.data, body.start_byte, body.end_byte)] if words else []
        return self._words[key]

    # -- the destination's members ------------------------------------------------------------
    def cloneable_pointees(self, function: CloningFunction, found) -> list[str]:
        """The cloneable classes a member holds pointers to (resolved where it is declared)."""
        _, facts, member = found
        resolved = (self.index.resolve(name, facts.scope) for name in member.type.pointees)
        return sorted({name for name in resolved if name in function.cloneable})

    def cloner_call(self, function: CloningFunction, argument: str) -> str:
        """How the copy goes through the function's (first) cloner."""
        cloner = function.cloners[0]
        method = self._mapping_method(cloner)
        access = "->" if cloner.arrow else "."
        if method == "operator[]":
            return f"{cloner.name}[{argument}]"
        return f"{cloner.name}{access}{method}({argument})"

    def _mapping_method(self, cloner: ClonerVariable) -> str:
        if cloner.qualified in self.index.classes:
            names = [method.name for method in self.index.methods(cloner.qualified)]
            short = cloner.qualified.split("::")[-1]
            for prefix in MAPPING_METHOD_PREFIXES:
                for name in names:
                    if name != short and name.lower().startswith(prefix):
                        return name
            if "operator[]" in names:
                return "operator[]"
        if cloner.qualified in self.index.aliases:
            return "operator[]"
        return "clone"


def shortened(code: str, limit: int = 80) -> str:
    """Code quoted in a message, cut in the middle when it is long."""
    code = " ".join(code.split())
    return code if len(code) <= limit else f"{code[: limit // 2 - 2]} … {code[-(limit // 2 - 2):]}"


def _declared(path: str, member) -> Step:
    """The chain's step where `member` is declared, with its type."""
    return Step(path, member.line, f"`{member.name}` (`{shortened(member.type.text)}`) is "
                                   "declared here")


def _analysis(rule: Rule) -> CloneAnalysis:
    endings = tuple(rule.option["cloner-types"])
    copy_functions = copy_function_names(rule.context.settings)  # CUR501's, for both rules
    return rule.context.shared(
        ("clone-analysis", endings, copy_functions),
        lambda: CloneAnalysis(rule.context, rule.project_facts, endings, copy_functions),
    )


_IR_HEADER = """\
    #include <vector>
    namespace ir {
    class IrCloner;
    class Container;
    struct DataTypeTable;
    class Statement {
     public:
      Statement(const Statement* src, IrCloner* ir_cloner);
     protected:
      Container* container_;
    };
    class Val : public Statement {
     public:
      Val(const Val* src, IrCloner* ir_cloner);
    };
    class Expr : public Statement {
     public:
      Expr(const Expr* src, IrCloner* ir_cloner);
     private:
      std::vector<Val*> inputs_;
      std::vector<Val*> outputs_;
      const DataTypeTable* dtypes_;
    };
    class IrCloner {
     public:
      Statement* clone(const Statement* statement);
      template <class T> std::vector<T> clone(const std::vector<T>& nodes);
      Container* container() const;
    };
"""


class ClonerRule(Rule):
    """What CUR501 and CUR502 share: C++, the class index, trigger words from the configured
    cloner types, and the look for a cloner used as a parameter or a local."""

    languages = (CPP,)
    triggers = probe_words(DEFAULT_CLONER_TYPES)
    indexer = ClonerIndex()

    @classmethod
    def triggers_for(cls, options):
        return probe_words(tuple(options["cloner-types"]))

    @classmethod
    def look(cls, options, target_python, language):
        return ClonerUse(tuple(options["cloner-types"]))


class PointerCopiedAroundCloner(ClonerRule):
    """## What it does
    In a cloning function — a constructor or function with a parameter whose type is a
    cloner/mapper (`IrCloner*`, `CloneContext&`, `IRMapping&`, ...), or a `copy`/`clone`/
    `deepCopy(from, to)` function that declares one — finds a member holding raw pointers to a
    *cloneable* type (directly, or in a standard container: vector, deque, list, array, set,
    map keys or values, pair, tuple, optional) that is initialized, assigned or filled from the
    source object (`src->m_`, `other.m_`, `from->m_`, a getter, an element of a loop over
    them) without passing through the cloner.

    Cloneable types are learned from the cloner class: the pointer and reference parameters
    of its methods (`clone`, `lookup`, `remap`, `map`, ...; not constructors, static or
    template methods, nor the types its constructors take, which are the destination), or,
    when those name no class, the classes with a constructor taking the cloner; and every
    class of the project derived from them. Cloning functions are constructors and functions
    with a cloner parameter, and functions whose name begins with `copy`/`clone`/`deepCopy`
    (option `copy-functions`) that declare a cloner and take a source and a writable
    destination of one class; with no source parameter, a method copying `this` into the one
    local of its own class (`Graph::clone() const`). The class
    declarations come from the project index, so a header is found even when only the `.cpp`
    file is linted. A pointer to a type the cloner does not clone (a shared dtype table, a
    logger, the container itself) is not reported, nor is a member the clone maps in place
    afterwards (a later statement touching it with the cloner). A range insertion
    (`insert(pos, first, last)`) is one finding.

    ## Why it is cursed
    The copy's nodes keep pointing at nodes owned by the *source* container. Nothing fails
    until the source frees them — dead-code removal, or the source's destruction — and then
    the copy dangles: a heap-use-after-free in unrelated code, often only under ASAN, after the
    source has been reused for something else. Incident 004 (nvFuser) is such a
    cross-container dangling reference: after a copy, expressions of the copy still pointed
    at values the source owned, the source's dead-code removal freed them, and ASAN reported
    a heap-use-after-free in `Expr`'s clone constructor on the next copy. Its root cause was
    not a verbatim copy in a cloning constructor: upstream's fix (NVIDIA/Fuser PR #5877,
    https://github.com/NVIDIA/Fuser/pull/5877)
    found that `Fusion::removeVal` missed dead expressions still holding raw pointers to a
    removed value (it looked only at expressions reachable from the outputs), and that
    `IrStorage::swap` left the special values behind. A member copied around the cloner
    leaves the copy in the same state, which is why this shape is worth finding.

    ## Example
    ```cpp
    Expr::Expr(const Expr* src, IrCloner* ir_cloner)
        : Statement(src, ir_cloner),
          inputs_(ir_cloner->clone(src->inputs_)),
          outputs_(src->outputs_) {}  // the copy's outputs are the source's Vals
    ```

    ## Fix
    Copy every cloneable pointer through the cloner: `outputs_(ir_cloner->clone(src->outputs_))`,
    or element by element (`for (Val* v : src->outputs_) outputs_.push_back(ir_cloner->clone(v));`).
    If the member must refer to something shared by both containers, make its type say so
    (a handle to an immutable table, not a pointer to a node).

    ## References
    - nvFuser (NVIDIA/Fuser) `IrCloner` and clone constructors `Expr(const Expr*, IrCloner*)`
    - LLVM `CloneFunctionInto` / `ValueToValueMapTy`; MLIR `IRMapping::lookupOrDefault`;
      XLA `HloCloneContext`
    - AddressSanitizer: heap-use-after-free reports
      (https://github.com/google/sanitizers/wiki/AddressSanitizer)
    """

    code = "CUR501"
    name = "pointer-copied-around-cloner"
    summary = "cloneable pointer copied from the source object instead of through the cloner"
    options = {
        "cloner-types": _CLONER_TYPES_OPTION,
        "copy-functions": Option(
            list, list(DEFAULT_COPY_FUNCTIONS),
            "name beginnings (any case) of functions that copy one container into another "
            "`(from, to)`: `copy` covers copyInto, cloneFrom... With a cloner declared inside, "
            "they are cloning functions",
            item=str, form=C_NAME_PART,
        ),
    }
    valid = (
        Example(_IR_HEADER + """\
        Expr::Expr(const Expr* src, IrCloner* ir_cloner)
            : Statement(src, ir_cloner),
              inputs_(ir_cloner->clone(src->inputs_)),
              dtypes_(src->dtypes_) {  // a shared table: not something the cloner clones
          for (Val* out : src->outputs_) {
            outputs_.push_back(ir_cloner->clone(out));
          }
        }
        }
        """),
        Example("""\
        #include <vector>
        struct Node;
        struct Graph {
          Graph(const Graph& other) : nodes_(other.nodes_) {}  // no cloner: a plain copy
          std::vector<Node*> nodes_;
        };
        """),
    )
    invalid = (
        Example(_IR_HEADER + """\
        Expr::Expr(const Expr* src, IrCloner* ir_cloner)
            : Statement(src, ir_cloner),
              inputs_(ir_cloner->clone(src->inputs_)),
              outputs_(src->outputs_),  // error: CUR501
              dtypes_(src->dtypes_) {}
        }
        """),
        Example("""\
        #include <vector>
        namespace ir {
        class Val;
        class Statement {};
        class Val : public Statement {};
        class IrCloner {
         public:
          explicit IrCloner(class Container* to);
          Statement* clone(const Statement* statement);
        };
        class Container {
         public:
          static void copy(const Container* from, Container* to);
         private:
          std::vector<Val*> inputs_;
          Val* zero_val_ = nullptr;
        };
        void Container::copy(const Container* from, Container* to) {
          IrCloner ir_cloner(to);
          for (Val* val : from->inputs_) {
            to->inputs_.push_back(val);  // error: CUR501
          }
          to->zero_val_ = from->zero_val_;  // error: CUR501
        }
        }
        """),
    )

    def check(self) -> None:
        analysis = _analysis(self)
        for function in analysis.functions:
            reported: set[int] = set()  # one finding per write: `insert(first, last)` is one
            for write in analysis.writes(function):
                if write.node.start_byte not in reported and self._check_write(
                        analysis, function, write):
                    reported.add(write.node.start_byte)

    def _check_write(self, analysis: CloneAnalysis, function: CloningFunction,
                     write: Write) -> bool:
        """Report the write if it copies a cloneable pointer around the cloner; whether it
        did."""
        if not analysis.from_source(function, write.value):
            return False
        found = analysis.index.member(write.owner, write.member)
        if found is None:
            return False
        pointees = analysis.cloneable_pointees(function, found)
        if not pointees or analysis.remapped_later(function, write):
            return False
        path, _, member = found
        value = analysis.unwrapped(write.value)
        copied = f"copied from `{shortened(self.context.text(value))}`"
        if write.element:
            loop = analysis.range_loop_of(value) if value.type == "identifier" else None
            over = loop.child_by_field_name("right") if loop is not None else None
            copied = f"filled with `{shortened(self.context.text(value))}`" + (
                f", an element of `{shortened(self.context.text(over))}`,"
                if over is not None else ""
            )
        call = shortened(analysis.cloner_call(function, self.context.text(value)))
        advice = f"insert `{call}` instead" if write.element else f"copy it through the cloner: `{call}`"
        what = ", ".join(f"`{name.split('::')[-1]}`s" for name in pointees)
        self.report(
            write.node,
            f"`{write.member}` is {copied} without the cloner",
            help=_CONSEQUENCE.format(what=what) + f"; {advice}.",
            related=(_declared(path, member),),
        )
        return True


class MemberMissedByCloner(ClonerRule):
    """## What it does
    Finds a member of a class holding raw pointers to a cloneable type (directly or in a
    standard container) that the class's cloning constructor — one taking a cloner/mapper —
    neither initializes nor assigns. Members marked `mutable` (caches) and static members are
    not reported; a constructor that delegates, or calls a method of its class that could set
    members, is not judged. Nor is a member that a copy routine of the project (a copy
    function declaring or taking a cloner, in any file: the project index; an `auto` local is
    a cloner when its initializer calls a function some project file declares to return one,
    `auto c = Container::copy(from, to)`, or when it is used as one, `c.clone(val)`) sets
    through the cloner on the objects the cloner made, right after cloning them —
    `cloner.clone(val)->setUses(cloner.clone(val->uses()))` or
    `cloner.clone(val)->uses_ = ...` — matched by name (`setUses`, `set_uses`, `uses_` and
    `m_uses` are all about `uses`).

    ## Why it is cursed
    The copy starts with that member null or empty while the source's points at its nodes: the
    clone silently loses part of the graph (an expression without its outputs, a value without
    its definition), and passes that depend on it misbehave long after the copy. This is what
    happens when a member is added to the class later and the clone path is forgotten.

    ## Example
    ```cpp
    class Val : public Statement {
      Val(const Val* src, IrCloner* ir_cloner);
      Expr* definition_ = nullptr;
      std::vector<Expr*> uses_;  // added later
    };
    Val::Val(const Val* src, IrCloner* ir_cloner)   // never sets uses_
        : Statement(src, ir_cloner), definition_(ir_cloner->clone(src->definition_)) {}
    ```

    ## Fix
    Initialize the member through the cloner: `uses_(ir_cloner->clone(src->uses_))`. If the copy
    must start empty on purpose, say so in the initializer list (`uses_()`).

    ## References
    - nvFuser (NVIDIA/Fuser) clone constructors `Val(const Val*, IrCloner*)`
    - clang-tidy `cppcoreguidelines-pro-type-member-init` (members a constructor leaves unset)
    """

    code = "CUR502"
    name = "member-missed-by-cloner"
    summary = "cloning constructor leaves a cloneable-pointer member unset"
    severity = Severity.WARNING
    options = {"cloner-types": _CLONER_TYPES_OPTION}
    valid = (
        Example(_IR_HEADER + """\
        Expr::Expr(const Expr* src, IrCloner* ir_cloner)
            : Statement(src, ir_cloner), inputs_(ir_cloner->clone(src->inputs_)) {
          outputs_ = ir_cloner->clone(src->outputs_);  // set in the body: fine
        }
        }
        """),
    )
    invalid = (
        Example(_IR_HEADER + """\
        Expr::Expr(const Expr* src, IrCloner* ir_cloner)  // warning: CUR502
            : Statement(src, ir_cloner), inputs_(ir_cloner->clone(src->inputs_)) {}
        }
        """),
    )

    def check(self) -> None:
        analysis = _analysis(self)
        for function in analysis.functions:
            if function.constructor and function.cloner_parameter and function.into_this:
                self._check_constructor(analysis, function)

    def _check_constructor(self, analysis: CloneAnalysis, function: CloningFunction) -> None:
        found = analysis.index.facts(function.owner)
        if found is None:
            return
        path, facts = found
        initialized = {
            self.context.text(item.named_children[0]) for item in analysis.initializers(function)
        }
        if facts.short_name in initialized or self._calls_own_methods(analysis, function):
            return
        body = function.node.child_by_field_name("body")
        touched = self._touched(body)
        declarator = function.node.child_by_field_name("declarator")
        name_node = function_declarator(declarator).child_by_field_name("declarator")
        mapped = analysis.mapped_after_cloning
        for path, holder, member in self._members_to_set(analysis, function, initialized):
            if member.static or member.mutable or member.name in initialized | touched:
                continue
            if setter_subject(member.name) in mapped:
                continue  # a container's copy routine maps it right after cloning
            resolved = (analysis.index.resolve(name, holder.scope) for name in member.type.pointees)
            pointees = sorted({name for name in resolved if name in function.cloneable})
            if not pointees:
                continue
            what = ", ".join(f"`{name.split('::')[-1]}`s" for name in pointees)
            source, access = sorted(function.sources.items())[0]
            call = analysis.cloner_call(function, f"{source}{access}{member.name}")
            inherited = "" if holder is facts else f" (inherited from `{holder.short_name}`)"
            self.report(
                name_node,
                f"cloning constructor `{function.name}` never sets `{member.name}`{inherited}",
                help=f"The copy keeps it null or empty while the source's points at its {what}, "
                "so the clone silently loses that part of the graph; initialize it with "
                f"`{member.name}({call})`, or write `{member.name}()` if the copy must start "
                "without it.",
                related=(_declared(path, member),),
            )

    def _members_to_set(self, analysis: CloneAnalysis, function: CloningFunction, initialized):
        """(path, class facts, member) for the members this constructor is responsible for: its
        class's own, and those of bases that have no cloning constructor of their own (one
        reached through `using Base::Base` included) and are not given arguments to set them."""
        index = analysis.index
        path, facts = index.facts(function.owner)
        found = [(path, facts, member) for member in facts.members]
        pending, seen = index.bases(function.owner), {function.owner}
        while pending:
            base = pending.pop()
            if base in seen or index.facts(base) is None:
                continue
            seen.add(base)
            base_path, base_facts = index.facts(base)
            constructors = [m for m in base_facts.methods if m.name == base_facts.short_name]
            if any(analysis.is_cloner_type(parameter.named)
                   for constructor in constructors for parameter in constructor.parameters):
                continue  # its own cloning constructor sets its members (checked there)
            if base_facts.short_name in initialized and any(c.parameters for c in constructors):
                continue  # given arguments by a constructor of its own: cannot be told
            found.extend((base_path, base_facts, member) for member in base_facts.members)
            pending.extend(index.bases(base))
        return found

    def _touched(self, body) -> set[str]:
        """Names the body uses bare or through `this->`."""
        names = {
            self.context.text(node)
            for node in self.context.captures("(identifier) @i", body).get("i", ())
        }
        for field in self.context.captures(
            "(field_expression argument: (this) field: (field_identifier) @f)", body
        ).get("f", ()):
            names.add(self.context.text(field))
        return names

    def _calls_own_methods(self, analysis: CloneAnalysis, function: CloningFunction) -> bool:
        """Whether the constructor calls a method of its class, which could set members."""
        methods = {method.name for method in analysis.index.methods(function.owner)}
        body = function.node.child_by_field_name("body")
        for call in self.context.captures("(call_expression) @c", body).get("c", ()):
            callee = call.child_by_field_name("function")
            if callee is None:
                continue
            if callee.type == "identifier" and self.context.text(callee) in methods:
                return True
            if callee.type == "field_expression" and self.context.text(
                callee.child_by_field_name("argument")
            ) == "this":
                return True
        return False
