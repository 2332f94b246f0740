"""Configuration: finding the file, every validation error, selection, and the built Settings."""

from __future__ import annotations

import os
import pickle
import sys
import textwrap
import time

import pytest

from cursedlint import config as config_module
from cursedlint.config import (
    DEFAULT_EXCLUDE,
    Config,
    ConfigError,
    build_settings,
    check_option,
    compile_database_path,
    config_from_mapping,
    configure,
    expand,
    find_config,
    load_config,
    resolve_codes,
    with_force_exclude,
)
from cursedlint.rule import Option, Rule
from cursedlint.settings import DEFAULT_PAGE_SIZE


class Spawn(Rule):
    code = "CUR101"
    name = "spawn"


class SpawnAgain(Rule):
    code = "CUR102"
    name = "spawn-again"


class Callback(Rule):
    code = "CUR201"
    name = "callback"


class Registration(Rule):
    code = "CUR301"
    name = "registration"
    options = {
        "libc": Option(str, "glibc", "C library", choices=("glibc", "musl")),
        "max-pages": Option(int, 1, "pages"),
        "ratio": Option(float, 0.5, "a ratio"),
        "strict": Option(bool, False, "strictness"),
        "allocators": Option(tuple, ("malloc",), "allocators", choices=("malloc", "mmap", "posix_memalign"), item=str),
        "threshold": Option((int, str), 4, "number or 'auto'"),
    }


class Deregistration(Rule):
    code = "CUR302"
    name = "deregistration"


class Pinned(Rule):
    code = "CUR310"
    name = "pinned"


class Unused(Rule):
    code = "CUR003"
    name = "unused-suppression"


RULES = {rule.code: rule for rule in (Unused, Spawn, SpawnAgain, Callback, Registration, Deregistration, Pinned)}
KNOWN = tuple(RULES)
EVERY = frozenset(KNOWN)


