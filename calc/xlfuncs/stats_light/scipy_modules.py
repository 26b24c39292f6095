"""The scipy modules the other modules here call, each imported at its first call: scipy.special
(all a covered name needs), its private Boost-backed ufuncs, and scipy.stats itself for what is
not covered (its import: what this package saves)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType


def special() -> ModuleType:
    return importlib.import_module("scipy.special")


def ufuncs() -> ModuleType:
    """scipy.special's private ufuncs (`scu` in scipy.stats: the Boost-backed binom/nbinom/hypergeom)."""
    return importlib.import_module("scipy.special._ufuncs")


def real(name: str) -> Callable[..., object]:
    """scipy.stats' own `name` (importing it: what the rest of this package saves)."""
    answer: Callable[..., object] = getattr(importlib.import_module("scipy.stats"), name)
    return answer
