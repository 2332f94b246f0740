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
        """None: the files are searched only from a linted file that needs the facts
        (`seed_words`), not asked of every file a run parses."""
        return ()

    def seed_words(self, context):
        """The begin-capture calls (`c_capture.C_BEGINS`)."""
        from cursedlint.analysis.c_capture import C_BEGINS

        return C_BEGINS

    def needed_by(self, context) -> bool:
        from cursedlint.analysis.c_capture_guards import guards

        return bool(guards(context))

    def summarize(self, context):
        from cursedlint.analysis.c_capture_guards import begins

        return begins(context) or None


CAPTURE_STREAMS = CaptureStreams()
