"""The field-based call graph of C/C++ function pointers (cursedlint/analysis/c_function_pointers.py):
what one file stores in fields and passes to functions, how the project's flows combine, the
bound on candidates, and the calls through fields."""

from __future__ import annotations

import textwrap

from cursedlint.analysis.c_function_pointers import (
    MAX_CANDIDATES, Candidate, FieldFlows, FunctionPointerGraph, built_for, called_text,
    field_flows, indirect_calls, stores_by_bytes, written_as_arguments,
)
from cursedlint.analysis.c_syntax import ARGUMENT_NAME
from cursedlint.c.context import CContext, parse
from cursedlint.findings import Step
from cursedlint.settings import Settings
from cursedlint.source import Source


def context_of(code: str, language: str = "c", path: str = "a.c") -> CContext:
    data = textwrap.dedent(code).encode()
    return CContext(Source.from_bytes(path, data, language), Settings(enabled=frozenset()),
                    parse(data, language))


TABLES = """\
static int open_dev(void *dev);
static int close_dev(void *dev) { return 0; }
extern void *pick(void);

struct ops table = {
    .open = open_dev,
    .close = &close_dev,
    .limits.check = (check_fn)open_dev,
    .name = "dev",
    .flags = 0, .size = 0x40,
    .spare = NULL,
};

void install(struct dev *dev, open_fn custom, int depth)
{
    dev->ops.open = open_dev;
    dev->ops.close = dev->fallback.close;
    dev->probe = pick();
    dev->depth = depth;
    dev->hook = custom;
    dev->count += 1;
    register_hook(dev, close_dev, 3);
    register_hook(dev, &open_dev, depth);
    register_hook(dev, (hook_fn)close_dev, depth);
}
"""


def test_a_file_s_stores_parameters_and_passes():
    flows = field_flows(context_of(TABLES))
    assert flows.stores == {"open": [("open_dev", 6), ("open_dev", 16)],
                            "close": [("close_dev", 7)], "check": [("open_dev", 8)]}
    # a string, a call's result: values that are no function make the field unknown; NULL, 0
    # and a copy from a field of the same name add nothing; `+=` is no store
    assert flows.unknown == ["name", "probe", "size"]
    assert flows.parameters == {"install": [(2, "depth", 19), (1, "hook", 20)]}
    assert flows.passes == [("register_hook", 1, "close_dev", 22),
                            ("register_hook", 1, "open_dev", 23),
                            ("register_hook", 1, "close_dev", 24)]


def test_a_stored_name_is_kept_even_where_the_file_does_not_declare_it():
    # a library function (declared in a system header), or a variable or macro that then
    # agrees with no rule's question
    code = """\
        struct op ops[] = { { .fn = process_vm_readv }, { .fn = COPY_DEFAULT } };
        void set(struct op *op, void *buffer) { void *local = buffer; op->fn = local; }
        """
    flows = field_flows(context_of(code))
    assert flows.stores == {"fn": [("process_vm_readv", 1), ("COPY_DEFAULT", 1), ("local", 2)]}
    assert not field_flows(context_of("int x;\n"))


def test_a_stored_parameter_named_as_a_function_of_the_file_is_a_parameter_flow():
    # the nearest function's parameters decide before the file's functions; NULL in a cast
    # and parentheses, and 0, add nothing; `0L` is a value that is no function
    code = """\
        static int reset(void *dev) { return 0; }
        void attach(struct dev *dev, reset_fn reset)
        {
            dev->reset = reset;
            dev->spare = (void *)(NULL);
        }
        void detach(struct dev *dev) { dev->reset = reset; dev->spare = 0; dev->size = 0L; }
        """
    flows = field_flows(context_of(code))
    assert flows.parameters == {"attach": [(1, "reset", 4)]}
    assert flows.stores == {"reset": [("reset", 7)]}
    assert flows.unknown == ["size"]


