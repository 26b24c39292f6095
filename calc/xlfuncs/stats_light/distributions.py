"""The 11 distributions `formulas`' statistical functions call (t, chi2, f, beta, gamma, lognorm,
weibull_min; binom, poisson, nbinom, hypergeom): each one's private `_pdf`, `_cdf`, `_sf`,
`_ppf`, `_isf`, `_pmf`, `_argcheck`, `_get_support` as scipy.stats 1.17 has them in
`_continuous_distns.py` and `_discrete_distns.py` (the same scipy.special calls, the same
arithmetic), under the generic paths of `infrastructure.py`.
"""

from __future__ import annotations

import numpy as np

from rates_xl.calc.xlfuncs.stats_light.infrastructure import (
    Array,
    Continuous,
    Discrete,
    Distribution,
    End,
    real_method,
)
from rates_xl.calc.xlfuncs.stats_light.scipy_modules import special


def _isintegral(x: Array) -> Array:
    return np.asarray(x == np.round(x))


class _T(Continuous):
    name, shapes, methods = "t", ("df",), frozenset({"pdf", "cdf", "sf", "ppf", "isf"})

    def _scalar_pdf(self, x: Array, args: tuple[Array, ...], loc: Array, scale: Array) -> np.float64:
        if np.isinf(args[0]):  # scipy's normal branch (never from Excel's whole degrees of freedom)
            return real_method("t", "pdf")(x, *args, loc=loc, scale=scale)
        return super()._scalar_pdf(x, args, loc, scale)

    def _pdf(self, x: Array, df: Array) -> Array:
        return np.exp(self._logpdf(x, df))

    def _logpdf(self, x: Array, df: Array) -> Array:
        sc = special()
        return np.log(sc.poch(0.5 * df, 0.5)) - 0.5 * (np.log(df) + np.log(np.pi)) - (df + 1) / 2 * np.log1p(x * x / df)

    def _cdf(self, x: Array, df: Array) -> Array:
        return special().stdtr(df, x)

    def _sf(self, x: Array, df: Array) -> Array:
        return special().stdtr(df, -x)

    def _ppf(self, q: Array, df: Array) -> Array:
        return special().stdtrit(df, q)

    def _isf(self, q: Array, df: Array) -> Array:
        return -special().stdtrit(df, q)


class _Chi2(Continuous):
    name, shapes, a, methods = "chi2", ("df",), 0.0, frozenset({"pdf", "cdf", "sf", "ppf", "isf"})

    def _pdf(self, x: Array, df: Array) -> Array:
        return np.exp(self._logpdf(x, df))

    def _logpdf(self, x: Array, df: Array) -> Array:
        sc = special()
        return sc.xlogy(df / 2.0 - 1, x) - x / 2.0 - sc.gammaln(df / 2.0) - (np.log(2) * df) / 2.0

    def _cdf(self, x: Array, df: Array) -> Array:
        return special().chdtr(df, x)

    def _sf(self, x: Array, df: Array) -> Array:
        return special().chdtrc(df, x)

    def _isf(self, p: Array, df: Array) -> Array:
        return special().chdtri(df, p)

    def _ppf(self, p: Array, df: Array) -> Array:
        return 2 * special().gammaincinv(df / 2, p)


class _F(Continuous):
    name, shapes, a, methods = "f", ("dfn", "dfd"), 0.0, frozenset({"pdf", "cdf", "sf", "ppf", "isf"})

    def _pdf(self, x: Array, dfn: Array, dfd: Array) -> Array:
        return np.exp(self._logpdf(x, dfn, dfd))

    def _logpdf(self, x: Array, dfn: Array, dfd: Array) -> Array:
        sc = special()
        n = 1.0 * dfn
        m = 1.0 * dfd
        return m / 2 * np.log(m) + n / 2 * np.log(n) + sc.xlogy(n / 2 - 1, x) - (
            ((n + m) / 2) * np.log(m + n * x) + sc.betaln(n / 2, m / 2)
        )

    def _cdf(self, x: Array, dfn: Array, dfd: Array) -> Array:
        return special().fdtr(dfn, dfd, x)

    def _sf(self, x: Array, dfn: Array, dfd: Array) -> Array:
        return special().fdtrc(dfn, dfd, x)

    def _ppf(self, q: Array, dfn: Array, dfd: Array) -> Array:
        return special().fdtri(dfn, dfd, q)

    def _isf(self, q: Array, dfn: Array, dfd: Array) -> Array:  # rv_continuous's default: ppf(1 - q)
        return self._ppf(1.0 - q, dfn, dfd)


class _Beta(Continuous):
    name, shapes, a, b, methods = "beta", ("a", "b"), 0.0, 1.0, frozenset({"pdf", "cdf", "sf", "ppf", "isf"})

    def _pdf(self, x: Array, a: Array, b: Array) -> Array:
        with np.errstate(over="ignore"):
            return special()._beta_pdf(x, a, b)

    def _cdf(self, x: Array, a: Array, b: Array) -> Array:
        return special().betainc(a, b, x)

    def _sf(self, x: Array, a: Array, b: Array) -> Array:
        return special().betaincc(a, b, x)

    def _isf(self, x: Array, a: Array, b: Array) -> Array:
        return special().betainccinv(a, b, x)

    def _ppf(self, q: Array, a: Array, b: Array) -> Array:
        return special()._beta_ppf(q, a, b)


