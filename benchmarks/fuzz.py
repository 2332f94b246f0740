"""The fuzz test's long run, by hand: the generators of tests/fuzz_inputs.py for N inputs, each
timed and its memory measured (Linux).

    python benchmarks/fuzz.py -n 10000 --seed 1 --budget 3600 --record fuzz.jsonl

Each input is a small project (random or mutated bytes, programs assembled from trigger words,
or a random configuration over trigger-rich files) linted four ways (see
`fuzz_inputs.check_project`) in a child forked for it alone by a `Runner`: a process forked
before any input is made, once cursedlint has linted a small project (so that every module an
input needs is loaded). Every child thus starts from the same state, and its peak RSS as
os.wait4 tells it (the larger of the child's and of the workers its `--jobs 4` run forks; each
run's cyclic garbage freed before the next) is its input's alone: the peak of a `cursedlint
check` process over it, give or take the few MB of hypothesis the runner holds too (the
summary says how much a `cursedlint check` process over a small project takes).

An input fails as `check_project` says; or when one of its runs takes over --slow seconds (5;
where it was after --slow seconds of CPU, faulthandler tells: the child dumps its own stack on
SIGPROF, never read by another thread while it runs, which crashed the child now and then); or when its peak RSS is over 20x its largest file +
--memory-base MB (200, which holds the interpreter and cursedlint's imports); or when its runs
do not end within --limit seconds (20; the child is killed KILL_AFTER seconds later if it
still has not answered); or when its child dies.

Prints the inputs run and their rate, the percentiles of their time and memory, and for each
kind of failure how many inputs showed it and a minimal reproducer (the smallest failing
input, reduced line by line and byte by byte while it fails the same way). `--record PATH`
writes one JSON line per input (`Record`). Exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import gc
import json
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from dataclasses import asdict, dataclass

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import fuzz_inputs  # noqa: E402
from fuzz_inputs import Failure, Project, lint_project  # noqa: E402
from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402
from hypothesis.errors import NonInteractiveExampleWarning  # noqa: E402

KINDS = {
    "bytes": fuzz_inputs.byte_projects,
    "programs": fuzz_inputs.program_projects,
    "configs": fuzz_inputs.config_projects,
}
MB = 1 << 20
FILE_FACTOR = 20
"""The memory bound: a peak RSS of at most FILE_FACTOR times the largest file + a base."""
CHUNK = 500
"""Inputs per hypothesis run: a run keeps what it drew for every input (about 0.3 MB each for
programs: 33,000 in one run would take 10 GB)."""
KILL_AFTER = 5.0
"""Seconds past the time limit after which a child that has not answered is killed (its alarm
cannot interrupt a loop in C code)."""


class OutOfTime(BaseException):
    """The time budget is spent: ends the hypothesis run early (a BaseException, which
    hypothesis lets through rather than reporting it as a failure)."""


@dataclass(frozen=True)
class Limits:
    """What an input must stay within: seconds for its four runs (`limit`), for one run
    (`slow`), and the memory bound's base in MB."""

    limit: float = 20.0
    slow: float = 5.0
    memory_base: float = 200.0

    def bound_mb(self, project: Project) -> float:
        return FILE_FACTOR * project.largest / MB + self.memory_base


@dataclass(frozen=True)
class Record:
    """One input as measured: its id and kind, its bytes in all and its largest file's, the
    seconds of its slowest run and of its whole child (four runs and the fork), the child's
    peak RSS, the RSS it was forked with (the runner's), the bound (MB), and its failures."""

    id: str
    kind: str
    bytes: int
    largest: int
    seconds: float
    child_s: float
    peak_mb: float
    base_mb: float
    bound_mb: float
    failures: tuple[Failure, ...]

    @property
    def growth_mb(self) -> float:
        return self.peak_mb - self.base_mb

    def row(self) -> str:
        """The record as a JSON line."""
        return json.dumps({**asdict(self), "failures": [str(f) for f in self.failures]})


