"""CUR103 in shell scripts, Dockerfiles and YAML: each assignment of a fork-protection
variable in an environment (shell words, `ENV` instructions, `env:`/`environment:` blocks)."""

from __future__ import annotations

import re
from typing import Iterator

from cursedlint.analysis.fork_protection import FORK_SETTINGS
from cursedlint.findings import Span
from cursedlint.languages import DOCKERFILE, SHELL, YAML
from cursedlint.rule import LazyPattern
from cursedlint.rules.process_spawning.fork_safe_mode_enabled import (
    ForkSafeModeEnabled, setting_message,
)

# Text kinds: each scanner yields (line, start, end, variable) with 0-based columns of the
# `NAME=value` word (the `NAME: value` entry in YAML mappings, the name of Kubernetes entries).
_KEY = rf"(?P<key>{'|'.join(FORK_SETTINGS)})"
_QUOTED = r""""(?:[^"\\]|\\.)*"|'[^']*'"""
_WORD = rf"""(?:{_QUOTED}|\\.|[^\s"'\\;&|<>()`])*"""  # a shell word, up to an operator
_SHELL_QUOTED = LazyPattern(_QUOTED)
_SHELL_QUOTE = LazyPattern("[\"']")
_SHELL_COMMENT = LazyPattern(r"(?:^|(?<=\s))#.*")
_SHELL_SETTING = LazyPattern(
    # where a command starts, or an option passing NAME=value to a child's environment
    # (`mpirun -x`, `docker run --env`, `apptainer exec --env`)
    r"(?:^|[;&|(){}!`]|\b(?:then|do|else|elif|if|while|until|time)(?=\s)|\s(?:-x\s|--env[\s=]))"
    r"\s*"
    r"(?:(?:export|declare|typeset|readonly|local)(?:\s+[-+]\w+)*\s+"
    r"|env(?:\s+(?:-u\s+\S+|-\S+))*\s+)?"
    rf"(?:[A-Za-z_]\w*={_WORD}\s+)*"  # assignments before ours
    rf"(?P<word>{_KEY}={_WORD})"
)


def _blanked(line: str) -> str:
    """The line with the content of each quoted string replaced by as many underscores. Once a
    quote finds no closing one, no later quote of its kind can (the escapes read the same from
    it): those are not read to the line's end again (a line of `\\"` took time quadratic in
    its length)."""
    parts, done, unclosed = [], 0, set()
    for quote in _SHELL_QUOTE.finditer(line):
        start = quote.start()
        if start < done or quote[0] in unclosed:
            continue
        found = _SHELL_QUOTED.match(line, start)
        if found is None:
            unclosed.add(quote[0])
            continue
        parts += (line[done : start + 1], "_" * (found.end() - start - 2), quote[0])
        done = found.end()
    return "".join(parts) + line[done:]


def _shell_settings(lines: list[str]) -> Iterator[tuple[int, int, int, str]]:
    """Assignments where a command starts: `NAME=v cmd`, `export`/`declare -x`/`env NAME=v`.
    Quoted text is blanked first (same length), so strings and `#` inside them are inert."""
    for number, line in enumerate(lines, start=1):
        code = _blanked(line)
        comment = _SHELL_COMMENT.search(code)
        code = code[: comment.start()] if comment else code
        for match in _SHELL_SETTING.finditer(code):
            yield number, match.start("word"), match.end("word"), match.group("key")


_DOCKER_ENV = LazyPattern(r"\s*ENV(?:\s+|$)", re.IGNORECASE)
# the legacy form `ENV NAME value`: a first word without "=" (the rest is NAME's value)
_DOCKER_LEGACY = LazyPattern(r"(?P<word>(?P<key>[^\s=\\]+)(?=\s|$)(?:[ \t]+[^\s\\]+)?)")
_DOCKER_PAIR = LazyPattern(rf"(?<!\S)(?P<word>{_KEY}={_WORD})")


def _dockerfile_settings(lines: list[str]) -> Iterator[tuple[int, int, int, str]]:
    """`ENV NAME=value ...` pairs, on continuation lines too, and the legacy `ENV NAME value`.
    Comment and blank lines inside a continued instruction are skipped, as Docker does."""
    env = continued = False
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        start = 0
        if not continued:
            instruction = _DOCKER_ENV.match(line)
            env, start = bool(instruction), instruction.end() if instruction else 0
            legacy = env and _DOCKER_LEGACY.match(line, start)
            if legacy:
                env = False
                if legacy.group("key") in FORK_SETTINGS:
                    yield number, legacy.start("word"), legacy.end("word"), legacy.group("key")
        if env:
            for pair in _DOCKER_PAIR.finditer(line, start):
                yield number, pair.start("word"), pair.end("word"), pair.group("key")
        continued = stripped.endswith("\\")


