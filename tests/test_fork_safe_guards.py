"""CUR103 in C/C++: code that honours, probes or guards the setting stays silent; names given
through locals; libfabric provider variables (fi_efa(7), fi_cxi(7)). Each shape with the
look-alike that is still reported."""

from __future__ import annotations

from functools import partial

import pytest

from cursedlint.rules.process_spawning import ForkSafeModeEnabled

import harness


findings = partial(harness.lint, rules=ForkSafeModeEnabled, path="fork.c")


def lines(code: str, **kwargs) -> list[int]:
    return [finding.line for finding in findings(code, **kwargs)]


# -- ibv_fork_init() that honours, guards or probes ---------------------------------------------------

HONOURS_USER = """
#include <stdio.h>
#include <stdlib.h>
#include <infiniband/verbs.h>

static int env_set(const char *name)
{
    const char *value = getenv(name);
    return value && *value;
}

int verbs_library_init(void)
{
    if (env_set("RDMAV_FORK_SAFE") || env_set("IBV_FORK_SAFE"))
        if (ibv_fork_init())
            fprintf(stderr, "fork protection requested but unavailable\\n");
    return 0;
}
"""


def test_call_made_only_when_the_user_set_the_variable_is_silent():
    assert lines(HONOURS_USER) == []


def test_call_under_an_unrelated_condition_is_reported():
    assert lines(HONOURS_USER.replace('env_set("RDMAV_FORK_SAFE") || env_set("IBV_FORK_SAFE")',
                                      'env_set("VERBS_LOG_FILE")')) == [15]


KERNEL_GUARD = """
#include <infiniband/verbs.h>

int enable_fork_protection(void)
{{
{guard}
}}
"""


@pytest.mark.parametrize("guard", [
    "    if (ibv_is_fork_initialized() == IBV_FORK_UNNEEDED)\n        return 0;\n"
    "    return ibv_fork_init();",
    "    if (ibv_is_fork_initialized() != IBV_FORK_UNNEEDED)\n        return ibv_fork_init();\n"
    "    return 0;",
    "    enum ibv_fork_status status = ibv_is_fork_initialized();\n"
    "    if (status == IBV_FORK_UNNEEDED) {\n        return 0;\n    }\n"
    "    return ibv_fork_init();",
])
def test_call_guarded_by_the_kernel_probe_is_silent(guard):
    assert lines(KERNEL_GUARD.format(guard=guard)) == []


def test_unguarded_call_is_reported():
    assert lines(KERNEL_GUARD.format(guard="    return ibv_fork_init();")) == [6]


PREDICATE_HELPER = """
#include <infiniband/verbs.h>

static int {name}(void)
{{
{body}
}}

int md_open(void)
{{
    if (!{name}()) {{
        return 0;
    }}
    return ibv_fork_init();
}}
"""


def test_call_guarded_by_a_helper_that_probes_the_kernel_is_silent():
    """The guard sits in a predicate of the same file (`if (!fork_init_needed()) return`)."""
    body = "    return ibv_is_fork_initialized() != IBV_FORK_UNNEEDED;"
    assert lines(PREDICATE_HELPER.format(name="fork_init_needed", body=body)) == []


def test_call_guarded_by_a_helper_that_asks_something_else_is_reported():
    body = '    return getenv("VERBS_LOG_FILE") == NULL;'
    assert lines(PREDICATE_HELPER.format(name="logging_off", body=body)) == [14]


PROBE = """
#include <stdlib.h>
#include <infiniband/verbs.h>

int fork_support_enabled(struct ibv_pd *pd, size_t page)
{{
    char *buf = malloc(page);
    struct ibv_mr *mr;
    int ret;

    {first}
    {second}
    ibv_dereg_mr(mr);
    free(buf);
    return ret == 0;
}}
"""
REGISTER = "mr = ibv_reg_mr(pd, buf, page, 0);"
PROBE_CALL = "ret = ibv_fork_init(); /* EINVAL once memory is registered */"


def test_probe_after_a_registration_is_silent():
    assert lines(PROBE.format(first=REGISTER, second=PROBE_CALL)) == []


def test_call_before_the_registration_is_reported():
    assert lines(PROBE.format(first=PROBE_CALL, second=REGISTER)) == [11]


