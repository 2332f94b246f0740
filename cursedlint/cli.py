"""The command line: `cursedlint check|rules|rule|doctor`, with ruff's and flake8's conventions.

Exit codes: 0 no findings, 1 findings, 2 usage, configuration or internal error, or fixes that
could not be written (an I/O error), 130 interrupted (Ctrl-C). Whatever goes wrong outside a
rule (a rule's exception is a CUR000 finding) ends in one line on stderr and exit 2, never a
traceback, unless --show-traceback asks for it.
"""

from __future__ import annotations

import argparse
import functools
import gc
import importlib
import os
import sys
import time
import types

import cursedlint

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
EXIT_INTERRUPTED = 130  # as a shell reports a command that SIGINT stopped
STDIN = "-"
"""The path that names standard input (`check -`)."""
PRE_COMMIT = "--pre-commit"
"""The flag that ends the hook's entry in .pre-commit-hooks.yaml: pre-commit runs the entry,
then the hook's `args:`, then the file names, with no `--` before the names."""
GC_THRESHOLDS = (100_000, 20, 20)
"""The cyclic garbage collector's thresholds while a command runs (CPython's are 700, 10, 10):
a run allocates syntax trees of 10^5 nodes, few of them in cycles, and the default collected
10-40 ms of a 0.3 s warm run (about 120 collections, one of them of every object); as mypy
does. Peak memory of cold runs (torch, the stdlib worst case) measured within 3%."""


class UsageError(Exception):
    """A problem with how cursedlint was called or configured: printed, exit 2."""


