"""Times cursedlint against ruff, flake8 and semgrep on the running Python's standard library and
on the torch 2.13.0 wheel (Python files, C/C++ headers), and prints a Markdown table.

    python benchmarks/compare.py [--repeat N] [--slow-repeat N] [--work DIR] [--torch DIR|WHEEL]
        [--timeout S] [--worst-case [python|c|both]] [--c-tree DIR]
    python benchmarks/compare.py {--one-file | --named-files N | --ml-trees | --big-files [--big-100]
        [--big-c-mb MB]... [--big-py-mb MB]...}...
        [--cursedlint [NAME=]EXE]... [--megatron DIR] [--c-source DIR]... [--repeat N] [--work DIR]

The worst-case corpus is the stdlib copy with a block appended to every Python file that holds
every Python rule's trigger words and passes every second look (derived from the rules'
declarations, checked with the prefilter), so no rule skips any file; its rows put cursedlint
beside `ast.parse` alone on the same files (`--worst-case`: those rows only). The C/C++ worst
case does the same with comment lines appended to every C/C++ file of `--c-tree` (a source
tree, e.g. a checkout of linux-rdma/rdma-core), beside tree-sitter's parse alone of the same
files (`--worst-case c`: those rows only; the rows report CPU seconds too).

The shapes of issue 30 (`benchmarks/shapes.py`; any of them: those rows only) put each build
that `--cursedlint` names (default: this checkout) beside ruff and the floors, with wall and CPU
medians: `--one-file`, five generated files linted alone as pre-commit runs them in a 2,000-file
git project, cold, warm and edited, beside ruff's default and same-work runs, interpreter
start-up and `import cursedlint.cli`; `--named-files N`, N files of the `--megatron` checkout
each linted alone cold, beside ruff; `--ml-trees`, the torch wheel's Python files and a
Megatron-LM checkout (`--megatron`) cold and warm, default jobs and `--jobs 1`, beside ruff and
`ast.parse` of every file and each build's floor (`benchmarks/parse_floor.py`: start-up,
imports, every file read and hashed, `ast.parse` of the files its run parses; `--no-torch`: the
Megatron-LM tree alone; `--tree DIR`, more trees, a Cython tree's translation and parse in a
row of its own); `--big-files`, a 10 MB Python module and a 50 MB C file (of the .c
files of `--c-source`) with `max-file-size` raised, beside their parser alone and the issue's
bound (3× the parse's time, 20× the size + 200 MB of memory); `--big-100` adds 100 MB files;
`--big-c-mb` and `--big-py-mb` (repeatable) choose the sizes instead (`--big-py-mb 0`: no Python
file), and for several sizes each build's growth per doubling of the file is printed
(`--big-files --big-c-mb 2 --big-c-mb 5 --big-c-mb 10 --big-py-mb 0`: a C file's cost as it grows).

Everything it builds lives under WORK (default: $TMPDIR/cursedlint-bench), reused by later runs:
the corpora (copies, so that every tool sees the same files and no cache lands in the real
stdlib), the unpacked wheel, and three virtual environments: `cursedlint` (this checkout
installed as users install it — a regular, byte-compiled install, redone every run — with
flake8), `peers` (ruff, flake8, flake8-bugbear, semgrep) and `flake8` (flake8 alone, pinned to
the versions in `cursedlint`, so that "flake8" and "flake8 + CUR" differ only by the plugin). Within each
repetition the tools alternate; each row reports min/median/max wall seconds and the peak
resident memory of the largest single process.
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
import zipfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEERS = ("ruff", "flake8", "flake8-bugbear", "semgrep")
FLAKE8_PARTS = ("flake8", "pycodestyle", "pyflakes", "mccabe")
HEADERS = (".h", ".hh", ".hpp", ".hxx", ".cuh")
PYTHON_SUFFIXES = (".py", ".pyi")
C_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".cu") + HEADERS
C_FAMILY = ("c", "cpp")
SAME_WORK = "S603,S607,PLW1509"
ENV = dict(os.environ, SEMGREP_SEND_METRICS="off", SEMGREP_ENABLE_VERSION_CHECK="0")
SAME_COLD, SAME_WARM = f"ruff --select {SAME_WORK} cold", f"ruff --select {SAME_WORK} warm"
TORCH_CHANGED = os.path.join("torch", "utils", "data", "dataloader.py")
"""The file the torch-py "1 file changed" rows change: a module whose facts other modules use
(its start-method facts), so the files they reach are linted again."""
SEMGREP_RULES = """\
rules:
  - id: rdma-register-memory
    languages: [cpp]
    severity: WARNING
    message: ibv_reg_mr registers memory for RDMA (CUR301-ish)
    pattern: ibv_reg_mr(...)
  - id: libfabric-register-memory
    languages: [cpp]
    severity: WARNING
    message: fi_mr_reg registers memory for a fabric (CUR301-ish)
    pattern: fi_mr_reg(...)
  - id: cross-process-read
    languages: [cpp]
    severity: WARNING
    message: process_vm_readv reads another process's memory (CUR601-ish)
    pattern: process_vm_readv(...)
