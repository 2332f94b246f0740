"""The result cache: reused only while nothing that decides a result has changed."""

from __future__ import annotations

import os

import pytest

from cursedlint import engine, source
from cursedlint.project.cache import CACHE_DIR, MAX_STORES, ResultCache, fingerprint
from cursedlint.cli import main

FORKING = """\
import os
import subprocess


def sync(bucket):
    subprocess.run(["s5cmd", "sync", bucket, "/ckpt"], preexec_fn=os.setpgrp)
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no configuration: the cache goes to the working directory
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "sync.py").write_text(FORKING)
    (tmp_path / "src" / "clean.py").write_text("import json\n")
    return tmp_path


def check(capsys, *args: str) -> tuple[int, str]:
    code = main(["check", "src", *args])
    return code, capsys.readouterr().out


def count_lints(monkeypatch) -> list[str]:
    linted: list[str] = []
    real = engine.Linter.lint_bytes

    def counting(self, path, data, language):
        linted.append(os.path.basename(path))
        return real(self, path, data, language)

    monkeypatch.setattr(engine.Linter, "lint_bytes", counting)
    return linted


def test_a_warm_run_reuses_every_result_and_prints_the_same(project, capsys, monkeypatch):
    first = check(capsys)
    assert first[0] == 1 and "CUR101" in first[1]
    linted = count_lints(monkeypatch)
    assert check(capsys) == first
    assert linted == []
    assert (project / CACHE_DIR / ".gitignore").read_text().splitlines()[-1] == "*"


def test_a_changed_file_is_linted_again_and_only_it(project, capsys, monkeypatch):
    check(capsys)
    linted = count_lints(monkeypatch)
    (project / "src" / "sync.py").write_text(FORKING.replace("preexec_fn=os.setpgrp", "cwd='/'"))
    code, out = check(capsys)
    assert linted == ["sync.py"]
    assert code == 0 and "All checks passed!" in out


@pytest.mark.parametrize("change", [["--select", "CUR2"], ["--target-python", "3.8"],
                                    ["--warn-unused-suppressions"]])
def test_other_settings_miss_the_cache(project, capsys, monkeypatch, change):
    check(capsys)
    linted = count_lints(monkeypatch)
    check(capsys, *change)
    assert sorted(linted) == ["clean.py", "sync.py"]


def test_no_cache_neither_reads_nor_writes(project, capsys, monkeypatch):
    linted = count_lints(monkeypatch)
    check(capsys, "--no-cache")
    check(capsys, "--no-cache")
    assert len(linted) == 4
    assert not (project / CACHE_DIR).exists()


class Planted:
    """A pickle that runs a command when loaded, as a pull request could commit one."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def store_file(payload: bytes) -> bytes:
    """A store's bytes as this version writes them: its header (format, checksum), then the
    payload (MessagePack)."""
    from cursedlint.project.cache import _header

    return _header(payload) + payload


def damaged_stores(marker) -> dict[str, bytes]:
    import pickle

    from cursedlint.project.cache import STORE_FORMAT, encode

    valid = store_file(encode(({}, {}, 0)))
    return {
        "pickle running a command": pickle.dumps(Planted(marker)),
        "pickled int": pickle.dumps(1),
        "random bytes": bytes(range(256)) * 4,
        "empty": b"",
        "truncated": valid[:-1],
        "another format": (STORE_FORMAT + 1).to_bytes(4, "little") + valid[4:],
        "the format of 0.2.2, without a checksum": encode((1, ({}, {}, 0))),
        "wrong shape": store_file(encode(({"key": (0, "not a result")}, {}, 0))),
        "wrong stat": store_file(encode(({}, {"/x.py": ((1, 2), "key")}, 0))),
        "deep nesting": store_file(b"\x91" * 100_000),
    }


