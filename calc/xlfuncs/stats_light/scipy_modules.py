"""The scipy modules the other modules here call, each imported at its first call: scipy.special's
compiled ufuncs (all a covered name needs, without the package around them), and scipy.stats and
scipy.linalg themselves for what is not covered (their imports: what this package saves).

Why the ufuncs without their package: every scipy.special function this package calls (stdtr,
betainc, gammaincinv ... and the private Boost-backed `_binom_pmf` and the like that scipy.stats
calls `scu`) is an object of the compiled module `scipy.special._ufuncs`, which scipy.special's
`__init__` re-exports unchanged (a plain ufunc unless SCIPY_ARRAY_API is set, and then a wrapper
that calls the same ufunc for numpy arguments). That `__init__` also imports the array-API
machinery (scipy._lib.array_api_compat, which pulls numpy.f2py and numpy.testing) and the rest of
scipy.special: 0.13-0.2 CPU s of formulas_test's run, against 0.035 s for the compiled module and
the few extensions it imports. Written by hand because importing a submodule always runs its
package's `__init__` first: while the compiled module loads, a stand-in package (`_Package`, with
the real folder as its path, so the extension's own relative imports resolve) holds scipy.special's
place in sys.modules, and leaves it at once; a later `import scipy.special` runs the real `__init__`,
which finds the same compiled module already loaded and re-exports it.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from collections.abc import Callable
from types import ModuleType

_SPECIAL = "scipy.special"
_UFUNCS = "scipy.special._ufuncs"

_lock = threading.Lock()
_loading: list[int] = []  # the thread loading the compiled module, while it does


class _Package(ModuleType):
    """scipy.special's place in sys.modules while its compiled ufuncs load. Another thread that
    imports scipy.special meanwhile gets this: any name it reads waits for the load to finish and
    is the real package's."""

    def __getattr__(self, attr: str) -> object:
        if attr.startswith("__") or threading.get_ident() in _loading:  # the import system's questions
            raise AttributeError(attr)
        with _lock:  # the load under way ends (the stand-in leaves sys.modules) before this reads on
            pass
        return getattr(importlib.import_module(_SPECIAL), attr)


def special() -> ModuleType:
    """`scipy.special._ufuncs`: the functions scipy.special re-exports (and its private ufuncs),
    imported without scipy.special's `__init__` where that has not run yet."""
    loaded = sys.modules.get(_UFUNCS)
    if loaded is not None:
        return loaded
    with _lock:
        if _UFUNCS in sys.modules or _SPECIAL in sys.modules:  # loaded meanwhile, or the real package is
            return importlib.import_module(_UFUNCS)
        scipy_spec = importlib.util.find_spec("scipy")
        assert scipy_spec is not None and scipy_spec.submodule_search_locations  # formulas depends on scipy
        stand_in = _Package(_SPECIAL)
        stand_in.__path__ = [f"{scipy_spec.submodule_search_locations[0]}/special"]
        sys.modules[_SPECIAL] = stand_in
        _loading.append(threading.get_ident())
        try:
            return importlib.import_module(_UFUNCS)
        finally:
            _loading.clear()
            if sys.modules.get(_SPECIAL) is stand_in:
                del sys.modules[_SPECIAL]


def real(name: str) -> Callable[..., object]:
    """scipy.stats' own `name` (importing it: what the rest of this package saves)."""
    answer: Callable[..., object] = getattr(importlib.import_module("scipy.stats"), name)
    return answer


def real_linalg(name: str) -> Callable[..., object]:
    """scipy.linalg's own `name` (importing it)."""
    answer: Callable[..., object] = getattr(importlib.import_module("scipy.linalg"), name)
    return answer