"""


class Unavailable(Exception):
    """A tool that cannot be measured; the message says why."""


@dataclasses.dataclass
class Corpus:
    """Paths linted together, relative to `root`, and their size."""

    name: str
    root: str
    paths: list[str]
    files: int = 0
    lines: int = 0


@dataclasses.dataclass
class Task:
    """One row: a command run in the corpus root; `prime` runs it once untimed first (warm rows);
    `touch` puts a comment line at the top of that file before the timed run."""

    tool: str
    corpus: Corpus
    argv: list[str]
    ruff_row: str | None = None
    same_row: str | None = None
    prime: bool = False
    touch: str | None = None
    slow: bool = False
    before: object = None  # a callable run untimed before each timed run, after the prime and touch
    refs: dict[str, str] = dataclasses.field(default_factory=dict)  # column -> reference row's tool
    times: list[float] = dataclasses.field(default_factory=list)
    cpu: list[float] = dataclasses.field(default_factory=list)  # user + system, children included
    peak_kb: int = 0
    failure: str | None = None


# --- corpora ---------------------------------------------------------------------------------


def measure(corpus: Corpus, suffixes: tuple[str, ...]) -> Corpus:
    """Count the files with `suffixes` under the corpus paths and their lines."""
    for path in corpus.paths:
        for folder, _, names in os.walk(os.path.join(corpus.root, path)):
            for name in names:
                if name.endswith(suffixes):
                    corpus.files += 1
                    with open(os.path.join(folder, name), "rb") as handle:
                        corpus.lines += handle.read().count(b"\n")
    return corpus


def build_stdlib(work: str) -> Corpus:
    """A copy of the running Python's stdlib without site-packages and __pycache__."""
    root = os.path.join(work, "stdlib")
    if not os.path.exists(os.path.join(root, ".complete")):
        shutil.rmtree(root, ignore_errors=True)
        ignore = shutil.ignore_patterns("site-packages", "__pycache__")
        shutil.copytree(sysconfig.get_paths()["stdlib"], os.path.join(root, "lib"), ignore=ignore, symlinks=True)
        open(os.path.join(root, ".complete"), "w").close()
    return measure(Corpus("stdlib", root, ["lib"]), PYTHON_SUFFIXES)


def worst_case_header(target_python: tuple[int, int] | None = None) -> str:
    """Python code holding every Python rule's trigger words and passing its second look,
    derived from the rules' declarations: appended to a file, it makes the prefilter send the
    file to every Python rule, so nothing is skipped."""
    words, code = _worst_case_parts(("python",), _shape_code, target_python)
    return "\n# cursedlint worst case: " + " ".join(sorted(words)) + "\n" + "\n".join(code) + "\n"


def worst_case_c_header() -> str:
    """C/C++ comment lines holding every C/C++ rule's trigger words and passing its second
    look: appended to a C/C++ file, they send it to every C/C++ rule (and every C/C++ indexer
    finds its words there)."""
    words, code = _worst_case_parts(C_FAMILY, _c_shape_code)
    lines = ["cursedlint worst case: " + " ".join(sorted(words)), *code]
    return "\n" + "".join(f"// {line}\n" for line in lines)


def _worst_case_parts(languages: tuple[str, ...], code_of, target_python=None) -> tuple[set[str], list[str]]:
    """Every trigger word of the rules of `languages`, and the lines `code_of` gives for their
    second looks (each once)."""
    from cursedlint.registry import all_rules
    from cursedlint.rule import trigger_alternatives

    target_python = target_python or sys.version_info[:2]
    words: set[str] = set()
    code: list[str] = []
    for rule in all_rules().values():
        spoken = [language for language in languages if language in rule.languages]
        if not spoken:
            continue
        options = rule.resolved_options(None)
        for alternative in trigger_alternatives(rule.triggers_for(options)):
            words |= alternative
        for language in spoken:
            shape = rule.checker(language).look(options, target_python, language)
            for line in (code_of(shape) if shape is not None else ()):
                if line not in code:
                    code.append(line)
    return words, code


def _c_shape_code(shape) -> list[str]:
    """A C++ line that passes a C/C++ second look (the cloner rules' alone, today)."""
    from cursedlint.rules.cloners import ClonerUse

    if isinstance(shape, ClonerUse):
        return [f"void cursedlint_worst_case({min(shape.endings)} &cloner);"]
    raise TypeError(f"no code for the second look {shape!r}")