def test_functions_declared_in_namespaces_and_extern_c_blocks_count_in_cpp():
    code = """\
        namespace net {
        extern "C" {
        int send_frame(void *frame);
        }
        }
        void wire(Port &port) { port.send = net::send_frame; attach(port, send_frame); }
        """
    flows = field_flows(context_of(code, "cpp", "a.cpp"))
    assert flows.passes == [("attach", 1, "send_frame", 6)]
    assert flows.unknown == ["send"]  # a qualified name is not followed


def test_calls_through_fields():
    context = context_of("""\
        void run(struct dev *dev, struct op *tbl, struct op local, int i)
        {
            dev->ops->open(dev);
            (*dev->ops->close)(dev);
            tbl[i].open(dev);
            local.open(dev);
            open(dev);
            dev->open = 0;
            int (*f)(void *) = dev->open;
        }
        """)
    found = indirect_calls(context, ["open", "close"])
    assert [(field, called_text(context, call)) for field, call in found] == [
        ("open", "dev->ops->open"), ("close", "(*dev->ops->close)"), ("open", "tbl[i].open"),
        ("open", "local.open")]
    assert indirect_calls(context, []) == []


def test_the_graph_joins_parameter_stores_to_the_functions_passed():
    slab = FieldFlows(parameters={"slab_init": [(2, "alloc", 10)]})
    user = FieldFlows(stores={"free": [("user_free", 3)]},
                      passes=[("slab_init", 2, "user_alloc", 7), ("slab_init", 1, "user_free", 7),
                              ("other_init", 2, "user_free", 8)])
    graph = FunctionPointerGraph({"/p/slab.c": slab, "/p/user.c": user})
    assert graph.fields() == {"alloc", "free"}
    assert graph.callees("alloc") == [
        Candidate("user_alloc", "/p/user.c", 7, ("/p/slab.c", 10, "slab_init"))]
    assert graph.callees("free") == [Candidate("user_free", "/p/user.c", 3)]
    assert graph.callees("other") is None
    assert graph.passed_to({"user_alloc"}) == {"slab_init"}
    assert graph.holding({"user_alloc"}) == {"alloc"}
    assert graph.callees("alloc")[0].steps("s->alloc") == (
        Step("/p/user.c", 7, "`user_alloc` is passed to `slab_init()`"),
        Step("/p/slab.c", 10, "`slab_init()` stores it in the field called as `s->alloc`"))
    assert graph.callees("free")[0].steps("ops.free") == (
        Step("/p/user.c", 3, "through `ops.free`, which holds `user_free`"),)
    assert graph.callees("alloc")[0].steps("s->alloc", "which pins it")[0] == Step(
        "/p/user.c", 7, "`user_alloc`, which pins it, is passed to `slab_init()`")
    assert graph.callees("free")[0].steps("ops.free", "which pins it") == (
        Step("/p/user.c", 3, "through `ops.free`, which holds `user_free`, which pins it"),)


def test_an_overlay_puts_the_linted_file_s_flows_in_place_of_its_stored_ones():
    stored = FieldFlows(stores={"free": [("old_free", 3)], "alloc": [("old_alloc", 4)]})
    other = FieldFlows(stores={"free": [("pool_free", 9)]})
    graph = FunctionPointerGraph({"/p/a.c": stored, "/p/b.c": other})
    edited = graph.overlay("/p/a.c", FieldFlows(stores={"free": [("new_free", 5)]},
                                                unknown=["alloc"]))
    assert [c.function for c in edited.callees("free")] == ["pool_free", "new_free"]
    assert edited.callees("alloc") is None
    assert [c.function for c in graph.callees("free")] == ["old_free", "pool_free"]


