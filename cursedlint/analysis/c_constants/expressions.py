"""`CConstants`: the evaluator of C/C++ expressions (literals, operators, casts, `sizeof`,
`alignof`, names), composed with the rules of types, symbols and flow."""

from __future__ import annotations

import re
from functools import cached_property
from itertools import islice
from typing import Any

from cursedlint.analysis.c_conditions import COMPARISONS
from cursedlint.analysis.c_constants.bounds import BoundRules
from cursedlint.analysis.c_constants.file_scope import FileScopeRules
from cursedlint.analysis.c_constants.flow import FlowRules
from cursedlint.analysis.c_constants.macro_calls import MacroCallRules
from cursedlint.analysis.c_constants.members import MemberRules
from cursedlint.analysis.c_constants.symbols import SymbolRules
from cursedlint.analysis.c_constants.syntax import (
    _Env, _Named, _items, _named_children, _only_child, _single, _split_name,
)
from cursedlint.analysis.c_constants.types import (
    _BOOL, _INT, _MAX_DEPTH, _MAX_STEPS, _NOTHING, _ULONG, TypeRules, _Array, _GiveUp, _Value,
    _character_literal, _common, _converted, _integer_literal, _promote, _truncating_division,
)
from cursedlint.analysis.c_syntax import callee
from cursedlint.python.consteval import UNKNOWN


_ARITHMETIC = {
    "+": int.__add__, "-": int.__sub__, "*": int.__mul__,
    "&": int.__and__, "|": int.__or__, "^": int.__xor__,
}
_DEFINED_MACRO = re.compile(r"#(?:[ \t]|\\\n)*(?:define|undef)(?:[ \t]|\\\n)+([A-Za-z_]\w*)")