def _shape_code(shape) -> list[str]:
    """Lines of Python that pass `shape`: its first alternative, first word, first callee."""
    from cursedlint.triggers import second_look

    if isinstance(shape, second_look.AnyOf):
        return _shape_code(shape.shapes[0])
    if isinstance(shape, second_look.AllOf):
        return [line for part in shape.shapes for line in _shape_code(part)]
    if isinstance(shape, (second_look.Text, second_look.Names)):
        name = min(word.decode() for word in getattr(shape, "words", None) or shape.names)
        return [f"{name}()" if name.isidentifier() else f"# {name}"]
    if isinstance(shape, second_look.Call):
        arguments = [f"a{index}" for index in range(shape.positional or 0)]
        arguments += [f"{keyword.decode()}=None" for keyword in sorted(shape.keywords)[:1]]
        callee = min(name.decode() for name in shape.callees)
        module = min((module.decode() for module in shape.modules), default=None)
        imports = [f"import {module}"] if module else []
        return [*imports, f"{module + '.' if module else ''}{callee}({', '.join(arguments)})"]
    if isinstance(shape, second_look.MethodCall):
        receiver = min((name.decode() for name in shape.imported), default="made")
        method = next(pattern.replace("*", "x") for pattern in shape.patterns
                      if shape.matches(pattern.replace("*", "x")))
        return [f"{receiver} = object()", f"{receiver}.{method}(a0)"]
    raise TypeError(f"no code for the second look {shape!r}")


def build_worst_case(work: str, stdlib: Corpus, bins, timeout: float) -> Corpus:
    """The stdlib copy with `worst_case_header()` appended to every Python file, made by the
    cursedlint venv's Python (whose rules it derives from); a file the prefilter would still
    keep from some rule stops the benchmark."""
    root = os.path.join(work, "stdlib-worst-case")
    _write_in_venv(bins, timeout, "python", stdlib.root, root)
    return measure(Corpus("stdlib, every rule triggered", root, ["lib"]), PYTHON_SUFFIXES)


def build_c_worst_case(work: str, tree: str, bins, timeout: float) -> Corpus:
    """The C/C++ files of `tree` with `worst_case_c_header()` appended to each, made as the
    Python one is."""
    root = os.path.join(work, "c-worst-case")
    _write_in_venv(bins, timeout, "c", os.path.abspath(tree), root)
    name = f"{os.path.basename(os.path.normpath(tree))} C/C++, every rule triggered"
    return measure(Corpus(name, root, ["src"]), C_SUFFIXES)


def _write_in_venv(bins, timeout: float, family: str, source: str, root: str) -> None:
    program = f"import sys; sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r}); import compare; compare.write_worst_case(*sys.argv[1:])"
    argv = [executable(bins, "cursedlint", "python"), "-c", program, family, source, root]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if result.returncode:
        raise SystemExit(f"building the worst-case corpus failed: {result.stderr.strip()}")


def write_worst_case(family: str, source: str, root: str) -> None:
    """Copy the `family` files ("python": the stdlib copy `source`, whole; "c": the C/C++
    files of the tree `source`, under src/) to `root`, unless done with this header, with the
    worst-case header appended to each, and check that no rule skips any file."""
    python = family == "python"
    header = worst_case_header() if python else worst_case_c_header()
    suffixes = PYTHON_SUFFIXES if python else C_SUFFIXES
    stamp = os.path.join(root, ".complete")
    if not os.path.exists(stamp) or open(stamp).read() != source + "\n" + header:
        shutil.rmtree(root, ignore_errors=True)
        if python:
            shutil.copytree(source, root, symlinks=True)
        else:
            shutil.copytree(source, os.path.join(root, "src"), ignore=_not_c_family)
        for folder, _, names in os.walk(os.path.join(root, "lib" if python else "src")):
            for name in names:
                if name.endswith(suffixes):
                    with open(os.path.join(folder, name), "rb+") as handle:
                        ending = b"" if handle.read().endswith(b"\n") else b"\n"
                        handle.write(ending + header.encode())
        with open(stamp, "w") as handle:
            handle.write(source + "\n" + header)
    skipping = files_skipping_rules(os.path.join(root, "lib" if python else "src"),
                                    ("python",) if python else C_FAMILY)
    if skipping:
        raise SystemExit(f"the worst-case header leaves rules out of {len(skipping)} files, e.g. {skipping[0]}")


def _not_c_family(folder: str, names: list[str]) -> list[str]:
    """shutil.copytree's ignore: everything but C/C++ files and folders, links, and the folders
    cursedlint excludes by default (so that every row reads the same files)."""
    from cursedlint.config import DEFAULT_EXCLUDE

    return [name for name in names if os.path.islink(os.path.join(folder, name)) or name in DEFAULT_EXCLUDE
            or not (name.endswith(C_SUFFIXES) or os.path.isdir(os.path.join(folder, name)))]


def files_skipping_rules(folder: str, languages: tuple[str, ...]) -> list[str]:
    """The files of `languages` under `folder` for which the prefilter (default settings)
    leaves out some rule of the file's language, with the codes left out."""
    from cursedlint.languages import language_of
    from cursedlint.triggers.prefilter import Prefilter
    from cursedlint.registry import all_rules

    prefilters = {}
    skipping = []
    for directory, _, names in os.walk(folder):
        for name in names:
            language = language_of(name)
            if language not in languages:
                continue
            if language not in prefilters:
                rules = [rule for rule in all_rules().values() if language in rule.languages]
                prefilters[language] = (rules, Prefilter(rules, {}, language=language))
            rules, prefilter = prefilters[language]
            with open(os.path.join(directory, name), "rb") as handle:
                left_out = set(rules) - set(prefilter.triggered(handle.read()))
            if left_out:
                codes = ", ".join(sorted(rule.code for rule in left_out))
                skipping.append(f"{os.path.join(directory, name)} ({codes})")
    return skipping


