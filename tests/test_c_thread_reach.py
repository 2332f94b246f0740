"""The per-file facts of `analysis.c_thread_reach`: which thread starts run several threads
at once, and which names resolve across files."""

from __future__ import annotations

import os
import textwrap

from cursedlint.analysis.c_thread_reach import C_THREAD_REACH, ThreadReach, thread_facts
from cursedlint.c.context import CContext, parse
from cursedlint.engine import Linter
from cursedlint.project.index import ProjectIndex
from cursedlint.settings import Settings
from cursedlint.source import Source


def facts_context(code: str, path: str = "a.cpp", language: str = "cpp") -> CContext:
    data = textwrap.dedent(code).encode()
    return CContext(Source.from_bytes(path, data, language), Settings(enabled=frozenset()),
                    parse(data, language))


def facts_of(code: str, path: str = "a.cpp"):
    return thread_facts(facts_context(code, path))


def several(code: str) -> dict[str, str]:
    return {", ".join(start.entries): start.several for start in facts_of(code).starts}


def test_how_many_threads_a_start_runs():
    assert several("""
        void pool(int n) {
            std::vector<std::thread> workers;
            workers.emplace_back(serve, 0);
            for (int i = 0; i < n; ++i) {
                pthread_create(&ids[i], nullptr, poll_loop, nullptr);
            }
            auto done = std::async(std::launch::async, [&] { flush(1); });
            auto lazy = std::async(std::launch::deferred, drain);
            std::thread one(export_all);
            one.join();
            std::thread two(export_all);
            two.join();
            std::thread a(warm);
            std::thread b(warm);
            a.join();
            b.join();
        }
    """) == {"serve": "put in a vector of threads", "poll_loop": "started in a loop",
             "flush": "", "export_all": "", "warm": "another thread runs it alongside"}


def test_a_thread_joined_in_its_own_iteration_is_one_at_a_time():
    assert several("""
        void each(int n) {
            for (int i = 0; i < n; ++i) {
                std::thread t([=] { step(i); });
                t.join();
            }
        }
    """) == {"step": ""}


def test_a_starter_called_in_a_loop_runs_several():
    facts = facts_of("""
        std::thread make_thread(int i) { return std::thread(run, i); }
        void start_all(std::vector<std::thread> &out, int n) {
            for (int i = 0; i < n; ++i) out.push_back(make_thread(i));
        }
        void run(int i) { cudaSetDevice(i); }
    """)
    starts = list(ThreadReach({"a.cpp": facts}).starts())
    assert [(start.entries, why) for _, start, why in starts] == [
        (("run",), "make_thread() is called in a loop")]


def test_a_name_defined_twice_resolves_to_neither():
    first = facts_of("void log_step(int s) { cudaDeviceSynchronize(); }", "a.cpp")
    second = facts_of("void log_step(int s) { }\nvoid outer() { log_step(1); }", "b.cpp")
    reach = ThreadReach({"a.cpp": first, "b.cpp": second})
    assert reach.defined("log_step") is None and reach.defined("outer") is not None
    assert "outer" not in reach.prohibiting
    assert "log_step" in ThreadReach({"a.cpp": first}).prohibiting


def left_running(code: str) -> dict[str, bool]:
    return {", ".join(start.entries): start.left for start in facts_of(code).starts}


def test_which_threads_outlive_their_starter():
    assert left_running("""
        static std::vector<std::thread> g_pool;
        static pthread_t g_poller;
        void start_all() {
            g_pool.emplace_back(serve);
            pthread_create(&g_poller, nullptr, poll_loop, nullptr);
            std::thread detached(upload);
            detached.detach();
            std::thread moved(prefetch);
            g_pool.push_back(std::move(moved));
            std::thread local(scan);
            std::jthread scoped(warm);
            auto task = std::async(std::launch::async, flush);
        }
        std::thread make_one() { return std::thread(export_all); }
        void start_and_wait() {
            std::vector<std::thread> batch;
            batch.emplace_back(drain);
            for (auto &t : batch) t.join();
        }
    """) == {"serve": True, "poll_loop": True, "upload": True, "prefetch": True,
             "scan": False, "warm": False, "flush": False, "export_all": False,
             "drain": False}


