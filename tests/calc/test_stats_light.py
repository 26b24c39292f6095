"""calc/xlfuncs/stats_light/ answers as scipy.stats does, bit for bit: each distribution's
methods and each statistic on a grid of arguments with the edges (the support's ends, 0 and 1
probabilities, NaN, infinities, invalid shapes, non-integral counts, ints and floats), and the
type of the answer too (numpy float64 where scipy gives one). The real scipy.stats is imported
here on purpose: it is the reference."""

from __future__ import annotations

import itertools
import json
import math
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy

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


@pytest.fixture(autouse=True, scope="module")
def _scipy_stats() -> None:
    """The reference, imported when this module's tests run rather than when it is collected:
    each xdist worker collects every module, and scipy.stats costs 1.5 CPU s to import."""
    import scipy.stats  # noqa: F401 - scipy.stats is then an attribute of scipy


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


_EXTREMES = {  # large counts, probabilities near 0 and 1, both tails of the cumulative
    "binom": [(n, p) for n in (10**6, 2**31 + 11) for p in (1e-12, 1e-6, 0.5, 1 - 1e-6, 1 - 1e-12)],
    "nbinom": [(n, p) for n in (1, 1000, 10**6) for p in (1e-9, 1e-3, 0.5, 1 - 1e-9)],
    "hypergeom": [(10**6, n, N) for n in (1, 1000, 500000, 999999) for N in (1, 5000, 999997)]
    + [(10**9, 1000, 5000), (10**9, 10**6, 10**5)],  # Boost takes seconds per call at M 1e9 with n or N tiny or huge
}
_PROBABILITIES_TAILS = (1e-300, 1e-15, 1e-9, 0.5, 1 - 1e-9, 1 - 1e-15)


@_READ_FROM_INSTALLED
@pytest.mark.parametrize("name", sorted(_EXTREMES))
def test_discrete_extremes_give_scipys_bits(name: str) -> None:
    cases: list[tuple[str, str, tuple[object, ...], dict[str, object]]] = []
    for shapes in _EXTREMES[name]:
        big = max(float(v) for v in shapes)
        centre = float(np.prod([float(v) for v in shapes])) if name == "binom" else big / 2
        ks = sorted({0, 1, 5, math.floor(centre), math.floor(centre) + 3, math.floor(big) - 1, math.floor(big)})
        cases += [(name, method, (k, *shapes), {}) for k in ks for method in ("pmf", "cdf")]
        if name == "binom" or (name == "nbinom" and float(shapes[1]) >= 1e-3):  # Boost's nbinom quantile
            cases += [(name, "ppf", (q, *shapes), {}) for q in _PROBABILITIES_TAILS]  # searches 10 s at p 1e-9
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
import json, os, sys
from rates_xl.calc.xlfuncs import stats_light as s
from rates_xl.calc.xlfuncs.stats_light.scipy_modules import special

calls = []  # (scipy.stats name or None for a sample statistic, frozen?, method, point, args, kwds)
for name, shapes in (("t", (3,)), ("chi2", (4,)), ("f", (3, 7)), ("beta", (2.0, 3.0)), ("gamma", (2.5,)),
                     ("lognorm", (0.75,)), ("weibull_min", (1.5,))):
    for method, point in (("pdf", 0.4), ("cdf", 0.4), ("sf", 0.4), ("ppf", 0.3), ("isf", 0.3)):
        calls.append((name, False, method, point, shapes, {"loc": 0.0, "scale": 2.0}))
for name, shapes in (("binom", (10, 0.3)), ("poisson", (4.0,)), ("nbinom", (3, 0.4)), ("hypergeom", (20, 7, 12))):
    for method, point in (("pmf", 3), ("cdf", 3)) + ((("ppf", 0.3),) if name != "hypergeom" else ()):
        calls.append((name, False, method, point, shapes, {}))
calls += [("gamma", True, "cdf", 1.0, (2.5,), {"loc": 0.0, "scale": 3.0}),
          ("gamma", True, "pdf", 1.0, (2.5,), {"loc": 0.0, "scale": 3.0}),
          ("hypergeom", True, "pmf", 3, (20, 7, 12), {}),
          ("weibull_min", True, "cdf", 1.0, (), {"c": 1.5, "loc": 0.0, "scale": 2.0})]