STATUS = """
#include <stdlib.h>
#include <infiniband/verbs.h>

enum fork_mode {{ FORK_MODE_OFF, FORK_MODE_ON }};
static enum fork_mode fork_mode = FORK_MODE_OFF;

void fork_mode_from_environment(int requested_by_option)
{{
    fork_mode = FORK_MODE_OFF;
    if ({request})
        fork_mode = FORK_MODE_ON;
}}

int fork_mode_apply(void)
{{
    if (fork_mode == FORK_MODE_ON)
        return ibv_fork_init();
    return 0;
}}
"""


def test_call_under_a_status_set_from_the_users_variable_is_silent():
    request = 'requested_by_option || getenv("RDMAV_FORK_SAFE") || getenv("IBV_FORK_SAFE")'
    assert lines(STATUS.format(request=request)) == []


def test_status_set_later_in_the_calling_function_does_not_count():
    request = 'getenv("RDMAV_FORK_SAFE") != NULL'
    code = STATUS.format(request=request).replace(
        "        return ibv_fork_init();\n    return 0;",
        "        return ibv_fork_init();\n    if (another_library_enabled_it())\n"
        "        fork_mode = FORK_MODE_ON;\n    return 0;")
    assert "another_library_enabled_it" in code
    assert lines(code) == []


def test_call_under_a_status_the_code_sets_itself_is_reported():
    assert lines(STATUS.format(request="requested_by_option")) == [18]


# -- names given through locals ----------------------------------------------------------------------

LOCAL_NAME = """
#include <stdlib.h>

void request_fork_support(int legacy_libfabric)
{{
    {declaration}
    setenv(name, "1", 1);
}}
"""


@pytest.mark.parametrize("declaration, variables", [
    ('const char *name = "RDMAV_FORK_SAFE";', "RDMAV_FORK_SAFE"),
    ('const char *name = legacy_libfabric ? "RDMAV_FORK_SAFE" : "FI_EFA_FORK_SAFE";',
     "FI_EFA_FORK_SAFE or RDMAV_FORK_SAFE"),
    ('const char *name = (legacy_libfabric) ? ("IBV_FORK_SAFE") : "NCCL_DEBUG";',
     "IBV_FORK_SAFE"),
])
def test_name_through_a_local_is_reported(declaration, variables):
    [finding] = findings(LOCAL_NAME.format(declaration=declaration))
    assert finding.line == 7
    assert finding.message.startswith(f"setting {variables} turns on")


@pytest.mark.parametrize("declaration", [
    'const char *name = "NCCL_DEBUG";',
    'const char *name = legacy_libfabric ? "RDMAV_FORK_SAFE" : getenv("FORK_VAR");',
    'const char *name = "RDMAV_FORK_SAFE";\n    name = "NCCL_DEBUG";',
    'const char *name;',
])
def test_local_whose_value_is_not_a_fork_setting_or_unknown_is_silent(declaration):
    assert lines(LOCAL_NAME.format(declaration=declaration)) == []


# -- libfabric provider variables --------------------------------------------------------------------

def test_efa_variable_turns_on_ibv_fork_init():
    [finding] = findings('void f(void) { setenv("FI_EFA_FORK_SAFE", "1", 1); }\n')
    assert finding.message == ("setting FI_EFA_FORK_SAFE turns on fork protection: libfabric's "
                               "EFA provider then calls ibv_fork_init()")
    assert "MADV_DONTFORK" in finding.help


def test_cxi_variable_names_libcxi():
    [finding] = findings('void f(void) { putenv("CXI_FORK_SAFE=1"); }\n')
    assert finding.message.startswith("setting CXI_FORK_SAFE turns on libcxi's fork support")
    assert "fi_cxi(7)" in finding.explained


def test_cxi_huge_page_variable_alone_turns_nothing_on():
    assert lines('void f(void) { setenv("CXI_FORK_SAFE_HP", "1", 1); }\n') == []


@pytest.mark.parametrize("code, path", [
    ("export FI_EFA_FORK_SAFE=1\nCXI_FORK_SAFE=1 srun ./train\nexport CXI_FORK_SAFE_HP=1\n",
     "launch.sh"),
    ('import os\nos.environ["FI_EFA_FORK_SAFE"] = "1"\nos.environ["CXI_FORK_SAFE"] = "1"\n',
     "launch.py"),
])
def test_provider_variables_in_other_languages(code, path):
    reported = lines(code, path=path)
    assert reported == ([2, 3] if path.endswith(".py") else [1, 2])
