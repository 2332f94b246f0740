"""The `start-methods` project index: where the project's modules set a start method other
than fork for the whole process, and what runs after it (CUR102 clears a helper every caller of
which runs only after such a setting)."""

from __future__ import annotations

import ast
from typing import Iterator

from cursedlint.analysis.python_project import FunctionIndexer, Reach

START_METHOD_SETTERS = frozenset({"multiprocessing.set_start_method"})


def torch_spellings(names) -> frozenset[str]:
    """`names` with the torch.multiprocessing spelling of each multiprocessing name added."""
    return frozenset(names) | {
        "torch." + name for name in names if name.startswith("multiprocessing.")
    }


SPAWN_SET = "spawn_set"


class StartMethods(FunctionIndexer):
    """Where the project's modules set a start method other than fork for the whole process
    (at module level, or under `if __name__ == "__main__":`), and every summarized function's
    calls: CUR102 clears a helper's default start when each of its callers in the project runs
    only after such a setting."""

    name = "start-methods"
    module_level = True

    def words(self, settings):
        return ("set_start_method",)

    def local_facts(self, context, function: ast.AST) -> dict[str, Reach]:
        """A setting at the top level of the module (its `__main__` block included) or of a
        function (`def main(): set_start_method("spawn"); ...`): what runs after it in that
        body runs after the setting."""
        statements = entry_statements(function) if isinstance(function, ast.Module) \
            else function.body
        for statement in statements:
            call = statement.value if isinstance(statement, ast.Expr) else None
            if not isinstance(call, ast.Call):
                continue
            written = context.qualified_name(call.func, among=_SETTERS)
            method = context.evaluate(context.argument(call, 0, "method")) if written else None
            if method in ("spawn", "forkserver"):
                return {SPAWN_SET: Reach(call.lineno, f"set_start_method({method!r})")}
        return {}

    def more_words(self, facts, settings):
        """The project names called after such a setting, and (by name) by the functions
        those reach: any module that names one may call it too."""
        names: set[str] = set()
        for summary in facts.values():
            for function in summary.functions.values():
                setting = function.facts.get(SPAWN_SET)
                if setting is not None:
                    names.update(call.name.rpartition(".")[2] for call in function.calls
                                 if call.line > setting.line)
        grew = True
        while grew:  # what the reached functions call
            grew = False
            for summary in facts.values():
                for qualname, function in summary.functions.items():
                    if qualname.rpartition(".")[2] in names:
                        more = {call.name.rpartition(".")[2] for call in function.calls}
                        grew = grew or not more <= names
                        names |= more
        return names


def entry_statements(module: ast.Module) -> Iterator[ast.stmt]:
    """The module's top-level statements, and those of its `if __name__ == "__main__":`
    block in place of it."""
    for statement in module.body:
        if isinstance(statement, ast.If) and is_main_guard(statement.test):
            yield from statement.body
        else:
            yield statement


def is_main_guard(test: ast.AST) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
            and test.left.id == "__name__" and len(test.comparators) == 1
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")


_SETTERS = torch_spellings(START_METHOD_SETTERS)
START_METHODS = StartMethods()
