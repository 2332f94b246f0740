"""CUR5xx: IR cloners — pointers copied around the cloner leave the copy pointing into the
source container (C++).

An IR container owns its nodes; a cloner maps each source node to its copy. Clone code that
copies a node pointer verbatim instead of through the cloner leaves the copy referring to nodes
the *source* owns: when the source frees them (dead-code removal, destruction) the copy dangles.

Facts come from the project index (`ClonerIndex`: class declarations of the project's C++
files, found from the files naming a cloner type and, round by round, the files declaring the
classes cloning functions copy, their bases, and the classes deriving from a cloneable one),
joined with the linted file's own classes. Cloneable types are learned from the cloner: the
pointer and reference parameters of its methods (not constructors, static or template methods,
nor the types its constructors take: the destination container), or the pointer types of a
cloner alias (`using ValueMap = std::unordered_map<const Node*, Node*>`); failing those, the
classes with a cloning constructor; and every class derived from those. What cannot be
resolved (a member of a class the index does not hold, a type it cannot name) is not reported.
The analysis is in `cursedlint/analysis/`: `cloner_types`, `cloning_candidates`,
`cloning_functions`, `clone_analysis` and the project facts, `cloner_index`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec import Struct

from cursedlint.analysis.cloner_index import (
    ClonerFacts,
    class_head_pattern,
    classes_to_read,
    cloner_facts,
)
from cursedlint.analysis.cloner_types import (
    cloner_used, copy_calls, copy_words, ending_pattern, probe_words,
)
from cursedlint.analysis.cloning_candidates import (
    cloner_types_of, cloning_candidates, setter_subject,
)
from cursedlint.findings import Severity, Step
from cursedlint.languages import CPP
from cursedlint.project.index import Indexer
from cursedlint.rule import C_NAME_PART, Example, Option, Rule
from cursedlint.triggers.second_look import Shape

if TYPE_CHECKING:
    from cursedlint.analysis.clone_analysis import CloneAnalysis, Write
    from cursedlint.analysis.cloning_functions import CloningFunction

DEFAULT_CLONER_TYPES = ("Cloner", "CloneContext", "Mapper", "Mapping", "IRMapping",
                        "ValueToValueMapTy")
DEFAULT_COPY_FUNCTIONS = ("copy", "clone", "deepCopy")
_CLONER_TYPES_OPTION = Option(
    list, list(DEFAULT_CLONER_TYPES),
    "name endings of cloner/mapper types: a function with a parameter of such a type is a "
    "cloning function, and the type's methods say which classes it clones",
    item=str, form=C_NAME_PART,
)
_CONSEQUENCE = (
    "The copy keeps pointers to {what} owned by the source container; when the source frees "
    "them (dead-code removal, its destruction) the copy dangles and fails later as a "
    "heap-use-after-free far from this line"
)


# -- the project index: classes of the project's C++ files ---------------------------------------
def cloner_types(settings) -> tuple[str, ...]:
    """The cloner name endings configured for either CUR5xx rule."""
    endings: set[str] = set()
    for rule in (PointerCopiedAroundCloner, MemberMissedByCloner):
        endings.update(rule.resolved_options(settings.rule_options.get(rule.code))["cloner-types"])
    return tuple(sorted(endings))


def copy_function_names(settings) -> tuple[str, ...]:
    """The copy-function names configured for CUR501."""
    rule = PointerCopiedAroundCloner
    return tuple(rule.resolved_options(settings.rule_options.get(rule.code))["copy-functions"])


class ClonerIndex(Indexer):
    """Classes, members and methods of the project's C++ files that matter to cloning
    (`cloner_index`), under the cloner types and copy functions the rules are configured with:
    first the files naming a cloner type, then, round by round, the files declaring the classes
    their cloning functions copy and the classes deriving from a cloneable one."""

    name = "cpp-classes"
    languages = (CPP,)
    summary_type = ClonerFacts

    def words(self, settings):
        return cloner_types(settings)

    def more_words(self, facts, settings):
        return classes_to_read(facts, cloner_types(settings))

    def pattern(self, words, first_round):
        return ending_pattern(words) if first_round else class_head_pattern(words)

    def needed_by(self, context) -> bool:
        copy_functions = copy_function_names(context.settings)
        return bool(cloning_candidates(context, _file_cloner_types(context), copy_functions))

    def summarize(self, context):
        copy_functions = copy_function_names(context.settings)
        return cloner_facts(context, _file_cloner_types(context), copy_functions)


def _file_cloner_types(context) -> tuple[str, ...]:
    """The configured cloner types and those the file's constructors use as cloners."""
    settings = context.settings
    return cloner_types_of(context, cloner_types(settings), copy_function_names(settings))