_YAML_ENV_KEYS = frozenset({"env", "environment", "variables"})
_YAML_TAIL = r"\s*(?:#.*)?$"
_YAML_ENTRIES = (  # (pattern, is a sequence entry)
    # a mapping entry `NAME: value` (GitHub Actions and Compose env, GitLab CI variables)
    (LazyPattern(rf"""(?P<indent>\s*)(?P<word>(?P<q>["']?){_KEY}(?P=q)\s*:\s+"""
                rf"""(?:"[^"]*"|'[^']*'|[^\s#"'](?:[^#]*[^\s#])?)){_YAML_TAIL}"""), False),
    # a Compose list entry `- NAME=value`
    (LazyPattern(rf"""(?P<indent>\s*)(?P<dash>-\s+)(?P<word>(?P<q>["']?){_KEY}=[^\s#"']*(?P=q))"""
                rf"{_YAML_TAIL}"), True),
    # a Kubernetes entry `- name: NAME` (with value/valueFrom, or none: the empty string)
    (LazyPattern(rf"""(?P<indent>\s*)(?P<dash>-\s+)?name\s*:\s+(?P<q>["']?)(?P<word>{_KEY})(?P=q)"""
                rf"{_YAML_TAIL}"), True),
)
_YAML_BLOCK_KEY = LazyPattern(r"""\s*(?:-\s+)?["']?(?P<key>[\w.-]+)["']?\s*:""" + _YAML_TAIL)
_YAML_ITEM = LazyPattern(r"\s*-\s+")


def _yaml_owner(lines: list[str], index: int, column: int, sequence: bool) -> int | None:
    """The line holding the block that line `index` (content at `column`) belongs to: the first
    line above indented less or, for a sequence entry, as much but not an entry itself (YAML's
    indentless sequences, as in `env:` then `- name: X` at the same indentation)."""
    for above in range(index - 1, -1, -1):
        text = lines[above]
        content = text.lstrip()
        if not content or content.startswith("#"):
            continue
        indent = len(text) - len(content)
        if indent < column or (sequence and indent == column and not content.startswith("-")):
            return above
    return None


def _yaml_in_environment(lines: list[str], index: int, match: re.Match, sequence: bool) -> bool:
    """Whether the entry matched on line `index` belongs to an `env`, `environment` or
    `variables` block. A sequence entry's `name:` below the item's first line is looked up
    from the item's `- ` line."""
    column = len(match.group("indent"))
    if sequence and not match.group("dash"):
        index = _yaml_owner(lines, index, column, False)
        item = _YAML_ITEM.match(lines[index]) if index is not None else None
        if item is None or item.end() != column:
            return False
        column = len(lines[index]) - len(lines[index].lstrip())
    owner = _yaml_owner(lines, index, column, sequence)
    key = _YAML_BLOCK_KEY.match(lines[owner]) if owner is not None else None
    return key is not None and key.group("key") in _YAML_ENV_KEYS


def _yaml_settings(lines: list[str]) -> Iterator[tuple[int, int, int, str]]:
    """Entries of `env:`, `environment:` and `variables:` blocks that set a variable."""
    for index, line in enumerate(lines):
        for pattern, sequence in _YAML_ENTRIES:
            match = pattern.match(line)
            if match and _yaml_in_environment(lines, index, match, sequence):
                yield index + 1, match.start("word"), match.end("word"), match.group("key")


_TEXT_SCANNERS = {SHELL: _shell_settings, DOCKERFILE: _dockerfile_settings, YAML: _yaml_settings}


class ForkSafeModeEnabledText(ForkSafeModeEnabled):
    """CUR103 in shell scripts, Dockerfiles and YAML: the variables set in an environment."""

    def check(self) -> None:
        scan = _TEXT_SCANNERS[self.context.source.language]
        for line, start, end, variable in scan(self.context.source.lines):
            message, help = setting_message(variable)
            self.report(Span(line, start + 1, line, end + 1), message, help=help)
