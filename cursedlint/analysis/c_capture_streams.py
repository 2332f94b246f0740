"""The `c-capture-streams` project index: per C/C++ file, the streams its begin-capture calls
name (`c_capture_guards.begins`), for the files whose device-wide synchronizations a capture
status guards (`c_capture_guards.guards`). CUR402 reads it."""

from __future__ import annotations

from cursedlint.languages import C, CPP
from cursedlint.project.index import Indexer


class CaptureStreams(Indexer):
    """Per C/C++ file: (stream as written, line) of its begin-capture calls."""

    name = "c-capture-streams"
    languages = (C, CPP)
    summary_type = tuple[tuple[str, int], ...]
    max_rounds = 0

    def words(self, settings):
        """`c_capture.C_BEGINS` (a checking module: not imported by the declarations)."""
        return ("cuStreamBeginCapture", "cuStreamBeginCapture_v2", "cudaStreamBeginCapture")

    def needed_by(self, context) -> bool:
        from cursedlint.analysis.c_capture_guards import guards

        return next(guards(context), None) is not None

    def summarize(self, context):
        from cursedlint.analysis.c_capture_guards import begins

        return begins(context) or None


CAPTURE_STREAMS = CaptureStreams()