@pytest.mark.parametrize("kind", sorted(damaged_stores("")))
def test_a_damaged_or_planted_store_is_empty(project, capsys, monkeypatch, kind):
    """Whatever a committed or damaged store holds, it runs nothing and the run's output
    is that of a run without the cache."""
    uncached = check(capsys, "--no-cache")
    first = check(capsys)
    assert first == uncached
    marker = project / "planted-store-ran"
    stores = list((project / CACHE_DIR).glob("*.msgpack"))
    assert stores
    for store in stores:
        store.write_bytes(damaged_stores(marker)[kind])
    linted = count_lints(monkeypatch)
    assert check(capsys) == uncached
    assert sorted(linted) == ["clean.py", "sync.py"]
    assert not marker.exists()


def test_a_planted_pickle_store_of_an_earlier_version_is_never_loaded(project, capsys):
    import pickle

    marker = project / "planted-store-ran"
    (project / CACHE_DIR).mkdir()
    for name in ("0" * 32, "index-" + "0" * 32):
        (project / CACHE_DIR / f"{name}.pickle").write_bytes(pickle.dumps(Planted(marker)))
    uncached = check(capsys, "--no-cache")
    assert check(capsys) == uncached and check(capsys) == uncached
    assert not marker.exists()
    assert not list((project / CACHE_DIR).glob("*.pickle")), "old pickle stores are removed"


def test_parallel_workers_share_the_cache(project, capsys, monkeypatch):
    monkeypatch.setattr(engine.scheduler, "PARALLEL_MIN_BYTES", 0)
    for index in range(40):
        padding = "# pad\n" * (index * 37 % 200)  # uneven sizes: chunks by bytes, not by count
        (project / "src" / f"job_{index:02}.py").write_text(padding + (FORKING if index % 2 else "x = 1\n"))
    cold = check(capsys, "--jobs", "2")
    assert check(capsys, "--jobs", "2") == cold
    assert check(capsys, "--jobs", "1") == cold


def test_fix_runs_bypass_the_cache(project, capsys):
    check(capsys, "--fix")
    assert not (project / CACHE_DIR).exists()


def test_clean_removes_the_cache(project, capsys):
    check(capsys)
    assert main(["clean"]) == 0
    assert not (project / CACHE_DIR).exists()
    assert main(["clean"]) == 0 and "no cache" in capsys.readouterr().err


def test_the_store_keeps_the_most_recent_entries(tmp_path):
    cache = ResultCache(str(tmp_path), fingerprint("bound"), str, max_entries=3)
    cache.put("old", "first run")
    cache.save()
    cache = ResultCache(str(tmp_path), fingerprint("bound"), str, max_entries=3)
    for key in ("a", "b", "c"):
        cache.put(key, key)
    cache.save()
    reloaded = ResultCache(str(tmp_path), fingerprint("bound"), str, max_entries=3)
    assert sorted(reloaded.entries) == ["a", "b", "c"]


def test_a_stored_result_of_another_type_is_not_used(tmp_path):
    """Results stay encoded until asked for, then are checked against the result type: one
    of another shape is not used (its file is linted again) and is dropped."""
    cache = ResultCache(str(tmp_path), fingerprint("shape"), int)
    cache.put("count", 3)
    cache.save()
    reloaded = ResultCache(str(tmp_path), fingerprint("shape"), str)
    assert reloaded.get("count") is None
    assert "count" not in reloaded.entries
    assert ResultCache(str(tmp_path), fingerprint("shape"), int).get("count") == 3

def test_only_the_newest_stores_are_kept(tmp_path):
    for index in range(MAX_STORES + 3):
        cache = ResultCache(str(tmp_path), fingerprint("store", index), int)
        cache.put("k", index)
        cache.save()
        os.utime(cache.path, (index, index))
    assert len(list((tmp_path / CACHE_DIR).glob("*.msgpack"))) == MAX_STORES