def unpacked_torch(work: str, given: str | None, timeout: float) -> str:
    """The unpacked torch 2.13.0 wheel: `given` (a folder), or the wheel `given` (a .whl file)
    or else downloaded, unzipped under WORK."""
    if given and not given.endswith(".whl"):
        return given
    target = os.path.join(work, "wheel", "unzipped")
    if os.path.isdir(target):
        return target
    wheels = [given] if given else glob.glob(os.path.join(work, "wheel", "torch-2.13.0*.whl"))
    if not wheels:
        argv = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "torch==2.13.0", "-d", os.path.join(work, "wheel")]
        subprocess.run(argv, check=True, timeout=timeout)
        wheels = glob.glob(os.path.join(work, "wheel", "torch-2.13.0*.whl"))
    with zipfile.ZipFile(wheels[0]) as wheel:
        wheel.extractall(target + ".partial")
    os.rename(target + ".partial", target)
    return target


def build_torch(work: str, unpacked: str) -> tuple[Corpus, Corpus, Corpus]:
    """The wheel's Python files under torch/py and its headers under torch/cpp; returns the whole
    corpus, its C/C++ part, and its Python files as a project of their own (torch-py: a copy
    with a `cursedlint.toml` at its root, so a run naming one file takes the whole tree as its
    project, as in a repository)."""
    root = os.path.join(work, "torch")
    if not os.path.exists(os.path.join(root, ".complete")):
        shutil.rmtree(root, ignore_errors=True)
        for folder, _, names in os.walk(unpacked):
            for name in names:
                part = "py" if name.endswith(PYTHON_SUFFIXES) else "cpp" if name.endswith(HEADERS) else None
                if part:
                    source = os.path.join(folder, name)
                    copy = os.path.join(root, part, os.path.relpath(source, unpacked))
                    os.makedirs(os.path.dirname(copy), exist_ok=True)
                    shutil.copyfile(source, copy)
        open(os.path.join(root, ".complete"), "w").close()
    both = measure(Corpus("torch py+C/C++", root, ["py", "cpp"]), PYTHON_SUFFIXES + HEADERS)
    cpp = measure(Corpus("torch C/C++", root, ["cpp"]), HEADERS)
    project = os.path.join(work, "torch-py")
    if not os.path.exists(os.path.join(project, "cursedlint.toml")):
        shutil.rmtree(project, ignore_errors=True)
        shutil.copytree(os.path.join(root, "py"), project)
        open(os.path.join(project, "cursedlint.toml"), "w").close()
    return both, cpp, measure(Corpus("torch-py", project, ["."]), PYTHON_SUFFIXES)


# --- tools -----------------------------------------------------------------------------------


def venv(work: str, name: str, requirements: list[str], timeout: float) -> str:
    """The bin directory of WORK/name with `requirements` installed (once)."""
    home = os.path.join(work, name)
    done = os.path.join(home, ".installed")
    if not os.path.exists(done):
        shutil.rmtree(home, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", home], check=True, timeout=timeout)
        pip = [os.path.join(home, "bin", "python"), "-m", "pip", "install", "-q", *requirements]
        result = subprocess.run(pip, check=False, capture_output=True, text=True, timeout=timeout)
        if result.returncode:
            raise Unavailable("pip install failed: " + (result.stderr.strip().splitlines() or ["?"])[-1])
        open(done, "w").close()
    return os.path.join(home, "bin")


def tool_bins(work: str, timeout: float, peers: bool = True, own: bool = True) -> dict[str, str | Unavailable]:
    """The bin directories of the `cursedlint`, `peers` and bare `flake8` venvs (without
    `peers`: the first alone; without `own`: `peers` alone, this checkout not installed), or
    why they are missing. The bare flake8 gets the versions of flake8 and its plugins that the
    cursedlint venv has, so that the two flake8 rows differ only by the cursedlint plugin."""
    bins: dict[str, str | Unavailable] = {}
    for name, requirements in (("cursedlint", [REPO, "flake8"]), ("peers", list(PEERS)))[: 2 if peers else 1]:
        if name == "cursedlint" and not own:
            bins[name] = Unavailable("this checkout is not installed when --cursedlint names the builds")
            continue
        bins[name] = _venv_or_why(work, name, requirements, timeout)
    if not own:
        return bins
    if isinstance(bins["cursedlint"], Unavailable):
        bins["flake8"] = bins["cursedlint"]
        return bins
    python = os.path.join(bins["cursedlint"], "python")
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", REPO],
                   check=True, capture_output=True, timeout=timeout)  # this checkout, as it is now
    versions = subprocess.run(
        [python, "-c", "import importlib.metadata as m, sys; "
         "print(*(f'{p}=={m.version(p)}' for p in sys.argv[1:]))", *FLAKE8_PARTS],
        check=True, capture_output=True, text=True, timeout=timeout,
    )
    if peers:
        bins["flake8"] = _venv_or_why(work, "flake8", versions.stdout.split(), timeout)
    return bins


