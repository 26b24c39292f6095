"""scipy.stats' generic distribution machinery (`rv_continuous`, `rv_discrete`, `rv_frozen` in
`_distn_infrastructure.py`) for a scalar argument, step for step: the argument checks, the
support's masks, loc and scale, the ends of the support and of [0, 1], then the distribution's own
`_cdf`, `_ppf` ... (`distributions.py`). A bool, an array, a method or keyword not covered goes to
scipy.stats' own distribution (the package's docstring says why this is written by hand).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rates_xl.calc.xlfuncs.stats_light.scipy_modules import real

#: A 0-d or 1-element array of numbers, ints or floats as scipy would have them (its dtype rules kept).
Array = np.ndarray

_NAN = np.nan
_INF = np.inf


def real_method(name: str, method: str) -> Callable[..., np.float64]:
    """scipy.stats' distribution `name`'s own `method`."""
    answer: Callable[..., np.float64] = getattr(real(name), method)
    return answer


#: Python's ints numpy makes an int64 of (kind "i"): one past them is uint64 or an object array.
_INT64 = range(-(2**63), 2**63)


def _scalar(value: object) -> bool:
    """A number scipy takes as a 0-d int or float array (a bool, an array, an object: not ours)."""
    if type(value) is float or (type(value) is int and value in _INT64):  # most: no array made to tell
        return True
    if isinstance(value, (bool, np.bool_)):
        return False
    array = np.asarray(value) if isinstance(value, (int, float, np.number, np.ndarray)) else None
    return array is not None and array.ndim == 0 and array.dtype.kind in "iuf"


def _one(values: Array) -> np.float64:
    """The value scipy's `place(output, cond, values)` puts into its 0-d float64 output."""
    return np.float64(np.asarray(values).astype(np.float64).reshape(-1)[0])


#: A support's end: a number, or an array of one when it depends on the shapes.
End = float | Array


class Distribution:
    """One scipy.stats distribution's scalar path; anything else goes to the real one."""

    name = ""
    shapes: tuple[str, ...] = ()
    discrete = False
    a: float = -_INF
    b: float = _INF
    methods: frozenset[str] = frozenset()

    def _argcheck(self, *args: Array) -> Array:
        cond = np.asarray(True)
        for arg in args:
            cond = np.logical_and(cond, np.asarray(arg) > 0)
        return cond

    def _get_support(self, *args: Array) -> tuple[End, End]:
        return self.a, self.b

    def _hook(self, name: str) -> Callable[..., Array]:
        """The distribution's own `_cdf`, `_ppf` ... (their arguments differ from one to another);
        never scipy's through `__getattr__`, which would import scipy.stats."""
        hook: Callable[..., Array] = object.__getattribute__(self, name)
        return hook

    def _bind(self, args: tuple[object, ...], kwds: dict[str, object]) -> tuple[tuple[Array, ...], Array, Array] | None:
        """scipy's `_parse_args` (shapes, then loc, then scale), or None where the real one should answer."""
        names = self.shapes + (("loc",) if self.discrete else ("loc", "scale"))
        if len(args) > len(names):
            return None
        bound: dict[str, object] = dict(zip(names, args, strict=False))  # the rest by keyword
        for key, value in kwds.items():
            if key not in names or key in bound:
                return None
            bound[key] = value
        if any(name not in bound for name in self.shapes):
            return None
        bound.setdefault("loc", 0)
        if not self.discrete:
            bound.setdefault("scale", 1)
        if not all(_scalar(value) for value in bound.values()):
            return None
        shapes = tuple(np.asarray(bound[name]) for name in self.shapes)
        return shapes, np.asarray(bound["loc"]), np.asarray(bound.get("scale", 1))

    def __getattr__(self, attr: str) -> object:
        if attr.startswith("__"):  # copy's and pickle's questions: not scipy's
            raise AttributeError(attr)
        return getattr(real(self.name), attr)

    def __call__(self, *args: object, **kwds: object) -> object:
        """The frozen distribution (`stats.gamma(a, loc=0.0, scale=b)`)."""
        if self._bind(args, kwds) is None:
            return real(self.name)(*args, **kwds)
        return _Frozen(self, args, kwds)

    def _answer(self, method: str, point: object, args: tuple[object, ...], kwds: dict[str, object]) -> object:
        bound = self._bind(args, kwds)
        if method not in self.methods or bound is None or not _scalar(point):
            return real_method(self.name, method)(point, *args, **kwds)
        shapes, loc, scale = bound
        return self._hook("_scalar_" + method)(np.asarray(point), shapes, loc, scale)

    def cdf(self, x: object, *args: object, **kwds: object) -> object:
        return self._answer("cdf", x, args, kwds)

    def sf(self, x: object, *args: object, **kwds: object) -> object:
        return self._answer("sf", x, args, kwds)

    def pdf(self, x: object, *args: object, **kwds: object) -> object:
        return self._answer("pdf", x, args, kwds)

    def pmf(self, k: object, *args: object, **kwds: object) -> object:
        return self._answer("pmf", k, args, kwds)

    def ppf(self, q: object, *args: object, **kwds: object) -> object:
        return self._answer("ppf", q, args, kwds)

    def isf(self, q: object, *args: object, **kwds: object) -> object:
        return self._answer("isf", q, args, kwds)


