"""Include resolution (cursedlint/analysis/includes.py): compile_commands.json, include-dirs, the
project's own headers by path, each header read through the project index; end to end through
the CLI with CUR301, whose lengths need the headers' struct layouts and macros."""

from __future__ import annotations

import json
import os
import textwrap

import pytest

from cursedlint.analysis import includes
from cursedlint.analysis.includes import IncludePaths, compile_database, compile_flags
from cursedlint.cli import main

PLUGIN_HEADER = """\
#ifndef PLUGIN_FLUSH_H
#define PLUGIN_FLUSH_H
#include <stdint.h>
#include "flush_sizes.h"
struct flush_req {
    uint32_t host_word;
    char payload[FLUSH_PAYLOAD];
};
static inline int flush_pending(const struct flush_req *req) { int pending = req->host_word; return pending; }
#endif
"""

PLUGIN_SOURCE = """\
#include <stdlib.h>
#include <infiniband/verbs.h>
#include <plugin/flush.h>

struct ibv_mr *register_flush(struct ibv_pd *pd, struct flush_req *req) {
    return ibv_reg_mr(pd, &req->host_word, sizeof(req->host_word), IBV_ACCESS_LOCAL_WRITE);
}

struct ibv_mr *register_payload(struct ibv_pd *pd, struct flush_req *req) {
    return ibv_reg_mr(pd, req->payload, sizeof(req->payload), IBV_ACCESS_LOCAL_WRITE);
}
"""


