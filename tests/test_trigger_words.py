"""The words facts from other files add to the rules' triggers are the indexer's
(`Indexer.trigger_words`): every rule reading the same facts gets the same, and a rule cannot
lose its cross-module findings by not declaring them again."""

from __future__ import annotations

import ast

from cursedlint import engine
from cursedlint.analysis.python_project import (
    FunctionIndexer, FunctionSummary, ModuleSummary, OutCall, Reach,
)
from cursedlint.analysis.start_methods import START_METHODS
from cursedlint.registry import all_rules


class _Forks(FunctionIndexer):
    """A newcomer's indexer: functions that call os.fork(), and nothing about triggers."""

    name = "test-forks"

    def words(self, settings):
        return ("fork",)

    def local_facts(self, context, function: ast.AST):
        for node in ast.walk(function):
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "os.fork":
                return {"fork": Reach(node.lineno, "os.fork()")}
        return {}


SUMMARIES = {
    "/p/helpers.py": ModuleSummary({}, {
        "spawn_worker": FunctionSummary(3, {"fork": Reach(4, "os.fork()")}, ()),
        "Pool.grow": FunctionSummary(9, {"fork": Reach(10, "os.fork()")}, ()),
        "log": FunctionSummary(12, {}, (OutCall(13, "print"),)),
    }),
}


def test_a_function_indexer_adds_the_names_of_functions_that_reach_a_fact():
    assert set(_Forks().trigger_words(SUMMARIES)) == {"spawn_worker", "grow"}
    assert _Forks.adds_triggers
    assert not START_METHODS.adds_triggers  # its facts only clear findings
    assert all_rules()["CUR102"].project_trigger_words(SUMMARIES) == ()


def test_rules_reading_the_same_facts_add_the_same_words():
    by_indexer: dict[str, set[tuple[str, ...]]] = {}
    for rule in all_rules().values():
        if rule.indexer is not None:
            words = tuple(rule.project_trigger_words({}))
            by_indexer.setdefault(rule.indexer.name, set()).add(words)
        assert "project_trigger_words" not in vars(rule), \
            f"{rule.code} declares trigger words its indexer already gives"
    assert all(len(words) == 1 for words in by_indexer.values())
    assert sorted(code for code, rule in all_rules().items() if engine.indexer_looks.adds_triggers(rule)) == [
        "CUR103", "CUR201", "CUR202", "CUR301", "CUR302", "CUR401", "CUR402", "CUR403", "CUR404",
        "CUR601"]


def test_every_capture_rule_gets_the_capturing_functions_of_other_modules():
    from cursedlint.analysis.cuda_reach import CUDA_REACH

    facts = {"/p/graphs.py": ModuleSummary({}, {
        "record_step": FunctionSummary(5, {"global_capture": Reach(6, "torch.cuda.graph")}, ()),
    })}
    capture_rules = [rule for rule in all_rules().values() if rule.indexer is CUDA_REACH]
    assert len(capture_rules) == 4
    words = {rule.code: rule.project_trigger_words(facts) for rule in capture_rules}
    assert set(words.values()) == {tuple(sorted(CUDA_REACH.trigger_words(facts)))}
