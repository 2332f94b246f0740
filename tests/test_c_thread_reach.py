"""The per-file facts of `analysis.c_thread_reach`: which thread starts run several threads
at once, and which names resolve across files."""

from __future__ import annotations

import textwrap

from cursedlint.analysis.c_thread_reach import ThreadReach, thread_facts
from cursedlint.c.context import CContext, parse
from cursedlint.settings import Settings
from cursedlint.source import Source


def facts_of(code: str, path: str = "a.cpp"):
    data = textwrap.dedent(code).encode()
    return thread_facts(CContext(Source.from_bytes(path, data, "cpp"),
                                 Settings(enabled=frozenset()), parse(data, "cpp")))


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