def answer(stats, kurtosis, rankdata, linregress, chisquare):
    got = []
    for name, frozen, method, point, args, kwds in calls:
        dist = stats[name](*args, **kwds) if frozen else stats[name]
        got.append(float(getattr(dist, method)(point, *(() if frozen else args), **({} if frozen else kwds))))
    got += [float(kurtosis([1.0, 2.0, 4.0, 9.0, 3.0], bias=False, nan_policy="omit")),
            float(rankdata([3.0, 1.0, 3.0], method="average")[0]), float(rankdata([3.0, 1.0, 3.0], method="min")[0]),
            float(linregress([1.0, 2.0, 4.0], [2.0, 3.0, 7.0])[2]),
            float(chisquare([5.0, 7.0, 9.0], [6.0, 7.0, 8.0], sum_check=False).statistic)]
    return [v.hex() for v in got]


light = answer(s.STATS, s.kurtosis, s.rankdata, s.linregress, s.chisquare)
loaded = {m: m in sys.modules for m in ("scipy.stats", "scipy.special", "scipy.special._ufuncs", "scipy.linalg")}
ufuncs = special()
import scipy.stats, scipy.special  # the real ones now: their __init__ finds the same compiled ufuncs
real = answer(vars(scipy.stats), scipy.stats.kurtosis, scipy.stats.rankdata, scipy.stats.linregress,
              scipy.stats.chisquare)
names = json.loads(sys.argv[1])
# What another thread's `import scipy.special` gets during the load answers from the real package.
from rates_xl.calc.xlfuncs.stats_light.scipy_modules import _Package
meanwhile = _Package("scipy.special")
print(json.dumps({"calls": len(light), "loaded": loaded, "same": light == real,
                  "package_real": type(sys.modules["scipy.special"]) is type(sys),
                  "meanwhile": meanwhile.logsumexp is scipy.special.logsumexp and meanwhile.stdtr is scipy.special.stdtr,
                  "ufuncs_reexported": scipy.special._ufuncs is ufuncs,
                  "not_reexported": [n for n in names if not n.startswith("_")
                                     and getattr(scipy.special, n) is not getattr(ufuncs, n)],
                  "private": [n for n in names if n.startswith("_") and hasattr(ufuncs, n)],
                  "array_api": bool(os.environ.get("SCIPY_ARRAY_API"))}))