class ClonerUse(Struct, Shape, frozen=True):
    """A cloner type (a name ending in one of `endings`) used for a parameter or a local, or a
    call of one of `copy_functions` given a name and a source's member (a cloner known by
    use)."""

    endings: tuple[str, ...]
    copy_functions: tuple[str, ...]

    def may_match(self, data: bytes) -> bool:
        return cloner_used(data, self.endings) or bool(
            copy_calls(data, self.copy_functions, first=True))


def shortened(code: str, limit: int = 80) -> str:
    """Code quoted in a message, cut in the middle when it is long."""
    code = " ".join(code.split())
    return code if len(code) <= limit else f"{code[: limit // 2 - 2]} … {code[-(limit // 2 - 2):]}"


def _declared(path: str, member) -> Step:
    """The chain's step where `member` is declared, with its type."""
    return Step(path, member.line, f"`{member.name}` (`{shortened(member.type.text)}`) is "
                                   "declared here")


def _analysis(rule: Rule) -> CloneAnalysis:
    from cursedlint.analysis.clone_analysis import CloneAnalysis

    copy_functions = copy_function_names(rule.context.settings)  # CUR501's, for both rules
    endings = cloner_types_of(rule.context, rule.option["cloner-types"], copy_functions)
    return rule.context.shared(
        ("clone-analysis", endings, copy_functions),
        lambda: CloneAnalysis(rule.context, rule.project_facts, endings, copy_functions),
    )


_IR_HEADER = """\
    #include <vector>
    namespace ir {
    class IrCloner;
    class Container;
    struct DataTypeTable;
    class Statement {
     public:
      Statement(const Statement* src, IrCloner* ir_cloner);
     protected:
      Container* container_;
    };
    class Val : public Statement {
     public:
      Val(const Val* src, IrCloner* ir_cloner);
    };
    class Expr : public Statement {
     public:
      Expr(const Expr* src, IrCloner* ir_cloner);
     private:
      std::vector<Val*> inputs_;
      std::vector<Val*> outputs_;
      const DataTypeTable* dtypes_;
    };
    class IrCloner {
     public:
      Statement* clone(const Statement* statement);
      template <class T> std::vector<T> clone(const std::vector<T>& nodes);
      Container* container() const;
    };
"""


class ClonerRule(Rule):
    """What CUR501 and CUR502 share: C++, the class index, trigger words from the configured
    cloner types, and the look for a cloner used as a parameter or a local."""

    languages = (CPP,)
    triggers = probe_words(DEFAULT_CLONER_TYPES) + copy_words(DEFAULT_COPY_FUNCTIONS)
    indexer = ClonerIndex()

    @classmethod
    def triggers_for(cls, options):
        return probe_words(tuple(options["cloner-types"])) + copy_words(_copy_functions(options))

    @classmethod
    def look(cls, options, target_python, language):
        return ClonerUse(tuple(options["cloner-types"]), _copy_functions(options))


def _copy_functions(options) -> tuple[str, ...]:
    """The copy functions under a CUR5xx rule's options (CUR502 has none: the default)."""
    return tuple(options.get("copy-functions", DEFAULT_COPY_FUNCTIONS))


