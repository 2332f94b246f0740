"""The floor under a cold cursedlint run of a tree: what any run of this design pays before a
rule looks at anything. Two steps, each run with the python of the build measured:

    python benchmarks/parse_floor.py list TREE LIST   # one cold `--jobs 1` run, in-process,
                                                      # noting the files it checked and parsed
    python benchmarks/parse_floor.py floor LIST       # the timed floor

`floor` imports `cursedlint.cli` and every rule (`registry.all_rules`), reads every file the
run checked and hashes it (`content_digest`, as the index keys a file), and `ast.parse`s each
file the run parsed (the lint's and the index's), once; a Cython file the run read is
translated and parsed as the run reads it (`python.cython.parse_cython`). Its CPU beside the run's is the cost
that is not the floor (`compare.py --ml-trees`: the "parse floor" row).
"""

from __future__ import annotations

import ast
import json
import os
import sys


def record(tree: str, out: str) -> None:
    """Lint `tree` as `cursedlint check --no-cache --exit-zero --jobs 1` does, noting the files
    given to the linter and the text of each parse, and write them (JSON) to `out`."""
    import cursedlint.engine.file_lint as file_lint
    import cursedlint.engine.linter as linter_module
    import cursedlint.python.cython as cython
    from cursedlint.cli import main
    from cursedlint.source import Source

    checked: list[str] = []
    parsed: dict[int, str] = {}  # id(text) -> path, for the texts parsed
    translated: dict[int, str] = {}  # the same, for Cython texts translated and parsed
    paths: dict[int, tuple[str, str]] = {}  # id(text) -> (text, path) of each decoded source
    from_bytes, parse, run = Source.from_bytes, file_lint.parse_python, linter_module.Linter.run
    read_cython = cython.parse_cython

    def decoded(path, data, language, *rest, **options):
        source = from_bytes(path, data, language, *rest, **options)
        paths[id(source.text)] = (source.text, os.path.abspath(path))
        return source

    def parse_python(text, *rest, **options):
        known = paths.get(id(text))
        if known is not None and known[0] is text:
            parsed[id(text)] = known[1]
        return parse(text, *rest, **options)

    def parse_cython(text, *rest, **options):
        known = paths.get(id(text))
        if known is not None and known[0] is text:
            translated[id(text)] = known[1]
        return read_cython(text, *rest, **options)

    def linted(self, files, *rest, **options):
        checked.extend(os.path.abspath(path) for path, _ in files)
        return run(self, files, *rest, **options)

    original = Source.__dict__["from_bytes"]
    Source.from_bytes = staticmethod(decoded)
    file_lint.parse_python, cython.parse_cython = parse_python, parse_cython
    linter_module.Linter.run = linted
    try:
        main(["check", "--no-cache", "--exit-zero", "--jobs", "1", "-q", tree])
    except SystemExit:
        pass
    finally:
        Source.from_bytes, file_lint.parse_python, linter_module.Linter.run = original, parse, run
        cython.parse_cython = read_cython
    with open(out, "w") as handle:
        json.dump({"checked": sorted(set(checked)), "parsed": sorted(set(parsed.values())),
                   "translated": sorted(set(translated.values()))}, handle)


def floor(listing: str) -> None:
    """The floor itself: imports, every checked file read and hashed, each parsed file parsed."""
    import importlib

    from cursedlint.project.index import content_digest
    from cursedlint.python.cython import parse_cython
    from cursedlint.registry import all_rules

    importlib.import_module("cursedlint.cli")  # (what every run imports)
    dict(all_rules())  # (every rule module imported: `all_rules` imports them when asked)
    with open(listing) as handle:
        files = json.load(handle)
    texts = {}
    for path in files["checked"]:
        try:
            with open(path, "rb") as source:
                data = source.read()
        except OSError:  # (a link to nothing: the run could not read it either)
            continue
        content_digest(data)
        texts[path] = data
    for path in files["parsed"]:
        try:
            ast.parse(texts.get(path) or open(path, "rb").read())
        except (SyntaxError, ValueError):
            pass
    for path in files.get("translated", ()):
        try:
            parse_cython((texts.get(path) or open(path, "rb").read()).decode("utf-8", "replace"))
        except (SyntaxError, ValueError):
            pass
    print(f"{len(files['checked'])} files read and hashed, {len(files['parsed'])} parsed, "
          f"{len(files.get('translated', ()))} Cython files translated and parsed", file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1:2] == ["list"] and len(sys.argv) == 4:
        record(sys.argv[2], sys.argv[3])
    elif sys.argv[1:2] == ["floor"] and len(sys.argv) == 3:
        floor(sys.argv[2])
    else:
        sys.exit(__doc__)
