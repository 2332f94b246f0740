"""The prefilter: which rules can fire on a file, decided from its raw bytes before any parse.

Each rule declares trigger words; a file that holds none of a rule's triggers cannot make it
fire. All the words are searched in one pass over the bytes with an Aho-Corasick automaton
(`ahocorasick_rs`, a compiled DFA): about one and a half times the cost of a single
`bytes.find`, where a substring search per word cost one such scan for each of the ~50 words.
A rule whose triggers match then gets its parse-free second look: the `Shape` its
`Rule.look` declares (`second_look`), built once per prefilter when a file first holds the
rule's triggers (building it imports the rule's checker).
"""

from __future__ import annotations

import sys
from typing import Any, Iterable, Mapping

from cursedlint.triggers.byte_search import automaton, windows
from cursedlint.rule import Rule, trigger_alternatives, triggered_by


class Prefilter:
    """The trigger words of a set of rules (under their configured options), and the rules a
    file's bytes can trigger."""

    def __init__(
        self,
        rules: Iterable[type[Rule]],
        options: Mapping[str, dict[str, Any]],
        project: Mapping[str, dict[str, Any]] | None = None,
        target_python: tuple[int, int] | None = None,
        language: str = "python",
    ):
        """`project` holds the facts from other files (indexer name -> path -> summary),
        which can add trigger words to the rules that read them (wrappers defined elsewhere).
        A rule whose triggers match then gets the second look it declares under its options,
        `target_python` and `language` (that of the files this prefilter reads)."""
        project = project or {}
        rules = list(rules)
        self._resolved = {rule: rule.resolved_options(options.get(rule.code)) for rule in rules}
        self.target_python = target_python or sys.version_info[:2]
        self.language = language
        self._looks = {}
        self._shared_looks: dict[Any, Any] = {}  # look -> the equal one rules share
        self._project_words = {}
        self._facts = {}
        self.triggers = []
        for rule in rules:
            facts = self._facts[rule] = project.get(rule.indexer.name, {}) if rule.indexer \
                else {}
            words = rule.project_trigger_words(facts) if rule.indexer and (
                language is None or language in rule.indexer.languages) else ()
            self._project_words[rule] = words
            self.triggers.append(
                (rule, trigger_alternatives((*rule.triggers_for(self._resolved[rule]), *words)))
            )
        self.always = [rule for rule, alternatives in self.triggers if not alternatives]
        self.words = sorted(
            set().union(*(words for _, alternatives in self.triggers for words in alternatives))
        )
        encoded = [word.encode("utf-8") for word in self.words]
        self._automaton = automaton(encoded) if encoded else None
        self._overlap = max(map(len, encoded), default=1) - 1

    def present(self, data: bytes) -> set[str]:
        """The trigger words that occur in `data`."""
        if self._automaton is None:
            return set()
        words, found = self.words, set()
        for start, end in windows(data, self._overlap):
            window = data if end - start == len(data) else memoryview(data)[start:end]
            matches = self._automaton.find_matches_as_indexes(window, overlapping=True)
            found.update(words[index] for index, _, _ in matches)
            if len(found) == len(words):
                break
        return found

    def triggered(self, data: bytes | str) -> list[type[Rule]]:
        """The rules that can fire on a file with these bytes (rules without triggers always):
        their triggers are present and their second look does not rule them out. Text (from
        flake8) is searched as UTF-8."""
        return self.decided(data)[0]

    def decided(self, data: bytes | str) -> tuple[list[type[Rule]], list[type[Rule]]]:
        """`triggered`, and the rules whose triggers the file holds but whose second look
        rules it out (their facts may still be drawn from it)."""
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        present = self.present(data)
        if not present and not self.always:
            return [], []
        passed, looked_out = [], []
        answers: dict[int, bool] = {}  # id(look) -> its answer on these bytes
        for rule, alternatives in self.triggers:
            if triggered_by(alternatives, present):
                look = self._look(rule)
                if look is not None and id(look) not in answers:
                    answers[id(look)] = look.may_match(data)
                (passed if look is None or answers[id(look)] else looked_out).append(rule)
        return passed, looked_out

    def _look(self, rule: type[Rule]):
        """The rule's second look (a `Shape`, or None), built the first time a file's bytes
        hold its triggers: only then is the checker that declares it imported, so a run whose
        files trigger nothing imports no checker and no analysis."""
        if rule not in self._looks:
            words = self._project_words[rule]
            look = rule.checker(self.language).look(
                self._resolved[rule], self.target_python, self.language
            )
            if look is not None and words:  # a file that names a project wrapper passes too
                look = rule.project_look(look, words, self._facts[rule])
            # one object for equal looks, asked once per file (CUR401 to CUR404 declare the
            # same: its scan for `graph(` calls was a tenth of a cold run over torch's files)
            self._looks[rule] = look if look is None else self._shared_looks.setdefault(look, look)
        return self._looks[rule]
