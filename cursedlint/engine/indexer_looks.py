"""What the engine asks an indexer about a parsed file (does it need the indexer's facts,
what words to look for, what it reads them through): a look that fails is a `FactError` to
report, never a silent answer."""

from __future__ import annotations

from typing import Any, Iterable

from cursedlint.project.index import FactError
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
