"""Where a C++ throw goes (`analysis.c_throws`) and the errno tests a failure path reads for it
(`c_errno_fallbacks.errno_condition`); end to end: tests/rules/CUR601/throws_to_callers."""

from __future__ import annotations

import textwrap

from cursedlint.analysis.c_errno_fallbacks import errno_condition
from cursedlint.analysis.c_throws import (
    ANY, catches, handlers_around, leaves, thrown_type, throw_calls,
)
from cursedlint.c.context import CContext, descendants, parse
from cursedlint.context import FileContext
from cursedlint.settings import Settings
from cursedlint.source import Source


def context_of(code: str, language: str = "cpp") -> CContext:
    data = textwrap.dedent(code).encode()
    return CContext(Source.from_bytes(f"a.{language}", data, language),
                    Settings(enabled=frozenset()), parse(data, language))


def nodes(context, kind: str) -> list:
    return [node for node in descendants(context.root) if node.type == kind]


READER = """\
    size_t Reader::fetch(uintptr_t at, size_t len, void *out)
    {
        try {
            if (copy(at, len, out) < 0)
                throw std::system_error(errno, std::generic_category());
        } catch (const BadAddress &) {
            return 0;
        }
        try {
            if (copy(at, len, out) < 0)
                throw std::system_error(errno, std::generic_category());
        } catch (const std::runtime_error &err) {
            log_error(err.what());
            return read_proc_mem(at, len, out);
        }
        try {
            if (copy(at, len, out) < 0)
                throw Denied{at};
        } catch (...) {
            std::abort();
        }
        try {
            if (copy(at, len, out) < 0)
                throw Denied{at};
        } catch (...) {
            throw;
        }
        auto retry = [&] { if (copy(at, len, out) < 0) throw Denied{at}; };
        retry();
        return len;
    }

    Reader::Reader(pid_t pid) : pid_(pid)
    {
        if (pid <= 0)
            throw std::invalid_argument("pid");
    }
"""


def test_the_type_a_throw_makes_and_the_handlers_that_may_catch_it():
    context = context_of(READER)
    throws = nodes(context, "throw_statement")
    assert [thrown_type(context, throw) for throw in throws] == [
        "std::system_error", "std::system_error", "Denied", "Denied", None, "Denied",
        "std::invalid_argument"]
    assert catches("std::runtime_error", "std::system_error")
    assert catches("std::exception", "std::system_error") and catches(ANY, "std::system_error")
    assert not catches("BadAddress", "std::system_error")
    assert not catches("std::logic_error", "std::system_error")
    assert catches("Error", "Denied") and catches("std::runtime_error", "Denied")  # may derive
    assert catches("BadAddress", None)  # a value thrown: its type is not known
    assert not catches("std::logic_error", "runtime_error")  # (`using namespace std;`)
    assert catches("BadAddress", "runtime_error")  # perhaps the project's own class


def test_a_throw_leaves_its_function_unless_a_handler_around_it_may_catch_and_recover():
    context = context_of(READER)
    throws = nodes(context, "throw_statement")
    assert handlers_around(context, throws[0]) == ("BadAddress",)
    assert handlers_around(context, throws[1]) == ("std::runtime_error",)
    assert handlers_around(context, throws[2]) == ()  # the handler aborts: no recovery
    assert handlers_around(context, throws[3]) == ()  # it throws again
    assert handlers_around(context, throws[5]) is None  # inside a lambda
    assert [leaves(context, throw) for throw in throws] == [
        True, False, True, True, True, False, False]  # (`throw;` of a handler leaves too;
    # the last, a constructor's, is called otherwise than by name)


def test_each_function_lists_its_calls_with_the_handlers_around_them():
    context = context_of("""\
        void Sampler::tick()
        {
            try {
                memory_->read(sp_, buf_, sizeof buf_);
            } catch (const std::system_error &) {
                fallback_.read(sp_, buf_, sizeof buf_);
            }
            this->flush();
            ns::emit<int>(1);
        }

        PYBIND11_MODULE(_sampler, m)
        {
            m.def("tick", &Sampler::tick).def("stop", &stop_sampling);
        }
        """)
    found = throw_calls(context)
    assert sorted(found.functions["tick"]) == [
        ("emit", (), 9), ("flush", (), 8), ("read", (), 6),
        ("read", ("std::system_error",), 4)]
    assert found.bound == {"tick": 14, "stop_sampling": 14}


def test_a_cython_file_binds_the_names_it_calls_or_declares_translating_exceptions():
    data = textwrap.dedent("""\
        cdef extern from "reader.h":
            size_t read_frame(uintptr_t at, size_t len, void *out)
            size_t read_page(uintptr_t at,
                             void *out) except+  # a C++ exception becomes a Python one
            int flags(int which)  # except + would translate
        def frame(self, at, size):
            return self.reader.get().read_frame(at, size, self.buffer)
        """).encode()
    context = FileContext(Source.from_bytes("walker.pyx", data, "cython"),  # (its bytes alone)
                          Settings(enabled=frozenset()))
    assert throw_calls(context).bound == {"read_page": 3, "get": 7, "read_frame": 7}


def test_errno_tests_a_failure_path_reads_for_a_throw():
    context = context_of("""\
        void f(int fd) {
            const int err = errno;
            if (errno == EFAULT || errno == ENOMEM) g();
            if (err != ENOSYS && err != EPERM) g();
            if (errno == EAGAIN && tries < 3) g();
            if (code == ENOSYS) g();
        }
        """)
    conditions = [statement.child_by_field_name("condition")
                  for statement in nodes(context, "if_statement")]
    assert [errno_condition(context, condition) for condition in conditions] == [
        (frozenset({"EFAULT", "ENOMEM"}), True), (frozenset({"ENOSYS", "EPERM"}), False),
        None, None]
