"""Discovery: walking, excludes, .gitignore semantics, symlinks, explicit paths, languages."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest

from cursedlint.project import discovery
from cursedlint.config import DEFAULT_EXCLUDE, Config
from cursedlint.project.discovery import Patterns, discover, is_project, project_root
from cursedlint.project.globs import DIRECTORY_MARK
from cursedlint.languages import EXTENSIONS, language_of


def make(root, *paths: str, content: str = "x = 1\n") -> None:
    for path in paths:
        target = root / path
        if path.endswith("/"):
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)


def git_init(path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q", str(path)], check=True)


def git_ignored(repo, paths: list[str]) -> set[str]:
    """What git itself says is ignored: the reference our semantics must agree with."""
    result = subprocess.run(
        ["git", "-C", str(repo), "check-ignore", "--no-index", "--stdin"],
        input="\n".join(paths), capture_output=True, text=True,
    )
    assert result.returncode in (0, 1), result.stderr
    return set(result.stdout.splitlines())


def found(tmp_path, paths=None, **config) -> list[str]:
    """Paths discover() yields from inside tmp_path (the project root)."""
    os.chdir(tmp_path)
    return [path for path, _ in discover(paths or ["."], Config(root=str(tmp_path), **config)).files]


@pytest.fixture(autouse=True)
def _restore_cwd(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)


# -- walking and languages ----------------------------------------------------------------


def test_every_extension_gets_its_language_and_others_are_passed_over(tmp_path):
    for extension in EXTENSIONS:
        make(tmp_path, f"src/file{extension}")
    make(tmp_path, "src/UPPER.PY", "src/notes.txt", "src/Makefile", "src/data.json",
         "src/py", "src/.py.bak", "src/Dockerfile", "src/Dockerfile.cuda", "src/Containerfile")
    result = discover(["src"], Config(root=str(tmp_path)))
    languages = dict(result.files)
    assert languages == {
        **{os.path.join("src", f"file{extension}"): language for extension, language in EXTENSIONS.items()},
        os.path.join("src", "UPPER.PY"): "python",
        **{os.path.join("src", name): "dockerfile" for name in ("Dockerfile", "Dockerfile.cuda", "Containerfile")},
    }
    assert {languages["src/file.py"], languages["src/file.c"], languages["src/file.h"], languages["src/file.cu"]} == {
        "python", "c", "cpp"}
    assert languages["src/file.h"] == "cpp" and languages["src/file.cuh"] == "cpp"
    assert result.files == sorted(result.files)
    assert result.missing == [] and result.skipped == []


def test_paths_are_shown_as_given(tmp_path):
    make(tmp_path, "a.py", "pkg/b.py", "pkg/sub/c.cpp")
    assert found(tmp_path) == ["a.py", "pkg/b.py", "pkg/sub/c.cpp"]
    assert found(tmp_path, ["./pkg/"]) == ["pkg/b.py", "pkg/sub/c.cpp"]
    assert found(tmp_path, ["pkg/sub/../b.py"]) == ["pkg/b.py"]
    absolute = str(tmp_path / "pkg")
    assert found(tmp_path, [absolute]) == [f"{absolute}/b.py", f"{absolute}/sub/c.cpp"]
    os.chdir(tmp_path / "pkg")
    assert [p for p, _ in discover([".."], Config(root=str(tmp_path))).files] == [
        "../a.py", "../pkg/b.py", "../pkg/sub/c.cpp"]


def test_default_is_the_current_directory_and_overlaps_are_listed_once(tmp_path):
    make(tmp_path, "a.py", "pkg/b.py")
    config = Config(root=str(tmp_path))
    assert discover([], config).files == [("a.py", "python"), ("pkg/b.py", "python")]
    assert discover(["pkg", "pkg/b.py", "./pkg/b.py", "a.py"], config).files == [
        ("a.py", "python"), ("pkg/b.py", "python")]


def test_missing_paths_are_collected_not_raised(tmp_path):
    make(tmp_path, "a.py")
    result = discover(["nope.py", "a.py", "gone/"], Config(root=str(tmp_path)))
    assert result.missing == ["nope.py", "gone/"]
    assert result.files == [("a.py", "python")]


def test_explicit_file_of_an_unlinted_kind_is_skipped(tmp_path):
    make(tmp_path, "README.md", "a.py")
    result = discover(["README.md", "a.py"], Config(root=str(tmp_path)))
    assert result.files == [("a.py", "python")]
    assert result.skipped == ["README.md"]


@pytest.mark.parametrize("first_line, language", [
    (b"#!/usr/bin/env python3", "python"),
    (b"#! /usr/bin/python3.11 -u", "python"),
    (b"#!/usr/bin/env -S python3 -u", "python"),
    (b"#!/bin/bash -euo pipefail", "shell"),
    (b"#!/usr/bin/env FOO=1 sh", "shell"),
    (b"#!/usr/bin/perl -w", None),
    (b"# a comment, no interpreter", None),
])
def test_extensionless_scripts_are_known_by_their_shebang(tmp_path, first_line, language):
    """pre-commit passes scripts by the interpreter their `#!` names; a walk finds them too."""
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "launch").write_bytes(first_line + b"\nexit 0\n")
    (tmp_path / "bin" / "launch.txt").write_bytes(first_line + b"\n")  # an extension decides
    config = Config(root=str(tmp_path))
    expected = [("bin/launch", language)] if language else []
    assert discover(["bin"], config).files == expected
    assert discover(["bin/launch"], config).files == expected


def test_a_fifo_without_an_extension_is_not_read(tmp_path):
    """Sniffing a shebang opens the file without blocking and reads only regular files."""
    os.mkfifo(tmp_path / "pipe")
    config = Config(root=str(tmp_path))
    assert discover(["."], config).files == []
    assert discover(["pipe"], config).skipped == ["pipe"]


def test_a_device_without_an_extension_is_never_opened(tmp_path, monkeypatch):
    """A link to a device (opening one can act on it: a tape drive, a terminal) is known by
    its stat; a linked script is still sniffed through the link."""
    (tmp_path / "tool").write_bytes(b"#!/usr/bin/env python3\n")
    (tmp_path / "linked_tool").symlink_to("tool")
    (tmp_path / "console").symlink_to(os.devnull)
    opened = []
    real_open = os.open

    def recording_open(path, *args, **kwargs):
        opened.append(os.path.basename(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", recording_open)
    assert discover(["."], Config(root=str(tmp_path))).files == [
        ("linked_tool", "python"), ("tool", "python")]
    assert "console" not in opened and {"tool", "linked_tool"} <= set(opened)


# -- excludes -----------------------------------------------------------------------------


def test_default_excludes_at_any_depth(tmp_path):
    excluded = [f"{name}/x.py" for name in DEFAULT_EXCLUDE] + [
        "pkg/node_modules/dep/x.py", "pkg/__pycache__/x.py", "deep/a/b/.venv/lib/x.py", "pkg/build/x.cpp"]
    make(tmp_path, *excluded, "pkg/ok.py", "pkg/builder/x.py", "pkg/build.py", "pkg/venvs/x.py")
    assert found(tmp_path) == ["pkg/build.py", "pkg/builder/x.py", "pkg/ok.py", "pkg/venvs/x.py"]


def test_exclude_replaces_the_defaults_and_extend_exclude_adds(tmp_path):
    make(tmp_path, "build/a.py", ".venv/b.py", "third_party/c.py", "src/third_party/d.py", "src/e_pb2.py",
         "src/generated/f.py", "generated.py", "src/g.py")
    assert found(tmp_path, exclude=("/third_party", "*_pb2.py")) == [
        ".venv/b.py", "build/a.py", "generated.py", "src/g.py", "src/generated/f.py", "src/third_party/d.py"]
    assert found(tmp_path, extend_exclude=("generated/", "src/*_pb2.py")) == [
        "generated.py", "src/g.py", "src/third_party/d.py", "third_party/c.py"]


def test_negated_extend_exclude_reincludes_a_default(tmp_path):
    make(tmp_path, "build/a.py", "dist/b.py")
    assert found(tmp_path, extend_exclude=("!build",)) == ["build/a.py"]


def test_excludes_are_relative_to_the_project_root(tmp_path):
    make(tmp_path, "proj/sub/x.py", "proj/keep/sub/y.py", "proj/z.py")
    os.chdir(tmp_path)
    config = Config(root=str(tmp_path / "proj"), extend_exclude=("/sub",))
    assert [p for p, _ in discover(["proj"], config).files] == ["proj/keep/sub/y.py", "proj/z.py"]
    os.chdir(tmp_path / "proj" / "keep")
    assert [p for p, _ in discover(["."], config).files] == ["sub/y.py"]


def test_walking_from_above_the_root_applies_anchored_excludes_inside_it(tmp_path):
    make(tmp_path, "proj/sub/x.py", "proj/keep/sub/y.py", "sub/z.py")
    config = Config(root=str(tmp_path / "proj"), extend_exclude=("/sub",))
    assert [p for p, _ in discover(["."], config).files] == ["proj/keep/sub/y.py", "sub/z.py"]


def test_paths_outside_the_root_still_skip_excluded_names(tmp_path):
    make(tmp_path, "other/.venv/x.py", "other/node_modules/y.py", "other/sub/z.py", "proj/a.py")
    config = Config(root=str(tmp_path / "proj"), extend_exclude=("/sub",))
    os.chdir(tmp_path / "proj")
    # an anchored pattern is relative to the root, so it says nothing about ../other/sub
    assert [p for p, _ in discover(["../other"], config).files] == ["../other/sub/z.py"]


def test_explicitly_named_excluded_file_and_force_exclude(tmp_path):
    make(tmp_path, "build/gen.py", "pkg/.venv/lib/x.py", "pkg/ok.py", "vendor/v.py")
    config = Config(root=str(tmp_path), extend_exclude=("vendor/",))
    named = ["build/gen.py", "pkg/.venv/lib/x.py", "pkg/ok.py", "vendor/v.py"]
    assert [p for p, _ in discover(named, config).files] == named
    forced = discover(named, Config(root=str(tmp_path), extend_exclude=("vendor/",), force_exclude=True))
    assert forced.files == [("pkg/ok.py", "python")]
    assert forced.skipped == ["build/gen.py", "pkg/.venv/lib/x.py", "vendor/v.py"]


def test_explicitly_named_excluded_directory_is_walked_unless_forced(tmp_path):
    make(tmp_path, "build/a.py", "build/sub/b.py", "build/node_modules/c.py", "build/dist/d.py")
    assert found(tmp_path, ["build"]) == ["build/a.py", "build/sub/b.py"]
    result = discover(["build"], Config(root=str(tmp_path), force_exclude=True))
    assert result.files == [] and result.skipped == ["build"]


def test_force_exclude_outside_the_root_checks_the_named_components(tmp_path):
    make(tmp_path, "elsewhere/node_modules/x.py", "elsewhere/ok.py", "proj/")
    os.chdir(tmp_path / "proj")
    config = Config(root=str(tmp_path / "proj"), force_exclude=True)
    result = discover(["../elsewhere/node_modules/x.py", "../elsewhere/ok.py"], config)
    assert result.files == [("../elsewhere/ok.py", "python")]


# -- .gitignore ---------------------------------------------------------------------------


def test_gitignore_semantics_agree_with_git(tmp_path):
    git_init(tmp_path)
    make(
        tmp_path,
        "top.py", "anchored.py", "sub/anchored.py",
        "a.gen.py", "sub/b.gen.py", "sub/keep.gen.py", "sub/deeper/keep.gen.py",
        "logs.py/inner.py", "sub/logs.py",
        "ign/x.py", "ign/keep.py",
        "sub/local/y.py", "local/z.py",
        "sub/only_here.py", "only_here.py",
        "info_excluded.py", "sub/info_excluded.py",
        "space .py",
    )
    (tmp_path / ".gitignore").write_text(
        "# comment\n\n*.gen.py\n/anchored.py\nlogs.py/\nign/\n!ign/keep.py\nspace\\ .py\n"
    )
    (tmp_path / "sub" / ".gitignore").write_text("!keep.gen.py\nlocal/\nonly_here.py\n")
    (tmp_path / ".git" / "info" / "exclude").write_text("info_excluded.py\n")
    everything = [
        "top.py", "anchored.py", "sub/anchored.py", "a.gen.py", "sub/b.gen.py", "sub/keep.gen.py",
        "sub/deeper/keep.gen.py", "logs.py/inner.py", "sub/logs.py", "ign/x.py", "ign/keep.py",
        "sub/local/y.py", "local/z.py", "sub/only_here.py", "only_here.py", "info_excluded.py",
        "sub/info_excluded.py", "space .py",
    ]
    expected = sorted(set(everything) - git_ignored(tmp_path, everything))
    assert found(tmp_path) == expected
    # spelled out, so the test says what git says
    assert expected == [
        "local/z.py", "only_here.py", "sub/anchored.py", "sub/deeper/keep.gen.py", "sub/keep.gen.py",
        "sub/logs.py", "top.py",
    ]


def test_respect_gitignore_off(tmp_path):
    git_init(tmp_path)
    make(tmp_path, "a.py", "b.gen.py")
    (tmp_path / ".gitignore").write_text("*.gen.py\n")
    assert found(tmp_path) == ["a.py"]
    assert found(tmp_path, respect_gitignore=False) == ["a.py", "b.gen.py"]


def test_gitignore_without_a_repository_starts_at_the_project_root(tmp_path):
    make(tmp_path, "proj/a.py", "proj/pkg/b.gen.py", "proj/pkg/c.py")
    (tmp_path / "proj" / ".gitignore").write_text("*.gen.py\n")
    (tmp_path / ".gitignore").write_text("c.py\n")  # above the root, no repository: not ours
    os.chdir(tmp_path / "proj" / "pkg")
    assert [p for p, _ in discover(["."], Config(root=str(tmp_path / "proj"))).files] == ["c.py"]


def test_gitignore_above_the_project_root_applies_inside_the_repository(tmp_path):
    git_init(tmp_path)
    make(tmp_path, "proj/src/a.py", "proj/src/b.gen.py", "proj/src/c_pb2.py")
    (tmp_path / ".gitignore").write_text("*.gen.py\n")
    (tmp_path / "proj" / "src" / ".gitignore").write_text("*_pb2.py\n")
    os.chdir(tmp_path / "proj" / "src")
    assert [p for p, _ in discover(["."], Config(root=str(tmp_path / "proj"))).files] == ["a.py"]


def test_nested_repository_does_not_inherit_the_outer_gitignore(tmp_path):
    git_init(tmp_path)
    git_init(tmp_path / "vendored")
    make(tmp_path, "a.gen.py", "vendored/b.gen.py", "vendored/c.py", "vendored/d.tmp.py")
    (tmp_path / ".gitignore").write_text("*.gen.py\n")
    (tmp_path / "vendored" / ".git" / "info" / "exclude").write_text("*.tmp.py\n")
    assert found(tmp_path) == ["vendored/b.gen.py", "vendored/c.py"]


def test_explicitly_named_ignored_files_and_force_exclude(tmp_path):
    git_init(tmp_path)
    make(tmp_path, "out/gen.py", "a.gen.py", "ok.py", "sub/deep/x.py")
    (tmp_path / ".gitignore").write_text("out/\n*.gen.py\n")
    (tmp_path / "sub" / ".gitignore").write_text("deep/\n")
    named = ["a.gen.py", "ok.py", "out/gen.py", "sub/deep/x.py"]
    assert found(tmp_path, named) == named
    forced = discover(named, Config(root=str(tmp_path), force_exclude=True))
    assert forced.files == [("ok.py", "python")]
    assert sorted(forced.skipped) == ["a.gen.py", "out/gen.py", "sub/deep/x.py"]
    # a named ignored directory is walked: its contents do not match any pattern themselves
    assert found(tmp_path, ["out"]) == ["out/gen.py"]


def test_gitignore_is_read_once(tmp_path, monkeypatch):
    git_init(tmp_path)
    make(tmp_path, *(f"pkg{i}/m{j}.py" for i in range(5) for j in range(3)))
    (tmp_path / ".gitignore").write_text("m0.py\n")
    for i in range(5):
        (tmp_path / f"pkg{i}" / ".gitignore").write_text("m1.py\n")
    opened = []
    real_read = discovery.read_regular

    def counting_read(path, *args, **kwargs):
        if path.endswith(".gitignore"):
            opened.append(path)
        return real_read(path, *args, **kwargs)

    monkeypatch.setattr(discovery, "read_regular", counting_read)
    assert found(tmp_path) == [f"pkg{i}/m2.py" for i in range(5)]
    assert len(opened) == len(set(opened)) == 6


def test_a_linked_worktree_reads_info_exclude_through_its_git_file_and_commondir(tmp_path):
    """`git worktree add`: the work tree's `.git` is a file naming its git directory, whose
    `commondir` names the main repository's, which holds info/exclude."""
    main = tmp_path / "main"
    git_init(main)
    make(main, "kept.py")
    git = ["git", "-C", str(main), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    subprocess.run([*git, "worktree", "add", "-q", str(tmp_path / "linked")], check=True)
    (main / ".git" / "info" / "exclude").write_text("local_only.py\n")
    make(tmp_path / "linked", "local_only.py")
    assert (tmp_path / "linked" / ".git").is_file()
    assert found(tmp_path / "linked") == ["kept.py"]


def test_a_gitignore_of_100k_patterns_is_read(tmp_path):
    """The size limit leaves room for large legitimate ignore files (generated ones)."""
    make(tmp_path, "keep.py", "name99999.py")
    (tmp_path / ".gitignore").write_text("".join(f"name{i}.py\n" for i in range(100_000)))
    assert found(tmp_path) == ["keep.py"]


def test_an_ignore_file_over_the_limit_is_passed_over_with_a_warning(tmp_path, capsys):
    make(tmp_path, "keep.py", "big.py")
    with open(tmp_path / ".gitignore", "wb") as handle:  # sparse: nothing written to disk
        handle.write(b"big.py\n")
        handle.truncate(discovery.IGNORE_FILE_BYTES + 1)
    assert found(tmp_path) == ["big.py", "keep.py"]
    assert capsys.readouterr().err == (
        f"cursedlint: warning: {tmp_path / '.gitignore'}: is larger than "
        f"{discovery.IGNORE_FILE_BYTES:,} bytes; its patterns are not used\n")


def test_a_refused_ignore_file_is_warned_of_once_per_process(tmp_path, capsys):
    """A run may walk the project twice (the linted files, then the whole project for the
    facts rules gather): one warning."""
    make(tmp_path, "keep.py")
    os.mkfifo(tmp_path / ".gitignore")
    assert found(tmp_path) == found(tmp_path) == ["keep.py"]
    assert capsys.readouterr().err == (f"cursedlint: warning: {tmp_path / '.gitignore'}: "
                                       "is not a regular file (a FIFO); its patterns are not used\n")


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads anyway")
def test_an_unreadable_ignore_file_is_passed_over_with_a_warning(tmp_path, capsys):
    """As git: "unable to access", and the patterns are not used."""
    make(tmp_path, "keep.py")
    (tmp_path / ".gitignore").write_text("keep.py\n")
    (tmp_path / ".gitignore").chmod(0)
    assert found(tmp_path) == ["keep.py"]
    assert capsys.readouterr().err == (f"cursedlint: warning: {tmp_path / '.gitignore'}: "
                                       "Permission denied; its patterns are not used\n")


def test_gitignore_patterns_of_many_stars_match_in_linear_time_as_git_does(tmp_path):
    """Several `*` in one name (or `[!x]` between them) made the patterns' regexes backtrack
    polynomially: one such line and one long file name stalled discovery for minutes (git's
    own wildmatch too: it is asked about short names only)."""
    git_init(tmp_path)
    (tmp_path / ".gitignore").write_text(
        "*a*a*a*a*a*a*a*a*b.py\na*********b.py\n*[!x]*[!x]*[!x]*[!x]*[!x]*d.py\nsub/x[!a]y.py\n"
    )
    short = ["a" * 8 + ".py", "a" * 8 + "b.py", "a" * 7 + "b.py", "c" * 8 + ".py", "c" * 8 + "d.py",
             "ab.py", "sub/xay.py", "sub/x/y.py", "sub/xby.py"]
    make(tmp_path, *short)
    assert found(tmp_path) == sorted(set(short) - git_ignored(tmp_path, short))
    long = ["a" * 250 + ".py", "a" * 250 + "b.py", "c" * 250 + ".py", "c" * 250 + "d.py"]
    make(tmp_path, *long)
    started = time.perf_counter()
    kept = found(tmp_path)
    assert time.perf_counter() - started < 2
    assert [path for path in kept if len(path) > 200] == ["a" * 250 + ".py", "c" * 250 + ".py"]


def test_gitignore_lines_that_cannot_be_read_are_passed_over_as_git_does(tmp_path):
    git_init(tmp_path)
    make(tmp_path, "a.py", "b.gen.py", "foo.py")
    (tmp_path / ".gitignore").write_text("foo.py\\\n[z-a]x.py\n[[:alpha:]]x\n*.gen.py\n!\n")
    everything = ["a.py", "b.gen.py", "foo.py"]
    assert found(tmp_path) == sorted(set(everything) - git_ignored(tmp_path, everything))
    assert found(tmp_path) == ["a.py", "foo.py"]


def directory_mark(match) -> int | None:
    """Where a match's directory group starts (None: the regex has none)."""
    try:
        return match.start(DIRECTORY_MARK)
    except IndexError:
        return None


def test_linear_regexes_match_what_the_translated_patterns_match():
    """The rewritten regex of every pattern built from glob pieces matches the same paths as
    the pattern's translation, with its directory group at the same place (a negated class
    excepted, which no longer matches `/`, as in git)."""
    import random
    import re

    from cursedlint.project.globs import linear_regex, pattern_regex

    negated = re.compile(r"\[\^(\]?(?:\\\\|[^\]\\])*)\]")
    pieces = ["a", "b", "*", "*", "?", "/", "[ab]", "[!a]", "[!]a]", "\\*", "**", "!", "[]a]"]
    rng = random.Random(14)
    compared = 0
    for _ in range(1500):
        pattern = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))
        try:
            translated = pattern_regex(pattern)
        except ValueError:
            continue
        if translated is None:
            continue
        regex = translated[0]
        reference = re.compile(negated.sub(
            lambda match: match[0] if match[0] == "[^/]" else f"[^{match[1]}/]", regex))
        linear = re.compile(linear_regex(regex, "t"))
        for _ in range(20):
            path = "".join(rng.choice("ab/*!]") for _ in range(rng.randint(0, 12)))
            expected, got = reference.match(path), linear.match(path)
            assert (got is None) == (expected is None), (pattern, path)
            if expected is not None:
                assert directory_mark(got) == directory_mark(expected), (pattern, path)
            compared += 1
    assert compared > 10_000


