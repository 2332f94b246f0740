"""`python.reaching`: which bindings of a name reach a read of it."""

import ast
import textwrap

from cursedlint.python.reaching import Bindings


def _reads(source: str, name: str, function: str = "f"):
    """(binding lines at each read of `name`, at its first `while` test) in `function`."""
    tree = ast.parse(textwrap.dedent(source))
    scope = next(node for node in ast.walk(tree)
                 if isinstance(node, ast.FunctionDef) and node.name == function)
    found = Bindings(scope, name)
    reads = sorted((node for node in ast.walk(scope) if isinstance(node, ast.Name)
                    and node.id == name and isinstance(node.ctx, ast.Load)),
                   key=lambda node: (node.lineno, node.col_offset))
    lines = [sorted(b.lineno for b in found.at.get(id(r), ())) for r in reads]
    first = [sorted(b.lineno for b in found.first[id(r)]) for r in reads
             if id(r) in found.first]
    return lines, first


def test_a_later_binding_hides_the_earlier_and_branches_join():
    lines, _ = _reads("""
        def f(x, c):
            x = x.cuda()
            use(x)
            if c:
                x = 0
            use(x)
    """, "x")
    assert lines == [[2], [3], [3, 6]]  # (`x.cuda()` reads the parameter, line 2)


def test_a_loop_brings_its_body_back_to_its_head_and_a_while_test_its_entry():
    lines, first = _reads("""
        def f(y):
            done = y > 3
            while not done:
                done = True
            return done
    """, "done")
    assert lines == [[3, 5], [3, 5]]
    assert first == [[3]]


def test_augmented_assignment_in_a_loop_reads_itself_and_the_start():
    tree = ast.parse("def f(gs):\n    n = 0\n    for g in gs:\n        n += g\n    return n\n")
    scope = tree.body[0]
    found = Bindings(scope, "n")
    augmented = next(node for node in ast.walk(scope) if isinstance(node, ast.AugAssign))
    assert sorted(b.lineno for b in found.at[id(augmented)]) == [2, 4]


def test_try_break_and_return_paths():
    lines, _ = _reads("""
        def f(a):
            v = 1
            for item in a:
                try:
                    v = item
                    v = 2
                except ValueError:
                    use(v)
                    break
                finally:
                    pass
            return v
    """, "v")
    assert lines == [[3, 6, 7], [3, 6, 7]]


def test_a_name_in_a_comprehension_binding_it_again_is_not_read():
    lines, _ = _reads("""
        def f(xs):
            x = 1
            return [x for x in xs], x
    """, "x")
    assert lines == [[], [3]]


def test_a_nested_class_and_def_bind_their_names_and_run_their_defaults():
    lines, _ = _reads("""
        def f(n):
            class Config:
                size = n
            def g(k=n):
                return k
            n = 2
            return Config, g, n
    """, "n")
    assert lines == [[], [2], [7]]  # (a class body is its own scope: not answered)
