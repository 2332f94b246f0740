"""The class a C++ member call is made on (cursedlint/analysis/c_receivers.py): from the
declared types of parameters, locals, members, getters, smart pointers, sequences and `auto`
initializers; silent where no declaration in view says."""

from __future__ import annotations

import textwrap

import pytest

from cursedlint.analysis.c_receivers import Receivers, member_calls
from cursedlint.c.context import CContext, parse
from cursedlint.settings import Settings
from cursedlint.source import Source

CLASSES = """\
    namespace ib {
    class Pd {
     public:
      int regMr(void* addr, size_t len, int access);
      Pd* self();
      static std::shared_ptr<Pd> shared();
    };
    struct Rail { Pd* pd; Pd pds[4]; };
    class Owner {
      Pd pd_;
      std::unique_ptr<Pd> owned_;
      std::optional<Pd> maybe_;
      std::vector<Rail> rails_;
      const Pd& domain() const;
      void go(Pd& p, Pd* q, char* b);
      int regMr(void*, size_t, int);
    };
    }
    """


def context_of(code: str, language: str = "cpp") -> CContext:
    data = (textwrap.dedent(CLASSES) + textwrap.dedent(code)).encode()
    return CContext(Source.from_bytes(f"a.{language}", data, language),
                    Settings(enabled=frozenset()), parse(data, language))


def receiver(statement: str, declarations: str = "") -> str | None:
    context = context_of(f"""\
        void ib::Owner::go(Pd& p, Pd* q, char* b) {{
          {declarations}
          {statement}
        }}
        """)
    calls = list(member_calls(context, {"regMr"}))
    assert len(calls) == 1
    return Receivers(context).receiver_class(calls[0][1])


@pytest.mark.parametrize("statement, declarations", [
    ("p.regMr(b, 1, 0);", ""),                              # a reference parameter
    ("q->regMr(b, 1, 0);", ""),                             # a pointer parameter
    ("(*q).regMr(b, 1, 0);", ""),
    ("pd_.regMr(b, 1, 0);", ""),                            # a member of the caller's class
    ("this->pd_.regMr(b, 1, 0);", ""),
    ("owned_->regMr(b, 1, 0);", ""),                        # unique_ptr's ->
    ("maybe_->regMr(b, 1, 0);", ""),                        # optional's ->
    ("rails_[0].pd->regMr(b, 1, 0);", ""),                  # a vector's element's member
    ("rails_[1].pds[2].regMr(b, 1, 0);", ""),               # an array member's element
    ("rails_.at(1).pd->regMr(b, 1, 0);", ""),
    ("domain().regMr(b, 1, 0);", ""),                       # a getter's return type
    ("p.self()->regMr(b, 1, 0);", ""),
    ("Pd::shared()->regMr(b, 1, 0);", ""),                  # a static member function's
    ("s->regMr(b, 1, 0);", "auto s = ib::Pd::shared();"),
    ("x->regMr(b, 1, 0);", "auto x = std::make_unique<Pd>();"),
    ("y->regMr(b, 1, 0);", "auto* y = new Pd();"),
    ("z.regMr(b, 1, 0);", "const auto& z = domain();"),
    ("w.regMr(b, 1, 0);", "Pd w;"),
    ("for (auto& rail : rails_) rail.pd->regMr(b, 1, 0);", ""),
])
def test_receivers_of_a_known_class(statement, declarations):
    assert receiver(statement, declarations) == "Pd"


@pytest.mark.parametrize("statement, declarations", [
    ("q.regMr(b, 1, 0);", ""),                  # `.` on a pointer
    ("p->regMr(b, 1, 0);", ""),                 # `->` on an object of no pointer-like class
    ("unknown.regMr(b, 1, 0);", ""),            # declared nowhere in view (a global, a base's)
    ("x->regMr(b, 1, 0);", "auto x = lookup();"),
])
def test_receivers_not_known_are_none(statement, declarations):
    assert receiver(statement, declarations) is None