def write(path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return str(path)


def error_of(tmp_path, text: str, name: str = "pyproject.toml") -> ConfigError:
    path = write(tmp_path / name, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path, RULES)
    assert caught.value.path == path
    assert str(caught.value).startswith(f"{path}: ")
    return caught.value


# -- finding the file ---------------------------------------------------------------------


def test_find_config_walks_up_from_nested_directories(tmp_path):
    config = write(tmp_path / "pyproject.toml", "[tool.cursedlint]\nselect = ['CUR3']\n")
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    assert find_config(str(deep)) == config
    assert find_config(str(deep / "x.py")) == config  # a file, existing or not, starts at its dir
    assert find_config(str(tmp_path)) == config


def test_find_config_nearest_wins(tmp_path):
    write(tmp_path / "cursedlint.toml", "select = ['CUR1']\n")
    inner = write(tmp_path / "sub" / "pyproject.toml", "[tool.cursedlint]\nselect = ['CUR3']\n")
    assert find_config(str(tmp_path / "sub" / "deeper")) == inner
    assert find_config(str(tmp_path / "other")) == str(tmp_path / "cursedlint.toml")


def test_cursedlint_toml_wins_over_pyproject_in_the_same_directory(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.cursedlint]\nselect = ['CUR3']\n")
    own = write(tmp_path / "cursedlint.toml", "select = ['CUR1']\n")
    assert find_config(str(tmp_path)) == own
    assert load_config(own, RULES).select == ("CUR1",)


def test_pyproject_without_the_table_is_skipped(tmp_path):
    outer = write(tmp_path / "pyproject.toml", "[tool.cursedlint]\nignore = ['CUR2']\n")
    write(tmp_path / "pkg" / "pyproject.toml", "[project]\nname = 'pkg'\n")
    # mentions cursedlint, so it is parsed, but has no [tool.cursedlint] table either
    write(tmp_path / "pkg" / "sub" / "pyproject.toml", "[project]\ndependencies = ['cursedlint']\n[tool.ruff]\n")
    assert find_config(str(tmp_path / "pkg" / "sub")) == outer


def test_pyproject_that_is_not_ours_may_be_invalid_toml(tmp_path):
    outer = write(tmp_path / "cursedlint.toml", "")
    write(tmp_path / "pkg" / "pyproject.toml", "[project\nname = \n")
    assert find_config(str(tmp_path / "pkg")) == outer


def test_invalid_pyproject_mentioning_us_is_an_error_while_finding(tmp_path):
    path = write(tmp_path / "pyproject.toml", "[tool.cursedlint]\nselect = [\n")
    with pytest.raises(ConfigError) as caught:
        find_config(str(tmp_path))
    assert caught.value.path == path
    assert "invalid TOML" in str(caught.value) and "line" in str(caught.value)


@pytest.mark.parametrize("text", ["", "\n", "  \n\t\n\n"])
def test_an_empty_configuration_file_is_the_defaults_read_without_the_toml_parser(tmp_path, text):
    """A blank cursedlint.toml (a project's mark) is an empty table, as TOML reads it (without
    the parser: `test_startup`); a file of other blank characters is still TOML's to judge (a
    form feed is no TOML whitespace)."""
    import tomllib

    path = write(tmp_path / "cursedlint.toml", text)
    assert config_module._parse_toml(path, text.encode()) == tomllib.loads(text) == {}
    assert load_config(path, {}).select == load_config(None, {}).select
    with pytest.raises(ConfigError, match="invalid TOML"):
        config_module._parse_toml(path, b"\x0c\n")


def test_no_config_anywhere_gives_defaults_rooted_at_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = load_config(None, RULES)
    assert config == Config(root=str(tmp_path))
    assert config.exclude == DEFAULT_EXCLUDE and config.respect_gitignore and not config.force_exclude
    assert config.page_size == DEFAULT_PAGE_SIZE and config.target_python is None


def test_configure_prefers_an_explicit_file(tmp_path):
    found = write(tmp_path / "cursedlint.toml", "select = ['CUR1']\n")
    explicit = write(tmp_path / "ci" / "lint.toml", "select = ['CUR2']\n")
    assert configure([str(tmp_path / "x.py")], RULES).path == found
    assert configure([str(tmp_path / "x.py")], RULES, explicit).select == ("CUR2",)


# -- reading ------------------------------------------------------------------------------


def test_pyproject_table_every_key(tmp_path):
    path = write(
        tmp_path / "proj" / "pyproject.toml",
        """
        [project]
        name = "x"

        [tool.cursedlint]
        select = ["CUR1", "CUR301"]
        extend-select = ["CUR003"]
        ignore = ["CUR102"]
        exclude = ["third_party"]
        extend-exclude = ["generated/"]
        force-exclude = true
        respect-gitignore = false
        target-python = "3.12"
        page-size = 65536

        [tool.cursedlint.per-file-ignores]
        "tests/*.py" = ["CUR1"]

        [tool.cursedlint.rules.CUR301]
        libc = "musl"
        max-pages = 3
        """,
    )
    config = load_config(path, RULES)
    assert config.path == path
    assert config.root == str(tmp_path / "proj")
    assert config.select == ("CUR1", "CUR301")
    assert config.extend_select == ("CUR003",)
    assert config.ignore == ("CUR102",)
    assert config.exclude == ("third_party",)
    assert config.extend_exclude == ("generated/",)
    assert config.all_excludes == ("third_party", "generated/")
    assert config.force_exclude is True
    assert config.respect_gitignore is False
    assert config.target_python == (3, 12)
    assert config.page_size == 65536
    assert config.per_file_ignores == (("tests/*.py", ("CUR1",)),)
    assert config.rules == {"CUR301": {"libc": "musl", "max-pages": 3}}


def test_cursedlint_toml_and_other_explicit_files_use_the_top_level(tmp_path):
    own = write(tmp_path / "cursedlint.toml", "extend-exclude = ['vendor']\n")
    other = write(tmp_path / "configs" / "strict.toml", "select = ['ALL']\n")
    assert load_config(own, RULES).extend_exclude == ("vendor",)
    config = load_config(other, RULES)
    assert config.select == ("ALL",)
    assert config.root == str(tmp_path / "configs")


def test_explicit_pyproject_without_the_table_is_an_error(tmp_path):
    error = error_of(tmp_path, "[project]\nname = 'x'\n")
    assert "[tool.cursedlint]" in error.problem


def test_tool_cursedlint_must_be_a_table(tmp_path):
    error = error_of(tmp_path, "[tool]\ncursedlint = 3\n")
    assert error.key == "tool.cursedlint"
    assert "expected a table" in error.problem


def test_invalid_toml_names_line_and_column(tmp_path):
    error = error_of(tmp_path, "[tool.cursedlint]\nselect = ['CUR1'\nignore = []\n")
    assert "invalid TOML" in error.problem
    assert "line 3" in error.problem and "column" in error.problem


def test_unreadable_file(tmp_path):
    missing = str(tmp_path / "nope.toml")
    with pytest.raises(ConfigError) as caught:
        load_config(missing, RULES)
    assert caught.value.path == missing and "cannot read" in str(caught.value)
    directory = tmp_path / "dir.toml"
    directory.mkdir()
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(str(directory), RULES)


def test_a_linked_configuration_is_followed(tmp_path):
    """A monorepo's packages may share one file through links; its root is the link's
    directory, where the file was found."""
    write(tmp_path / "shared.toml", 'select = ["CUR1"]\n')
    (tmp_path / "packages" / "a").mkdir(parents=True)
    (tmp_path / "packages" / "a" / "cursedlint.toml").symlink_to("../../shared.toml")
    path = find_config(str(tmp_path / "packages" / "a" / "train.py"))
    config = load_config(path, RULES)
    assert (config.select, config.root) == (("CUR1",), str(tmp_path / "packages" / "a"))


def test_a_configuration_over_the_limit_is_refused_unread(tmp_path):
    path = tmp_path / "cursedlint.toml"
    with open(path, "wb") as handle:  # sparse: nothing written to disk
        handle.truncate(config_module.CONFIG_BYTES + 1)
    with pytest.raises(ConfigError) as caught:
        load_config(str(path), RULES)
    assert str(caught.value) == (f"{path}: cannot read the configuration file: is larger than "
                                 f"{config_module.CONFIG_BYTES:,} bytes")


def test_a_linked_compilation_database_is_followed_and_bounded(tmp_path, monkeypatch):
    """CMake writes compile_commands.json in the build directory; projects link it from
    their root."""
    write(tmp_path / "build" / "compile_commands.json", "[]\n")
    (tmp_path / "compile_commands.json").symlink_to("build/compile_commands.json")
    database = str(tmp_path / "compile_commands.json")
    assert compile_database_path(str(tmp_path), "cursedlint.toml", "compile-commands") == database
    monkeypatch.setattr(config_module, "DATABASE_BYTES", 2)
    with pytest.raises(ConfigError, match=f"{database!r} is not a compilation database: is "
                                          "larger than 2 bytes"):
        compile_database_path(str(tmp_path), "cursedlint.toml", "compile-commands")


def test_not_utf8(tmp_path):
    path = tmp_path / "cursedlint.toml"
    path.write_bytes(b"select = ['\xff']\n")
    with pytest.raises(ConfigError, match="UTF-8") as caught:
        load_config(str(path), RULES)
    assert caught.value.path == str(path)


@pytest.mark.parametrize(
    "text",
    [
        "select = " + "[" * 2000 + "]" * 2000 + "\n",
        "a = " + "{b = " * 2000 + "1" + "}" * 2000 + "\n",
    ],
    ids=["array", "inline-table"],
)
def test_toml_nested_deeper_than_the_parser_goes_names_the_file(tmp_path, text):
    error = error_of(tmp_path, text, name="cursedlint.toml")
    assert error.key == ""
    assert error.problem == "cannot be read: its arrays or tables nest too deeply for the TOML parser"


@pytest.mark.parametrize(
    "failure, problem",
    [
        (MemoryError(), "cannot be read: parsing it ran out of memory"),
        (IndexError("string index out of range"),
         "cannot be read by the TOML parser: IndexError: string index out of range"),
    ],
)
def test_any_failure_of_the_toml_parser_names_the_file(tmp_path, monkeypatch, failure, problem):
    """What a parser bug or absurd input would raise: still a ConfigError naming the file."""
    import cursedlint.config

    class FailingParser:
        TOMLDecodeError = ValueError

        @staticmethod
        def loads(text):
            raise failure

    monkeypatch.setattr(cursedlint.config, "_toml", lambda: FailingParser)
    assert error_of(tmp_path, "select = ['CUR1']\n", name="cursedlint.toml").problem == problem


# -- every validation error ---------------------------------------------------------------


def test_unknown_key_lists_the_valid_keys(tmp_path):
    error = error_of(tmp_path, "[tool.cursedlint]\nselct = ['CUR1']\n")
    assert error.key == "tool.cursedlint.selct"
    assert "did you mean 'select'" in error.problem
    for key in ("select", "extend-select", "ignore", "per-file-ignores", "exclude", "extend-exclude",
                "force-exclude", "respect-gitignore", "target-python", "page-size", "rules"):
        assert key in error.problem


def test_unknown_key_in_cursedlint_toml_has_no_tool_prefix(tmp_path):
    error = error_of(tmp_path, "line-length = 88\n", name="cursedlint.toml")
    assert error.key == "line-length"
    assert str(error).startswith(f"{tmp_path / 'cursedlint.toml'}: line-length: unknown key")


def test_tool_table_in_a_file_not_named_pyproject_is_explained(tmp_path):
    error = error_of(tmp_path, "[tool.cursedlint]\nselect = ['CUR1']\n", name="lint-config.toml")
    assert error.key == "tool"
    assert "only a file named pyproject.toml is read from [tool.cursedlint]" in error.problem


def test_snake_case_keys_are_unknown(tmp_path):
    error = error_of(tmp_path, "[tool.cursedlint]\nextend_select = ['CUR1']\n")
    assert error.key == "tool.cursedlint.extend_select"
    assert "did you mean 'extend-select'" in error.problem


@pytest.mark.parametrize("key", ["select", "extend-select", "ignore"])
@pytest.mark.parametrize("selector", ["CUR9", "CUR305", "CUR1011", "C", "CU", "X101", "", "all"])
def test_unknown_codes_and_prefixes(tmp_path, key, selector):
    error = error_of(tmp_path, f"[tool.cursedlint]\n{key} = [{selector!r}]\n")
    assert error.key == f"tool.cursedlint.{key}"
    assert f"{selector!r} matches no known code" in error.problem
    assert "'ALL'" in error.problem and "'CUR301'" in error.problem


def test_lower_case_code_gets_a_hint(tmp_path):
    error = error_of(tmp_path, "[tool.cursedlint]\nselect = ['cur301']\n")
    assert "upper case: 'CUR301'" in error.problem


@pytest.mark.parametrize("selector", ["ALL", "CUR", "CUR0", "CUR3", "CUR30", "CUR31", "CUR301"])
def test_valid_selectors(tmp_path, selector):
    path = write(tmp_path / "cursedlint.toml", f"ignore = [{selector!r}]\n")
    assert load_config(path, RULES).ignore == (selector,)


@pytest.mark.parametrize(
    "value, key, expected",
    [
        ("'CUR1'", "tool.cursedlint.select", "expected a list of strings, got a string 'CUR1'"),
        ("{ a = 1 }", "tool.cursedlint.select", "expected a list of strings, got a table"),
        ("['CUR1', 3]", "tool.cursedlint.select[1]", "expected a list of strings, got an integer 3"),
    ],
)
def test_selector_lists_must_be_lists_of_strings(tmp_path, value, key, expected):
    error = error_of(tmp_path, f"[tool.cursedlint]\nselect = {value}\n")
    assert error.key == key
    assert error.problem == expected


@pytest.mark.parametrize("key", ["exclude", "extend-exclude"])
def test_exclude_lists(tmp_path, key):
    error = error_of(tmp_path, f"[tool.cursedlint]\n{key} = 'build'\n")
    assert error.key == f"tool.cursedlint.{key}" and "expected a list of strings" in error.problem
    error = error_of(tmp_path, f"[tool.cursedlint]\n{key} = [true]\n")
    assert error.key == f"tool.cursedlint.{key}[0]" and "got the boolean true" in error.problem


@pytest.mark.parametrize("key", ["force-exclude", "respect-gitignore"])
@pytest.mark.parametrize("value", ["'yes'", "1", "[]"])
def test_booleans(tmp_path, key, value):
    error = error_of(tmp_path, f"[tool.cursedlint]\n{key} = {value}\n")
    assert error.key == f"tool.cursedlint.{key}"
    assert error.problem.startswith("expected true or false, got")


@pytest.mark.parametrize(
    "value, expected",
    [
        ('"3.7"', "unsupported Python version '3.7'"),
        ('"3.16"', "unsupported Python version '3.16'"),
        ('"2.7"', "unsupported Python version '2.7'"),
        ('"three"', "unsupported Python version 'three'"),
        ('"3.11.2"', "unsupported Python version '3.11.2'"),
        ("3.11", "expected a string"),
        ("311", "expected a string"),
    ],
)
def test_target_python(tmp_path, value, expected):
    error = error_of(tmp_path, f"[tool.cursedlint]\ntarget-python = {value}\n")
    assert error.key == "tool.cursedlint.target-python"
    assert expected in error.problem
    assert '"3.10"' in error.problem and '"3.15"' in error.problem


def test_target_python_float_gets_a_hint(tmp_path):
    error = error_of(tmp_path, "[tool.cursedlint]\ntarget-python = 3.10\n")
    assert "3.10 in TOML is the number 3.1" in error.problem


@pytest.mark.parametrize("version", ["3.10", "3.11", "3.12", "3.13", "3.14", "3.15"])
def test_supported_target_pythons(tmp_path, version):
    path = write(tmp_path / "cursedlint.toml", f'target-python = "{version}"\n')
    assert load_config(path, RULES).target_python == (3, int(version.split(".")[1]))


@pytest.mark.parametrize(
    "value, expected",
    [
        ("1000", "expected a power of two from 1024"),
        ("3000", "got 3000"),
        ("512", "got 512"),
        ("0", "got 0"),
        ("-4096", "got -4096"),
        (str(1 << 31), "to 1073741824"),
        ('"4096"', "expected an integer (bytes), got a string '4096'"),
        ("4096.0", "expected an integer"),
        ("true", "expected an integer (bytes), got the boolean true"),
    ],
)
def test_page_size(tmp_path, value, expected):
    error = error_of(tmp_path, f"[tool.cursedlint]\npage-size = {value}\n")
    assert error.key == "tool.cursedlint.page-size"
    assert expected in error.problem


@pytest.mark.parametrize("size", [1024, 4096, 16384, 65536, 2 * 1024 * 1024, 1 << 30])
def test_valid_page_sizes(tmp_path, size):
    path = write(tmp_path / "cursedlint.toml", f"page-size = {size}\n")
    assert load_config(path, RULES).page_size == size


def test_per_file_ignores_must_be_a_table(tmp_path):
    error = error_of(tmp_path, "[tool.cursedlint]\nper-file-ignores = ['tests/*']\n")
    assert error.key == "tool.cursedlint.per-file-ignores"
    assert "expected a table of pattern = [codes]" in error.problem


def test_per_file_ignores_values(tmp_path):
    error = error_of(tmp_path, "[tool.cursedlint.per-file-ignores]\n'tests/*.py' = 'CUR1'\n")
    assert error.key == 'tool.cursedlint.per-file-ignores."tests/*.py"'
    assert "expected a list of strings" in error.problem
    error = error_of(tmp_path, "[tool.cursedlint.per-file-ignores]\n'tests/*.py' = ['CUR7']\n")
    assert error.key == 'tool.cursedlint.per-file-ignores."tests/*.py"'
    assert "'CUR7' matches no known code" in error.problem
    error = error_of(tmp_path, "[tool.cursedlint.per-file-ignores]\nsetup = [1]\n")
    assert error.key == "tool.cursedlint.per-file-ignores.setup[0]"
    error = error_of(tmp_path, "[tool.cursedlint.per-file-ignores]\n'' = ['CUR1']\n")
    assert error.key == 'tool.cursedlint.per-file-ignores.""'
    assert "non-empty" in error.problem


def test_rules_must_be_a_table_of_tables(tmp_path):
    error = error_of(tmp_path, "[tool.cursedlint]\nrules = ['CUR301']\n")
    assert error.key == "tool.cursedlint.rules"
    assert "expected a table" in error.problem
    error = error_of(tmp_path, "[tool.cursedlint.rules]\nCUR301 = 'musl'\n")
    assert error.key == "tool.cursedlint.rules.CUR301"
    assert "expected a table of option = value, got a string 'musl'" in error.problem


def test_rules_unknown_code(tmp_path):
    error = error_of(tmp_path, "[tool.cursedlint.rules.CUR309]\nlibc = 'musl'\n")
    assert error.key == "tool.cursedlint.rules.CUR309"
    assert "'CUR309' is not a known rule code" in error.problem
    # options belong to one rule: a prefix is not enough
    error = error_of(tmp_path, "[tool.cursedlint.rules.CUR3]\nlibc = 'musl'\n")
    assert error.key == "tool.cursedlint.rules.CUR3"
    assert "exact code" in error.problem


def test_rules_unknown_option_lists_the_valid_ones(tmp_path):
    error = error_of(tmp_path, "[tool.cursedlint.rules.CUR301]\nlib = 'musl'\n")
    assert error.key == "tool.cursedlint.rules.CUR301.lib"
    assert "did you mean 'libc'" in error.problem
    assert "valid options of CUR301: allocators, libc, max-pages, ratio, strict, threshold" in error.problem
    error = error_of(tmp_path, "[tool.cursedlint.rules.CUR101]\nlibc = 'musl'\n")
    assert error.key == "tool.cursedlint.rules.CUR101.libc"
    assert "CUR101 has no options" in error.problem


@pytest.mark.parametrize(
    "line, key, expected",
    [
        ("libc = 'uclibc'", "libc", "'uclibc' is not allowed; expected one of 'glibc', 'musl'"),
        ("libc = 1", "libc", "expected a string, got an integer 1"),
        ("max-pages = '3'", "max-pages", "expected an integer, got a string '3'"),
        ("max-pages = true", "max-pages", "expected an integer, got the boolean true"),
        ("max-pages = 2.5", "max-pages", "expected an integer, got a number 2.5"),
        ("ratio = 'half'", "ratio", "expected a number, got a string 'half'"),
        ("strict = 1", "strict", "expected a boolean, got an integer 1"),
        ("allocators = 'malloc'", "allocators", "expected a list, got a string 'malloc'"),
        ("allocators = ['malloc', 'sbrk']", "allocators[1]", "'sbrk' is not allowed; expected one of 'malloc', 'mmap', 'posix_memalign'"),
        ("threshold = [4]", "threshold", "expected an integer or a string, got a list"),
    ],
)
def test_rule_option_values(tmp_path, line, key, expected):
    error = error_of(tmp_path, f"[tool.cursedlint.rules.CUR301]\n{line}\n")
    assert error.key == f"tool.cursedlint.rules.CUR301.{key}"
    assert error.problem == expected
    assert str(error) == f"{tmp_path / 'pyproject.toml'}: tool.cursedlint.rules.CUR301.{key}: {expected}"


def test_rule_option_values_are_converted_where_toml_has_no_exact_type(tmp_path):
    path = write(
        tmp_path / "cursedlint.toml",
        """
        [rules.CUR301]
        ratio = 1
        allocators = ["mmap", "malloc"]
        threshold = "auto"
        strict = true
        """,
    )
    options = load_config(path, RULES).rules["CUR301"]
    assert options == {"ratio": 1.0, "allocators": ("mmap", "malloc"), "threshold": "auto", "strict": True}
    assert isinstance(options["ratio"], float)


def test_config_from_mapping_names_the_given_source():
    with pytest.raises(ConfigError) as caught:
        config_from_mapping({"rules": {"CUR301": {"libc": "bionic"}}}, RULES, path="<example>")
    assert str(caught.value).startswith("<example>: rules.CUR301.libc: 'bionic' is not allowed")
    config = config_from_mapping({"target-python": "3.12", "rules": {"CUR301": {"libc": "musl"}}}, RULES)
    assert config.target_python == (3, 12) and config.rules == {"CUR301": {"libc": "musl"}}


# -- selection ----------------------------------------------------------------------------


def test_default_selects_every_code_but_the_opt_in_ones():
    assert resolve_codes(KNOWN) == EVERY
    assert resolve_codes(KNOWN, opt_in={"CUR003"}) == EVERY - {"CUR003"}


def test_select_replaces_the_default_and_extend_select_adds():
    assert resolve_codes(KNOWN, select=["CUR3"]) == {"CUR301", "CUR302", "CUR310"}
    assert resolve_codes(KNOWN, select=["CUR30"]) == {"CUR301", "CUR302"}
    assert resolve_codes(KNOWN, select=["CUR3"], extend_select=["CUR101"]) == {"CUR301", "CUR302", "CUR310", "CUR101"}
    assert resolve_codes(KNOWN, select=[]) == frozenset()
    assert resolve_codes(KNOWN, extend_select=["CUR003"], opt_in={"CUR003"}) == EVERY


def test_the_most_specific_selector_wins():
    assert resolve_codes(KNOWN, select=["CUR3"], ignore=["CUR30"]) == {"CUR310"}
    assert resolve_codes(KNOWN, select=["CUR301"], ignore=["CUR3"]) == {"CUR301"}
    assert resolve_codes(KNOWN, select=["CUR", "CUR301"], ignore=["CUR3"]) == EVERY - {"CUR302", "CUR310"}
    assert resolve_codes(KNOWN, ignore=["CUR1"]) == EVERY - {"CUR101", "CUR102"}


def test_on_a_tie_ignore_wins():
    assert resolve_codes(KNOWN, select=["CUR3"], ignore=["CUR3"]) == frozenset()
    assert resolve_codes(KNOWN, select=["CUR301"], extend_select=["CUR302"], ignore=["CUR301"]) == {"CUR302"}


def test_all_is_the_least_specific_selector():
    assert resolve_codes(KNOWN, select=["ALL"]) == EVERY
    assert resolve_codes(KNOWN, select=["ALL"], ignore=["CUR"]) == frozenset()  # CUR beats ALL
    assert resolve_codes(KNOWN, select=["CUR"], ignore=["ALL"]) == EVERY
    assert resolve_codes(KNOWN, ignore=["ALL"], extend_select=["CUR2"]) == {"CUR201"}


def test_opt_in_codes_need_their_exact_code():
    opt_in = {"CUR003"}
    assert "CUR003" not in resolve_codes(KNOWN, select=["ALL"], opt_in=opt_in)
    assert "CUR003" not in resolve_codes(KNOWN, select=["CUR0"], opt_in=opt_in)
    assert "CUR003" in resolve_codes(KNOWN, select=["CUR003"], opt_in=opt_in)
    assert resolve_codes(KNOWN, extend_select=["CUR003"], ignore=["CUR0"], opt_in=opt_in) == EVERY


def test_expand():
    assert expand(["CUR3", "CUR101"], KNOWN) == {"CUR301", "CUR302", "CUR310", "CUR101"}
    assert expand(["ALL"], KNOWN) == EVERY


def _settings(config: Config, **cli):
    return build_settings(config, RULES, **cli)


def test_cli_select_replaces_the_files_selection():
    config = Config(select=("CUR1",), extend_select=("CUR201",), ignore=("CUR301",))
    assert _settings(config).enabled == {"CUR101", "CUR102", "CUR201"}
    assert _settings(config, select=["CUR3"]).enabled == {"CUR301", "CUR302", "CUR310"}
    assert _settings(config, select=["CUR3"], ignore=["CUR31"]).enabled == {"CUR301", "CUR302"}


def test_cli_ignore_and_extend_select_edit_the_files_selection_whatever_its_specificity():
    config = Config(select=("CUR301", "CUR1"), ignore=("CUR2",))
    assert _settings(config, ignore=["CUR3"]).enabled == {"CUR101", "CUR102"}
    assert _settings(config, extend_select=["CUR201"]).enabled == {"CUR101", "CUR102", "CUR301", "CUR201"}
    assert _settings(config, extend_select=["CUR3"], ignore=["CUR302"]).enabled == {
        "CUR101", "CUR102", "CUR301", "CUR310"}


def test_cli_select_of_an_opt_in_code_and_the_flake8_prefix():
    config = Config()
    assert _settings(config, opt_in={"CUR003"}).enabled == EVERY - {"CUR003"}
    assert _settings(config, select=["CUR"], opt_in={"CUR003"}).enabled == EVERY - {"CUR003"}
    assert _settings(config, extend_select=["CUR003"], opt_in={"CUR003"}).enabled == EVERY


@pytest.mark.parametrize("option", ["select", "extend_select", "ignore"])
def test_cli_codes_are_validated(option):
    flag = "--" + option.replace("_", "-")
    with pytest.raises(ConfigError) as caught:
        _settings(Config(), **{option: ["CUR999"]})
    assert str(caught.value).startswith(f"command line: {flag}: 'CUR999' matches no known code")


def test_target_python_precedence(tmp_path):
    assert _settings(Config(root=str(tmp_path))).target_python == sys.version_info[:2]
    assert _settings(Config(target_python=(3, 11))).target_python == (3, 11)
    assert _settings(Config(target_python=(3, 11)), target_python="3.13").target_python == (3, 13)
    with pytest.raises(ConfigError, match=r"^command line: --target-python: unsupported Python version '3\.7'"):
        _settings(Config(), target_python="3.7")


def test_settings_carry_page_size_rule_options_and_root(tmp_path):
    path = write(tmp_path / "cursedlint.toml", "page-size = 2097152\n[rules.CUR301]\nlibc = 'musl'\n")
    settings = _settings(load_config(path, RULES))
    assert settings.page_size == 2097152
    assert settings.rule_options == {"CUR301": {"libc": "musl"}}
    assert settings.root == str(tmp_path)


def test_per_file_ignores_match_project_relative_paths(tmp_path, monkeypatch):
    path = write(
        tmp_path / "proj" / "pyproject.toml",
        """
        [tool.cursedlint.per-file-ignores]
        "tests/" = ["CUR1"]
        "*.pyi" = ["CUR301"]
        "/setup.py" = ["ALL"]
        "src/**/gen_*.py" = ["CUR30", "CUR201"]
        """,
    )
    settings = _settings(load_config(path, RULES))
    proj = tmp_path / "proj"
    assert settings.enabled_for(str(proj / "tests" / "unit" / "test_x.py")) == EVERY - {"CUR101", "CUR102"}
    assert settings.enabled_for(str(proj / "src" / "tests.py")) == EVERY
    assert settings.enabled_for(str(proj / "src" / "stubs" / "a.pyi")) == EVERY - {"CUR301"}
    assert settings.enabled_for(str(proj / "setup.py")) == frozenset()
    assert settings.enabled_for(str(proj / "pkg" / "setup.py")) == EVERY  # anchored to the root
    assert settings.enabled_for(str(proj / "src" / "a" / "b" / "gen_x.py")) == EVERY - {"CUR301", "CUR302", "CUR201"}
    # relative paths are resolved from the current directory, as the CLI passes them
    monkeypatch.chdir(proj)
    assert settings.enabled_for("tests/test_y.py") == EVERY - {"CUR101", "CUR102"}
    assert settings.enabled_for("main.py") == EVERY


def test_per_file_ignore_patterns_match_in_linear_time(tmp_path):
    """A pattern of many stars in a hostile configuration cannot stall the run on a long name."""
    table = {"per-file-ignores": {"*a*a*a*a*a*a*a*a*b.py": ["CUR1"], "a*********c.py": ["CUR3"]}}
    settings = _settings(config_from_mapping(table, RULES, root=str(tmp_path)))
    started = time.perf_counter()
    assert settings.enabled_for(str(tmp_path / ("a" * 250 + ".py"))) == EVERY
    assert settings.enabled_for(str(tmp_path / ("a" * 250 + "b.py"))) == EVERY - {"CUR101", "CUR102"}
    assert settings.enabled_for(str(tmp_path / "sub" / ("a" * 250 + "c.py"))) == EVERY - {"CUR301", "CUR302", "CUR310"}
    assert time.perf_counter() - started < 1


def test_settings_are_picklable_for_worker_processes(tmp_path):
    path = write(tmp_path / "cursedlint.toml", "[per-file-ignores]\n'tests/' = ['CUR1']\n")
    settings = _settings(load_config(path, RULES))
    copy = pickle.loads(pickle.dumps(settings))
    assert copy.enabled_for(str(tmp_path / "tests" / "a.py")) == EVERY - {"CUR101", "CUR102"}


def test_with_force_exclude():
    config = Config(select=("CUR1",))
    forced = with_force_exclude(config)
    assert forced.force_exclude and forced.select == ("CUR1",)
    assert not config.force_exclude


def test_registry_rules_are_accepted():
    from cursedlint.registry import all_rules

    rules = all_rules()
    config = config_from_mapping({"select": ["ALL"], "ignore": list(rules)[:1]}, rules)
    assert build_settings(config, rules).enabled == set(rules) - set(list(rules)[:1])


def test_relative_root_is_made_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "cursedlint.toml", "")
    assert load_config("cursedlint.toml", RULES).root == str(tmp_path)
    assert os.path.isabs(config_from_mapping({}, RULES).root)