def _codes(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _outputs(value: str) -> list[tuple[str, str | None]]:
    """`--output-format`: formats joined by commas, each `FORMAT` or `FORMAT:PATH` (pylint's
    form), so one run writes e.g. SARIF to a file and annotations to standard output."""
    from cursedlint.formats import FORMATS

    outputs = []
    for part in value.split(","):
        format, colon, path = part.strip().partition(":")
        if format not in FORMATS:
            raise argparse.ArgumentTypeError(
                f"invalid choice: {format!r} (choose from {', '.join(FORMATS)}; FORMAT:PATH "
                "writes that format to PATH)")
        if colon and not path:
            raise argparse.ArgumentTypeError(f"{part.strip()!r}: expected a path after ':'")
        outputs.append((format, path or None))
    if sum(path is None for _, path in outputs) > 1:
        raise argparse.ArgumentTypeError(
            "at most one format without a path (it goes to standard output or --output-file)")
    return outputs


def _non_empty(value: str) -> str:
    """A path or name option's value: an empty one is refused, not taken as no value."""
    if not value:
        raise argparse.ArgumentTypeError("expected a non-empty value")
    return value


def _jobs(value: str) -> int:
    jobs = int(value)
    if jobs < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return jobs


def _help_formatter(prog: str) -> argparse.HelpFormatter:
    """argparse's formatter, told the terminal's width: left to find it, argparse imports
    shutil (8 ms, with bz2 and lzma) and asks again at every add_argument."""
    return argparse.HelpFormatter(prog, width=_terminal_columns() - 2)


@functools.cache
def _terminal_columns() -> int:
    """What shutil.get_terminal_size() reports: $COLUMNS, else the terminal's, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def build_parser() -> argparse.ArgumentParser:
    from cursedlint.formats import FORMATS

    parser = argparse.ArgumentParser(
        prog="cursedlint",
        description="Finds the rare, nondeterministic systems bugs of ML training stacks.",
        formatter_class=_help_formatter,
    )
    parser.add_argument("--version", action="version", version=f"cursedlint {cursedlint.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser(
        "check", formatter_class=_help_formatter, help="lint files and directories (default: .)"
    )
    check.add_argument("paths", nargs="*", metavar="PATH", help="files and directories to lint (default: .)")
    check.add_argument("--select", type=_codes, action="extend", help="codes or prefixes to enable (replaces the configured select; repeated, they add up)")
    check.add_argument("--extend-select", type=_codes, action="extend", default=[], help="codes or prefixes to enable in addition")
    check.add_argument("--ignore", type=_codes, action="extend", default=[], help="codes or prefixes to disable")
    check.add_argument("--config", type=_non_empty, help="configuration file (pyproject.toml or cursedlint.toml) for every file (default: each file's nearest)")
    check.add_argument("--target-python", type=_non_empty, help='Python version the code runs on, e.g. "3.11"')
    check.add_argument("-p", "--compile-commands", metavar="PATH", type=_non_empty, help="compile_commands.json (or its directory) giving C/C++ include paths and -D macros (default: the project root's or build/'s)")
    check.add_argument("--output-format", type=_outputs, default=[("text", None)], metavar="FORMAT[:PATH][,...]", help=f"{'|'.join(FORMATS)} (default text); several joined by commas, each to standard output (or --output-file) or, as FORMAT:PATH, to PATH: sarif:cursedlint.sarif,github")
    check.add_argument("--output-file", type=_non_empty, help="write the report here instead of standard output")
    check.add_argument("--concise", action="store_true", help="one line per finding")
    check.add_argument("--statistics", action="store_true", help="counts per code instead of findings")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument("--baseline", metavar="FILE", type=_non_empty, help="report only findings this baseline does not hold (config key: baseline)")
    check.add_argument("--write-baseline", metavar="FILE", type=_non_empty, help="record the findings of this run in FILE (a baseline) and report none")
    check.add_argument("--stdin-filename", metavar="PATH", type=_non_empty, help="lint standard input as the file PATH (editors): its language and configuration come from PATH; facts from other files are not gathered")
    check.add_argument("--diff-base", metavar="REF", type=_non_empty, help="report only findings on lines (or with a step of their chain on lines) changed since the merge base of REF and HEAD (git)")
    check.add_argument("--fail-on", choices=("error", "warning"), default="warning", help="the least severe finding that makes the exit code 1 (default: warning, i.e. any)")
    check.add_argument("--fix", action="store_true", help="apply safe fixes to the files (only code that still parses is written)")
    check.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff, also apply fixes that may change behaviour")
    check.add_argument("--diff", action="store_true", help="print the fixes as a unified diff instead of writing them (exit 1 when there are some)")
    check.add_argument("--jobs", type=_jobs, help="processes to use (default: all cores)")
    check.add_argument("--no-cache", action="store_true", help="neither read nor write .cursedlint_cache/")
    check.add_argument("--force-exclude", action="store_true", help="apply excludes to files named on the command line too")
    check.add_argument(PRE_COMMIT, action="store_true", help="end of the pre-commit hook's entry: of the arguments after it (the hook's args, then the file names), one that starts with '-' and names an existing file is that file, not an option")
    check.add_argument("--show-settings", action="store_true", help="print the settings the first PATH gets (its configuration files, root, target Python, enabled codes, rule options, excludes) and lint nothing")
    check.add_argument("--show-files", action="store_true", help="print the files that would be linted (with their configuration when more than one applies) and lint nothing")
    check.add_argument("--warn-unused-suppressions", action="store_true", help="report noqa/NOLINT comments that suppress nothing (CUR003)")
    check.add_argument("--show-traceback", action="store_true", help="print the stack of internal errors (CUR000)")
    check.add_argument("-v", "--verbose", action="store_true", help="print what was checked, skipped and how long it took")
    check.add_argument("-q", "--quiet", action="store_true", help="print the findings and nothing else (no summary line)")
    check.add_argument("-s", "--silent", action="store_true", help="print nothing on standard output; the exit code still tells")

    listing = commands.add_parser(
        "rules", formatter_class=_help_formatter, help="list every rule"
    )
    listing.add_argument("--format", choices=("text", "json", "markdown"), default="text")

    clean = commands.add_parser(
        "clean", formatter_class=_help_formatter, help="remove the result cache of the project PATH belongs to"
    )
    clean.add_argument("path", nargs="?", default=".", metavar="PATH")

    rule = commands.add_parser(
        "rule", formatter_class=_help_formatter, help="print a rule's documentation"
    )
    rule.add_argument("code", metavar="CODE", help="a code (CUR301) or a rule name")

    doctor = commands.add_parser(
        "doctor", formatter_class=_help_formatter, help="report the conditions of this machine that arm the rules' hazards"
    )
    doctor.add_argument("--output-format", choices=("text", "json"), default="text")
    doctor.add_argument("--strict", action="store_true", help="exit 1 when a condition arms a hazard")
    doctor.add_argument("--root", default="/", help="read proc/ and dev/ under this directory instead of / (a mounted system image)")

    explain = commands.add_parser(
        "explain", formatter_class=_help_formatter,
        help="why the findings on one line are there: their chains, and where their facts came from",
    )
    explain.add_argument("location", metavar="PATH:LINE", help="the file (linted as `check PATH` lints it) and the line")
    for option, kind, text in (("--config", _non_empty, "configuration file (default: the file's nearest)"),
                               ("--target-python", _non_empty, "Python version the code runs on"),
                               ("--compile-commands", _non_empty, "compile_commands.json (or its directory)")):
        explain.add_argument(option, type=kind, help=text)
    explain.add_argument("--select", type=_codes, action="extend", help="codes or prefixes to enable")
    explain.add_argument("--ignore", type=_codes, action="extend", default=[], help="codes or prefixes to disable")
    return parser


_ENDS_PROCESS = False
"""Whether the process ends as soon as `main` returns (`run`)."""


def run() -> None:
    """The `cursedlint` command: `main`, then the process ends at once (output flushed),
    without the interpreter's teardown, which frees every object one by one: 20-30 ms after a
    warm run that loaded the stores and parsed a large module. Nothing is left to clean up: the
    stores are written and the workers gone when `main` returns (a run's kept trees are left
    to that end: `FileLinter.ends_process`)."""
    global _ENDS_PROCESS
    _ENDS_PROCESS = True
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a reader gone, or the stream closed
        pass
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    _import_msgspec_without_typing_extensions()
    thresholds = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        return _main(argv)
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()  # (what the run froze, `settle_survivors`, collected as before)


def _import_msgspec_without_typing_extensions() -> None:
    """Import msgspec, where nothing has yet, with `typing_extensions` hidden from it: msgspec
    imports it where installed (libcst needs it) only to read type hints written with its
    forms, which cursedlint's structs do not use (on Python 3.11 and later its `Required` is
    typing's), and with `inspect`, which nothing else of a run needs, it was a tenth of a
    one-file run's instructions. Later importers (libcst, for fixes) import it as usual. Its
    package is entered without running its `__init__` (`_MsgspecPackage`)."""
    if "msgspec" in sys.modules or "typing_extensions" in sys.modules:
        return
    sys.modules["typing_extensions"] = None  # (an import of it fails: msgspec falls back)
    try:
        _MsgspecPackage.enter()
    except ImportError:  # a msgspec that needs it: imported as usual below
        for name in [name for name in sys.modules if name.partition(".")[0] == "msgspec"]:
            del sys.modules[name]
    finally:
        del sys.modules["typing_extensions"]
    importlib.import_module("msgspec")


class _MsgspecPackage(types.ModuleType):
    """msgspec's package with only its compiled core loaded: the names a run reads (`Struct`,
    `Raw`, `convert`; `field` is its core's `Field`, as `msgspec.field` makes), each of its
    modules (`msgspec.msgpack`, `msgspec.structs`) imported when first read, and its own
    `__init__` run only when something else is asked of it. That `__init__` imports every
    module of the package (its JSON schemas, `msgspec.inspect`, TOML and YAML), which no run
    reads: 14 M instructions, 5% of a warm one-file run."""

    @classmethod
    def enter(cls) -> None:
        import importlib.util

        spec = importlib.util.find_spec("msgspec")
        if spec is None or spec.loader is None or spec.submodule_search_locations is None:
            raise ImportError("msgspec is no package")
        package = importlib.util.module_from_spec(spec)
        sys.modules["msgspec"] = package
        core = importlib.import_module("msgspec._core")
        package.__dict__.update((name, value) for name, value in vars(core).items()
                                if not name.startswith("_"))
        package.field = core.Field
        package.__class__ = cls

    def __getattr__(self, name: str):
        import importlib.util

        if name.isidentifier() and importlib.util.find_spec(f"{self.__name__}.{name}"):
            return importlib.import_module(f"{self.__name__}.{name}")
        self.__class__ = types.ModuleType  # the package's own `__init__`, then the name
        self.__spec__.loader.exec_module(self)
        return getattr(self, name)


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(_hook_arguments(sys.argv[1:] if argv is None else argv))
    if unknown:
        _unknown_arguments(parser, args, unknown)
    try:
        return _run(parser, args)
    except UsageError as error:
        print(f"cursedlint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `cursedlint rules | head`: the reader has what it wanted
        _discard_stdout()
        return EXIT_CLEAN
    except Exception as error:
        show_traceback = getattr(args, "show_traceback", None)
        if show_traceback:
            import traceback

            traceback.print_exc()
        print(f"cursedlint: error: {_failure(error, show_traceback is not None)}", file=sys.stderr)
        return EXIT_ERROR


def _unknown_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace,
                       unknown: list[str]) -> None:
    """Exit as argparse does (2), from the command's own parser, with the option of that
    command nearest to the first unknown one, as ruff's "a similar argument exists"."""
    import difflib

    commands = next(action for action in parser._actions
                    if isinstance(action, argparse._SubParsersAction))
    command = commands.choices.get(args.command, parser)
    options = [option for action in command._actions for option in action.option_strings]
    name = unknown[0].partition("=")[0]
    close = difflib.get_close_matches(name, options, n=1, cutoff=0.6)
    tip = f"; did you mean {close[0]!r}?" if close else ""
    command.error(f"unrecognized arguments: {' '.join(unknown)}{tip}")


def _hook_arguments(argv: list[str]) -> list[str]:
    """The arguments, where those after --pre-commit that start with "-" and name an existing
    path are written `./NAME`: pre-commit's file names, which must never be read as options
    (a file `--exit-zero`). The hook's own `args:` name no file, so they stay options."""
    if PRE_COMMIT not in argv:
        return argv
    start = argv.index(PRE_COMMIT) + 1
    return argv[:start] + [os.path.join(os.curdir, argument)
                           if argument.startswith("-") and os.path.lexists(argument) else argument
                           for argument in argv[start:]]


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.command == "check":
        return check(args)
    if args.command == "rules":
        return list_rules(args.format)
    if args.command == "rule":
        return show_rule(args.code)
    if args.command == "doctor":
        return run_doctor(args)
    if args.command == "clean":
        return clean_cache(args.path)
    if args.command == "explain":
        return explain(args)
    parser.print_help(sys.stderr)
    return EXIT_ERROR


def _failure(error: Exception, can_show_traceback: bool) -> str:
    """One line for an exception that nothing handled: an OSError as the system says it, with
    its file; anything else as an internal error, with its type and the last line of a
    message of several (a worker's traceback)."""
    if isinstance(error, OSError) and error.strerror:
        return f"{error.strerror}: {error.filename!r}" if error.filename else error.strerror
    lines = str(error).strip().splitlines() or [""]
    message = lines[0] if len(lines) == 1 else f"{lines[0]} {lines[-1].strip()}"
    hint = "; --show-traceback prints where" if can_show_traceback else ""
    return f"internal error: {type(error).__name__}: {message} (please report it{hint})"


def _discard_stdout() -> None:
    """Point standard output at the null device once its reader has gone (`| head`), so that
    what is still buffered neither fails nor prints an error when Python exits."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):  # not a real file (replaced in tests)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, descriptor)
    os.close(devnull)


def list_rules(format: str) -> int:
    from cursedlint import docs
    from cursedlint.registry import all_rules

    rules = all_rules()
    if format == "json":
        rows = [
            {"code": code, "name": rule.name, "languages": list(rule.languages),
             "severity": rule.severity.value, "summary": rule.summary}
            for code, rule in rules.items()
        ]
        import json

        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
    elif format == "markdown":
        sys.stdout.write(docs.rules_table(rules))
    else:
        sys.stdout.write(docs.rules_listing(rules))
    return EXIT_CLEAN


def show_rule(key: str) -> int:
    from cursedlint import docs
    from cursedlint.registry import all_rules, find_rule

    rule = find_rule(key, all_rules())
    if rule is None:
        raise UsageError(f"no rule {key!r}; `cursedlint rules` lists them")
    sys.stdout.write(docs.markdown(rule))
    return EXIT_CLEAN


def clean_cache(path: str) -> int:
    """Remove the result cache of the project `path` belongs to (its configuration file's
    directory; without one, `path` itself, where a run from it keeps its cache) and every
    cache below `path` (the projects of a monorepo, runs from a subdirectory), naming each."""
    from cursedlint import config as configuration
    from cursedlint.project.cache import CACHE_DIR, clean
    from cursedlint.formats.shared import printable

    if not os.path.exists(path):
        raise UsageError(f"path {path!r} does not exist")
    try:
        found = configuration.find_config(path)
    except configuration.ConfigError as error:
        raise UsageError(str(error)) from None
    absolute = os.path.abspath(path)
    directory = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
    root = os.path.dirname(found) if found else directory
    removed = [(each, how) for each in dict.fromkeys([root, *_caches_below(directory)])
               if (how := clean(each))]
    for each, how in removed:
        if how == "link":
            link = printable(os.path.join(each, CACHE_DIR))
            print(f"cursedlint: removed the symbolic link {link}, not what it points to",
                  file=sys.stderr)
        else:
            print(f"cursedlint: removed cache in {printable(each)}", file=sys.stderr)
    if not removed:
        below = "" if directory == root else f" or below {printable(directory)}"
        print(f"cursedlint: no cache in {printable(root)}{below}", file=sys.stderr)
    return EXIT_CLEAN


def _caches_below(top: str) -> list[str]:
    """The directories below `top` that hold a result cache, found without following links or
    entering the directories cursedlint never lints (`.git`, `node_modules`, ...)."""
    from cursedlint.project.cache import CACHE_DIR
    from cursedlint.config import DEFAULT_EXCLUDE

    skipped = frozenset(DEFAULT_EXCLUDE)
    found, stack = [], [top]
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    if entry.name == CACHE_DIR:
                        found.append(directory)
                    elif entry.name not in skipped and entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
        except OSError:  # a directory that cannot be listed holds no cache we could remove
            continue
    return sorted(found)


def run_doctor(args: argparse.Namespace) -> int:
    from cursedlint.doctor import ARMED, Host, diagnose, render

    if not os.path.isdir(args.root):
        raise UsageError(f"--root {args.root!r} is not a directory")
    conditions = diagnose(Host(root=args.root))
    sys.stdout.write(render(conditions, args.output_format))
    armed = any(condition.status == ARMED for condition in conditions)
    return EXIT_FINDINGS if args.strict and armed else EXIT_CLEAN


def explain(args: argparse.Namespace) -> int:
    """`explain PATH:LINE`: the file linted as `check PATH` lints it (without the cache, so
    its facts are gathered), then each finding on the line with its help and chain, and the
    project, configuration and facts it was linted with."""
    path, _, line = args.location.rpartition(":")
    if not path or not line.isdigit() or int(line) < 1:
        raise UsageError(f"expected PATH:LINE (e.g. train.py:12), not {args.location!r}")
    if not os.path.isfile(path):
        raise UsageError(f"{path!r} is not a file")
    options = ["check", "--no-cache", "--", path]
    for option in ("config", "target_python", "compile_commands"):
        if getattr(args, option):
            options[1:1] = [f"--{option.replace('_', '-')}", getattr(args, option)]
    for option in ("select", "ignore"):
        if getattr(args, option):
            options[1:1] = [f"--{option}", ",".join(getattr(args, option))]
    linting = build_parser().parse_args(options)
    linting.explain_line = int(line)
    return check(linting)


EXPLAIN_REACHED = 12
"""The files `explain` names of those the linted file's imports and includes reached."""


def _explain(line: int, groups: list[_Group], results) -> int:
    """Print `explain`'s answer for `line` of the one linted file."""
    from cursedlint.formats.shared import printable

    result = results[0] if results else None
    group = groups[0]
    shown = printable(result.path) if result else "?"
    findings = [f for f in result.findings if f.span.line <= line <= f.span.end_line] \
        if result else []
    out = [f"{shown}:{line}: " + (f"{len(findings)} finding{'s' * (len(findings) != 1)}"
                                   if findings else "no finding on this line")]
    for finding in findings:
        out.append(f"  {finding.code} {finding.severity.value} at {finding.line}:{finding.column}: "
                   f"{finding.message}")
        if finding.help:
            out.append(f"    help: {finding.help}")
        for step in finding.related:
            out.append(f"    step: {printable(step.path)}:{step.line}: {step.note}")
    if not findings and result and result.findings:
        out.append("  findings elsewhere in the file, on lines " + ", ".join(
            str(number) for number in sorted({f.line for f in result.findings})))
    out.append(f"configuration: {_config_name(group.config)}; target Python "
               f"{'.'.join(map(str, group.settings.target_python))}")
    out.append(f"project: {printable(group.root)}" if group.root else "project: none")
    if group.fact_files:
        out.append(f"  {group.fact_files}")
        named = group.reached[:EXPLAIN_REACHED]
        out += [f"    reached: {_shown(path)}" for path in named]
        if len(group.reached) > len(named):
            out.append(f"    and {len(group.reached) - len(named):,} more reached")
    if group.passes:
        out.append("facts gathered (indexer: files of its languages, rounds, files holding its "
                   "words, files with facts):")
        out += [f"  {done}" for done in group.passes]
    else:
        out.append("facts gathered: none (no rule that fired on the file asked for any)")
    _write_stdout("\n".join(out) + "\n")
    return EXIT_CLEAN


def check(args: argparse.Namespace) -> int:
    from cursedlint import config as configuration
    from cursedlint.project.discovery import discover, project_root
    from cursedlint.formats.shared import printable
    from cursedlint.notices import OPT_IN, UnusedSuppression
    from cursedlint.registry import all_rules

    started = time.perf_counter()
    rules = all_rules()
    if args.paths == [STDIN]:  # `check -`, as ruff and flake8 read standard input
        args.paths = []
        args.stdin_filename = args.stdin_filename or STDIN
    paths = args.paths or ["."]
    opt_in = OPT_IN - ({UnusedSuppression.code} if args.warn_unused_suppressions else set())

    def settings_of(config):
        return configuration.build_settings(
            config,
            rules,
            select=args.select,
            extend_select=args.extend_select,
            ignore=args.ignore,
            target_python=args.target_python,
            opt_in=opt_in,
            compile_commands=args.compile_commands,
        )

    try:
        resolver = configuration.Resolver(rules, args.config, force_exclude=args.force_exclude)
        if args.show_settings or args.stdin_filename is not None:
            named = args.stdin_filename or paths[0]
            config = resolver.for_path(named)
            settings = settings_of(config)
        else:
            found = discover(paths, resolver)
            groups = _groups(found, settings_of)
    except configuration.ConfigError as error:
        raise UsageError(str(error)) from None
    if args.show_settings:
        return _show_settings(named, config, settings)
    if args.stdin_filename is not None:
        return _check_stdin(args, settings, config, rules, started)
    if found.missing:
        raise UsageError(f"path {found.missing[0]!r} does not exist")
    if found.unreadable:
        path, reason = found.unreadable[0]
        raise UsageError(f"cannot read {path!r}: {reason}")
    if args.show_files:
        _show_files(groups)
        _print_walk_errors(found.errors)
        return EXIT_ERROR if found.errors else EXIT_CLEAN
    if not found.files and not found.errors:
        print("cursedlint: warning: no files of a kind cursedlint lints", file=sys.stderr)
    if args.verbose:
        for group in groups:
            _print_group(group)
        for path in found.skipped:
            print(f"{printable(path)}: skipped (excluded, or not a kind of file cursedlint lints)", file=sys.stderr)

    results = []
    summaries: dict[str, dict] = {}  # per `_summary_settings`: summaries the groups share
    for group in groups:
        group.results = _lint_group(args, paths, group, found.files, resolver, rules,
                                    summaries)
        results += group.results
    if len(groups) > 1:
        results.sort(key=lambda result: result.path)  # in the order of the files, whatever their group
    if getattr(args, "explain_line", None):
        return _explain(args.explain_line, groups, results)
    findings = _findings(results)
    if args.diff:
        return _print_diffs(results, findings, args.unsafe_fixes)
    write_failed = _print_fix_summary(results)
    findings = _against_baselines(args, groups, findings, results)
    if args.diff_base is not None:
        findings = _on_changed_lines(args.diff_base, paths, findings)
    if args.write_baseline:
        return EXIT_CLEAN
    root = project_root(paths, groups[0].config if len(groups) == 1 else configuration.Config())
    _write_report(args, findings, results, rules, root, started)
    if args.fix:
        _print_unsafe_left(findings, args.unsafe_fixes)
    if args.verbose:
        _print_verbose(results, time.perf_counter() - started)
    for result in results:
        for trace in result.tracebacks:
            print(f"{printable(result.path)}:\n{trace}", file=sys.stderr)
    _print_walk_errors(found.errors)
    if write_failed or found.errors:
        return EXIT_ERROR
    return _exit_code(args, findings)


class _Group:
    """Linted files that get the same settings: those of one configuration file, or (files no
    configuration file covers) the defaults with one target Python. `targets`: where the target
    of each configuration in the group comes from; once linted, `results` (the files'),
    `root` (the project's) and `passes` (what gathering facts from other files did)."""

    def __init__(self, config, settings, files: list[tuple[str, str]]):
        self.config = config
        self.settings = settings
        self.files = files
        self.targets = [settings.target_python_source]
        self.results: list = []
        self.root = ""
        self.passes: list = []
        self.fact_files = ""  # where facts were drawn from, in a run over some of the project
        self.reached: list[str] = []  # the files its imports and includes reached


def _groups(found, settings_of) -> list[_Group]:
    """The linted files by the settings they get, each group its own project (as ruff, each
    configuration file's directory is a project root): one group per configuration file, one
    per target Python and silenced codes for the defaults (their projects' requires-python and
    operating-system classifiers may differ)."""
    groups: dict[tuple, _Group] = {}
    for config, files in found.by_config():
        settings = settings_of(config)
        key = (config.path, settings.target_python, settings.silenced)
        group = groups.get(key)
        if group is None:
            groups[key] = _Group(config, settings, files)
        else:
            group.files = sorted(group.files + files)
            group.targets.append(settings.target_python_source)
    return list(groups.values())


def _lint_group(args, paths: list[str], group: _Group, linted: list[tuple[str, str]], resolver,
                rules, summaries: dict[str, dict]):
    """Lint one group's files as a project of its own: its root is its configuration file's
    directory (`project_root`), where its result cache and project index live; facts from
    other files come from its project's files, their summaries shared with the run's other
    groups of the same `_summary_settings` (`summaries`)."""
    from cursedlint.project.discovery import ProjectWalk, is_project, project_root
    from cursedlint.engine import Linter, Project, default_jobs
    from cursedlint.engine.fixes import write_roots

    config = group.config
    root = project_root(paths, config)
    settings = _with_found_database(group.settings, root)
    linter = Linter(
        settings,
        rules,
        warn_unused_suppressions=args.warn_unused_suppressions,
        show_traceback=args.show_traceback,
        fix=("unsafe" if args.unsafe_fixes else "safe") if args.fix or args.diff else None,
        fix_roots=write_roots(paths, root) if args.fix else None,
        show_diff=args.diff,
        languages={language for _, language in group.files},
    )
    linter.ends_process = _ENDS_PROCESS
    cached = not (args.no_cache or linter.fix) and _cache_usable(config.root)
    linter.count_error_nodes = bool(args.verbose or cached)
    project = None
    if linter.uses_facts():  # facts from other files, gathered if a linted file needs some
        walk = ProjectWalk(resolver) if is_project(root, config) else None  # never $HOME, /tmp
        whole = _covers_project(root, paths)
        store = _index_store(config.root, settings) if cached else None
        facts = functools.cache(lambda: _fact_files(args, root, group, walk, linter, store))
        project = Project(  # (a run over the whole project lists no fact files)
            functools.cache(lambda: _project_files(root, linted, group.files) if whole
                            else facts()("nearest")),
            whole,
            store,
            functools.cache(lambda: facts()("beside")),
            summaries.setdefault(repr(_summary_settings(settings)), {}),
        )
    if cached:  # where ruff keeps its cache: config dir, else cwd
        linter.cache = _result_cache(config.root, settings, linter)
    results = linter.run(group.files, args.jobs or default_jobs(), project)
    group.root, group.passes = root, linter.fact_passes
    if args.verbose and project is not None:
        _print_facts(group)
    return results


def _print_facts(group) -> None:
    """-v: the project facts were gathered in, and what each indexer's gathering did."""
    from cursedlint.formats.shared import printable

    if group.passes:
        print(f"facts from the project at {printable(group.root)}:", file=sys.stderr)
    for done in group.passes:
        print(f"  {done}", file=sys.stderr)


def _findings(results) -> list:
    return sorted((f for r in results for f in r.findings), key=lambda f: f.sort_key)


def _against_baselines(args, groups: list[_Group], findings, results):
    """The findings no baseline holds: the command line's (`--baseline`, `--write-baseline`)
    for the whole run, else each configuration's `baseline` for its own files."""
    from cursedlint.config import Config

    if args.write_baseline or args.baseline or not any(group.config.baseline for group in groups):
        return _against_baseline(args, Config(), findings, results)
    kept = []
    for group in groups:
        kept += _against_baseline(args, group.config, _findings(group.results), group.results)
    return sorted(kept, key=lambda finding: finding.sort_key)


def _shown(path: str) -> str:
    """A path as messages show it: relative to the working directory when within it, escaped
    for a terminal."""
    from cursedlint.formats.shared import as_given, printable

    return printable(as_given(path))


def _config_name(config) -> str:
    """A configuration as -v and --show-files name it: its file (and those it extends)."""
    if config.path is None:
        return "no configuration: defaults"
    extending = "".join(f", extending {_shown(path)}" for path in config.extends)
    return f"config: {_shown(config.path)}{extending}"


def _print_group(group: _Group) -> None:
    """-v: which configuration applied to how many files, and their target Python."""
    version = ".".join(map(str, group.settings.target_python))
    count = len(group.files)
    print(f"{_config_name(group.config)} ({count} file{'s' * (count != 1)})", file=sys.stderr)
    for source in dict.fromkeys(group.targets):
        print(f"target Python {version}: {source}", file=sys.stderr)
    print(f"target platform: {group.settings.platform_source}", file=sys.stderr)


def _show_files(groups: list[_Group]) -> None:
    """--show-files: the files a run would lint, one a line, with their configuration when
    more than one applies."""
    from cursedlint.formats.shared import printable

    lines = sorted(
        (path, f"  ({_config_name(group.config)})" if len(groups) > 1 else "")
        for group in groups for path, _ in group.files
    )
    _write_stdout("".join(f"{printable(path)}{name}\n" for path, name in lines))


def _show_settings(path: str, config, settings) -> int:
    """--show-settings: the settings a file (or the files of a directory) at `path` gets, and
    where they come from."""
    from cursedlint.config import DEFAULT_EXCLUDE

    def listed(values) -> str:
        return ", ".join(values) if values else "(none)"

    def shown(key: str, value) -> str:
        by = config.set_by.get(key)
        return f"{value}" + (f" (from {_shown(by)})" if by and by != config.path else "")

    lines = [
        f"settings for: {_shown(os.path.abspath(path))}",
        f"configuration: {_shown(config.path) if config.path else '(none: the defaults)'}",
        f"extends: {' -> '.join(map(_shown, config.extends)) or '(nothing)'}",
        f"root: {_shown(config.root)}",
        f"target-python: {'.'.join(map(str, settings.target_python))} "
        f"({settings.target_python_source})",
        f"platform: {settings.platform_source}",
        f"enabled: {listed(sorted(settings.enabled_for(path)))}",
    ]
    lines += [f"per-file-ignores: {matcher.pattern} (in {_shown(matcher.base)}) = {listed(sorted(codes))}"
              for matcher, codes in settings.per_file_ignores]
    for base, patterns in config.excludes:
        defaults = patterns[:len(DEFAULT_EXCLUDE)] == DEFAULT_EXCLUDE
        written = patterns[len(DEFAULT_EXCLUDE):] if defaults else patterns
        lines.append(f"exclude (in {_shown(base)}): " + listed((["(the defaults)"] if defaults else []) + list(written)))
    lines += [
        shown("force-exclude", f"force-exclude: {str(config.force_exclude).lower()}"),
        shown("respect-gitignore", f"respect-gitignore: {str(config.respect_gitignore).lower()}"),
        shown("page-size", f"page-size: {settings.page_size}"),
        shown("max-file-size", f"max-file-size: {settings.max_file_size}"),
        shown("include-dirs", f"include-dirs: {listed([_shown(path) for path in settings.include_dirs])}"),
        shown("compile-commands", f"compile-commands: {_shown(settings.compile_commands) if settings.compile_commands else '(none named)'}"),
        shown("baseline", f"baseline: {_shown(config.baseline) if config.baseline else '(none)'}"),
    ]
    lines += [f"rules.{code}.{name}: {value!r}"
              for code, options in sorted(settings.rule_options.items())
              for name, value in sorted(options.items())]
    _write_stdout("".join(f"{line}\n" for line in lines))
    return EXIT_CLEAN


def _with_found_database(settings, root: str):
    """The settings with the project's compilation database when none is named: the root's
    `compile_commands.json`, else `build/`'s (where clang-tidy and CMake put it)."""
    from msgspec.structs import replace

    from cursedlint.config import COMPILE_COMMANDS

    if settings.compile_commands is not None:
        return settings
    for directory in (root, os.path.join(root, "build")):
        database = os.path.join(directory, COMPILE_COMMANDS)
        if os.path.isfile(database):
            return replace(settings, compile_commands=database)
    return settings


def _print_walk_errors(errors: list[tuple[str, str]]) -> None:
    """The paths the walk could not read, after the report: what they hold went unchecked,
    which fails the run (exit 2) rather than passing with files unseen."""
    for path, reason in errors:
        print(f"cursedlint: error: cannot read {path!r}: {reason}; what it holds is not "
              "checked (exclude it with extend-exclude if it is not part of the project)",
              file=sys.stderr)


def _covers_project(root: str, paths: list[str]) -> bool:
    """Whether a linted path is the project's root or holds it: the linted files are then
    all of the project's."""
    return any(
        os.path.isdir(path) and os.path.commonpath([os.path.abspath(path), root])
        == os.path.abspath(path)
        for path in paths
    )


def _project_files(root: str, linted: list[tuple[str, str]], own: list[tuple[str, str]]
                   ) -> list[tuple[str, str]]:
    """The files rules may draw facts from for the linted files `own` when a linted path
    holds the project's root: the linted files within it, and `own`."""
    from cursedlint.project.cache import absolute

    cwd = os.getcwd()
    within = os.path.join(root, "")
    wholes = {path: absolute(path, cwd) for path, _ in linted}  # (`own` is of them, mostly)
    files = {(wholes[path], language) for path, language in linted
             if wholes[path].startswith(within)}
    return sorted(files.union((wholes.get(path) or absolute(path, cwd), language)
                              for path, language in own))


def _fact_files(args, root: str, group: _Group, walk, linter, store):
    """A function giving one of the `FactFiles` lists (by name) for the group's files, in a
    run that does not lint the whole project (`walk`: the project's, None when `root` is no
    project; `store`: the IndexStore, which keeps each file's imports and includes by content,
    so a warm run reads no file whose stat it knows); each list taken is described on the
    group, and with -v."""
    from cursedlint.project.cache import file_stat
    from cursedlint.project.fact_files import (
        EDGES, MAX_FILES, FactFiles, kept_closures, stored_resolutions, written_edges,
    )
    from cursedlint.formats.shared import printable
    from cursedlint.source import SourceError

    def read(path: str) -> bytes | None:  # (the size the run's stat holds, else asked now)
        try:
            known = stat(path)
            if (known[0] if known else os.stat(path).st_size) > linter.settings.max_file_size:
                return None
            return linter.file_bytes.read(path)
        except (OSError, SourceError):
            return None

    def written(path: str, language: str) -> tuple:
        if store is None:
            return written_edges(read(path), language)
        digest, data = store.content(path, stat(path), read)
        if digest is None:
            return ()
        if data is None:  # known by its stat: the edges stored with its hash, if any
            stored, edges = store.get(EDGES, digest)
            if stored:
                return edges
            data = read(path)
        edges = written_edges(data, language)
        store.put(EDGES, digest, edges)
        return edges

    def stat(path: str):  # the result cache's, made after this and before any is asked
        return linter.cache.run_stats.of(path) if linter.cache else file_stat(path)

    kept = None
    if store is not None:
        settings = linter.settings
        kept = kept_closures(store, root, written, repr((
            root, args.config, args.force_exclude, walk is None, settings.max_file_size,
            settings.include_dirs, settings.compile_commands)), lambda: (
            (walk.configuration_files() if walk is not None else set())
            | ({settings.compile_commands} if settings.compile_commands else set())), stat,
            lambda path, language: written_edges(read(path), language))
    found = FactFiles(root, group.files, walk, read, linter.settings, written,
                      stored_resolutions(store, read, stat) if store is not None else None, kept)

    def files(name: str) -> list[tuple[str, str]]:
        listed = getattr(found, name)
        reached = len(found.reached) - len(found.linted)
        group.fact_files = (
            f"facts for {_count(len(found.linted), 'linted file')} from "
            f"{_count(len(listed) - len(found.linted), 'other file')} of {printable(root)}: "
            f"{reached:,} reached by imports and includes, "
            f"{len(listed) - len(found.reached):,} {name} them"
            + (f" (stopped at the bound of {MAX_FILES:,})" if found.bounded else ""))
        group.reached = [path for path, _ in found.reached[len(found.linted):]]
        if args.verbose:
            print(group.fact_files, file=sys.stderr)
        return listed

    return files


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def _write_report(args, findings, results, rules, root: str, started: float,
                  stream=None) -> None:
    """The report in each chosen format; `root`: the project's root, which reviewers' formats
    name files from outside CI; `started`: when the run began (perf_counter); `stream`: where
    a report without a file goes instead of standard output."""
    from cursedlint.formats import render

    lines = {(r.path, number): text for r in results for number, text in r.lines.items()}
    for format, path in args.output_format:
        path = path or args.output_file
        report = render(
            format,
            findings,
            rules,
            source_line=lambda path, line: lines.get((path, line), ""),
            color=not path and stream is None and _use_color(),
            concise=args.concise,
            statistics=args.statistics,
            files_checked=len(results),
            root=root,
            fail_on=args.fail_on,
            seconds=time.perf_counter() - started,
            quiet=args.quiet,
        )
        if path:
            _write_file(path, report)
        elif stream is not None:
            stream.write(report)
        elif not args.silent:
            _write_stdout(report)


def _write_file(path: str, report: str) -> None:
    """The report in `path` (UTF-8), creating missing parent directories as ruff does."""
    try:
        directory = os.path.dirname(path)
        if directory and not os.path.lexists(directory):  # a file there: open() says so
            os.makedirs(directory, exist_ok=True)
        with open(path, "w", encoding="utf-8") as output:
            output.write(report)
    except OSError as error:
        reason = error.strerror or str(error)
        raise UsageError(f"cannot write the report to {path!r}: {reason}") from None


def _write_stdout(report: str) -> None:
    """The report on standard output, flushed here: a reader that went away (`| head`) ends
    the output, not the run, whose exit code still tells whether there were findings. A
    character the terminal's encoding lacks is written as a backslash escape."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure:
        reconfigure(errors="backslashreplace")
    try:
        sys.stdout.write(report)
        sys.stdout.flush()
    except BrokenPipeError:
        _discard_stdout()
    except OSError as error:
        _discard_stdout()  # what could not be written is not tried again at exit
        raise UsageError(f"cannot write the report to standard output: {error.strerror or error}") from None


def _use_color() -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return sys.stdout.isatty()


def _print_verbose(results, seconds: float) -> None:
    from cursedlint.formats.shared import printable

    counts: dict[str, int] = {}
    for result in results:
        counts[result.status] = counts.get(result.status, 0) + 1
        if result.error_nodes:
            print(f"{printable(result.path)}: {result.error_nodes} tree-sitter error node(s) (macros); "
                  "rules ran outside them", file=sys.stderr)
        if result.status == "skipped":
            print(f"{printable(result.path)}: skipped (binary)", file=sys.stderr)
    print(
        f"{len(results)} files: {counts.get('checked', 0)} parsed and checked, "
        f"{counts.get('clean', 0)} without trigger words, {counts.get('skipped', 0)} binary; "
        f"{seconds:.2f} s",
        file=sys.stderr,
    )


def _print_fix_summary(results) -> bool:
    """Print the notes of --fix and what it fixed; whether writing a file's fixes failed. A
    note names the file and may name others (a symlink's target, a backup copy): escaped."""
    from cursedlint.formats.shared import printable

    for result in results:
        for note in result.notes:
            print(printable(f"{result.path}: {note}"), file=sys.stderr)
    fixed = [result for result in results if result.fixed]
    if fixed:
        count = sum(result.fixed for result in fixed)
        print(f"cursedlint: fixed {count} problem(s) in {len(fixed)} file(s)", file=sys.stderr)
    failed = sum(result.write_failed for result in results)
    if failed:
        print(f"cursedlint: error: the fixes of {failed} file(s) could not be written", file=sys.stderr)
    return bool(failed)


def _check_stdin(args, settings, config, rules, started: float) -> int:
    """Standard input linted as the file `--stdin-filename` names (`check -`: a Python file
    named "-"), reported as `check` reports. With --fix, as ruff does for editors: the fixed
    text on standard output, the report on standard error; no file is written."""
    from cursedlint.project.discovery import project_root
    from cursedlint.engine import Linter
    from cursedlint.languages import PYTHON, SHEBANG_BYTES, language_of, script_language

    name = args.stdin_filename
    if args.paths:
        raise UsageError(f"--stdin-filename lints standard input: it takes no PATH (got "
                         f"{args.paths[0]!r})")
    if args.diff or args.write_baseline or args.diff_base is not None:
        raise UsageError("standard input takes no --diff, --write-baseline or --diff-base")
    data = _read_stdin_bytes()
    language = language_of(name) or script_language(name, data[:SHEBANG_BYTES]) or (
        PYTHON if name == STDIN else None)
    if language is None:
        raise UsageError(f"--stdin-filename {name!r}: not a kind of file cursedlint lints")
    linter = Linter(settings, rules, warn_unused_suppressions=args.warn_unused_suppressions,
                    show_traceback=args.show_traceback,
                    fix=("unsafe" if args.unsafe_fixes else "safe") if args.fix else None,
                    languages=(language,))
    if args.fix:
        fixed, result = linter.fix_bytes(name, data, language)
    else:
        result = linter.lint_bytes(name, data, language)
    findings = sorted(result.findings, key=lambda f: f.sort_key)
    findings = _against_baseline(args, config, findings, [result])
    if args.fix:
        _write_stdout_bytes(fixed)
        _print_fix_summary([result])
    _write_report(args, findings, [result], rules, project_root([name], config), started,
                  stream=sys.stderr if args.fix else None)
    for trace in result.tracebacks:
        print(trace, file=sys.stderr)
    return _exit_code(args, findings)


def _read_stdin_bytes() -> bytes:
    """Standard input to its end. Where signals can wake a wait (POSIX, the main thread), read
    while waiting on a wakeup descriptor too: `sys.stdin.buffer.read()` reads to the end in C,
    checking signals only when a read is interrupted, so a Ctrl-C that came between two reads
    was lost behind the next, blocking one (a run that waits for more input never stopped)."""
    import threading

    try:
        fd = sys.stdin.fileno()
    except (AttributeError, ValueError, OSError):  # (not a descriptor: io.UnsupportedOperation)
        fd = None
    if fd is None or os.name != "posix" or threading.current_thread() is not \
            threading.main_thread():
        return sys.stdin.buffer.read()
    import select
    import signal

    wake, woken = os.pipe()
    os.set_blocking(woken, False)
    before = signal.set_wakeup_fd(woken)
    try:
        chunks = []
        while True:  # (a signal's Python handler runs, and KeyboardInterrupt rises, from here)
            ready = select.select([fd, wake], [], [])[0]
            if wake in ready:
                os.read(wake, 512)
            if fd in ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)
    finally:
        signal.set_wakeup_fd(before)
        os.close(wake)
        os.close(woken)


def _write_stdout_bytes(data: bytes) -> None:
    """`data` on standard output as it is (the fixed text of standard input)."""
    try:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        _discard_stdout()


def _exit_code(args, findings) -> int:
    """1 for findings at or above --fail-on (0 with --exit-zero), 2 for an internal error."""
    from cursedlint.notices import InternalError

    if any(finding.code == InternalError.code for finding in findings):
        return EXIT_ERROR
    failing = [f for f in findings if args.fail_on == "warning" or f.severity.value == "error"]
    return EXIT_FINDINGS if failing and not args.exit_zero else EXIT_CLEAN


def _against_baseline(args, config, findings, results):
    """--write-baseline: record the findings (none are reported); --baseline (or the
    configuration's): the findings it does not hold, saying how many it held."""
    path = args.baseline or config.baseline
    if not (args.write_baseline or path):
        return findings
    from cursedlint import baseline

    lines = {(r.path, number): text for r in results for number, text in r.lines.items()}

    def source_line(path: str, line: int) -> str:
        return lines.get((path, line), "")

    try:
        if args.write_baseline:
            count = baseline.write(args.write_baseline, findings, source_line)
            print(f"cursedlint: wrote {count} finding(s) to the baseline {args.write_baseline}",
                  file=sys.stderr)
            return []
        kept, held = baseline.new_findings(path, findings, source_line)
    except baseline.BaselineError as error:
        raise UsageError(str(error)) from None
    if held:
        print(f"cursedlint: {held} finding(s) in the baseline {path} not reported",
              file=sys.stderr)
    return kept


def _on_changed_lines(reference: str, paths: list[str], findings):
    """--diff-base: the findings a change since `reference` touches, in the git repository
    of the linted `paths`."""
    from cursedlint.project.changed_lines import DiffError, changed_lines, on_changed_lines
    from cursedlint.formats.shared import printable

    try:
        return on_changed_lines(findings, changed_lines(reference, paths))
    except DiffError as error:
        raise UsageError(printable(f"--diff-base {reference}: {error}")) from None


def _print_diffs(results, findings, unsafe: bool) -> int:
    """--diff: the fixes of each file as a unified diff, and how many; exit 1 when any."""
    diffs = [result.diff for result in results if result.diff]
    sys.stdout.write("".join(diffs))
    count = sum(result.fixed for result in results)
    print(f"cursedlint: {count} fix(es) would be applied to {len(diffs)} file(s)", file=sys.stderr)
    _print_unsafe_left(findings, unsafe)
    return EXIT_FINDINGS if diffs else EXIT_CLEAN


def _print_unsafe_left(findings, unsafe: bool) -> None:
    left = 0 if unsafe else sum(1 for finding in findings if finding.fix and not finding.fix.safe)
    if left:
        print(f"cursedlint: {left} unsafe fix(es) not applied: --unsafe-fixes applies them "
              "(they may change behaviour; the rule's help says how)", file=sys.stderr)


def _cache_usable(root: str) -> bool:
    """Whether the run may use the cache directory under `root`; when something else is at its
    place (a symbolic link a repository committed, never followed), a warning says that the
    run goes as with --no-cache."""
    from cursedlint.project.cache import CACHE_DIR, unusable
    from cursedlint.formats.shared import printable

    top = os.path.join(root, CACHE_DIR)
    reason = unusable(top)
    if reason:
        print(f"cursedlint: warning: {printable(top)}: {reason}; running as with --no-cache",
              file=sys.stderr)
    return reason is None


def _index_store(root: str, settings):
    """Where project-index summaries persist: next to the result cache, per cursedlint code
    and rule options (what a summary may depend on besides the file)."""
    from cursedlint.project.cache import CACHE_DIR, fingerprint
    from cursedlint.project.index import IndexStore

    return IndexStore(
        os.path.join(root, CACHE_DIR),
        fingerprint("index", *_summary_settings(settings), settings.target_python,
                    _code_stamp()),
    )


def _summary_settings(settings) -> tuple:
    """What a file's summaries may depend on besides its bytes (`Indexer.summarize`) and, for
    Python, the target Python (`ProjectIndex` keeps that apart): the rule options, the page
    size, the largest file read, the include paths."""
    return (_rule_options(settings), settings.page_size, settings.max_file_size,
            settings.include_dirs, settings.compile_commands)


def _result_cache(root: str, settings, linter):
    """The cache for this run: its fingerprint covers everything that decides a file's result
    besides the file itself (settings, flags, and the code of cursedlint); a result linted with
    facts from other files is also keyed by what those facts depend on (`Linter.run`)."""
    from cursedlint.project.cache import ResultCache, fingerprint
    from cursedlint.engine import FileResult

    return ResultCache(
        root,
        fingerprint(
            sorted(settings.enabled),
            sorted(settings.silenced),
            settings.target_python,
            settings.page_size,
            settings.max_file_size,
            settings.include_dirs,
            settings.compile_commands,
            _rule_options(settings),
            [(repr(matcher), sorted(codes)) for matcher, codes in settings.per_file_ignores],
            settings.root,
            linter.warn_unused,
            _code_stamp(),
        ),
        FileResult,
        plain=FileResult,
    )


def _rule_options(settings) -> list:
    """The configured rule options, in a stable order, for fingerprints."""
    return sorted((code, sorted(map(repr, options.items())))
                  for code, options in settings.rule_options.items())


@functools.cache
def _code_stamp() -> tuple[tuple[str, int, int], ...]:
    """Size and modification time of every file of the package (each subpackage's modules and
    data), so an edited checkout (an editable install) never reuses results of older code
    (taken once per process: the result cache and the index store both ask)."""
    top = os.path.dirname(cursedlint.__file__)
    stamp = []
    for directory, subdirectories, names in os.walk(top):
        subdirectories[:] = sorted(name for name in subdirectories if name != "__pycache__")
        below = directory[len(top) + 1:]  # (relative to `top`: the walk joins its names to it)
        for name in sorted(names):
            if not name.endswith((".pyc", ".pyo")):
                status = os.stat(os.path.join(directory, name))
                stamp.append((os.path.join(below, name), status.st_size, status.st_mtime_ns))
    return tuple(stamp)