def _venv_or_why(work: str, name: str, requirements: list[str], timeout: float):
    try:
        return venv(work, name, requirements, timeout)
    except (Unavailable, subprocess.SubprocessError, OSError) as error:
        return error if isinstance(error, Unavailable) else Unavailable(str(error))


def executable(bins: dict[str, str | Unavailable], venv_name: str, program: str) -> str:
    """The path of `program` in a venv, or Unavailable."""
    folder = bins[venv_name]
    if isinstance(folder, Unavailable):
        raise folder
    path = os.path.join(folder, program)
    if not os.path.exists(path):
        raise Unavailable(f"{program} not installed in {venv_name}")
    return path


PARSE_ONLY = """\
import ast, os, sys
for path in sys.argv[1:]:
    for folder, _, names in os.walk(path):
        for name in names:
            if name.endswith((".py", ".pyi")):
                with open(os.path.join(folder, name), "rb") as handle:
                    try:
                        ast.parse(handle.read())
                    except (SyntaxError, ValueError):
                        pass
"""
"""Reads and parses every Python file under the paths it is given, in one process: the floor
that linting the worst-case corpus is measured against."""
TS_PARSE_ONLY = """\
import os, sys
import tree_sitter_c, tree_sitter_cpp
from tree_sitter import Language, Parser
from cursedlint.languages import language_of
parsers = {"c": Parser(Language(tree_sitter_c.language())), "cpp": Parser(Language(tree_sitter_cpp.language()))}
for path in sys.argv[1:]:
    for folder, _, names in os.walk(path):
        for name in names:
            parser = parsers.get(language_of(name))
            if parser is not None:
                with open(os.path.join(folder, name), "rb") as handle:
                    parser.parse(handle.read())
"""
"""The same for C/C++ files, each parsed once by tree-sitter in the language cursedlint gives
it (headers as C++)."""
PARSE_ROW = "ast.parse only (1 process)"
TS_PARSE_ROW = "tree-sitter parse only (1 process)"


def worst_case_tasks(worst: Corpus, bins, parse_row: str = PARSE_ROW,
                     builds: list | None = None) -> list[Task]:
    """The worst-case rows: cursedlint cold on all cores and on one, and the parse alone
    (`parse_row`: ast.parse, or tree-sitter for the C/C++ corpus); with `builds`
    (`shapes.Build`s, from `--cursedlint NAME=EXE`), the cursedlint rows of each, side by
    side ("cursedlint NAME cold")."""
    def check(exe, *options: str):
        return lambda: [exe() if callable(exe) else exe, "check", "--exit-zero", "--no-cache",
                        *options, *worst.paths]

    program = PARSE_ONLY if parse_row == PARSE_ROW else TS_PARSE_ONLY
    own = lambda: executable(bins, "cursedlint", "cursedlint")
    named = [(f"cursedlint {build.name} cold", build.exe) for build in builds or ()] or \
        [("cursedlint cold", own)]
    rows = [row for tool, exe in named
            for row in ((tool, check(exe)), (f"{tool} --jobs 1", check(exe, "--jobs", "1")))]
    rows.append((parse_row, lambda: [executable(bins, "cursedlint", "python"), "-c", program,
                                     *worst.paths]))
    made = []
    for tool, argv in rows:
        try:
            made.append(Task(tool, worst, argv()))
        except Unavailable as error:
            made.append(Task(tool, worst, [], failure=str(error)))
    return made


