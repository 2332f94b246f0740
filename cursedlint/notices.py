"""The linter's notices about itself (CUR0xx). The engine reports them; no walk does."""

from __future__ import annotations

from cursedlint.findings import Severity
from cursedlint.languages import C, CPP, LANGUAGES
from cursedlint.rule import Notice


class InternalError(Notice):
    """## What it does
    Reports that a rule raised an exception on a file. The other rules and files still run;
    the exit code is 2. `--show-traceback` prints the stack. Under flake8, it also reports, on
    line 1 of each file it governs, a configuration the plugin cannot use (where the command
    line stops with exit 2 and the error): the file is checked with the defaults instead.

    ## Why it is cursed
    A rule that crashes says nothing about the code it was checking: the file may hold the very
    bug the rule exists for. Silence would look like a clean result.

    ## Example
    `src/trainer.py:1:1: CUR000 internal error in rule CUR101 (subprocess-fork-path): ...`

    ## Fix
    Report it with the file (or a reduced copy) and the traceback. Meanwhile the finding can be
    suppressed for that file with `per-file-ignores`.

    ## References
    - `cursedlint check --show-traceback`
    """

    code = "CUR000"
    name = "internal-error"
    languages = LANGUAGES
    summary = "a rule raised an exception on this file"


class SyntaxErrorNotice(Notice):
    """## What it does
    Reports a Python file that does not parse, at the parser's error location with its message,
    including input nested too deeply for the parser; likewise a Cython file whose Python
    reading (`python.cython`: C declarations and casts blanked, lines and columns kept) does
    not parse (Python 2 syntax, C++ operators it does not read). Only files that contain some
    rule's trigger words are parsed, so a file that cannot hold a finding is not reported.

    ## Why it is cursed
    No rule can check a file that does not parse; the rest of the run goes on.

    ## Example
    ```python
    def launch(cmd:
    ```

    ## Fix
    Fix the syntax, or set `target-python` if the file uses syntax of a newer Python than the
    interpreter running cursedlint.

    ## References
    - https://docs.python.org/3/library/ast.html#ast.parse
    """

    code = "CUR001"
    name = "syntax-error"
    languages = ("python", "cython")
    summary = "the Python or Cython file does not parse"


class UnreadableFile(Notice):
    """## What it does
    Reports a file that cannot be read (permissions, a broken symlink) or decoded (bytes that
    are invalid in the encoding PEP 263 declares for a Python file).

    ## Why it is cursed
    An unread file is an unchecked file.

    ## Example
    `legacy/launch.py:3:17: CUR002 cannot decode file as utf-8: invalid byte 0xe9 at line 3, byte 17`

    ## Fix
    Save the file as UTF-8 or declare its encoding (`# -*- coding: latin-1 -*-`); fix the link
    or the permissions.

    ## References
    - https://peps.python.org/pep-0263/
    """

    code = "CUR002"
    name = "unreadable-file"
    languages = LANGUAGES
    summary = "the file cannot be read or decoded"


class UnusedSuppression(Notice):
    """## What it does
    With `--warn-unused-suppressions`, reports a `# noqa: CURnnn` or `// NOLINT(CURnnn)` comment
    whose cursedlint codes all are enabled but that suppresses nothing, and one that names a
    code no cursedlint rule has (`# noqa: CUR013`, a typo: it suppresses nothing, and the
    finding it was meant for shows), and an invalid `# noqa:` whose colon is followed by no
    code list (`# noqa: subprocess-fork-path`: it suppresses nothing, as in ruff). Bare
    `# noqa` and `// NOLINT` are left alone: they may be meant for other tools.

    ## Why it is cursed
    A stale suppression hides the next real finding on that line.

    ## Example
    ```python
    subprocess.run(["/bin/true"], close_fds=False)  # noqa: CUR101
    ```

    ## Fix
    Remove the suppression, or the code that no longer applies.

    ## References
    - https://docs.astral.sh/ruff/rules/unused-noqa/
    """

    code = "CUR003"
    name = "unused-suppression"
    languages = LANGUAGES
    summary = "a suppression comment suppresses nothing"
    severity = Severity.WARNING


class TooLargeFile(Notice):
    """## What it does
    Reports a file that holds a rule's trigger words but is larger than `max-file-size`
    (default 2 MiB): it is searched for the words, but not parsed or checked. Likewise a
    C/C++ file whose parse ran past its budget (a second of CPU and two per MB): some text
    no compiler accepts (many `/*` with no `*/` after them, `#include <` repeated on one
    line) makes tree-sitter's time grow with the square of the file.

    ## Why it is cursed
    Parsing costs memory: a Python syntax tree takes about 100 to 250 times the size of the
    source, so one generated or minified file of tens of megabytes would take gigabytes, in
    every pre-commit run and CI job; a 2 MiB file of the text above would take tree-sitter
    about twenty minutes. An unchecked file is reported rather than passed over.

    ## Example
    `gen/tables.py:1:1: CUR004 not checked: 12.6 MB is more than max-file-size (2 MiB)`

    ## Fix
    Exclude the generated file (`extend-exclude`), or raise `max-file-size` in the
    configuration to check it; fix a file the parser stopped on.

    ## References
    - https://semgrep.dev/docs/cli-reference (`--max-target-bytes`, 1 MB by default)
    """

    code = "CUR004"
    name = "file-too-large"
    languages = LANGUAGES
    summary = "the file is larger than max-file-size, or its parse ran past its budget: not checked"
    severity = Severity.WARNING


class UnmatchedSuppressionBlock(Notice):
    """## What it does
    Reports a `NOLINTBEGIN` that no `NOLINTEND` closes, and a `NOLINTEND` that no
    `NOLINTBEGIN` opened, as clang-tidy does, when the comment names every check or a
    cursedlint code or rule (`NOLINTBEGIN(CUR3*)`): in a C/C++ file with findings (those the
    block was meant to hide), and in every file with `--warn-unused-suppressions`.

    ## Why it is cursed
    An unmatched block suppresses nothing: the findings it was written to hide show, and the
    next edit that adds its other half may hide more than meant.

    ## Example
    ```c
    // NOLINTBEGIN(CUR301)
    ibv_reg_mr(pd, &flag, sizeof(flag), IBV_ACCESS_LOCAL_WRITE);
    ```

    ## Fix
    Close the block with `NOLINTEND(CUR301)` after the lines it should cover, or remove it.

    ## References
    - https://clang.llvm.org/extra/clang-tidy/#suppressing-undesired-diagnostics
    """

    code = "CUR005"
    name = "unmatched-suppression-block"
    languages = (C, CPP)
    summary = "a NOLINTBEGIN or NOLINTEND comment without its other half"
    severity = Severity.WARNING


OPT_IN = frozenset({UnusedSuppression.code})
"""Codes enabled only on request (by their CLI flag or an explicit select)."""
