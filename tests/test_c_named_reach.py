"""A C/C++ file named alone (pre-commit, an editor's save) sees the facts a run over the
whole project sees for it, drawn from what it reaches: its headers, the files beside it
where what it calls is defined, and the headers those files are read with."""

from __future__ import annotations

import pytest

from cursedlint.cli import main

from harness import write_project

BUF_LIST_H = """\
    /* A list of fixed-size buffers carved from blocks; a list made with a registration
       callback asks its owner to register each block it adds. */
    #ifndef BUF_LIST_H
    #define BUF_LIST_H
    #include <stddef.h>

    #define BUF_ALIGN_UP(x, a) ((((x) + (a) - 1) / (a)) * (a))

    typedef int (*buf_reg_fn)(void *owner, void *base, size_t len, void **desc);

    struct buf_block {
        struct buf_block *next;
        void *desc;
    };

    struct buf_list {
        size_t item_size;
        size_t per_block;
        buf_reg_fn reg;
        void *owner;
        struct buf_block *blocks;
    };

    int buf_list_open(size_t item_size, size_t per_block, buf_reg_fn reg, void *owner,
                      struct buf_list **out);
    #endif
"""

BUF_LIST_C = """\
    #include <stdlib.h>
    #include "buf_list.h"

    static int buf_list_add_block(struct buf_list *list)
    {
        size_t bytes = list->item_size * list->per_block;
        char *base = malloc(bytes + sizeof(struct buf_block));
        struct buf_block *block;

        if (base == NULL)
            return -1;
        block = (struct buf_block *)(base + bytes);
        if (list->reg && list->reg(list->owner, base, list->item_size * list->per_block,
                                   &block->desc) != 0) {
            free(base);
            return -1;
        }
        block->next = list->blocks;
        list->blocks = block;
        return 0;
    }

    int buf_list_open(size_t item_size, size_t per_block, buf_reg_fn reg, void *owner,
                      struct buf_list **out)
    {
        struct buf_list *list = malloc(sizeof(*list));

        if (list == NULL)
            return -1;
        list->item_size = BUF_ALIGN_UP(item_size, 16);
        list->per_block = per_block;
        list->reg = reg;
        list->owner = owner;
        list->blocks = NULL;
        if (buf_list_add_block(list) != 0) {
            free(list);
            return -1;
        }
        *out = list;
        return 0;
    }
"""

CONTROL_H = """\
    #ifndef CONTROL_H
    #define CONTROL_H
    #include <stdint.h>

    struct control_msg {
        uint64_t seq;
        uint32_t credits;
        uint32_t flags;
        uint8_t payload[%s];
    };
    #endif
"""

CONTROL_C = """\
    #include <infiniband/verbs.h>
    #include "buf_list.h"
    #include "control.h"

    struct channel {
        struct ibv_pd *pd;
        struct buf_list *controls;
    };

    static int channel_reg(void *owner, void *base, size_t len, void **desc)
    {
        struct channel *chan = owner;

        *desc = ibv_reg_mr(chan->pd, base, len, IBV_ACCESS_LOCAL_WRITE);
        return *desc ? 0 : -1;
    }

    int channel_open(struct channel *chan)
    {
        return buf_list_open(sizeof(struct control_msg), 4, channel_reg, chan,
                             &chan->controls);
    }
"""


def _project(root, payload: str, top: str = ".git/HEAD") -> None:
    """The buffer list in src/ with its header in include/, the channel that creates one
    with a registering callback beside it, its message layout in include/ too (read only
    through the channel's include). `top`: what makes the tree a project (a git work tree, or
    an unpacked release's `configure.ac`)."""
    write_project(root, {
        top: "",
        "Makefile.am": "AM_CPPFLAGS = -I$(top_srcdir)/include\n",
        "include/buf_list.h": BUF_LIST_H,
        "include/control.h": CONTROL_H % payload,
        "src/buf_list.c": BUF_LIST_C,
        "src/control.c": CONTROL_C,
    })


def _findings(paths: list[str], capsys) -> list[str]:
    main(["check", "--no-cache", "--concise", "--select", "CUR301,CUR302", *paths])
    return [" ".join(line.split(" ", 2)[:2])
            for line in capsys.readouterr().out.splitlines() if " CUR" in line]


@pytest.mark.parametrize("top", [".git/HEAD", "configure.ac"], ids=["git", "release"])
@pytest.mark.parametrize("paths", [["."], ["src/buf_list.c"]], ids=["whole", "named"])
def test_a_caller_beside_the_file_is_read_with_the_headers_it_includes(
        tmp_path, monkeypatch, capsys, paths, top):
    """The block's length is `sizeof(struct control_msg)` (a 96-byte message, 16-aligned, 4
    a block: 384 bytes) at the channel's call, a struct of the channel's own header: the
    list's file named alone reaches only its own header, so the channel's header is read as
    the channel's facts need it; in a git work tree and in an unpacked release alike."""
    _project(tmp_path, "80", top)
    monkeypatch.chdir(tmp_path)
    assert _findings(paths, capsys) == ["src/buf_list.c:13:51: CUR301"]


