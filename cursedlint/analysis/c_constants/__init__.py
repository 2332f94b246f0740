"""Constant evaluation of C/C++ expressions, shared by rules (`types`, `symbols`, `flow`,
`members`, `macro_calls`, `expressions`).

`CConstants(context).evaluate(node)` is the integer value of an expression node of the file's
tree-sitter tree and `sizeof(node)` the value of a `sizeof` expression, both for the LP64 data
model of Linux on x86-64 and aarch64. Where the answer depends on something this file does not
show (a header, a caller, the target), the answer is UNKNOWN, never a guess.

Values follow C's rules, not Python's: literal types, integer promotions and the usual
arithmetic conversions, unsigned wrap-around, truncating division; signed overflow (undefined)
is UNKNOWN, and so is anything that differs between x86-64 and aarch64 (the signedness of
`char` and `wchar_t`). Conversions to a narrower signed type wrap, as GCC and Clang define. In
C++ an operator whose operand has an unknown type, or is an enumerator of a scoped enum or of
one whose operator the file overloads, may call a user's function: UNKNOWN.

Names resolve as the compiler would within this file: an object-like macro defined before the
use wins (every definition before the use must agree; a body such as `1 + 2` is taken whole
only where its text would be, so `N * 2` is UNKNOWN; a definition inside `#ifndef N` is
UNKNOWN, N may come from elsewhere), then the innermost block, parameters, and in C++ the
enclosing classes and namespaces. A call of a function-like macro (`ROUND_UP(n, 8)`) is
its body with the arguments' text put in for the parameters, parsed alone and evaluated where
the call stands (`macro_calls`; every definition in view must agree; `#`, `##`, `...` or a
string in the body, or a definition inside a test of its own name, leave it UNKNOWN). A name gets a value from an enumerator, a `const` or
`constexpr` variable with an initializer, a local variable initialised once and never
assigned, incremented or address-taken after its declaration, or (in C) a `static` file-scope variable
(a configuration default no other file can write) initialised once and never assigned,
incremented, address-taken or named in a macro body anywhere in the file. Not seen: a C++ function
changing a local it takes by non-const reference, a macro changing its argument, and a member
of a class from an unseen header shadowing a file-scope constant in its out-of-line methods.

`evaluate(node, assignments=True)` also gives a local, a parameter or a member path on one
(`s->a.b`) the value of the last statement `path = value;` before the node in a block
around it, unless something in between may change it (a write to it, a prefix or a member of
the same name; a call mentioning the root; a label or `case`; a loop around the use; its
address taken anywhere in the function). A pointer kept from before the assignment and written
through by a call not given the root is not seen.
With `assignments=True`, a member of a struct that a C source file defines for itself also
takes the one constant every store of the file into it gives (`members`: no other file can
name the struct; a compound assignment, `&`, a macro body naming it, a positional
initializer or the struct held by another leaves it unknown).

Declarations, macros and writes of a name are found from the tokens spelling it (a byte search
of the file, then a short climb from each token), never by a walk of the whole file, so a file of
millions of nodes costs what the names evaluated in it need; what one function does to its
variables is read by one walk of that function, once.

Struct, union and class sizes use natural alignment, or none where the record itself says
`__attribute__((packed))` (GCC's layout: members one after another, alignment 1; a member
of natural layout keeps its own padding). Bit-fields, `#pragma pack`, other attributes (also
an attribute of a member), `#if` inside the body, base classes, virtual members, members
tree-sitter cannot read (macros) and a macro-like name after the closing brace (`} __packed;`)
make the layout UNKNOWN.
"""


from cursedlint.analysis.c_constants.expressions import CConstants

__all__ = ["CConstants"]
