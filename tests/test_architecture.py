"""The layout's rules, checked on the code: no module of cursedlint imports, at any depth (a
function's lazy import and a type-only import count), a module that imports it back."""

from __future__ import annotations

import ast
from pathlib import Path

import cursedlint

PACKAGE = Path(cursedlint.__file__).parent


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("cursedlint", *path.relative_to(PACKAGE).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The cursedlint modules `name` imports anywhere in its text."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            candidates = [module, *(f"{module}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        else:
            continue
        found.update(c for c in candidates if c in modules and c != name)
    return found


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            following = next(edges, None)
            if following is not None:
                if following not in index:
                    index[following] = low[following] = len(index)
                    stack.append(following)
                    on_stack.add(following)
                    work.append((following, iter(sorted(graph[following]))))
                elif following in on_stack:
                    low[node] = min(low[node], index[following])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    circles.append(sorted(group))
    return circles


def test_no_module_imports_a_module_that_imports_it_back():
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert len(graph) > 70 and graph["cursedlint.engine.linter"]
    assert _circles(graph) == []


def test_the_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


SHARED_C_HELPERS = frozenset({
    "arguments", "callee", "callee_text", "unwrapped", "function_declarator", "inner_declarator",
    "declared_name", "declared_names", "written_name", "declarator_kind", "parameter_names",
    "scope_of", "block_statement", "plain_function", "defined_functions", "writes", "assigns",
    "unqualified",
})
"""`analysis.c_syntax`'s helpers: the one place each is written."""


def test_no_c_rule_module_writes_its_own_copy_of_a_syntax_helper():
    rules = PACKAGE / "rules"
    checked = 0
    for path in sorted(rules.rglob("*.py")):
        text = path.read_text()
        if "child_by_field_name" not in text:  # (Python's rules read `ast`, not tree-sitter)
            continue
        checked += 1
        copies = [node.name for node in ast.walk(ast.parse(text))
                  if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.name.lstrip("_") in SHARED_C_HELPERS]
        assert copies == [], f"{path.relative_to(PACKAGE)} defines {copies}: use c_syntax's"
    assert checked >= 3
    c_syntax = {node.name for name in ("c_syntax.py", "c_nodes.py") for node in ast.parse(
        (PACKAGE / "analysis" / name).read_text()).body
        if isinstance(node, ast.FunctionDef)}  # (c_syntax gives c_nodes' on)
    assert SHARED_C_HELPERS <= c_syntax


CALLEE_GETTERS = frozenset({"callee", "called", "called_name", "callee_name", "callee_text",
                            "call_name", "called_function"})
"""The names a getter of a call's callee goes by: `c_syntax.callee` (its forms are switches)
and `c_nodes.callee_text` are the only C/C++ ones."""


def test_no_module_but_c_syntax_writes_its_own_callee_getter():
    owners = {PACKAGE / "analysis" / "c_syntax.py", PACKAGE / "analysis" / "c_nodes.py"}
    checked = 0
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text()
        if path in owners or "child_by_field_name" not in text:  # (tree-sitter readers only)
            continue
        checked += 1
        getters = [node.name for node in ast.walk(ast.parse(text))
                   if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                   and node.name.strip("_") in CALLEE_GETTERS]
        assert getters == [], f"{path.relative_to(PACKAGE)} defines {getters}: use c_syntax.callee"
    assert checked >= 30


def test_every_check_asked_across_modules_names_its_fact_kind():
    """`CudaUse.remote` finds the `CudaReach` fact kind of a check by the mark on the check
    (`cuda_facts.remote_kind`), not by the method's name: a renamed check keeps its reach. A
    kind is a `CudaFact`: a bare string, which may be misspelt, is refused."""
    import pytest

    from cursedlint.analysis.capture_regions import CaptureAnalysis
    from cursedlint.analysis.cuda_facts import CudaFact, remote_kind
    from cursedlint.analysis.cuda_use import CudaUse
    from cursedlint.analysis.library_work import LibraryWork

    checks = [CudaUse.device_wide_use, CudaUse.any_use, CudaUse.sure_use, CudaUse.initializes,
              CudaUse.needs_cuda, CudaUse.host_sync, CaptureAnalysis.begins,
              LibraryWork.library_work]
    kinds = [check.remote_kind for check in checks]
    assert kinds == [CudaFact.DEVICE_WIDE, CudaFact.CUDA, CudaFact.SURE_CUDA, CudaFact.CUDA_INIT,
                     CudaFact.CUDA_NEEDED, CudaFact.HOST_SYNC, CudaFact.GLOBAL_CAPTURE,
                     CudaFact.LIBRARY_WORK]
    with pytest.raises(TypeError):
        remote_kind("host_sync")


RULE_MODULE_LINES = 600
"""A rule module says what is hazardous and reports it; the analysis it asks of the code
lives in `cursedlint/analysis/`, so no rule module grows past about this many lines."""


def test_no_rule_module_is_over_the_limit():
    sizes = {str(path.relative_to(PACKAGE)): len(path.read_text().splitlines())
             for path in (PACKAGE / "rules").rglob("*.py")}
    assert len(sizes) >= 15
    assert {path: lines for path, lines in sizes.items() if lines > RULE_MODULE_LINES} == {}


SHARED_PYTHON_HELPERS = {
    "python/context": {"qualified_name", "parent_of", "ancestors", "scope_of", "text_of",
                       "child_nodes", "definition"},
    "analysis/python_project": {"dotted", "last_name", "own_nodes", "value_of", "own_method",
                                "call_target", "calls_of", "called_as", "module_functions"},
    "analysis/capture_regions": {"body_of", "position", "enclosing_class",
                                 "is_self_attribute", "code_of"},
}
"""The Python analysis helpers every rule uses, each written once in the module named."""


def _defined(path: Path) -> set[str]:
    return {node.name for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def test_no_python_rule_module_writes_its_own_copy_of_an_analysis_helper():
    shared = set().union(*SHARED_PYTHON_HELPERS.values())
    for module, names in SHARED_PYTHON_HELPERS.items():
        assert names <= _defined(PACKAGE / f"{module}.py"), module
    copies = {str(path.relative_to(PACKAGE)): sorted(
        name for name in _defined(path) if name.lstrip("_") in shared)
        for path in (PACKAGE / "rules").rglob("*.py")}
    assert {path: names for path, names in copies.items() if names} == {}


def test_no_rule_module_climbs_a_syntax_tree_itself():
    """Enclosing scopes, statements and declarations come from the analysis layer
    (`c_syntax.scope_of`, `CContext.ancestors`, `PythonContext.ancestors`): a rule module that
    follows parents by node type names (`node.parent`, or `node = parent(node)` in a loop)
    misses what the shared helpers know (a macro-defined test body, a lambda)."""
    climbing = {}
    for path in (PACKAGE / "rules").rglob("*.py"):
        tree = ast.parse(path.read_text())
        called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
        found = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                 and node.attr == "parent" and id(node) not in called]
        found += [step.lineno for loop in ast.walk(tree) if isinstance(loop, (ast.While, ast.For))
                  for step in ast.walk(loop) if _climbs(step)]
        if found:
            climbing[str(path.relative_to(PACKAGE))] = sorted(found)
    assert climbing == {}


def _climbs(step: ast.AST) -> bool:
    """`node = parent(node)` (or `parent_of`), also among a tuple's: a step up from the node
    the name held."""
    if not isinstance(step, ast.Assign):
        return False
    target, value = step.targets[0], step.value
    pairs = zip(target.elts, value.elts) if isinstance(target, ast.Tuple) and isinstance(
        value, ast.Tuple) else [(target, value)]
    for name, call in pairs:
        if isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.Name):
            func = call.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in ("parent", "parent_of") and isinstance(name, ast.Name) \
                    and name.id == call.args[0].id:
                return True
    return False