class PointerCopiedAroundCloner(ClonerRule):
    """## What it does
    In a cloning function — a constructor or function with a parameter whose type is a
    cloner/mapper (`IrCloner*`, `CloneContext&`, `IRMapping&`, ...), or a `copy`/`clone`/
    `deepCopy(from, to)` function that declares one — finds a member holding raw pointers to a
    *cloneable* type (directly, or in a standard container: vector, deque, list, array, set,
    map keys or values, pair, tuple, optional) that is initialized, assigned or filled from the
    source object (`src->m_`, `other.m_`, `from->m_`, a getter, an element of a loop over
    them) without passing through the cloner.

    Cloneable types are learned from the cloner class: the pointer and reference parameters
    of its methods (`clone`, `lookup`, `remap`, `map`, ...; not constructors, static or
    template methods, nor the types its constructors take, which are the destination), or,
    when those name no class, the classes with a constructor taking the cloner; and every
    class of the project derived from them. Cloning functions are constructors and functions
    with a cloner parameter, and functions whose name begins with `copy`/`clone`/`deepCopy`
    (option `copy-functions`) that declare a cloner and take a source and a writable
    destination of one class; with no source parameter, a method copying `this` into the one
    local of its own class (`Graph::clone() const`). The class
    declarations come from the project index, so a header is found even when only the `.cpp`
    file is linted. A pointer to a type the cloner does not clone (a shared dtype table, a
    logger, the container itself) is not reported, nor is a member the clone maps in place
    afterwards (a later statement touching it with the cloner). A range insertion
    (`insert(pos, first, last)`) is one finding.

    A class is also a cloner, in a file, when a constructor there uses it as one without a
    cloner's name: a constructor taking a source object of its own class and a pointer or
    reference to that class, which it hands with a member of the source to a free function
    named as a copy function (`left(clone(ctx, other.left, loc))`, bpftrace's `ASTContext`);
    every cloning constructor of the file taking it is then judged, and the advice writes the
    file's own call (`clone(ctx, other.var, loc)`). A function whose name only begins so
    (`copyName(arena, other.name)`) does not make one.

    ## Why it is cursed
    The copy's nodes keep pointing at nodes owned by the *source* container. Nothing fails
    until the source frees them — dead-code removal, or the source's destruction — and then
    the copy dangles: a heap-use-after-free in unrelated code, often only under ASAN, after the
    source has been reused for something else. Incident 004 (nvFuser) is such a
    cross-container dangling reference: after a copy, expressions of the copy still pointed
    at values the source owned, the source's dead-code removal freed them, and ASAN reported
    a heap-use-after-free in `Expr`'s clone constructor on the next copy. Its root cause was
    not a verbatim copy in a cloning constructor: upstream's fix (NVIDIA/Fuser PR #5877,
    https://github.com/NVIDIA/Fuser/pull/5877)
    found that `Fusion::removeVal` missed dead expressions still holding raw pointers to a
    removed value (it looked only at expressions reachable from the outputs), and that
    `IrStorage::swap` left the special values behind. A member copied around the cloner
    leaves the copy in the same state, which is why this shape is worth finding.

    ## Example
    ```cpp
    Expr::Expr(const Expr* src, IrCloner* ir_cloner)
        : Statement(src, ir_cloner),
          inputs_(ir_cloner->clone(src->inputs_)),
          outputs_(src->outputs_) {}  // the copy's outputs are the source's Vals
    ```

    ## Fix
    Copy every cloneable pointer through the cloner: `outputs_(ir_cloner->clone(src->outputs_))`,
    or element by element (`for (Val* v : src->outputs_) outputs_.push_back(ir_cloner->clone(v));`).
    If the member must refer to something shared by both containers, make its type say so
    (a handle to an immutable table, not a pointer to a node).

    ## References
    - nvFuser (NVIDIA/Fuser) `IrCloner` and clone constructors `Expr(const Expr*, IrCloner*)`
    - LLVM `CloneFunctionInto` / `ValueToValueMapTy`; MLIR `IRMapping::lookupOrDefault`;
      XLA `HloCloneContext`
    - AddressSanitizer: heap-use-after-free reports
      (https://github.com/google/sanitizers/wiki/AddressSanitizer)
    """

    code = "CUR501"
    name = "pointer-copied-around-cloner"
    summary = "cloneable pointer copied from the source object instead of through the cloner"
    options = {
        "cloner-types": _CLONER_TYPES_OPTION,
        "copy-functions": Option(
            list, list(DEFAULT_COPY_FUNCTIONS),
            "name beginnings (any case) of functions that copy one container into another "
            "`(from, to)`: `copy` covers copyInto, cloneFrom... With a cloner declared inside, "
            "they are cloning functions",
            item=str, form=C_NAME_PART,
        ),
    }
    valid = (
        Example(_IR_HEADER + """\
        Expr::Expr(const Expr* src, IrCloner* ir_cloner)
            : Statement(src, ir_cloner),
              inputs_(ir_cloner->clone(src->inputs_)),
              dtypes_(src->dtypes_) {  // a shared table: not something the cloner clones
          for (Val* out : src->outputs_) {
            outputs_.push_back(ir_cloner->clone(out));
          }
        }
        }
        """),
        Example("""\
        #include <vector>
        struct Node;
        struct Graph {
          Graph(const Graph& other) : nodes_(other.nodes_) {}  // no cloner: a plain copy
          std::vector<Node*> nodes_;
        };
        """),
    )
    invalid = (
        Example(_IR_HEADER + """\
        Expr::Expr(const Expr* src, IrCloner* ir_cloner)
            : Statement(src, ir_cloner),
              inputs_(ir_cloner->clone(src->inputs_)),
              outputs_(src->outputs_),  // error: CUR501
              dtypes_(src->dtypes_) {}
        }
        """),
        Example("""\
        #include <vector>
        namespace ir {
        class Val;
        class Statement {};
        class Val : public Statement {};
        class IrCloner {
         public:
          explicit IrCloner(class Container* to);
          Statement* clone(const Statement* statement);
        };
        class Container {
         public:
          static void copy(const Container* from, Container* to);
         private:
          std::vector<Val*> inputs_;
          Val* zero_val_ = nullptr;
        };
        void Container::copy(const Container* from, Container* to) {
          IrCloner ir_cloner(to);
          for (Val* val : from->inputs_) {
            to->inputs_.push_back(val);  // error: CUR501
          }
          to->zero_val_ = from->zero_val_;  // error: CUR501
        }
        }
        """),
    )

    def check(self) -> None:
        analysis = _analysis(self)
        for function in analysis.functions:
            reported: set[int] = set()  # one finding per write: `insert(first, last)` is one
            for write in analysis.writes(function):
                if write.node.start_byte not in reported and self._check_write(
                        analysis, function, write):
                    reported.add(write.node.start_byte)

    def _check_write(self, analysis: CloneAnalysis, function: CloningFunction,
                     write: Write) -> bool:
        """Report the write if it copies a cloneable pointer around the cloner; whether it
        did."""
        from cursedlint.analysis.cloning_functions import unwrapped_value

        if not analysis.from_source(function, write.value):
            return False
        found = analysis.index.member(write.owner, write.member)
        if found is None:
            return False
        pointees = analysis.cloneable_pointees(function, found)
        if not pointees or analysis.remapped_later(function, write):
            return False
        path, _, member = found
        value = unwrapped_value(write.value)
        copied = f"copied from `{shortened(self.context.text(value))}`"
        if write.element:
            loop = analysis.range_loop_of(value) if value.type == "identifier" else None
            over = loop.child_by_field_name("right") if loop is not None else None
            copied = f"filled with `{shortened(self.context.text(value))}`" + (
                f", an element of `{shortened(self.context.text(over))}`,"
                if over is not None else ""
            )
        call = shortened(analysis.cloner_call(function, self.context.text(value)))
        advice = f"insert `{call}` instead" if write.element else f"copy it through the cloner: `{call}`"
        what = ", ".join(f"`{name.split('::')[-1]}`s" for name in pointees)
        self.report(
            write.node,
            f"`{write.member}` is {copied} without the cloner",
            help=_CONSEQUENCE.format(what=what) + f"; {advice}.",
            related=(_declared(path, member),),
        )
        return True