class CConstants(TypeRules, SymbolRules, FlowRules, FileScopeRules, MemberRules, MacroCallRules,
                 BoundRules):
    """The constant evaluator of one C/C++ file (a `CContext`); it reads the file's
    declarations, macros and types once, on first use. `extra`: the evaluators of headers that
    precede the file's text (its includes, in order); a name the file does not declare or
    define gets the value or type those that declare it agree on. `names`: the identifiers the
    file's text holds (a header asked about every name its includer looks up skips the search
    for those it does not hold)."""

    def __init__(self, context, extra=(), names: frozenset[bytes] | None = None):
        self.context = context
        self.extra = tuple(extra)
        self.names = names  # the identifiers of the file's text, when known: others need no search
        # what the text does with each name: the same for every evaluator of this context (a
        # header's, seen after different headers by different includers)
        self._named: dict[str, _Named] = context.shared("c-consteval-named", dict)
        # the declarations of each name sorted out by scope (`_declarations`, `_visible`): the
        # same for every evaluator of the context too (a 10 MB file's 291 sorted 151,799
        # declarations, 48,287 once)
        self._declared: dict[tuple, Any] = context.shared("c-consteval-declared", dict)
        self.cpp = context.language == "cpp"
        self._truth = _BOOL if self.cpp else _INT  # the type of comparisons and `!`
        self._memo: dict[tuple, Any] = {}
        self._macro_bodies: dict[int, Any] = {}
        self._depth = self._steps = 0
        self._busy = 0  # computations under way in _cached
        self._holding: dict[str, tuple] = {}  # name -> the headers of `extra` whose text holds it
        self.given = None
        """With `assignments=True`, what gives a parameter of a function, or a member path on
        one, its value where the function assigns it nothing before the use: `given(path,
        function, self)` -> `_Value` or None (`c_call_contexts`: a call of the function)."""

    @cached_property
    def _macro_names(self) -> frozenset[str]:
        """The names the text `#define`s or `#undef`s (more, never fewer); read once per
        context, not per evaluator (a 10 MB file's lint made 282)."""
        return self.context.shared(
            "c-macro-names", lambda: frozenset(_DEFINED_MACRO.findall(self.context.source.text)))

    def _extra_holding(self, name: str) -> tuple:
        """The evaluators of `extra` whose text may hold `name` (the others know nothing of
        it: asking each was most of a file's evaluation where it includes hundreds)."""
        if name not in self._holding:
            word = name.encode()
            self._holding[name] = tuple(header for header in self.extra
                                        if header.names is None or word in header.names)
        return self._holding[name]

    # -- public --------------------------------------------------------------------------------

    def evaluate(self, node, assignments: bool = False) -> Any:
        """The integer value of an expression node, or UNKNOWN. `assignments`: a local or a
        field path (`s->a.b`) also takes the value that the last `name = value;` statement
        before the node gives it (see `_assigned_value`)."""
        return self._answer(lambda: self._eval(node, _Env(node, assignments=assignments)).value)

    def assigned(self, node, file_scope: bool = False):
        """The value node that the last `path = value;` statement before `node` (a local, a
        parameter or a field path on one, `c->buf`; with `file_scope`, a variable declared at
        file scope too, `FileScopeRules`) gives it, where nothing in between may change it
        (`_disturbed`); None otherwise."""
        found = self._answer(lambda: self._assignment(node, node, file_scope))
        return found[0].child_by_field_name("right") \
            if isinstance(found, tuple) and found[0] is not None else None

    def array_typed(self, node) -> bool:
        """Whether an expression's type is known to be an array (`req->payload`, a member
        declared `char payload[64]` in a header in view)."""
        return self._answer(lambda: isinstance(self._expression_type(node, _Env(node)),
                                               _Array)) is True

    def sizeof(self, node) -> Any:
        """The value of a sizeof_expression node, or UNKNOWN."""
        if node.type != "sizeof_expression":
            return UNKNOWN
        return self._answer(lambda: self._sizeof(node, _Env(node)))

    def _answer(self, compute) -> Any:
        self._depth = self._steps = self._busy = 0
        try:
            return compute()
        except (_GiveUp, RecursionError):  # Python's stack ends first where each level of
            return UNKNOWN  # nesting (records in records, typedef chains) takes many frames

    def _ask(self, other: CConstants, compute) -> Any:
        """compute() on another evaluator (a header's) within this evaluation's limits."""
        if other is self:
            return compute()
        other._depth, other._steps, other._busy = self._depth, self._steps, 0
        try:
            return compute()
        finally:
            self._steps = other._steps

    def _enter(self) -> None:
        self._depth += 1
        self._steps += 1
        if self._depth > _MAX_DEPTH or self._steps > _MAX_STEPS:
            raise _GiveUp

    def _cached(self, key: tuple, compute, busy: Any) -> Any:
        """compute() once per key; a recursive request for the same key while it runs (a type
        or constant defined through itself) gets `busy`."""
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = busy
        self._busy += 1
        try:
            self._memo[key] = result = compute()
        except (_GiveUp, RecursionError):
            del self._memo[key]
            raise
        finally:
            self._busy -= 1
        return result

    # -- expressions ---------------------------------------------------------------------------

    def _eval(self, node, env: _Env) -> _Value:
        self._enter()
        try:
            handler = _EXPRESSIONS.get(node.type)
            return handler(self, node, env) if handler else _NOTHING
        finally:
            self._depth -= 1

    def _number(self, node, env: _Env) -> _Value:
        sign, value = _integer_literal(self.context.text(node))
        return self._unary_operation(sign, value) if sign else value

    def _character(self, node, env: _Env) -> _Value:
        return _character_literal(self.context.text(node), self.cpp)

    def _boolean(self, node, env: _Env) -> _Value:
        return _Value(int(node.type == "true"), self._truth)

    def _inner(self, node, env: _Env) -> _Value:
        """( expression ) and __extension__ expression."""
        inner = _only_child(node)
        return self._eval(inner, env) if inner is not None else _NOTHING

    def _unary(self, node, env: _Env) -> _Value:
        operand = self._eval(node.child_by_field_name("argument"), env)
        return self._unary_operation(node.child_by_field_name("operator").type, operand)

    def _unary_operation(self, operator: str, operand: _Value) -> _Value:
        if self._overloadable(operator, operand):
            return _NOTHING
        value, kind = operand
        if operator == "!":
            return _Value(UNKNOWN if value is UNKNOWN else int(value == 0), self._truth)
        kind = _promote(kind)
        if kind is None or value is UNKNOWN or operator not in ("+", "-", "~"):
            return _Value(UNKNOWN, kind)
        result = value if operator == "+" else -value if operator == "-" else ~value
        return _Value(kind.result(result), kind)

    def _binary(self, node, env: _Env) -> _Value:
        operator = node.child_by_field_name("operator").type
        left = self._eval(node.child_by_field_name("left"), env)
        right = self._eval(node.child_by_field_name("right"), env)
        if self._overloadable(operator, left, right):
            return _NOTHING
        if operator in ("&&", "||"):
            return self._logical(operator, left, right)
        if operator in ("<<", ">>"):
            return self._shift(operator, left, right)
        kind = _common(left.type, right.type)
        result_type = self._truth if operator in COMPARISONS else kind
        if kind is None or left.value is UNKNOWN or right.value is UNKNOWN:
            return _Value(UNKNOWN, result_type)
        a, b = kind.convert(left.value), kind.convert(right.value)
        if operator in COMPARISONS:
            return _Value(int(COMPARISONS[operator](a, b)), result_type)
        if operator in _ARITHMETIC:
            return _Value(kind.result(_ARITHMETIC[operator](a, b)), kind)
        if operator not in ("/", "%") or b == 0:
            return _Value(UNKNOWN, kind)
        quotient = kind.result(_truncating_division(a, b))
        if quotient is UNKNOWN or operator == "/":
            return _Value(quotient, kind)
        return _Value(a - b * quotient, kind)

    def _logical(self, operator: str, left: _Value, right: _Value) -> _Value:
        """&& and ||: a known operand that decides the result makes the other irrelevant."""
        deciding = operator == "||"  # the truth value that decides
        values = [operand.value for operand in (left, right) if operand.value is not UNKNOWN]
        if any((value != 0) == deciding for value in values):
            return _Value(int(deciding), self._truth)
        return _Value(int(not deciding) if len(values) == 2 else UNKNOWN, self._truth)

    def _overloadable(self, operator: str, *operands: _Value) -> bool:
        """Whether a C++ operator may call a user's overload, which is not followed: an operand
        of unknown type (a class?), a scoped enumerator, an enumerator where the file declares
        an overload of the operator."""
        if not self.cpp:
            return False
        kinds = [operand.type for operand in operands]
        if None in kinds:
            return True
        enums = {kind.enum for kind in kinds} - {""}
        return "scoped" in enums or bool(enums and operator in self._overloads)

    @cached_property
    def _overloads(self) -> set[str]:
        """The operators this file overloads (`operator|` -> "|")."""
        found = (self.context.parent(keyword) for _, keyword in self.context.tokens(("operator",)))
        own = {self.context.text(node)[len("operator"):].strip() for node in found
               if node.type == "operator_name"}
        return own.union(*(header._overloads for header in self.extra))

    def _shift(self, operator: str, left: _Value, right: _Value) -> _Value:
        kind = _promote(left.type)
        count = right.value
        if kind is None or left.value is UNKNOWN or count is UNKNOWN:
            return _Value(UNKNOWN, kind)
        if not 0 <= count < kind.bits:
            return _Value(UNKNOWN, kind)
        if operator == ">>":
            return _Value(left.value >> count, kind)  # arithmetic for negatives, as GCC does
        if kind.signed and left.value < 0:
            return _Value(UNKNOWN, kind)
        return _Value(kind.result(left.value << count), kind)

    def _conditional(self, node, env: _Env) -> _Value:
        condition = self._eval(node.child_by_field_name("condition"), env).value
        consequence = node.child_by_field_name("consequence")
        if consequence is None:  # GNU `a ?: b`
            return _NOTHING
        branches = (self._eval(consequence, env),
                    self._eval(node.child_by_field_name("alternative"), env))
        kind = _common(branches[0].type, branches[1].type)
        if kind is None or condition is UNKNOWN:
            return _Value(UNKNOWN, kind)
        return _Value(kind.convert(branches[0 if condition else 1].value), kind)

    def _cast(self, node, env: _Env) -> _Value:
        target = self._descriptor_type(node.child_by_field_name("type"), env.anchor)
        return _converted(target, self._eval(node.child_by_field_name("value"), env))

    def _call(self, node, env: _Env) -> _Value:
        """Calls of function-like macros (`MacroCallRules`), C++ `static_cast<T>(x)` and
        functional casts `T(x)`; other calls are UNKNOWN."""
        name = callee(self.context, node, scoped=False, system_calls=False)
        if name:
            expanded = self._macro_call(node, name, env)
            if expanded is not None:
                return expanded
        argument = _only_child(node.child_by_field_name("arguments"))
        target = self._cast_target(node.child_by_field_name("function"), env)
        if target is None or argument is None:
            return _NOTHING
        return _converted(target, self._eval(argument, env))

    def _cast_target(self, function, env: _Env) -> Any:
        if not self.cpp:
            return None
        if function.type == "template_function":
            name = function.child_by_field_name("name")
            arguments = _named_children(function.child_by_field_name("arguments"))
            if self.context.text(name) != "static_cast" or len(arguments) != 1:
                return None
            return self._descriptor_type(arguments[0], env.anchor)
        if function.type in ("primitive_type", "sized_type_specifier"):
            return self._base_type(function, env.anchor)
        if function.type in ("identifier", "qualified_identifier"):
            name = _split_name(function)
            return self._named_type(*name, env.anchor) if name else None
        return None

    def _compound_literal(self, node, env: _Env) -> _Value:
        """`(int){4}` in C, `int{4}` in C++."""
        type_node = node.child_by_field_name("type")
        if type_node.type == "type_descriptor":
            target = self._descriptor_type(type_node, env.anchor)
        else:
            target = self._base_type(type_node, env.anchor)
        items = list(islice(_items(node.child_by_field_name("value")), 2))
        if not items:
            return _converted(target, _Value(0, _INT))
        return _converted(target, self._eval(items[0], env)) if len(items) == 1 else _NOTHING

    def _sizeof_value(self, node, env: _Env) -> _Value:
        return _Value(self._sizeof(node, env), _ULONG)

    def _alignof_value(self, node, env: _Env) -> _Value:
        type_node = node.child_by_field_name("type")
        if type_node is None:
            return _Value(UNKNOWN, _ULONG)
        return _Value(self._align(self._descriptor_type(type_node, env.anchor)), _ULONG)

    def _name_value(self, node, env: _Env) -> _Value:
        split = _split_name(node)
        if split is None:
            return _NOTHING
        name, qualifier = split
        bodies = self._expansions(node, name, qualifier, env)
        if bodies is not None:
            inner = env._replace(expanding=env.expanding | {name})
            return _single({self._eval(body, inner) for body in bodies}, _NOTHING)
        if env.assignments and not qualifier:
            assigned = self._assigned_value(node, env)
            if assigned is None and self.given is not None:
                assigned = self._given_value(node, env)
            if assigned is not None:
                return assigned
        return self._derived(name, qualifier, env.anchor, "names", "value", _NOTHING)

    def _member_value(self, node, env: _Env) -> _Value:
        """`s->a.b`: known from an assignment earlier in the function, or where every store
        of the file into a member of a struct of its own agrees (`MemberRules`)."""
        assigned = self._assigned_value(node, env) if env.assignments else None
        if assigned is None and env.assignments:
            assigned = self._stored_member_value(node, env)
        if assigned is None and env.assignments and self.given is not None:
            assigned = self._given_value(node, env)
        return _NOTHING if assigned is None else assigned

    def path_value(self, path: tuple, anchor) -> Any:
        """`evaluate(.., assignments=True)` of a local, a parameter or a member path on one
        (`("pool", "size")`) at `anchor`, where no node spells it (a callee's `p->size` asked
        at its call, `p` given there)."""
        return self._answer(lambda: self._path_value(path, anchor).value)







_EXPRESSIONS = {
    "number_literal": CConstants._number,
    "char_literal": CConstants._character,
    "true": CConstants._boolean,
    "false": CConstants._boolean,
    "parenthesized_expression": CConstants._inner,
    "extension_expression": CConstants._inner,
    "unary_expression": CConstants._unary,
    "binary_expression": CConstants._binary,
    "conditional_expression": CConstants._conditional,
    "cast_expression": CConstants._cast,
    "call_expression": CConstants._call,
    "compound_literal_expression": CConstants._compound_literal,
    "sizeof_expression": CConstants._sizeof_value,
    "alignof_expression": CConstants._alignof_value,
    "identifier": CConstants._name_value,
    "field_expression": CConstants._member_value,
    "qualified_identifier": CConstants._name_value,
    # a name tree-sitter-cpp read as a type: `std::vector<T> v(n);` parsed as a declaration of
    # a function `v` taking an `n`
    "type_identifier": CConstants._name_value,
}
