"""Cloning candidates: the function definitions of a C++ file that may be cloning functions,
read from their text alone (no lookup), and what the copy routines among them map through the
cloner on the objects it made. `cloning_functions` decides which candidates clone, with the
class index; the project index keeps what each file's copy routines map (`cloner_index`)."""

from __future__ import annotations

import re

from msgspec import Struct

from cursedlint.analysis.c_syntax import (
    arguments,
    callee as called_function,
    called_member,
    declared_name,
    function_declarator,
    unwrapped,
    without_template_arguments,
    written_name,
)
from cursedlint.analysis.cloner_types import copy_calls, ending_spans, is_cloner_name
from cursedlint.analysis.cpp_returns import Returning, auto_locals, functions_returning
from cursedlint.c.classes import TypeFacts, named_type, parameters_of, type_facts

INSERTERS = frozenset({"push_back", "emplace_back", "push_front", "emplace_front", "insert",
                       "emplace", "emplace_hint", "try_emplace", "insert_or_assign"})


class Candidate(Struct, frozen=True):
    """A function definition that may be a cloning function, read from its text alone."""

    node: object
    declarator: object  # its function_declarator
    name: str  # as declared, template arguments dropped: `Expr::Expr`, `Scalar::Scalar`
    parameters: tuple  # `cpp_classes.Parameter`s
    cloner_parameters: frozenset  # indices into `parameters`
    local_cloners: tuple  # (name, TypeFacts) of cloners declared in the body
    called_cloners: tuple = ()  # (name, TypeFacts, callee, used, own class) of `auto` locals
    # initialized by a call (`_local_cloners`), resolved by `CloningFunctions`


class MappedIfCloner(Struct, frozen=True):
    """What a copy routine maps through an `auto` local initialized by a call of `callee` (in
    a function of class `own_class`): mapped after cloning if the callee returns a cloner."""

    callee: str
    own_class: str
    names: tuple[str, ...]


def cloning_candidates(context, endings, copy_functions) -> list[Candidate]:
    """Definitions that may be cloning functions: with a parameter of a cloner type (other than
    the class the function belongs to: a mapping's own methods merge mappings), or a cloner
    declared inside a function whose name begins with a copy-function name (`auto` ones too:
    `_local_cloners`); something to copy
    from (another pointer or reference parameter, or `this` in a member function); and, unless
    it is a constructor taking the cloner and a source, at least one write of a form the rules
    read (an initializer, an assignment to a name or member, an insertion into one). No
    lookup: a superset of the cloning functions, so the project index is needed only
    when a linted file has one. Found once per file and configuration (the index's look,
    its summary and both cloner rules ask, in both lints)."""
    endings, copy_functions = tuple(endings), tuple(name.lower() for name in copy_functions)
    return context.of_tree(("cloning candidates", endings, copy_functions),
                           lambda: _candidates(context, endings, copy_functions))