def test_random_gitignores_ignore_what_git_ignores(tmp_path):
    """Patterns built from every piece of gitignore(5)'s syntax (anchors, `**`, `*`, `?`,
    classes, negation, escapes, directory-only slashes), eight to a `.gitignore`, against a
    tree of files and directories: what discovery keeps is what `git check-ignore` keeps.
    (Pieces git reads its own way were found so: `*/` and `**/` ignore every directory, `a/**`
    does not ignore `a` itself, `***` is `**`, and stars glued to a pattern's literal start,
    `/build**`, match across `/`.)"""
    import random

    git_init(tmp_path)
    everything = ["a.py", "b.py", "ab.py", "x y.py",
                  *(f"{d}/{n}" for d in ("a", "b", "ab") for n in ("a.py", "b.py", "ab.py")),
                  *(f"{d}/{e}/{n}" for d in ("a", "b") for e in ("a", "b") for n in ("a.py", "b.py"))]
    make(tmp_path, *everything)
    pieces = ["a", "b", "*", "?", "**", "***", "/", "[ab]", "[!a]", ".py", "\\*", "\\ "]
    rng = random.Random(16)
    some_ignored = 0
    for _ in range(60):
        lines = []
        for _ in range(8):
            line = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 5)))
            lines.append(("!" if rng.random() < 0.25 else "") + line)
        (tmp_path / ".gitignore").write_text("\n".join(lines) + "\n")
        ignored = git_ignored(tmp_path, everything)
        assert found(tmp_path) == sorted(set(everything) - ignored), lines
        some_ignored += 0 < len(ignored) < len(everything)
    assert some_ignored > 20  # (most trials ignore some files and keep others)


