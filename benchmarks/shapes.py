"""The shapes of issue 30 for `compare.py`: one file as pre-commit runs it (`--one-file`; a real
tree's files, `--named-files`), the
ML trees cold and warm (`--ml-trees`), and one big file beside its parser (`--big-files`).
Each builds its corpus under WORK, makes rows (`compare.Task`) for every cursedlint build named
by `--cursedlint NAME=EXE` (default: this checkout, installed as users install it), beside
ruff and the floors, and prints tables whose ratios are of medians in one alternated run.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import math
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig

import compare
from compare import SAME_WORK, Corpus, Task, Unavailable

CACHES = (".cursedlint_cache", ".ruff_cache")
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "init.defaultBranch=main"]
MAX_FILE_SIZE = "max-file-size = 1000000000\n"
START_UP = "python -c pass"
IMPORT_CLI = 'python -c "import cursedlint.cli"'
IMPORT_DEPENDENCIES = 'python -c "import msgspec"'
"""The dependency every run imports (msgspec brings `typing`, `inspect`, `datetime`,
`decimal`, `uuid` and `typing_extensions`)."""
IMPORT_RULES = 'python -c "from cursedlint.registry import all_rules; dict(all_rules())"'
"""Every rule module and the analysis they import, as each run loads them today."""
RUFF_DEFAULT, RUFF_SAME = "ruff default", f"ruff --select {SAME_WORK}"
PARSE = "ast.parse only (1 process)"
FLOOR = "parse floor"
"""`parse_floor.py floor`: start-up, imports, every checked file read and hashed, and
`ast.parse` of the files the build's cold `--jobs 1` run parses (listed by a run before)."""
PARSE_FLOOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "parse_floor.py")
TS_PARSE = "tree-sitter-c parse only (1 process)"
CYTHON_SUFFIXES = (".pyx", ".pxd", ".pxi")
CYTHON_PARSE = "Cython translation + ast.parse only (1 process)"
CYTHON_PARSE_ONLY = """\
import os, sys
from cursedlint.python.cython import parse_cython
for path in sys.argv[1:]:
    for folder, _, names in os.walk(path):
        for name in names:
            if name.endswith((".pyx", ".pxd", ".pxi")):
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as handle:
                    try:
                        parse_cython(handle.read())
                    except (SyntaxError, ValueError):
                        pass
"""
"""Translates and parses every Cython file under the paths it is given, as cursedlint's
Cython front end reads them (`python.cython.parse_cython`), in one process."""


@dataclasses.dataclass
class Build:
    """One cursedlint to measure: its name in the tables and its executable (its venv's python
    beside it)."""

    name: str
    exe: str

    @property
    def python(self) -> str:
        beside = os.path.join(os.path.dirname(self.exe), "python")
        return beside if os.path.exists(beside) else sys.executable


def builds(given: list[str], bins) -> list[Build]:
    """`--cursedlint [NAME=]EXE` values (NAME defaults to the name of EXE's venv, or of the folder
    above it for a hidden one such as `.venv`), or this checkout as installed under WORK."""
    if not given:
        return [Build("this checkout", compare.executable(bins, "cursedlint", "cursedlint"))]
    made = []
    for value in given:
        name, _, exe = value.rpartition("=")
        exe = os.path.abspath(exe)
        if not os.access(exe, os.X_OK):
            raise SystemExit(f"--cursedlint {value}: {exe} is not an executable")
        home = os.path.dirname(os.path.dirname(exe))  # the venv; a hidden one is named by its parent
        named = os.path.dirname(home) if os.path.basename(home).startswith(".") else home
        made.append(Build(name or os.path.basename(named), exe))
    if len({build.name for build in made}) < len(made):
        raise SystemExit("--cursedlint: give each build a name of its own (NAME=EXE)")
    return made