def test_a_member_vector_of_threads_declared_in_a_header():
    header = facts_of("""
        class Pool {
            std::vector<std::thread> workers_;
            std::vector<std::function<void()>> tasks_;
        };
    """, "pool.h")
    source = facts_of("""
        void Pool::launch() { workers_.emplace_back(serve); }
        void Pool::queue() { tasks_.emplace_back(flush); }
    """, "pool.cpp")
    reach = ThreadReach({"pool.h": header, "pool.cpp": source})
    assert [start.entries for start in reach.starts_in("launch")] == [("serve",)]
    assert reach.starts_in("queue") == []
    other = facts_of("struct Farm { std::vector<Worker> workers_; };", "farm.h")
    assert ThreadReach({"pool.h": header, "pool.cpp": source,
                        "farm.h": other}).starts_in("launch") == []


def test_the_class_each_function_is_a_member_of():
    owners = {function.name: function.owner for function in facts_of("""
        namespace ns { class Pool { public: Pool() {} void drain() {} }; }
        ns::Pool::Pool(int n) {}
        void Pool::submit(int job) {}
        template <typename T> void Ring<T>::push(T value) {}
        struct Queue { template <typename T> void put(T value) {} };
        namespace io { void flush_all() {} }
        void io::close_all() {}
        static void helper() {}
    """).functions}
    assert owners == {"Pool": "Pool", "drain": "Pool", "submit": "Pool", "push": "Ring",
                      "put": "Queue", "flush_all": "", "close_all": "io", "helper": ""}


def test_a_constructor_initializer_starts_a_thread_only_in_a_thread_member():
    header = facts_of("""
        class Worker {
            std::thread loop_thread_;
            std::function<void()> on_done_;
            std::vector<int> sizes_;
        };
    """, "worker.h")
    source = facts_of("""
        Worker::Worker(std::function<void()> done)
            : on_done_(notify), sizes_(count), loop_thread_(&Worker::loop, this) {}
        void Worker::loop() { cudaDeviceSynchronize(); }
    """, "worker.cpp")
    assert {(start.entries, start.holder) for start in source.starts} == {
        (("notify",), "on_done_"), (("count",), "sizes_"), (("loop",), "loop_thread_")}
    reach = ThreadReach({"worker.h": header, "worker.cpp": source})
    assert [start.holder for _, start in reach.constructor_starts("Worker")] == ["loop_thread_"]


def _capture_project(tmp_path, before: str):
    """A capture in `record` after the calls `before`; `launch_all` starts, two calls down, a
    thread left running in a vector of threads declared in a header (`spawn.cpp` holds no
    thread word), whose code calls CUDA; `finish` joins it, two calls down; `get` is defined
    in 4 files that start and join nothing."""
    files = {
        "capture.cu": "void record(cudaStream_t s) {\n  " + before
                      + "\n  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n}\n",
        "launch.cpp": "void launch_all() { spawn(); }\n",
        "pool.h": "struct Pool { std::vector<std::thread> pool_; };\n",
        "spawn.cpp": "void Pool::spawn() { pool_.emplace_back(work); }\n",
        "work.cu": "void work() { cudaMemcpy(dst, src, 4, cudaMemcpyDefault); }\n",
        "finish.cpp": "void finish() { stop(); }\nvoid stop() { drain(); }\n",
        "drain.cpp": "void Pool::drain() { for (auto &t : pool_) t.join(); }\n",
        **{f"get{n}.cpp": f"int get() {{ return {n}; }}\nint use{n}() {{ return get(); }}\n"
           for n in range(4)},
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    paths = [(str(tmp_path / name), "cpp")
             for name in sorted(files)]
    settings = Settings(enabled=frozenset())
    index = ProjectIndex(paths, settings, Linter(settings, {}).parse_for_index)
    seeds = C_THREAD_REACH.seed_words(facts_context((tmp_path / "capture.cu").read_text(),
                                                    str(tmp_path / "capture.cu")))
    facts = index.facts(C_THREAD_REACH, seeds)
    return ThreadReach(facts), {os.path.basename(path) for path in facts}


def test_threads_running_at_a_capture_are_searched_up_from_the_starts(tmp_path):
    reach, read = _capture_project(tmp_path, "get(); launch_all(); get();")
    running = list(reach.running_at("record", 3))
    assert [[step.name for step in found.to_start] for found in running] == [
        ["record", "launch_all", "spawn"]]
    assert running[0].cuda[2] == "cudaMemcpy"
    assert not any(name.startswith("get") for name in read)  # (no definition of get read)


def test_a_join_two_calls_down_from_a_later_call_ends_the_thread(tmp_path):
    reach, _ = _capture_project(tmp_path, "launch_all(); finish();")
    assert list(reach.running_at("record", 3)) == []