def test_the_prefilter_passes_over_only_paths_no_pattern_matches():
    """`Patterns.decide` tries the patterns that name an entry at any depth on a path's last
    part alone, the others on the whole path, before trying each in turn: on deep paths too
    (a name pattern matching a parent, `build/` above `src/x.py`, decides nothing for the
    entry itself), it answers as trying each pattern in turn does."""
    import random

    pieces = ["a", "b", "build", "*", "?", "**", "/", "[ab]", "[!a]", ".py", "\\*", "~", "-x"]
    parts = ["a", "b", "ab", "build", "x.py", "a.py", "b~", "ab-x", ".py", "buildx"]
    rng = random.Random(31)
    split = 0
    for _ in range(300):
        lines = [("!" if rng.random() < 0.25 else "")
                 + "".join(rng.choice(pieces) for _ in range(rng.randint(1, 4)))
                 + ("/" if rng.random() < 0.2 else "") for _ in range(rng.randint(2, 8))]
        patterns = Patterns(lines)
        if patterns.prefilter is None:
            continue
        split += all(patterns.prefilter)
        each = Patterns(lines)
        each.prefilter = None  # (every pattern tried in turn)
        for _ in range(40):
            path = "/".join(rng.choice(parts) for _ in range(rng.randint(1, 5)))
            path += "/" if rng.random() < 0.4 else ""
            assert patterns.decide(path) == each.decide(path), (lines, path)
    assert split > 100  # (most sets hold patterns of both kinds)


