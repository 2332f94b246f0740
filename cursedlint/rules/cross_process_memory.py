"""CUR6xx: copies between processes' address spaces (Cross Memory Attach) whose failure kills
the process (C/C++).

CUR601 follows the result of each `process_vm_readv`/`process_vm_writev` call (or of a function
of the project that returns it unchanged, or adds it up and returns -1 on failure) through its
function's body, along the path the
failure takes: into the branch where a check on the result sends it, and on through whatever
that branch falls into. It stays silent wherever that path cannot be told from the code (loops,
switches, `&&` of mixed checks, macros tree-sitter cannot read).
"""

from __future__ import annotations

import operator
import re
from contextlib import contextmanager
from enum import Enum
from functools import cached_property
from typing import Iterator

from msgspec import Struct

from cursedlint.analysis.c_syntax import callee
from cursedlint.findings import Severity
from cursedlint.languages import C, CPP
from cursedlint.project_index import Indexer
from cursedlint.rule import C_NAME, C_NAME_PART, Example, Option, Rule

CMA_FUNCTIONS = ("process_vm_readv", "process_vm_writev")
_ABORTS = frozenset({"abort"})
_EXITS = frozenset({"exit", "_exit", "_Exit", "quick_exit", "longjmp", "siglongjmp"})
_JUMPS = frozenset({"return_statement", "break_statement", "continue_statement",
                    "goto_statement", "throw_statement"})
_WRAPPING = frozenset({"parenthesized_expression", "cast_expression"})
_PREPROCESSOR = frozenset({"preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef",
                           "preproc_else"})
_PREPROCESSOR_ALTERNATIVES = frozenset({"preproc_elif", "preproc_elifdef", "preproc_else"})
_COMPARISONS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
                "==": operator.eq, "!=": operator.ne}
# -1 compared with a length (a value the file does not show, never negative)
_AGAINST_LENGTH = {"<": True, "<=": True, ">": False, ">=": False, "==": False, "!=": True}
_MIRRORED = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}
_WRITTEN_FIELDS = {"assignment_expression": "left", "init_declarator": "declarator",
                   "update_expression": "argument", "pointer_expression": "argument"}
_JUMP_WORDS = {"return": "return_statement", "break": "break_statement",
               "continue": "continue_statement", "goto": "goto_statement"}
_MAX_NESTING = 100  # statements and conditions followed inside each other; deeper: silent


class _TooDeep(Exception):
    """The failure path goes deeper into nested statements or conditions than is followed."""

_CONDITION = ": fails where ptrace is restricted"
_DOCTOR = "`cursedlint doctor` shows this machine's Yama ptrace_scope."
_WHY = (
    "The kernel refuses the copy with EPERM whenever the ptrace access check fails, as it "
    "does between sibling processes (ranks started by one launcher) under Yama "
    "ptrace_scope=1, and returns -1 (ESRCH, EFAULT, ENOMEM) or a short count in other cases"
)
_FIX = (
    "fall back to another transport (a copy through shared memory) without asserting; or let "
    "the peer in with prctl(PR_SET_PTRACER, pid or PR_SET_PTRACER_ANY) in the target process; "
    "or set kernel.yama.ptrace_scope=0 on the host"
)


class CmaWrapperIndex(Indexer):
    """Functions of the project's C/C++ files that return a CMA result unchanged or with -1
    still meaning failure."""

    name = "cma-wrappers"
    languages = (C, CPP)
    summary_type = dict[str, str]

    def words(self, settings):
        return CMA_FUNCTIONS

    def summarize(self, context):
        return CmaFailureAborts.wrappers_defined_in(context)

    adds_triggers = True

    def trigger_words(self, facts):
        """The wrappers' names: a call of one is a CMA call."""
        return {name for wrappers in facts.values() for name in wrappers}


class Outcome(Enum):
    """Where the failure path goes after a statement."""

    THROUGH = "falls through"
    END = "ends (return, jump, exit, or the result is replaced)"
    UNKNOWN = "cannot be told"


class Path(Struct, frozen=True):
    """The failure path's state: how it ends (or the assert it reaches), and whether it has
    passed through the failure branch of a check on the result."""

    outcome: Outcome | None  # None: `hit` is reached
    detected: bool
    hit: object = None


class Result(Struct, frozen=True):
    """A CMA call's result: the variable holding it (None when the call itself is checked)."""

    function: str  # the called name (a wrapper's name, or process_vm_readv/writev)
    call: object
    variable: str | None