def tasks(work: str, stdlib: Corpus, torch: Corpus, cpp: Corpus, torch_py: Corpus,
          bins) -> list[Task]:
    """Every row, in the order the rows run within a repetition."""
    rules = os.path.join(work, "semgrep-rules.yml")
    with open(rules, "w") as handle:
        handle.write(SEMGREP_RULES)
    changed = os.path.join(stdlib.root, "lib", "subprocess.py")
    flake8 = ["--exclude", "site-packages", "--exit-zero", "."]
    semgrep = ["scan", "--config", rules, "--metrics=off", "--disable-version-check", "--max-target-bytes=0", "--quiet"]
    cold = {"ruff_row": "ruff cold", "same_row": SAME_COLD}
    warm = {"ruff_row": "ruff warm", "same_row": SAME_WARM, "prime": True}

    def check(*options: str) -> list[str]:
        return [executable(bins, "cursedlint", "cursedlint"), "check", "--exit-zero", *options]

    def ruff_check(*options: str) -> list[str]:
        return [executable(bins, "peers", "ruff"), "check", "--isolated", "--exit-zero", *options]

    rows = [
        ("cursedlint cold", stdlib, lambda: check("--no-cache", *stdlib.paths), cold),
        ("cursedlint warm", stdlib, lambda: check(*stdlib.paths), warm),
        ("cursedlint, 1 file changed", stdlib, lambda: check(*stdlib.paths), {**warm, "touch": changed}),
        ("ruff cold", stdlib, lambda: ruff_check("--no-cache", "."), {}),
        ("ruff warm", stdlib, lambda: ruff_check("."), {"prime": True}),
        (SAME_COLD, stdlib, lambda: ruff_check("--no-cache", "--select", SAME_WORK, "."), {}),
        (SAME_WARM, stdlib, lambda: ruff_check("--select", SAME_WORK, "."), {"prime": True}),
        ("flake8", stdlib, lambda: [executable(bins, "flake8", "flake8"), *flake8], {"slow": True}),
        ("flake8 + cursedlint plugin", stdlib,
         lambda: [executable(bins, "cursedlint", "flake8"), *flake8], {"slow": True}),
        ("flake8 + bugbear", stdlib, lambda: [executable(bins, "peers", "flake8"), *flake8], {"slow": True}),
        ("cursedlint cold", torch, lambda: check("--no-cache", *torch.paths), cold),
        ("ruff cold", torch, lambda: ruff_check("--no-cache", "py"), {}),
        (SAME_COLD, torch, lambda: ruff_check("--no-cache", "--select", SAME_WORK, "py"), {}),
        ("cursedlint warm", torch_py, lambda: check("."), {"prime": True}),
        ("cursedlint, 1 file changed", torch_py, lambda: check("."),
         {"prime": True, "touch": os.path.join(torch_py.root, TORCH_CHANGED)}),
        ("cursedlint pre-commit, 1 file changed", torch_py, lambda: check(TORCH_CHANGED),
         {"prime": True, "touch": os.path.join(torch_py.root, TORCH_CHANGED)}),
        ("cursedlint cold", cpp, lambda: check("--no-cache", *cpp.paths), {}),
        ("semgrep", cpp, lambda: [executable(bins, "peers", "semgrep"), *semgrep, *cpp.paths], {"slow": True}),
    ]
    made = []
    for tool, corpus, argv, options in rows:
        try:
            made.append(Task(tool, corpus, argv(), **options))
        except Unavailable as error:
            made.append(Task(tool, corpus, [], failure=str(error)))
    return made


# --- timing ----------------------------------------------------------------------------------


