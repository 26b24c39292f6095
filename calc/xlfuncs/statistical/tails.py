"""The normal distribution's lower tail, and the arguments Excel reads as whole numbers, over the
bridged `formulas` implementations:

- NORM.DIST, NORM.S.DIST, NORMDIST and NORMSDIST, cumulative: `formulas` computes the
  distribution as 0.5 (1 + erf(z / sqrt 2)) (Python's statistics.NormalDist), which cancels to
  nothing in the lower tail: NORM.S.DIST(-10, TRUE) was 0 where Excel has 7.619853024160475e-24,
  NORM.DIST(0, 40, 1.5, TRUE) 0 for 5.7347825020024226e-157 (IronCalc's Excel-made
  STATISTICAL__NORM_DIST.xlsx, MIT or Apache-2.0, not committed: 'NORM.S.DIST NORM.S.INV'!C19,
  'NORM.DIST NORM.INV'!E32, E58: now within 2E-13 of Excel's). Below z = -3 it is
  0.5 erfc(-z / sqrt 2) here, as accurate there as above; from -3 up, `formulas`' answer (its
  bits, which the corpus's cells hold; it loses no more than 1E-13 of the value there).
- POISSON.DIST and POISSON: x from 0 up is truncated to a whole number of events, as
  Microsoft's page says; `formulas` gave the probability of exactly 0.2 events, 0
  (POISSON.DIST(0.2, 3, FALSE) is e^-3, 0.0497870683678639, in STATISTICAL__POISSON.xlsx D5,
  D23); below 0 it stays #NUM!, -0.5 too (D26).
- T.TEST and TTEST: tails and type truncated (T.TEST(A1:A7,B1:B7,2.2,3.3) is the two-tailed
  unequal-variance test, 0.6039040157469742, STATISTICAL__T_TEST.xlsx F8; `formulas`: #NUM!).
"""

from __future__ import annotations

import math

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import Callback, is_number
from rates_xl.calc.xlfuncs.types import Answer

#: Each cumulative normal function: the positions of x, the mean, the standard deviation and
#: `cumulative` (None: the standard normal, or always cumulative).
NORMAL = {"NORM.DIST": (0, 1, 2, 3), "NORMDIST": (0, 1, 2, 3), "NORM.S.DIST": (0, None, None, 1),
          "NORMSDIST": (0, None, None, None)}
#: Arguments truncated to whole numbers before the bridged function reads them: POISSON.DIST's
#: and POISSON's x, T.TEST's and TTEST's tails and type.
TRUNCATED = {"POISSON.DIST": (0,), "POISSON": (0,), "T.TEST": (2, 3), "TTEST": (2, 3)}


def _plain(value: EngineValue) -> float | None:
    """A plain number (an empty cell 0; not a logical value, text, an array or an error), else None."""
    if value is None:
        return 0.0
    return float(value) if is_number(value) else None


def lower_tail(name: str, call: Callback) -> Callback:
    """`call` (the bridged function), its cumulative answer below z = -3 computed with erfc."""
    at_x, at_mean, at_sd, at_cumulative = NORMAL[name]

    def accurate(*args: EngineValue) -> Answer:
        answer = call(*args)
        if not isinstance(answer, float) or any(isinstance(arg, list) for arg in args):
            return answer
        x = _plain(args[at_x]) if len(args) > at_x else None
        mean = 0.0 if at_mean is None else (_plain(args[at_mean]) if len(args) > at_mean else None)
        sd = 1.0 if at_sd is None else (_plain(args[at_sd]) if len(args) > at_sd else None)
        flag = args[at_cumulative] if at_cumulative is not None and len(args) > at_cumulative else True
        cumulative = flag is True or (_plain(flag) or 0.0) != 0  # (TRUE, or a number but 0)
        if x is None or mean is None or sd is None or not sd > 0 or not cumulative:
            return answer
        z = (x - mean) / sd
        return 0.5 * math.erfc(-z / math.sqrt(2)) if z < -3 else answer

    accurate.__name__ = getattr(call, "__name__", name)
    return accurate


def whole_numbers(name: str, call: Callback) -> Callback:
    """`call` (the bridged function) given its `TRUNCATED` arguments truncated, where each is a
    plain number from 0 up (below 0: the function's own #NUM!, -0.5 too)."""
    positions = TRUNCATED[name]

    def truncated(*args: EngineValue) -> Answer:
        given = list(args)
        for at in positions:
            if at < len(given) and given[at] is not None:  # (an empty cell is the function's own)
                x = _plain(given[at])  # (None for an error, text, a logical value)
                if x is not None and math.isfinite(x) and x >= 0:
                    given[at] = float(math.trunc(x))
        return call(*given)

    truncated.__name__ = getattr(call, "__name__", name)
    return truncated
