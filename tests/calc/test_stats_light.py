"""calc/xlfuncs/stats_light/ answers as scipy.stats does, bit for bit: each distribution's
methods and each statistic on a grid of arguments with the edges (the support's ends, 0 and 1
probabilities, NaN, infinities, invalid shapes, non-integral counts, ints and floats), and the
type of the answer too (numpy float64 where scipy gives one). The real scipy.stats is imported
here on purpose: it is the reference."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy
import scipy.stats

from rates_xl.calc.xlfuncs import stats_light

#: stats_light follows scipy 1.17's source; under another release it hands every name to scipy.stats
#: (test_another_scipy_release_is_left_to_scipy_stats) and these grids do not apply.
_READ_FROM_INSTALLED = pytest.mark.skipif(
    not scipy.__version__.startswith(stats_light.READ_FROM),
    reason=f"stats_light was read from scipy {stats_light.READ_FROM}x; installed: {scipy.__version__}",
)

_POINTS = (-np.inf, -3.5, -1, -0.0, 0, 0.0, 1e-300, 1e-9, 0.25, 0.5, 1, 1.5, 2, 3, 7.25, 30, 1e6, np.inf, np.nan)
_PROBABILITIES = (-0.1, 0, 0.0, 1e-300, 1e-12, 0.001, 0.025, 0.3, 0.5, 0.75, 0.975, 1 - 1e-12, 1, 1.0, 1.2, np.nan)
_COUNTS = (-1, 0, 1, 2, 3, 5, 10, 2.5, 60)


def _same(got: object, want: object) -> bool:
    """The same bits (NaN's and -0.0's included) and the same type (a result tuple: the same name
    and fields, scipy's class being scipy's)."""
    if isinstance(want, tuple) and isinstance(got, tuple):
        return type(got).__name__ == type(want).__name__ and len(got) == len(want) and all(
            _same(g, w) for g, w in zip(got, want, strict=True)
        )
    if type(got) is not type(want):
        return False
    g, w = np.asarray(got), np.asarray(want)
    return g.dtype == w.dtype and g.shape == w.shape and g.tobytes() == w.tobytes()


def _both(light: object, real: object, *args: object, **kwds: object) -> tuple[object, object]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            outcomes = []
            for call in (light, real):
                try:
                    outcomes.append(call(*args, **kwds))  # type: ignore[operator]
                except Exception as error:  # noqa: BLE001 - the same exception is part of the answer
                    outcomes.append((type(error).__name__, str(error)))
            return outcomes[0], outcomes[1]


def _check(cases: list[tuple[str, str, tuple[object, ...], dict[str, object]]]) -> None:
    differing = []
    for name, method, args, kwds in cases:
        light = getattr(stats_light.STATS[name], method)
        real = getattr(getattr(scipy.stats, name), method)
        got, want = _both(light, real, *args, **kwds)
        if not _same(got, want):
            differing.append(f"{name}.{method}{args}{kwds}: {got!r} != {want!r}")
    assert not differing, f"{len(differing)} of {len(cases)} differ:\n" + "\n".join(differing[:20])


_SHAPES = {
    "t": [(df,) for df in (-1, 0, 1, 2, 3, 4.5, 29, 1e10)],
    "chi2": [(df,) for df in (-2, 0, 1, 2, 3, 10, 57.5, 1e10)],
    "f": [(n, m) for n in (0, 1, 2, 5, 40) for m in (-1, 1, 3, 12, 1e6)],
    "beta": [(a, b) for a in (0, 0.5, 1, 2, 8.5) for b in (-1, 0.3, 1, 3, 40)],
    "gamma": [(a,) for a in (-1, 0, 0.25, 1, 2, 9.5, 300)],
    "lognorm": [(s,) for s in (-1, 0, 0.1, 1, 2.5)],
    "weibull_min": [(c,) for c in (-1, 0, 0.5, 1, 3, 12.5)],
}
_LOC_SCALE: list[dict[str, object]] = [{}, {"loc": 0.0, "scale": 2.5}, {"loc": -1, "scale": 0.5}, {"scale": -1}]


@_READ_FROM_INSTALLED
@pytest.mark.parametrize("name", sorted(_SHAPES))
def test_continuous_distributions_give_scipys_bits(name: str) -> None:
    cases: list[tuple[str, str, tuple[object, ...], dict[str, object]]] = []
    for shapes, where in itertools.product(_SHAPES[name], _LOC_SCALE):
        for method in ("cdf", "sf", "pdf"):
            cases += [(name, method, (x, *shapes), where) for x in _POINTS]
        for method in ("ppf", "isf"):
            cases += [(name, method, (q, *shapes), where) for q in _PROBABILITIES]
    if name == "lognorm":  # as `formulas` calls it: the shape by keyword, the scale exp(mu)
        cases += [(name, "cdf", (z,), {"s": s, "scale": math.exp(mu)}) for z in _POINTS for s in (0.5, 2) for mu in (-1, 0, 3)]
    _check(cases)


_DISCRETE = {
    "binom": ([(n, p) for n in (-1, 0, 1, 6, 10.5, 40, 1000) for p in (-0.1, 0, 0.2, 0.5, 0.999, 1)], ("pmf", "cdf", "ppf")),
    "poisson": ([(mu,) for mu in (-1, 0, 0.5, 4, 37.5, 1000)], ("pmf", "cdf", "ppf")),
    "nbinom": ([(n, p) for n in (-1, 0, 1, 3, 7.5, 50) for p in (0, 0.1, 0.5, 1, 1.5)], ("pmf", "cdf", "ppf")),
    "hypergeom": ([(M, n, N) for M in (0, 1, 10, 20, 50.5) for n in (-1, 0, 4, 10) for N in (0, 3, 10, 21)], ("pmf", "cdf")),
}
_KS = (-np.inf, -1, 0, 0.0, 0.5, 1, 2, 3, 3.7, 5, 9, 10, 20, 1e4, np.inf, np.nan)


@_READ_FROM_INSTALLED
@pytest.mark.parametrize("name", sorted(_DISCRETE))
def test_discrete_distributions_give_scipys_bits(name: str) -> None:
    shapes_list, methods = _DISCRETE[name]
    cases: list[tuple[str, str, tuple[object, ...], dict[str, object]]] = []
    for shapes, method in itertools.product(shapes_list, methods):
        points = _PROBABILITIES if method == "ppf" else _KS
        cases += [(name, method, (k, *shapes), {}) for k in points]
        if method != "ppf":
            cases += [(name, method, (k, *shapes), {"loc": 2}) for k in (1, 3, 6)]
    _check(cases)


@_READ_FROM_INSTALLED
def test_frozen_distributions_as_formulas_freezes_them() -> None:
    differing = []
    for name, args, kwds in (
        ("gamma", (2.5,), {"loc": 0.0, "scale": 3.0}),
        ("gamma", (0.5,), {"loc": 0.0, "scale": 0.25}),
        ("weibull_min", (), {"c": 1.5, "loc": 0.0, "scale": 2.0}),
        ("weibull_min", (), {"c": 0.75, "loc": 0.0, "scale": 10}),
        ("hypergeom", (20, 7, 12), {}),
        ("hypergeom", (1, 1, 1), {}),
    ):
        light, real = stats_light.STATS[name](*args, **kwds), getattr(scipy.stats, name)(*args, **kwds)
        methods = ("cdf", "pmf") if name == "hypergeom" else ("cdf", "pdf", "sf", "ppf")
        for method, x in itertools.product(methods, (*_KS, 0.3, 0.999)):
            got, want = _both(getattr(light, method), getattr(real, method), x)
            if not _same(got, want):
                differing.append(f"{name}{args}{kwds}.{method}({x}): {got!r} != {want!r}")
    assert not differing, "\n".join(differing)


@_READ_FROM_INSTALLED
def test_an_array_or_an_unknown_keyword_goes_to_scipy_itself() -> None:
    got = stats_light.STATS["t"].cdf(np.array([0.5, 1.0]), 3)
    assert isinstance(got, np.ndarray) and got.tobytes() == scipy.stats.t.cdf(np.array([0.5, 1.0]), 3).tobytes()
    assert stats_light.STATS["t"].cdf(True, 3) == scipy.stats.t.cdf(True, 3)
    assert stats_light.STATS["t"].logcdf(0.5, 3) == scipy.stats.t.logcdf(0.5, 3)  # not covered: scipy's
    assert stats_light.light("scipy.stats", "norm") is None  # not covered: the stand-in asks scipy
    assert stats_light.light("scipy.linalg", "t") is None


_SAMPLES = [
    [1.0, 2.0, 3.0, 4.0],
    [3, 1, 4, 1, 5, 9, 2, 6],
    [0.1, 0.2, 0.2, 0.2, 5.5, -3.25, 1e6, 7.0, 7.0],
    [2.0, 2.0, 2.0, 2.0, 2.0],
    [1e15, 1e15 + 1, 1e15 + 2, 1e15 + 4],
    [-1.5, -2.5, 8.0, 0.0, -0.0, 3.0, 3.0, 3.0],
    list(np.linspace(-5, 17, 301)),
    [1.0, float("nan"), 3.0, 4.0, 6.0],
]


@_READ_FROM_INSTALLED
@pytest.mark.parametrize("sample", _SAMPLES)
def test_statistics_give_scipys_bits(sample: list[float]) -> None:
    for bias, fisher in itertools.product((False, True), (False, True)):
        got, want = _both(stats_light.kurtosis, scipy.stats.kurtosis, sample, fisher=fisher, bias=bias, nan_policy="omit")
        assert _same(got, want), (bias, fisher, got, want)
    for method in ("min", "average", "max"):
        for data in (sample, [-v for v in sample], sorted(sample)):
            got, want = _both(stats_light.rankdata, scipy.stats.rankdata, data, method=method)
            assert _same(got, want), (method, data, got, want)
    for other in (sample[::-1], [v * 0.5 + 1 for v in sample], sorted(sample), [1.0] * len(sample), sample):
        got, want = _both(stats_light.linregress, scipy.stats.linregress, sample, other)
        assert _same(got, want), (other, got, want)
        assert _same(getattr(got, "intercept_stderr", None), getattr(want, "intercept_stderr", None))
        got, want = _both(stats_light.linregress, scipy.stats.linregress, other[:2], sample[:2])
        assert _same(got, want), (other, got, want)
        expected = [abs(v) + 1.0 for v in other]
        got, want = _both(stats_light.chisquare, scipy.stats.chisquare, sample, expected, sum_check=False)
        assert _same(got, want), (expected, got, want)
        assert _same(got.statistic, want.statistic)  # type: ignore[union-attr]


def test_another_scipy_release_is_left_to_scipy_stats(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scipy, "__version__", "1.17.1")
    assert stats_light.light("scipy.stats", "t") is stats_light.STATS["t"]
    monkeypatch.setattr(scipy, "__version__", "1.18.0")
    assert stats_light.light("scipy.stats", "t") is None


_FRESH = r"""
import json, sys
from rates_xl.calc.xlfuncs import stats_light as s

