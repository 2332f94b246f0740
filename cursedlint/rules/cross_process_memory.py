"""CUR6xx: copies between processes' address spaces (Cross Memory Attach) whose failure kills
the process (C/C++).

CUR601 follows the result of each `process_vm_readv`/`process_vm_writev` call (or of a function
of the project that returns it unchanged, or adds it up and returns -1 on failure:
`analysis.c_result_wrappers`, other files' through `CmaWrapperIndex`) through its function's
body, along the path the failure takes (`analysis.c_failure_path`): into the branch where a
check on the result sends it, and on through whatever that branch falls into, to an assertion
(`analysis.c_expectations.Assertions`, from the `assert-names` option) or `abort()`. It stays
silent wherever that path cannot be told from the code (loops, switches, `&&` of mixed checks,
macros tree-sitter cannot read).

Calls through function pointers (`tbl[op].fn(...)`, `ep->copy(...)`) are CMA calls where every
function the project stores in that field (`analysis.c_function_pointers`) is
`process_vm_readv`/`process_vm_writev` or a function returning their result; the field and its
functions are the finding's chain.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from cursedlint.analysis.c_cma_gates import CMA_GATES, HELP as GATE_HELP, gated_copies
from cursedlint.analysis.c_throws import HELP as THROW_HELP, THROW_CALLERS, thrown_copies
from cursedlint.analysis.c_error_codes import ErrorCode, error_codes, passing_on, result_of
from cursedlint.analysis.c_fatal import Fatal, checked_calls, forwards
from cursedlint.analysis.c_noreturn import escaping
from cursedlint.analysis.c_function_pointers import built_for, field_flows, project_graph
from cursedlint.analysis.cma_facts import (
    CMA_FUNCTIONS, CMA_WORDS, FACTS_INDEX, HEADERS, CmaFunctions, all_aliases, all_codes,
    all_wrappers, evaluator, failing_names, fatal_of, field_copies, handed_failures,
    handler_steps, project_cma_fields,
)
from cursedlint.analysis.called_pieces import Pieces, Summaries
from cursedlint.analysis.c_system_calls import (
    add_project_aliases, aliases_of, calls_made, of_other_processes,
)
from cursedlint.analysis.c_syntax import callee, discards, wrappers
from cursedlint.findings import Severity, Step
from cursedlint.languages import C, CPP
from cursedlint.project.index import Indexer
from cursedlint.rule import C_NAME, C_NAME_PART, Example, Option, Rule

if TYPE_CHECKING:
    from cursedlint.analysis.c_expectations import Assertions
    from cursedlint.analysis.c_failure_path import FailurePaths, Result

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
    """The `CmaFunctions` of the project's C/C++ files, gathered (`facts_from`) in rounds of
    their summaries (`analysis.called_pieces`); the functions a file calls where it checks
    another's result and those that hand on another file's error code (`checked`, `passing`:
    costly, and useless to most files) are made only for the files that may call a failing
    name (`cma_facts.failing_names`)."""

    name = FACTS_INDEX
    languages = (C, CPP)
    summary_type = CmaFunctions

    def words(self, settings):
        return CMA_WORDS

    @property
    def summarizers(self):
        return (_SUMMARIES, _CALLERS)

    def summarize(self, context):
        raise NotImplementedError("gathered by facts_from, not per file")

    def facts_from(self, index) -> dict[str, CmaFunctions]:
        return _SUMMARIES.gathered(index)

    adds_triggers = True

    def more_words(self, facts, settings):
        """The functions found (a file calling one may wrap it in turn), the functions given
        a CMA function and the fields holding one (where they are stored and called), and the
        functions called where the result of one of these is checked (where they are defined:
        a fatal handler?)."""
        copiers = {*CMA_FUNCTIONS, *(name for found in facts.values() for name in found.wrappers)}
        graph = project_graph(facts)
        failing = {*copiers, *self.trigger_words(facts)}
        return {*self.trigger_words(facts), *graph.passed_to(copiers), *graph.holding(copiers),
                *handed_failures(facts, failing)}

    def trigger_words(self, facts):
        """The functions' names (a call of one is a CMA call) and the fields every function
        stored in which is a CMA function (a call through one is)."""
        return {*(name for found in facts.values() for name in found.wrappers),
                *built_for(facts, "cma codes", all_codes), *project_cma_fields(facts),
                *built_for(facts, "cma aliases", all_aliases)}


_CALLERS = Pieces("cma-callers", CmaWrapperIndex(), ("checked", "passing"),
                  lambda context: CmaFailureAborts.callers_in(context), CMA_FUNCTIONS)
_SUMMARIES = Summaries(CmaWrapperIndex(), lambda context: CmaFailureAborts.defined_in(context),
                       _CALLERS, failing_names)


class CmaFailureAborts(Rule):
    """## What it does
    Finds calls of `process_vm_readv` and `process_vm_writev` (Cross Memory Attach; also made
    through `syscall(SYS_process_vm_readv, ...)`, `__NR_` spellings and the macros of the
    file or of the project's other files standing for them, `analysis.c_system_calls`), of
    functions of the same file or of other files of the project that return their result
    unchanged or transform it keeping -1 as the failure value (a copy in a loop until all
    bytes are copied: `n = process_vm_readv(...)`, `if (n == -1) return -1;`, `total += n`,
    `return total;`, or `return (n != -1) ? total : n;`, with `total` otherwise only set to
    0), of the functions named in the `wrappers` option, of calls through a function-pointer
    field every function of which, anywhere in the project, is one of these (`tbl[op].fn(...)`
    with `.fn = process_vm_readv`, `.fn = process_vm_writev`; a table that also holds another
    copy is not followed), and of functions (of the file or the project, up to three calls from
    the copy) that turn the failure into an error code: every failure path of their copy ends
    in `return v` of one constant or in `return -errno` (or passes such a code on), and another
    `return` of theirs gives something else; the failure is then followed in their callers as
    that value (`-errno` as any of -4095..-1: a check for one errno, `rc == -EPERM`, cannot be told), where
    - a check detects the failure, but a path from the failure branch reaches an assert on the
      same result (`assert`, and calls whose names contain `assert`, `ASSERT`, `CHECK` or
      `panic`: the `assert-names` option), `abort()`, or a fatal handler: a function or
      function-like macro of the project whose body always calls `abort()`, `exit()` or
      another such handler, or a function the project declares never to return
      (`[[noreturn]]`, `_Noreturn`, `__attribute__((noreturn))`, `CMK_NORETURN`-like
      macros) unless a definition throws or jumps out. A handler that exits is as fatal as
      one that aborts (the job ends on a failure that had a fallback); only an `exit()`
      written at the failure itself, a program's chosen end, ends the path unreported;
    - the result, or a condition on it, is handed to a handler that ends the process under a
      condition on that parameter (`check_rc(rc)` with `if (rc) abort();`,
      `FATAL_IF(rc != 0, msg)` with `do { if (cond) { ...; abort(); } } while (0)`, a macro
      or function handing it on to one: `CHECK(rc)` as `check_rc((rc), __func__)`, a macro
      testing its parameter before it calls a handler of another file: `assume(op)` as
      `do { if (unlikely(!(op))) assert_failed(#op); } while (0)`; a function of another
      file that hands the condition on is not followed), and that condition is true for the
      failure (`FATAL_IF(rc == 0)` is not; a condition that mentions anything else, a
      verbosity level or a global, makes no handler);
    - the result is asserted with no check before it (`assert(n == len)`);
    - the result is ignored: the call is a statement of its own (a `(void)` cast says it is
      discarded on purpose and is not reported, and so is a function of the project that
      also writes its failure through a pointer parameter before it returns the code, as a
      probe keeping `peers->cma = REFUSED` does: the caller may read it there);
    - a fallback keyed on errno leaves out EPERM or ENOSYS (`analysis.c_errno_fallbacks`): the
      failure branch copies another way (`memcpy`, `PTRACE_PEEKDATA`, `pread` of `/proc/PID/mem`)
      for the values it tests (`errno == EFAULT`, `ret == -ENOSYS` of a `-errno` function, a flag
      deciding `if (pending) memcpy(...)`), the others leave; reported at the copy, also one of the
      calling process (seccomp refuses that too). Failing EPERM on purpose, or no fallback, is not;
    - (C++) the failure branch throws an exception that no `try` of its function nor of the
      project's callers catches on its way up to `main` or to a binding (a `.pyx` calling it,
      a pybind11 `.def(..., &Reader::read)`; `analysis.c_throws`), reported at the copy for
      EPERM and ENOSYS where they reach the throw untested by name (`if (errno == EPERM) throw
      Denied();` is a choice); a function nothing in the project calls throws to its user;
    - the copy's function is chosen by the kernel's version (`analysis.c_cma_gates`): a `uname`
      release test in any file picks it or another function given the same arguments, neither
      trying the other when the copy fails (`use_cma ? copy_cma(pid, f, n) : copy_mem_file(pid,
      f, n)`); a choice by an option or a probe, or an errno test in the copy's function, is not.

    Otherwise a copy of the calling process itself (`process_vm_readv(getpid(), ...)`: a
    self-test, a CMA probe) is not reported: the kernel grants a process its own memory unchecked.

    The path a failed call (-1) takes is followed inside the function: into the branch an `if`
    on the result sends -1 to (`n == -1`, `n < 0`, `n != len`, the `else` of `n == len`, `!`,
    `||` and `&&` of these, also inside a branch hint: `unlikely(n < 0)`, `__builtin_expect(n ==
    -1, 0)`, a one-argument call named `*likely`), on through the statements after it when that
    branch falls through, and through both branches of other `if`s and of `#if`/`#else`; a
    `goto` on to its label (`fn_fail: die(...)`). A `return`, `break`, `continue`, `throw`,
    `exit()` or a new value of the result ends it: a failure returned to the caller is followed
    there only as an error code of the project's functions, and one returned to the user of an
    API (an MPI error code, `-errno`) is not reported: whether it is fatal is the user's choice.
    Loops, `switch`, checks whose answer for -1 is unknown (`n < 0 && errno == EPERM`), a call handed
    a label of the function (`GOTO_ERROR(rma, error, ret, ...)`, `CHECK_GOTO(n == len, out)`: a macro
    that may jump there; no assertion either, whatever its name) and unreadable code make it silent.

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
    - seccomp(2), a filter's `SECCOMP_RET_ERRNO` (EPERM in Docker's default profile, ENOSYS
      in others): https://man7.org/linux/man-pages/man2/seccomp.2.html
    - dyninst PR 280, falling back to ptrace when Yama blocks process_vm_readv:
      https://github.com/dyninst/dyninst/pull/280
    - Incident 003 (see the README's "Incidents"): libfabric's psm3 provider,
      https://github.com/ofiwg/libfabric/blob/main/prov/psm3/psm3/ptl_am/ptl.c
    """

    code = "CUR601"
    name = "cma-failure-aborts"
    languages = (C, CPP)
    severity = Severity.WARNING  # fails where ptrace is restricted (`cursedlint doctor`)
    triggers = CMA_WORDS
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

    def __init__(self, context, options=None, headers: bool = True):
        super().__init__(context, options)
        self._headers = headers  # (a summary is made from the file's own text: `HEADERS`)
        self._reported: set[int] = set()
        self._labels: dict[str, tuple[str, tuple[Step, ...], str]] = {}

    @classmethod
    def triggers_for(cls, options):
        return (*cls.triggers, *options["wrappers"])

    # -- wrappers in other files of the project ----------------------------------------------
    indexer = CmaWrapperIndex()
    reads_facts_of = (CMA_GATES, THROW_CALLERS, HEADERS)

    @classmethod
    def defined_in(cls, context) -> CmaFunctions:
        """The file's functions that return a CMA result unchanged, those that return an
        error code when the copy failed, its flows and fatal handlers (`CmaFunctions` but
        `checked` and `passing`: `callers_in`)."""
        rule = cls(context, context.settings.rule_options.get(cls.code), headers=False)
        wrappers = {
            name: underlying
            for name, underlying in rule._cma_names.items()
            if name not in CMA_FUNCTIONS and name not in rule.option["wrappers"]
        }
        codes = {name: code for name, code in rule._codes.items() if name not in rule._remote}
        fatal = {name: fatal for name, (path, fatal) in rule._fatal.items()
                 if path == context.source.path}
        forwarding = forwards(context, {name: fatal for name, (_, fatal) in rule._fatal.items()})
        return CmaFunctions(wrappers, codes, field_flows(context), fatal, forwards=forwarding,
                            escaping=escaping(context),
                            aliases=aliases_of(context.source.data, CMA_FUNCTIONS))

    @classmethod
    def callers_in(cls, context) -> CmaFunctions | None:
        """The functions the file calls where it checks another's result, and its functions
        that may hand on another file's error code (`CmaFunctions` with only these)."""
        rule = cls(context, context.settings.rule_options.get(cls.code), headers=False)
        checked = checked_calls(context)
        passing = passing_on(context, rule._paths, rule._value,
                             {*rule._cma_names, *rule._codes})
        return CmaFunctions(checked=checked, passing=passing) if checked or passing else None

    # -- the calls -------------------------------------------------------------------------
    def check(self) -> None:
        paths = self._paths
        made = calls_made(self.context, {**self._cma_names, **self._codes}, own=True)
        calls = [*of_other_processes(self.context, made), *self._through]
        calls.sort(key=lambda found: found[1].start_byte)
        throwing = []
        for name, call in calls:
            result = self._result(name, call)
            path = paths.reached(result) if result is not None else None
            if path is not None:
                self._report_assert(path.hit, result, path.detected)
            elif result is not None:
                throwing.append(result)
        from cursedlint.analysis.c_errno_fallbacks import HELP, partial_fallback

        partial_calls = set()

        for name, call in made:
            code = self._codes.get(name)  # (one returning -errno: its result is what is tested)
            negated = name not in self._cma_names and code is not None \
                and code.described == "-errno"
            partial = partial_fallback(self.context, call, negated) \
                if name in self._cma_names or negated else None
            if partial is not None:
                partial_calls.add(call.id)
                self.report(call, partial.message(f"{name}()"), help=HELP, related=(
                    *partial.steps(self.context.source.path),
                    *(self._chain(name) if negated else ())))
        for call, message, steps in gated_copies(self.context, self._codes):
            self.report(call, message, help=GATE_HELP, related=steps)
        for result, message, steps in thrown_copies(self.context, self._paths, throwing,
                                                    partial_calls, self._described):
            self.report(result.call, message, help=f"{_WHY}. {THROW_HELP}. {_DOCTOR}",
                        related=(*steps, *self._chain(result.function)))

    @cached_property
    def _paths(self) -> FailurePaths:
        from cursedlint.analysis.c_failure_path import FailurePaths

        # (locals, not the rule, in the closure: no cycle through the rule)
        context, facts, value = self.context, self.project_facts, self._value
        return FailurePaths(self.context, self._assertions, value, lambda: {
            name: fatal for name, (_, fatal) in fatal_of(context, facts, value).items()})

    @cached_property
    def _fatal(self) -> dict[str, tuple[str, Fatal]]:
        return fatal_of(self.context, self.project_facts, self._value)

    @cached_property
    def _cma_names(self) -> dict[str, str]:
        """Called name -> the CMA function whose result it returns: the two system calls, the
        configured wrappers, wrappers defined in other files of the project, and the file's
        functions that return a call of one of these names (`analysis.c_result_wrappers`)."""
        add_project_aliases(self.context, built_for(self.project_facts, "cma aliases",
                                                    all_aliases))
        names = {name: name for name in CMA_FUNCTIONS}
        names.update((name, "process_vm_readv/writev") for name in self.option["wrappers"])
        names.update(built_for(self.project_facts, "cma wrappers", all_wrappers))
        from cursedlint.analysis.c_result_wrappers import result_wrappers

        return result_wrappers(self.context, names, self._value)

    @cached_property
    def _through(self) -> list[tuple[str, object]]:
        """(label, call) for the file's calls through a field every function of which returns
        a CMA result (`tbl[op].fn`); their descriptions, chains and CMA functions in
        `_labels`."""
        found = field_copies(self.context, self.project_facts, self._cma_names,
                             self.indexer.name in self.context.project)
        self._labels.update((label, (f"{label}() (holds {underlying}())", steps, underlying))
                            for label, _, steps, underlying in found)
        return [(label, call) for label, call, _, _ in found]

    @cached_property
    def _remote(self) -> dict[str, tuple[str, ErrorCode]]:
        """Name -> (path, error code) of the project's other files' functions that return an
        error code when a copy failed."""
        return built_for(self.project_facts, "cma codes", all_codes)

    @cached_property
    def _codes(self) -> dict[str, ErrorCode]:
        """Called name -> what it returns when a copy failed, for the functions that turn the
        failure into an error code, of the project and of this file
        (`analysis.c_error_codes`)."""
        known = {name: code for name, (_, code) in self._remote.items()}
        names = {**self._cma_names, **{label: self._labels[label][2]
                                       for label, _ in self._through}}
        return error_codes(self.context, names, known, self._paths, self._value,
                           self._through)

    @cached_property
    def _assertions(self) -> Assertions:
        from cursedlint.analysis.c_expectations import Assertions

        return Assertions(self.option["assert-names"])

    @cached_property
    def _value(self):
        """An expression's constant value (`cma_facts.evaluator`: at lint time, with the project
        headers' macros). The analyses this rule keeps hold it, not a method of the rule: no
        cycle holds the file's tree past its lint."""
        return evaluator(self.context, self._headers)

    def _result(self, name: str, call) -> Result | None:
        """What happens to the call's value: reported here when ignored or asserted at once,
        else the Result whose failure path is followed."""
        from cursedlint.analysis.c_expectations import stored_in
        from cursedlint.analysis.c_failure_path import Result

        if any(discards(node) for node in wrappers(self.context, call)):
            return None  # discarded on purpose
        _, user, target = stored_in(self.context, call)
        code = self._codes.get(name)
        if user is not None and user.type == "expression_statement":
            if code is not None and code.recorded:
                return None  # the failure is also written where the caller may read it
            self.report(call, f"the result of {self._described(name)} is ignored{_CONDITION}",
                        help=f"{_WHY}. Check it, and {_FIX}. {_DOCTOR}",
                        related=self._labels[name][1] if name in self._labels else ())
            return None
        asserting = self._assertions.around(self.context, call)
        if asserting is not None and not self._paths.hands_label(asserting):
            self._report_assert(asserting, Result(name, call, None), detected=False)
            return None
        return result_of(self.context, name, call, code)  # (no target: an `if` checks it)

    def _described(self, name: str) -> str:
        if name in self._labels:
            return self._labels[name][0]
        code = self._codes.get(name)
        if code is not None:
            return f"{name}() (returns {code.described} if {code.underlying}() fails)"
        underlying = self._cma_names[name]
        return f"{name}()" if name == underlying else f"{name}() (wraps {underlying}())"

    def _chain(self, name: str) -> tuple[Step, ...]:
        """How a function returning an error code gets it: the copy it makes, and the copies
        the functions it calls make, up to the CMA call (through a function pointer: the
        functions its field holds)."""
        steps = []
        while name in self._codes and len(steps) < 8:
            code = self._codes[name]
            path = self._remote[name][0] if name in self._remote else self.context.source.path
            steps.append(Step(path, code.line, f"{name}() returns {code.described} when "
                                               f"{code.calls}() fails"))
            name = code.calls
        return (*steps, *self._labels.get(name, ("", ()))[1])

    def _report_assert(self, hit, result: Result, detected: bool) -> None:
        """Report `hit` once, for the first call whose failure path reaches it."""
        if hit.start_byte in self._reported:
            return
        self._reported.add(hit.start_byte)
        line = result.call.start_point[0] + 1
        call = f"{self._described(result.function)} on line {line}"
        handler = self._fatal.get(callee(self.context, hit), ("", None))[1]
        where = (f"aborts on the failure of {call}" if handler is not None
                 and handler.conditional else f"is reached from the failure branch of {call}"
                 if detected else f"asserts the result of {call} with no fallback")
        called = self.context.text(hit.child_by_field_name('function'))
        self.report(hit, f"{called}() {where}{_CONDITION}",
                    help=f"{_WHY}. Instead, {_FIX}. {_DOCTOR}",
                    related=(*handler_steps(self._fatal, callee(self.context, hit)),
                             *self._chain(result.function)))

