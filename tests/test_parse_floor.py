"""The parse floor of `compare.py --ml-trees` (`benchmarks/parse_floor.py`): a run's listing
names every file it checked and exactly the files it parsed, and the floor reads them."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

FLOOR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks",
                     "parse_floor.py")


def _module():
    spec = importlib.util.spec_from_file_location("benchmark_parse_floor", FLOOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_listing_names_the_files_checked_and_those_parsed(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "plain.py").write_text('"""Nothing to see."""\nVALUE = 1\n')
    (project / "spawns.py").write_text(
        "import subprocess\n\n\ndef setup():\n    pass\n\n\n"
        "def run(argv):\n    return subprocess.Popen(argv, preexec_fn=setup)\n")
    (project / "notes.txt").write_text("not linted\n")
    listing = tmp_path / "listing.json"

    _module().record(str(project), str(listing))

    files = json.loads(listing.read_text())
    assert files["checked"] == sorted(str(project / name) for name in ("plain.py", "spawns.py"))
    assert files["parsed"] == [str(project / "spawns.py")]  # the file with a trigger word
    done = subprocess.run([sys.executable, FLOOR, "floor", str(listing)], capture_output=True,
                          text=True, check=True)
    assert "2 files read and hashed, 1 parsed" in done.stderr


def test_cython_files_read_are_translated_and_a_link_to_nothing_is_passed_over(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "stream.pyx").write_text(
        "cdef class Stream:\n    cdef size_t ptr\n\n"
        "    def add_callback(self, f):\n        runtime.launchHostFunc(self.ptr, f, 0)\n")
    (project / "quiet.pyx").write_text("cdef int twice(int x):\n    return 2 * x\n")
    (project / "vendored.h").symlink_to(project / "missing" / "vendored.h")
    listing = tmp_path / "listing.json"

    _module().record(str(project), str(listing))

    files = json.loads(listing.read_text())
    assert files["translated"] == [str(project / "stream.pyx")]  # its trigger word
    assert files["parsed"] == []
    assert str(project / "vendored.h") in files["checked"]
    done = subprocess.run([sys.executable, FLOOR, "floor", str(listing)], capture_output=True,
                          text=True, check=True)
    assert "1 Cython files translated and parsed" in done.stderr


def test_recording_leaves_the_linter_as_it_was(tmp_path):
    import cursedlint.engine.file_lint as file_lint
    from cursedlint.source import Source

    import cursedlint.python.cython as cython

    before = (Source.__dict__["from_bytes"], file_lint.parse_python, cython.parse_cython)
    (tmp_path / "a.py").write_text("x = 1\n")
    _module().record(str(tmp_path), str(tmp_path / "listing.json"))
    assert (Source.__dict__["from_bytes"], file_lint.parse_python, cython.parse_cython) == before
