"""`LazyPattern`: a regex compiled when first used. A module-level pattern that a run may never
use (a run over files of other kinds, a warm run whose results come from the cache) costs its
compilation at import otherwise: the patterns below the rules cost a plain file's warm run
about 7 ms of its 65."""

from __future__ import annotations

import re
from typing import Any


class LazyPattern:
    """A regex compiled when first used, for the patterns a run may not need (file kinds it
    does not hold, work a warm run takes from the cache). It has the match and search methods
    of `re.Pattern`, bound to the compiled pattern on first use; it is not one (`isinstance` is
    false)."""

    _METHODS = ("match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split")

    def __init__(self, pattern: str | bytes, flags: int = 0):
        self.pattern, self.flags = pattern, flags

    def __getattr__(self, name: str) -> Any:  # only until the first use binds the methods
        if name not in self._METHODS:
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self.flags)
        for method in self._METHODS:
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)