class CmaFailureAborts(Rule):
    """## What it does
    Finds calls of `process_vm_readv` and `process_vm_writev` (Cross Memory Attach), of
    functions of the same file or of other files of the project that return their result
    unchanged or transform it keeping -1 as the failure value (a copy in a loop until all
    bytes are copied: `n = process_vm_readv(...)`, `if (n == -1) return -1;`, `total += n`,
    `return total;`, with `total` otherwise only set to 0), and of the functions named in the
    `wrappers` option, where
    - a check detects the failure, but a path from the failure branch reaches an assert on the
      same result (`assert`, and calls whose names contain `assert`, `ASSERT`, `CHECK` or
      `panic`: the `assert-names` option) or `abort()`;
    - the result is asserted with no check before it (`assert(n == len)`);
    - the result is ignored: the call is a statement of its own (a `(void)` cast says it is
      discarded on purpose and is not reported).

    The path a failed call (-1) takes is followed inside the function: into the branch an `if`
    on the result sends -1 to (`n == -1`, `n < 0`, `n != len`, the `else` of `n == len`, `!`,
    `||` and `&&` of these), on through the statements after it when that branch falls through,
    and through both branches of other `if`s and of `#if`/`#else`. A `return`, `break`,
    `continue`, `goto`, `throw`, `exit()` or a new value of the result ends it. Loops,
    `switch`, checks whose answer for -1 is unknown (`n < 0 && errno == EPERM`) and code
    tree-sitter cannot read make the rule silent.

    ## Why it is cursed
    Whether another process's memory may be read is decided by a ptrace access check
    (`PTRACE_MODE_ATTACH_REALCREDS`). Under Yama `ptrace_scope=1`, the default of many
    distributions, a process may only attach to its own descendants, so ranks that one
    launcher started are siblings and get `EPERM`. Code that handles the error for one line
    and then asserts on the byte count anyway works on every test machine and aborts the job
    on the first host with the stricter setting. Incident 003: libfabric's psm3 provider logged
    "Reading from remote process' memory failed. Disabling CMA support" and then failed
    `psmi_assert_always(nbytes == req->req_data.recv_msglen)`, killing FSDP checkpointing.

    ## Example
    ```c
    size_t nbytes = cma_get(pid, remote, local, len);   /* returns process_vm_readv's result */
    if (nbytes == -1) {
        kassist_mode = KASSIST_OFF;
        log_error("Reading from remote process' memory failed. Disabling CMA support");
    }
    psm_assert_always(nbytes == len);                    /* reached with nbytes == -1 */
    ```

    ## Fix
    Make the failure branch leave: return an error, or switch to the fallback transport (a copy
    through shared memory) and continue with its result, and assert only on the success path.
    On the host, the target process can admit its peer with
    `prctl(PR_SET_PTRACER, peer_pid)` (or `PR_SET_PTRACER_ANY`), or an administrator can set
    `sysctl kernel.yama.ptrace_scope=0`; `cursedlint doctor` shows the current value.

    ## References
    - process_vm_readv(2) (permission, return value, errors):
      https://man7.org/linux/man-pages/man2/process_vm_readv.2.html
    - Yama, `ptrace_scope` modes 0-3 and `PR_SET_PTRACER`:
      https://www.kernel.org/doc/html/latest/admin-guide/LSM/Yama.html
    - PR_SET_PTRACER(2const): https://man7.org/linux/man-pages/man2/pr_set_ptracer.2const.html
    - dyninst PR 280, falling back to ptrace when Yama blocks process_vm_readv:
      https://github.com/dyninst/dyninst/pull/280
    - Incident 003 (see the README's "Incidents"): libfabric's psm3 provider,
      https://github.com/ofiwg/libfabric/blob/main/prov/psm3/psm3/ptl_am/ptl.c
    """

    code = "CUR601"
    name = "cma-failure-aborts"
    languages = (C, CPP)
    severity = Severity.WARNING  # fails where ptrace is restricted (`cursedlint doctor`)
    triggers = CMA_FUNCTIONS
    summary = (
        "a process_vm_readv/writev result whose failure path reaches an assert or abort, "
        "or is ignored"
    )
    options = {
        "wrappers": Option(
            (list, tuple),
            (),
            "functions that return the result of process_vm_readv/writev, or -1 when it fails, "
            "which cursedlint cannot see as such: defined outside the linted project, or "
            "returning a transformed result (e.g. libfabric psm3's psm3_cma_get, psm3_cma_put)",
            item=str, form=C_NAME,
        ),
        "assert-names": Option(
            (list, tuple),
            ("assert", "ASSERT", "CHECK", "panic"),
            "a call whose function name contains one of these strings asserts its arguments "
            "(`abort()` always counts)",
            item=str, form=C_NAME_PART,
        )
    }
    valid = (
        Example(
            """
            #define _GNU_SOURCE
            #include <assert.h>
            #include <errno.h>
            #include <string.h>
            #include <sys/uio.h>

            int shm_copy(void *dst, const void *src, size_t len);

            /* falls back to the shared-memory copy, asserts only after a real transfer */
            int fetch_block(pid_t peer, void *dst, void *remote, size_t len, int *use_cma)
            {
                struct iovec local = { dst, len }, far = { remote, len };
                ssize_t n;

                if (*use_cma) {
                    n = process_vm_readv(peer, &local, 1, &far, 1, 0);
                    if (n == -1) {
                        *use_cma = 0; /* EPERM under Yama ptrace_scope=1 */
                        return shm_copy(dst, remote, len);
                    }
                    assert(n == (ssize_t)len);
                    return 0;
                }
                return shm_copy(dst, remote, len);
            }

            /* a checked result with a graceful return */
            int push_block(pid_t peer, void *src, void *remote, size_t len)
            {
                struct iovec local = { src, len }, far = { remote, len };
                ssize_t n = process_vm_writev(peer, &local, 1, &far, 1, 0);

                if (n != (ssize_t)len)
                    return n < 0 ? -errno : -EIO;
                return 0;
            }
            """,
            language=C,
        ),
        Example(
            """
            #include <cassert>
            #include <sys/uio.h>

            struct CmaStats { long reads; long failures; };
            void process_vm_readv_stats(CmaStats *stats);

            // a wrapper: callers see process_vm_readv's result unchanged
            static ssize_t cma_read(pid_t pid, void *dst, void *src, size_t len)
            {
                iovec local{dst, len}, remote{src, len};
                return ::process_vm_readv(pid, &local, 1, &remote, 1, 0);
            }

            bool pull(pid_t pid, void *dst, void *src, size_t len, CmaStats *stats)
            {
                assert(stats != nullptr); // an assert unrelated to the copy
                process_vm_readv_stats(stats);
                ssize_t got = cma_read(pid, dst, src, len);
                if (got != static_cast<ssize_t>(len)) {
                    stats->failures++;
                    throw std::system_error(errno, std::generic_category(), "CMA read");
                }
                stats->reads++;
                assert(got == static_cast<ssize_t>(len));
                return true;
            }
            """,
            language=CPP,
        ),
    )
    invalid = (
        Example(
            """
            #define _GNU_SOURCE
            #include <stdio.h>
            #include <sys/uio.h>

            #define PSM_ASSERT_ALWAYS(cond) ((cond) ? (void)0 : psm_fatal(#cond))

            static int kassist_enabled = 1;

            static ssize_t cma_get(pid_t pid, void *src, void *dst, size_t len)
            {
                struct iovec local = { dst, len }, remote = { src, len };
                ssize_t copied = process_vm_readv(pid, &local, 1, &remote, 1, 0);
                return copied;
            }

            void receive_long_message(pid_t pid, void *src, void *dst, size_t len)
            {
                ssize_t nbytes = cma_get(pid, src, dst, len);
                if (nbytes == -1) {
                    kassist_enabled = 0;
                    fprintf(stderr, "Reading from remote process' memory failed. "
                                    "Disabling CMA support\\n");
                } else {
                    PSM_ASSERT_ALWAYS(nbytes == (ssize_t)len);
                }
                PSM_ASSERT_ALWAYS(nbytes == (ssize_t)len); // warning: CUR601
            }

            void send_ack(pid_t pid, void *flag, void *remote_flag)
            {
                struct iovec local = { flag, 1 }, remote = { remote_flag, 1 };
                process_vm_writev(pid, &local, 1, &remote, 1, 0); // warning: CUR601
            }
            """,
            language=C,
        ),
        Example(
            """
            #include <cstdlib>
            #include <glog/logging.h>
            #include <sys/uio.h>

            void Peer::Pull(void *dst, void *src, size_t len)
            {
                iovec local{dst, len}, remote{src, len};
                ssize_t n;
                if ((n = process_vm_readv(pid_, &local, 1, &remote, 1, 0)) < 0) {
                    PLOG(ERROR) << "CMA read from " << pid_ << " failed";
                    std::abort(); // warning: CUR601
                }
            }

            void Peer::Push(void *src, void *dst, size_t len)
            {
                iovec local{src, len}, remote{dst, len};
                ssize_t n = process_vm_writev(pid_, &local, 1, &remote, 1, 0);
                CHECK_EQ(n, static_cast<ssize_t>(len)) << "CMA write failed"; // warning: CUR601
            }
            """,
            language=CPP,
        ),
    )

    def __init__(self, context, options=None):
        super().__init__(context, options)
        self._reported: set[int] = set()
        self._nesting = 0

    @classmethod
    def triggers_for(cls, options):
        return (*cls.triggers, *options["wrappers"])

    # -- wrappers in other files of the project ----------------------------------------------
    indexer = CmaWrapperIndex()

    @classmethod
    def wrappers_defined_in(cls, context) -> dict[str, str] | None:
        """The file's functions that return a CMA result unchanged: name -> CMA function."""
        rule = cls(context, context.settings.rule_options.get(cls.code))
        wrappers = {
            name: underlying
            for name, underlying in rule._cma_names.items()
            if name not in CMA_FUNCTIONS and name not in rule.option["wrappers"]
        }
        return wrappers or None

    # -- the calls -------------------------------------------------------------------------
    def check(self) -> None:
        for name, call in self.context.calls(self._cma_names):
            result = self._result(name, call)
            if result is not None:
                self._follow(result)

    @cached_property
    def _cma_names(self) -> dict[str, str]:
        """Called name -> the CMA function whose result it returns: the two system calls, the
        configured wrappers, wrappers defined in other files of the project, and the file's
        functions that return a call of one of these names unchanged."""
        names = {name: name for name in CMA_FUNCTIONS}
        names.update((name, "process_vm_readv/writev") for name in self.option["wrappers"])
        for wrappers in self.project_facts.values():
            names.update(wrappers)
        new = list(names)
        while new:  # the functions calling a name found last may return its result
            calls = (call for _, call in self.context.calls(new))
            callers = [(function, *self._plain_function(function)) for function
                       in self.context.enclosing(calls, ("function_definition",))]
            last = self._last_definitions({name for _, name, _ in callers if name} - set(names))
            new = []
            for function, name, body in callers:
                if name not in names and last.get(name) == function:
                    underlying = self._returned_call(body, names)
                    if underlying:
                        names[name] = underlying
                        new.append(name)
        return names

    def _plain_function(self, function) -> tuple[str | None, object]:
        """(name, body) of a definition `T name(...) {...}`, else (None, None)."""
        declarator = function.child_by_field_name("declarator")
        name = declarator.child_by_field_name("declarator") \
            if declarator is not None and declarator.type == "function_declarator" else None
        body = function.child_by_field_name("body")
        if name is None or name.type != "identifier" or body is None \
                or body.type != "compound_statement":
            return None, None
        return self.context.text(name), body

    def _last_definitions(self, names: set[str]) -> dict[str, object]:
        """Name -> the file's last definition `T name(...) {...}` (the one a call in the file
        may reach, of several under #if), for those of `names` the file defines."""
        found: dict[str, object] = {}
        for name, leaf in self.context.tokens(names) if names else ():
            declarator = self.context.parent(leaf)
            function = self.context.parent(declarator) if declarator is not None else None
            if (function is not None and function.type == "function_definition"
                    and function.child_by_field_name("declarator") == declarator
                    and self._plain_function(function)[0] == name
                    and declarator.child_by_field_name("declarator") == leaf):
                found[name] = function
        return found

    def _returned_call(self, body, names: dict[str, str]) -> str | None:
        """The CMA function whose result every `return` of `body` hands back unchanged (a call
        of one of `names`, or a variable only ever assigned such a call), or transformed so
        that -1 still means failure (`_Accumulation`)."""
        returns = self.context.captures("(return_statement) @return", body).get("return", ())
        accumulation = self._accumulation(body, names)
        found = set()
        for statement in returns:
            value = _unwrapped(statement.named_children[0]) if statement.named_children else None
            if accumulation is not None and accumulation.returns(self, statement, value):
                found.add(accumulation.function)
                continue
            if value is not None and value.type == "identifier":
                value = self._only_value(body, self.context.text(value))
            name = self._callee(value) if value is not None else None
            found.add(names.get(name))
        if accumulation is not None and not accumulation.failure_returned:
            return None  # a total, but no -1 on failure: the failure value is not known
        return found.pop() if len(found) == 1 else None

    def _accumulation(self, body, names: dict[str, str]) -> "_Accumulation | None":
        """The one `total += n` of `body` that adds up the results `n = call(...)` of one of
        `names` (a copy in a loop until all bytes are copied), with `total` otherwise only
        set to 0."""
        results = {}
        for name, call in self.context.calls(names, body):
            target = self._assignment_target(call)
            if target is not None:
                results[self.context.text(target)] = names[name]
        if not results:
            return None
        sums = [node for node in self.context.descendants(body)
                if node.type == "assignment_expression" and not node.has_error
                and self.context.text(node.child_by_field_name("operator")) == "+="]
        added = [(self.context.text(node.child_by_field_name("left")),
                  self.context.text(_unwrapped(node.child_by_field_name("right"))))
                 for node in sums]
        pairs = {(total, result) for total, result in added if result in results}
        if len(pairs) != 1 or len(added) != 1:
            return None
        total, result = pairs.pop()
        if not self._only_zeroed(body, total, sums[0]):
            return None
        return _Accumulation(results[result], total, result)

    def _assignment_target(self, call):
        """`n` in `n = call(...)` (an identifier), else None."""
        parent = self.context.parent(call)
        if (parent is not None and parent.type == "assignment_expression"
                and parent.child_by_field_name("right") == call
                and parent.child_by_field_name("left").type == "identifier"):
            return parent.child_by_field_name("left")
        return None

    def _only_zeroed(self, body, total: str, summing) -> bool:
        """Whether every other write of `total` in `body` sets it to 0."""
        for _, leaf in self.context.tokens((total,), body):
            parent = self.context.parent(leaf)
            field = _WRITTEN_FIELDS.get(parent.type) if leaf.type == "identifier" else None
            if field is None or parent.child_by_field_name(field) != leaf or parent == summing:
                continue
            value = parent.child_by_field_name("value" if parent.type == "init_declarator"
                                               else "right")
            if value is None or self._constants.evaluate(value) != 0:
                return False
        return True

    def _only_value(self, body, variable: str):
        """The one call assigned to `variable` in `body`, or None (other or several values)."""
        values, mutated = [], False
        for _, leaf in self.context.tokens((variable,), body):
            parent = self.context.parent(leaf)
            if leaf.type != "identifier" or not _contains(body, parent):
                continue
            value = (parent.child_by_field_name("value") if parent.type == "init_declarator"
                     and parent.child_by_field_name("declarator") == leaf
                     else parent.child_by_field_name("right")
                     if parent.type == "assignment_expression"
                     and parent.child_by_field_name("left") == leaf else None)
            if value is not None and value.is_named:
                values.append(_unwrapped(value))
            mutated |= (parent.type == "update_expression"
                        and parent.child_by_field_name("argument") == leaf)
        return values[0] if len(values) == 1 and not mutated else None

    def _result(self, name: str, call) -> Result | None:
        """What happens to the call's value: reported here when ignored or asserted at once,
        else the Result whose failure path `_follow` walks."""
        node = call
        for parent in self.context.ancestors(call):
            if parent.type not in _WRAPPING:
                break
            node = parent
            if _is_void_cast(node):
                return None  # discarded on purpose
        if parent.type == "expression_statement":
            self.report(call, f"the result of {self._described(name)} is ignored{_CONDITION}",
                        help=f"{_WHY}. Check it, and {_FIX}. {_DOCTOR}")
            return None
        asserting = self._enclosing_assert(call)
        if asserting is not None:
            self._report_assert(asserting, Result(name, call, None), detected=False)
            return None
        if parent.type == "init_declarator" and parent.child_by_field_name("value") == node:
            return self._assigned(name, call, parent.child_by_field_name("declarator"))
        if (parent.type == "assignment_expression" and parent.child_by_field_name("right") == node
                and self.context.text(parent.child_by_field_name("operator")) == "="):
            return self._assigned(name, call, parent.child_by_field_name("left"))
        return Result(name, call, None)  # followed only where an `if` checks it

    def _assigned(self, name: str, call, target) -> Result | None:
        if target is None or target.type != "identifier":
            return None
        return Result(name, call, self.context.text(target))

    def _enclosing_assert(self, call):
        """An assert-like call whose arguments contain `call`, within its statement."""
        for node in self.context.ancestors(call):
            if node.type.endswith("statement"):
                return None
            if node.type == "call_expression" and self._asserts(self._callee(node)):
                return node
        return None

    # -- the failure path ------------------------------------------------------------------
    def _follow(self, result: Result) -> None:
        try:
            self._follow_path(result)
        except _TooDeep:
            pass  # nested deeper than followed: the path cannot be told

    @contextmanager
    def _deeper(self):
        """One level further into nested statements or conditions."""
        self._nesting += 1
        try:
            if self._nesting > _MAX_NESTING:
                raise _TooDeep
            yield
        finally:
            self._nesting -= 1

    def _follow_path(self, result: Result) -> None:
        start = self._statement_of(result.call)
        checked = start is not None and start.type == "if_statement" and _contains(
            start.child_by_field_name("condition"), result.call)
        if not checked and (start is None or result.variable is None):
            return  # the value goes elsewhere (an argument, a loop condition, a return)
        path = Path(Outcome.THROUGH, False)
        if checked:
            path = self._if(start, result, path)
        if path.outcome is Outcome.THROUGH:
            path = self._after(start, result, path)
        if path.outcome is None:
            self._report_assert(path.hit, result, path.detected)

    def _statement_of(self, node):
        """The innermost statement (or declaration) containing `node`."""
        return next((found for found in self.context.ancestors(node)
                     if found.type.endswith("statement") or found.type == "declaration"), None)

    def _after(self, statement, result: Result, path: Path) -> Path:
        """The path from the end of `statement` on, out of the enclosing blocks and `if`s up to
        the end of the function."""
        node, around = statement, list(self.context.ancestors(statement))
        for index, parent in enumerate(around):
            if parent.type == "compound_statement" or parent.type in _PREPROCESSOR:
                path = self._sequence(_following(node), result, path)
                if path.outcome is not Outcome.THROUGH:
                    return path
                if index + 1 < len(around) and around[index + 1].type == "function_definition":
                    return Path(Outcome.END, path.detected)
            elif parent.type not in ("if_statement", "else_clause"):
                return Path(Outcome.UNKNOWN, path.detected)  # loops, switch, lambdas
            node = parent
        return Path(Outcome.UNKNOWN, path.detected)

    def _sequence(self, statements, result: Result, path: Path) -> Path:
        for statement in statements:
            path = self._statement(statement, result, path)
            if path.outcome is not Outcome.THROUGH:
                return path
        return path

    def _statement(self, statement, result: Result, path: Path) -> Path:
        with self._deeper():
            return self._statement_path(statement, result, path)

    def _statement_path(self, statement, result: Result, path: Path) -> Path:
        kind = statement.type
        if kind in _JUMPS:
            return Path(Outcome.END, path.detected)
        if kind == "compound_statement":
            return self._sequence(self.context.children(statement), result, path)
        if kind == "if_statement":
            return self._if(statement, result, path)
        if kind in _PREPROCESSOR:
            return self._preprocessor(statement, result, path)
        if kind in ("expression_statement", "declaration"):
            return self._simple(statement, result, path)
        if not self._matters(statement, result):
            return path
        return Path(Outcome.UNKNOWN, path.detected)

    def _simple(self, statement, result: Result, path: Path) -> Path:
        """An expression statement or declaration: an assert or abort on the path, an exit,
        a new value of the result, or nothing that matters."""
        if statement.has_error:
            return Path(Outcome.UNKNOWN, path.detected)
        for call in self._stopping_calls(statement):
            name = self._callee(call)
            if name in _EXITS:
                return Path(Outcome.END, path.detected)
            if (name in _ABORTS and path.detected) or (
                self._asserts(name) and _mentions(self.context, call, result.variable)
            ):
                return Path(None, path.detected, call)
        if self._assigns(statement, result.variable):
            return Path(Outcome.END, path.detected)
        return path

    def _if(self, statement, result: Result, path: Path) -> Path:
        condition = statement.child_by_field_name("condition")
        consequence = statement.child_by_field_name("consequence")
        alternative = statement.child_by_field_name("alternative")
        branches = [consequence, alternative.named_children[-1] if alternative else None]
        if self._mentions_result(condition, result):
            fails_when = self._fails_when(condition, result)
            if fails_when is None:
                return Path(Outcome.UNKNOWN, path.detected)
            failure = branches[0] if fails_when else branches[1]
            if failure is None:
                return Path(Outcome.THROUGH, True)
            return self._statement(failure, result, Path(Outcome.THROUGH, True))
        if self._matters(condition, result):
            return Path(Outcome.UNKNOWN, path.detected)
        paths = [self._statement(branch, result, path) if branch else path for branch in branches]
        return _merged(paths)

    def _preprocessor(self, node, result: Result, path: Path) -> Path:
        """`#if`/`#ifdef` with its `#elif`/`#else`: one configuration or another, like an if."""
        with self._deeper():
            return self._configurations(node, result, path)

    def _configurations(self, node, result: Result, path: Path) -> Path:
        condition = node.child_by_field_name("condition") or node.child_by_field_name("name")
        if self._matters(condition, result):
            return Path(Outcome.UNKNOWN, path.detected)
        alternative = node.child_by_field_name("alternative")
        body = [child for child in node.named_children
                if child != condition and child.type not in _PREPROCESSOR_ALTERNATIVES]
        return _merged([
            self._sequence(body, result, path),
            self._preprocessor(alternative, result, path) if alternative else path,
        ])

    # -- conditions --------------------------------------------------------------------------
    def _fails_when(self, node, result: Result) -> bool | None:
        """The value of the condition when the call failed (the result is -1), or None when it
        cannot be told. The result is taken as signed (ssize_t, the functions' return type)."""
        with self._deeper():
            return self._failure_value(node, result)

    def _failure_value(self, node, result: Result) -> bool | None:
        node = _unwrapped(node)
        if self._is_result(node, result):
            return True  # -1 is true
        if node.type == "unary_expression" and self.context.text(node.child(0)) == "!":
            inner = self._fails_when(node.child_by_field_name("argument"), result)
            return None if inner is None else not inner
        if node.type != "binary_expression":
            return None
        operator = self.context.text(node.child_by_field_name("operator"))
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if operator in ("||", "&&"):
            return _short_circuit(operator, *(
                self._fails_when(side, result) if self._mentions_result(side, result) else None
                for side in (left, right)))
        if self._is_result(right, result) and not self._is_result(left, result):
            left, right, operator = right, left, _MIRRORED.get(operator)
        if operator not in _COMPARISONS or not self._is_result(left, result) \
                or self._mentions_result(right, result):
            return None
        value = self._constants.evaluate(right)
        if isinstance(value, int):
            return _COMPARISONS[operator](-1, value)
        return _AGAINST_LENGTH[operator]

    def _is_result(self, node, result: Result) -> bool:
        """Whether the expression is the result: the call, the variable, or `(n = call)`."""
        node = _unwrapped(node)
        if node.type == "assignment_expression":
            node = _unwrapped(node.child_by_field_name("right"))
        if node.type == "identifier":
            return result.variable == self.context.text(node)
        return node == result.call

    def _mentions_result(self, node, result: Result) -> bool:
        return _contains(node, result.call) or _mentions(self.context, node, result.variable)

    @cached_property
    def _constants(self):
        from cursedlint.analysis.c_constants import CConstants  # only files that need it pay the import

        return CConstants(self.context)

    def _matters(self, node, result: Result) -> bool:
        """Whether code the path cannot be followed through touches it: mentions the result,
        jumps, asserts, aborts or exits."""
        if node is None:
            return False
        if _mentions(self.context, node, result.variable) or node.has_error:
            return True
        if any(self.context.parent(keyword).type == _JUMP_WORDS[word]
               for word, keyword in self.context.tokens(_JUMP_WORDS, node)):
            return True
        return bool(self._stopping_calls(node))

    # -- names and calls ---------------------------------------------------------------------
    def _asserts(self, name: str | None) -> bool:
        return bool(name) and any(part in name for part in self.option["assert-names"])

    def _stopping_calls(self, node) -> list:
        """The calls within `node` that may end the path (exits, aborts, asserts), in order."""
        found = {call.id: call for _, call in self.context.calls(_EXITS | _ABORTS, node)}
        for _, _, leaf in self.context.hits(self._assert_parts, node):
            call = self.context.call_of(leaf)
            if call is not None:
                found.setdefault(call.id, call)
        return sorted(found.values(), key=lambda call: call.start_byte)

    @cached_property
    def _assert_parts(self) -> re.Pattern[bytes]:
        """Any of the `assert-names` strings, wherever it is spelled."""
        return re.compile(b"|".join(re.escape(part.encode()) for part in
                                    self.option["assert-names"]) or b"(?!)")

    def _callee(self, call) -> str | None:
        """The called function's name (`f(...)`, `ns::f(...)`), None for other calls."""
        if call is None or call.type != "call_expression":
            return None
        return callee(self.context, call) or None

    def _assigns(self, node, variable: str | None) -> bool:
        if variable is None:
            return False
        for _, leaf in self.context.tokens((variable,), node):
            parent = self.context.parent(leaf)
            field = _WRITTEN_FIELDS.get(parent.type) if leaf.type == "identifier" else None
            if (field is not None and parent.child_by_field_name(field) == leaf
                    and _contains(node, parent) and (parent.type != "pointer_expression"
                                                     or parent.child(0).type == "&")):
                return True
        return False

    def _described(self, name: str) -> str:
        underlying = self._cma_names[name]
        return f"{name}()" if name == underlying else f"{name}() (wraps {underlying}())"

    def _report_assert(self, hit, result: Result, detected: bool) -> None:
        """Report `hit` once, for the first call whose failure path reaches it."""
        if hit.start_byte in self._reported:
            return
        self._reported.add(hit.start_byte)
        line = result.call.start_point[0] + 1
        call = f"{self._described(result.function)} on line {line}"
        where = (f"is reached from the failure branch of {call}" if detected
                 else f"asserts the result of {call} with no fallback")
        self.report(hit, f"{self.context.text(hit.child_by_field_name('function'))}() {where}"
                         f"{_CONDITION}", help=f"{_WHY}. Instead, {_FIX}. {_DOCTOR}")