def test_a_field_unknown_anywhere_or_with_too_many_functions_gives_no_edge():
    many = FieldFlows(stores={"cb": [(f"handler_{n}", n) for n in range(MAX_CANDIDATES + 1)],
                              "op": [(f"op_{n}", n) for n in range(MAX_CANDIDATES)]})
    elsewhere = FieldFlows(stores={"reg": [("reg_one", 2)]}, unknown=["reg"])
    graph = FunctionPointerGraph({"/p/a.c": many, "/p/b.c": elsewhere})
    assert [field for field in sorted(graph.fields()) if graph.callees(field)] == ["op"]
    assert graph.holding({"reg_one"}) == {"reg"}  # still worth reading the files naming it


def test_a_field_is_followed_only_where_every_candidate_agrees():
    flows = FieldFlows(stores={"reg": [("reg_a", 1), ("reg_b", 2)],
                               "prep": [("reg_a", 3), ("zero", 4)]})
    graph = FunctionPointerGraph({"/p/a.c": flows})
    registers = {"reg_a": "ibv_reg_mr", "reg_b": "ibv_reg_mr"}
    found = graph.agreeing(lambda function, path: registers.get(function))
    assert list(found) == ["reg"]
    assert graph.agreeing(lambda function, path: registers.get(function), ["prep"]) == {}
    assert found["reg"][0] == "ibv_reg_mr"
    assert [candidate.function for candidate in found["reg"][1]] == ["reg_a", "reg_b"]


def test_a_field_some_candidate_of_which_does_it_is_followed_where_the_others_are_known():
    verbs = FieldFlows(stores={"reg": [("verbs_reg", 1)], "pin": [("verbs_reg", 2)],
                               "fast": [("verbs_reg", 3), ("verbs_reg_iova", 4)]},
                       defined=["verbs_reg", "verbs_reg_iova"])
    shm = FieldFlows(stores={"reg": [("shm_reg", 5)], "pin": [("app_pin", 6)]},
                     defined=["shm_reg"])  # app_pin: a function the project only declares
    graph = FunctionPointerGraph({"/p/verbs.c": verbs, "/p/shm.c": shm})
    shapes = {"verbs_reg": (1, 2), "verbs_reg_iova": (1, 3)}
    found = graph.doing(lambda function, path: shapes.get(function))
    assert {field: (what, [c.function for c in doing], [c.function for c in others])
            for field, (what, doing, others) in found.items()} == {
        "reg": ((1, 2), ["verbs_reg"], ["shm_reg"])}  # `fast`: two shapes; `pin`: unknown
    assert graph.agreeing(lambda function, path: shapes.get(function)) == {}
    # the file's definitions (open_dev and pick are only declared there)
    assert field_flows(context_of(TABLES)).defined == ["close_dev", "install"]


def test_what_is_built_for_a_run_s_facts_is_built_again_when_files_are_added():
    facts = {"/p/a.c": 1}
    assert built_for(facts, "count", len) == 1
    assert built_for(facts, "count", lambda found: 99) == 1  # kept
    facts["/p/b.c"] = 2  # an index round adds files
    assert built_for(facts, "count", len) == 2


def test_what_is_built_for_the_same_values_is_shared_by_dicts_of_their_own():
    one, two = object(), object()
    first = {"/p/a.c": one, "/p/b.c": two}
    kept = built_for(first, "same", lambda found: [len(found)], same_values=True)
    assert built_for({"/p/b.c": two, "/p/a.c": one}, "same", lambda found: [],
                     same_values=True) is kept  # (another dict, the same objects)
    assert built_for({"/p/a.c": one, "/p/b.c": object()}, "same", lambda found: [],
                     same_values=True) == []  # (another object: built again)
    assert built_for({"/p/a.c": one, "/p/b.c": two}, "same", lambda found: []) == []


