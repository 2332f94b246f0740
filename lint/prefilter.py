"""The prefilter: which rules can fire on a file, decided from its raw bytes before any parse.

Each rule declares trigger words; a file that holds none of a rule's triggers cannot make it
fire. The test is a plain substring search on the bytes (no decoding, no regex): CPython's
`bytes.__contains__` scans tens of MB/s per word, so files without a hit cost one read.
"""

from __future__ import annotations

import re
import sys
from typing import Any, Iterable, Mapping

from cursedlint.rule import Rule, triggered_by, trigger_words


PREFIX = 2
MIN_GROUP = 3
SMALL_FILE = 16 * 1024
"""Files up to this many bytes have every trigger word searched at once."""


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
        A rule whose triggers match is then asked `may_fire` under its options,
        `target_python` and `language` (that of the files this prefilter reads)."""
        project = project or {}
        rules = list(rules)
        self._resolved = {rule: rule.resolved_options(options.get(rule.code)) for rule in rules}
        self.target_python = target_python or sys.version_info[:2]
        self.language = language
        self._second_look = {
            rule for rule in rules if rule.may_fire.__func__ is not Rule.may_fire.__func__
        }
        self.triggers = [
            (
                rule,
                (
                    *rule.triggers_for(self._resolved[rule]),
                    *rule.project_trigger_words(
                        project.get(rule.indexer.name, {}) if rule.indexer else {}
                    ),
                ),
            )
            for rule in rules
        ]
        self.always = [rule for rule, triggers in self.triggers if not triggers]
        self.words = sorted(set().union(*(trigger_words(t) for _, t in self.triggers)))
        self._encoded = {word: word.encode("utf-8") for word in self.words}
        self._inside = {
            word: [other for other in self.words if other != word and other in word]
            for word in self.words
        }
        groups: dict[str, list[str]] = {}
        for word in self.words:
            groups.setdefault(word[:PREFIX], []).append(word)
        self._group = {
            word: prefix
            for prefix, members in groups.items()
            if len(members) >= MIN_GROUP and len(prefix) == PREFIX
            for word in members
        }
        self._probes = {
            prefix: re.compile(
                re.escape(prefix.encode("utf-8"))
                + b"(?:"
                + b"|".join(re.escape(word[len(prefix):].encode("utf-8")) for word in groups[prefix])
                + b")"
            )
            for prefix in set(self._group.values())
        }

    def present(self, data: bytes | str) -> set[str]:
        """The trigger words that occur in `data` (raw bytes, or text from flake8)."""
        if isinstance(data, str):
            return {word for word in self.words if word in data}
        return {word for word, encoded in self._encoded.items() if encoded in data}

    def _second_look_passes(self, rule: type[Rule], data: bytes | str) -> bool:
        return rule not in self._second_look or rule.may_fire(
            data, self._resolved[rule], self.target_python, self.language
        )

    def _triggered_small(self, data: bytes) -> list[type[Rule]]:
        """`triggered` for a small file: every word searched at once (cheaper than deciding
        which words to search, when the searches themselves are short)."""
        present = {word for word, encoded in self._encoded.items() if encoded in data}
        if not present and not self.always:
            return []
        return [
            rule
            for rule, triggers in self.triggers
            if triggered_by(triggers, present)
            and self._second_look_passes(rule, data)
        ]

    def triggered(self, data: bytes | str) -> list[type[Rule]]:
        """The rules that can fire on a file with these bytes (rules without triggers always).
        Words are searched only as far as the rules need them; a word known absent rules out
        every longer trigger word that contains it; words sharing their first PREFIX characters
        are first searched together, with one regex whose literal prefix the engine scans for."""
        encoded = self._encoded if isinstance(data, bytes) else None
        if encoded is not None and len(data) <= SMALL_FILE:
            return self._triggered_small(data)
        known: dict[str, bool] = {}
        probed: dict[str, bool] = {}

        def has(word: str) -> bool:
            found = known.get(word)
            if found is None:
                prefix = self._group.get(word) if encoded is not None else None
                if prefix is not None and prefix not in probed:
                    probed[prefix] = self._probes[prefix].search(data) is not None
                found = (
                    (prefix is None or probed[prefix])
                    and not any(has(inner) is False for inner in self._inside[word])
                    and (encoded[word] if encoded is not None else word) in data
                )
                known[word] = found
            return found

        return [
            rule
            for rule, triggers in self.triggers
            if (
                not triggers
                or any(
                    has(trigger) if isinstance(trigger, str) else all(has(w) for w in trigger)
                    for trigger in triggers
                )
            )
            and self._second_look_passes(rule, data)
        ]

