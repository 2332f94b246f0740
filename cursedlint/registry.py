"""Finds every rule: the engine's notices (CUR0xx) and the Rule classes of `cursedlint.rules`."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from cursedlint.rule import CODE_PATTERN, NAME_PATTERN, Rule


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


@cache
def all_rules() -> dict[str, type[Rule]]:
    """Every shipped rule and notice, by code."""
    import cursedlint.rules as package
    from cursedlint import notices

    modules = [notices] + [
        importlib.import_module(f"{package.__name__}.{info.name}")
        for info in pkgutil.iter_modules(package.__path__)
    ]
    return collect(modules)


def find_rule(key: str, rules: dict[str, type[Rule]]) -> type[Rule] | None:
    """A rule by code (any case) or kebab-case name."""
    upper = key.upper()
    if upper in rules:
        return rules[upper]
    return next((rule for rule in rules.values() if rule.name == key), None)
