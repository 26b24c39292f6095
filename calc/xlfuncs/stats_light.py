"""The scipy.stats names `formulas`' statistical functions use, answered without importing
scipy.stats: each is the code scipy.stats 1.17 runs for a scalar argument (its generic
`rv_continuous`/`rv_discrete` methods in `_distn_infrastructure.py`, each distribution's `_cdf`,
`_ppf` ... in `_continuous_distns.py`/`_discrete_distns.py`, `kurtosis`, `rankdata`,
`linregress`, `chisquare` in `_stats_py.py`), calling the same scipy.special functions with the
same arguments in the same order, so the answers are the same bits (tests/calc/test_stats_light.py
compares each with scipy.stats on a grid with the edges).

Written by hand because of what importing scipy.stats costs: 0.6-0.7 CPU s and 75-78 MB over
numpy (it pulls in scipy.linalg, .optimize, .interpolate, .spatial, .integrate ...), against
0.2 CPU s and 28 MB for scipy.special, which is all these need; formulas_test.xlsx calls 15 of
them and paid the whole import. Only what a book was seen to call is here: any other name, a
method not listed, an array argument or a bool (scipy's own broadcasting and dtype rules) goes
to the real scipy.stats, imported then, as before.

`scipy_deferred` hands these to `formulas.functions.stat` through its stand-in for scipy.stats
(`light(module, name)`), only under the scipy release they were read from (`READ_FROM`): scipy
is not pinned (formulas brings it), and under another release everything goes to scipy.stats.
"""

from __future__ import annotations

import importlib
from collections import namedtuple
from collections.abc import Callable
from types import ModuleType

import numpy as np

#: A 0-d or 1-element array of numbers, ints or floats as scipy would have them (its dtype rules kept).
Array = np.ndarray

_NAN = np.nan
_INF = np.inf


def _special() -> ModuleType:
    return importlib.import_module("scipy.special")


def _ufuncs() -> ModuleType:
    """scipy.special's private ufuncs (`scu` in scipy.stats: the Boost-backed binom/nbinom/hypergeom)."""
    return importlib.import_module("scipy.special._ufuncs")


def _real(name: str) -> Callable[..., object]:
    """scipy.stats' own `name` (importing it: what the rest of this module saves)."""
    real: Callable[..., object] = getattr(importlib.import_module("scipy.stats"), name)
    return real


def _real_method(name: str, method: str) -> Callable[..., np.float64]:
    """scipy.stats' distribution `name`'s own `method`."""
    real: Callable[..., np.float64] = getattr(_real(name), method)
    return real


def _scalar(value: object) -> bool:
    """A number scipy takes as a 0-d int or float array (a bool, an array, an object: not ours)."""
    if isinstance(value, (bool, np.bool_)):
        return False
    array = np.asarray(value) if isinstance(value, (int, float, np.number, np.ndarray)) else None
    return array is not None and array.ndim == 0 and array.dtype.kind in "iuf"


def _one(values: Array) -> np.float64:
    """The value scipy's `place(output, cond, values)` puts into its 0-d float64 output."""
    return np.float64(np.asarray(values).astype(np.float64).reshape(-1)[0])


def _isintegral(x: Array) -> Array:
    return np.asarray(x == np.round(x))


#: A support's end: a number, or an array of one when it depends on the shapes.
End = float | Array