# -- symlinks ------------------------------------------------------------------------------


def test_symlink_loops_are_not_followed_and_linked_files_are_linted(tmp_path):
    make(tmp_path, "pkg/a.py", "pkg/sub/b.py", "real/c.py")
    os.symlink(tmp_path / "pkg", tmp_path / "pkg" / "sub" / "loop")
    os.symlink("..", tmp_path / "pkg" / "up")
    os.symlink(tmp_path / "real", tmp_path / "pkg" / "linked_dir.py")  # a directory, despite its name
    os.symlink(tmp_path / "real" / "c.py", tmp_path / "pkg" / "link.py")
    os.symlink(tmp_path / "nowhere.py", tmp_path / "pkg" / "broken.py")
    os.symlink("self.py", tmp_path / "pkg" / "self.py")  # a link to itself
    assert discover(["pkg"], Config(root=str(tmp_path))).files == [
        ("pkg/a.py", "python"), ("pkg/broken.py", "python"), ("pkg/link.py", "python"),
        ("pkg/self.py", "python"), ("pkg/sub/b.py", "python"),
    ]


def test_named_broken_symlink_is_a_file_not_a_missing_path(tmp_path):
    os.symlink(tmp_path / "gone.py", tmp_path / "dangling.py")
    result = discover(["dangling.py"], Config(root=str(tmp_path)))
    assert result.files == [("dangling.py", "python")] and result.missing == []