def test_the_index_of_fewer_files_flows_is_narrowed_from_one_of_more_as_if_made_anew():
    from cursedlint.analysis.c_function_pointers import _indexed

    providers = {
        f"/p/prov/{name}.c": field_flows(context_of(f"""\
            static int {name}_open(void *dev) {{ return 0; }}
            static int {name}_close(void *dev) {{ return 0; }}
            struct ops {name}_ops = {{ .open = {name}_open, .close = {name}_close, .flags = 0 }};
            void {name}_init(struct dev *dev) {{ register_hook(dev, {name}_close, 1); }}
            """)) for name in ("verbs", "shm", "tcp")}
    providers["/p/core.c"] = field_flows(context_of(TABLES))
    whole = FunctionPointerGraph(dict(providers))
    assert whole.candidates("open")  # (the project's index, built)
    fewer = {path: flows for path, flows in providers.items() if "shm" not in path}
    narrowed = FunctionPointerGraph(fewer)
    assert narrowed._index == _indexed(fewer.items())
    assert [candidate.function for candidate in narrowed.candidates("open")] == [
        "open_dev", "open_dev", "tcp_open", "verbs_open"]


def test_calls_are_resolved_through_the_project_s_fields_and_the_file_s_own():
    context = context_of("""\
        static int pin(void *buf, size_t len);
        static const struct ops local_ops = { .hold = pin };
        void use(struct ops *ops, struct table *t, void *buf)
        {
            ops->hold(buf, 64);
            t->entry.pin(buf, 64);
            ops->drop(buf);
        }
        """)
    project = FunctionPointerGraph({"/p/t.c": FieldFlows(stores={"pin": [("pin_pages", 4)],
                                                                 "drop": [("unpin", 5)]})})
    graph = project.overlay("/p/a.c", field_flows(context))
    pins = {"pin", "pin_pages"}
    found = graph.resolved_calls(context, lambda function, path: function in pins or None,
                                 known={"pin"})
    assert [(field, called_text(context, call), what, [c.function for c in candidates])
            for field, call, what, candidates in found] == [
        ("hold", "ops->hold", True, ["pin"]), ("pin", "t->entry.pin", True, ["pin_pages"])]


def test_the_file_s_functions_argument_counts_travel_with_its_flows():
    flows = field_flows(context_of("""\
        static int none(void) { return 0; }
        static int two(void *buf, size_t) { return 0; }
        static int printf_like(const char *format, ...) { return 0; }
        static int unspecified() { return 0; }
        static int old_style(buf, len) void *buf; size_t len; { return 0; }
        #ifdef WIDE
        static int varies(void *buf, size_t len, int flags) { return 0; }
        #else
        static int varies(void *buf, size_t len) { return 0; }
        #endif
        static int never_stored(void *buf) { return 0; }
        static const struct ops ops = { .a = none, .b = two, .c = printf_like,
                                        .d = unspecified, .e = old_style };
        void install(struct ops *o) { o->f = varies; }
        """))
    # (only the functions the file's flows name: one stored by other files takes any count)
    assert flows.counts == {"none": 0, "two": 2, "printf_like": -1, "unspecified": -1,
                            "old_style": 2, "varies": -1}
    cpp = field_flows(context_of("""\
        static int none() { return 0; }
        static int defaulted(void *buf, size_t len = 64) { return 0; }
        static int overloaded(void *buf) { return 0; }
        static int overloaded(void *buf, size_t len) { return 0; }
        static const ops table = { .a = none, .b = defaulted, .c = overloaded };
        """, "cpp", "a.cpp"))
    assert cpp.counts == {"none": 0, "defaulted": -1, "overloaded": -1}


