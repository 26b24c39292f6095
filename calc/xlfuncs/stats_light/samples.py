"""The sample statistics `formulas`' statistical functions call: scipy.stats 1.17's `kurtosis`
(KURT), `rankdata` (RANK.EQ, RANK.AVG), `linregress` (RSQ) and `chisquare` (CHISQ.TEST) from
`_stats_py.py`, for 1-D samples of numbers without a NaN, with the same numpy reductions in the
same order; anything else (scipy's axis, nan_policy and dtype machinery) goes to scipy.stats' own.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from rates_xl.calc.xlfuncs.stats_light.scipy_modules import real, special


def _plain_1d(*samples: object) -> list[np.ndarray] | None:
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
        return real("kurtosis")(a, axis=axis, fisher=fisher, bias=bias, nan_policy=nan_policy)
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
        return real("rankdata")(a, method=method, axis=axis, nan_policy=nan_policy)
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
        return real("linregress")(x, y, alternative=alternative)
    x, y = (sample.astype(np.result_type(*plain)) for sample in plain)  # the decorator's xp_promote
    TINY = 1.0e-20
    if np.amax(x) == np.amin(x) and len(x) > 1:
        raise ValueError("Cannot calculate a linear regression if all x values are identical")
    n = len(x)
    xmean = np.mean(x, None)
    ymean = np.mean(y, None)
    ssxm, ssxym, _, ssym = np.cov(x, y, bias=True).flat  # scipy's bias=1
    r: float | np.ndarray
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
        prob = 2 * special().stdtr(df, -np.abs(t))
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
        return real("chisquare")(f_obs, f_exp, ddof=ddof, axis=axis, sum_check=sum_check)
    obs, exp = (sample.astype(np.float64) for sample in plain)  # `_power_divergence`'s xp_promote
    terms = (obs - exp) ** 2 / exp
    stat = np.sum(terms, axis=-1)
    df = np.asarray(terms.shape[-1], dtype=np.float64) - 1 - np.float64(ddof)
    pvalue = special().chdtrc(df, stat)
    return Power_divergenceResult(stat[()], pvalue[()])


#: The statistics covered, by their scipy.stats names.
STATISTICS: dict[str, object] = {"kurtosis": kurtosis, "rankdata": rankdata, "linregress": linregress, "chisquare": chisquare}
