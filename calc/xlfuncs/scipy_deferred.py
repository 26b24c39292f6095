"""`formulas`' statistical functions without importing scipy until one of them needs it.

`formulas.functions.stat` imports scipy.stats, scipy.linalg and scipy.interpolate at its top
(0.65 CPU s, most of a small book's run), yet only the bodies of its functions use them: LARGE,
SMALL, NORM.INV and most of the module never touch scipy. Importing the module with those three
names bound to stand-ins that import the real module at their first use runs the same code and
gives the same answers; a book calling T.DIST or TREND pays for scipy then, one calling LARGE
never does. Written by hand: importlib's LazyLoader defers a module, not a name imported from it
(`from scipy.interpolate import interp1d` would load scipy.interpolate at once).

The stand-in for scipy.stats answers the distributions and statistics `stats_light` covers
itself (the same bits from scipy.special's ufuncs, without scipy.stats' import: its docstring has
the figures), the one for scipy.linalg `lstsq` (numpy's, with scipy's cutoff); any other name is
the real module's.

`stat()` must run before anything else imports that module: `formulas.get_functions()` (every
parse and compile in `formulas`) imports it along with its siblings, so each of our ways into
`formulas` calls `stat()` first; a way that did not would cost the import, not change an answer.
"""

from __future__ import annotations

import importlib
import sys
import threading
import types
from collections.abc import Callable
from typing import Any

from rates_xl.calc.xlfuncs import stats_light

STAT = "formulas.functions.stat"
#: What the module imports from scipy at its top: module -> names taken from it (none: the module).
DEFERRED: dict[str, tuple[str, ...]] = {"scipy.stats": (), "scipy.linalg": (), "scipy.interpolate": ("interp1d",)}

_lock = threading.Lock()


class _OnFirstUse(types.ModuleType):
    """Stands in for a scipy module inside `formulas.functions.stat`: an attribute read imports
    the real module and answers from it."""

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):  # the import system's questions (__path__, __spec__ ...)
            raise AttributeError(attr)
        answer = stats_light.light(self.__name__, attr)
        if answer is not None:
            return answer
        return getattr(importlib.import_module(self.__name__), attr)


def _called_on_first_use(module: str, name: str) -> Callable[..., object]:
    def call(*args: object, **kwargs: object) -> object:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__name__ = name
    return call


def stat() -> types.ModuleType:
    """`formulas.functions.stat`, imported (once) with scipy deferred to its first use."""
    with _lock:
        if STAT in sys.modules:
            return sys.modules[STAT]
        stand_ins: dict[str, _OnFirstUse] = {}
        for module, names in DEFERRED.items():
            if module in sys.modules:  # already imported by someone: nothing to save
                continue
            stand_in = _OnFirstUse(module)
            for name in names:
                setattr(stand_in, name, _called_on_first_use(module, name))
            stand_ins[module] = stand_in
        for module, stand_in in stand_ins.items():
            sys.modules[module] = stand_in
        try:
            return importlib.import_module(STAT)
        finally:
            # The stand-ins leave sys.modules at once: the first real use imports the real module.
            for module, stand_in in stand_ins.items():
                if sys.modules.get(module) is stand_in:
                    del sys.modules[module]
