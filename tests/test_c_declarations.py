"""The declarations of a name in a C/C++ file: the table made past the file's first questions
answers as the tokens do, and costs no lookup of a token per question."""

import re
import textwrap

import pytest

from cursedlint.analysis import c_declarations
from cursedlint.analysis.c_memory import declarations, declarations_in
from cursedlint.c.context import CContext, parse
from cursedlint.settings import Settings
from cursedlint.source import Source

OWNERS = [("declaration", "parameter_declaration"), ("declaration",), ("field_declaration",)]

C_CODE = """\
#include <stdlib.h>
#define DECLARE(x) int x
struct ring { char *slots; int (*hook)(int n); struct { long depth; } inner; };
static char *pool, table[4][8], **rows = 0;
int (*handler)(int n, char *buf);
typedef struct ring ring_t;
static int post(struct ring *ring, char *buf, size_t len) {
    char *slots = ring->slots, *tail;
    int n = (int)len, depth[2] = {0};
    for (int i = 0; i < n; i++) { char buf[16]; tail = buf + i; }
    if (n) { long len = 4; (void)len; }
    DECLARE(hidden);
    return ({ int inner = n; inner; }) + (slots != tail);
}
void broken(int a,
"""

CPP_CODE = """\
#include <vector>
namespace net {
struct Conn { char *buf_; std::vector<int> ids; int Send(char *buf, int n); };
int Conn::Send(char *buf, int n) {
    auto done = [&](int n) { char *buf = nullptr; return buf != nullptr && n; };
    std::vector<char> copy(n);
    char *&alias = buf, *p[3];
    for (auto &id : ids) { int buf = id; (void)buf; }
    return done(n) + (alias == p[0]);
}
}  // namespace net
template <typename T> T twice(T value) { T buf = value; return buf + buf; }
"""


def context_of(code: str, language: str) -> CContext:
    data = textwrap.dedent(code).encode()
    return CContext(Source.from_bytes(f"a.{language}", data, language),
                    Settings(enabled=frozenset()), parse(data, language))


@pytest.mark.parametrize("code, language", [(C_CODE, "c"), (CPP_CODE, "cpp")])
def test_the_table_answers_as_the_tokens(code, language):
    context = context_of(code, language)
    regions = [None, *context.captures(
        "[(function_definition) (compound_statement) (lambda_expression)] @region"
        if language == "cpp" else "[(function_definition) (compound_statement)] @region",
        context.root).get("region", [])]
    table = c_declarations._Table()
    found = 0
    for name in sorted(set(re.findall(r"[A-Za-z_]\w*", code))):
        for region in regions:
            for owners in OWNERS:
                tokens = list(c_declarations.from_tokens(context, name, region, owners))
                assert table.declared(context, name, region, owners) == tokens, (name, owners)
                found += len(tokens)
    assert found > 40


def test_questions_past_the_first_look_up_no_token():
    functions = "".join(f"int f{i}(char *buf) {{ char *p{i} = buf; int n = {i}; return n + "
                        f"(p{i} != buf); }}\n" for i in range(300))
    context = context_of("static int n;\n" + functions, "c")
    scopes = sorted(context.captures("(function_definition) @f", context.root)["f"],
                    key=lambda node: node.start_byte)
    for scope in scopes[:c_declarations.TABLE_AFTER]:
        declarations_in(context, scope, "buf")
    moves = context._path.moves
    for index, scope in enumerate(scopes):
        assert [declarator.type for _, declarator in declarations_in(context, scope, "buf")] \
            == ["pointer_declarator"]
        assert len(declarations_in(context, scope, f"p{index}")) == 1
        assert len(declarations_in(context, scope, "n")) == 1
    assert len(declarations(context, "n", None, ("declaration",))) == 301
    assert context._path.moves == moves  # (each question of the tokens moves per place)