def test_an_unchanged_store_is_not_rewritten(tmp_path):
    cache = ResultCache(str(tmp_path), fingerprint("quiet"), int)
    cache.put("k", 1)
    cache.save()
    os.utime(cache.path, (1, 1))
    again = ResultCache(str(tmp_path), fingerprint("quiet"), int)
    assert again.get("k") == 1
    again.save()
    assert os.path.getmtime(again.path) == 1


def test_fingerprint_is_stable_and_covers_its_parts():
    assert fingerprint(["CUR101"], (3, 11)) == fingerprint(["CUR101"], (3, 11))
    assert fingerprint(["CUR101"], (3, 11)) != fingerprint(["CUR101"], (3, 12))


def age(project, seconds: float = 3600) -> None:
    """Set every source file's mtime in the past, beyond the window where stat is not trusted."""
    for path in (project / "src").iterdir():
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - int(seconds * 1e9)))


def count_paths(monkeypatch, *places) -> list[str]:
    """The base names of the paths given to the function at `places` ((module, name) pairs,
    all holding the same function)."""
    paths: list[str] = []
    real = getattr(*places[0])

    def counting(path):
        paths.append(os.path.basename(path))
        return real(path)

    for module, name in places:
        monkeypatch.setattr(module, name, counting)
    return paths


def count_reads(monkeypatch) -> list[str]:
    return count_paths(monkeypatch, (source, "read_bytes"))


def test_a_warm_run_does_not_read_files_whose_stat_is_unchanged(project, capsys, monkeypatch):
    age(project)
    first = check(capsys)
    read = count_reads(monkeypatch)
    assert check(capsys) == first
    assert read == []


def test_a_same_size_change_with_a_new_mtime_is_linted_again(project, capsys, monkeypatch):
    age(project)
    check(capsys)
    linted = count_lints(monkeypatch)
    path = project / "src" / "sync.py"
    path.write_text(FORKING.replace("preexec_fn=os.setpgrp", "preexec_fn=os.setpgid"))
    assert path.stat().st_size == len(FORKING)
    code, out = check(capsys)
    assert linted == ["sync.py"] and code == 1


def test_recently_modified_files_are_hashed_not_trusted_by_stat(project, capsys, monkeypatch):
    first = check(capsys)  # files written just now: their stat is not stored
    read, linted = count_reads(monkeypatch), count_lints(monkeypatch)
    assert check(capsys) == first
    assert sorted(read) == ["clean.py", "sync.py"] and linted == []