# -- the options of the shipped rules -----------------------------------------------------

HOSTILE_VALUES = (
    "", " ", 0, -1, 1.5, True, {}, [], [""], [" \t"], [1], [True], [1.5], [[]], [["torch"]],
    [{}], ["a b"], ["("], ["\\"], ["*"], ["?"], ["[!"], ["[]"], ["[z-a]"], ["x" * 256], ["x" * 257],
    ["é"], ["a.b"], [".a"], ["a..b"], ["1a"], ["a\x00"], ["ok", ""], ["-"], ["torch.cuda"],
)
"""Values a configuration file may hold for any option: wrong types, blank or odd strings."""


def _shipped_options():
    from cursedlint.registry import all_rules

    return [(rule, name) for rule in all_rules().values() for name in rule.options]


@pytest.mark.parametrize("rule, name", _shipped_options(), ids=lambda item: getattr(item, "code", item))
def test_shipped_option_defaults_meet_their_own_spec(rule, name):
    spec = rule.options[name]
    assert check_option(spec, spec.default) == spec.default


@pytest.mark.parametrize("rule, name", _shipped_options(), ids=lambda item: getattr(item, "code", item))
def test_no_shipped_rule_fails_on_any_value_its_options_accept(rule, name):
    """Every hostile value is refused with the key named, or the rule runs every one of its
    examples under it without an internal error (CUR000) or an exception of the engine."""
    from msgspec.structs import replace

    from harness import run_example

    key = f"rules.{rule.code}.{name}"
    for value in HOSTILE_VALUES:
        try:
            config_from_mapping({"rules": {rule.code: {name: value}}}, {rule.code: rule})
        except ConfigError as error:
            assert error.key.startswith(key), (value, str(error))
            continue
        for example in rule.examples("valid") + rule.examples("invalid"):
            options = example.settings.get("options", {}) | {name: value}
            findings = run_example(rule, replace(example, settings=example.settings | {"options": options}))
            assert "CUR000" not in {finding.code for finding in findings}, (value, example.code)