def timed(argv: list[str], cwd: str, timeout: float) -> tuple[float, float, int]:
    """Run `argv` in `cwd` with its output discarded; wall seconds, CPU seconds (user and
    system, of its whole tree) and peak RSS (KB, the largest single process of its tree).
    Raises Unavailable on a non-zero exit or a timeout."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    killer = threading.Timer(timeout, os.killpg, (process.pid, signal.SIGKILL))
    killer.start()
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    killer.cancel()
    process.returncode = os.waitstatus_to_exitcode(status)
    if seconds >= timeout:
        raise Unavailable(f"timed out after {timeout:.0f} s")
    if process.returncode:
        last = (stderr.decode(errors="replace").strip().splitlines() or ["?"])[-1]
        raise Unavailable(f"exit {process.returncode}: {last[:120]}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def run_once(task: Task, timeout: float) -> None:
    """Prime, touch, then time one run of `task`, recording a failure instead of raising."""
    try:
        if task.prime:
            timed(task.argv, task.corpus.root, timeout)
        if task.touch:  # a line on top: every line below moves, as most edits move some
            with open(task.touch, "rb") as handle:
                data = handle.read()
            with open(task.touch, "wb") as handle:
                handle.write(f"# touched {time.time()}\n".encode() + data)
        if task.before is not None:
            task.before()
        seconds, cpu, peak = timed(task.argv, task.corpus.root, timeout)
    except Unavailable as error:
        task.failure = str(error)
        return
    task.times.append(seconds)
    task.cpu.append(cpu)
    task.peak_kb = max(task.peak_kb, peak)


def run_all(rows: list[Task], repeat: int, slow_repeat: int, timeout: float) -> None:
    """Alternate the rows within each repetition; slow rows run only `slow_repeat` times."""
    for round_ in range(repeat):
        for task in rows:
            if task.failure is None and (not task.slow or round_ < slow_repeat):
                print(f"[{round_ + 1}/{repeat}] {task.tool} on {task.corpus.name}", file=sys.stderr, flush=True)
                run_once(task, timeout)


# --- report ----------------------------------------------------------------------------------


def ratio(task: Task, rows: list[Task], tool: str | None, of: str = "times") -> str:
    """The median of `task` over that of the row `tool` on the same corpus (`of`: "times",
    wall seconds, or "cpu")."""
    reference = next((row for row in rows if row.tool == tool and row.corpus is task.corpus and row.times), None)
    if not task.times or reference is None:
        return ""
    return f"{statistics.median(getattr(task, of)) / statistics.median(getattr(reference, of)):.2f}"


def table(rows: list[Task]) -> str:
    """The Markdown table of every row."""
    lines = [
        f"| tool | corpus | runs | min s | median s | max s | median CPU s | × ruff | × ruff `{SAME_WORK}` | peak MB |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for task in rows:
        if not task.times:
            why = f"not available: {task.failure}" if task.failure else "not run (--slow-repeat 0)"
            lines.append(f"| {task.tool} | {task.corpus.name} | 0 | {why} | | | | | | |")
            continue
        low, mid, high = min(task.times), statistics.median(task.times), max(task.times)
        lines.append(
            f"| {task.tool} | {task.corpus.name} | {len(task.times)} | {low:.3f} | {mid:.3f} | {high:.3f} "
            f"| {statistics.median(task.cpu):.3f} "
            f"| {ratio(task, rows, task.ruff_row)} | {ratio(task, rows, task.same_row)} | {task.peak_kb / 1024:.0f} |"
        )
    return "\n".join(lines)


def throughput(rows: list[Task]) -> list[str]:
    """Files and lines per second of every cold cursedlint row, and semgrep's time over
    cursedlint's on the C/C++ corpus."""
    lines = []
    for task in rows:
        if _cold_row(task.tool) and not task.tool.endswith("--jobs 1") and task.times:
            mid, corpus = statistics.median(task.times), task.corpus
            lines.append(
                f"- {task.tool}, {corpus.name}: {corpus.files:,} files, {corpus.lines:,} lines; "
                f"{corpus.files / mid:,.0f} files/s, {corpus.lines / mid:,.0f} lines/s"
            )
    semgrep = next((row for row in rows if row.tool == "semgrep" and row.times), None)
    if semgrep:
        times = ratio(semgrep, rows, "cursedlint cold")
        lines.append(f"- semgrep / cursedlint cold on {semgrep.corpus.name}: {times}× (medians)")
    for row in rows:
        parse = next((other.tool for other in rows if other.corpus is row.corpus
                      and other.tool in (PARSE_ROW, TS_PARSE_ROW) and other.times), None)
        if parse and _cold_row(row.tool) and row.times:
            lines.append(f"- {row.tool} / {parse} on {row.corpus.name}: {ratio(row, rows, parse)}× wall, "
                         f"{ratio(row, rows, parse, 'cpu')}× CPU (medians; target ≤ 3)")
    if any(row.tool == "ruff cold" and row.times for row in rows):
        lines.append("- ruff sees only the Python part of the torch corpus (it does not read C/C++).")
    return lines


def _cold_row(tool: str) -> bool:
    """A cold cursedlint row: "cursedlint cold", "cursedlint NAME cold", each `--jobs 1` too."""
    return tool.startswith("cursedlint ") and tool.removesuffix(" --jobs 1").endswith(" cold")


