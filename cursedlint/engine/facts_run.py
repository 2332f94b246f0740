"""The second pass of a run: gather the facts from other files that the first lint asked
for, then lint again only the files whose findings they can change."""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from cursedlint import notices
import cursedlint.engine.reported_notices as reported
from cursedlint.engine.file_lint import FileLinter
from cursedlint.engine.indexer_looks import adds_triggers, seeds_of, summarized
from cursedlint.engine.results import FileResult, Project
import cursedlint.engine.scheduler as scheduler
from cursedlint.project.index import FactError, ProjectIndex, facts_digest
from cursedlint.rule import Rule, Trigger, trigger_alternatives
from cursedlint.source import Source, SourceError, read_bytes
from cursedlint.triggers.byte_search import WholeWords


NOT_STORED = "facts gathered, not stored"
"""The linter's `facts_key` in a run without a cache: the facts' digest keys stored results
and nothing else (hashing every summary took 0.6 s of the C worst case's 7.7 s)."""


class FactsRun:
    """The facts pass of one run of a `Linter` (`engine.linter`): it reads and sets the
    linter's `project` (indexer name -> path -> summary), `facts_key`, `modules` and
    `fact_passes`, and asks it to lint files again (`lint_files`), through the cache
    (`store`, `stored_with_facts`) or in the workers of the first lint."""

    def __init__(self, linter: FileLinter):
        self.linter = linter
        self.last_index: ProjectIndex | None = None  # (the run's latest: its hashes hold)

    def index_project(
        self, files: list[tuple[str, str]], store=None, rules: list[type[Rule]] | None = None,
        names: set[str] | None = None, seeds: Mapping[str, Iterable[str]] | None = None,
        jobs: int = 1, summaries: Iterable[tuple[str, str, Any]] = (), save: bool = True,
        for_triggers: Mapping[str, list[tuple[str, str]]] | None = None,
        linted: list[tuple[str, str]] | None = None, shared: dict | None = None,
    ) -> ProjectIndex:
        """Facts of the project's files (path, language) for `rules` (default: every enabled
        rule that uses them; with `names`, only those indexers), gathered here once and handed
        to every file's rules. `store`: an IndexStore that keeps summaries across runs;
        `seeds`: indexer name -> first-round words from the files that need its facts;
        `jobs`: processes that may summarize files; `summaries`: (indexer name, content hash,
        summary) the lint made already; `save`: write the store now (else the caller does);
        `for_triggers`: indexer name -> the files its facts are drawn from where they are
        gathered only for their trigger words (no linted file needs them itself; those of
        its `trigger_indexer` where it has one); `linted`: the files those words are then
        looked for in (`ProjectIndex.linted`); `shared`: summaries made by the run's other
        groups of the same settings (`Project.summaries`)."""
        linter = self.linter
        rules = self.linter.indexing_rules() if rules is None else rules
        indexers = {indexer.name: indexer for rule in rules for indexer in rule.indexers()
                    if names is None or indexer.name in names}
        for_triggers = dict(for_triggers or {})
        for name in list(for_triggers):  # a cheaper indexer gives the same trigger words
            cheaper = indexers[name].trigger_indexer if name in indexers else None
            if cheaper is not None:
                del indexers[name]
                indexers[cheaper.name] = cheaper
                for_triggers[cheaper.name] = for_triggers.pop(name)
        index = ProjectIndex(files, linter.settings, linter.parse_for_index, store,
                             linter.file_bytes, jobs,
                             linter.cache.run_stats if linter.cache else None, for_triggers,
                             linted, shared)
        if self.last_index is not None:
            index.hashed_as(self.last_index)
        self.last_index = index
        known = {indexer.name: indexer for indexer in summarized(indexers.values())}
        for name, digest, summary in summaries:
            if name in known:
                index.add(known[name], digest, summary)
        self.linter.index_trees, self.linter.index_c_trees = {}, {}
        try:
            for indexer in sorted(indexers.values(), key=lambda indexer:  # (stable)
                                  not indexers.keys().isdisjoint(indexer.after)):  # `after`: last
                gathered = indexer not in indexer.summarizers  # through others' summaries
                linter.project[indexer.name] = index.gathered[indexer.name] = (
                    indexer.facts_from(index) if gathered
                    else index.facts(indexer, (seeds or {}).get(indexer.name, ())))
        finally:
            self.linter.index_trees, self.linter.index_c_trees = None, {}
        if store and save:
            store.save()
        self.linter.facts_changed()
        return index

    def run(self, files: list[tuple[str, str]], jobs: int, results: list[FileResult],
            project: Project, summaries: list[tuple[str, str, Any]]) -> None:
        """`_gather_and_lint_again`, then each error of the facts' gathering reported."""
        errors = self._gather_and_lint_again(files, jobs, results, project, summaries)
        reported.report_fact_errors(results, errors + self.linter.fact_errors,
                                    self.linter.show_traceback)
        self.linter.fact_errors = []

    def _gather_and_lint_again(self, files: list[tuple[str, str]], jobs: int,
                               results: list[FileResult], project: Project,
                               summaries: list[tuple[str, str, Any]]) -> list[FactError]:
        """Gather the facts the results say they need (and, for their trigger words, those of
        rules whose facts add triggers), from the `summaries` the lint made and from the files
        it did not parse, then lint again the files whose findings the facts found can change
        (`Indexer.affects`), those whose rules wait for the facts (`FileResult.deferred`), and
        those naming words the facts made triggers (with those facts gathered whole)."""
        linter = self.linter
        needed = {name for result in results for name in result.needs}
        if project.linted_all:  # the results say what is wanted: only its readers imported
            wanted = needed | {name for result in results for name in result.trigger_facts}
            using = linter.indexing_rules(reading=wanted) if wanted else []
        else:
            rules = linter.indexing_rules()
            needed.update(rule.indexer.name for rule in rules if rule.fact_gated and any(
                language in rule.indexer.languages and holds_any(path, rule.fact_gated)
                for path, language in files))  # (a file the facts alone can say a rule fires on)
            wanted = needed | {name for result in results for name in result.trigger_facts}
            languages = {language for _, language in files}  # (for the linted files' languages)
            wanted.update(rule.indexer.name for rule in rules if adds_triggers(rule)
                          and languages.intersection(rule.indexer.languages))
            using = [rule for rule in rules if any(ix.name in wanted for ix in rule.indexers())]
        if not using:
            return []
        seeds: dict[str, set[str]] = {}
        for result in results:
            for name, words in result.seeds.items():
                seeds.setdefault(name, set()).update(words)
        near = project.near_files
        # what no linted file needs itself is gathered for its trigger words alone
        if near is None or project.linted_all:
            sources = project.list_files
            for_triggers = {name: sources() for name in wanted - needed}
        else:
            sources = project.list_files if needed else near
            for_triggers = {name: near() for name in wanted - needed}
        index = self.index_project(sources(), project.store, using, wanted, seeds, jobs,
                                   summaries, save=False, for_triggers=for_triggers,
                                   linted=files, shared=project.summaries)
        errors, linter.fact_passes = index.errors, index.passes
        found = {name for name, facts in linter.project.items() if facts}
        asked = {i for i, result in enumerate(results) if found.intersection(result.needs)}
        words = {rule: _trigger_words(rule, linter.project)
                 for rule in using if adds_triggers(rule)}

        def names_words(i: int, rules: Iterable[type[Rule]] = words) -> bool:
            path, language = files[i]
            return names_any(path, [word for rule in rules if language in rule.indexer.languages
                                    for word in words[rule]])

        named = {i for i in range(len(files)) if i not in asked and names_words(i)} \
            if any(words.values()) else set()
        late = self._late_seeds([files[i] for i in sorted(named)], using)
        cheaper = any(name not in linter.project for name in for_triggers)  # (its words only)
        whole = bool(named and for_triggers) and (  # files named that had them whole before
            cheaper or project.linted_all or any(results[i].trigger_facts for i in named))
        if whole:  # the facts of the rules whose words they name, whole; the others' words
            naming = {indexer.name for rule in words if any(names_words(i, (rule,)) for i in named)
                      for indexer in rule.indexers()}
            sources = project.list_files
            for_triggers = {name: drawn for name, drawn in for_triggers.items()
                            if name not in naming}
            late = {name: added for name, added in late.items() if name not in for_triggers}
        languages = {files[i][1] for i in named}  # their rules read more than the words' facts
        read_too = {indexer.name for rule in using if adds_triggers(rule)
                    and languages.intersection(rule.languages)
                    for indexer in rule.indexers()} - wanted
        wanted |= read_too
        if whole or read_too or \
                any(not added <= seeds.get(name, set()) for name, added in late.items()):
            for name, added in late.items():  # what a file named by the facts calls
                seeds.setdefault(name, set()).update(added)
            index = self.index_project(sources(), project.store, using, wanted, seeds, jobs,
                                       [*summaries, *index.made()], save=False,
                                       for_triggers=for_triggers, shared=project.summaries)
            errors, linter.fact_passes = index.errors, index.passes
        indexers = {indexer.name: indexer for rule in using for indexer in rule.indexers()}
        deferred = {i for i, result in enumerate(results) if result.deferred}
        linter.facts_key, linter.modules = facts_digest(linter.project, index) if linter.cache \
            else (None, {})
        if project.store:
            project.store.save()
        cached = {}
        for i in (asked | named | deferred) if linter.cache else ():
            result = linter.cache.lookup(files[i][0], linter.facts_key)
            if result is not None and linter.cites_the_same(result):
                cached[i] = results[i] = result
        affecting = {i: self._affecting(files[i][0], results[i], found, indexers)
                     for i in asked - cached.keys()}
        again = named | deferred | {
            i for i, names in affecting.items() if names or names_words(i)}
        for i in asked - again - cached.keys() if linter.cache else ():
            linter.cache.same_with(files[i][0], linter.facts_key)  # the facts change nothing
        order = sorted(again - cached.keys())
        if not order:
            return errors
        if linter.facts_key is None:  # (no cache: the key only marks the facts gathered)
            linter.facts_key = NOT_STORED
        relinted = linter.stored_with_facts([files[i][0] for i in order])
        linter.again_only = self._rules_again(
            [i for i in order if files[i][0] not in relinted and i in asked
             and i not in named and i not in deferred and not names_words(i)],
            files, affecting, using)
        try:
            relinted.update(linter.lint_again_in_workers(
                {files[i][0] for i in order} - relinted.keys()))
            rest = [i for i in order if files[i][0] not in relinted]
            for i, result in zip(rest, linter.lint_files([files[i] for i in rest], jobs,
                                                              scheduler.AGAIN_PARALLEL_MIN_BYTES)):
                relinted[files[i][0]] = result
        finally:
            again_only, linter.again_only = linter.again_only, {}
        for i in order:
            result = relinted[files[i][0]]
            first = results[i]  # what --fix wrote, and internal errors, stay told
            if files[i][0] in again_only:  # the findings of the rules not run again
                only = again_only[files[i][0]]
                kept = [finding for finding in first.findings
                        if finding.code in linter.rules and finding.code not in only]
                result.findings = sorted([*result.findings, *kept],
                                         key=lambda finding: finding.sort_key)
                result.lines.update((number, first.lines[number]) for finding in kept
                                    for number in finding.cited_lines if number in first.lines)
            linter.store(result, linter.facts_key)
            result.fixed += first.fixed
            result.notes[:0] = first.notes
            result.findings += [finding for finding in first.findings if finding.code ==
                                notices.InternalError.code and finding not in result.findings]
            result.findings.sort(key=lambda finding: finding.sort_key)
            result.write_failed = result.write_failed or first.write_failed
            results[i] = result
        return errors

    def _rules_again(self, again: list[int], files: list[tuple[str, str]],
                     affecting: Mapping[int, set[str]],
                     using: list[type[Rule]]) -> dict[str, frozenset[str]]:
        """Path -> the codes of the rules to run again with the facts, for the files of
        `again` (linted again only because facts they asked for can change their findings:
        `affecting`, the indexers whose facts can): the rules reading those facts
        (`Rule.indexers`). The others' findings cannot change (a rule reads no facts but its
        indexers', and facts that reach nothing the file reads answer as none did), so the
        first lint's stand: running every rule again cost the stdlib worst case a third of
        its time. Not with --fix, unused-suppression warnings (which need every finding of
        the file) or tracebacks shown: all the rules run."""
        linter = self.linter
        if linter.fix or linter.warn_unused or linter.show_traceback:
            return {}
        only = {}
        for i in again:
            only[files[i][0]] = frozenset(
                rule.code for rule in using
                if any(indexer.name in affecting[i] for indexer in rule.indexers()))
        return only

    def _affecting(self, path: str, result: FileResult, found: set[str],
                   indexers: Mapping[str, Any]) -> set[str]:
        """The indexers whose facts gathered for the file (`found`: those that found some)
        can change its findings: its lint asked for them, and they reach what it reads them
        through."""
        return {name for name in found.intersection(result.needs)
                if (lookups := result.lookups.get(name)) is None
                or indexers[name].affects(self.linter.project[name], path, lookups)}

    def _late_seeds(self, files: list[tuple[str, str]],
                    rules: list[type[Rule]]) -> dict[str, set[str]]:
        """The first-round words of files the first lint had no reason to parse, found to
        name a word the facts made a trigger (a call of another module's capturing function):
        what they take from the project's other modules joins the index."""
        seeds: dict[str, set[str]] = {}
        indexers = {indexer.name: indexer for rule in rules for indexer in rule.indexers()}
        for path, language in files:
            try:
                source = Source.from_bytes(path, read_bytes(path), language)
            except SourceError:
                continue
            context = self.linter.parse_for_index(source)
            if context is None:
                continue
            for name, indexer in indexers.items():
                if language in indexer.languages:
                    seeds.setdefault(name, set()).update(
                        seeds_of(indexer, context, self.linter.fact_errors))
            context.release()
        return seeds