class _Distribution:
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
        return getattr(_real(self.name), attr)

    def __call__(self, *args: object, **kwds: object) -> object:
        """The frozen distribution (`stats.gamma(a, loc=0.0, scale=b)`)."""
        if self._bind(args, kwds) is None:
            return _real(self.name)(*args, **kwds)
        return _Frozen(self, args, kwds)

    def _answer(self, method: str, point: object, args: tuple[object, ...], kwds: dict[str, object]) -> object:
        bound = self._bind(args, kwds)
        if method not in self.methods or bound is None or not _scalar(point):
            return _real_method(self.name, method)(point, *args, **kwds)
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

    def __init__(self, dist: _Distribution, args: tuple[object, ...], kwds: dict[str, object]) -> None:
        self._dist, self._args, self._kwds = dist, args, kwds

    def __getattr__(self, attr: str) -> object:
        if attr.startswith("_"):
            raise AttributeError(attr)
        if attr in self._dist.methods:
            method: Callable[..., object] = getattr(self._dist, attr)
            return lambda point: method(point, *self._args, **self._kwds)
        return getattr(_real(self._dist.name)(*self._args, **self._kwds), attr)


class _Continuous(_Distribution):
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


class _Discrete(_Distribution):
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


# The distributions: scipy.stats' own private methods (same scipy.special calls, same arithmetic).


class _T(_Continuous):
    name, shapes, methods = "t", ("df",), frozenset({"pdf", "cdf", "sf", "ppf", "isf"})

    def _scalar_pdf(self, x: Array, args: tuple[Array, ...], loc: Array, scale: Array) -> np.float64:
        if np.isinf(args[0]):  # scipy's normal branch (never from Excel's whole degrees of freedom)
            return _real_method("t", "pdf")(x, *args, loc=loc, scale=scale)
        return super()._scalar_pdf(x, args, loc, scale)

    def _pdf(self, x: Array, df: Array) -> Array:
        return np.exp(self._logpdf(x, df))

    def _logpdf(self, x: Array, df: Array) -> Array:
        sc = _special()
        return np.log(sc.poch(0.5 * df, 0.5)) - 0.5 * (np.log(df) + np.log(np.pi)) - (df + 1) / 2 * np.log1p(x * x / df)

    def _cdf(self, x: Array, df: Array) -> Array:
        return _special().stdtr(df, x)

    def _sf(self, x: Array, df: Array) -> Array:
        return _special().stdtr(df, -x)

    def _ppf(self, q: Array, df: Array) -> Array:
        return _special().stdtrit(df, q)

    def _isf(self, q: Array, df: Array) -> Array:
        return -_special().stdtrit(df, q)


class _Chi2(_Continuous):
    name, shapes, a, methods = "chi2", ("df",), 0.0, frozenset({"pdf", "cdf", "sf", "ppf", "isf"})

    def _pdf(self, x: Array, df: Array) -> Array:
        return np.exp(self._logpdf(x, df))

    def _logpdf(self, x: Array, df: Array) -> Array:
        sc = _special()
        return sc.xlogy(df / 2.0 - 1, x) - x / 2.0 - sc.gammaln(df / 2.0) - (np.log(2) * df) / 2.0

    def _cdf(self, x: Array, df: Array) -> Array:
        return _special().chdtr(df, x)

    def _sf(self, x: Array, df: Array) -> Array:
        return _special().chdtrc(df, x)

    def _isf(self, p: Array, df: Array) -> Array:
        return _special().chdtri(df, p)

    def _ppf(self, p: Array, df: Array) -> Array:
        return 2 * _special().gammaincinv(df / 2, p)


class _F(_Continuous):
    name, shapes, a, methods = "f", ("dfn", "dfd"), 0.0, frozenset({"pdf", "cdf", "sf", "ppf", "isf"})

    def _pdf(self, x: Array, dfn: Array, dfd: Array) -> Array:
        return np.exp(self._logpdf(x, dfn, dfd))

    def _logpdf(self, x: Array, dfn: Array, dfd: Array) -> Array:
        sc = _special()
        n = 1.0 * dfn
        m = 1.0 * dfd
        return m / 2 * np.log(m) + n / 2 * np.log(n) + sc.xlogy(n / 2 - 1, x) - (
            ((n + m) / 2) * np.log(m + n * x) + sc.betaln(n / 2, m / 2)
        )

    def _cdf(self, x: Array, dfn: Array, dfd: Array) -> Array:
        return _special().fdtr(dfn, dfd, x)

    def _sf(self, x: Array, dfn: Array, dfd: Array) -> Array:
        return _special().fdtrc(dfn, dfd, x)

    def _ppf(self, q: Array, dfn: Array, dfd: Array) -> Array:
        return _special().fdtri(dfn, dfd, q)

    def _isf(self, q: Array, dfn: Array, dfd: Array) -> Array:  # rv_continuous's default: ppf(1 - q)
        return self._ppf(1.0 - q, dfn, dfd)