def write(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """The incident-000 layout: public headers under include/, sources under src/ including
    them as `<plugin/flush.h>`, as `-I include` would find them."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    write(tmp_path, {
        "include/plugin/flush.h": PLUGIN_HEADER,
        "include/plugin/flush_sizes.h": "#define FLUSH_PAYLOAD 4096\n",
        "src/flush.c": PLUGIN_SOURCE,
    })
    return tmp_path


def check(capsys, *args: str) -> tuple[int, list[str]]:
    code = main(["check", "--concise", *args])
    out = capsys.readouterr().out
    return code, [line.split(" registers")[0] + " " + line.split("registers ")[1].split(",")[0]
                  for line in out.splitlines() if "CUR301" in line]


# -- compile commands -----------------------------------------------------------------------------


def test_compile_flags_read_each_spelling_of_include_dirs_and_macros():
    flags = compile_flags(
        ["cc", "-Iinc", "-I", "/abs/inc", "-isystem", "third/sys", "-iquote", "q",
         "-DN=8", "-D", "FLAG", "-DEMPTY=", "-D", "BAD NAME=1", "-c", "a.c"], "/proj")
    assert flags.dirs == ("/proj/inc", "/abs/inc", "/proj/third/sys")
    assert flags.system_dirs == frozenset({"/proj/third/sys"})
    assert flags.quote_dirs == ("/proj/q",)
    assert flags.defines == (("N", "8"), ("FLAG", "1"), ("EMPTY", ""))


@pytest.mark.parametrize("data", [
    b"", b"{", b"{}", b"[1, null, {}]", b'[{"directory": 3, "file": "a.c", "command": "cc"}]',
    b'[{"directory": "/p", "file": "a.c", "command": "cc \\"unbalanced"}]', b"[" * 100_000,
])
def test_a_malformed_database_gives_nothing(data):
    assert compile_database(data) == {}


def test_a_database_entry_takes_arguments_or_a_command():
    data = json.dumps([
        {"directory": "/p/build", "file": "../src/a.c", "arguments": ["cc", "-I../include"]},
        {"directory": "/p", "file": "/p/src/b.c", "command": "cc -I include -DX=2 -c src/b.c"},
    ]).encode()
    database = compile_database(data)
    assert database["/p/src/a.c"].dirs == ("/p/include",)
    assert database["/p/src/b.c"].defines == (("X", "2"),)


# -- the project's own headers by path ------------------------------------------------------------


def test_an_include_matches_project_headers_by_path(tmp_path):
    files = [str(tmp_path / name) for name in (
        "include/net/ring.h", "src/net/ring.h", "tests/ring.h", "lib/a/util.h", "lib/b/util.h")]
    for path in files:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "w").close()
    paths = IncludePaths(files, None, ())
    including = str(tmp_path / "src" / "main.c")
    flags = paths.flags(including)
    assert paths.resolve("net/ring.h", False, including, flags) == files[0]  # the public one
    assert paths.resolve("ring.h", True, str(tmp_path / "tests" / "t.c"), flags) == files[2]
    assert paths.resolve("util.h", False, including, flags) is None  # two, neither nearer
    assert paths.resolve("util.h", False, str(tmp_path / "lib" / "b" / "u.c"), flags) == files[4]
    assert paths.resolve("stdio.h", False, including, flags) is None
    assert paths.resolve("../src/net/ring.h", False, including, flags) is None


# -- the build files' include directories ---------------------------------------------------------


def test_build_files_name_include_directories():
    make = b"""AM_CPPFLAGS = -I$(top_srcdir)/include -I$(srcdir)/inc \\
\t-Isrc/rdm -I $(builddir)/gen -I/usr/include/libnl3
ACLOCAL_AMFLAGS = -I config
"""
    assert includes.build_include_dirs("/p/prov/x/Makefile.include", make, ("/p/prov", "/p")) == [
        "/p/prov/x/include", "/p/prov/include", "/p/include", "/p/prov/x/inc", "/p/prov/inc",
        "/p/inc", "/p/prov/x/src/rdm", "/p/prov/x/config"]
    cmake = b"""target_include_directories(engine PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:include> PRIVATE src "${PROJECT_SOURCE_DIR}/third")
include_directories(SYSTEM ${CUDA_INCLUDE_DIRS} ../common)
"""
    assert includes.build_include_dirs("/p/engine/CMakeLists.txt", cmake, ("/p",)) == [
        "/p/common"]
    assert includes.build_include_dirs("/p/engine/CMakeLists.txt", cmake, ("/p",),
                                       targets=True) == [
        "/p/engine/include", "/p/engine/src", "/p/engine/third", "/p/third"]
    assert includes.build_include_dirs("/p/prov/x/Makefile.include", make, ("/p",),
                                       targets=True) == []
    meson = b"inc = include_directories('include', '../shared')\n"
    assert includes.build_include_dirs("/p/lib/meson.build", meson, ("/p",)) == [
        "/p/lib/include", "/p/shared"]


def test_one_targets_directories_come_after_every_directorys(tmp_path):
    """`<ring.h>` from src/client/msgr.cpp: src/CMakeLists.txt names src/util for every file
    below it; src/client/CMakeLists.txt names src/test/mock for its test target alone (a target
    whose sources are not read): the directory's header is read, the mock only where nothing
    else has one of that name."""
    util, mock = _touch(tmp_path, ["src/util/ring.h", "src/test/mock/ring.h"])
    only_mock, = _touch(tmp_path, ["src/test/mock/clock.h"])
    including, = _touch(tmp_path, ["src/client/msgr.cpp"])
    (tmp_path / "src/CMakeLists.txt").write_text(
        "include_directories(${CMAKE_SOURCE_DIR}/src/util)\nadd_subdirectory(client)\n")
    (tmp_path / "src/client/CMakeLists.txt").write_text(
        "target_include_directories(test_client BEFORE PUBLIC ${CMAKE_SOURCE_DIR}/src/test/mock)\n")
    paths = includes.IncludePaths([util, mock, only_mock, including], None, (), str(tmp_path))
    flags = paths.flags(including)
    assert paths.resolve("ring.h", False, including, flags) == util
    assert paths.resolve("clock.h", False, including, flags) == only_mock


def test_a_build_of_another_system_below_takes_nothing_from_above(tmp_path):
    """A kernel module's own Makefile (its `-I` a variable) under a CMake project: its files'
    `<common/Common.h>` is not the one the project's CMake directories name (the module is no
    part of that build): the nearest header of that path is read, as without build files."""
    user, kernel = _touch(tmp_path, ["common/source/common/Common.h",
                                     "client_module/source/common/Common.h"])
    including, = _touch(tmp_path, ["client_module/source/app/App.c"])
    (tmp_path / "CMakeLists.txt").write_text(
        "project(fs C)\ninclude_directories(common/source)\n")
    (tmp_path / "client_module/Makefile").write_text(
        "ccflags-y += -I$(FS_BUILDDIR)/../source\n")
    paths = includes.IncludePaths([user, kernel, including], None, (), str(tmp_path))
    assert paths.built_dirs(os.path.dirname(including)) == ()
    assert paths.resolve("common/Common.h", False, including, paths.flags(including)) == kernel
    other, = _touch(tmp_path, ["common/source/app/Main.c"])
    assert paths.built_dirs(os.path.dirname(other)) == (str(tmp_path / "common/source"),)


def _touch(root, names):
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    return [str(root / name) for name in names]


@pytest.mark.parametrize("build_file", [True, False], ids=["named-by-make", "none"])
def test_build_files_decide_between_headers_of_one_name(tmp_path, build_file):
    """`"msg.h"` from net/src/pool.c: with net/Makefile.am's `-I` naming proto/include, the
    compiler reads proto's; without, the one under net/ is the nearest. The index's resolver
    and the named-file reach's (no list of the project's files) agree either way."""
    headers = _touch(tmp_path, ["net/include/msg.h", "proto/include/msg.h"])
    if build_file:
        (tmp_path / "net" / "Makefile.am").write_text(
            "libnet_la_CPPFLAGS = -I$(srcdir)/../proto/include -I$(top_srcdir)/missing\n")
    paths = IncludePaths(headers, None, (), str(tmp_path))
    including = str(tmp_path / "net" / "src" / "pool.c")
    expected = headers[1] if build_file else headers[0]
    assert paths.resolve("msg.h", True, including, paths.flags(including)) == expected
    reach = IncludePaths((), None, (), str(tmp_path))
    assert (reach.searched("msg.h", True, including, reach.flags(including))
            or reach.nearby("msg.h", including)) == expected


def test_a_build_directory_that_links_into_the_project_is_the_project_s(tmp_path):
    """A vendored build's `-I$(srcdir)/inc`, where `inc` is a link to the root's include/:
    its headers are the root's, as the project's walk names them."""
    header, = _touch(tmp_path, ["include/rdma/fabric.h"])
    (tmp_path / "prov" / "ext").mkdir(parents=True)
    os.symlink("../../include", tmp_path / "prov" / "ext" / "inc")
    (tmp_path / "prov" / "ext" / "Makefile.am").write_text("AM_CPPFLAGS = -I$(srcdir)/inc\n")
    paths = IncludePaths([header], None, (), str(tmp_path))
    including = str(tmp_path / "prov" / "ext" / "src" / "ep.c")
    assert paths.resolve("rdma/fabric.h", False, including, paths.flags(including)) == header


# -- end to end -----------------------------------------------------------------------------------


def test_angle_includes_of_project_headers_are_read_without_configuration(plugin, capsys):
    code, found = check(capsys, ".")
    assert code == 1
    assert found == ["src/flush.c:6:44: CUR301 ibv_reg_mr() 4 bytes"]  # the payload is a page


def test_a_header_the_lint_parsed_is_not_parsed_again_for_its_includer(plugin, capsys,
                                                                       monkeypatch):
    """Linted by a relative path, the header's context is found again by the absolute path
    the project index names it by (it was parsed twice). (A C++ includer: a header is linted
    as C++, and a C file's include is read with C's grammar, parsed again rightly.)"""
    import cursedlint.c.context as c_context

    (plugin / "src/flush.c").rename(plugin / "src/flush.cc")
    header = plugin / "include/plugin/flush.h"  # (a trigger word: the lint parses it)
    header.write_text(header.read_text().replace(
        "#include <stdint.h>\n", "#include <stdint.h>\n/* host_word: given to ibv_reg_mr */\n"))

    parsed = []
    real = c_context.parse

    def counted(data, language):
        parsed.append(b"PLUGIN_FLUSH_H" in data)  # (the header's text, or the index's of it)
        return real(data, language)

    monkeypatch.setattr(c_context, "parse", counted)
    monkeypatch.setattr(includes, "_CONTEXTS", {})
    code, found = check(capsys, "--no-cache", "include/plugin/flush.h", "src/flush.cc")
    assert found == ["src/flush.cc:6:44: CUR301 ibv_reg_mr() 4 bytes"]
    assert parsed.count(True) == 1


def test_a_header_no_name_is_asked_of_is_not_parsed_for_its_includer(plugin, capsys,
                                                                     monkeypatch):
    """The evaluator of a header read from its summary parses it when first asked about a
    name its text holds: one holding none of the names the includer looks up is never
    parsed (`c.context.LazyCContext`)."""
    import cursedlint.c.context as c_context

    write(plugin, {"include/plugin/limits.h": "#define QUEUE_LIMIT 7\nstruct queue { int depth; };\n",
                   "src/flush.c": PLUGIN_SOURCE.replace(
                       "#include <plugin/flush.h>\n",
                       "#include <plugin/limits.h>\n#include <plugin/flush.h>\n")})
    parsed = []
    real = c_context.parse

    def noted(data, language):
        parsed.append(data)
        return real(data, language)

    monkeypatch.setattr(c_context, "parse", noted)
    monkeypatch.setattr(includes, "_CONTEXTS", {})
    code, found = check(capsys, "--no-cache", "src/flush.c")
    assert found == ["src/flush.c:7:44: CUR301 ibv_reg_mr() 4 bytes"]  # (a line added above)
    # (each parsed for its summary by the index, as C++; read with C's grammar for the C file
    # only where asked about a name)
    assert sum(b"#define FLUSH_PAYLOAD 4096" in data for data in parsed) == 2
    assert sum(b"QUEUE_LIMIT" in data for data in parsed) == 1


def test_the_compilation_database_decides_dirs_and_macros(plugin, capsys):
    write(plugin, {
        "include/plugin/flush_sizes.h": "/* generated at build time */\n",
        "vendor/plugin/flush.h": PLUGIN_HEADER.replace("uint32_t host_word", "char host_word[64]"),
        "build/compile_commands.json": json.dumps([{
            "directory": str(plugin / "build"), "file": "../src/flush.c",
            "command": "cc -I../vendor -DFLUSH_PAYLOAD=100 -c ../src/flush.c",
        }]),
    })
    code, found = check(capsys, ".")
    assert found == ["src/flush.c:6:44: CUR301 ibv_reg_mr() 64 bytes",
                     "src/flush.c:10:41: CUR301 ibv_reg_mr() 100 bytes"]


def test_system_include_dirs_of_the_database_are_not_read(plugin, capsys):
    write(plugin, {"compile_commands.json": json.dumps([{
        "directory": str(plugin), "file": "src/flush.c",
        "arguments": ["cc", "-isystem", "include", "-c", "src/flush.c"],
    }])})
    assert check(capsys, ".")[1] == []  # the lengths are unknown: silent


def test_include_dirs_setting_and_the_p_flag(plugin, capsys):
    write(plugin, {
        "alt/plugin/flush.h": PLUGIN_HEADER.replace("uint32_t host_word", "uint16_t host_word"),
        "alt/plugin/flush_sizes.h": "#define FLUSH_PAYLOAD 24\n",
        "cursedlint.toml": 'include-dirs = ["alt"]\n',
    })
    code, found = check(capsys, ".")
    assert found == ["src/flush.c:6:44: CUR301 ibv_reg_mr() 2 bytes",
                     "src/flush.c:10:41: CUR301 ibv_reg_mr() 24 bytes"]
    write(plugin, {"db/compile_commands.json": json.dumps([{
        "directory": str(plugin), "file": "src/flush.c", "command": "cc -Iinclude -c src/flush.c",
    }])})
    code, found = check(capsys, "-p", "db", ".")
    assert found == ["src/flush.c:6:44: CUR301 ibv_reg_mr() 4 bytes"]


@pytest.mark.parametrize("args, config, message", [
    (["-p", "missing"], "", "no compilation database at"),
    ([], 'compile-commands = "nowhere/compile_commands.json"\n', "no compilation database at"),
    ([], "include-dirs = \"include\"\n", "expected a list of strings"),
    ([], 'include-dirs = [""]\n', "expected a path"),
    (["-p", "include/plugin/flush.h"], "", "is not a compilation database: not JSON"),
    ([], 'compile-commands = "cursedlint.toml"\n', "is not a compilation database"),
    (["-p", "db.json"], "", "expected a JSON list of compile commands"),
])
def test_bad_include_settings_are_clear_errors(plugin, capsys, args, config, message):
    (plugin / "cursedlint.toml").write_text(config)
    (plugin / "db.json").write_bytes(b'{"directory": "/"}')
    assert main(["check", *args, "."]) == 2
    assert message in capsys.readouterr().err


def test_a_changed_header_changes_the_cached_result(plugin, capsys):
    assert check(capsys, ".")[1] == ["src/flush.c:6:44: CUR301 ibv_reg_mr() 4 bytes"]
    write(plugin, {"include/plugin/flush_sizes.h": "#define FLUSH_PAYLOAD 100\n"})
    assert check(capsys, ".")[1] == ["src/flush.c:6:44: CUR301 ibv_reg_mr() 4 bytes",
                                     "src/flush.c:10:41: CUR301 ibv_reg_mr() 100 bytes"]


def _header_summaries_counted(monkeypatch) -> list[str]:
    """The names of the headers summarized from now on, in order (a list the run fills)."""
    summarized: list[str] = []
    real = includes.HeaderSummaries.summarize

    def counting(self, context):
        summarized.append(os.path.basename(context.source.path))
        return real(self, context)

    monkeypatch.setattr(includes.HeaderSummaries, "summarize", counting)
    return summarized


def test_each_header_is_parsed_once_per_run_and_kept_across_runs(plugin, capsys, monkeypatch):
    write(plugin, {"src/flush2.c": PLUGIN_SOURCE})
    summarized = _header_summaries_counted(monkeypatch)
    assert len(check(capsys, ".")[1]) == 2
    assert sorted(summarized) == ["flush.h", "flush_sizes.h"]
    write(plugin, {"src/flush2.c": PLUGIN_SOURCE + "\n"})
    assert len(check(capsys, ".")[1]) == 2
    assert sorted(summarized) == ["flush.h", "flush_sizes.h"]  # from the stored index


def test_the_incident_layout_a_wrapper_and_a_length_from_a_transitive_header(tmp_path, monkeypatch,
                                                                            capsys):
    """The plugin of incident 000, rewritten: the communicator's flush word is declared in
    include/plugin.h, reached through include/queue.h; the file registers it through its own
    wrapper of fi_mr_regattr with a length set from `sizeof` the member."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    write(tmp_path, {
        "include/plugin.h": """\
            #include <rdma/fi_domain.h>
            typedef struct flush_area { int word; void *desc; size_t size; } flush_area_t;
            typedef struct recv_comm { struct fid_domain *domain; flush_area_t flush; } recv_comm_t;
        """,
        "include/queue.h": "#include <plugin.h>\n",
        "src/net.c": """\
            #include <string.h>
            #include <queue.h>

            static int register_region(recv_comm_t *comm, void *data, size_t size, struct fid_mr **mr)
            {
                struct iovec iov = { .iov_base = data, .iov_len = size };
                struct fi_mr_attr attr = { .mr_iov = &iov, .iov_count = 1 };
                return fi_mr_regattr(comm->domain, &attr, 0, mr);
            }

            int accept_comm(recv_comm_t *comm, struct fid_mr **mr)
            {
                comm->flush.size = sizeof(comm->flush.word);
                return register_region(comm, &comm->flush.word, comm->flush.size, mr);
            }
        """,
    })
    code, found = check(capsys, ".")
    assert found == ["src/net.c:14:53: CUR301 register_region() (wraps fi_mr_regattr()) 4 bytes"]


