"""The scipy.stats names `formulas`' statistical functions use, answered without importing
scipy.stats: each is the code scipy.stats 1.17 runs for a scalar argument, calling the same
scipy.special functions with the same arguments in the same order, so the answers are the same
bits (tests/calc/test_stats_light.py compares each with scipy.stats on a grid with the edges);
and scipy.linalg's `lstsq`, for LINEST and its kin, answered by numpy's.

Written by hand because of what importing scipy.stats costs: 0.6-0.7 CPU s and 75-78 MB over
numpy (it pulls in scipy.linalg, .optimize, .interpolate, .spatial, .integrate ...), against
0.035 CPU s for scipy.special's compiled ufuncs, which is all these need (scipy.special's own
package adds 0.13-0.2 s of array-API machinery: `scipy_modules` loads the ufuncs without it);
formulas_test.xlsx calls 15 of them and paid the whole import. Only what a book was seen to call
is here: any other name, a method not listed, an array argument or a bool (scipy's own
broadcasting and dtype rules) goes to the real scipy.stats, imported then, as before.

- `infrastructure.py`: the generic distribution paths (`rv_continuous`, `rv_discrete`,
  `rv_frozen` in `scipy/stats/_distn_infrastructure.py`) for a scalar argument;
- `distributions.py`: the 11 distributions' own methods (t, chi2, f, beta, gamma, lognorm,
  weibull_min; binom, poisson, nbinom, hypergeom: scipy's `stats/_continuous_distns.py`,
  `stats/_discrete_distns.py`);
- `samples.py`: the sample statistics (`kurtosis`, `rankdata`, `linregress`, `chisquare` in
  scipy's `stats/_stats_py.py`) over 1-D samples;
- `linalg.py`: scipy.linalg's `lstsq` (`formulas`' `_xlinest`) through numpy.linalg's, with scipy's cutoff;
- `scipy_modules.py`: scipy.special's compiled ufuncs (without the package's `__init__`),
  scipy.stats and scipy.linalg, each imported at its first call.

`scipy_deferred` hands these to `formulas.functions.stat` through its stand-ins for scipy.stats
and scipy.linalg (`light(module, name)`), only under the scipy release they were read from
(`READ_FROM`): scipy is not pinned (formulas brings it), and under another release everything
goes to scipy.stats and scipy.linalg.
"""

from __future__ import annotations

import importlib

from rates_xl.calc.xlfuncs.stats_light.distributions import DISTRIBUTIONS
from rates_xl.calc.xlfuncs.stats_light.linalg import LINALG, lstsq
from rates_xl.calc.xlfuncs.stats_light.samples import (
    STATISTICS,
    chisquare,
    kurtosis,
    linregress,
    rankdata,
)

__all__ = ["LINALG", "READ_FROM", "STATS", "chisquare", "kurtosis", "light", "linregress", "lstsq", "rankdata"]

#: scipy.stats' names answered here; any other is the real module's.
STATS: dict[str, object] = DISTRIBUTIONS | STATISTICS
#: The names answered here, by the scipy module they stand for.
_ANSWERED: dict[str, dict[str, object]] = {"scipy.stats": STATS, "scipy.linalg": LINALG}

#: The scipy release whose source this package follows (its minor version: the same code).
READ_FROM = "1.17."


def light(module: str, name: str) -> object | None:
    """What the stand-in for `module` answers `name` with, or None: the real module's."""
    answered = _ANSWERED.get(module)
    if answered is None or not importlib.import_module("scipy").__version__.startswith(READ_FROM):
        return None
    return answered.get(name)