class Runner:
    """A process forked once cursedlint has linted a small project, which forks a child for
    each input to measure (each child thus starts from the same state, not from what earlier
    inputs or the generators left). `base_mb`: its anonymous RSS, which a child starts with
    (fork copies no page table entry of a file mapping: the pages of code and libraries the
    child runs count when it touches them)."""

    def __init__(self, limit: float):
        self.connection, theirs = multiprocessing.Pipe()
        self.pid = os.fork()
        if self.pid == 0:
            self.connection.close()
            _serve(theirs, limit)
        theirs.close()
        self.base_mb = self.connection.recv()

    def measure(self, project: Project, limits: Limits, name: str = "-",
                kind: str = "-") -> Record:
        self.submit(project, limits, name, kind)
        return self.collect()

    def submit(self, project: Project, limits: Limits, name: str = "-",
               kind: str = "-") -> None:
        """Have `project` measured, while this process goes on (drawing the next input)."""
        self.connection.send((project, limits, name, kind))

    def collect(self) -> Record:
        """The record of the project submitted last."""
        return self.connection.recv()

    def close(self) -> None:
        self.connection.close()
        os.waitpid(self.pid, 0)


def warm_up_project() -> Project:
    """A file of each language (one of the rules' examples): linting it loads what inputs
    need (rules, parsers, queries)."""
    seeds = fuzz_inputs.seeds()
    return Project(tuple((names[0], seeds[language][0])
                         for language, names in fuzz_inputs.FILE_NAMES.items()
                         if seeds[language]))


def _serve(connection, limit: float) -> None:
    """The runner: warm up, send its RSS, then measure each project it is sent, until the
    connection closes; never return. Its children's directories are made under one of its
    own, removed at its end (a killed child leaves its own)."""
    status = 1
    try:
        with tempfile.TemporaryDirectory(prefix="cursedlint-fuzz-runner-") as scratch:
            tempfile.tempdir = scratch
            lint_project(warm_up_project(), limit)
            gc.freeze()  # a child's collections see only what it made
            connection.send(_status_mb("RssAnon"))
            while True:
                try:
                    request = connection.recv()
                except EOFError:
                    break
                connection.send(_measure(*request))
        status = 0
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(status)


def _status_mb(field: str) -> float:
    """A size in /proc/self/status (VmRSS, RssAnon, VmHWM, ...), in MB."""
    with open("/proc/self/status") as status:
        return int(re.search(field + r":\s+(\d+)", status.read()).group(1)) / 1024


def _measure(project: Project, limits: Limits, name: str, kind: str) -> Record:
    """Lint `project` in a child forked for it (in a process group of its own, with its
    workers) and wait for it, killing it if it runs KILL_AFTER seconds past the limit."""
    base_mb = _status_mb("RssAnon")
    dump = os.memfd_create("fuzz-where")  # where the child was after `limits.slow` seconds
    answer, result = multiprocessing.Pipe(duplex=False)
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        _child(project, limits, dump, result)
    result.close()
    with contextlib.suppress(OSError):  # it has set its group already, or left
        os.setpgid(pid, pid)
    killed = not answer.poll(limits.limit + KILL_AFTER)
    if killed:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
    reply = None
    with contextlib.suppress(EOFError):  # it died: told below
        reply = None if killed else answer.recv()
    _, status, usage = os.wait4(pid, 0)
    child_s = time.perf_counter() - started
    answer.close()
    if killed:
        seconds, failures = child_s, [Failure("hang", f"killed past the time limit, at "
                                                      f"{_dumped(dump)}")]
    elif reply is None:
        seconds, failures = child_s, [Failure("died", _died(status))]
    else:
        seconds, failures = reply
        if seconds > limits.slow and not any(f.kind == "hang" for f in failures):
            failures.append(Failure("slow", f"a run over {limits.slow:g} s, at "
                                            f"{_dumped(dump)}"))
    os.close(dump)
    peak_mb = usage.ru_maxrss / 1024
    bound_mb = limits.bound_mb(project)
    if peak_mb > bound_mb:
        failures.append(Failure("memory", f"peak RSS over {FILE_FACTOR}x the largest file + "
                                          f"{limits.memory_base:g} MB"))
    return Record(name, kind, project.size, project.largest, seconds, child_s, peak_mb,
                  base_mb, bound_mb, tuple(failures))


def _child(project: Project, limits: Limits, dump: int, result) -> None:
    """Lint `project` the four ways, send the seconds of the slowest run and the failures;
    never return."""
    status = 1
    try:
        os.setpgid(0, 0)
        faulthandler.register(signal.SIGPROF, file=dump, all_threads=False)
        signal.setitimer(signal.ITIMER_PROF, limits.slow)  # (SIGALRM is the limit's)
        runs, failures = lint_project(project, limits.limit, collect=True)
        signal.setitimer(signal.ITIMER_PROF, 0)
        result.send((max((run.seconds for run in runs.values()), default=0.0), failures))
        status = 0
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(status)


