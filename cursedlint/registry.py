"""Finds every rule: the engine's notices (CUR0xx) and the Rule classes of `cursedlint.rules`.

`RULE_MODULES` says which rules each module of `cursedlint.rules` defines, the languages they
check and the facts from other files they read, so that a run knows every code and name
without importing every rule module: a run over Python files alone imports no module of C-only
rules (`Rules.checking`), and a run whose results come from the cache imports only the modules
of the rules that read the facts those results ask for (`fact_readers`). A module's rules are
checked against the table when it is imported."""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from typing import NamedTuple

from cursedlint.languages import C, CPP, CYTHON, DOCKERFILE, PYTHON, SHELL, YAML
from cursedlint.rule import CODE_PATTERN, NAME_PATTERN, Rule

RULES_PACKAGE = "cursedlint.rules"


class RuleModule(NamedTuple):
    """What one module (or package) of `cursedlint.rules` defines: code -> name of each rule,
    every language those rules check, and code -> the indexers whose facts the rule reads
    (`Rule.indexers`, by name) for those that read any."""

    names: dict[str, str]
    languages: frozenset[str]
    facts: dict[str, tuple[str, ...]] = {}


RULE_MODULES = {
    "cloners": RuleModule({"CUR501": "pointer-copied-around-cloner",
                           "CUR502": "member-missed-by-cloner"}, frozenset({CPP}),
                          {"CUR501": ("cpp-classes",), "CUR502": ("cpp-classes",)}),
    "cross_process_memory": RuleModule({"CUR601": "cma-failure-aborts"}, frozenset({C, CPP}),
                                       {"CUR601": ("cma-wrappers", "c-cma-gates",
                                                   "c-throw-callers", "cma-headers")}),
    "graph_capture": RuleModule({"CUR401": "cuda-thread-during-capture",
                                 "CUR402": "sync-in-capture",
                                 "CUR403": "pinned-loader-during-capture",
                                 "CUR404": "capture-without-warmup"},
                                frozenset({PYTHON, C, CPP}),
                                {"CUR401": ("cuda-reach", "c-thread-reach"),
                                 "CUR402": ("cuda-reach", "c-thread-reach", "c-capture-streams"),
                                 "CUR403": ("cuda-reach", "c-thread-reach"),
                                 "CUR404": ("cuda-reach", "c-thread-reach")}),
    "native_callbacks": RuleModule({"CUR201": "python-callback-into-cuda",
                                    "CUR202": "ctypes-callback-lifetime"},
                                   frozenset({PYTHON, CYTHON}),
                                   {"CUR201": ("callback-helpers",),
                                    "CUR202": ("foreign-keeping",)}),
    "process_spawning": RuleModule({"CUR101": "subprocess-fork-path",
                                    "CUR102": "fork-in-accelerated-process",
                                    "CUR103": "fork-safe-mode-enabled"},
                                   frozenset({PYTHON, C, CPP, SHELL, DOCKERFILE, YAML}),
                                   {"CUR102": ("start-methods", "cuda-reach"),
                                    "CUR103": ("fork-init-callers",)}),
    "rdma_registration": RuleModule({"CUR301": "sub-page-rdma-registration",
                                     "CUR302": "shared-page-rdma-registration"},
                                    frozenset({C, CPP}),
                                    {code: ("registration-wrappers", "rdma-headers",
                                            "page-allocators", "c-parameter-blocks",
                                            "c-member-stores", "c-typed-blocks", "c-call-values")
                                     for code in ("CUR301", "CUR302")}),
}
"""The modules of `cursedlint.rules` and their rules (checked by `test_registry.py` against
the package, and by `Rules` against each module it imports)."""


class RegistryError(Exception):
    """Two rules share a code or name, or a rule's metadata is malformed."""


def _rules_of(module) -> list[type[Rule]]:
    """The rules a module defines, or a package's `__init__` imports from its own modules."""
    return [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, Rule)
        and _defined_in(value, module)
        and "code" in vars(value)
    ]


def _defined_in(rule: type, module) -> bool:
    """Whether `rule` is defined in `module` or, for a package (a family of several modules),
    in one of its modules; not merely imported there."""
    return rule.__module__ == module.__name__ or rule.__module__.startswith(f"{module.__name__}.")