def card(built: list[Build], timeout: float = 60) -> list[str]:
    """A line per build: name, executable, `--version`, and the commit the git checkout the venv
    sits in has checked out now (where there is one; not necessarily the one installed)."""
    lines = []
    for build in built:
        version = subprocess.run([build.exe, "--version"], capture_output=True, text=True, timeout=timeout).stdout.strip()
        checkout = os.path.dirname(os.path.dirname(os.path.dirname(build.exe)))
        head = subprocess.run(["git", "-C", checkout, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=timeout)
        commit = f"; the checkout above its venv, {checkout}, is at {head.stdout.strip()} now" if head.returncode == 0 else ""
        lines.append(f"- build `{build.name}`: `{build.exe}` ({version or '?'}{commit})")
    return lines


def _task(tool: str, corpus: Corpus, argv, **options) -> Task:
    """The row `tool` on `corpus`; `argv` is called at once (so the loop variables it reads are
    the current ones), and a tool it cannot find makes a row that says why."""
    try:
        return Task(tool, corpus, argv(), **options)
    except Unavailable as error:
        return Task(tool, corpus, [], failure=str(error))


def _remover(root: str):
    def remove() -> None:
        for name in CACHES:
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)
    return remove


def _appender(path: str):
    def append() -> None:
        with open(path, "ab") as handle:
            handle.write(f"# edited {os.urandom(6).hex()}\n".encode())
    return append


# --- one file, as pre-commit runs it ---------------------------------------------------------

ONE_FILES = (("plain", 200), ("plain", 5_000), ("imports", 200), ("trig", 200), ("trig", 5_000))
VARIANTS = ("cold", "warm", "edited")
PROJECT_FILES = 2_000


def clean_module(kind: str, lines: int) -> str:
    """A module of about `lines` lines on which no tool reports anything. `plain`: it imports
    nothing; `imports`: it imports the project's modules (torch's) and holds no trigger word,
    as most modules of an ML repository; `trig`: it imports torch and multiprocessing and
    starts a pool (cursedlint parses it)."""
    trigger = kind == "trig"
    head = ['"""Generated for the one-file benchmark."""']
    if trigger:
        head += ["", "import multiprocessing", "", "import torch"]
    elif kind == "imports":
        head += ["", "import torch", "from torch import nn", "from torch.nn import functional"]
    body = []
    index = 0
    while len(head) + len(body) < lines - 6:
        body += ["", "", f"def step_{index}(values: list[int], scale: int) -> int:",
                 f'    """Sum of the values times {index}, scaled."""',
                 "    total = 0", "    for value in values:",
                 f"        total += value * {index}", "    return total // max(scale, 1)"]
        index += 1
    if trigger:  # a pool and a CUDA call: past the rules' second looks, so cursedlint parses it
        body += ["", "", "def devices() -> int:", '    """How many workers and tensors."""',
                 '    context = multiprocessing.get_context("spawn")', "    with context.Pool(2) as pool:",
                 "        sizes = pool.map(abs, [1, 2])", "    if torch.cuda.is_available():",
                 "        torch.cuda.synchronize()", "    return sum(sizes) + int(torch.zeros(1).numel())"]
    if kind == "imports":  # the imports used, with no word any rule triggers on
        body += ["", "", "def layer(width: int) -> nn.Module:", '    """A layer and its activation."""',
                 "    return nn.Sequential(nn.Linear(width, width), nn.ReLU())", "", "",
                 "def scaled(values: torch.Tensor) -> torch.Tensor:", '    """Rectified, doubled."""',
                 "    return functional.relu(values) * 2"]
    return "\n".join(head + body) + "\n"


def build_precommit(work: str, unpacked: str) -> tuple[str, list[str]]:
    """The 2,000-file project (the first 1,995 Python files of the torch wheel by path and the
    five generated files under `tools/`, an empty `cursedlint.toml`), a git repository with all
    committed as a fresh clone has it (the stamp that says it is built lies beside it); the five
    files are written anew each run. Returns the root and their paths relative to it."""
    root = os.path.join(work, "precommit")
    names = [f"tools/{kind}_{lines}.py" for kind, lines in ONE_FILES]
    stamp = root + ".complete"
    key = hashlib.sha256("".join(clean_module(kind, lines) for kind, lines in ONE_FILES).encode()).hexdigest()
    if not os.path.exists(stamp) or open(stamp).read() != key:
        shutil.rmtree(root, ignore_errors=True)
        found = sorted(os.path.relpath(os.path.join(folder, name), unpacked)
                       for folder, _, files in os.walk(unpacked) for name in files if name.endswith(".py"))
        for relative in found[: PROJECT_FILES - len(names)]:
            os.makedirs(os.path.dirname(os.path.join(root, relative)), exist_ok=True)
            shutil.copyfile(os.path.join(unpacked, relative), os.path.join(root, relative))
        open(os.path.join(root, "cursedlint.toml"), "w").close()
        _write_one_files(root)
        subprocess.run([*GIT, "init", "-q"], cwd=root, check=True)
        subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
        subprocess.run([*GIT, "commit", "-q", "-m", "the project"], cwd=root, check=True)
        with open(stamp, "w") as handle:
            handle.write(key)
    _write_one_files(root)
    for name in CACHES:
        shutil.rmtree(os.path.join(root, name), ignore_errors=True)
    return root, names