def test_a_candidate_that_cannot_take_the_call_s_arguments_is_no_callee_of_it():
    context = context_of("""\
        struct log_sink { void (*on_region)(const char *, void *, size_t, int); };
        void use(struct pool *p, struct log_sink *sink, void *buf)
        {
            p->ops->on_region(p->pd, buf, 64);
            sink->on_region("hdr", buf, 64, 1);
            p->hook(p->pd, buf, 64);
            p->hook(buf, 64);
            p->any(buf, 64, 1, 2, 3);
        }
        """)
    registers = {"verbs_on_region", "verbs_hook", "lib_register"}
    project = FunctionPointerGraph({
        "/p/verbs.c": FieldFlows(stores={"on_region": [("verbs_on_region", 9)],
                                         "hook": [("verbs_hook", 10), ("log_hook", 11)],
                                         "any": [("lib_register", 12), ("logf", 13)]},
                                 defined=["log_hook", "logf", "verbs_hook", "verbs_on_region"],
                                 counts={"verbs_on_region": 3, "verbs_hook": 3, "log_hook": 2,
                                         "logf": -1})})
    graph = project.overlay("/p/a.c", field_flows(context))
    found = graph.resolved_calls(context, lambda function, path: function in registers or None,
                                 known={"on_region", "hook", "any"}, some=True)
    # the four-argument call goes through another struct's `on_region`; the two-argument
    # `hook` call can only be `log_hook` (which does not register); a library's function of
    # no known count and a variadic one take any
    assert [(called_text(context, call), [c.function for c in candidates])
            for _, call, _, candidates in found] == [
        ("p->ops->on_region", ["verbs_on_region"]), ("p->hook", ["verbs_hook"]),
        ("p->any", ["lib_register", "logf"])]
    for count, calls in ((5, ["p->any"]), (4, [])):  # (a library's function of a known count)
        library = graph.resolved_calls(context, lambda function, path: function in registers
                                       or None, known={"any"}, some=True,
                                       arities={"lib_register": count})
        assert [called_text(context, call) for _, call, _, _ in library] == calls


def test_a_name_a_cpp_class_declares_as_a_method_is_no_function_pointer_field():
    code = """\
        struct Ops { int (*reg)(void *, unsigned long); };
        class Region {
         public:
          int reg(void *buf, unsigned long len);
          int pin(void *buf) { return 0; }
          int (*hook)(void *);
        };
        template <typename T> struct Box { void reg_all(T *items); };
        void touch(Region &r) { auto fn = [](int x) { return x; }; }
        """
    assert field_flows(context_of(code, "cpp", "a.cpp")).unknown == ["pin", "reg", "reg_all"]
    assert field_flows(context_of(code.replace("class Region", "struct Region")
                                  .split("struct Region")[0])).unknown == []  # C: no methods


def test_a_loader_macro_of_another_file_stores_the_symbol_it_is_given_by_name():
    header = field_flows(context_of("""\
        #define LOAD(lib, name, slot) do { void **at = (void **)&(slot); \\
                                           *at = dlsym((lib), name); } while (0)
        #define SHOW(lib, name, slot) printf("%p %s %p", lib, name, slot)
        """, path="/p/table.h"))
    assert header.loaders == {"LOAD": (1, 2)}  # SHOW loads nothing
    loading = field_flows(context_of("""\
        void load(void *lib, struct table *t)
        {
            LOAD(lib, "ibv_fork_init", t->fork_init);
            SHOW(lib, "ibv_fork_init", t->shown);
            load_symbol(lib, "ibv_reg_mr", t->reg_mr);
        }
        """, path="/p/load.c"))
    graph = FunctionPointerGraph({"/p/table.h": header, "/p/load.c": loading})
    assert [(c.function, c.line) for c in graph.callees("fork_init")] == [("ibv_fork_init", 3)]
    assert graph.callees("shown") is None and graph.callees("reg_mr") is None
    assert graph.loader_macros({"ibv_fork_init"}) == {"LOAD", "SHOW"}


def test_a_call_handed_to_a_macro_that_makes_it_through_a_field_is_a_call_through_it():
    context = context_of("""\
        #define CHECKED(table, call) do { if ((table).call != 0) return -1; } while (0)
        #define LOGGED(table, call) log_value(#table, call)
        int start(void)
        {
            CHECKED(syms, fork_init());
            LOGGED(syms, fork_init());
            fork_init();
            return 0;
        }
        """)
    assert indirect_calls(context, {"fork_init"}) == []
    [(field, call)] = indirect_calls(context, {"fork_init"}, through_macros=True)
    assert (field, call.start_point[0]) == ("fork_init", 4)