def machine() -> str:
    """nproc, CPU model and Python version."""
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as handle:
            model = next(line.split(":", 1)[1].strip() for line in handle if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    python = f"{platform.python_implementation()} {platform.python_version()}"
    return f"Machine: nproc {len(os.sched_getaffinity(0))} ({os.cpu_count()} CPUs), {model}, {python}"


def versions(rows: list[Task], timeout: float = 60) -> str:
    """The version each measured executable reports."""
    seen = {}
    for task in rows:
        if task.times and task.argv[0] not in seen:
            try:
                argv = [task.argv[0], "--version"]
                result = subprocess.run(argv, check=False, capture_output=True, text=True, env=ENV, timeout=timeout)
                first = " ".join(result.stdout.split()) or "?"
            except (OSError, subprocess.SubprocessError) as error:
                first = f"? ({error})"
            home = os.path.basename(os.path.dirname(os.path.dirname(task.argv[0])))
            seen[task.argv[0]] = f"{os.path.basename(task.argv[0])} ({home}): {first}"
    return "Versions: " + "; ".join(sorted(set(seen.values())))


def main() -> int:
    parser = argparse.ArgumentParser(description="Time cursedlint against ruff, flake8 and semgrep; print a Markdown table.")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions of every row")
    parser.add_argument("--slow-repeat", type=int, help="repetitions of the flake8 and semgrep rows (default: --repeat)")
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "cursedlint-bench"))
    parser.add_argument("--torch", help="an unpacked torch 2.13.0 wheel, or the wheel (default: download into WORK)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds allowed to each command")
    parser.add_argument("--worst-case", nargs="?", const="python", choices=("python", "c", "both"),
                        help="only the worst-case rows (every rule triggered on every file) and the parse "
                             "alone: of the stdlib (python, the default), of --c-tree (c), or both")
    parser.add_argument("--c-tree", help="a C/C++ source tree (e.g. an rdma-core checkout) for the C/C++ worst-case rows")
    shapes = parser.add_argument_group("the shapes of issue 30 (any of them: those rows only)")
    shapes.add_argument("--one-file", action="store_true",
                        help="one file linted alone as pre-commit runs it, in a 2,000-file project: cold, warm, edited")
    shapes.add_argument("--named-files", type=int, metavar="N",
                        help="N Python files of --megatron, each linted alone cold as pre-commit runs it")
    shapes.add_argument("--ml-trees", action="store_true",
                        help="the torch wheel's Python files (and --megatron) cold and warm, beside ruff and the parse")
    shapes.add_argument("--big-files", action="store_true",
                        help="a 10 MB Python module and a 50 MB C file (from --c-source) beside their parser")
    shapes.add_argument("--big-100", action="store_true", help="with --big-files: 100 MB files too (slow, GBs of memory)")
    shapes.add_argument("--big-c-mb", type=int, action="append", metavar="MB",
                        help="with --big-files: the C file's size (repeatable; default 50)")
    shapes.add_argument("--big-py-mb", type=int, action="append", metavar="MB",
                        help="with --big-files: the Python file's size (repeatable; default 10; 0: none)")
    shapes.add_argument("--big-cap-gb", type=float, default=12,
                        help="address-space cap of each 100 MB row, GiB (default 12)")
    shapes.add_argument("--megatron", help="a Megatron-LM checkout for --ml-trees (copied under WORK)")
    shapes.add_argument("--no-torch", action="store_true", help="with --ml-trees: the --megatron tree alone")
    shapes.add_argument("--tree", action="append", default=[],
                        help="with --ml-trees: another tree (repeatable; copied under WORK), e.g. a "
                             "CuPy checkout, whose Cython files get a parse row of their own")
    shapes.add_argument("--c-source", action="append", default=[],
                        help="a C source tree whose .c files make the big C file (repeatable)")
    shapes.add_argument("--cursedlint", action="append", default=[], metavar="[NAME=]EXE",
                        help="a cursedlint executable to measure in the shapes and the worst-case rows "
                             "(repeatable: builds side by side; default: this checkout, installed under WORK)")
    args = parser.parse_args()
    if args.worst_case in ("c", "both") and not args.c_tree:
        parser.error(f"--worst-case {args.worst_case} needs --c-tree")
    started = time.perf_counter()
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    if args.one_file or args.named_files or args.ml_trees or args.big_files:
        return _shapes(args, work, started)
    bins = tool_bins(work, args.timeout, peers=not args.worst_case)
    built = None
    if args.worst_case and args.cursedlint:  # (the corpus is written by this checkout)
        sys.modules.setdefault("compare", sys.modules[__name__])
        import shapes

        built = shapes.builds(args.cursedlint, bins)
    rows: list[Task] = []
    notes = []
    if args.worst_case != "c":
        stdlib = build_stdlib(work)
        worst = build_worst_case(work, stdlib, bins, args.timeout)
        rows += worst_case_tasks(worst, bins, builds=built)
        notes.append(f"- stdlib: {stdlib.files:,} files, {stdlib.lines:,} lines; with the worst-case header: {worst.lines:,} lines")
        if not args.worst_case:
            torch, cpp, torch_py = build_torch(work, unpacked_torch(work, args.torch, args.timeout))
            rows = tasks(work, stdlib, torch, cpp, torch_py, bins) + rows
    if args.c_tree and args.worst_case != "python":
        c_worst = build_c_worst_case(work, args.c_tree, bins, args.timeout)
        rows += worst_case_tasks(c_worst, bins, TS_PARSE_ROW, built)
        notes.append(f"- {c_worst.name}: {c_worst.files:,} files, {c_worst.lines:,} lines with the header")
    slow_repeat = args.repeat if args.slow_repeat is None else args.slow_repeat
    run_all(rows, args.repeat, slow_repeat, args.timeout)
    print(table(rows))
    print()
    print("\n".join(throughput(rows) + notes))
    print()
    print(machine())
    print(versions(rows))
    took = time.perf_counter() - started
    flags = f" --worst-case {args.worst_case}" if args.worst_case else ""
    flags += f" --c-tree {args.c_tree}" if args.c_tree else ""
    flags += "".join(f" --cursedlint {value}" for value in args.cursedlint)
    print(f"Command: python benchmarks/compare.py --repeat {args.repeat} --slow-repeat {slow_repeat}{flags}; took {took:.0f} s")
    return 0


def _shapes(args, work: str, started: float) -> int:
    """The issue-30 shapes (benchmarks/shapes.py), printed as Markdown."""
    sys.modules.setdefault("compare", sys.modules[__name__])  # one module, however it was started
    import shapes

    peers = bool(args.one_file or args.named_files or args.ml_trees)  # (the big files have none)
    bins = tool_bins(work, args.timeout, peers=peers, own=not args.cursedlint)
    load = os.getloadavg()
    print("\n".join(shapes.run(args, work, bins)))
    print(machine())
    print(f"Load average at the start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; at the end: "
          + " ".join(f"{each:.2f}" for each in os.getloadavg()))
    print("Command: python benchmarks/compare.py " + " ".join(sys.argv[1:])
          + f"; took {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