def _trigger_words(rule: type[Rule], project: Mapping[str, Any]) -> tuple[str, ...]:
    """The words the run's facts make triggers of `rule`: from its indexer's facts, or where
    only its `trigger_indexer`'s were gathered, from those."""
    indexer = rule.indexer
    if indexer.name in project:
        return rule.project_trigger_words(project[indexer.name])
    cheaper = indexer.trigger_indexer
    if cheaper is not None and cheaper.name in project:
        return tuple(sorted(cheaper.trigger_words(project[cheaper.name])))
    return ()


def holds_any(path: str, triggers: tuple[Trigger, ...]) -> bool:
    """Whether the file's bytes hold one of `triggers` (a tuple: all of its words; inside a
    longer name too, as the prefilter finds them)."""
    try:
        data = read_bytes(path)
    except SourceError:
        return False
    return any(all(word.encode() in data for word in words)
               for words in trigger_alternatives(triggers))


def names_any(path: str, words: list[str]) -> bool:
    """Whether the file holds one of `words` as a whole name."""
    if not words:
        return False
    try:
        data = read_bytes(path)
    except SourceError:
        return False
    encoded = [word.encode() for word in words]
    if not any(word in data for word in encoded):
        return False
    if all(map(_IDENTIFIER.fullmatch, encoded)):  # (the pattern below is tried at every byte)
        return WholeWords(sorted(set(encoded))).search(data) is not None
    pattern = re.compile(rb"(?<![A-Za-z0-9_])(?:" + b"|".join(map(re.escape, encoded)) + rb")(?![A-Za-z0-9_])")
    return pattern.search(data) is not None


_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