def _candidates(context, endings: tuple, copy_functions: tuple) -> list[Candidate]:
    found = []
    mentions = _mentions(context, endings)
    for node in context.enclosing(mentions, ("function_definition",)):
        function = function_declarator(node.child_by_field_name("declarator"))
        body = node.child_by_field_name("body")
        if function is None or body is None:
            continue
        name = without_template_arguments(written_name(context, function))
        own = name.split("::")[-2].strip() if "::" in name else _enclosing_class(context, node)
        parameters = tuple(parameters_of(context, function))
        cloner_parameters = frozenset(
            index for index, (_, facts, _) in enumerate(parameters)
            if is_cloner_name(facts.named, endings) and facts.named.split("::")[-1] != own
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


def cloner_types_of(context, endings, copy_functions) -> tuple[str, ...]:
    """The cloner types a file is analyzed with: the configured `endings`, and the classes its
    cloning constructors use as cloners without a cloner's name (`cloners_by_use`)."""
    endings = tuple(endings)
    learned = tuple(name for name in cloners_by_use(context, tuple(copy_functions))
                    if not is_cloner_name(name, endings))
    return endings + learned


def cloners_by_use(context, copy_functions: tuple[str, ...]) -> tuple[str, ...]:
    """Short names of the classes a file's constructors use as cloners by what they do with
    them: a constructor of `Own` taking a source object of its own class (`const Own &other`,
    `const Own *src`) and a pointer or reference to another class, that it hands, with a member
    of the source, to a copy function (`var(clone(ctx, other.var, loc))`,
    `copy(src->x, mapper)`: a free function named as one of `copy_functions`, its first letter
    in either case; not one whose name only begins so, `copyName(arena, other.name)`)."""
    return tuple(sorted(_copy_calls(context, copy_functions)))


def copy_call_like(context, cloner_type: str, cloner: str, value: str,
                   copy_functions) -> str | None:
    """The file's first copy call that hands a `cloner_type` cloner a source's member (see
    `cloners_by_use`), written again for the cloner named `cloner` and `value`:
    `clone(ctx, other.left, loc)` -> `clone(ctx, other.var, loc)`; None without one."""
    key = re.sub(r"<.*>|[&*]|\bconst\b", "", cloner_type).split("::")[-1].strip()
    calls = _copy_calls(context, copy_functions).get(key)
    if not calls:
        return None
    call, given, member = calls[0]
    edits = sorted([(given, cloner), (member, value)], key=lambda edit: edit[0].start_byte)
    data, at, parts = context.source.data, call.start_byte, []
    for node, text in edits:
        parts += [data[at:node.start_byte].decode("utf-8", "replace"), text]
        at = node.end_byte
    parts.append(data[at:call.end_byte].decode("utf-8", "replace"))
    return " ".join("".join(parts).split())


def _copy_calls(context, copy_functions) -> dict[str, list[tuple]]:
    """Class short name -> (call, the cloner argument, the source member argument) of each copy
    call a constructor makes with a parameter of that class (`cloners_by_use`)."""
    copy_functions = tuple(copy_functions)
    return context.of_tree(("cloners by use", copy_functions),
                           lambda: _find_copy_calls(context, copy_functions))


def _find_copy_calls(context, copy_functions: tuple[str, ...]) -> dict[str, list[tuple]]:
    spans = copy_calls(context.source.data, copy_functions)
    mentions = (node for _, _, node in context.at(spans))
    lowered = tuple(name.lower() for name in copy_functions)
    found: dict[str, list[tuple]] = {}
    for node in context.enclosing(mentions, ("function_definition",)):
        function = function_declarator(node.child_by_field_name("declarator"))
        if function is None:
            continue
        name = without_template_arguments(written_name(context, function))
        own = name.split("::")[-2].strip() if "::" in name else _enclosing_class(context, node)
        if not own or name.split("::")[-1] != own:
            continue
        sources, others = set(), {}
        for parameter, facts, _ in parameters_of(context, function):
            short = facts.named.split("::")[-1]
            if parameter and short and (facts.pointer or facts.reference):
                if short == own:
                    sources.add(parameter)
                elif not facts.named.startswith("std::"):
                    others[parameter] = short
        if sources and others:
            for call, given, member in _handed_with_source(context, node, lowered,
                                                           sources, others):
                found.setdefault(others[context.text(given)], []).append((call, given, member))
    return found


def _handed_with_source(context, node, copy_functions, sources, others):
    """(call, the argument naming one of `others`, the argument that is a member of one of
    `sources`) for each copy-function call in `node` given both."""
    for call in context.captures("(call_expression) @c", node).get("c", ()):
        if called_function(context, call).lower() not in copy_functions:
            continue
        given = [unwrapped(argument) for argument in arguments(call)]
        member = next((argument for argument in given if argument is not None
                       and argument.type == "field_expression"
                       and context.text(argument.child_by_field_name("argument")) in sources),
                      None)
        if member is None:
            continue
        for argument in given:
            if argument is not None and argument.type == "identifier" and (
                    context.text(argument) in others):
                yield call, argument, member


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


def _local_cloners(context, body, endings, parameters):
    """The cloners declared in a body, as (name, type) pairs, and the `auto` locals that may be
    cloners, as (name, type as declared, callee, used) tuples (`used`: None, or whether through
    a pointer):
    - a local of a cloner type: `IrCloner cloner(to);`, `IRMapping m;`;
    - an `auto` local initialized by a call of a named function (`auto c = Container::copy(from,
      to)`, `auto c = IrCloner(to)`): a cloner if the project index knows that function to
      return one, or that name to be a cloner type (`CloningFunctions`), or else if it is `used`
      as one (`_used_as_cloners`);
    - any other `auto` local used as a cloner (of a type not known)."""
    declarations = context.captures("(declaration) @d", body).get("d", ())
    declared = []
    for declaration in sorted(declarations, key=lambda node: node.start_byte):
        type_node = declaration.child_by_field_name("type")
        if type_node is None or not is_cloner_name(named_type(context, type_node), endings):
            continue
        for declarator in declaration.children_by_field_name("declarator"):
            name = declared_name(context, declarator)
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
        function = called_member(call)
        given = arguments(call)
        if (function is None or len(given) != 1
                or context.text(function.child_by_field_name("field")) != "clone"):
            continue
        receiver = function.child_by_field_name("argument")
        argument = unwrapped(given[0])
        if argument is not None and argument.type == "pointer_expression":  # &mapping
            argument = unwrapped(argument.child_by_field_name("argument"))
        if argument is None or receiver.type != "identifier" or argument.type == "this" or (
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
    return functions_returning(context, _mentions(context, endings),
                               lambda named: is_cloner_name(named, endings))


def _mentions(context, endings):
    """The smallest node around each mention of a cloner type (`context.hits` of its
    `ending_pattern`)."""
    root = context.root
    return (node for _, _, node in context.at(ending_spans(
        context.source.data, endings, root.start_byte, root.end_byte)))


def _member_uses(context, body):
    """(field expression, what it is given) for `x->f(args)` calls and `x->f = value`."""
    for call in context.captures("(call_expression) @c", body).get("c", ()):
        function = called_member(call)
        given = call.child_by_field_name("arguments")
        if function is not None and given is not None:
            yield function, given
    for assignment in context.captures("(assignment_expression) @a", body).get("a", ()):
        left = assignment.child_by_field_name("left")
        if left is not None and left.type == "field_expression":
            yield left, assignment.child_by_field_name("right")


def _is_call_on(context, node, objects: set[str]) -> bool:
    """Whether `node` is a method call on one of `objects` (`cloner.clone(v)`)."""
    node = unwrapped(node)
    if node is None or node.type != "call_expression":
        return False
    function = called_member(node)
    return function is not None and (
        context.text(function.child_by_field_name("argument")) in objects)


def setter_subject(name: str) -> str:
    """What a member or setter name is about: `uses_`, `m_uses`, `setUses`, `set_uses` ->
    `uses`."""
    name = re.sub(r"^(?:set_?(?=[A-Z_])|m_)", "", name.strip("_"))
    return name.replace("_", "").lower()