@pytest.mark.parametrize(
    "code, name, value, key, problem",
    [
        ("CUR201", "extra-apis", [""], "extra-apis[0]", "expected a non-empty string, got a string ''"),
        ("CUR201", "extra-apis", [1], "extra-apis[0]", "expected a string, got an integer 1"),
        ("CUR201", "extra-apis", ["gpu.enqueue"], "extra-apis[0]",
         "expected a Python name such as 'enqueue_host', got a string 'gpu.enqueue'"),
        ("CUR202", "keeping-apis", ["ok_*", 1], "keeping-apis[1]", "expected a string, got an integer 1"),
        ("CUR202", "keeping-apis", ["ctypes.*"], "keeping-apis[0]",
         "expected a name or a shell-style pattern of one such as 'ev_*', got a string 'ctypes.*'"),
        ("CUR102", "modules", ["torch", ""], "modules[1]", "expected a non-empty string, got a string ''"),
        ("CUR102", "modules", ["torch..cuda"], "modules[0]",
         "expected a module name such as 'torch' or 'numba.cuda', got a string 'torch..cuda'"),
        ("CUR102", "modules", "torch", "modules", "expected a list, got a string 'torch'"),
        ("CUR501", "cloner-types", [" "], "cloner-types[0]", "expected a non-empty string, got a string ' '"),
        ("CUR601", "wrappers", ["ns::read"], "wrappers[0]",
         "expected a C identifier such as 'my_readv', got a string 'ns::read'"),
        ("CUR101", "libc", "", "libc", "expected a non-empty string, got a string ''"),
        ("CUR201", "extra-apis", ["f" * 100_000], "extra-apis[0]", "expected at most 256 characters, got 100000"),
    ],
)
def test_shipped_option_errors_name_the_item(tmp_path, code, name, value, key, problem):
    from cursedlint.registry import all_rules

    path = write(tmp_path / "cursedlint.toml", "")
    with pytest.raises(ConfigError) as caught:
        config_from_mapping({"rules": {code: {name: value}}}, all_rules(), path=path)
    assert (caught.value.path, caught.value.key, caught.value.problem) == (path, f"rules.{code}.{key}", problem)


