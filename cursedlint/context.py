"""What every rule of one file shares: the source, the settings, and the findings so far."""

from __future__ import annotations

from typing import Any, Callable

from cursedlint.findings import Finding, Span
from cursedlint.settings import Settings


class FileContext:
    """Base of the per-language contexts; holds the findings the file's rules report."""

    def __init__(self, source, settings: Settings):
        self.source = source
        self.settings = settings
        self.findings: list[Finding] = []
        self.project: dict[str, dict[str, Any]] = {}  # indexer name -> path -> summary
        self.asks_any_fact: set[str] = set()
        """Indexers of which a rule, run without their facts, would have read more than the
        facts the file's `Indexer.lookups` lead to: any of their facts may change its
        findings."""
        self.facts_to_come = False
        """Whether this lint runs before its run gathers facts from other files: the rules
        then ask questions of facts not gathered yet (`python_project.UngatheredFacts`), which
        note the indexers asked in `asked`; only a file that asked needs their facts."""
        self.asked: set[str] = set()
        self._shared: dict[Any, Any] = {}

    def add(self, finding: Finding) -> None:
        self.findings.append(finding)

    def shared(self, key: Any, factory: Callable[[], Any]) -> Any:
        """An analysis several rules of this file need, computed once (by the first to ask)."""
        shared = self._shared
        if key in shared:
            return shared[key]
        made = shared[key] = factory()
        return made

    def release(self) -> None:
        """Let go of what the file's analyses share (each holds the context): with nothing
        left in a cycle, the tree is freed by reference counting once the engine drops the
        context, not by the cyclic collector, which would walk every tree still held."""
        self._shared.clear()

    def span_of(self, node: Any) -> Span:
        raise NotImplementedError


class TextContext(FileContext):
    """A shell script, Dockerfile or YAML file: rules read `source.lines` and report Spans."""

    def span_of(self, node: Span) -> Span:
        return node
