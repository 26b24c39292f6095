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

`stat()` also imports `formulas.functions.math` with numpy.random deferred the same way: that
module reads `np.random.rand` once at its top, for RAND's entry, and importing numpy.random for it
cost 0.01 CPU s of every book whose bridged functions (CEILING, MROUND, SUMX2PY2 ...) are there.
RAND's entry gets a function calling numpy.random's `rand` at its call (importing numpy.random
then); the module's other reads of np.random are in function bodies, run against the real one.
Only under the `formulas` release that was read (`MATH_READ_FROM`): under another, math is left to
be imported as it comes.

`stat()` also leaves numpy.ma unimported until something needs more of it than np.unique asks
(`_masked`): np.percentile calls np.unique, which asks `np.ma.is_masked(ar)` of each array, and
numpy answers `np.ma` by importing numpy.ma (0.007 CPU s of a book calling PERCENTILE or QUARTILE)
to say that a plain ndarray, which has no mask, is not masked. Under the numpy release read
(`MASKED_READ_FROM`) only; the stand-in answers any other question from the real module.

`stat()` must run before anything else imports these modules: `formulas.get_functions()` (every
parse and compile in `formulas`) imports them along with their siblings, so each of our ways into
`formulas` calls `stat()` first; a way that did not would cost the imports, not change an answer.
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
MATH, RANDOM = "formulas.functions.math", "numpy.random"
#: The `formulas` release whose math module reads numpy.random at its top only as `np.random.rand`
#: (tests/calc/test_scipy_deferred.py reads the module's source for it).
MATH_READ_FROM = "1.3.4"
MASKED = "numpy.ma"
#: The numpy release whose np.unique reads numpy.ma only as `np.ma.is_masked(ar)`
#: (tests/calc/test_scipy_deferred.py reads its source for it).
MASKED_READ_FROM = "2.4.6"

_lock = threading.Lock()


class _OnFirstUse(types.ModuleType):
    """Stands in for a scipy module inside `formulas.functions.stat`: an attribute read imports
    the real module and answers from it. Each answer is kept as the stand-in's own attribute:
    the function bodies read `stats.t` at every call (569 reads in formulas_test.xlsx, 3.6 us
    each through here), and the answer for a name never changes (stats_light's table, or the
    real module's attribute)."""

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):  # the import system's questions (__path__, __spec__ ...)
            raise AttributeError(attr)
        answer = stats_light.light(self.__name__, attr)
        if answer is None:
            answer = getattr(importlib.import_module(self.__name__), attr)
        setattr(self, attr, answer)
        return answer


def _called_on_first_use(module: str, name: str) -> Callable[..., object]:
    def call(*args: object, **kwargs: object) -> object:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__name__ = name
    return call


def stat() -> types.ModuleType:
    """`formulas.functions.stat`, imported (once) with scipy deferred to its first use; and
    `formulas.functions.math` with numpy.random deferred (`_math`)."""
    with _lock:
        if STAT in sys.modules:
            return sys.modules[STAT]
        _math()
        _masked()
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


class _Random(types.ModuleType):
    """Stands in for numpy.random inside `formulas.functions.math`'s import: a name read is a
    function that calls the real one (imported then) at its call."""

    def __getattr__(self, attr: str) -> Callable[..., object]:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _called_on_first_use(RANDOM, attr)


def _math() -> None:
    """`formulas.functions.math` imported with `np.random` the stand-in while it runs. numpy
    answers `np.random` from its module's `__getattr__` (importing numpy.random) only while the
    module has no such attribute: the stand-in is that attribute for the import, and leaves.
    Nothing is done once either module is imported, or under another `formulas` release."""
    import formulas
    import numpy

    if MATH in sys.modules or RANDOM in sys.modules or formulas.__version__ != MATH_READ_FROM:
        return
    stand_in = _Random(RANDOM)
    numpy.random = stand_in  # (numpy.random is no attribute until imported)
    try:
        importlib.import_module(MATH)
    finally:
        if numpy.__dict__.get("random") is stand_in:
            del numpy.random


class _Masked(types.ModuleType):
    """Stands in for numpy.ma as numpy's attribute `ma` until the real module is imported: whether
    a plain ndarray is masked is answered here (no: it has no mask, `np.ma.getmask` is `nomask`),
    any other question by the real module, which then takes the stand-in's place."""

    def is_masked(self, x: object) -> bool:
        import numpy

        if type(x) is numpy.ndarray:
            return False
        return bool(self._real().is_masked(x))

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):  # the import system's questions
            raise AttributeError(attr)
        return getattr(self._real(), attr)

    @staticmethod
    def _real() -> types.ModuleType:
        import numpy

        real = importlib.import_module(MASKED)  # (which sets numpy.ma to itself)
        numpy.ma = real
        return real


def _masked() -> None:
    """numpy's attribute `ma` the stand-in, while numpy.ma is not imported, under the numpy
    release read (`MASKED_READ_FROM`)."""
    import numpy

    if MASKED in sys.modules or "ma" in numpy.__dict__ or numpy.__version__ != MASKED_READ_FROM:
        return
    numpy.ma = _Masked(MASKED)  # (numpy.ma is no attribute until imported)