"""


def _special_names() -> list[str]:
    """The scipy.special functions stats_light calls (`special().name`, `sc.name`), read from its source."""
    folder = Path(stats_light.__file__).parent
    source = "".join((folder / module).read_text() for module in ("distributions.py", "samples.py"))
    return sorted(set(re.findall(r"(?:special\(\)|\bsc)\.(\w+)", source)))


@_READ_FROM_INSTALLED
def test_every_covered_method_answers_without_importing_scipy_stats() -> None:
    """The grids above run with scipy.stats imported (it is their reference), so a method that
    reached scipy.stats' own code would pass them: a fresh process shows none does, and that none
    imports scipy.special's package (its `__init__`: 0.13-0.2 CPU s of array-API machinery), only
    its compiled ufuncs; then, importing the real scipy.stats and scipy.special there, that each
    answer has the same bits as theirs and each function called is the very object scipy.special
    exports."""
    names = _special_names()
    assert {"stdtr", "betainc", "gammaincinv", "_binom_pmf", "_nbinom_cdf", "_hypergeom_cdf", "_beta_ppf"} <= set(names)
    done = subprocess.run([sys.executable, "-c", _FRESH, json.dumps(names)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["calls"] == 55 and got["same"] is True
    assert got["loaded"] == {"scipy.stats": False, "scipy.special": False, "scipy.special._ufuncs": True,
                             "scipy.linalg": False}
    assert got["ufuncs_reexported"] is True and got["package_real"] is True and got["meanwhile"] is True
    # The public names are _ufuncs' own objects (wrapped, calling the same ufunc, under SCIPY_ARRAY_API);
    # the private ones (_binom_pmf ...) are those scipy.stats itself takes from _ufuncs (`scu`).
    public = [n for n in names if not n.startswith("_")]
    assert got["not_reexported"] == (public if got["array_api"] else [])
    assert got["private"] == [n for n in names if n.startswith("_")]


def _least_squares_problems() -> list[tuple[np.ndarray, np.ndarray]]:
    """LINEST's shapes: a column of ones beside 1-5 regressors, 1-40 observations (fewer than the
    columns too), values scaled 1e-6 to 1e8, whole numbers, collinear and constant columns (rank
    deficient: the minimum-norm answer), nearly collinear ones (where the cutoff for small singular
    values decides the rank), one or more right-hand sides."""
    rng = np.random.default_rng(20261129)
    problems = []
    for trial in range(600):
        m, n = int(rng.integers(1, 41)), int(rng.integers(1, 6))
        x = rng.normal(size=(m, n)) * 10.0 ** int(rng.integers(-6, 9))
        if trial % 5 == 0:
            x = np.round(x)
        if trial % 7 == 0 and n > 1:
            x[:, -1] = 3 * x[:, 0]  # collinear
        elif trial % 4 == 1 and n > 1 and m > 8:  # nearly: a singular value between scipy's cutoff and numpy's
            x[:, -1] = 3 * x[:, 0] * (1 + 10.0 ** float(rng.uniform(-15.5, -14)) * rng.normal(size=m))
        if trial % 11 == 0:
            x[:, 0] = 2.5  # constant beside the ones: collinear with them
        if trial % 2 == 0:
            x = np.column_stack([np.ones(m), x])
        y = x @ rng.normal(size=x.shape[1]) + rng.normal(size=m) * 10.0 ** int(rng.integers(-3, 3))
        problems.append((x, y if trial % 3 else y.reshape(m, 1)))
    return problems


@_READ_FROM_INSTALLED
def test_lstsq_answers_as_scipy_linalg() -> None:
    import scipy.linalg

    differing = []
    for x, y in _least_squares_problems():
        got, want = stats_light.lstsq(x, y), scipy.linalg.lstsq(x, y)
        scale = max(float(np.abs(want[0]).max()), 1e-300)
        if not (got[0].shape == want[0].shape and got[2] == want[2] and np.allclose(got[0], want[0], rtol=1e-9, atol=1e-12 * scale)
                and np.allclose(got[3], want[3], rtol=1e-12) and np.shape(got[1]) == np.shape(want[1])
                and np.allclose(got[1], want[1], rtol=1e-8, atol=1e-12 * float(np.sum(y**2)))):
            differing.append(f"{x.shape} rank {want[2]}: {got[0].ravel()[:3]} != {want[0].ravel()[:3]}")
    assert not differing, f"{len(differing)} differ:\n" + "\n".join(differing[:10])


@_READ_FROM_INSTALLED
def test_lstsq_leaves_what_formulas_never_passes_to_scipy() -> None:
    import scipy.linalg

    ok = np.array([[1.0, 2.0], [1.0, 3.0], [1.0, 5.0]])
    for a, b, kwds in (
        (np.array([[1.0, np.nan], [1.0, 3.0]]), np.array([1.0, 2.0]), {}),  # scipy refuses: ValueError
        (ok, np.array([1.0, np.inf, 2.0]), {}),
        ([[1, 2], [1, 3], [1, 5]], [1, 2, 4], {}),  # integers: scipy's dtype rules
        (ok, np.array([1.0, 2.0]), {}),  # rows differ: scipy's message
        (np.zeros((0, 2)), np.zeros(0), {}),  # empty: scipy's zero answer
        (ok, np.array([1.0, 2.0, 4.0]), {"cond": 0.5}),
        (ok, np.array([1.0, 2.0, 4.0]), {"lapack_driver": "gelsy"}),
    ):
        got, want = _both(stats_light.lstsq, scipy.linalg.lstsq, a, b, **kwds)
        if isinstance(want, tuple) and isinstance(want[0], str):
            assert got == want, (a, b, kwds)
        else:
            assert isinstance(got, tuple) and isinstance(want, tuple)
            assert all(_same(g, w) for g, w in zip(got, want, strict=True)), (a, b, kwds, got, want)
    got = stats_light.lstsq(ok, np.array([1.0, 2.0, 4.0]))
    assert np.allclose(ok @ got[0], [1.0, 2.0, 4.0], atol=0.3) and isinstance(got[1], np.float64) and got[2] == 2


def test_a_scalar_is_what_numpy_makes_a_0_d_number_of():
    """infrastructure._scalar takes a Python float or an int64's int without making an array: the
    same answer as the array's rule (0-d, kind int, unsigned or float; never a bool) on the edges."""
    from rates_xl.calc.xlfuncs.stats_light import infrastructure

    values: list[object] = [0, 1, -1, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64, 10**30, 0.0, -0.0, 1.5,
                            float("nan"), float("inf"), True, False, np.float64(2.0), np.int64(3), np.bool_(True),
                            np.array(1.0), np.array([1.0]), "1", None, 1j]
    for value in values:
        array = np.asarray(value)
        expected = not isinstance(value, bool | np.bool_) and array.ndim == 0 and array.dtype.kind in "iuf"
        assert infrastructure._scalar(value) is expected, value
