"""A %-format's width or precision past int()'s 4,300-digit limit is too big to fold: the
constant evaluator says so without converting it (it raised ValueError: CUR000)."""

from __future__ import annotations

import pytest

import harness


@pytest.mark.parametrize("field", ["%" + "9" * 5_000 + "d", "%." + "9" * 5_000 + "f"])
def test_a_width_of_5000_digits_is_no_internal_error(field):
    code = f"import os, subprocess\nsubprocess.Popen(['{field}' % 1], preexec_fn=os.setsid)\n"
    findings = harness.lint(code, ["CUR101", "CUR000"])
    assert [finding.code for finding in findings] == ["CUR101"]