def test_the_climbing_check_finds_a_step_up_and_not_a_look_at_a_parent():
    assert _climbs(ast.parse("node = self.context.parent(node)").body[0])
    assert _climbs(ast.parse("name, node = node, parent(node)").body[0])
    assert not _climbs(ast.parse("assignment = self.context.parent(leaf)").body[0])


CHECKING_ONLY = {
    "cursedlint.analysis.c_capture", "cursedlint.analysis.c_constants",
    "cursedlint.analysis.c_errno_fallbacks", "cursedlint.analysis.c_expectations",
    "cursedlint.analysis.c_failure_path",
    "cursedlint.analysis.c_memory", "cursedlint.analysis.c_result_wrappers",
    "cursedlint.analysis.clone_analysis", "cursedlint.analysis.cloning_functions",
    "cursedlint.analysis.cuda_tensors", "cursedlint.analysis.cuda_use",
    "cursedlint.analysis.instance_lifetime",
    "cursedlint.analysis.library_work", "cursedlint.analysis.platform",
    "cursedlint.analysis.task_pairs", "cursedlint.analysis.task_races",
    "cursedlint.analysis.thread_starts", "cursedlint.c.context",
    "cursedlint.python.cython", "cursedlint.python.scan",
}
"""The front ends and the analyses that only check a parsed file or summarize one for the
index: what a run imports once a file holds a rule's trigger words or an index reads a file,
never before (the rules' declarations — codes, options, trigger words, indexers — do not)."""