def test_a_database_entry_decides_for_the_headers_its_file_includes(plugin, capsys):
    """A file the database lists without -I: `<plugin/flush.h>` is not the project's (the
    compiler would take a system one), so no header is matched by path."""
    write(plugin, {"compile_commands.json": json.dumps([{
        "directory": str(plugin), "file": "src/flush.c", "command": "cc -c src/flush.c",
    }])})
    assert check(capsys, ".")[1] == []


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_each_file_is_parsed_once_per_run_when_every_file_needs_facts(plugin, capsys, monkeypatch,
                                                                     jobs):
    """The worst case: every file, headers too, holds the rules' trigger words, so the lint
    parses each, the index summarizes each and each is linted again with the facts; the lint's
    parse serves all three (in forked workers too: the parses are logged to a file)."""
    from cursedlint import engine
    from cursedlint.c import context as c_context

    write(plugin, {"src/flush2.c": PLUGIN_SOURCE + "// another\n", "include/plugin/flush.h":
                   PLUGIN_HEADER + "// ibv_reg_mr process_vm_readv\n"})
    monkeypatch.setattr(engine.scheduler, "PARALLEL_MIN_BYTES", 0)
    log = plugin / ".git" / "parsed.log"
    real = c_context.parse

    def logged(data, language):
        with open(log, "a") as handle:
            handle.write(f"{hash(data)}\n")
        return real(data, language)

    monkeypatch.setattr(c_context, "parse", logged)
    assert len(check(capsys, "--no-cache", "--jobs", jobs, ".")[1]) == 2
    whole = {hash((plugin / name).read_bytes()) for name in
             ("src/flush.c", "src/flush2.c", "include/plugin/flush.h")}
    parsed = [int(line) for line in log.read_text().split()]
    assert [parsed.count(digest) for digest in whole] == [1, 1, 1]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_rules_run_once_on_a_file_that_waits_for_facts(plugin, capsys, monkeypatch, jobs):
    """A C/C++ file that needs facts from other files waits for them: its rules run once, in
    the lint with the facts, and find what they found before (the 4-byte registration)."""
    from cursedlint import engine

    write(plugin, {"src/flush2.c": PLUGIN_SOURCE + "// another\n"})
    monkeypatch.setattr(engine.scheduler, "PARALLEL_MIN_BYTES", 0)
    log = plugin / ".git" / "rules.log"
    real = engine.Linter._run_rules

    def logged(self, context, rules, result):
        with open(log, "a") as handle:
            handle.write(f"{context.source.path}\n")
        return real(self, context, rules, result)

    monkeypatch.setattr(engine.Linter, "_run_rules", logged)
    assert len(check(capsys, "--no-cache", "--jobs", jobs, ".")[1]) == 2
    runs = log.read_text().split()
    assert sorted(os.path.basename(path) for path in runs) == ["flush.c", "flush2.c"]


