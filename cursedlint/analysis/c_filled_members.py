"""Members a function of the file fills through a pointer parameter from its other parameters:
`set_attr(key, buf, len, &attr, &iov)`, whose body says `iov->iov_base = buf; iov->iov_len =
len; attr->mr_iov = iov;`, gives the caller's `iov.iov_base` its own `buf`, `iov.iov_len` its
`len` and `attr.mr_iov` its `&iov`. Only a plain store `p->field = q` of an unchanged parameter
`q` into a parameter `p` counts (one call deep, the callee defined in the same file); any other
value is not followed (the registration's range stays unknown there)."""

from __future__ import annotations

from cursedlint.analysis.c_syntax import (
    arguments, assigns, callee, defined_functions, parameter_names, plain_function, unwrapped,
)


def filled_members(context, scope, name: str, field: str) -> list:
    """The argument nodes of the calls in `scope` given `&name` whose callee, a function the
    file defines, stores the parameter they fill in member `field` of the parameter `&name`
    fills (`p->field = q`)."""
    calls = []
    for _, leaf in context.tokens((name,), scope):
        address = context.parent(leaf)
        if address is None or address.type != "pointer_expression" or address.child(0).type != "&":
            continue
        given, call = address, context.parent(address)
        if call is not None and call.type == "argument_list":
            call = context.parent(call)
        if call is None or call.type != "call_expression":
            continue
        name, listed = callee(context, call, scoped=False, system_calls=False), arguments(call)
        if name and given in listed:
            calls.append((name, call, listed.index(given)))
    definitions = defined_functions(context, {name for name, _, _ in calls})
    found = []
    for name, call, position in calls:
        definition = definitions.get(name)
        plain = plain_function(definition) if definition is not None else None
        if plain is None:
            continue
        _, declarator, body = plain
        parameters = parameter_names(context, declarator)
        if position >= len(parameters) or not parameters[position]:
            continue
        given = arguments(call)
        for stored in _stores(context, body, parameters[position], field):
            if stored in parameters and not assigns(context, body, stored) \
                    and parameters.index(stored) < len(given):
                found.append(given[parameters.index(stored)])
    return found


def _stores(context, body, pointer: str, field: str) -> list[str]:
    """The names stored by `pointer->field = name;` statements of `body` (a pointer
    parameter's member: `pointer` itself unchanged)."""
    if assigns(context, body, pointer):
        return []
    found = []
    for _, leaf in context.tokens((field,), body):
        target = context.parent(leaf)
        assignment = context.parent(target) if target is not None else None
        if leaf.type != "field_identifier" or target.type != "field_expression" \
                or target.child_by_field_name("field") != leaf \
                or context.text(target.child_by_field_name("operator")) != "->" \
                or assignment is None or assignment.type != "assignment_expression" \
                or assignment.child_by_field_name("left") != target \
                or assignment.child_by_field_name("operator").type != "=":
            continue
        base = unwrapped(target.child_by_field_name("argument"))
        value = unwrapped(assignment.child_by_field_name("right"))
        if base is not None and base.type == "identifier" and context.text(base) == pointer \
                and value is not None and value.type == "identifier":
            found.append(context.text(value))
    return found