def _imported_by(program: str, cwd: Path) -> set[str]:
    """The cursedlint modules a fresh interpreter has imported after running `program` (whose
    exit status must be 0)."""
    import subprocess
    import sys

    probe = ("import atexit, sys\n"
             "atexit.register(lambda: sys.stderr.write('\\nMODULES ' + ' '.join(sorted(\n"
             "    name for name in sys.modules if name.startswith('cursedlint')))))\n" + program)
    done = subprocess.run([sys.executable, "-c", probe], cwd=cwd, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(done.stderr.rpartition("MODULES ")[2].split())


def _checkers() -> set[str]:
    """The modules of the rules' checkers (`Rule.checkers`), named as imported."""
    from cursedlint.registry import all_rules

    return {f"{rule.__module__.rpartition('.')[0]}.{where.partition(':')[0]}"
            for rule in all_rules().values() for where in rule.checkers.values()}


def test_a_run_over_files_without_trigger_words_imports_no_checker_and_no_checking_analysis(
        tmp_path):
    """What a run needs before it knows which files hold trigger words (the rules'
    declarations and the indexers' words) is split from what checks a file: a run over files
    that trigger nothing, cold, warm or just edited, imports no checker, no front end and none
    of the analyses that check or summarize, and no rule module the declarations do not."""
    (tmp_path / "cursedlint.toml").write_text("")
    (tmp_path / "steps.py").write_text(
        '"""Plain steps."""\n\n\ndef total(values: list[int]) -> int:\n    return sum(values)\n')
    (tmp_path / "report.py").write_text(
        "from steps import total\n\n\ndef show(values):\n    print(total(values))\n")
    declared = _imported_by("from cursedlint.registry import all_rules\ndict(all_rules())", tmp_path)
    run = "from cursedlint.cli import main\nsys.exit(main(['check', 'steps.py']))"
    cold = _imported_by(run, tmp_path)
    warm = _imported_by(run, tmp_path)
    with open(tmp_path / "steps.py", "a") as handle:
        handle.write("\n\ndef mean(values: list[int]) -> float:\n    return total(values) / 2\n")
    edited = _imported_by(run, tmp_path)
    assert (tmp_path / ".cursedlint_cache").is_dir()
    forbidden = CHECKING_ONLY | _checkers()
    assert {"cursedlint.rules.graph_capture.python", "cursedlint.rules.process_spawning.python"} \
        <= _checkers()
    assert declared & forbidden == set()
    for imported in (cold, warm, edited):
        assert imported & forbidden == set()
        assert {name for name in imported - declared if name.startswith("cursedlint.rules")} \
            == set()


def test_a_file_with_trigger_words_imports_its_checkers(tmp_path):
    """The other half of the split: a file whose bytes hold a rule's trigger words has its
    rule's second look built, which imports the rule's checker (the probe above would pass
    for a run that imported nothing at all)."""
    (tmp_path / "cursedlint.toml").write_text("")
    (tmp_path / "train.py").write_text(
        "import multiprocessing as mp\nimport torch\n\n\ndef main():\n    torch.zeros(1).cuda()\n"
        "    mp.Process(target=print).start()\n")
    imported = _imported_by(
        "from cursedlint.cli import main\nsys.exit(main(['check', '--exit-zero', 'train.py']))",
        tmp_path)
    assert {"cursedlint.rules.process_spawning.python", "cursedlint.analysis.platform"} <= imported