_FRAME = re.compile(r'File "(.*)", line (\d+) in (.*)')


def _dumped(dump: int) -> str:
    """The innermost frame of cursedlint's code in faulthandler's dump (innermost first)."""
    text = os.pread(dump, 1 << 16, 0).decode(errors="replace")
    frames = [traceback.FrameSummary(path, int(line), function, lookup_line=False)
              for path, line, function in _FRAME.findall(text)]
    return fuzz_inputs._where(frames[::-1]) if frames else "(no dump)"


def _died(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exited {os.waitstatus_to_exitcode(status)} without an answer"


_CHECK_AND_PEAK = """
from cursedlint.cli import main
main(["check", ".", "--no-cache"])
print(open("/proc/self/status").read().split("VmHWM:")[1].split()[0])
"""


def cursedlint_peak_mb() -> float:
    """The peak RSS of a `cursedlint check` process over the warm-up project: the interpreter
    and cursedlint's imports, which any run's peak holds. Told by the process itself (VmHWM):
    the ru_maxrss of a process started from this one holds this one's peak (vfork, exec)."""
    with tempfile.TemporaryDirectory() as root:
        warm_up_project().write(root)
        done = subprocess.run([sys.executable, "-c", _CHECK_AND_PEAK], cwd=root,
                              capture_output=True, text=True)
    return int(done.stdout.split()[-1]) / 1024


class Findings:
    """Every input's record (also written to the file `record`); failures by (kind, detail):
    how many inputs showed each, and the smallest of them."""

    def __init__(self, record):
        self.record = record
        self.records: list[Record] = []
        self.count: dict[Failure, int] = {}
        self.smallest: dict[Failure, Project] = {}

    def add(self, project: Project, record: Record) -> None:
        self.records.append(record)
        print(record.row(), file=self.record, flush=True)
        for failure in record.failures:
            self.count[failure] = self.count.get(failure, 0) + 1
            known = self.smallest.get(failure)
            if known is None or project.size < known.size:
                self.smallest[failure] = project


def fuzz(kind: str, inputs: int, seed_value: int, deadline: float, runner: Runner,
         limits: Limits, findings: Findings) -> int:
    """Run `inputs` inputs of one kind (fewer if the deadline passes) in hypothesis runs of
    CHUNK inputs, the n-th seeded with "seed_value/n"; how many ran. Each input is drawn while
    the runner measures the one before."""
    ran = 0
    pending: list[Project] = []  # submitted, its record not yet collected

    def collect() -> None:
        if pending:
            findings.add(pending.pop(), runner.collect())

    def one(project: Project) -> None:
        nonlocal ran
        if time.monotonic() > deadline:
            raise OutOfTime
        collect()
        ran += 1
        runner.submit(project, limits, f"{kind}-{seed_value}-{ran}", kind)
        pending.append(project)

    try:
        for number, start in enumerate(range(0, inputs, CHUNK)):
            chunk = settings(max_examples=min(CHUNK, inputs - start), database=None,
                             deadline=None, phases=[Phase.generate],
                             suppress_health_check=list(HealthCheck))(given(KINDS[kind]())(one))
            seed(f"{seed_value}/{number}")(chunk)()
    except OutOfTime:
        pass
    finally:
        collect()
    return ran


def reduced(parts: list, still_fails) -> list:
    """`parts` with chunks removed (halves, quarters, ... single parts) while `still_fails`."""
    chunk = max(1, len(parts) // 2)
    while chunk >= 1:
        start = 0
        while start < len(parts):
            candidate = parts[:start] + parts[start + chunk:]
            if still_fails(candidate):
                parts = candidate
            else:
                start += chunk
        chunk //= 2
    return parts


CONFIG_NAMES = ("cursedlint.toml", "pyproject.toml")


def project_of(entries: list[tuple[str, bytes]]) -> Project:
    config = next((entry for entry in entries if entry[0] in CONFIG_NAMES), None)
    return Project(tuple(entry for entry in entries if entry is not config), config)


def minimize(project: Project, failure: Failure, runner: Runner, limits: Limits,
             budget: float) -> Project:
    """A smaller project that fails the same way: files (and the configuration) dropped, then
    each one's lines, then bytes, removed while it still does (within `budget` seconds)."""
    deadline = time.monotonic() + budget

    def fails(entries: list[tuple[str, bytes]]) -> bool:
        return time.monotonic() < deadline and failure in runner.measure(
            project_of(entries), limits).failures

    entries = reduced(list(project.entries), fails)
    for index, (name, data) in enumerate(entries):
        def with_parts(parts: list[bytes]) -> list[tuple[str, bytes]]:
            return [*entries[:index], (name, b"".join(parts)), *entries[index + 1:]]

        for split in (lambda d: d.splitlines(keepends=True), lambda d: [bytes([b]) for b in d]):
            data = b"".join(reduced(split(data), lambda parts: fails(with_parts(parts))))
        entries[index] = (name, data)
    return project_of(entries)


def spread(records: list[Record], value, unit: str) -> str:
    """p50, p99 and max of `value` over the records, and the id of the max."""
    ordered = sorted(records, key=value)
    at = lambda q: value(ordered[min(len(ordered) - 1, int(q * len(ordered)))])
    return (f"p50 {at(0.5):.2f}, p99 {at(0.99):.2f}, max {value(ordered[-1]):.2f} {unit} "
            f"({ordered[-1].id})")


def summary(findings: Findings, ran: dict[str, int], elapsed: float, seed_value: int,
            base_mb: float, limits: Limits) -> None:
    total = sum(ran.values())
    print(f"inputs run: {total} ({', '.join(f'{k} {n}' for k, n in ran.items())}) in "
          f"{elapsed:.0f} s, seed {seed_value}: {total / elapsed:.1f} inputs/s")
    if not total:
        return
    records = findings.records
    print(f"time of an input's slowest run: {spread(records, lambda r: r.seconds, 's')}")
    print(f"peak RSS over the {base_mb:.0f} MB a child starts with: "
          f"{spread(records, lambda r: r.growth_mb, 'MB')}")
    print(f"peak RSS: {spread(records, lambda r: r.peak_mb, 'MB')}; bound {FILE_FACTOR}x the "
          f"largest file + {limits.memory_base:g} MB, of which a `cursedlint check` process "
          f"over a small project holds {cursedlint_peak_mb():.0f} MB")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--inputs", type=int, default=10_000, help="inputs in all")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", type=float, default=3600, help="seconds for the inputs")
    parser.add_argument("--limit", type=float, default=20,
                        help="seconds for one input (its four runs)")
    parser.add_argument("--slow", type=float, default=5, help="seconds for one of its runs")
    parser.add_argument("--memory-base", type=float, default=200,
                        help=f"MB of the memory bound besides {FILE_FACTOR}x the largest file")
    parser.add_argument("--kinds", default=",".join(KINDS), help="of: " + ", ".join(KINDS))
    parser.add_argument("--minimize", type=float, default=300,
                        help="seconds to minimize each kind of failure (0: not at all)")
    parser.add_argument("--record", help="a file for one JSON line per input")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", NonInteractiveExampleWarning)
    kinds = args.kinds.split(",")
    limits = Limits(args.limit, args.slow, args.memory_base)
    runner = Runner(args.limit)
    started = time.monotonic()
    ran = {}
    with open(args.record or os.devnull, "w") as record:
        findings = Findings(record)
        for number, kind in enumerate(kinds):
            share = args.inputs // len(kinds) + (number < args.inputs % len(kinds))
            deadline = started + args.budget * (number + 1) / len(kinds)
            ran[kind] = fuzz(kind, share, args.seed + number, deadline, runner, limits,
                             findings)
    summary(findings, ran, time.monotonic() - started, args.seed, runner.base_mb, limits)
    failing = sum(findings.count.values())
    print(f"failures: {len(findings.count)} kind(s) in {failing} input-failure(s)")
    # minimizing, a hanging input is stopped at twice --slow (each try of it costs that)
    shorter = Limits(min(args.limit, 2 * args.slow), args.slow, args.memory_base)
    for failure, count in sorted(findings.count.items(), key=lambda item: -item[1]):
        project = findings.smallest[failure]
        again = failure in runner.measure(project, limits).failures
        if args.minimize and again:
            project = minimize(project, failure, runner, shorter, args.minimize)
        how = "minimal reproducer" if again else "did NOT fail again when re-run (flaky)"
        print(f"\n[{failure}] in {count} input(s); {how}:\n{project.text()}")
    runner.close()
    return 1 if findings.count else 0


if __name__ == "__main__":
    sys.exit(main())
