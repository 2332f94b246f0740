"""Assertions and where a call's result is stored (cursedlint/analysis/c_expectations.py): one
definition of an assertion for CUR601 (its `assert-names`) and the CUR3xx test expectations,
the value stored through parentheses and casts, and a registration asserted to fail
(end to end: tests/test_registered_memory.py)."""

from __future__ import annotations

import textwrap

import pytest

from cursedlint.analysis.c_expectations import (
    TEST_ASSERTIONS, Assertions, asserted_to_fail, stored_in,
)
from cursedlint.c.context import CContext, parse
from cursedlint.settings import Settings
from cursedlint.source import Source


def context_of(code: str, language: str = "cpp") -> CContext:
    data = textwrap.dedent(code).encode()
    return CContext(Source.from_bytes("mr_test.cc", data, language),
                    Settings(enabled=frozenset()), parse(data, language))


def call_of(context, name: str):
    return next(call for _, call in context.calls((name,)))


@pytest.mark.parametrize("name, test, cma", [
    ("assert", True, True),
    ("assert_int_equal", True, True),       # cmocka
    ("cr_assert_eq", True, True),           # Criterion
    ("CU_ASSERT_PTR_NULL", True, True),     # CUnit
    ("EXPECT_EQ", True, False),             # gtest: goes on after a failure
    ("Expect", True, False),
    ("CHECK_EQ", False, True),              # glog: aborts
    ("psm3_panic", False, True),
    ("log_error", False, False),
    ("", False, False),                     # not a named function
])
def test_one_definition_of_an_assertion_with_each_rules_words(name, test, cma):
    assert TEST_ASSERTIONS.asserts(name) == test
    assert Assertions(("assert", "ASSERT", "CHECK", "panic")).asserts(name) == cma


def test_spelled_finds_every_word_and_no_words_find_nothing():
    words = Assertions(("CHECK", "panic"))
    assert [m.group() for m in words.spelled.finditer(b"PCHECK(x); kernel_panic();")] == [
        b"CHECK", b"panic"]
    assert Assertions(()).spelled.search(b"assert(x);") is None


def test_the_assertion_around_a_call_stays_within_its_statement():
    context = context_of("""\
        void run(fid_domain *domain, fid_mr **mr, char *buf) {
          CHECK_EQ(fi_mr_reg(domain, buf, 64, 0, 0, 0, 0, mr, nullptr), -FI_EINVAL);
          if (CHECK_OK(domain)) { fi_close(&domain->fid); }
        }
        """)
    words = Assertions(("CHECK",))
    assert context.text(words.around(context, call_of(context, "fi_mr_reg"))).startswith(
        "CHECK_EQ(")
    assert words.around(context, call_of(context, "fi_close")) is None


@pytest.mark.parametrize("statement, target", [
    ("int ret = fi_mr_reg(domain, buf, 64, 0, 0, 0, 0, mr, nullptr);", "ret"),
    ("ret = (int)(fi_mr_reg(domain, buf, 64, 0, 0, 0, 0, mr, nullptr));", "ret"),
    ("int ret = static_cast<int>(fi_mr_reg(domain, buf, 64, 0, 0, 0, 0, mr, nullptr));", "ret"),
    ("state->ret = fi_mr_reg(domain, buf, 64, 0, 0, 0, 0, mr, nullptr);", "state->ret"),
    ("ret += fi_mr_reg(domain, buf, 64, 0, 0, 0, 0, mr, nullptr);", None),
    ("fi_mr_reg(domain, buf, 64, 0, 0, 0, 0, mr, nullptr);", None),
    ("use(fi_mr_reg(domain, buf, 64, 0, 0, 0, 0, mr, nullptr));", None),
])
def test_stored_in(statement, target):
    context = context_of(f"void run(fid_domain *domain, fid_mr **mr, char *buf) {{\n"
                         f"  int ret;\n  {statement}\n}}\n")
    outer, user, found = stored_in(context, call_of(context, "fi_mr_reg"))
    assert (context.text(found) if found is not None else None) == target
    assert user is not None and outer.start_byte <= call_of(context, "fi_mr_reg").start_byte


@pytest.mark.parametrize("assertion, failing", [
    ("EXPECT_EQ(ret, -FI_ENOMEM);", True),
    ("EXPECT_EQ(ret, 0);", False),
    ("CHECK_EQ(ret, -FI_ENOMEM);", False),   # not one of the test words
])
def test_a_registration_stored_through_a_named_cast_is_asserted_to_fail(assertion, failing):
    context = context_of(f"""\
        TEST_F(MrTest, FullMap) {{
          int ret = static_cast<int>(fi_mr_reg(domain_, buf_, 64, 0, 0, 0, 0, &mr_, nullptr));
          {assertion}
        }}
        """)
    assert asserted_to_fail(context, call_of(context, "fi_mr_reg"), False) == failing