def test_the_declaration_in_scope_and_a_templates_own_class():
    assert receiver("v.regMr(b, 1, 0);", "{ Pd v; } Rail v;") == "Rail"
    assert receiver("rails_.regMr(b, 1, 0);") == "vector"


def test_unqualified_and_this_calls_are_on_the_callers_class():
    for statement in ("regMr(b, 1, 0);", "this->regMr(b, 1, 0);"):
        assert receiver(statement) == "Owner"
    context = context_of("void free_function(char* b) { regMr(b, 1, 0); }")
    (_, call), = member_calls(context, {"regMr"})
    assert Receivers(context).receiver_class(call) is None


def test_class_bodies_of_other_texts_count():
    header = context_of("class Channel { Pd* pd_; int open(char* b); };")
    data = b"int Channel::open(char* b) { return pd_->regMr(b, 1, 0); }"
    context = CContext(Source.from_bytes("b.cpp", data, "cpp"), Settings(enabled=frozenset()),
                       parse(data, "cpp"))
    (_, call), = member_calls(context, {"regMr"})
    assert Receivers(context).receiver_class(call) is None
    assert Receivers(context, [header]).receiver_class(call) == "Pd"


def test_members_declared_differently_by_two_bodies_are_unknown():
    context = context_of("""\
        class Channel { Pd* pd_; int open(char* b); };
        namespace other { class Channel { Owner* pd_; }; }
        int Channel::open(char* b) { return pd_->regMr(b, 1, 0); }
        """)
    (_, call), = member_calls(context, {"regMr"})
    assert Receivers(context).receiver_class(call) is None


def test_members_inherited_from_a_base_class():
    context = context_of("""\
        class Base { protected: Pd* pd_; public: int regMr(void*, size_t, int); };
        class Left { public: int regMr(void*, size_t, int); };
        class Derived : public Base { int open(char* b); };
        class Both : public Base, public Left {};
        class Own : public Base { public: int regMr(void*, size_t, int); };
        int Derived::open(char* b) { return pd_->regMr(b, 1, 0); }
        """)
    receivers = Receivers(context)
    (_, call), = member_calls(context, {"regMr"})
    assert receivers.receiver_class(call) == "Pd"
    assert [receivers.declaring(holder, "regMr") for holder in (
        "Derived", "Both", "Own", "Unseen")] == ["Base", None, "Own", "Unseen"]


ALIASES = """\
    namespace ib {
    using PdAlias = Pd;
    typedef Pd *PdRef;
    typedef struct Pd PdStruct;
    using PdShared = std::shared_ptr<Pd>;
    typedef PdAlias PdAgain;
    #ifdef DRY
    using Chosen = Owner;
    #else
    using Chosen = Pd;
    #endif
    }
    """


@pytest.mark.parametrize("statement, declarations, expected", [
    ("a.regMr(b, 1, 0);", "PdAlias a;", "Pd"),              # using
    ("r->regMr(b, 1, 0);", "PdRef r = q;", "Pd"),           # a pointer typedef
    ("r.regMr(b, 1, 0);", "PdRef r = q;", None),            # (`.` on a pointer)
    ("t.regMr(b, 1, 0);", "PdStruct t;", "Pd"),             # typedef struct
    ("s->regMr(b, 1, 0);", "PdShared s;", "Pd"),            # an alias of a smart pointer
    ("g.regMr(b, 1, 0);", "PdAgain g;", "Pd"),              # an alias of an alias
    ("c.regMr(b, 1, 0);", "Chosen c;", None),               # aliases that disagree
])
def test_receivers_through_type_aliases(statement, declarations, expected):
    context = context_of(textwrap.dedent(ALIASES) + textwrap.dedent(f"""\
        void ib::Owner::go(Pd& p, Pd* q, char* b) {{
          {declarations}
          {statement}
        }}
        """))
    calls = list(member_calls(context, {"regMr"}))
    assert Receivers(context).receiver_class(calls[0][1]) == expected