def test_shipped_option_values_of_the_right_form_are_kept():
    from cursedlint.registry import all_rules

    table = {
        "CUR102": {"modules": ["torch", "numba.cuda", "jäx"]},
        "CUR202": {"keeping-apis": ["ev_*", "on_[a-z]?", "Register"]},
        "CUR601": {"wrappers": ["psm3_cma_get"], "assert-names": ["VERIFY"]},
    }
    assert config_from_mapping({"rules": table}, all_rules()).rules == table


def test_a_list_option_must_declare_its_item_type():
    with pytest.raises(TypeError, match="item="):
        Option(list, [], "names")
    assert Option(list, [], "names", item=str).item is str


@pytest.mark.parametrize("specifiers, lowest", [
    (">=3.9", (3, 9)),
    (">=3.9.2", (3, 9)),
    (">3.9", (3, 9)),  # 3.9.1 is above 3.9
    (">=3.8, !=3.8.*, <4", (3, 9)),
    ("~=3.10", (3, 10)),
    ("~=3.10.4", (3, 10)),
    ("==3.11.*", (3, 11)),
    ("==3.12", (3, 12)),
    ("<3.12,>=3.7", (3, 8)),  # the lowest this linter can target
    (">=2.7, !=3.0.*, !=3.1.*", (3, 8)),
    (">=4", None),
    ("<3.8", None),
])
def test_the_lowest_version_a_specifier_set_allows(specifiers, lowest):
    from cursedlint.config import SUPPORTED_TARGETS
    from cursedlint.project.requires_python import lowest_allowed

    assert lowest_allowed(specifiers, SUPPORTED_TARGETS) == lowest