def test_written_includes_are_the_include_lines():
    """An include directive counts where only blanks come before its `#` on its line."""
    from cursedlint.analysis.includes import written_includes

    data = (b'#include <a.h>\n  #  include "b.h"\n\t#include<c.h> #include <not_d.h>\n'
            b'x = 1; #include "not_e.h"\n/* c */ #include <not_f.h>\n#include "g.h\n'
            b'#include "h.h"\r\n#define X 1\n#include <i.h>')
    assert list(written_includes(data)) == [(b"<", b"a.h"), (b'"', b"b.h"), (b"<", b"c.h"),
                                            (b'"', b"h.h"), (b"<", b"i.h")]
    assert next(written_includes(b"int x; # include <a.h>\n"), None) is None


def test_a_header_summary_keeps_a_getters_body_of_one_return_only():
    from cursedlint.c.context import CContext, parse
    from cursedlint.settings import Settings
    from cursedlint.source import Source

    data = textwrap.dedent("""\
        class Flush {
          public:
            unsigned int *word() const { return reg_; }
            void map() { int dev = 0; hipGetDevice(&dev); }
          private:
            unsigned int *reg_ = nullptr;
        };
        """).encode()
    context = CContext(Source.from_bytes("flush.hpp", data, "cpp"), Settings(enabled=frozenset()),
                       parse(data, "cpp"))
    summary = includes._without_bodies(context)
    assert b"{ return reg_; }" in summary and b"void map() {}" in summary