class _Beta(_Continuous):
    name, shapes, a, b, methods = "beta", ("a", "b"), 0.0, 1.0, frozenset({"pdf", "cdf", "sf", "ppf", "isf"})

    def _pdf(self, x: Array, a: Array, b: Array) -> Array:
        with np.errstate(over="ignore"):
            return _ufuncs()._beta_pdf(x, a, b)

    def _cdf(self, x: Array, a: Array, b: Array) -> Array:
        return _special().betainc(a, b, x)

    def _sf(self, x: Array, a: Array, b: Array) -> Array:
        return _special().betaincc(a, b, x)

    def _isf(self, x: Array, a: Array, b: Array) -> Array:
        return _special().betainccinv(a, b, x)

    def _ppf(self, q: Array, a: Array, b: Array) -> Array:
        return _ufuncs()._beta_ppf(q, a, b)


class _Gamma(_Continuous):
    name, shapes, a, methods = "gamma", ("a",), 0.0, frozenset({"pdf", "cdf", "sf", "ppf", "isf"})

    def _pdf(self, x: Array, a: Array) -> Array:
        return np.exp(self._logpdf(x, a))

    def _logpdf(self, x: Array, a: Array) -> Array:
        sc = _special()
        return sc.xlogy(a - 1.0, x) - x - sc.gammaln(a)

    def _cdf(self, x: Array, a: Array) -> Array:
        return _special().gammainc(a, x)

    def _sf(self, x: Array, a: Array) -> Array:
        return _special().gammaincc(a, x)

    def _ppf(self, q: Array, a: Array) -> Array:
        return _special().gammaincinv(a, q)

    def _isf(self, q: Array, a: Array) -> Array:
        return _special().gammainccinv(a, q)


class _Lognorm(_Continuous):
    name, shapes, a, methods = "lognorm", ("s",), 0.0, frozenset({"pdf", "cdf", "sf", "ppf", "isf"})

    def _support_mask(self, x: Array, *args: Array) -> Array:  # lognorm's pdf: the open support
        return self._open_support_mask(x, *args)

    def _pdf(self, x: Array, s: Array) -> Array:
        return np.exp(self._logpdf(x, s))

    def _logpdf(self, x: Array, s: Array) -> Array:  # x != 0 on the open support: apply_where's first branch
        return -np.log(x) ** 2 / (2 * s**2) - np.log(s * x * np.sqrt(2 * np.pi))

    def _cdf(self, x: Array, s: Array) -> Array:
        return _special().ndtr(np.log(x) / s)

    def _sf(self, x: Array, s: Array) -> Array:
        return _special().ndtr(-(np.log(x) / s))

    def _ppf(self, q: Array, s: Array) -> Array:
        return np.exp(s * _special().ndtri(q))

    def _isf(self, q: Array, s: Array) -> Array:
        return np.exp(s * -_special().ndtri(q))


class _WeibullMin(_Continuous):
    name, shapes, a, methods = "weibull_min", ("c",), 0.0, frozenset({"pdf", "cdf", "sf", "ppf", "isf"})

    def _pdf(self, x: Array, c: Array) -> Array:
        return c * pow(x, c - 1) * np.exp(-pow(x, c))

    def _cdf(self, x: Array, c: Array) -> Array:
        return -_special().expm1(-pow(x, c))

    def _ppf(self, q: Array, c: Array) -> Array:
        return pow(-_special().log1p(-q), 1.0 / c)

    def _sf(self, x: Array, c: Array) -> Array:
        return np.exp(-pow(x, c))

    def _isf(self, q: Array, c: Array) -> Array:
        return (-np.log(q)) ** (1 / c)


