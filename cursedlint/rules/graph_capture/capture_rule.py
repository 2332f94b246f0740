"""The base of the CUR4xx rules: their second look and the project index they read."""

from __future__ import annotations

from cursedlint.analysis.c_thread_reach import C_THREAD_REACH
from cursedlint.analysis.cuda_reach import CUDA_REACH
from cursedlint.rule import Rule


class CaptureRule(Rule):
    """Base of the CUR4xx rules: their second look and the project index they read."""

    @classmethod
    def look(cls, options, target_python, language):
        """In Python every finding needs a capture region: one of the words that begin one,
        or torch.cuda.graph called by its own name (`torch.cuda.graph(`, not
        `allow_in_graph(`) or by a name it is imported `as`."""
        from cursedlint.analysis.capture_regions import GRAPH_NAMES, REGION_WORDS
        from cursedlint.triggers.second_look import AnyOf, Call, Text

        if language != "python":
            return None
        return AnyOf((Text(REGION_WORDS), Call(GRAPH_NAMES)))

    indexer = CUDA_REACH
    reads_facts_of = (C_THREAD_REACH,)