def test_a_named_file_reads_the_headers_of_its_own_includes_not_every_registering_file_s(
        plugin, capsys, monkeypatch):
    """Named alone, a file's rules read the project headers of the files they evaluate in: its
    own (and its callers', through `c-call-values`), not those of another file that registers
    with its own sizes: that file's header is parsed in a run over the whole project only, and
    the named file's finding is the same both ways."""
    write(plugin, {
        "include/plugin/ack_sizes.h": "#define ACK_WORDS 2\n",
        "src/ack.c": """\
            #include <infiniband/verbs.h>
            #include <plugin/ack_sizes.h>

            static unsigned long long ack_words[ACK_WORDS];

            struct ibv_mr *register_acks(struct ibv_pd *pd)
            {
                return ibv_reg_mr(pd, ack_words, sizeof(ack_words), IBV_ACCESS_LOCAL_WRITE);
            }
        """,
    })
    summarized = _header_summaries_counted(monkeypatch)
    assert check(capsys, "--no-cache", "src/flush.c")[1] == [
        "src/flush.c:6:44: CUR301 ibv_reg_mr() 4 bytes"]
    assert sorted(summarized) == ["flush.h", "flush_sizes.h"]
    summarized.clear()
    assert check(capsys, "--no-cache", ".")[1] == [
        "src/ack.c:8:38: CUR301 ibv_reg_mr() 16 bytes",
        "src/flush.c:6:44: CUR301 ibv_reg_mr() 4 bytes"]
    assert sorted(summarized) == ["ack_sizes.h", "flush.h", "flush_sizes.h"]