def test_named_symlinked_directory_is_walked(tmp_path):
    make(tmp_path, "real/a.py")
    os.symlink(tmp_path / "real", tmp_path / "alias")
    assert found(tmp_path, ["alias"]) == ["alias/a.py"]


def test_unreadable_directory_is_reported_and_the_walk_goes_on(tmp_path, monkeypatch):
    make(tmp_path, "a.py", "locked/b.py", "open/c.py")
    real_scandir = os.scandir

    def scandir(path):
        if os.path.basename(path) == "locked":
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    result = discover(["."], Config(root=str(tmp_path)))
    assert result.files == [("a.py", "python"), ("open/c.py", "python")]
    assert result.errors == [("locked", "Permission denied")]


# -- patterns --------------------------------------------------------------------------------


def test_patterns_match_the_entry_itself_not_its_parents():
    patterns = Patterns(["build", "dir/*", "only_dirs/", "!keep.py", "*.py", "!keep.py", "a/**/b", "x/**"])
    assert patterns.decide("build") is True
    assert patterns.decide("src/build/") is True
    assert patterns.decide("build/x.txt") is None  # only its parent matches
    assert patterns.decide("dir/sub/") is True
    assert patterns.decide("dir/sub/file.txt") is None
    assert patterns.decide("only_dirs") is None
    assert patterns.decide("pkg/only_dirs/") is True
    assert patterns.decide("pkg/keep.py") is False
    assert patterns.decide("pkg/other.py") is True
    assert patterns.decide("a/b") is True and patterns.decide("a/q/r/b/") is True
    assert patterns.decide("a/b/c.txt") is None
    assert patterns.decide("x/anything/below.txt") is True
    assert patterns.decide("elsewhere.txt") is None
    assert not Patterns(["# only a comment", ""])