def _write_one_files(root: str) -> None:
    os.makedirs(os.path.join(root, "tools"), exist_ok=True)
    for kind, lines in ONE_FILES:
        with open(os.path.join(root, "tools", f"{kind}_{lines}.py"), "w") as handle:
            handle.write(clean_module(kind, lines))


def one_file_tasks(root: str, names: list[str], built: list[Build], bins,
                   variants: tuple[str, ...] = VARIANTS, floors: bool = True) -> list[Task]:
    """For each file and variant: every build's pre-commit run and ruff's (default rules and
    the same-work selection); then each build's floors (start-up, `import cursedlint.cli`, the
    dependencies every run imports, the rules)."""
    def ruff(*options: str) -> list[str]:
        return [compare.executable(bins, "peers", "ruff"), "check", "--force-exclude", "--exit-zero", *options]

    rows = []
    for name in names:
        path = os.path.join(root, name)
        lines = open(path, encoding="utf-8", errors="replace").read().count("\n")
        for variant in variants:
            corpus = Corpus(f"{name[:-3]} ({lines:,} lines), {variant}", root, [name])
            options = {"cold": {"before": _remover(root)}, "warm": {"prime": True},
                       "edited": {"prime": True, "before": _appender(path)}}[variant]
            refs = {"ruff default": RUFF_DEFAULT}
            for build in built:
                rows.append(_task(f"cursedlint {build.name}", corpus,
                                  lambda: [build.exe, "check", "--force-exclude", "--exit-zero", name], refs=refs, **options))
            rows.append(_task(RUFF_DEFAULT, corpus, lambda: ruff(name), **options))
            rows.append(_task(RUFF_SAME, corpus, lambda: ruff("--select", SAME_WORK, name), refs=refs, **options))
    floored = Corpus("floors (project root)", root, [])
    for build in built if floors else ():
        rows.append(_task(f"{START_UP} ({build.name})", floored, lambda: [build.python, "-c", "pass"]))
        rows.append(_task(f"{IMPORT_CLI} ({build.name})", floored, lambda: [build.python, "-c", "import cursedlint.cli"]))
        rows.append(_task(f"{IMPORT_DEPENDENCIES} ({build.name})", floored,
                          lambda: [build.python, "-c", "import msgspec"]))
        rows.append(_task(f"{IMPORT_RULES} ({build.name})", floored, lambda: [
            build.python, "-c", "from cursedlint.registry import all_rules; dict(all_rules())"]))
    return rows


