"""The base of the CUR4xx rules: their second look and the project index they read."""

from __future__ import annotations

from cursedlint.analysis.c_thread_reach import C_THREAD_REACH
from cursedlint.analysis.cuda_reach import CUDA_REACH
from cursedlint.rule import Rule


class CaptureRule(Rule):
    """Base of the CUR4xx rules: their second look and the project index they read."""

    @classmethod
    def look(cls, options, target_python, language):
        """In Python every finding needs a capture region: one of the words that begin one;
        torch.cuda.graph called by its own name through the import table (`torch.cuda.graph(`,
        `graph(`, a name it or its module is imported `as`; not `allow_in_graph(` nor
        `self.graph(`); a `CudaGraphModule` only where tensordict, which defines it, is named
        (the region is found by `named`, through the imports)."""
        from cursedlint.analysis.capture_regions import (
            GRAPH_CONTEXTS, GRAPH_MODULES, GRAPH_NAMES, REGION_WORDS,
        )
        from cursedlint.triggers.second_look import (
            AllOf, AnyOf, Call, Text, last_words, module_words,
        )

        if language != "python":
            return None
        modules = last_words(GRAPH_MODULES)
        return AnyOf((
            Text(REGION_WORDS - modules),
            Call(GRAPH_NAMES, modules=module_words(GRAPH_CONTEXTS)),
            AllOf((Text(modules), Text(frozenset(
                name.partition(".")[0].encode() for name in GRAPH_MODULES)))),
        ))

    indexer = CUDA_REACH
    reads_facts_of = (C_THREAD_REACH,)