class _Frozen:
    """`rv_frozen`: the distribution with its shapes, loc and scale bound."""

    def __init__(self, dist: Distribution, args: tuple[object, ...], kwds: dict[str, object]) -> None:
        self._dist, self._args, self._kwds = dist, args, kwds

    def __getattr__(self, attr: str) -> object:
        if attr.startswith("_"):
            raise AttributeError(attr)
        if attr in self._dist.methods:
            method: Callable[..., object] = getattr(self._dist, attr)
            return lambda point: method(point, *self._args, **self._kwds)
        return getattr(real(self._dist.name)(*self._args, **self._kwds), attr)


class Continuous(Distribution):
    """`rv_continuous`'s pdf, cdf, sf, ppf, isf for 0-d arguments, step for step."""

    def _open_support_mask(self, x: Array, *args: Array) -> Array:
        a, b = self._get_support(*args)
        with np.errstate(invalid="ignore"):
            return (a < x) & (x < b)

    def _support_mask(self, x: Array, *args: Array) -> Array:
        a, b = self._get_support(*args)
        with np.errstate(invalid="ignore"):
            return (a <= x) & (x <= b)

    def _standardised(self, x: Array, loc: Array, scale: Array) -> Array:
        dtyp = np.promote_types(x.dtype, np.float64)
        return np.asarray((x - loc) / scale, dtype=dtyp)

    def _scalar_pdf(self, x: Array, args: tuple[Array, ...], loc: Array, scale: Array) -> np.float64:
        x = self._standardised(x, loc, scale)
        cond0 = self._argcheck(*args) & (scale > 0)
        cond1 = self._support_mask(x, *args) & (scale > 0)
        output = np.float64(0.0)
        if not cond0 or np.isnan(x):
            output = np.float64(_NAN)
        if cond0 and cond1:
            goodargs = [np.atleast_1d(v) for v in (x, *args)]
            output = _one(self._hook("_pdf")(*goodargs) / np.atleast_1d(scale))
        return output

    def _tail(self, x: Array, args: tuple[Array, ...], loc: Array, scale: Array, hook: str) -> np.float64:
        """cdf (`_cdf`; 1 from the support's upper end on) and sf (`_sf`; 1 up to its lower end)."""
        _a, _b = self._get_support(*args)
        x = self._standardised(x, loc, scale)
        cond0 = self._argcheck(*args) & (scale > 0)
        cond1 = self._open_support_mask(x, *args) & (scale > 0)
        output = np.float64(0.0)
        if not cond0 or np.isnan(x):
            output = np.float64(_NAN)
        if cond0 and ((x >= np.asarray(_b)) if hook == "_cdf" else (x <= _a)):
            output = np.float64(1.0)
        if cond0 and cond1:
            output = _one(self._hook(hook)(*[np.atleast_1d(v) for v in (x, *args)]))
        return output

    def _scalar_cdf(self, x: Array, args: tuple[Array, ...], loc: Array, scale: Array) -> np.float64:
        return self._tail(x, args, loc, scale, "_cdf")

    def _scalar_sf(self, x: Array, args: tuple[Array, ...], loc: Array, scale: Array) -> np.float64:
        return self._tail(x, args, loc, scale, "_sf")

    def _inverse(self, q: Array, args: tuple[Array, ...], loc: Array, scale: Array, inverse: str) -> np.float64:
        _a, _b = self._get_support(*args)
        cond0 = self._argcheck(*args) & (scale > 0) & (loc == loc)
        low, high = (q == 0, q == 1) if inverse == "_ppf" else (q == 1, q == 0)
        output = np.float64(_NAN)
        if cond0 and low:
            output = _one(np.atleast_1d(_a * scale + loc))
        if cond0 and high:
            output = _one(np.atleast_1d(_b * scale + loc))
        if cond0 and (0 < q) & (q < 1):
            goodargs = [np.atleast_1d(v) for v in (q, *args, scale, loc)]
            scale1, loc1, goodargs = goodargs[-2], goodargs[-1], goodargs[:-2]
            output = _one(self._hook(inverse)(*goodargs) * scale1 + loc1)
        return output

    def _scalar_ppf(self, q: Array, args: tuple[Array, ...], loc: Array, scale: Array) -> np.float64:
        return self._inverse(q, args, loc, scale, "_ppf")

    def _scalar_isf(self, q: Array, args: tuple[Array, ...], loc: Array, scale: Array) -> np.float64:
        return self._inverse(q, args, loc, scale, "_isf")