class _Accumulation(Struct):
    """A wrapper that transforms the result: it adds the results `result` of `function` up in
    `total`, returns `total`, and returns -1 under a check on `result` (its failure value is
    then -1, as the wrapped call's)."""

    function: str
    total: str
    result: str
    failure_returned: bool = False

    def returns(self, rule: CmaFailureAborts, statement, value) -> bool:
        """Whether a `return` hands back the total, or -1 under a check on the result."""
        if value is None:
            return False
        if value.type == "identifier" and rule.context.text(value) == self.total:
            return True
        if rule._constants.evaluate(value) != -1:
            return False
        checked = any(found.type == "if_statement" and _mentions(
            rule.context, found.child_by_field_name("condition"), self.result)
            for found in rule.context.ancestors(statement))
        self.failure_returned |= checked
        return checked


# -- tree helpers ------------------------------------------------------------------------------


def _unwrapped(node):
    """The expression inside parentheses and casts."""
    while node is not None and node.type in _WRAPPING | {"condition_clause"}:
        node = node.child_by_field_name("value") or node.named_children[-1]
    return node


def _is_void_cast(node) -> bool:
    if node.type != "cast_expression":
        return False
    return node.child_by_field_name("type").text.strip() == b"void"




def _following(node) -> Iterator:
    """The statements after `node` in its block (not an `#else`: another configuration)."""
    sibling = node.next_named_sibling
    while sibling is not None and sibling.type not in _PREPROCESSOR_ALTERNATIVES:
        yield sibling
        sibling = sibling.next_named_sibling


def _contains(node, inner) -> bool:
    return node is not None and node.start_byte <= inner.start_byte and \
        inner.end_byte <= node.end_byte


def _mentions(context, node, variable: str | None) -> bool:
    if node is None or variable is None:
        return False
    return any(leaf.type == "identifier" for _, leaf in context.tokens((variable,), node))


def _merged(paths: list[Path]) -> Path:
    """The paths through the two branches of an `if` that does not test the result: an assert
    reached on either, else the first of unknown, falling through, ending."""
    hits = [path for path in paths if path.outcome is None]
    if hits:
        return hits[0]
    for outcome in (Outcome.UNKNOWN, Outcome.THROUGH):
        chosen = [path for path in paths if path.outcome is outcome]
        if chosen:
            return Path(outcome, any(path.detected for path in chosen))
    return Path(Outcome.END, False)


def _short_circuit(operator_: str, left: bool | None, right: bool | None) -> bool | None:
    """`left || right` or `left && right` of values that may be unknown (None)."""
    deciding = operator_ == "||"  # true decides ||, false decides &&
    if deciding in (left, right):
        return deciding
    return None if None in (left, right) else not deciding