def test_a_file_name_that_is_not_utf8_is_linted_every_time(tmp_path, capsys, monkeypatch):
    """Its path holds surrogate escapes, which a store cannot hold: its result is not stored,
    the other files' results are, and the output is the same every run."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    os.makedirs(b"src", exist_ok=True)
    with open(os.path.join(b"src", b"\xffsync.py"), "w") as handle:
        handle.write(FORKING)
    (tmp_path / "src" / "clean.py").write_text("import json\n")
    first = check(capsys)
    assert first[0] == 1 and "\\xffsync.py" in first[1]
    linted = count_lints(monkeypatch)
    assert check(capsys) == first
    assert [os.fsencode(name) for name in linted] == [b"\xffsync.py"]


def test_a_result_the_facts_cannot_change_stands_for_them_after_one_run(tmp_path):
    """`same_with`: the result without facts is found under the facts' digest too, so a warm
    run need not ask again whether they could change it."""
    from cursedlint.project.cache import ResultCache, file_stat
    from cursedlint.engine import FileResult

    path = tmp_path / "train.py"
    path.write_text("import os\n")
    cache = ResultCache(str(tmp_path), "run", FileResult)
    data = path.read_bytes()
    cache.put(cache.key(str(path), data), FileResult(str(path)), file_stat(str(path)))
    assert cache.lookup(str(path), "digest") is None
    cache.same_with(str(path), "digest")
    assert cache.lookup(str(path), "digest") == cache.lookup(str(path))
    path.write_text("import sys\n")  # a changed file: neither result stands
    assert cache.lookup(str(path), "digest") is None


@pytest.mark.parametrize("path", ["./pkg/mod.py", "pkg/mod.py", "mod.py", "pkg/./mod.py",
                                  "../mod.py", ".", "./", "pkg//mod.py", "pkg/", ".hidden/mod.py",
                                  "pkg/..mod.py", "/abs/pkg/mod.py", "/abs/./mod.py",
                                  "/abs/../mod.py", "//abs/mod.py", "/abs/pkg/", "/", "/.x/m.py"])
@pytest.mark.parametrize("directory", ["/", "nested"])
def test_absolute_is_abspath(tmp_path, monkeypatch, path, directory):
    from cursedlint.project.cache import absolute

    (tmp_path / "nested").mkdir()
    monkeypatch.chdir("/" if directory == "/" else tmp_path / directory)
    assert absolute(path) == os.path.abspath(path)


def test_a_warm_run_takes_each_files_stat_once(tmp_path, capsys, monkeypatch):
    """The result cache and the project index ask about the same files: one stat each."""
    from cursedlint.project import cache, index as project_index

    monkeypatch.chdir(tmp_path)
    (tmp_path / "cursedlint.toml").write_text("")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "__init__.py").write_text("")
    (tmp_path / "src" / "health.py").write_text(
        "def to_host(loss):\n    return loss.item()\n")
    (tmp_path / "src" / "step.py").write_text(
        "import torch\n\nfrom src import health\n\n\ndef capture(model, batch):\n"
        "    graph = torch.cuda.CUDAGraph()\n    with torch.cuda.graph(graph):\n"
        "        health.to_host(model(batch))\n    return graph\n")
    age(tmp_path)
    first = main(["check", "."]), capsys.readouterr().out
    assert "CUR402" in first[1]
    stats = count_paths(monkeypatch, (cache, "file_stat"), (project_index, "file_stat"))
    assert (main(["check", "."]), capsys.readouterr().out) == first
    assert sorted(stats) == ["__init__.py", "health.py", "step.py"]


def test_a_store_is_written_through_a_new_private_file_never_an_existing_one(tmp_path,
                                                                           monkeypatch):
    from cursedlint.project import cache

    monkeypatch.setattr(cache.time, "time_ns", lambda: 7)
    top = tmp_path / CACHE_DIR
    top.mkdir()
    target = tmp_path / "victim.txt"
    target.write_text("keep")
    (top / f".tmp-{os.getpid()}-7-0").symlink_to(target)  # a planted link at the first name
    stored = ResultCache(str(tmp_path), fingerprint("private"), int)
    stored.put("answer", 42)
    stored.save()
    assert target.read_text() == "keep"
    assert ResultCache(str(tmp_path), fingerprint("private"), int).get("answer") == 42
    assert os.stat(stored.path).st_mode & 0o777 == 0o600
    assert sorted(name for name in os.listdir(top) if name.startswith(".tmp-")) \
        == [f".tmp-{os.getpid()}-7-0"]  # only the planted one: the store's was renamed


def test_files_whose_results_with_the_facts_are_stored_are_not_linted_again(
        tmp_path, capsys, monkeypatch):
    """Files recently touched (their stat is not trusted) but unchanged: their results with
    the run's facts are found by their bytes, in the parent, without forking to lint them."""
    from cursedlint.engine import forked

    monkeypatch.chdir(tmp_path)
    (tmp_path / "cursedlint.toml").write_text("")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "__init__.py").write_text("")
    (tmp_path / "src" / "health.py").write_text("def to_host(loss):\n    return loss.item()\n")
    padding = "# " + "x" * 70 + "\n"
    for name in ("step.py", "eval_step.py"):
        (tmp_path / "src" / name).write_text(
            "import torch\n\nfrom src import health\n\n\ndef capture(model, batch):\n"
            "    graph = torch.cuda.CUDAGraph()\n    with torch.cuda.graph(graph):\n"
            "        health.to_host(model(batch))\n    return graph\n" + padding * 600)
    age(tmp_path)
    first = main(["check", "."]), capsys.readouterr().out
    assert "Found 2 problems" in first[1]
    for name in ("step.py", "eval_step.py"):
        os.utime(tmp_path / "src" / name)  # now: not trusted by stat, the bytes unchanged
    linted = count_lints(monkeypatch)
    monkeypatch.setattr(forked, "forked_map", lambda *args: pytest.fail("forked"))
    monkeypatch.setattr(forked, "Workers", lambda *args, **kwargs: pytest.fail("forked"))
    assert (main(["check", "."]), capsys.readouterr().out) == first
    assert linted == []


