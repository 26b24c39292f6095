"""DB, DDB and VDB: an asset's depreciation over a period, as Excel computes it.

formualizer answered DB and DDB with #NUM! for a period between 0 and 1, where Excel 2010 answers
the first period's depreciation (DB(100,10,1,0.3,1) is 7.5, DDB(100,10,1,0.3,1) is 90: 168 cases
of fsprojects/ExcelFinancialFunctions' testdata, db.test and ddb.test), and did not know VDB.
Microsoft's formulas (support.microsoft.com: "DB function", "DDB function", "VDB function"):

- DB: a fixed rate, 1 - (salvage / cost) ^ (1 / life) rounded to three decimals; the first
  period's depreciation cost * rate * month / 12, each next one (cost - depreciation so far) *
  rate, the one past the life (month < 12) that times (12 - month) / 12. The period is
  truncated (DB(...,1.7) is DB(...,1): db.test);
- DDB: min((cost - depreciation so far) * factor / life, cost - salvage - depreciation so far);
  a fractional period above 1 counts in the power (Excel 16's answers in IronCalc's Excel-made
  DB_DDB.xlsx; the F# port's notes say Excel's DDB disagrees there with VDB's interpolation);
- VDB: DDB's declining balance from start to end, switching to straight line (what is left
  to depreciate spread over the life left) from the period where that is larger unless
  no_switch is TRUE; a fractional period counts its share (2,546 cases of vdb.test, every
  start a whole period; a fractional start with the switch: `variable_declining`).
"""

from __future__ import annotations

import math

from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Facts, elementwise, number
from rates_xl.calc.xlfuncs.types import EngineValue


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise ExcelError("#NUM!")
    return value + 0.0  # (no -0.0)


def _round3(x: float) -> float:
    """Rounded to three decimals, a half away from zero (as Excel's ROUND)."""
    return math.copysign(math.floor(abs(x) * 1000 + 0.5) / 1000, x)


def fixed_declining(cost: float, salvage: float, life: float, period: float, month: float) -> float:
    """DB's depreciation in `period` (checked by the caller). The rate is 1 where the salvage or
    the cost is not above 0 (all of it in the first year; formualizer's, kept for a negative one,
    which has no real root)."""
    rate = 1.0 if cost <= 0 or salvage <= 0 else _round3(1 - (salvage / cost) ** (1 / life))
    whole, last = max(int(period), 1), int(life) + 1
    first = cost * rate * month / 12
    if whole == 1:
        return first
    left = (cost - first) * (1 - rate) ** (whole - 2)  # (each period takes `rate` of what is left)
    return left * rate * (12 - month) / 12 if whole == last else left * rate


def db(_facts: Facts) -> Callback:
    @elementwise
    def DB(cost: EngineValue, salvage: EngineValue, life: EngineValue, period: EngineValue,  # noqa: N802
           month: EngineValue = 12.0) -> float:
        c, s, n, p, m = number(cost), number(salvage), number(life), number(period), math.trunc(number(month))
        # formualizer's #NUM! cases, kept (Microsoft lists none): a life or period <= 0, a month
        # outside 1 to 12 (truncated: DB(100,10,4,3,9.2222) is 16.5293754 in Excel, 12.7 is 12), a
        # period past the year after the life; and a negative cost (#NUM! in Excel: IronCalc's
        # Excel-made DB_DDB.xlsx, tests/calc/test_depreciation.py)
        if c < 0 or n <= 0 or p <= 0 or not 1 <= m <= 12 or int(p) > int(n) + 1:
            raise ExcelError("#NUM!")
        try:
            return _finite(fixed_declining(c, s, n, p, m))
        except (ZeroDivisionError, OverflowError, TypeError):
            raise ExcelError("#NUM!") from None
    return DB


def double_declining(cost: float, salvage: float, life: float, period: float, factor: float) -> float:
    """DDB's depreciation in period `period` (from 1; a fraction of one as Excel reads it, in the
    power: DDB(100,10.233,4.2312,3.2,1.5) is 13.5327355307751 in Excel, IronCalc's Excel-made
    DB_DDB.xlsx): `factor / life` of what is left, until what is left reaches the salvage; what
    was left after period - 1 periods is the cost times (1 - rate) ^ (period - 1) while it stays
    above the salvage (below it, nothing is left to depreciate). A rate of 1 or more takes it all
    in the first period."""
    rate = factor / life
    if rate >= 1:
        return max(cost - salvage, 0.0) if period <= 1 else 0.0
    left = cost * (1 - rate) ** (max(period, 1) - 1)
    return max(min(left * rate, left - salvage), 0.0)