@pytest.mark.parametrize("paths", [["."], ["src/buf_list.c"]], ids=["whole", "named"])
def test_whole_page_messages_are_silent_both_ways(tmp_path, monkeypatch, capsys, paths):
    """The same list with 1008-byte payloads (1,024-byte messages, 4 a block: one page)."""
    _project(tmp_path, "1008")
    monkeypatch.chdir(tmp_path)
    assert _findings(paths, capsys) == []


WIRE_H = """\
    #ifndef WIRE_H
    #define WIRE_H
    #include <stdint.h>

    struct wire_msg {
        uint64_t tag;
        uint8_t body[%d];
    };
    #endif
"""

POST_C = """\
    #include <stdlib.h>
    #include <infiniband/verbs.h>
    #include "wire.h"

    struct ibv_mr *post_buffer(struct ibv_pd *pd, struct wire_msg **out)
    {
        void *msg;

        if (posix_memalign(&msg, 4096, sizeof(struct wire_msg)) != 0)
            return NULL;
        *out = msg;
        return ibv_reg_mr(pd, msg, sizeof(struct wire_msg), IBV_ACCESS_LOCAL_WRITE);
    }
"""


@pytest.mark.parametrize("paths", [["."], ["core/src/post.c"]], ids=["whole", "named"])
@pytest.mark.parametrize("makefile, expected", [
    ("AM_CPPFLAGS = -I$(top_srcdir)/proto/include\n", ["core/src/post.c:12:32: CUR301"]),
    ("AM_CPPFLAGS = -I$(top_srcdir)/core/include\n", []),
    ("", []),
], ids=["proto", "core", "no-build-file"])
def test_the_header_a_build_file_names_is_the_one_read_both_ways(
        tmp_path, monkeypatch, capsys, paths, makefile, expected):
    """`"wire.h"` from core/src/post.c, with two headers of that name: proto's (an 88-byte
    message, not on the file's path up to the root) and core's (a whole page), each message
    page-aligned. The build file's `-I` decides which the compiler reads; without one, the
    nearest (core's). A run over the file alone reads the same header as a run over the
    whole project."""
    write_project(tmp_path, {
        ".git/HEAD": "",
        "core/Makefile.am": makefile,
        "core/include/wire.h": WIRE_H % 4088,
        "proto/include/wire.h": WIRE_H % 80,
        "core/src/post.c": POST_C,
    })
    monkeypatch.chdir(tmp_path)
    assert _findings(paths, capsys) == expected


SLAB_C = """\
    #include <infiniband/verbs.h>
    #include "slab_access.h"

    struct ibv_mr *slab_map(struct ibv_pd *pd, void *slab, size_t len)
    {
        return ibv_reg_mr(pd, slab, len, SLAB_ACCESS);
    }
"""

STAGE_C = """\
    #include <stdlib.h>
    #include <infiniband/verbs.h>

    struct ibv_mr *slab_map(struct ibv_pd *pd, void *slab, size_t len);

    static struct ibv_mr *stage(struct ibv_pd *pd, size_t n)
    {
        char *buf = malloc(n);
        return ibv_reg_mr(pd, buf, n, IBV_ACCESS_LOCAL_WRITE);
    }

    struct ibv_mr *stage_small(struct ibv_pd *pd)
    {
        return stage(pd, 100);
    }

    struct ibv_mr *map_header(struct ibv_pd *pd)
    {
        return slab_map(pd, malloc(64), 64);
    }
"""


@pytest.mark.parametrize("paths", [["."], ["src/stage.c"]], ids=["whole", "named"])
@pytest.mark.parametrize("bits, expected", [
    ("1 << 6", ["src/stage.c:14:22: CUR301"]),
    ("1 << 0", ["src/stage.c:14:22: CUR301", "src/stage.c:19:37: CUR301"]),
], ids=["on-demand", "local-write"])
def test_another_file_s_wrapper_is_judged_with_its_header_s_access_flags_both_ways(
        tmp_path, monkeypatch, capsys, paths, bits, expected):
    """`slab_map()` registers with flags its header defines: on-demand (`1 << 6`) it pins
    nothing, and the 64 bytes given it are no finding; local write pins them. Named alone, the
    caller's run reads the header of the wrapper's file too (its own registration's length,
    known at its caller, makes the run read only the files its values come from)."""
    write_project(tmp_path, {
        ".git/HEAD": "",
        "src/slab_access.h": f"#define SLAB_ACCESS ({bits})\n",
        "src/slab.c": SLAB_C,
        "src/stage.c": STAGE_C,
    })
    monkeypatch.chdir(tmp_path)
    assert _findings(paths, capsys) == expected