def one_file_table(rows: list[Task], built: list[Build]) -> str:
    """Wall s / CPU s medians per file and variant, each build's CPU over ruff default's."""
    names = [f"cursedlint {build.name}" for build in built]
    tools = names + [RUFF_DEFAULT, RUFF_SAME]
    head = ["file, variant", *tools, *(f"{name} ÷ ruff default (CPU)" for name in names), "peak MB " + ", ".join(names)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    corpora = list({id(row.corpus): row.corpus for row in rows if row.corpus.paths}.values())
    for corpus in corpora:
        by_tool = {row.tool: row for row in rows if row.corpus is corpus}
        cells = [corpus.name]
        for tool in tools:
            row = by_tool.get(tool)
            cells.append(_wall_cpu(row))
        for name in names:
            cells.append(compare.ratio(by_tool[name], rows, RUFF_DEFAULT, "cpu") if name in by_tool else "")
        peaks = (by_tool[name].peak_kb if name in by_tool and by_tool[name].times else None for name in names)
        cells.append(", ".join("-" if peak is None else f"{peak / 1024:.0f}" for peak in peaks))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def named_files(tree: Corpus, count: int) -> list[str]:
    """`count` Python files of the tree, spread evenly over its sorted paths (tests and
    examples too, as a pre-commit run meets them)."""
    found = []
    for folder, folders, names in os.walk(tree.root):
        folders[:] = [name for name in folders if name not in (".git", *CACHES)]
        found += [os.path.relpath(os.path.join(folder, name), tree.root)
                  for name in names if name.endswith(".py")]
    found.sort()
    step = max(len(found) / count, 1)
    return [found[int(k * step)] for k in range(min(count, len(found)))]


def named_files_totals(rows: list[Task], built: list[Build]) -> str:
    """Each tool's CPU medians summed over the files (a run of pre-commit over them all)."""
    tools = [f"cursedlint {build.name}" for build in built] + [RUFF_DEFAULT, RUFF_SAME]
    sums = {tool: sum(statistics.median(row.cpu) for row in rows if row.tool == tool and row.times)
            for tool in tools}
    return "Summed CPU medians: " + "; ".join(f"{tool} {total:.2f} s" for tool, total in sums.items())


def _wall_cpu(row: Task | None) -> str:
    if row is None:
        return ""
    if not row.times:
        return f"n/a ({row.failure})" if row.failure else "n/a"
    return f"{statistics.median(row.times):.3f} / {statistics.median(row.cpu):.3f}"


# --- ML trees ------------------------------------------------------------------------------


def build_megatron(work: str, checkout: str) -> Corpus:
    """A copy of the Megatron-LM checkout under WORK (see `build_tree`)."""
    return build_tree(work, checkout, "Megatron-LM", "megatron")


def build_tree(work: str, checkout: str, name: str | None = None, folder: str | None = None) -> Corpus:
    """A copy of `checkout` under WORK (so that no cache lands in it), a git repository of its
    own as a clone is; its Python files, Cython's included, measured."""
    name = name or os.path.basename(os.path.normpath(checkout))
    root = os.path.join(work, folder or f"tree-{name}")
    stamp = root + ".complete"
    source = os.path.abspath(checkout)
    if not os.path.exists(stamp) or open(stamp).read() != source:
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(source, root, symlinks=True, ignore=shutil.ignore_patterns(*CACHES, "__pycache__"))
        if not os.path.exists(os.path.join(root, ".git")):
            subprocess.run([*GIT, "init", "-q"], cwd=root, check=True)
            subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
            subprocess.run([*GIT, "commit", "-q", "-m", "the checkout"], cwd=root, check=True)
        with open(stamp, "w") as handle:
            handle.write(source)
    return compare.measure(Corpus(name, root, ["."]), compare.PYTHON_SUFFIXES + CYTHON_SUFFIXES)


def ml_tasks(trees: list[Corpus], built: list[Build], bins) -> list[Task]:
    """Per tree: every build cold (`--no-cache`) and warm (cache primed), with default jobs and
    `--jobs 1`; ruff's same-work selection cold and warm, ruff's default rules cold;
    `ast.parse` of every .py/.pyi file of the tree in one process; and each build's parse
    floor (`FLOOR`)."""
    def ruff(*options: str):
        return lambda: [compare.executable(bins, "peers", "ruff"), "check", "--isolated", "--exit-zero", *options, "."]

    rows = []
    for tree in trees:
        for build in built:
            for jobs in ((), ("--jobs", "1")):
                suffix = " --jobs 1" if jobs else ""
                rows.append(_task(f"cursedlint {build.name} cold{suffix}", tree,
                                  lambda: [build.exe, "check", "--exit-zero", "--no-cache", *jobs, "."],
                                  refs={"ruff same-work": compare.SAME_COLD, "parse": PARSE,
                                        "floor": f"{FLOOR} ({build.name})"}))
                rows.append(_task(f"cursedlint {build.name} warm{suffix}", tree,
                                  lambda: [build.exe, "check", "--exit-zero", *jobs, "."],
                                  refs={"ruff same-work": compare.SAME_WARM}, prime=True))
        rows.append(_task(compare.SAME_COLD, tree, ruff("--no-cache", "--select", SAME_WORK)))
        rows.append(_task(compare.SAME_WARM, tree, ruff("--select", SAME_WORK), prime=True))
        rows.append(_task("ruff default cold", tree, ruff("--no-cache")))
        rows.append(_task(PARSE, tree, lambda: [built[0].python, "-c", compare.PARSE_ONLY, "."]))
        if _holds(tree.root, CYTHON_SUFFIXES):
            rows.append(_task(CYTHON_PARSE, tree, lambda: [built[0].python, "-c", CYTHON_PARSE_ONLY, "."]))
        for number, build in enumerate(built):
            listing = f"{tree.root}.floor-{number}.json"
            subprocess.run([build.python, PARSE_FLOOR, "list", tree.root, listing], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            rows.append(_task(f"{FLOOR} ({build.name})", tree,
                              lambda: [build.python, PARSE_FLOOR, "floor", listing],
                              refs={"ruff same-work": compare.SAME_COLD}))
    return rows


def _holds(root: str, suffixes: tuple[str, ...]) -> bool:
    return any(name.endswith(suffixes) for _, _, names in os.walk(root) for name in names)


def flat_table(rows: list[Task], columns: tuple[str, ...]) -> str:
    """Every row: runs, min/median/max wall, median CPU, peak MB, and for each of `columns` the
    wall and CPU ratios of the medians to the row `task.refs[column]` names on that corpus."""
    head = ["tool", "corpus", "runs", "min s", "median s", "max s", "median CPU s", "peak MB"]
    for column in columns:
        head += [f"× {column} (wall)", f"× {column} (CPU)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for task in rows:
        if not task.times:
            lines.append(f"| {task.tool} | {task.corpus.name} | 0 | not available: {task.failure} |" + " |" * (len(head) - 4))
            continue
        cells = [task.tool, task.corpus.name, str(len(task.times)), f"{min(task.times):.3f}",
                 f"{statistics.median(task.times):.3f}", f"{max(task.times):.3f}",
                 f"{statistics.median(task.cpu):.3f}", f"{task.peak_kb / 1024:.0f}"]
        for column in columns:
            reference = task.refs.get(column)
            if reference:
                cells += [compare.ratio(task, rows, reference), compare.ratio(task, rows, reference, "cpu")]
            else:
                cells += ["", ""]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# --- big files -----------------------------------------------------------------------------


def build_big_python(work: str, megabytes: int) -> Corpus:
    """WORK/big/pyN/big.py: whole stdlib modules (sorted by path; those with tabs, that are not
    UTF-8 or do not parse left out; `from __future__` lines dropped) concatenated, repeated
    until N MB, in a directory of its own with `max-file-size` raised; it parses as a whole."""
    root = os.path.join(work, "big", f"py{megabytes}")
    target = megabytes * 1_000_000
    if not os.path.exists(os.path.join(root, ".complete")):
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        stdlib = sysconfig.get_paths()["stdlib"]
        modules = []
        for folder, folders, names in os.walk(stdlib):
            folders[:] = sorted(name for name in folders if name not in ("site-packages", "__pycache__"))
            for name in sorted(names):
                if name.endswith(".py"):
                    try:
                        text = open(os.path.join(folder, name), encoding="utf-8").read()
                        tree = ast.parse(text)
                    except (UnicodeDecodeError, SyntaxError, ValueError):
                        continue
                    if "\t" not in text:
                        future = {number for node in tree.body  # (the statements' lines, not a
                                  if isinstance(node, ast.ImportFrom) and node.module == "__future__"  # docstring's)
                                  for number in range(node.lineno - 1, node.end_lineno)}
                        lines = [line for number, line in enumerate(text.splitlines()) if number not in future]
                        modules.append("\n".join(lines) + "\n")
        parts, size = [], 0
        while size < target:
            for module in modules:
                parts.append(module)
                size += len(module.encode())
                if size >= target:
                    break
        text = "".join(parts)
        ast.parse(text)
        _write_big(root, "big.py", text.encode())
    return _big_corpus(root, "big.py")


def build_big_c(work: str, sources: list[str], megabytes: int) -> Corpus:
    """WORK/big/cN/big.c: the .c files of the `sources` trees (sorted by path) concatenated,
    repeated until N MB, in a directory of its own with `max-file-size` raised."""
    if not sources:
        raise Unavailable("no --c-source tree given")
    root = os.path.join(work, "big", f"c{megabytes}")
    stamp = os.path.join(root, ".complete")
    key = "\n".join(os.path.abspath(source) for source in sources)
    if not os.path.exists(stamp) or open(stamp).read() != key:
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        files = []
        for source in sources:
            for folder, folders, names in os.walk(source):
                folders[:] = sorted(name for name in folders if not name.startswith("."))
                files += [os.path.join(folder, name) for name in sorted(names) if name.endswith(".c")]
        if not files:
            raise Unavailable(f"no .c files under {', '.join(sources)}")
        parts, size = [], 0
        while size < megabytes * 1_000_000:
            for path in files:
                with open(path, "rb") as handle:
                    data = handle.read()
                parts.append(data if data.endswith(b"\n") else data + b"\n")
                size += len(parts[-1])
                if size >= megabytes * 1_000_000:
                    break
        _write_big(root, "big.c", b"".join(parts), key)
    return _big_corpus(root, "big.c")


def _write_big(root: str, name: str, data: bytes, stamp: str = "") -> None:
    with open(os.path.join(root, name), "wb") as handle:
        handle.write(data)
    with open(os.path.join(root, "cursedlint.toml"), "w") as handle:
        handle.write(MAX_FILE_SIZE)
    with open(os.path.join(root, ".complete"), "w") as handle:
        handle.write(stamp)


def _big_corpus(root: str, name: str) -> Corpus:
    size = os.path.getsize(os.path.join(root, name))
    corpus = Corpus(f"{name} ({size / 1e6:.1f} MB)", root, [name])
    corpus.files, corpus.lines = 1, open(os.path.join(root, name), "rb").read().count(b"\n")
    return corpus


PY_PARSE_FILE = "import ast, sys; ast.parse(open(sys.argv[1], 'rb').read())"
TS_PARSE_FILE = """\
import sys
import tree_sitter_c
from tree_sitter import Language, Parser
Parser(Language(tree_sitter_c.language())).parse(open(sys.argv[1], "rb").read())
"""


def big_tasks(files: list[Corpus], built: list[Build], cap_gb: float | None) -> list[Task]:
    """Per file: every build (`--no-cache`, the raised size limit from the directory's
    cursedlint.toml) and the parser alone, in time and peak RSS; under `cap_gb`, each command
    runs with its address space capped (prlimit)."""
    capped = (lambda argv: ["prlimit", f"--as={int(cap_gb * 2**30)}", "--", *argv]) if cap_gb else (lambda argv: argv)
    rows = []
    for corpus in files:
        name = corpus.paths[0]
        parser = PARSE if name.endswith(".py") else TS_PARSE
        for build in built:
            rows.append(_task(f"cursedlint {build.name}", corpus,
                              lambda: capped([build.exe, "check", "--exit-zero", "--no-cache", name]), refs={"parse": parser}))
        program = PY_PARSE_FILE if parser == PARSE else TS_PARSE_FILE
        rows.append(_task(parser, corpus, lambda: capped([built[0].python, "-c", program, name])))
    return rows


def big_bounds(rows: list[Task]) -> list[str]:
    """Each build's row against the issue's bound: time within 3× the parse (wall and CPU),
    peak memory within 20× the file's size + 200 MB."""
    lines = []
    for task in rows:
        reference = task.refs.get("parse")
        if not reference or not task.times:
            continue
        size = os.path.getsize(os.path.join(task.corpus.root, task.corpus.paths[0]))
        limit = 20 * size / 2**20 + 200
        wall, cpu = compare.ratio(task, rows, reference), compare.ratio(task, rows, reference, "cpu")
        peak = task.peak_kb / 1024
        ok = wall and cpu and float(wall) <= 3 and float(cpu) <= 3 and peak <= limit
        lines.append(f"- {task.tool}, {task.corpus.name}: {wall}× / {cpu}× the parse (wall / CPU; bound 3×), "
                     f"peak {peak:,.0f} MB (bound {limit:,.0f} MB): {'within' if ok else 'OUTSIDE'} the bound")
    return lines


def big_growth(rows: list[Task]) -> list[str]:
    """Each tool's median CPU from one size of a kind of file to the next larger (the Python
    module, the C file), and that growth per doubling of the size (1 per doubling: it costs
    twice as much for twice the bytes; more: it grows faster than the file)."""
    lines, by_tool = [], {}
    for task in rows:
        if task.times and task.cpu:
            name = task.corpus.paths[0]
            size = os.path.getsize(os.path.join(task.corpus.root, name))
            by_tool.setdefault((task.tool, os.path.splitext(name)[1]), []).append((size, statistics.median(task.cpu)))
    for (tool, kind), sized in by_tool.items():
        sized.sort()
        for (small, before), (large, after) in zip(sized, sized[1:]):
            if before > 0 and large > small:
                doubling = (after / before) ** (math.log(2) / math.log(large / small))
                lines.append(f"- {tool}, {kind} file {small / 1e6:.1f} -> {large / 1e6:.1f} MB: CPU {before:.2f} -> "
                             f"{after:.2f} s (×{after / before:.2f} for ×{large / small:.2f} the size; "
                             f"×{doubling:.2f} the CPU per doubling, ×2.00 linear)")
    return lines


# --- driver ----------------------------------------------------------------------------------


def run(args, work: str, bins) -> list[str]:
    """Build the shapes `args` asks for, run them alternated (each shape's rows alternate among
    themselves), and return the printed report's lines."""
    built = builds(args.cursedlint, bins)
    out = ["Builds:", *card(built), ""]
    if args.one_file:
        root, names = build_precommit(work, compare.unpacked_torch(work, args.torch, args.timeout))
        rows = one_file_tasks(root, names, built, bins)
        compare.run_all(rows, args.repeat, args.repeat, args.timeout)
        out += ["### One file as pre-commit runs it (wall s / CPU s, medians)", "",
                f"Project: {root} ({PROJECT_FILES:,} files, git-initialized); "
                "`cursedlint check --force-exclude --exit-zero FILE` and `ruff check --force-exclude --exit-zero "
                f"[--select {SAME_WORK}] FILE` from its root. cold: caches removed before each run; warm: "
                "primed, unchanged; edited: primed, then a comment line appended.", "",
                one_file_table(rows, built), "", flat_table([row for row in rows if not row.corpus.paths], ()), ""]
    if args.named_files:
        if not args.megatron:
            raise Unavailable("--named-files needs --megatron")
        tree = build_megatron(work, args.megatron)
        rows = one_file_tasks(tree.root, named_files(tree, args.named_files), built, bins,
                              variants=("cold",), floors=False)
        compare.run_all(rows, args.repeat, args.repeat, args.timeout)
        out += ["### Files of a real tree, each named alone, cold (wall s / CPU s, medians)", "",
                f"Tree: {tree.root} (the --megatron checkout, git-initialized); "
                f"{args.named_files} Python files spread over its sorted paths, each linted alone "
                "as pre-commit runs it in a fresh clone (`check --force-exclude --exit-zero FILE`, "
                "caches removed before each run).", "", one_file_table(rows, built), "",
                named_files_totals(rows, built), ""]
    if args.ml_trees:
        trees = []
        if args.megatron:
            trees.append(build_megatron(work, args.megatron))
        trees += [build_tree(work, extra) for extra in args.tree]
        if not args.no_torch:
            _, _, torch_py = compare.build_torch(work, compare.unpacked_torch(work, args.torch, args.timeout))
            trees.append(torch_py)
        rows = ml_tasks(trees, built, bins)
        compare.run_all(rows, args.repeat, args.repeat, args.timeout)
        out += ["### ML trees, cold and warm", "", flat_table(rows, ("ruff same-work", "parse", "floor")), ""]
        out += [f"- {tree.name}: {tree.files:,} Python files, {tree.lines:,} lines ({tree.root}); "
                f"the parse row parses all of them (cursedlint parses only those its prefilter keeps)" for tree in trees]
        out.append("")
    if args.big_files:
        files = [build_big_python(work, size) for size in sorted(set(args.big_py_mb or [10])) if size]
        for size in sorted(set(args.big_c_mb or [50])):
            try:
                files.append(build_big_c(work, args.c_source, size))
            except Unavailable as error:
                out.append(f"- the {size} MB C file: not available ({error})")
                break
        rows = big_tasks(files, built, None)
        if args.big_100:
            hundred = [build_big_python(work, 100)]
            try:
                hundred.append(build_big_c(work, args.c_source, 100))
            except Unavailable:
                pass
            rows += big_tasks(hundred, built, args.big_cap_gb)
        compare.run_all(rows, args.repeat, args.repeat, args.timeout)
        out += ["### Big files beside their parser", "", flat_table(rows, ("parse",)), "", *big_bounds(rows),
                *big_growth(rows), ""]
    return out
