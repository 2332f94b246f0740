import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))  # tests import their shared helpers by name


@pytest.fixture(autouse=True)
def _outside_ci(monkeypatch):
    """Tests run as outside CI, whatever runs them: in a GitHub or GitLab job, reports would
    name files relative to its checkout (`formats.report_root`), not to the test's project."""
    from cursedlint.formats.shared import CHECKOUT_VARIABLES

    for variable in CHECKOUT_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