def test_a_pointer_to_a_function_the_file_declares_is_a_field_of_its_name():
    context = context_of("""\
        #define LOAD(lib, name, fp) (*(void **)&(fp) = dlsym(lib, name))
        static int (*fork_init_fn)(void);
        int (*guard_fn)(void) = 0;
        int plain(void);
        int open_verbs(void *lib, int (*given)(void))
        {
            LOAD(lib, "ibv_fork_init", fork_init_fn);
            guard_fn = given;
            fork_init_fn();
            plain();
            return 0;
        }
        """)
    flows = field_flows(context)
    assert [entry[3:5] for entry in flows.loaded] == [("ibv_fork_init", "fork_init_fn")]
    assert flows.parameters == {"open_verbs": [(1, "guard_fn", 8)]}
    assert [(field, call.start_point[0]) for field, call in indirect_calls(
        context, {"fork_init_fn", "plain"}, through_macros=True)] == [("fork_init_fn", 8)]


def test_names_written_as_arguments_are_those_the_argument_pattern_finds():
    names = ["cb", "on_done", "fn", "x", "operator()", "A::b", "cb2"]
    for data in (b"run(cb, 1);", b"run( on_done )", b"run(&fn,\n x)", b"run((void *)cb)",
                 b"run(xcb, cbx, fn(1), x + 1)", b"run(\x0bcb\x0c,", b"cb2(cb", b"(\xc2\xa0cb)",
                 b"// (cb) in a comment", b"run(\r\ncb2\t)", b""):
        written = set(ARGUMENT_NAME.findall(data))
        assert written_as_arguments(data, names) == {
            name for name in names if name.encode() in written}, data
    big = b"run(cb, 1); /* " + b"a" * (1 << 20) + b" */ f(on_done)"
    assert written_as_arguments(big, names) == {"cb", "on_done"}


def test_stores_found_by_bytes_are_those_one_forward_pattern_finds():
    """`stores_by_bytes` (an `=` found in the bytes reversed) finds the stores, and which
    values are known by their bytes, that one pattern led by `.` or `->` found, in order;
    one starting inside the value read for another is not one."""
    import random
    import re

    from cursedlint.analysis.c_function_pointers import _VALUE_KNOWN_BY_BYTES

    forward = re.compile(rb"(?:\.|->)([A-Za-z_]\w*)\s*=(?!=)\s*(?:(" + _VALUE_KNOWN_BY_BYTES
                         + rb")|(?=\S))")

    def expected(data):
        return [(*match.span(1), match.start(2) >= 0) for match in forward.finditer(data)]

    pieces = [b".", b"-", b">", b"=", b" ", b"\t", b"\n", b"\x0b", b"a", b"_", b"1", b"0", b"(",
              b"{", b'"', b"x", b"dl", b"sym", b"v", b"->", b"==", b"\xc3\xa9", b"fn"]
    samples = [b"ops.open = my_open;", b"p->fn\t=\n cb;", b"x.f == g", b"a.b = 0x10, .c = -1",
               b".a = -> b = 1", b"s.f = dlsym(h, \"f\")", b"s.f = g(1)", b".f =", b".f = ",
               b"x.f += 1", b"x->1f = 2", b"x.\xc3\xa9 = f"]
    generator = random.Random(24)
    samples += [b"".join(generator.choice(pieces) for _ in range(generator.randint(0, 20)))
                for _ in range(20000)]
    for data in samples:
        assert stores_by_bytes(data) == expected(data), data