class MemberMissedByCloner(ClonerRule):
    """## What it does
    Finds a member of a class holding raw pointers to a cloneable type (directly or in a
    standard container) that the class's cloning constructor — one taking a cloner/mapper and
    an object of its own class (or of a base or derived one) — neither initializes nor assigns.
    Members marked `mutable` (caches) and static members are not reported; a constructor that
    delegates, or calls a method of its class that could set members, is not judged. Nor is a
    member that a copy routine of the project (a copy function declaring or taking a cloner, in
    any file: the project index; an `auto` local is a cloner when its initializer calls a
    function some project file declares to return one, `auto c = Container::copy(from, to)`, or
    when it is used as one, `c.clone(val)`) sets through the cloner on the objects the cloner
    made, right after cloning them — `cloner.clone(val)->setUses(cloner.clone(val->uses()))` or
    `cloner.clone(val)->uses_ = ...` — matched by name (`setUses`, `set_uses`, `uses_` and
    `m_uses` are all about `uses`).

    ## Why it is cursed
    The copy starts with that member null or empty while the source's points at its nodes: the
    clone silently loses part of the graph (an expression without its outputs, a value without
    its definition), and passes that depend on it misbehave long after the copy. This is what
    happens when a member is added to the class later and the clone path is forgotten.

    ## Example
    ```cpp
    class Val : public Statement {
      Val(const Val* src, IrCloner* ir_cloner);
      Expr* definition_ = nullptr;
      std::vector<Expr*> uses_;  // added later
    };
    Val::Val(const Val* src, IrCloner* ir_cloner)   // never sets uses_
        : Statement(src, ir_cloner), definition_(ir_cloner->clone(src->definition_)) {}
    ```

    ## Fix
    Initialize the member through the cloner: `uses_(ir_cloner->clone(src->uses_))`. If the copy
    must start empty on purpose, say so in the initializer list (`uses_()`).

    ## References
    - nvFuser (NVIDIA/Fuser) clone constructors `Val(const Val*, IrCloner*)`
    - clang-tidy `cppcoreguidelines-pro-type-member-init` (members a constructor leaves unset)
    """

    code = "CUR502"
    name = "member-missed-by-cloner"
    summary = "cloning constructor leaves a cloneable-pointer member unset"
    severity = Severity.WARNING
    options = {"cloner-types": _CLONER_TYPES_OPTION}
    valid = (
        Example(_IR_HEADER + """\
        Expr::Expr(const Expr* src, IrCloner* ir_cloner)
            : Statement(src, ir_cloner), inputs_(ir_cloner->clone(src->inputs_)) {
          outputs_ = ir_cloner->clone(src->outputs_);  // set in the body: fine
        }
        }
        """),
    )
    invalid = (
        Example(_IR_HEADER + """\
        Expr::Expr(const Expr* src, IrCloner* ir_cloner)  // warning: CUR502
            : Statement(src, ir_cloner), inputs_(ir_cloner->clone(src->inputs_)) {}
        }
        """),
    )

    def check(self) -> None:
        analysis = _analysis(self)
        for function in analysis.functions:
            if function.constructor and function.cloner_parameter and function.into_this:
                self._check_constructor(analysis, function)

    def _check_constructor(self, analysis: CloneAnalysis, function: CloningFunction) -> None:
        found = analysis.index.facts(function.owner)
        if found is None:
            return
        path, facts = found
        initialized = analysis.initialized(function)
        if facts.short_name in initialized or analysis.calls_own_methods(function):
            return
        touched = analysis.names_used(function.node.child_by_field_name("body"))
        name_node = function.declarator.child_by_field_name("declarator")
        mapped = analysis.mapped_after_cloning
        for path, holder, member in analysis.members_to_set(function, initialized):
            if member.static or member.mutable or member.name in initialized | touched:
                continue
            if setter_subject(member.name) in mapped:
                continue  # a container's copy routine maps it right after cloning
            pointees = analysis.cloneable_pointees(function, (path, holder, member))
            if not pointees:
                continue
            what = ", ".join(f"`{name.split('::')[-1]}`s" for name in pointees)
            source, access = sorted(function.sources.items())[0]
            call = analysis.cloner_call(function, f"{source}{access}{member.name}")
            inherited = "" if holder is facts else f" (inherited from `{holder.short_name}`)"
            self.report(
                name_node,
                f"cloning constructor `{function.name}` never sets `{member.name}`{inherited}",
                help=f"The copy keeps it null or empty while the source's points at its {what}, "
                "so the clone silently loses that part of the graph; initialize it with "
                f"`{member.name}({call})`, or write `{member.name}()` if the copy must start "
                "without it.",
                related=(_declared(path, member),),
            )