class _Gamma(Continuous):
    name, shapes, a, methods = "gamma", ("a",), 0.0, frozenset({"pdf", "cdf", "sf", "ppf", "isf"})

    def _pdf(self, x: Array, a: Array) -> Array:
        return np.exp(self._logpdf(x, a))

    def _logpdf(self, x: Array, a: Array) -> Array:
        sc = special()
        return sc.xlogy(a - 1.0, x) - x - sc.gammaln(a)

    def _cdf(self, x: Array, a: Array) -> Array:
        return special().gammainc(a, x)

    def _sf(self, x: Array, a: Array) -> Array:
        return special().gammaincc(a, x)

    def _ppf(self, q: Array, a: Array) -> Array:
        return special().gammaincinv(a, q)

    def _isf(self, q: Array, a: Array) -> Array:
        return special().gammainccinv(a, q)


class _Lognorm(Continuous):
    name, shapes, a, methods = "lognorm", ("s",), 0.0, frozenset({"pdf", "cdf", "sf", "ppf", "isf"})

    def _support_mask(self, x: Array, *args: Array) -> Array:  # lognorm's pdf: the open support
        return self._open_support_mask(x, *args)

    def _pdf(self, x: Array, s: Array) -> Array:
        return np.exp(self._logpdf(x, s))

    def _logpdf(self, x: Array, s: Array) -> Array:  # x != 0 on the open support: apply_where's first branch
        return -np.log(x) ** 2 / (2 * s**2) - np.log(s * x * np.sqrt(2 * np.pi))

    def _cdf(self, x: Array, s: Array) -> Array:
        return special().ndtr(np.log(x) / s)

    def _sf(self, x: Array, s: Array) -> Array:
        return special().ndtr(-(np.log(x) / s))

    def _ppf(self, q: Array, s: Array) -> Array:
        return np.exp(s * special().ndtri(q))

    def _isf(self, q: Array, s: Array) -> Array:
        return np.exp(s * -special().ndtri(q))


class _WeibullMin(Continuous):
    name, shapes, a, methods = "weibull_min", ("c",), 0.0, frozenset({"pdf", "cdf", "sf", "ppf", "isf"})

    def _pdf(self, x: Array, c: Array) -> Array:
        return c * pow(x, c - 1) * np.exp(-pow(x, c))

    def _cdf(self, x: Array, c: Array) -> Array:
        return -special().expm1(-pow(x, c))

    def _ppf(self, q: Array, c: Array) -> Array:
        return pow(-special().log1p(-q), 1.0 / c)

    def _sf(self, x: Array, c: Array) -> Array:
        return np.exp(-pow(x, c))

    def _isf(self, q: Array, c: Array) -> Array:
        return (-np.log(q)) ** (1 / c)


class _Binom(Discrete):
    name, shapes, methods = "binom", ("n", "p"), frozenset({"pmf", "cdf", "ppf"})

    def _argcheck(self, *args: Array) -> Array:
        n, p = args
        return (n >= 0) & _isintegral(n) & (p >= 0) & (p <= 1)

    def _get_support(self, *args: Array) -> tuple[End, End]:
        return self.a, args[0]

    def _pmf(self, x: Array, n: Array, p: Array) -> Array:
        return special()._binom_pmf(x, n, p)

    def _cdf(self, x: Array, n: Array, p: Array) -> Array:
        return special()._binom_cdf(np.floor(x), n, p)

    def _ppf(self, q: Array, n: Array, p: Array) -> Array:
        return special()._binom_ppf(q, n, p)


class _Poisson(Discrete):
    name, shapes, methods = "poisson", ("mu",), frozenset({"pmf", "cdf", "ppf"})

    def _argcheck(self, *args: Array) -> Array:
        return np.asarray(args[0] >= 0)

    def _pmf(self, k: Array, mu: Array) -> Array:
        sc = special()
        return np.exp(sc.xlogy(k, mu) - sc.gammaln(k + 1) - mu)

    def _cdf(self, x: Array, mu: Array) -> Array:
        return special().pdtr(np.floor(x), mu)

    def _ppf(self, q: Array, mu: Array) -> Array:
        sc = special()
        vals = np.ceil(sc.pdtrik(q, mu))
        vals1 = np.maximum(vals - 1, 0)
        temp = sc.pdtr(vals1, mu)
        return np.where(temp >= q, vals1, vals)


class _Nbinom(Discrete):
    name, shapes, methods = "nbinom", ("n", "p"), frozenset({"pmf", "cdf", "ppf"})

    def _argcheck(self, *args: Array) -> Array:
        n, p = args
        return (n > 0) & (p > 0) & (p <= 1)

    def _pmf(self, x: Array, n: Array, p: Array) -> Array:
        return special()._nbinom_pmf(x, n, p)

    def _cdf(self, x: Array, n: Array, p: Array) -> Array:
        return special()._nbinom_cdf(np.floor(x), n, p)

    def _ppf(self, q: Array, n: Array, p: Array) -> Array:
        with np.errstate(over="ignore"):
            return special()._nbinom_ppf(q, n, p)


class _Hypergeom(Discrete):
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
        return special()._hypergeom_pmf(k, n, N, M)

    def _cdf(self, k: Array, M: Array, n: Array, N: Array) -> Array:
        return special()._hypergeom_cdf(k, n, N, M)


#: The distributions covered, by their scipy.stats names.
DISTRIBUTIONS: dict[str, Distribution] = {
    dist.name: dist
    for dist in (_T(), _Chi2(), _F(), _Beta(), _Gamma(), _Lognorm(), _WeibullMin(), _Binom(), _Poisson(), _Nbinom(),
                 _Hypergeom())
}