class _Binom(_Discrete):
    name, shapes, methods = "binom", ("n", "p"), frozenset({"pmf", "cdf", "ppf"})

    def _argcheck(self, *args: Array) -> Array:
        n, p = args
        return (n >= 0) & _isintegral(n) & (p >= 0) & (p <= 1)

    def _get_support(self, *args: Array) -> tuple[End, End]:
        return self.a, args[0]

    def _pmf(self, x: Array, n: Array, p: Array) -> Array:
        return _ufuncs()._binom_pmf(x, n, p)

    def _cdf(self, x: Array, n: Array, p: Array) -> Array:
        return _ufuncs()._binom_cdf(np.floor(x), n, p)

    def _ppf(self, q: Array, n: Array, p: Array) -> Array:
        return _ufuncs()._binom_ppf(q, n, p)


class _Poisson(_Discrete):
    name, shapes, methods = "poisson", ("mu",), frozenset({"pmf", "cdf", "ppf"})

    def _argcheck(self, *args: Array) -> Array:
        return np.asarray(args[0] >= 0)

    def _pmf(self, k: Array, mu: Array) -> Array:
        sc = _special()
        return np.exp(sc.xlogy(k, mu) - sc.gammaln(k + 1) - mu)

    def _cdf(self, x: Array, mu: Array) -> Array:
        return _special().pdtr(np.floor(x), mu)

    def _ppf(self, q: Array, mu: Array) -> Array:
        sc = _special()
        vals = np.ceil(sc.pdtrik(q, mu))
        vals1 = np.maximum(vals - 1, 0)
        temp = sc.pdtr(vals1, mu)
        return np.where(temp >= q, vals1, vals)


class _Nbinom(_Discrete):
    name, shapes, methods = "nbinom", ("n", "p"), frozenset({"pmf", "cdf", "ppf"})

    def _argcheck(self, *args: Array) -> Array:
        n, p = args
        return (n > 0) & (p > 0) & (p <= 1)

    def _pmf(self, x: Array, n: Array, p: Array) -> Array:
        return _ufuncs()._nbinom_pmf(x, n, p)

    def _cdf(self, x: Array, n: Array, p: Array) -> Array:
        return _ufuncs()._nbinom_cdf(np.floor(x), n, p)

    def _ppf(self, q: Array, n: Array, p: Array) -> Array:
        with np.errstate(over="ignore"):
            return _ufuncs()._nbinom_ppf(q, n, p)


class _Hypergeom(_Discrete):
    name, shapes, methods = "hypergeom", ("M", "n", "N"), frozenset({"pmf", "cdf"})

    def _get_support(self, *args: Array) -> tuple[End, End]:
        M, n, N = args
        return np.maximum(N - (M - n), 0), np.minimum(n, N)

    def _argcheck(self, *args: Array) -> Array:
        M, n, N = args
        cond = (M > 0) & (n >= 0) & (N >= 0)
        cond &= (n <= M) & (N <= M)
        cond &= _isintegral(M) & _isintegral(n) & _isintegral(N)
        return cond

    def _pmf(self, k: Array, M: Array, n: Array, N: Array) -> Array:
        return _ufuncs()._hypergeom_pmf(k, n, N, M)

    def _cdf(self, k: Array, M: Array, n: Array, N: Array) -> Array:
        return _ufuncs()._hypergeom_cdf(k, n, N, M)


# The statistics: 1-D inputs of numbers without a NaN (scipy's nan_policy machinery otherwise).