# -- speed ---------------------------------------------------------------------------------


def test_walking_two_thousand_files_is_fast(tmp_path):
    git_init(tmp_path)
    (tmp_path / ".gitignore").write_text("*.gen.py\n/out/\n*.o\n__generated__/\n")
    for package in range(40):
        base = tmp_path / f"pkg{package}"
        for module in range(10):
            sub = base / f"sub{module}"
            sub.mkdir(parents=True)
            for name in ("a.py", "b.py", "c.cpp", "d.h", "e.gen.py", "README.md"):
                (sub / name).write_text("")
        (base / ".gitignore").write_text("*.h\n")
        (base / "node_modules").mkdir()
        (base / "node_modules" / "dep.py").write_text("")
    config = Config(root=str(tmp_path))
    best = float("inf")
    for _ in range(3):
        started = time.process_time()  # CPU time: a loaded machine's waits are not the code's
        result = discover(["."], config)
        best = min(best, time.process_time() - started)
    assert len(result.files) == 40 * 10 * 3
    assert best < 0.1, f"discovery took {best:.3f} s"


def test_project_root_is_the_config_or_git_root_or_the_paths_common_directory(tmp_path):
    (tmp_path / "repo" / "src" / "kernels").mkdir(parents=True)
    (tmp_path / "loose" / "a").mkdir(parents=True)
    (tmp_path / "loose" / "b").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    config = Config(root=str(tmp_path))
    assert project_root([str(tmp_path / "repo" / "src" / "kernels")], config) == str(tmp_path / "repo")
    loose = [str(tmp_path / "loose" / "a"), str(tmp_path / "loose" / "b")]
    assert project_root(loose, config) == str(tmp_path / "loose")
    configured = Config(path=str(tmp_path / "cursedlint.toml"), root=str(tmp_path))
    assert project_root(loose, configured) == str(tmp_path)