class Discrete(Distribution):
    """`rv_discrete`'s pmf, cdf, ppf for 0-d arguments, step for step."""

    discrete = True
    a = 0
    b = _INF

    def _scalar_pmf(self, k: Array, args: tuple[Array, ...], loc: Array, scale: Array) -> np.float64:
        _a, _b = self._get_support(*args)
        k = np.asarray(k - loc)
        cond0 = self._argcheck(*args)
        cond1 = (k >= _a) & (k <= _b) & (np.floor(k) == k)
        output = np.float64(0.0)
        if not cond0 or np.isnan(k):
            output = np.float64(_NAN)
        if cond0 and cond1:
            output = _one(np.clip(self._hook("_pmf")(*[np.atleast_1d(v) for v in (k, *args)]), 0, 1))
        return output

    def _scalar_cdf(self, k: Array, args: tuple[Array, ...], loc: Array, scale: Array) -> np.float64:
        _a, _b = self._get_support(*args)
        k = np.asarray(k - loc)
        cond0 = self._argcheck(*args)
        output = np.float64(0.0)
        if k >= _b:
            output = np.float64(1.0)
        if np.isneginf(k):
            output = np.float64(0.0)
        if not cond0 or np.isnan(k):
            output = np.float64(_NAN)
        if cond0 and (k >= _a) & (k < _b) & np.isfinite(k):
            output = _one(np.clip(self._hook("_cdf")(*[np.atleast_1d(v) for v in (k, *args)]), 0, 1))
        return output

    def _scalar_ppf(self, q: Array, args: tuple[Array, ...], loc: Array, scale: Array) -> np.float64:
        _a, _b = self._get_support(*args)
        cond0 = self._argcheck(*args) & (loc == loc)
        output = np.float64(_NAN)
        if q == 0 and cond0:
            output = _one(np.atleast_1d(_a - 1 + loc))
        if q == 1 and cond0:
            output = _one(np.atleast_1d(_b + loc))
        if cond0 and (q > 0) & (q < 1):
            goodargs = [np.atleast_1d(v) for v in (q, *args, loc)]
            output = _one(self._hook("_ppf")(*goodargs[:-1]) + goodargs[-1])
        return output