def _plain_1d(*samples: object) -> list[Array] | None:
    arrays = []
    for sample in samples:
        try:
            array = np.asarray(sample)
        except (TypeError, ValueError):
            return None
        if array.ndim != 1 or array.dtype.kind not in "iuf" or np.isnan(array).any():
            return None
        arrays.append(array)
    return arrays


def kurtosis(a: object, axis: int = 0, fisher: bool = True, bias: bool = True, nan_policy: str = "propagate") -> object:
    """scipy.stats.kurtosis over a 1-D sample (`_moment` with the mean given: m2, m4)."""
    plain = _plain_1d(a) if axis in (0, -1) and nan_policy in ("propagate", "omit") else None
    if plain is None or plain[0].size == 0:
        return _real("kurtosis")(a, axis=axis, fisher=fisher, bias=bias, nan_policy=nan_policy)
    sample = plain[0]
    n = sample.shape[-1]
    mean = np.mean(sample, axis=-1, keepdims=True)
    mean_reduced = np.squeeze(mean, axis=-1)
    floating = sample.astype(np.float64) if sample.dtype.kind in "iu" else sample
    a_zero_mean = floating - np.asarray(mean, dtype=floating.dtype)
    m2 = np.mean(a_zero_mean**2, axis=-1)
    m4 = np.mean((a_zero_mean**2) ** 2, axis=-1)
    with np.errstate(all="ignore"):
        zero = m2 <= (np.finfo(m2.dtype).eps * mean_reduced) ** 2
        vals = np.where(zero, np.nan, m4 / m2**2.0)
        if not bias:
            can_correct = ~zero & (n > 3)
            if np.any(can_correct):
                nval = 1.0 / (n - 2) / (n - 3) * ((n**2 - 1.0) * m4 / m2**2.0 - 3 * (n - 1) ** 2.0)
                vals = np.where(can_correct, nval + 3.0, vals)
    vals = vals - 3 if fisher else vals
    return vals[()]


def rankdata(a: object, method: str = "average", *, axis: int | None = None, nan_policy: str = "propagate") -> object:
    """scipy.stats.rankdata over a 1-D sample (`_rankdata`: a stable argsort, ties by method)."""
    plain = _plain_1d(a) if axis is None and method in ("average", "min", "max") else None
    if plain is None or plain[0].size == 0:
        return _real("rankdata")(a, method=method, axis=axis, nan_policy=nan_policy)
    x = plain[0]
    size = x.shape[-1]
    dtype = np.asarray(1.0).dtype if method == "average" else np.asarray(1).dtype
    j = np.argsort(x, axis=-1, stable=True)
    ordinal_ranks = np.arange(1, size + 1, dtype=dtype)
    y = np.take_along_axis(x, j, axis=-1)
    i = np.concatenate([np.ones((1,), dtype=bool), y[:-1] != y[1:]])
    indices = np.arange(size)[i]
    counts = np.diff(indices, append=np.asarray([size], dtype=indices.dtype))
    if method == "min":
        ranks = ordinal_ranks[i]
    elif method == "max":
        ranks = ordinal_ranks[i] + counts - 1
    else:
        ranks = ordinal_ranks[i] + (np.asarray(counts, dtype=dtype) - 1) / 2
    ranks = np.repeat(ranks, counts)
    ordered = np.empty(j.shape, dtype=ranks.dtype)
    np.put_along_axis(ordered, j, ranks, axis=-1)
    return ordered


class LinregressResult(namedtuple("LinregressResult", ("slope", "intercept", "rvalue", "pvalue", "stderr"))):
    """scipy's result: five fields as a tuple, and `intercept_stderr` as an attribute."""

    intercept_stderr: object

    def __new__(cls, *fields: object, intercept_stderr: object = None) -> LinregressResult:
        result = super().__new__(cls, *fields)
        result.intercept_stderr = intercept_stderr
        return result