calls = []
for name, shapes in (("t", (3,)), ("chi2", (4,)), ("f", (3, 7)), ("beta", (2.0, 3.0)), ("gamma", (2.5,)),
                     ("lognorm", (0.75,)), ("weibull_min", (1.5,))):
    for method, point in (("pdf", 0.4), ("cdf", 0.4), ("sf", 0.4), ("ppf", 0.3), ("isf", 0.3)):
        calls.append(float(getattr(s.STATS[name], method)(point, *shapes, loc=0.0, scale=2.0)))
for name, shapes in (("binom", (10, 0.3)), ("poisson", (4.0,)), ("nbinom", (3, 0.4)), ("hypergeom", (20, 7, 12))):
    for method, point in (("pmf", 3), ("cdf", 3)) + ((("ppf", 0.3),) if name != "hypergeom" else ()):
        calls.append(float(getattr(s.STATS[name], method)(point, *shapes)))
frozen = s.STATS["gamma"](2.5, loc=0.0, scale=3.0)
calls += [float(frozen.cdf(1.0)), float(frozen.pdf(1.0)), float(s.STATS["hypergeom"](20, 7, 12).pmf(3))]
calls += [float(s.STATS["weibull_min"](c=1.5, loc=0.0, scale=2.0).cdf(1.0))]
calls += [float(s.kurtosis([1.0, 2.0, 4.0, 9.0, 3.0], bias=False, nan_policy="omit")),
          float(s.rankdata([3.0, 1.0, 3.0], method="average")[0]), float(s.rankdata([3.0, 1.0, 3.0], method="min")[0]),
          float(s.linregress([1.0, 2.0, 4.0], [2.0, 3.0, 7.0])[2]),
          float(s.chisquare([5.0, 7.0, 9.0], [6.0, 7.0, 8.0], sum_check=False).statistic)]
print(json.dumps({"calls": len(calls), "stats": "scipy.stats" in sys.modules, "special": "scipy.special" in sys.modules}))
"""


@_READ_FROM_INSTALLED
def test_every_covered_method_answers_without_importing_scipy_stats() -> None:
    """The grids above run with scipy.stats imported (it is their reference), so a method that
    reached scipy.stats' own code would pass them: a fresh process shows none does."""
    done = subprocess.run([sys.executable, "-c", _FRESH], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got == {"calls": 55, "stats": False, "special": True}
