"""The project index: rounds of word search and summaries, the on-disk store, the digest."""

from __future__ import annotations

import ast
import os

from cursedlint.engine import Linter
from cursedlint.project.index import IndexStore, Indexer, ProjectIndex, facts_digest
from cursedlint.settings import Settings


class SubclassIndex(Indexer):
    """Classes and their bases, starting from files that mention `Registry`; a file is worth
    parsing in a later round when it names a class already known."""

    name = "subclasses"
    languages = ("python",)
    summary_type = dict[str, list[str]]

    def __init__(self):
        self.parsed: list[str] = []

    def words(self, settings):
        return ("Registry",)

    def more_words(self, facts, settings):
        return {name for classes in facts.values() for name in classes}

    def summarize(self, context):
        self.parsed.append(os.path.basename(context.source.path))
        classes = {
            node.name: [ast.unparse(base) for base in node.bases]
            for node in context.tree.body
            if isinstance(node, ast.ClassDef)
        }
        return classes or None


def make_project(tmp_path):
    files = {
        "registry.py": "class Registry:\n    pass\n",
        "plugin.py": "from registry import Registry\n\nclass Plugin(Registry):\n    pass\n",
        "gpu.py": "from plugin import Plugin\n\nclass GpuPlugin(Plugin):\n    pass\n",
        "unrelated.py": "class Plug:\n    pass\n",  # 'Plug' is not the whole word 'Plugin'
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return [(str(tmp_path / name), "python") for name in sorted(files)]


SETTINGS = Settings(enabled=frozenset())


def index_of(files, store=None) -> ProjectIndex:
    linter = Linter(SETTINGS, {})
    return ProjectIndex(files, SETTINGS, linter.parse_for_index, store)


def test_rounds_follow_new_words_until_none_appear(tmp_path):
    files = make_project(tmp_path)
    indexer = SubclassIndex()
    facts = index_of(files).facts(indexer)
    assert {os.path.basename(path): classes for path, classes in facts.items()} == {
        "registry.py": {"Registry": []},
        "plugin.py": {"Plugin": ["Registry"]},
        "gpu.py": {"GpuPlugin": ["Plugin"]},
    }
    assert sorted(indexer.parsed) == ["gpu.py", "plugin.py", "registry.py"], "each file once"


def test_store_keeps_summaries_across_runs(tmp_path):
    files = make_project(tmp_path)
    directory = str(tmp_path / ".cursedlint_cache")
    cold = IndexStore(directory, "f" * 64)
    index_of(files, cold).facts(SubclassIndex())
    cold.save()
    warm = SubclassIndex()
    index = index_of(files, IndexStore(directory, "f" * 64))
    assert len(index.facts(warm)) == 3
    assert warm.parsed == [] and index.summarized == 0, "unchanged files are not parsed again"
    other = SubclassIndex()
    index_of(files, IndexStore(directory, "0" * 64)).facts(other)
    assert len(other.parsed) == 3, "another fingerprint has its own summaries"


def test_a_part_with_a_bound_of_its_own_keeps_its_newest_entries(tmp_path):
    """A kind of entry that is large (the closure of a pre-commit run's files: a stat per
    file reached) keeps at most its own bound, those used most recently."""
    from cursedlint.project.fact_files import CLOSURES

    directory = str(tmp_path / "cache")
    for run in range(CLOSURES.max_stored + 3):
        store = IndexStore(directory, "c" * 64)
        store.get(CLOSURES, "key-0")  # used again each run
        store.put(CLOSURES, f"key-{run}", ((), False, (), (), ()))
        store.save()
    store = IndexStore(directory, "c" * 64)
    kept = {key for key in (f"key-{run}" for run in range(CLOSURES.max_stored + 3))
            if store.get(CLOSURES, key)[0]}
    assert len(kept) == CLOSURES.max_stored and {"key-0", "key-34"} <= kept
    assert "key-1" not in kept


def test_damaged_store_is_empty(tmp_path):
    directory = tmp_path / "cache"
    directory.mkdir()
    store = IndexStore(str(directory), "a" * 64)
    (directory / os.path.basename(store.path)).write_bytes(b"not a store")
    assert IndexStore(str(directory), "a" * 64).get(SubclassIndex(), "0" * 40) == (False, None)


def test_summaries_of_another_shape_are_not_used(tmp_path):
    """A part whose summaries do not have the indexer's declared type is empty: the files are
    summarized again."""
    files = make_project(tmp_path)
    directory = str(tmp_path / "cache")
    store = IndexStore(directory, "e" * 64)
    index_of(files, store).facts(SubclassIndex())
    for digest in list(store.entries["subclasses"]):
        store.entries["subclasses"][digest] = (0, {"Plugin": 3})  # not a list of bases
    store.save()
    again = SubclassIndex()
    assert len(index_of(files, IndexStore(directory, "e" * 64)).facts(again)) == 3
    assert len(again.parsed) == 3


def test_the_facts_digest_changes_only_with_the_facts(tmp_path):
    """Results linted with facts are reused while the facts are the same: a change to a file
    that holds no fact, or one that leaves its summary as it was, keeps the digest."""
    files = make_project(tmp_path)

    def digest() -> str:
        return facts_digest({"subclasses": index_of(files).facts(SubclassIndex())})

    before = digest()
    (tmp_path / "unrelated.py").write_text("class Plug:\n    x = 1\n")  # never summarized
    assert digest() == before
    (tmp_path / "gpu.py").write_text(  # the same summary
        'from plugin import Plugin\n\nclass GpuPlugin(Plugin):\n    """For GPUs."""\n')
    assert digest() == before
    (tmp_path / "gpu.py").write_text("from plugin import Plugin\n\nclass Gpu(Plugin):\n    pass\n")
    assert digest() != before


def test_linter_saves_the_store_it_was_given(tmp_path):
    from engine_rules import notices_and_test_rules

    rules = notices_and_test_rules()
    (tmp_path / "launcher.py").write_text("import os\n\ndef launch():\n    os.fork()\n")
    files = [(str(tmp_path / "launcher.py"), "python")]
    directory = str(tmp_path / "cache")
    linter = Linter(Settings(enabled=frozenset({"CUR908"})), rules)
    linter.index_project(files, IndexStore(directory, "b" * 64))
    assert os.path.exists(IndexStore(directory, "b" * 64).path)


def test_index_stores_are_ignored_by_git_and_bounded_apart_from_result_stores(tmp_path):
    from cursedlint.project.cache import CACHE_DIR, MAX_STORES, ResultCache

    directory = tmp_path / CACHE_DIR
    index = IndexStore(str(directory), "c" * 64)
    index.put(SubclassIndex(), "0" * 40, {"Plugin": []})
    index.save()
    assert (directory / ".gitignore").read_text().endswith("*\n")
    for number in range(MAX_STORES + 2):
        results = ResultCache(str(tmp_path), f"{number:02d}" * 32, str)
        results.put("key", "result")
        results.save()
    names = sorted(path.name for path in directory.glob("*.msgpack"))
    assert os.path.basename(index.path) in names, "result stores never push an index store out"
    assert len(names) == MAX_STORES + 1


def test_answers_stay_encoded_until_their_question_is_asked(tmp_path):
    """A store keeps the answers of questions other runs asked (other seeds, settings): a run
    decodes only its own questions' answers, and writes the others back as they were."""
    directory = str(tmp_path / "cache")
    store = IndexStore(directory, "f" * 64)
    store.put_answer("search\0subclasses\0True\0Registry", "1" * 40, True)
    store.put_answer("search\0subclasses\0True\0Plugin", "2" * 40, False)
    store.save()
    again = IndexStore(directory, "f" * 64)
    again.put_answer("search\0subclasses\0True\0Registry", "3" * 40, False)
    assert not isinstance(again.answers["search\0subclasses\0True\0Plugin"], dict)
    again.save()
    last = IndexStore(directory, "f" * 64)
    assert last.answers_for("search\0subclasses\0True\0Registry") == {"1" * 40: True,
                                                                       "3" * 40: False}
    assert last.answers_for("search\0subclasses\0True\0Plugin") == {"2" * 40: False}
    assert last.answers_for("never asked") == {}


def test_moved_lines_keep_the_shape_and_change_their_module(tmp_path):
    """Rules decide on the order of a module's lines, not their values: lines moved by an
    edit keep the facts' shape; the digest of the moved module changes, the others' do not."""
    summary = {"line": 4, "calls": ({"line": 6, "name": "report"},), "facts": {"sync": {"line": 7}}}
    moved = {"line": 5, "calls": ({"line": 7, "name": "report"},), "facts": {"sync": {"line": 8}}}
    other = {"line": 1, "calls": (), "facts": {}}
    before = facts_digest({"reach": {"a.py": summary, "b.py": other}})
    after = facts_digest({"reach": {"a.py": moved, "b.py": other}})
    assert after.shape == before.shape
    assert after.modules["a.py"] != before.modules["a.py"]
    assert after.modules["b.py"] == before.modules["b.py"]
    reordered = {"line": 4, "calls": ({"line": 8, "name": "report"},), "facts": {"sync": {"line": 7}}}
    assert facts_digest({"reach": {"a.py": reordered, "b.py": other}}).shape != before.shape


def test_many_words_are_found_alike_by_identifiers_and_by_the_automaton(monkeypatch):
    from cursedlint.project import index as project_index
    from cursedlint.project.index import IDENTIFIER_SEARCHES, _Search

    words = {f"helper_{n}" for n in range(40)} | {"launch", "Stream"}
    monkeypatch.setattr(project_index, "LISTED_WORDS", len(words))  # (so many are listed)
    texts = {
        b"x = launch(1)\n": True,
        b"x = relaunch(1)\n": False,  # part of a longer name
        b"x = launch_all(1)\n": False,
        b"s = cuda.Stream()\n": True,
        b"s = Stream2()\n": False,
        b"\xc3\xa9launch()\n": True,  # a non-ASCII byte ends a name, as for the automaton
        b"# helper_17 is called later\n": True,
        b"helper_1": True,  # at both ends of the file
        b"helper_100 = 1\n": False,
    }
    search = _Search(SubclassIndex(), words, first_round=False)
    by_identifiers = {text: search.holds(text) for text in texts}
    assert search.searched <= IDENTIFIER_SEARCHES
    search.searched = IDENTIFIER_SEARCHES  # every later file goes through the automaton
    by_automaton = {text: search.holds(text) for text in texts}
    assert by_identifiers == by_automaton == texts
    dotted = _Search(SubclassIndex(), words | {"torch.cuda"}, first_round=False)
    assert dotted.holds(b"import torch.cuda\n") and not dotted.holds(b"torch.cudart()\n")


def test_a_round_that_reaches_the_bounds_searches_no_further(tmp_path, monkeypatch):
    from cursedlint.project import index as project_index

    class FirstTwo(SubclassIndex):
        max_files = 2

    files = []
    for n in range(6):
        (tmp_path / f"plugin{n}.py").write_text(f"from registry import Registry\n\n"
                                                f"class Plugin{n}(Registry):\n    pass\n")
        files.append((str(tmp_path / f"plugin{n}.py"), "python"))
    searched = []
    real = project_index._Search.holds
    monkeypatch.setattr(project_index._Search, "holds",
                        lambda self, data: searched.append(data) or real(self, data))
    indexer = FirstTwo()
    facts = index_of(files).facts(indexer)
    assert sorted(map(os.path.basename, facts)) == ["plugin0.py", "plugin1.py"]
    assert len(searched) == 2 and sorted(indexer.parsed) == ["plugin0.py", "plugin1.py"]


def test_each_summarys_digests_are_kept_with_it_across_runs(tmp_path, monkeypatch):
    from cursedlint.project import index as project_index

    (tmp_path / "src").mkdir()
    files = make_project(tmp_path / "src")
    directory = str(tmp_path / "cache")
    worked_out = []
    real = project_index._summary_digests
    monkeypatch.setattr(project_index, "_summary_digests",
                        lambda name, summary: worked_out.append(name) or real(name, summary))

    def digest_of_a_run():
        store = IndexStore(directory, "d" * 64)
        index = index_of(files, store)
        facts = {"subclasses": index.facts(SubclassIndex())}
        digest = facts_digest(facts, index)
        store.save()
        return digest, facts

    first, facts = digest_of_a_run()
    assert len(worked_out) == 3  # one per summary
    again, _ = digest_of_a_run()
    assert again == first and len(worked_out) == 3  # read back from the store
    assert facts_digest(facts) == first  # as worked out without an index


def test_a_fact_kind_is_stored_and_digested_as_its_string(tmp_path):
    """A `CudaFact` kind is a string: a summary made in the run (kinds as members) and the same
    summary read back from the store (kinds as plain strings) are equal and have one digest,
    and the stored one is looked up by the members."""
    from cursedlint.analysis.cuda_facts import CudaFact
    from cursedlint.analysis.cuda_reach import CUDA_REACH
    from cursedlint.analysis.python_project import FunctionSummary, ModuleSummary, Reach

    def summary(kind):
        return ModuleSummary({}, {"record": FunctionSummary(3, {kind: Reach(4, "begins")}, ())})

    made = summary(CudaFact.GLOBAL_CAPTURE)
    directory = str(tmp_path / "cache")
    store = IndexStore(directory, "e" * 64)
    store.put(CUDA_REACH, "1" * 40, made)
    store.save()
    stored, read = IndexStore(directory, "e" * 64).get(CUDA_REACH, "1" * 40)
    assert stored and read == made == summary("global_capture")
    facts = read.functions["record"].facts
    assert [type(kind) for kind in facts] == [str]
    assert facts[CudaFact.GLOBAL_CAPTURE] == Reach(4, "begins")
    assert facts_digest({CUDA_REACH.name: {"a.py": read}}) == \
        facts_digest({CUDA_REACH.name: {"a.py": made}})


def test_a_file_over_max_file_size_is_neither_read_nor_searched(tmp_path, monkeypatch):
    """It is never summarized: reading and searching it only cost memory (the audit measured
    861 MB for a 10 MB file that is not linted)."""
    from msgspec.structs import replace

    from cursedlint.project import index as project_index

    files = make_project(tmp_path)
    (tmp_path / "huge.py").write_text("class Huge(Registry):\n    pass\n" + "#" * 5_000 + "\n")
    files.append((str(tmp_path / "huge.py"), "python"))
    searched = []
    real = project_index._Search.holds
    monkeypatch.setattr(project_index._Search, "holds",
                        lambda self, data: searched.append(len(data)) or real(self, data))
    settings = replace(SETTINGS, max_file_size=4_096)
    index = ProjectIndex(files, settings, Linter(settings, {}).parse_for_index)
    read = []
    real_read = index.file_bytes.read
    monkeypatch.setattr(index.file_bytes, "read",
                        lambda path, keep=True: read.append(path) or real_read(path, keep))
    facts = index.facts(SubclassIndex())
    assert sorted(map(os.path.basename, facts)) == ["gpu.py", "plugin.py", "registry.py"]
    assert max(searched) < 4_096
    assert index.source_bytes(str(tmp_path / "huge.py")) is None
    assert str(tmp_path / "huge.py") not in read


def test_identifiers_are_listed_a_window_at_a_time():
    """Listing every identifier of 2 MB of `ab ab ...` at once took 30 MB for a set of one."""
    import tracemalloc

    from cursedlint.project.index import _identifiers

    data = b"ab " * 700_000 + b"cd_" * 30_000 + b" ef"
    tracemalloc.start()
    try:
        found = _identifiers.__wrapped__(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found == {b"ab", b"cd_" * 30_000, b"ef"}
    assert peak < 4 << 20, f"{peak / 2**20:.1f} MB"


def test_whole_words_found_by_the_leftmost_longest_match_as_by_every_match():
    """Identifier words that are prefixes, suffixes and parts of each other: the automaton
    reporting the longest match at each leftmost start (and searching on past it) finds a
    whole word wherever one of all the overlapping matches is whole."""
    import itertools

    from cursedlint.project.index import _Search
    from cursedlint.triggers.byte_search import whole

    words = {"launch", "launchHost", "Host", "HostFunc", "stFu", "a", "add_callback", "callback",
             "Func"}  # (more than 8: the automaton)
    search = _Search(SubclassIndex(), words, first_round=False)
    assert isinstance(search._matchers[1], frozenset)
    pieces = [b"launch", b"Host", b"Func", b"x", b"_", b" ", b".", b"add_", b"callback", b"a"]
    for text in map(b"".join, itertools.product(pieces, repeat=3)):
        every = any(whole(text, start, end) for _, start, end in
                    search._automaton.find_matches_as_indexes(text, overlapping=True))
        assert search.holds(text) == every, text


def test_fewer_words_than_listed_words_go_to_the_automaton_at_once(monkeypatch):
    """Building the automaton of a few dozen words costs less than listing one module's
    identifiers: those of the first files asked are listed only for LISTED_WORDS or more."""
    from cursedlint.project import index as project_index

    def listed(data):
        raise AssertionError("listed")

    monkeypatch.setattr(project_index, "_identifiers", listed)
    search = project_index._Search(SubclassIndex(), {f"helper_{n}" for n in range(40)}, False)
    assert search.holds(b"helper_7()\n") and not search.holds(b"helper_70()\n")


def test_a_few_words_with_a_pattern_are_found_alike_by_finds_and_the_automaton(monkeypatch):
    """The substring test before an indexer's own pattern: `bytes.find` for FEW_FINDS words
    or fewer, one automaton pass for more; the same answers."""
    from cursedlint.analysis.foreign_keeping import FOREIGN_KEEPING
    from cursedlint.project import index as project_index

    texts = [b"lib = ctypes.CDLL(path)\n", b"Proto = ctypes.CFUNCTYPE(None)\n",
             b"# CDLL in prose\nx = 1\n", b"x = 1\n", b"  handle =  ctypes.cdll.LoadLibrary(p)\n"]
    answers = []
    for few in (0, 100):
        monkeypatch.setattr(project_index, "FEW_FINDS", few)
        search = project_index._Search(FOREIGN_KEEPING, set(FOREIGN_KEEPING.words(None)), True)
        answers.append([search.holds(text) for text in texts])
    assert answers[0] == answers[1] == [True, True, False, False, True]


def test_a_large_file_is_searched_without_listing_its_identifiers(monkeypatch):
    """The sets of the last few files listed are kept: files over LISTED_BYTES go to the
    automaton, even among the first few asked."""
    from cursedlint.project import index as project_index

    def listed(data):
        raise AssertionError("listed")

    monkeypatch.setattr(project_index, "_identifiers", listed)
    monkeypatch.setattr(project_index, "LISTED_WORDS", 1)
    search = project_index._Search(SubclassIndex(), {f"helper_{n}" for n in range(40)}, False)
    padding = b"x = 1\n" * (project_index.LISTED_BYTES // 6)
    assert search.holds(padding + b"helper_7()\n")
    assert not search.holds(padding + b"helper_70()\n")


def test_a_10_mb_file_not_linted_costs_little_memory(tmp_path):
    """`cursedlint check` on a 10 MB file over max-file-size with a trigger word and a million
    distinct names: the index listed them all (165 MB); now under 100 MB of peak RSS."""
    import subprocess
    import sys

    names = " ".join(f"g{n}" for n in range(1_250_000))
    (tmp_path / "big.py").write_text(f"torch.cuda.graph(g)\n{names}\n")
    measure = ("import resource, subprocess, sys; "
               "done = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
               "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run(
        [sys.executable, "-c", measure, sys.executable, "-m", "cursedlint", "check",
         "--no-cache", "big.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=True,
    ).stdout.split()
    assert out[0] == "1"  # CUR004
    assert int(out[1]) < 100 * 1024, f"{int(out[1]) / 1024:.0f} MB"


UTIL_C = """\
#include <infiniband/verbs.h>
#include <sys/uio.h>

struct ibv_mr *reg_buffer(struct ibv_pd *pd, void *buf, size_t len) {
    return ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
}

ssize_t peer_read(pid_t pid, const struct iovec *local, const struct iovec *remote) {
    return process_vm_readv(pid, local, 1, remote, 1, 0);
}
"""

MAIN_C = """\
#include <assert.h>
#include <stdlib.h>
#include "util.h"

void setup(struct ibv_pd *pd, pid_t peer, struct iovec *l, struct iovec *r) {
    char *flag = malloc(64);
    reg_buffer(pd, flag, 64);
    ssize_t n = peer_read(peer, l, r);
    assert(n >= 0);
}
"""


def test_a_file_two_indexers_read_without_a_store_is_hashed_once(tmp_path, monkeypatch,
                                                                  capsys):
    """Without a store (`--no-cache`) a file's content hash was worked out again each time it
    was asked for (libfabric: 5,024 SHA-1s, 510 now); a file the second indexer searches is
    one the first already hashed."""
    from cursedlint.project import index as project_index
    from cursedlint.cli import main

    (tmp_path / ".git").mkdir()
    (tmp_path / "util.c").write_text(UTIL_C)
    (tmp_path / "main.c").write_text(MAIN_C)
    (tmp_path / "util.h").write_text(
        "struct ibv_mr *reg_buffer(struct ibv_pd *pd, void *buf, size_t len);\n"
        "ssize_t peer_read(int pid, const struct iovec *l, const struct iovec *r);\n")
    hashed = []
    real = project_index.content_digest
    monkeypatch.setattr(project_index, "content_digest",
                        lambda data: hashed.append(data) or real(data))
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--no-cache", "--concise", "main.c"]) == 1
    out = capsys.readouterr().out
    assert "main.c:7:26: CUR301 reg_buffer() (wraps ibv_reg_mr())" in out
    assert "main.c:9:5: CUR601 assert() asserts the result of peer_read()" in out
    assert len(hashed) == len(set(hashed))


CAPTURING_MODULES = {
    "graphs.py": "import torch\n\n\ndef _begin(graph, step):\n    with torch.cuda.graph(graph):\n"
                 "        step()\n\n\n"
                 "def record(model, x):\n    graph = torch.cuda.CUDAGraph()\n"
                 "    with torch.cuda.graph(graph):\n        return model(x)\n\n\n"
                 "def warm_and_record(graph, step):\n    step()\n    _begin(graph, step)\n\n\n"
                 "def relaxed(graph):\n    with torch.cuda.graph(graph, capture_error_mode='relaxed'):\n"
                 "        pass\n",
    "aliased.py": "from torch.cuda import graph as cuda_graph\n\n\n"
                  "def trace(graph, step):\n    with cuda_graph(graph):\n        step()\n",
    "prose.py": "import torch\n\n\ndef plan(model):\n    # walks the graph of modules\n"
                "    return torch.cuda.device_count()\n",
    "helpers.py": "def build_cuda_graph(model):\n    return [model]\n\n\n"
                  "def record(model):\n    return build_cuda_graph (model)\n",
}


def test_capture_starts_give_the_trigger_words_the_cuda_reach_facts_give(tmp_path):
    """The cheaper index gathered where only CUDA-reach's trigger words are wanted names the
    same functions: those beginning a global-mode capture, also through a helper of their
    module; a module that names a graph only in prose, or calls its own `build_cuda_graph`,
    is not searched."""
    from cursedlint.analysis.cuda_reach import CAPTURE_STARTS, CUDA_REACH, capturing_names

    for name, text in CAPTURING_MODULES.items():
        (tmp_path / name).write_text(text)
    files = [(str(tmp_path / name), "python") for name in sorted(CAPTURING_MODULES)]
    full = index_of(files).facts(CUDA_REACH)
    starts = index_of(files).facts(CAPTURE_STARTS)
    assert sorted(os.path.basename(path) for path in starts) == ["aliased.py", "graphs.py"]
    assert CAPTURE_STARTS.trigger_words(starts) == capturing_names(full) == (
        "_begin", "record", "trace", "warm_and_record")


def _capturing_project(tmp_path) -> tuple[list[tuple[str, str]], object]:
    """The capturing modules written under `tmp_path`, and a file calling one of them."""
    for name, text in CAPTURING_MODULES.items():
        (tmp_path / name).write_text(text)
    linted = tmp_path / "train.py"
    linted.write_text("from graphs import record\n\n\ndef step(model, x):\n"
                      "    return record(model, x)\n")
    return [(str(tmp_path / name), "python") for name in sorted(CAPTURING_MODULES)], linted


def test_capture_starts_for_trigger_words_summarize_what_the_linted_files_may_name(tmp_path):
    """Gathered for the trigger words of some linted files alone, a capturing module that
    defines no name they hold is not summarized (its words could trigger none of them); where
    the bound on files with facts needs to know whether it has some, it is, in its order, so
    the facts stop where they stopped before."""
    from cursedlint.analysis.cuda_reach import CAPTURE_STARTS, CaptureStarts

    files, linted = _capturing_project(tmp_path)

    def gathered(indexer, linted_files):
        linter = Linter(SETTINGS, {})
        index = ProjectIndex(files, SETTINGS, linter.parse_for_index, None,
                             for_triggers={indexer.name: files}, linted=linted_files)
        return {os.path.basename(path) for path in index.facts(indexer)}, index.summarized

    assert gathered(CAPTURE_STARTS, None) == ({"aliased.py", "graphs.py"}, 2)
    assert gathered(CAPTURE_STARTS, [(str(linted), "python")]) == ({"graphs.py"}, 1)

    class OneFile(CaptureStarts):
        max_files = 1

    bounded = OneFile()
    assert gathered(bounded, None) == ({"aliased.py"}, 1)
    assert gathered(bounded, [(str(linted), "python")]) == ({"aliased.py"}, 1)


def test_a_warm_gathering_for_trigger_words_reads_the_stored_trigger_names(tmp_path,
                                                                          monkeypatch):
    """The trigger names of the files a gathering for trigger words skips are kept in the
    store: the next run with the store gathers the same facts without reading those files or
    asking the indexer again."""
    from cursedlint.analysis.cuda_reach import CAPTURE_STARTS, CaptureStarts

    files, linted = _capturing_project(tmp_path)
    directory = str(tmp_path / ".cursedlint_cache")

    def gathered():
        store = IndexStore(directory, "f" * 64)
        index = ProjectIndex(files, SETTINGS, Linter(SETTINGS, {}).parse_for_index, store,
                             for_triggers={CAPTURE_STARTS.name: files},
                             linted=[(str(linted), "python")])
        found = {os.path.basename(path) for path in index.facts(CAPTURE_STARTS)}
        store.save()
        return found

    asked = []
    original = CaptureStarts.trigger_names
    monkeypatch.setattr(CaptureStarts, "trigger_names",
                        lambda self, data: asked.append(data) or original(self, data))
    assert gathered() == {"graphs.py"}
    assert asked  # (the modules not summarized were asked once)
    asked.clear()
    assert gathered() == {"graphs.py"}
    assert asked == []


def test_a_gathering_for_trigger_words_reads_the_code_only_of_files_defining_a_linted_name(
        tmp_path, monkeypatch):
    """Where the `def`s of a capturing module name nothing the linted files hold, whether
    its code (not its prose) names a capture is not read: the names it could give at most
    (`trigger_names_at_most`, kept in the store too) already say it can trigger none of them.
    The facts are those of the full reading."""
    from cursedlint.analysis.cuda_reach import CAPTURE_STARTS, CaptureStarts

    files, linted = _capturing_project(tmp_path)
    directory = str(tmp_path / ".cursedlint_cache")
    asked, at_most = [], []
    full, cheap = CaptureStarts.trigger_names, CaptureStarts.trigger_names_at_most
    monkeypatch.setattr(CaptureStarts, "trigger_names",
                        lambda self, data: asked.append(data) or full(self, data))
    monkeypatch.setattr(CaptureStarts, "trigger_names_at_most",
                        lambda self, data: at_most.append(data) or cheap(self, data))

    def gathered(store):
        index = ProjectIndex(files, SETTINGS, Linter(SETTINGS, {}).parse_for_index, store,
                             for_triggers={CAPTURE_STARTS.name: files},
                             linted=[(str(linted), "python")])
        found = {os.path.basename(path) for path in index.facts(CAPTURE_STARTS)}
        if store:
            store.save()
        return found

    def firsts(asked_of: list[bytes]) -> list[bytes]:
        return [data.partition(b"\n")[0] for data in asked_of]

    assert gathered(None) == {"graphs.py"}
    assert set(firsts(at_most)) == {b"from torch.cuda import graph as cuda_graph",
                                    b"import torch"}
    assert set(firsts(asked)) == {b"import torch"}  # (graphs.py defines `record`)
    at_most.clear(), asked.clear()
    assert gathered(IndexStore(directory, "f" * 64)) == {"graphs.py"}
    assert len(set(at_most)) == 2 and len(set(asked)) == 1
    at_most.clear(), asked.clear()
    assert gathered(IndexStore(directory, "f" * 64)) == {"graphs.py"}
    assert at_most == [] and asked == []


def _index_sharing(files, shared, target=(3, 12), store=None) -> ProjectIndex:
    settings = Settings(enabled=frozenset(), target_python=target)
    return ProjectIndex(files, settings, Linter(settings, {}).parse_for_index, store,
                        shared=shared)


def test_indexes_sharing_summaries_parse_each_file_once(tmp_path):
    """The run's groups of one project with the same summary settings share the summaries:
    the second index parses nothing, and finds the same facts."""
    files = make_project(tmp_path)
    shared: dict = {}
    first, second = SubclassIndex(), SubclassIndex()
    facts = _index_sharing(files, shared).facts(first)
    assert _index_sharing(files, shared).facts(second) == facts
    assert sorted(first.parsed) == ["gpu.py", "plugin.py", "registry.py"]
    assert second.parsed == []


def test_a_python_summary_is_not_shared_across_target_pythons(tmp_path):
    files = make_project(tmp_path)
    shared: dict = {}
    _index_sharing(files, shared, (3, 9)).facts(SubclassIndex())
    other = SubclassIndex()
    _index_sharing(files, shared, (3, 14)).facts(other)
    assert sorted(other.parsed) == ["gpu.py", "plugin.py", "registry.py"]


def test_a_shared_summary_goes_into_each_groups_store(tmp_path):
    """A group whose store lacks a summary another group made keeps it there too (its next
    run parses nothing); one whose store holds it already is not written again."""
    files = make_project(tmp_path)
    shared: dict = {}
    _index_sharing(files, shared).facts(SubclassIndex())
    directory = str(tmp_path / "b" / ".cursedlint_cache")
    store = IndexStore(directory, "e" * 64)
    _index_sharing(files, shared, store=store).facts(SubclassIndex())
    store.save()
    later = SubclassIndex()
    _index_sharing(files, {}, store=IndexStore(directory, "e" * 64)).facts(later)
    assert later.parsed == []
    again = IndexStore(directory, "e" * 64)
    _index_sharing(files, shared, store=again).facts(SubclassIndex())
    assert not again.changed


def test_two_groups_of_one_project_summarize_its_c_files_once(tmp_path, monkeypatch, capsys):
    """Files under two pyproject.toml (two target Pythons: two groups) gather facts from the
    same project; the C/C++ summaries of the first group serve the second (the helper that
    neither lints was summarized by both)."""
    from cursedlint.cli import main

    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "a"\nrequires-python = ">=3.9"\n')
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "pyproject.toml").write_text(
        '[project]\nname = "b"\nrequires-python = ">=3.12"\n')
    (tmp_path / "helper.c").write_text(
        "#include <cuda_runtime.h>\n"
        "void *drain(void *arg) { cudaMemsetAsync(arg, 0, 64, 0); return 0; }\n"
        "void start_worker(void *buf) { pthread_t t; pthread_create(&t, 0, drain, buf); }\n")
    capture = ("#include <cuda_runtime.h>\nvoid start_worker(void *buf);\n"
               "void record(cudaStream_t s, void *buf) {\n  cudaGraph_t g;\n"
               "  start_worker(buf);\n"
               "  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n"
               "  cudaMemsetAsync(buf, 0, 64, s);\n  cudaStreamEndCapture(s, &g);\n}\n")
    (tmp_path / "capture.c").write_text(capture)
    (tmp_path / "sub" / "capture2.c").write_text(capture)
    from cursedlint.analysis.c_thread_reach import CThreadReachIndex

    summarized: list[str] = []
    real = CThreadReachIndex.summarize

    def counted(self, context):
        summarized.append(os.path.relpath(context.source.path, tmp_path))
        return real(self, context)

    monkeypatch.setattr(CThreadReachIndex, "summarize", counted)
    monkeypatch.chdir(tmp_path)
    for flags in (["--no-cache"], []):
        summarized.clear()
        main(["check", *flags, "--exit-zero", "-v", "capture.c", "sub/capture2.c"])
        err = capsys.readouterr().err
        assert err.count("c-thread-reach: 3 files") == 2, err  # (both groups gathered it)
        assert sorted(summarized) == ["capture.c", "helper.c", "sub/capture2.c"], summarized


def test_the_store_is_kept_apart_for_every_setting_a_summary_depends_on(tmp_path):
    """A summary may depend on the page size (whole-page allocators), the include paths and,
    for Python, the target Python: a store written under other values is another store."""
    from msgspec import structs

    from cursedlint.cli import _index_store

    base = Settings(enabled=frozenset())
    path = _index_store(str(tmp_path), base).path
    for changed in (dict(page_size=65536), dict(include_dirs=("include",)),
                    dict(target_python=(3, 14)), dict(max_file_size=1 << 20),
                    dict(rule_options={"CUR301": {"wrappers": ["reg"]}})):
        assert _index_store(str(tmp_path), structs.replace(base, **changed)).path != path
    assert _index_store(str(tmp_path), structs.replace(base, root="elsewhere")).path == path


def test_a_files_whole_words_are_searched_again_only_where_earlier_searches_do_not_tell(
        tmp_path, monkeypatch):
    """After the rounds' searches, a search for more words asks a file only for the words its
    earlier searches did not find absent, and not at all where it holds one of a set found
    before; the answers are those of a search of every word."""
    from cursedlint.project import index as project_index

    files = make_project(tmp_path)
    index = index_of(files)
    index.facts(SubclassIndex())  # (searches every file for `Registry`, then the classes found)
    searched: list[frozenset] = []
    holds = project_index._Search.holds

    def holds_noting(search, data):
        searched.append(frozenset(search.words))
        return holds(search, data)

    monkeypatch.setattr(project_index._Search, "holds", holds_noting)
    words = ("Registry", "Plug", "Unrelated")
    found = {os.path.basename(path): index.holds_words(SubclassIndex(), path,
                                                       index.source_bytes(path), words)
             for path, _ in files}
    assert found == {"registry.py": True, "plugin.py": True, "gpu.py": False,
                     "unrelated.py": True}
    assert found == {os.path.basename(path): holds(project_index._Search(
        SubclassIndex(), set(words), True), index.source_bytes(path)) for path, _ in files}
    # (registry.py and plugin.py hold `Registry`; gpu.py and unrelated.py do not)
    assert searched == [frozenset({"Plug", "Unrelated"})] * 2
