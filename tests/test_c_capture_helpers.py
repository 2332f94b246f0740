"""The capture helpers of `analysis.c_capture_helpers`: which functions open or close a capture
for their callers, and which regions the callers' blocks make with them."""

from __future__ import annotations

import textwrap

from cursedlint.analysis.c_capture_helpers import (
    MEMBER_STREAM, helper_regions, helpers, region_statements,
)
from cursedlint.analysis.c_thread_reach import thread_facts
from cursedlint.c.context import CContext, parse
from cursedlint.settings import Settings
from cursedlint.source import Source


def context_of(code: str, path: str = "a.cu") -> CContext:
    data = textwrap.dedent(code).encode()
    return CContext(Source.from_bytes(path, data, "cpp"), Settings(enabled=frozenset()),
                    parse(data, "cpp"))


GRAPHS = """
    struct recorder {
        void open(cudaStream_t s) { cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal); }
        void close(cudaStream_t s) { cudaStreamEndCapture(s, &graph); }
        void open_own() { cudaStreamBeginCapture(stream_.value(), cudaStreamCaptureModeRelaxed); }
        void close_own() { cudaStreamEndCapture(stream_.value(), &graph); }
        cudaGraph_t graph;
    };
    cudaGraph_t whole(cudaStream_t s) {
        cudaGraph_t g;
        cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
        cudaStreamEndCapture(s, &g);
        return g;
    }
    void begin_on(int device, cudaStream_t stream) {
        cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
    }
    void either(cudaStream_t a, cudaStream_t b, bool first) {
        if (first) cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal);
        else cudaStreamBeginCapture(b, cudaStreamCaptureModeGlobal);
    }
"""


def test_which_functions_open_or_close_a_capture():
    found = {helper.name: (helper.opens, helper.stream, helper.mode)
             for helper in helpers(context_of(GRAPHS))}
    assert found == {
        "open": (True, 0, "cudaStreamCaptureModeGlobal"),
        "close": (False, 0, ""),
        "open_own": (True, MEMBER_STREAM, "cudaStreamCaptureModeRelaxed"),
        "close_own": (False, MEMBER_STREAM, ""),
        "begin_on": (True, 1, "cudaStreamCaptureModeThreadLocal"),
    }  # `whole` ends its own capture; `either` begins on two parameters: neither is a helper


def regions(caller: str) -> list[list[str]]:
    facts = {"graphs.h": thread_facts(context_of(GRAPHS, "graphs.h"))}
    context = context_of(caller)
    return [[context.text(statement).strip() for statement in region.statements]
            for region in helper_regions(context, facts)]


def test_regions_end_where_the_same_capture_ends():
    assert regions("""
        void step(recorder &r, recorder &q, cudaStream_t s, cudaStream_t t) {
            r.open(s);
            fill(s);
            r.close(s);
            q.open_own();
            drain(t);
            q.close_own();
            begin_on(0, t);
            wait(t);
            cudaStreamEndCapture(t, &g);
            after(t);
        }
    """) == [["fill(s);"], ["drain(t);"], ["wait(t);"]]


def test_no_region_without_the_same_capture_ending():
    assert regions("""
        void step(recorder &r, recorder &q, cudaStream_t s, cudaStream_t t) {
            r.open(s);
            fill(s);
            r.close(t);
            q.open_own();
            drain(t);
            r.close_own();
            begin_on(0, t);
            wait(t);
        }
    """) == []


def test_what_may_be_a_helper_region_before_the_helpers_are_known():
    context = context_of("""
        void step(graph_t &g, cudaStream_t s) {
            g.start_capture(s);
            fill(s);
            g.stop_capture(s);
            cudaStreamGetCaptureInfo(s, &status, &id);
            drain(s);
        }
    """)
    assert [context.text(statement).strip() for statement in region_statements(context)] == [
        "fill(s);", "cudaStreamGetCaptureInfo(s, &status, &id);", "drain(s);",
    ]  # (a superset: after each call that says capture; CUDA's own are neither start nor end)
