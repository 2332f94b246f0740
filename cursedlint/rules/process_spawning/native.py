"""CUR103 in C and C++: the fork-protection variables set with `setenv`/`putenv` (names
followed through locals), and `ibv_fork_init()` calls (also through a function-pointer field
that holds it) that neither honour nor probe the user's setting."""

from __future__ import annotations

import re
from functools import cached_property

from cursedlint.analysis.c_fork_init import fork_init_calls
from cursedlint.analysis.c_memory import declarations_in
from cursedlint.analysis.c_syntax import (
    arguments, assigns, callee, declared_name, function_declarator, scope_of, unwrapped, within,
)
from cursedlint.analysis.fork_protection import FORK_SETTINGS, MAX_MAPPING_DEPTH
from cursedlint.rule import LazyPattern
from cursedlint.rules.process_spawning.fork_safe_mode_enabled import (
    ForkSafeModeEnabled, fork_safe_message, setting_message,
)

_C_SETTERS = ("setenv", "putenv", "ibv_fork_init")
_VERBS_REGISTRATIONS = ("ibv_reg_mr", "ibv_reg_mr_iova", "ibv_reg_mr_iova2")
# a condition asking the user (a fork setting read by name) or the kernel (rdma-core 35+)
_C_ASKS = re.compile(rf'"(?:{"|".join(FORK_SETTINGS)})"|\bibv_is_fork_initialized\b'
                     r"|\bIBV_FORK_UNNEEDED\b")
_C_STRING = LazyPattern(r'(?:u8|[uUL])?"([^"\\]*)"')
_C_COMMENT = LazyPattern(r"/\*.*?\*/|//.*")