def test_a_file_without_trigger_words_is_kept_as_a_mark_not_a_result(project, capsys,
                                                                      monkeypatch):
    """Most of a project's files hold no rule's trigger word: their stat is kept with a mark
    and their result made again from the path, not stored and decoded."""
    from cursedlint.engine import FileResult

    age(project)
    first = check(capsys)
    stores = [name for name in os.listdir(project / CACHE_DIR) if name.endswith(".msgpack")
              and not name.startswith("index-")]
    [store] = stores
    cache = ResultCache(str(project), "x", FileResult, plain=FileResult)
    cache.path = str(project / CACHE_DIR / store)
    cache.entries, cache.stats, cache.run = cache._load()
    clean, sync = (str(project / "src" / name) for name in ("clean.py", "sync.py"))
    assert cache.stats[clean][1] == "" and cache.stats[sync][1] in cache.entries
    assert len(cache.entries) == 1
    linted = count_lints(monkeypatch)
    assert check(capsys) == first and linted == []
    (project / "src" / "clean.py").write_text(FORKING)  # the mark hides no change
    code, out = check(capsys)
    assert linted == ["clean.py"] and code == 1 and "src/clean.py" in out


def test_marks_of_files_not_looked_up_are_dropped_past_the_bound(tmp_path):
    """Marks need no entry, so the entries' bound does not hold them: past twice that bound,
    only the marks of files this run looked up are kept (the others may be gone)."""
    from cursedlint.engine import FileResult

    names = [str(tmp_path / f"m{n}.py") for n in range(6)]
    for name in names:
        with open(name, "w") as handle:
            handle.write("x = 1\n")
    cache = ResultCache(str(tmp_path), fingerprint("marks"), FileResult, max_entries=2,
                        plain=FileResult)
    for name in names[:2]:
        assert cache.lookup(name) is None  # looked up this run, not stored yet
    for name in names:
        cache.put(f"key{name}", FileResult(name), (1, 2, 3, 4))
    assert cache.entries == {} and len(cache.stats) == 6
    cache.save()
    kept = ResultCache(str(tmp_path), fingerprint("marks"), FileResult, max_entries=2,
                       plain=FileResult)
    assert sorted(kept.stats) == names[:2]


def _subpackages() -> list[str]:
    """The directory of every package and subpackage of cursedlint."""
    import cursedlint

    return sorted(directory for directory, _, names in os.walk(os.path.dirname(cursedlint.__file__))
                  if "__init__.py" in names)


@pytest.mark.parametrize("directory", _subpackages(), ids=os.path.basename)
def test_an_edit_to_a_module_of_any_subpackage_misses_the_cache(project, capsys, monkeypatch,
                                                               directory):
    """The code stamp keying the result cache and the index store covers every module of the
    installed package (it covered only the two top folders: an edited `analysis/c_memory.py`
    reused results of the older code)."""
    from cursedlint import cli

    module = sorted(name for name in os.listdir(directory) if name.endswith(".py"))[-1]
    path = os.path.join(directory, module)
    check(capsys)
    linted = count_lints(monkeypatch)
    before = os.stat(path)
    cli._code_stamp.cache_clear()
    try:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
        check(capsys)
    finally:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        cli._code_stamp.cache_clear()
    assert sorted(linted) == ["clean.py", "sync.py"]