@pytest.mark.parametrize("specifiers", ["", "3.9", ">=three", "~=3", ">=3.*"])
def test_a_specifier_set_that_cannot_be_read_is_refused(specifiers):
    from cursedlint.config import SUPPORTED_TARGETS
    from cursedlint.project.requires_python import BadSpecifier, lowest_allowed

    with pytest.raises(BadSpecifier):
        lowest_allowed(specifiers, SUPPORTED_TARGETS)


@pytest.mark.parametrize("project, target, why", [
    ('[project]\nname = "app"\nrequires-python = ">=3.9"\n', "3.9",
     "the lowest version requires-python '>=3.9' allows"),
    ('[project]\nname = "app"\nrequires-python = "python3"\n', None,
     "requires-python: not a version clause"),
    ('[project]\nname = "app"\n', None, "no requires-python in a pyproject.toml"),
])
def test_the_target_comes_from_the_projects_requires_python(
        tmp_path, monkeypatch, capsys, project, target, why):
    from cursedlint.cli import main

    (tmp_path / "pyproject.toml").write_text(project)
    (tmp_path / "app.py").write_text("import subprocess\n")
    monkeypatch.chdir(tmp_path)
    main(["check", "--no-cache", "-v", "app.py"])
    line = next(line for line in capsys.readouterr().err.splitlines()
                if line.startswith("target Python "))
    running = ".".join(map(str, sys.version_info[:2]))
    assert line.startswith(f"target Python {target or running}: ") and why in line


def test_a_configured_target_wins_over_requires_python(tmp_path, monkeypatch, capsys):
    from cursedlint.cli import main

    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "app"\nrequires-python = ">=3.9"\n'
        '[tool.cursedlint]\ntarget-python = "3.12"\n')
    (tmp_path / "app.py").write_text("import subprocess\n")
    monkeypatch.chdir(tmp_path)
    main(["check", "--no-cache", "-v", "app.py"])
    assert "target Python 3.12: target-python in" in capsys.readouterr().err