def linregress(x: object, y: object, alternative: str = "two-sided") -> object:
    """scipy.stats.linregress of two 1-D samples of one length >= 2 (np.cov's sums, stdtr's p-value)."""
    plain = _plain_1d(x, y) if alternative == "two-sided" else None
    if plain is None or plain[0].size < 2 or plain[0].size != plain[1].size:
        return _real("linregress")(x, y, alternative=alternative)
    x, y = (sample.astype(np.result_type(*plain)) for sample in plain)  # the decorator's xp_promote
    TINY = 1.0e-20
    if np.amax(x) == np.amin(x) and len(x) > 1:
        raise ValueError("Cannot calculate a linear regression if all x values are identical")
    n = len(x)
    xmean = np.mean(x, None)
    ymean = np.mean(y, None)
    ssxm, ssxym, _, ssym = np.cov(x, y, bias=True).flat  # scipy's bias=1
    r: float | Array
    if ssxm == 0.0 or ssym == 0.0:
        r = np.asarray(np.nan if ssxym == 0 else 0.0)[()]
    else:
        r = ssxym / np.sqrt(ssxm * ssym)
        if r > 1.0:
            r = 1.0
        elif r < -1.0:
            r = -1.0
    slope = ssxym / ssxm
    intercept = ymean - slope * xmean
    if n == 2:
        prob = 1.0 if y[0] == y[1] else 0.0
        slope_stderr = 0.0
        intercept_stderr = 0.0
    else:
        df = n - 2
        t = r * np.sqrt(df / ((1.0 - r + TINY) * (1.0 + r + TINY)))
        prob = 2 * _special().stdtr(df, -np.abs(t))
        prob = prob[()] if np.ndim(prob) == 0 else prob
        slope_stderr = np.sqrt((1 - r**2) * ssym / ssxm / df)
        intercept_stderr = slope_stderr * np.sqrt(ssxm + xmean**2)
    return LinregressResult(slope, intercept, r, prob, slope_stderr, intercept_stderr=intercept_stderr)


Power_divergenceResult = namedtuple("Power_divergenceResult", ("statistic", "pvalue"))


def chisquare(f_obs: object, f_exp: object = None, ddof: int = 0, axis: int = 0, *, sum_check: bool = True) -> object:
    """scipy.stats.chisquare (Pearson's statistic, `_power_divergence`) with expected values given and
    the sum check off, as `formulas`' CHISQ.TEST calls it."""
    plain = _plain_1d(f_obs, f_exp) if f_exp is not None and not sum_check and axis in (0, -1) and ddof == 0 else None
    if plain is None or plain[0].size == 0 or plain[0].size != plain[1].size:
        return _real("chisquare")(f_obs, f_exp, ddof=ddof, axis=axis, sum_check=sum_check)
    obs, exp = (sample.astype(np.float64) for sample in plain)  # `_power_divergence`'s xp_promote
    terms = (obs - exp) ** 2 / exp
    stat = np.sum(terms, axis=-1)
    df = np.asarray(terms.shape[-1], dtype=np.float64) - 1 - np.float64(ddof)
    pvalue = _special().chdtrc(df, stat)
    return Power_divergenceResult(stat[()], pvalue[()])


#: scipy.stats' names answered here; any other is the real module's.
STATS: dict[str, object] = {
    dist.name: dist
    for dist in (_T(), _Chi2(), _F(), _Beta(), _Gamma(), _Lognorm(), _WeibullMin(), _Binom(), _Poisson(), _Nbinom(),
                 _Hypergeom())
} | {"kurtosis": kurtosis, "rankdata": rankdata, "linregress": linregress, "chisquare": chisquare}


#: The scipy release whose source this module follows (its minor version: the same code).
READ_FROM = "1.17."


def light(module: str, name: str) -> object | None:
    """What the stand-in for `module` answers `name` with, or None: the real module's."""
    if module != "scipy.stats" or not importlib.import_module("scipy").__version__.startswith(READ_FROM):
        return None
    return STATS.get(name)