def test_the_fields_holding_functions_are_those_a_candidate_of_theirs_is_one_of():
    """`holding` and `doing` with `answering` ask only the fields whose entries name a
    function asked about for their candidates (none where no entry of the graph names one):
    the same fields as asking every field, on random graphs, overlaid or not."""
    import random

    chooser = random.Random(7)
    names, fields, callees = [f"f{n}" for n in range(8)], [f"x{n}" for n in range(6)], ["s", "t"]

    def flows():
        pick = chooser.choice
        return FieldFlows(
            stores={pick(fields): [(pick(names), 1)] for _ in range(chooser.randrange(3))},
            unknown=sorted({pick(fields) for _ in range(chooser.randrange(2))}),
            parameters={pick(callees): [(chooser.randrange(2), pick(fields), 2)]
                        for _ in range(chooser.randrange(2))},
            passes=[(pick(callees), chooser.randrange(2), pick(names), 3)
                    for _ in range(chooser.randrange(3))],
            loaders={"LOAD": (1, 2)} if chooser.random() < 0.3 else {},
            loaded=[("LOAD", 1, 2, pick(names), pick(fields), 4)
                    for _ in range(chooser.randrange(2))],
            loader_functions={"load": 1} if chooser.random() < 0.3 else {},
            loaded_calls=[("load", 1, pick(names), pick(fields), 5)
                          for _ in range(chooser.randrange(2))])

    for _ in range(300):
        graph = FunctionPointerGraph({f"/p/{n}.c": flows() for n in range(4)})
        if chooser.random() < 0.5:
            graph = graph.overlay("/p/0.c", flows())
        wanted = set(chooser.sample([*names, "g0", "g1", "g2"], 2))  # (g: named by none)
        assert graph.holding(wanted) == {
            field for field in graph.fields()
            if any(candidate.function in wanted for candidate in graph.candidates(field))}
        does = {name: chooser.choice(("A", "B")) for name in wanted}.get
        # `doing` told the only functions `does` answers for: the same fields, fewer made
        assert graph.doing(lambda function, path: does(function)) == graph.doing(
            lambda function, path: does(function), answering=wanted)


FORWARDING = """\
static int pool_init_internal(struct pool *p, reg_fn reg, void *ctx)
{
    p->reg = reg;
    p->ctx = ctx;
    return 0;
}

int pool_init(struct pool *p, void *ctx, reg_fn reg)
{
    return pool_init_internal(p, reg, ctx);
}

int pool_init_twice(struct pool *p, reg_fn reg)
{
    return pool_init(p, NULL, reg) + pool_init_internal(p, (reg_fn)reg, NULL);
}

int pool_init_local(struct pool *p)
{
    reg_fn reg = NULL;
    return pool_init_internal(p, reg, NULL);
}
"""


def test_a_parameter_passed_on_to_a_function_of_the_file_storing_it_is_stored_there():
    """One more call: `pool_init` hands its parameter to `pool_init_internal`, which stores it;
    a parameter handed on twice (`pool_init_twice` through `pool_init`), a local, or one that
    cannot be a pointer to a function (`void *ctx`) is not followed."""
    flows = field_flows(context_of(FORWARDING))
    assert flows.parameters == {"pool_init_internal": [(1, "reg", 3), (2, "ctx", 4)]}
    assert flows.forwarded == {"pool_init": [(2, "reg", 10, "pool_init_internal")],
                               "pool_init_twice": [(1, "reg", 15, "pool_init_internal")]}
    user = FieldFlows(passes=[("pool_init", 2, "user_reg", 4)])
    graph = FunctionPointerGraph({"/p/pool.c": flows, "/p/user.c": user})
    candidate = Candidate("user_reg", "/p/user.c", 4, ("/p/pool.c", 10, "pool_init"),
                          "pool_init_internal")
    assert graph.callees("reg") == [candidate]
    assert graph.holding({"user_reg"}) == {"reg"}
    assert candidate.steps("p->reg")[1] == Step(
        "/p/pool.c", 10, "`pool_init()` passes it on to `pool_init_internal()`, which stores "
                         "it in the field called as `p->reg`")
