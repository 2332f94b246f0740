"""A file's registration wrappers found once for both lints of its tree, and found again where
what they read beyond the tree differs (`Registrations._wrapper_definitions`)."""

from __future__ import annotations

from cursedlint.analysis import rdma_registrations
from cursedlint.analysis.c_calling_macros import macro_shapes
from cursedlint.analysis.rdma_registrations import RegistrationFacts, Registrations
from cursedlint.c.context import CContext, parse
from cursedlint.settings import Settings
from cursedlint.source import Source

CODE = b"""\
#include <infiniband/verbs.h>
#include "trace.h"

struct ibv_mr *pin(struct ibv_pd *pd, void *buf, size_t len)
{
    return ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
}

struct ibv_mr *pin_traced(struct ibv_pd *pd, void *buf, size_t len)
{
    return TRACED(ibv_reg_mr, pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
}
"""

TRACE_H = b"#define TRACED(fn, ...) (trace_enter(#fn), fn(__VA_ARGS__))\n"


def test_the_wrappers_are_found_once_unless_another_file_adds_a_calling_macro(monkeypatch):
    source, settings = Source.from_bytes("mr.c", CODE, "c"), Settings(enabled=frozenset())
    first = CContext(source, settings, parse(CODE, "c"))
    made, finds = Registrations._defined_wrappers, []
    monkeypatch.setattr(Registrations, "_defined_wrappers",
                        lambda self: finds.append(1) or made(self))

    def wrappers(project):
        context = CContext(source, settings, first.tree, first.tree_index)
        return sorted(Registrations(context, project, gathered=True).file_wrappers)

    assert sorted(Registrations(first, {}).file_wrappers) == ["pin"] and len(finds) == 1
    assert wrappers({}) == ["pin"] and len(finds) == 1  # (the lint with facts: none new)
    tracing = {"/src/trace.h": RegistrationFacts(macros=macro_shapes(TRACE_H))}
    assert wrappers(tracing) == ["pin", "pin_traced"] and len(finds) == 2
    assert wrappers(tracing) == ["pin", "pin_traced"] and len(finds) == 2
    assert wrappers({}) == ["pin"] and len(finds) == 2
    assert rdma_registrations._WRAPPER_DEFINITIONS in first.tree_index.analyses



def test_the_wrappers_are_found_again_where_a_flags_answer_changed(monkeypatch):
    """`MR_FLAGS` unknown in the first lint (no project header read): `pin` is a wrapper; where
    the lint with facts values it IBV_ACCESS_ON_DEMAND (a project header's `(1 << 6)`: the
    value is given here as that lint's constants would give it), the call pins nothing and
    `pin` wraps no registration."""
    code = CODE.replace(b"IBV_ACCESS_LOCAL_WRITE", b"MR_FLAGS")
    source, settings = Source.from_bytes("mr.c", code, "c"), Settings(enabled=frozenset())
    first = CContext(source, settings, parse(code, "c"))
    assert sorted(Registrations(first, {}).file_wrappers) == ["pin"]
    again = CContext(source, settings, first.tree, first.tree_index)
    with_header = Registrations(again, {}, gathered=True)
    valued = with_header.value
    with_header.value = lambda node: 1 << 6 if again.text(node) == "MR_FLAGS" else valued(node)
    assert with_header.file_wrappers == {}
