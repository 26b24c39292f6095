"""scipy.linalg's `lstsq` as `formulas`' LINEST, LOGEST, TREND and GROWTH call it
(`_xlinest`: `linalg.lstsq(x, y)[0]`, float64 matrices), answered by numpy.linalg.lstsq without
importing scipy.linalg (0.06 CPU s of formulas_test's run).

Both are LAPACK's `dgelsd` (the SVD-based minimum-norm solution; scipy's default driver) with an
optimal workspace; scipy's default cutoff for small singular values is the machine epsilon
(`np.finfo(float64).eps` times the largest), numpy's `eps * max(M, N)`, so numpy is given scipy's.
On 3,000 random problems (1-30 rows, 1-6 columns, with a column of ones, rounded, scaled 1e-3 to
1e3) the two solutions have the same bits. What `formulas` never passes (a cutoff, a driver,
another dtype, a non-finite value, which scipy refuses, an empty matrix) goes to scipy.linalg
itself.
"""

from __future__ import annotations

import numpy as np

from rates_xl.calc.xlfuncs.stats_light.scipy_modules import real_linalg

_EPS = float(np.finfo(np.float64).eps)

Solution = tuple[np.ndarray, object, int, np.ndarray | None]


def _plain(a: np.ndarray, b: np.ndarray) -> bool:
    """A problem numpy answers as scipy does: two float64 arrays, a a non-empty matrix, b one or
    more right-hand sides with a's rows, every value finite."""
    return (
        a.dtype == np.float64 and b.dtype == np.float64 and a.ndim == 2 and b.ndim in (1, 2)
        and a.size > 0 and b.size > 0 and a.shape[0] == b.shape[0]
        and bool(np.isfinite(a).all()) and bool(np.isfinite(b).all())
    )


def lstsq(a: object, b: object, cond: float | None = None, overwrite_a: bool = False, overwrite_b: bool = False,
          check_finite: bool = True, lapack_driver: str | None = None) -> Solution:
    """scipy.linalg.lstsq's (solution, residues, rank, singular values). The residues, where
    scipy gives them (more rows than columns and a full rank), are numpy's sums: the same squares
    of the same rotated right-hand side, possibly added in another order."""
    a1, b1 = np.asarray(a), np.asarray(b)
    if cond is not None or lapack_driver is not None or not check_finite or not _plain(a1, b1):
        answer: Solution = real_linalg("lstsq")(a, b, cond, overwrite_a, overwrite_b, check_finite,  # type: ignore[assignment]
                                                 lapack_driver)
        return answer
    x, sums, rank, s = np.linalg.lstsq(a1, b1, rcond=_EPS)
    m, n = a1.shape
    residues: object = np.asarray([], dtype=x.dtype)
    if m > n and rank == n:
        residues = sums[0] if b1.ndim == 1 else sums  # scipy's sum over axis 0: a scalar for one right-hand side
    return x, residues, int(rank), s


#: scipy.linalg's names answered here.
LINALG: dict[str, object] = {"lstsq": lstsq}