def ddb(_facts: Facts) -> Callback:
    @elementwise
    def DDB(cost: EngineValue, salvage: EngineValue, life: EngineValue, period: EngineValue,  # noqa: N802
            factor: EngineValue = 2.0) -> float:
        c, s, n, p, f = number(cost), number(salvage), number(life), number(period), number(factor)
        # a period in (0, 1) is the first (Excel 2010: ddb.test); one past the life #NUM!
        # (DDB(12,10,4,4.5,2) in IronCalc's Excel-made DB_DDB.xlsx)
        if c < 0 or s < 0 or n <= 0 or p <= 0 or f <= 0 or p > n:
            raise ExcelError("#NUM!")
        try:
            return _finite(double_declining(c, s, n, p, f))
        except (ZeroDivisionError, OverflowError):
            raise ExcelError("#NUM!") from None
    return DDB


def _declining(cost: float, salvage: float, life: float, life_left: float, period: float, factor: float) -> float:
    """The depreciation over the first `period` periods (the last may be a fraction) of an asset
    worth `cost` with `life_left` periods of its `life` to go: DDB's amount for each period
    while it is at least the straight line's (what is left to depreciate over the periods left),
    that straight line from the period where it is larger."""
    total, left, straight = 0.0, cost - salvage, None
    last = math.ceil(period)
    for k in range(1, last + 1):
        if straight is None:
            declining = double_declining(cost, salvage, life, k, factor)
            line = left / (life_left - (k - 1))
            if line > declining:
                straight = term = line
            else:
                term = declining
                left -= declining
        else:
            term = straight
        total += term * (period + 1 - last) if k == last else term
    return total


def variable_declining(cost: float, salvage: float, life: float, start: float, end: float, factor: float,
                       switch: bool) -> float:
    """VDB's depreciation from `start` to `end` (checked by the caller). Without the switch, DDB's
    amount of each period, times the share of it in [start, end]. With it, the depreciation from
    `start` on of what is left at `start`, its periods counted from there: a fractional start
    moves the periods (Excel: VDB(100,10,13,0,1,1,FALSE) is 0.1479 more than VDB(...,0,0.5,...)
    plus VDB(...,0.5,1,...), and equal to them without the switch: the F# port's
    docs/compatibility.fsx)."""
    if switch:
        # What is left at `start`: its periods counted from the start's fraction (the first
        # one that fraction long), the switch to straight line asked at each: VDB(1,0,14,3.5,4.5,
        # 1.25) is 0.0687263 in Excel, the straight line from 3.5 of what DDB leaves there (each
        # whole period's counted from 0 switches from the 4th: 0.0686679 from 3.5 on). Proved by
        # xlcalculator's Excel-made VDB.xlsx, D23:D37 and F23:F28 (14 periods, half ones).
        fraction = start - math.floor(start)
        worth = cost - _declining(cost, salvage, life, life, fraction, factor) if fraction else cost
        worth -= _declining(worth, salvage, life, life - fraction, start - fraction, factor)
        return _declining(worth, salvage, life, life - start, end - start, factor)
    total = 0.0
    first, last = math.floor(start) + 1, math.ceil(end)
    for k in range(first, last + 1):
        term = double_declining(cost, salvage, life, k, factor)
        if k == first:
            term *= min(end, first) - start
        elif k == last:
            term *= end + 1 - last
        total += term
    return total


def vdb(_facts: Facts) -> Callback:
    @elementwise
    def VDB(cost: EngineValue, salvage: EngineValue, life: EngineValue, start: EngineValue,  # noqa: N802
            end: EngineValue, factor: EngineValue = 2.0, no_switch: EngineValue = False) -> float:
        c, s, n, a, b = number(cost), number(salvage), number(life), number(start), number(end)
        f, switch = number(factor), not number(no_switch)
        # Microsoft's checks (positive numbers, start <= end <= life); and, with the switch, a
        # period that starts and ends at the life is #NUM! (Excel 2010 answers it without the
        # switch only: vdb.test, the F# port's checks)
        if c < 0 or s < 0 or n <= 0 or f <= 0 or a < 0 or b <= 0 or a > b or b > n or (switch and a == b == n):
            raise ExcelError("#NUM!")
        try:
            return _finite(variable_declining(c, s, n, a, b, f, switch))
        except (ZeroDivisionError, OverflowError):
            raise ExcelError("#NUM!") from None
    return VDB


FUNCTIONS = {"DB": db, "DDB": ddb, "VDB": vdb}