def test_a_file_several_indexers_summarize_is_parsed_once_for_a_named_file(plugin, capsys,
                                                                          monkeypatch):
    """Named alone, a file's facts come from the project: another file holding the words of
    several indexers (a registration, a page allocation) is parsed once for all of them."""
    import cursedlint.c.context as c_context

    write(plugin, {"src/slab.c": """\
        #include <stdlib.h>
        #include <infiniband/verbs.h>

        struct ibv_mr *register_slab(struct ibv_pd *pd, void **slab)
        {
            if (posix_memalign(slab, 4096, 8 * 4096) != 0)
                return NULL;
            return ibv_reg_mr(pd, *slab, 8 * 4096, IBV_ACCESS_LOCAL_WRITE);
        }
    """})
    parsed: list[bytes] = []
    real = c_context.parse

    def counting(data, language):
        parsed.append(data)
        return real(data, language)

    monkeypatch.setattr(c_context, "parse", counting)
    assert check(capsys, "--no-cache", "--jobs", "1", "src/flush.c")[1] == [
        "src/flush.c:6:44: CUR301 ibv_reg_mr() 4 bytes"]
    assert parsed.count((plugin / "src" / "slab.c").read_bytes()) == 1


def test_nearby_headers_are_looked_for_once_per_directory(tmp_path):
    """A header no search finds is looked for beside the including file, then in each
    directory above up to the root and its `include/`: the same answers from every file, each
    directory asked once per name (`<stdio.h>`, in none of them, was looked for in every
    directory above every including file)."""
    header, other = _touch(tmp_path, ["include/ring.h", "net/src/ring.h"])
    paths = IncludePaths((), None, (), str(tmp_path))
    asked: list[str] = []

    class Probe:
        def isfile(self, path):
            asked.append(path)
            return os.path.isfile(path)

    net = str(tmp_path / "net" / "src" / "deep" / "pool.c")
    util = str(tmp_path / "util" / "list.c")
    assert paths.nearby("ring.h", net, Probe()) == other
    assert paths.nearby("ring.h", util, Probe()) == header
    assert paths.nearby("ring.h", str(tmp_path / "net" / "io.c"), Probe()) == header
    assert paths.nearby("stdio.h", net, Probe()) is None
    assert paths.nearby("stdio.h", str(tmp_path / "net" / "src" / "q.c"), Probe()) is None
    assert paths.nearby("../ring.h", util, Probe()) is None
    assert len(asked) == len(set(asked))  # (each candidate probed once)
    assert paths.nearby("stdio.h", util, Probe()) is None
    assert asked[-2:] == [str(tmp_path / "util" / "stdio.h"), str(tmp_path / "util" / "include" / "stdio.h")]
    assert paths.nearby("stdio.h", str(tmp_path / ".." / "outside.c"), Probe()) is None