@pytest.mark.parametrize("top, text", [
    ("configure.ac", "AC_INIT([fabric], [1.0])\n"),
    ("CMakeLists.txt", "cmake_minimum_required(VERSION 3.18)\nproject(fabric C)\n"),
    ("meson.build", "project('fabric', 'c')\n"),
])
def test_an_unpacked_release_s_project_starts_at_its_build_s_top(tmp_path, top, text):
    """A tree without version control (a release tarball, a checkout without `.git`): the
    top of its build is the project's root, not the directory of the file named, so a named
    file reaches the headers beside its directory (`include/`); it is not walked (what the
    file reaches and the files beside it are read, not its nearest up to the bound)."""
    (tmp_path / "rel" / "src" / "core").mkdir(parents=True)
    (tmp_path / "rel" / "include").mkdir()
    (tmp_path / "rel" / top).write_text(text)
    (tmp_path / "rel" / "src" / "CMakeLists.txt").write_text("add_library(core core/a.c)\n")
    (tmp_path / "rel" / "src" / "meson.build").write_text("core = library('core', 'core/a.c')\n")
    config = Config(root=str(tmp_path))
    named = [str(tmp_path / "rel" / "src" / "core" / "a.c"), str(tmp_path / "rel" / "src" / "b.c")]
    assert project_root(named, config) == str(tmp_path / "rel")
    assert not is_project(str(tmp_path / "rel"), config)
    assert project_root([str(tmp_path / "rel" / "src" / "core")], config) == str(tmp_path / "rel")
    assert project_root([str(tmp_path / "rel")], config) == str(tmp_path / "rel")
    (tmp_path / "rel" / "src" / "core" / "configure.ac").write_text("")  # a nested build's top
    assert project_root(named[:1], config) == str(tmp_path / "rel" / "src" / "core")
    assert project_root(named, config) == str(tmp_path / "rel")  # (the nearest holding both)


def test_a_directory_with_a_build_subdirectory_only_stays_the_paths_common_one(tmp_path):
    """Look-alike: a home directory holding a checkout's pieces but no build top above the
    named files: the named files' own directory, never walked."""
    (tmp_path / "notes" / "scratch").mkdir(parents=True)
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "configure.ac").write_text("AC_INIT([p], [1])\n")
    (tmp_path / "notes" / "CMakeLists.txt").write_text("add_executable(t t.c)\n")
    config = Config(root=str(tmp_path))
    named = [str(tmp_path / "notes" / "scratch" / "t.c")]
    assert project_root(named, config) == str(tmp_path / "notes" / "scratch")


