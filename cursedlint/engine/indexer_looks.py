"""What the engine asks an indexer about a parsed file (does it need the indexer's facts,
what words to look for, what it reads them through): a look that fails is a `FactError` to
report, never a silent answer."""

from __future__ import annotations

from typing import Any, Iterable

from cursedlint.project.index import FactError, Indexer
from cursedlint.rule import Rule


def summarized(indexers: Iterable) -> list:
    """The indexers among `indexers` that summarize files one by one, with those they gather
    their facts through (`Indexer.summarizers`: an `IncludedHeaders`' header summaries), each
    once."""
    found: dict[str, Any] = {}
    for indexer in indexers:
        for one in indexer.summarizers:
            found.setdefault(one.name, one)
    return list(found.values())


def looked_for(rules: Iterable[type[Rule]]) -> dict[str, frozenset[str]]:
    """Summarizer name -> the indexers it serves, for the summarizers (of `rules`' indexers)
    whose every indexer the run gathers only where a linted file's look says it needs it
    (`Indexer.needed_by`): not one whose facts add triggers or gate a rule's words, nor one
    whose look is always yes."""
    always = {indexer.name for rule in rules if adds_triggers(rule) or rule.fact_gated
              for indexer in rule.indexers()}
    served: dict[str, set[str]] = {}
    eager: set[str] = set()
    for rule in rules:
        for indexer in rule.indexers():
            looks = type(indexer).needed_by is not Indexer.needed_by
            for one in indexer.summarizers:
                served.setdefault(one.name, set()).add(indexer.name)
                if not looks or indexer.name in always:
                    eager.add(one.name)
    return {name: frozenset(names) for name, names in served.items() if name not in eager}


def adds_triggers(rule: type[Rule]) -> bool:
    """Whether the rule's facts from other files can make more files worth linting."""
    return rule.indexer is not None and rule.indexer.adds_triggers


def needs(indexer, context, errors: list[FactError]) -> bool:
    """An indexer's look at a parsed file (True when the look fails: its error joins
    `errors`)."""
    try:
        return bool(indexer.needed_by(context))
    except Exception as error:
        errors.append(FactError.of(context.source.path, indexer.name, error))
        return True


def lookups_of(indexer, context, errors: list[FactError]) -> list[str] | None:
    """What a parsed file reaches an indexer's facts through (None: any fact, also when the
    look fails: its error joins `errors`)."""
    try:
        lookups = indexer.lookups(context)
    except Exception as error:
        errors.append(FactError.of(context.source.path, indexer.name, error))
        return None
    return None if lookups is None else sorted(lookups)


def seeds_of(indexer, context, errors: list[FactError]) -> list[str]:
    """An indexer's first-round words from a parsed file (none when the look fails: its error
    joins `errors`)."""
    try:
        return list(indexer.seed_words(context))
    except Exception as error:
        errors.append(FactError.of(context.source.path, indexer.name, error))
        return []
