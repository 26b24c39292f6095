"""BINOM.DIST.RANGE, and the probability checks of BINOM.INV and NEGBINOM.DIST, as Excel answers
them.

The bridged `formulas` implementations answered a number where Excel answers #NUM! (Excel 16's
values in IronCalc's Excel-made STATISTICAL__BINOM.xlsx; MIT or Apache-2.0, not committed):

- BINOM.DIST.RANGE with number_s2 below number_s (an empty cell is 0) or past the trials:
  -0.18 and -0.2 (BINOM.DIST.RANGE!E12, E19, E20);
- BINOM.INV with a probability of 1, or TRUE read as 1: 10 (BINOM.INV!D25, D44);
- NEGBINOM.DIST with a probability of 1: 1 (NEGBINOM.DIST!E33).

Microsoft's BINOM.DIST.RANGE: the arguments are truncated to integers; #NUM! when trials < 0,
probability_s outside 0..1, number_s outside 0..trials, or number_s2 below number_s or past
the trials; number_s2 omitted, the probability of number_s successes alone. The sum is of the
binomial terms, in logarithms (a coefficient passes a float's range at 3,000 trials).
"""

from __future__ import annotations

import math

from rates_xl.calc.engines.formualizer.values import EngineValue, error, is_error
from rates_xl.calc.xlfuncs.coercion import (
    Callback,
    ExcelError,
    Facts,
    elementwise,
    number,
    number_or_date,
)
from rates_xl.calc.xlfuncs.omitted import OMITTED, reads_omitted
from rates_xl.calc.xlfuncs.types import Answer


def binom_dist_range(_facts: Facts) -> Callback:
    def BINOM_DIST_RANGE(trials: EngineValue, probability: EngineValue, first: EngineValue,  # noqa: N802
                         last: EngineValue = OMITTED) -> Answer:
        n = math.trunc(_read(trials))
        p = _read(probability)
        s = math.trunc(_read(first))
        s2 = s if last == OMITTED else math.trunc(_read(last))
        if n < 0 or not 0 <= p <= 1 or not 0 <= s <= n or not s <= s2 <= n:
            raise ExcelError("#NUM!")
        return sum(_term(n, k, p) for k in range(s, s2 + 1))

    BINOM_DIST_RANGE.__name__ = "BINOM.DIST.RANGE"
    return reads_omitted(elementwise(BINOM_DIST_RANGE))


def _read(value: EngineValue) -> float:
    """An argument: omitted, 0 (`BINOM.DIST.RANGE(C11,,,)` is 1 in formulas_test.xlsx
    STATISTICAL!R11); text read as a number or a date ("29/02/1900" is 60 there: X11, #NUM!)."""
    return 0.0 if value == OMITTED else number_or_date(value)


def _term(n: int, k: int, p: float) -> float:
    """The binomial probability of k successes in n trials. Powers past the first in
    logarithms (log1p for 1 - p): (1-p)^5 is Excel's 0.59049 for BINOM.DIST.RANGE(5,0.1,0),
    where 0.9**5 is 0.5904900000000001; a coefficient past a float's range too (3,000 trials)."""
    if p in (0.0, 1.0):
        return 1.0 if k == (0 if p == 0.0 else n) else 0.0
    logged = k * math.log(p) if k > 1 else 0.0
    logged += (n - k) * math.log1p(-p) if n - k > 1 else 0.0
    factor = (p if k == 1 else 1.0) * (1.0 - p if n - k == 1 else 1.0)
    coefficient = math.comb(n, k)
    if coefficient < 2 ** 1000:
        return coefficient * factor * math.exp(logged)
    return factor * math.exp(math.log(coefficient) + logged)


#: Function -> the position of its probability, which must lie strictly between 0 and 1.
PROBABILITY_AT = {"BINOM.INV": 1, "NEGBINOM.DIST": 2}


def probability_checked(name: str, call: Callback) -> Callback:
    """`call` (the bridged function), answering #NUM! first where its probability is 0 or less,
    or 1 or more, and no argument is an error (an error is the function's own answer)."""
    at = PROBABILITY_AT[name]

    def checked(*args: EngineValue) -> Answer:
        scalars = not any(isinstance(arg, list) for arg in args)
        if scalars and len(args) > at and not any(is_error(arg) for arg in args):
            try:
                p = number(args[at])
            except ExcelError:
                return call(*args)
            if not 0 < p < 1:
                return error("#NUM!")
        return call(*args)

    checked.__name__ = call.__name__
    return checked


FUNCTIONS = {"BINOM.DIST.RANGE": binom_dist_range}