def collect(modules) -> dict[str, type[Rule]]:
    """code -> rule class for the rules defined in `modules`, validated, sorted by code."""
    found: dict[str, type[Rule]] = {}
    names: dict[str, str] = {}
    for module in modules:
        for rule in _rules_of(module):
            if not CODE_PATTERN.fullmatch(rule.code) or not NAME_PATTERN.fullmatch(rule.name):
                raise RegistryError(f"{rule.__qualname__}: malformed code or name")
            if rule.code in found or rule.name in names:
                raise RegistryError(f"{rule.__qualname__}: code or name already taken")
            found[rule.code] = rule
            names[rule.name] = rule.code
    return dict(sorted(found.items()))


class Rules(Mapping[str, type[Rule]]):
    """Every shipped rule and notice by code, sorted. A rule module is imported when one of
    its rules is first asked for (`names` needs none); `checking(languages)`: the rules of the
    modules that check those languages."""

    def __init__(self):
        from cursedlint import notices

        self._loaded = collect([notices])
        self._module_of = {code: module for module, entry in RULE_MODULES.items()
                           for code in entry.names}
        self.names = dict(sorted({**{code: rule.name for code, rule in self._loaded.items()},
                                  **{code: name for entry in RULE_MODULES.values()
                                     for code, name in entry.names.items()}}.items()))
        """Code -> name of every rule."""

    def __getitem__(self, code: str) -> type[Rule]:
        if code not in self._loaded:
            self._load(self._module_of[code])
        return self._loaded[code]

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)

    def __contains__(self, code) -> bool:
        return code in self.names

    def checking(self, languages: Iterable[str]) -> dict[str, type[Rule]]:
        """The notices and the rules of every module whose rules check one of `languages`,
        by code."""
        wanted = set(languages)
        modules = [module for module, entry in RULE_MODULES.items() if entry.languages & wanted]
        for module in modules:
            self._load(module)
        codes = set(self._loaded) - set(self._module_of) | {
            code for module in modules for code in RULE_MODULES[module].names}
        return {code: self[code] for code in self.names if code in codes}

    def _load(self, module: str) -> None:
        if next(iter(RULE_MODULES[module].names)) in self._loaded:
            return
        found = collect([importlib.import_module(f"{RULES_PACKAGE}.{module}")])
        if module_entry(found) != RULE_MODULES[module]:
            raise RegistryError(f"{RULES_PACKAGE}.{module}: its rules differ from RULE_MODULES")
        self._loaded.update(found)


def module_entry(rules: Mapping[str, type[Rule]]) -> RuleModule:
    """What `RULE_MODULES` says of a module defining `rules` (code -> class)."""
    return RuleModule({code: rule.name for code, rule in rules.items()},
                      frozenset().union(*(rule.languages for rule in rules.values())),
                      {code: tuple(indexer.name for indexer in rule.indexers())
                       for code, rule in rules.items() if rule.indexers()})


def fact_readers(rules: Mapping[str, type[Rule]], languages: Iterable[str]
                 ) -> dict[str, tuple[str, ...]] | None:
    """Code -> the indexers it reads, of each rule of the registry `rules` whose module checks
    one of `languages` and that reads facts from other files, from the table (importing no
    rule module); None where `rules` is another mapping (rules made for a test)."""
    if not isinstance(rules, Rules):
        return None
    wanted = set(languages)
    return {code: names for entry in RULE_MODULES.values() if entry.languages & wanted
            for code, names in entry.facts.items()}


@cache
def all_rules() -> Rules:
    """Every shipped rule and notice, by code (`Rules`: each rule module imported when first
    needed)."""
    return Rules()


def checking(rules: Mapping[str, type[Rule]], languages: Iterable[str]) -> Mapping[str, type[Rule]]:
    """The rules of `rules` a run over files of `languages` may run (`Rules.checking`); any
    other mapping (rules made for a test) whole."""
    return rules.checking(languages) if isinstance(rules, Rules) else rules


def rule_names(rules: Mapping[str, type[Rule]]) -> dict[str, str]:
    """Code -> name of every rule of `rules`, importing none."""
    return rules.names if isinstance(rules, Rules) else {
        code: rule.name for code, rule in rules.items()}


def find_rule(key: str, rules: Mapping[str, type[Rule]]) -> type[Rule] | None:
    """A rule by code (any case) or kebab-case name."""
    upper = key.upper()
    if upper in rules:
        return rules[upper]
    return next((rules[code] for code, name in rule_names(rules).items() if name == key), None)
