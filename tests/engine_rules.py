"""Rules that exist only to test the engine (the shipped registry holds only real rules)."""

from __future__ import annotations

import ast

from cursedlint.findings import Edit, Fix, Span
from cursedlint import notices
from cursedlint.project.index import Indexer
from cursedlint.registry import collect
from cursedlint.rule import Option, Rule

DOC = """## What it does
Test rule.

## Why it is cursed
Test rule.

## Example
Test rule.

## Fix
Test rule.

## References
None.
"""


class ForkCall(Rule):
    __doc__ = DOC
    code = "CUR901"
    name = "test-fork-call"
    languages = ("python",)
    triggers = ("fork",)
    summary = "calls os.fork"

    def visit_Call(self, node: ast.Call) -> None:
        if self.context.qualified_name(node.func) == "os.fork":
            self.report(node, "os.fork() called")


class RenameSpawn(Rule):
    """Offers a fix: launcher.old_spawn(...) -> launcher.spawn(...)."""

    __doc__ = DOC
    code = "CUR902"
    name = "test-rename-spawn"
    languages = ("python",)
    triggers = ("old_spawn",)
    summary = "calls a renamed function"
    old, new, safe = "old_spawn", "spawn", True

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Attribute) and node.func.attr == self.old:
            end = self.context.span_of(node.func)
            span = Span(end.end_line, end.end_column - len(self.old), end.end_line, end.end_column)
            fix = Fix(f"rename to {self.new}", (Edit(span, self.new),), safe=self.safe)
            self.report(node.func, f"{self.old} was renamed", fix=fix)


class UnsafeRename(RenameSpawn):
    __doc__ = DOC
    code = "CUR903"
    name = "test-unsafe-rename"
    triggers = ("old_launch",)
    old, new, safe = "old_launch", "launch", False


class BreakingFix(Rule):
    __doc__ = DOC
    code = "CUR904"
    name = "test-breaking-fix"
    languages = ("python",)
    triggers = ("break_me",)
    summary = "offers a fix that does not parse"

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id == "break_me":
            span = self.context.span_of(node)
            self.report(node, "broken fix", fix=Fix("break", (Edit(span, "break_me((("),)))


class ForkInit(Rule):
    __doc__ = DOC
    code = "CUR905"
    name = "test-ibv-fork-init"
    languages = ("c", "cpp")
    triggers = ("ibv_fork_init",)
    summary = "calls ibv_fork_init"

    def check(self) -> None:
        for _, call in self.context.calls(["ibv_fork_init"]):
            self.report(call, "ibv_fork_init() called")


class Exploding(Rule):
    __doc__ = DOC
    code = "CUR906"
    name = "test-exploding"
    languages = ("python", "c", "cpp")
    triggers = ("explode",)
    summary = "raises"

    def visit_Call(self, node: ast.Call) -> None:
        raise RuntimeError("boom")

    def check(self) -> None:
        if self.context.source.language != "python":
            raise RuntimeError("boom")


class WithOption(Rule):
    __doc__ = DOC
    code = "CUR907"
    name = "test-with-option"
    languages = ("python",)
    triggers = ("threshold",)
    summary = "reports its option"
    options = {"limit": Option(int, 3, "a limit")}

    def visit_Name(self, node: ast.Name) -> None:
        if node.id == "threshold":
            self.report(node, f"limit={self.option['limit']}")


class ForkingFunctions(Indexer):
    """Functions of other files that call os.fork()."""

    name = "forking-functions"
    languages = ("python",)
    summary_type = list[str]
    summarize_calls = 0

    def words(self, settings):
        return ("fork",)

    def summarize(self, context):
        type(self).summarize_calls += 1
        if "explode_summary" in context.source.text:
            raise RuntimeError("summarizer failed")
        forking = [
            node.name
            for node in context.tree.body
            if isinstance(node, ast.FunctionDef) and "os.fork()" in ast.unparse(node)
        ]
        return forking or None


class CallsForkingLauncher(Rule):
    """Learns from other files which functions fork (project facts) and reports calls of them."""

    __doc__ = DOC
    code = "CUR908"
    name = "test-calls-forking-launcher"
    languages = ("python",)
    triggers = ("os.fork",)
    summary = "calls a function of another file that forks"

    indexer = ForkingFunctions()

    @classmethod
    def project_trigger_words(cls, facts):
        return tuple(name for names in facts.values() for name in names)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name):
            defined = [path for path, names in self.project_facts.items() if node.func.id in names]
            if defined:
                self.report(node, f"{node.func.id}() forks (defined in {min(defined)})")


TEST_RULES = {
    rule.code: rule
    for rule in (ForkCall, RenameSpawn, UnsafeRename, BreakingFix, ForkInit, Exploding,
                 WithOption, CallsForkingLauncher)
}


def notices_and_test_rules() -> dict[str, type[Rule]]:
    """The engine's notices plus the rules above: engine tests must not depend on what the
    shipped rules report."""
    return {**collect([notices]), **TEST_RULES}