def test_plain_name_patterns_decide_as_their_translation_would():
    """Bare names (the default excludes) are not translated to regexes; their answers are
    the translated patterns'."""
    from cursedlint.project.discovery import Patterns
    from cursedlint.project.globs import glob_rules

    names = [".git", "__pycache__", "node_modules", "build", "venv", "a.b-c+d"]
    fast = Patterns(["# comment", "", *names, "build  "])
    assert fast.names and not fast.rules
    slow = Patterns.__new__(Patterns)
    slow.names = frozenset()
    slow.rules = glob_rules(names)
    slow.prefilter = None
    for path in ("build", "build/", "src/build/", "src/build/x.py", "x/.git/", ".git",
                 "venv/lib/", "venvs/", "a.b-c+d", "x/node_modules/y/", "builder.py",
                 "__pycache__/m.pyc", "src/__pycache__/"):
        assert fast.decide(path) == slow.decide(path), path


@pytest.mark.parametrize("name", [
    "train.py", "TRAIN.PY", "stub.pyi", ".py", "..py", "a..py", "x.", ".bashrc", "run.sh",
    "Dockerfile", "dockerfile.gpu", "Containerfile", "x.dockerfile", "Dockerfile.", ".Dockerfile",
    "kernel.cu", "kernel.CUH", "notes", "archive.tar.gz", "config.yml", "a.b.c.hpp", "...",
])
def test_a_names_language_is_its_paths(name):
    """A walk asks `language_of_name` of each entry: it answers as `os.path` splitting does."""
    from cursedlint.languages import DOCKERFILE, DOCKERFILE_NAMES, EXTENSIONS, language_of_name

    stem, extension = os.path.splitext(name)
    expected = DOCKERFILE if name.lower() in DOCKERFILE_NAMES or stem.lower() in \
        DOCKERFILE_NAMES else EXTENSIONS.get(extension.lower())
    assert language_of_name(name) == expected == language_of(os.path.join("src", name))


def test_a_project_walk_excludes_a_file_exactly_when_discover_passes_over_it(tmp_path):
    """`ProjectWalk.excluded` (one decision per directory, then the file's name) agrees with a
    walk of the whole project, nested ignore files, negations and excludes included."""
    from cursedlint.config import Resolver
    from cursedlint.project.discovery import ProjectWalk
    from cursedlint.registry import all_rules

    files = {
        ".gitignore": "build/\n*.gen.py\n!keep.gen.py\n/top_only.py\n",
        "cursedlint.toml": "extend-exclude = ['vendor', 'docs/*.py']\n",
        "a.py": "", "top_only.py": "", "x.gen.py": "", "keep.gen.py": "",
        "build/b.py": "", "vendor/v.py": "", "docs/d.py": "", "docs/sub/d2.py": "",
        "pkg/.gitignore": "secret.py\n!pkg_keep.gen.py\n",
        "pkg/secret.py": "", "pkg/ok.py": "", "pkg/top_only.py": "", "pkg/pkg_keep.gen.py": "",
        "pkg/deep/more.gen.py": "", "pkg/deep/c.c": "",
    }
    (tmp_path / ".git").mkdir()
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    resolver = Resolver(all_rules())
    walked = {os.path.abspath(path) for path, _ in discover([str(tmp_path)], resolver).files}
    walk = ProjectWalk(resolver)
    candidates = [str(tmp_path / name) for name in files if name.endswith((".py", ".c"))]
    assert {path for path in candidates if not walk.excluded(path)} == walked
    assert str(tmp_path / "pkg" / "top_only.py") in walked and \
        str(tmp_path / "top_only.py") not in walked


def test_rules_are_compiled_when_first_tried_and_answer_as_compiled_ones():
    """A `.gitignore`'s rules are compiled when the prefilter first lets a path be tried on
    them (a run naming one file decides a few paths): a path no rule can match compiles none,
    and every answer is the answer of the rules compiled at once (`glob_rules`)."""
    from cursedlint.project.discovery import Patterns
    from cursedlint.project.globs import glob_rules

    lines = ["*.o", "*.so", "build/", "/config.h", "!keep.o", "docs/**/*.html", "libtool",
             "prov/*/Makefile.in", "**/tmp", "a*b*c"]
    lazy = Patterns(lines)
    assert lazy.prefilter is not None
    assert lazy.decide("src/main.c") is None
    assert all(regex._compiled is None for regex, _ in lazy.rules)
    eager = Patterns.__new__(Patterns)
    eager.names, eager.rules, eager.prefilter = frozenset(), glob_rules(lines), None
    for path in ("src/main.c", "x.o", "keep.o", "a/keep.o", "build/", "src/build/x.c",
                 "config.h", "src/config.h", "docs/a/b/i.html", "docs/i.html", "libtool",
                 "prov/efa/Makefile.in", "prov/efa/src/Makefile.in", "x/tmp/", "x/tmp",
                 "aXbYc", "aXbY", "lib/x.so"):
        assert lazy.decide(path) == eager.decide(path), path
    fresh = Patterns(lines)
    assert fresh.decide("x/tmp") is True  # (the last rules are tried first, up to a match)
    assert [regex._compiled is None for regex, _ in fresh.rules] == [True] * 8 + [False] * 2
