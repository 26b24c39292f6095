"""DISC, INTRATE, RECEIVED, PRICEDISC and YIELDDISC, the money-market functions, on every
day-count basis, and the reading of a security's dates and basis that ACCRINT and ACCRINTM
(accrued.py) share.

Each is Microsoft's formula with the days from settlement to maturity over the year's days
(DIM / B) as YEARFRAC(settlement, maturity, basis) counts them (calc/xlfuncs/dates/daycount.py):
30/360 US and European, actual/360, actual/365, and on actual/actual (1) the year's days of
YEARFRAC (365 or 366 within a year, the average length of the years spanned beyond):

- DISC = (1 - pr / redemption) / YEARFRAC;  YIELDDISC = (redemption - pr) / pr / YEARFRAC;
- INTRATE = (redemption - investment) / investment / YEARFRAC;
- RECEIVED = investment / (1 - discount * YEARFRAC);  PRICEDISC = redemption * (1 - discount * YEARFRAC).

This equals Excel 2010's value on every case of the Excel-made test data of
fsprojects/ExcelFinancialFunctions (disc 2,747, intrate 2,749, received 1,290, pricedisc 3,662,
yielddisc 2,747 cases, all five bases, month ends and 29 February among them). The bridged
`formulas` implementations were right on actual/360 and actual/365 only.

Arguments as Microsoft documents them: dates and basis truncated; a date before 1900 or after
9999 #VALUE!; settlement >= maturity, a basis outside 0-4, and a price, investment, redemption
or discount <= 0 #NUM!; the first error argument passed on; arrays lifted. RECEIVED with a
discount x YEARFRAC of 1 or more answers #NAME? (not computed: `_received`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from rates_xl.calc.xlfuncs.coercion import (
    Callback,
    ExcelError,
    Facts,
    elementwise,
    number,
    number_or_date,
)
from rates_xl.calc.xlfuncs.dates.daycount import yearfrac
from rates_xl.calc.xlfuncs.types import EngineValue

_LAST_SERIAL = 2958465  # 31 December 9999

#: What a call answers whose answer is not known (`_received`, accrued.py's ACCRINT): an error no
#: valid call answers, so the check against Excel's cached values lists the cell (as
#: calc/xlfuncs/statistical/ets.py does), never a guessed number.
NOT_COMPUTED = "#NAME?"


def serial(value: EngineValue) -> int:
    """A date argument: truncated; #VALUE! outside Excel's dates. Text that is not a number is
    read as Excel reads a date typed as text (the bridged `formulas` VALUE, right on dates)."""
    found = number_or_date(value)
    if not 0 <= found < _LAST_SERIAL + 1:
        raise ExcelError("#VALUE!")
    return math.floor(found)


def basis(value: EngineValue) -> int:
    """A day-count basis: truncated, 0 when omitted (None), #NUM! outside 0-4."""
    found = math.trunc(number(value)) if value is not None else 0
    if not 0 <= found <= 4:
        raise ExcelError("#NUM!")
    return found


def positive(*values: float) -> None:
    """#NUM! unless every value is above 0."""
    if not all(v > 0 for v in values):
        raise ExcelError("#NUM!")


def _function(name: str, formula: Callable[[float, float, float], float]) -> Callable[[Facts], Callback]:
    """NAME(settlement, maturity, first, second, [basis]) = formula(first, second, YEARFRAC)."""
    def factory(_facts: Facts) -> Callback:
        def call(settlement: EngineValue, maturity: EngineValue, first: EngineValue, second: EngineValue,
                 day_basis: EngineValue = None) -> float:
            s, m = serial(settlement), serial(maturity)
            a, b, kind = number(first), number(second), basis(day_basis)
            if s >= m:
                raise ExcelError("#NUM!")
            positive(a, b)
            answer = formula(a, b, yearfrac(s, m, kind))
            if not math.isfinite(answer):
                raise ExcelError("#NUM!")
            return answer
        call.__name__ = name
        return elementwise(call)
    return factory


def _received(investment: float, discount: float, years: float) -> float:
    """A discount of 1 / YEARFRAC or more (the formula's answer infinite or negative) is outside
    the data and Microsoft's page: not computed."""
    if discount * years >= 1:
        raise ExcelError(NOT_COMPUTED)
    return investment / (1 - discount * years)


FUNCTIONS = {
    "DISC": _function("DISC", lambda pr, redemption, years: (1 - pr / redemption) / years),
    "YIELDDISC": _function("YIELDDISC", lambda pr, redemption, years: (redemption - pr) / pr / years),
    "INTRATE": _function("INTRATE", lambda investment, redemption, years: (redemption - investment) / investment / years),
    "RECEIVED": _function("RECEIVED", _received),
    "PRICEDISC": _function("PRICEDISC", lambda discount, redemption, years: redemption - discount * redemption * years),
}