class ForkSafeModeEnabledC(ForkSafeModeEnabled):
    """CUR103 in C/C++: `setenv`/`putenv` of the variables, and `ibv_fork_init()` calls that
    neither honour the user's setting nor probe it."""

    def check(self) -> None:
        calls = [(call.start_byte, function, call, function, ())
                 for function, call in self.context.calls(_C_SETTERS)]
        facts = self.context.project.get(self.indexer.name)
        calls.extend((call.start_byte, "ibv_fork_init", call, label, chain)
                     for call, label, chain in fork_init_calls(self.context, facts))
        for _, function, call, label, chain in sorted(calls, key=lambda found: found[0]):
            if function == "ibv_fork_init":
                if not self._c_honours_or_probes(call):
                    message, help = fork_safe_message(f"{label}()")
                    self.report(call, message, help=help, related=chain)
                continue
            variables = self._c_variables(function, call)
            if variables:
                message, help = setting_message(" or ".join(variables))
                self.report(call, message, help=help)

    def _c_variables(self, function: str, call) -> list[str]:
        """The fork settings `setenv(NAME, ...)` or `putenv("NAME=value")` may set, when every
        value NAME may have is known."""
        given = arguments(call)
        texts = self._c_strings(given[0]) if given else None
        if texts is None:
            return []
        if function == "putenv":  # glibc: putenv("NAME") unsets NAME
            texts = {text.partition("=")[0] for text in texts if "=" in text}
        return sorted(text for text in texts if text in FORK_SETTINGS)

    def _c_strings(self, node, depth: int = 0) -> set[str] | None:
        """The strings an expression may be: a literal, an object-like macro defined as one,
        `c ? a : b` of these, or a local initialised with one and never assigned; None when
        unknown."""
        node = unwrapped(node)
        if depth > MAX_MAPPING_DEPTH:
            return None
        if node.type == "conditional_expression":
            sides = [self._c_strings(node.child_by_field_name(side), depth + 1)
                     for side in ("consequence", "alternative")]
            return None if None in sides else sides[0] | sides[1]
        text = self._c_string(node)
        if text is not None:
            return {text}
        value = self._c_local_value(node) if node.type == "identifier" else None
        return self._c_strings(value, depth + 1) if value is not None else None

    def _c_local_value(self, node):
        """The initializer of the local `node` names, if the function never assigns it."""
        scope = scope_of(self.context, node)
        name = self.context.text(node)
        found = [declarator for _, declarator in declarations_in(self.context, scope, name)
                 if declarator.start_byte < node.start_byte] if scope is not None else []
        if not found or found[-1].type != "init_declarator" or assigns(self.context, scope,
                                                                        name):
            return None
        return found[-1].child_by_field_name("value")

    def _c_string(self, node) -> str | None:
        """A string literal's value, or that of an object-like macro defined before `node` as
        one string literal (every definition the same)."""
        if node.type == "string_literal":
            match = _C_STRING.fullmatch(self.context.text(node))
            return match.group(1) if match else None
        if node.type != "identifier":
            return None
        definitions = self._c_defines(self.context.text(node))
        if not definitions or definitions[0].start_byte > node.start_byte:
            return None
        values = set()
        for define in definitions:
            body = define.child_by_field_name("value")
            text = _C_COMMENT.sub("", self.context.text(body)).strip() if body else ""
            match = _C_STRING.fullmatch(text)
            values.add(match.group(1) if match else None)
        return values.pop() if len(values) == 1 else None

    def _c_honours_or_probes(self, call) -> bool:
        """Whether `ibv_fork_init()` runs only where the user asked for fork support or the
        kernel needs it (an `if` around it, or an earlier `if` that returns, asks
        `getenv("RDMAV_FORK_SAFE")`, `ibv_is_fork_initialized()`, or a status variable set
        only under such a test), or after the same function registered memory (then it cannot
        turn protection on: EINVAL, a probe)."""
        scope = scope_of(self.context, call)
        if scope is None:
            return False
        if any(found.start_byte < call.start_byte
               for _, found in self.context.calls(_VERBS_REGISTRATIONS, scope)):
            return True
        for statement in self.context.descendants(scope):
            if statement.type != "if_statement" or statement.start_byte > call.start_byte:
                continue
            condition = statement.child_by_field_name("condition")
            consequence = statement.child_by_field_name("consequence")
            if condition is None or consequence is None:
                continue  # a statement tree-sitter could not read whole
            around = within(call, statement) and not within(call, condition)
            returns = not around and not within(call, statement) and any(
                node.type == "return_statement"
                for node in (consequence, *self.context.descendants(consequence)))
            if (around or returns) and self._c_asks(condition, call):
                return True
        return False

    def _c_asks(self, condition, call=None) -> bool:
        """Whether a condition reads the user's fork setting or the kernel's need, itself or
        (for the `if` around `call`) through a variable compared with a value it is given
        only under such a condition before `call` can run."""
        text = self.context.text(condition)
        if _C_ASKS.search(text) or any(
                node.type == "call_expression" and callee(self.context, node) in self._c_askers
                for node in self.context.descendants(condition)):
            return True
        if call is None:
            return False
        for comparison in self.context.descendants(condition):
            if comparison.type != "binary_expression" or self.context.text(
                    comparison.child_by_field_name("operator")) not in ("==", "!="):
                continue
            left, right = (comparison.child_by_field_name(side) for side in ("left", "right"))
            if left is None or right is None:
                continue
            left = unwrapped(left)
            if left.type == "identifier" and self._c_status_set_on_request(
                    self.context.text(left), self.context.text(right), call):
                return True
        return False

    @cached_property
    def _c_askers(self) -> frozenset[str]:
        """The file's functions whose body asks (`static int fork_init_needed(void)` returning
        whether `ibv_is_fork_initialized()` is not IBV_FORK_UNNEEDED): calling one asks too."""
        return frozenset(
            declared_name(self.context, function_declarator(definition))
            for definition in self.context.root.children
            if definition.type == "function_definition"
            and _C_ASKS.search(self.context.text(definition.child_by_field_name("body")
                                                 or definition)))

    def _c_status_set_on_request(self, variable: str, value: str, call) -> bool:
        """Whether every `variable = value;` of the file that may run before `call` (not later
        in its function) sits under an `if` that asks (and there is one)."""
        scope = scope_of(self.context, call)
        settings = []
        for _, leaf in self.context.tokens((variable,)):
            assignment = self.context.parent(leaf)
            if (leaf.type == "identifier" and assignment.type == "assignment_expression"
                    and assignment.child_by_field_name("left") == leaf
                    and self.context.text(assignment.child_by_field_name("right")) == value
                    and not (within(assignment, scope)
                             and assignment.start_byte > call.start_byte)):
                settings.append(assignment)
        return bool(settings) and all(
            any(found.type == "if_statement" and found.child_by_field_name("condition")
                and not within(assignment, found.child_by_field_name("condition"))
                and self._c_asks(found.child_by_field_name("condition"))
                for found in self.context.ancestors(assignment))
            for assignment in settings)

    def _c_defines(self, name: str) -> list:
        """The `#define` lines of the macro `name`, in file order."""
        found = []
        for _, leaf in self.context.tokens((name,)):
            define = self.context.parent(leaf)
            if (leaf.type == "identifier" and define.type == "preproc_def"
                    and define.child_by_field_name("name") == leaf):
                found.append(define)
        return found
