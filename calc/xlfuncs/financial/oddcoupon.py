"""ODDLPRICE and ODDLYIELD (a bond with an odd last coupon period) as Excel computes them:
the odd period is cut into quasi-coupon periods stepped from the last interest date, and
each contributes its days counted, accrued and remaining over its own normal length (Excel's
documented formula). `formulas` uses one year fraction for the whole odd period and ignores
the frequency, which is only right for a period shorter than a coupon: on
ironcalc_PRICE_YIELD.xlsx (a ten-year odd period) it is off from the 4th digit for the
actual-day bases, and these reproduce Excel to the last digit on every basis there.
"""

from __future__ import annotations

import calendar
import math
from datetime import date, timedelta

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Facts, elementwise, number


def excel_date(serial: float) -> date:
    """An Excel date serial (1900 system, its 29 February 1900 included) as a date."""
    whole = math.floor(serial)
    if whole < 1:
        raise ExcelError("#NUM!")
    return date(1899, 12, 31 if whole < 61 else 30) + timedelta(days=whole)


def _months_after(start: date, months: int) -> date:
    year, month = divmod(start.month - 1 + months, 12)
    year, month = start.year + year, month + 1
    return date(year, month, min(start.day, calendar.monthrange(year, month)[1]))


def day_count(start: date, end: date, basis: int) -> float:
    """Days from `start` to `end` on a day-count basis: 30/360 for 0 (US) and 4 (European),
    actual days otherwise."""
    if basis in (0, 4):  # 30/360: US (NASD) or European
        d1, d2 = start.day, end.day
        if basis == 0:
            d1 = 30 if d1 == 31 else d1
            d2 = 30 if d2 == 31 and d1 >= 30 else d2
        else:
            d1, d2 = min(d1, 30), min(d2, 30)
        return (end.year - start.year) * 360 + (end.month - start.month) * 30 + d2 - d1
    return float((end - start).days)


def _sums(settlement: date, maturity: date, last: date, frequency: int, basis: int) -> tuple[float, float, float]:
    """(days counted, accrued before settlement, left after settlement) in the odd period, each
    summed over its quasi-coupon periods in units of the period's normal length."""
    counted = accrued = remaining = 0.0
    step, k = 12 // frequency, 0
    start = last
    while start < maturity:
        k += 1
        end = _months_after(last, step * k)
        normal = 360 / frequency if basis in (0, 4) else float((end - start).days)
        stop = min(end, maturity)
        counted += day_count(start, stop, basis) / normal
        if start < settlement:
            accrued += day_count(start, min(settlement, stop), basis) / normal
        if stop > settlement:
            remaining += day_count(max(start, settlement), stop, basis) / normal
        start = end
    return counted, accrued, remaining


def _checked(settlement: EngineValue, maturity: EngineValue, last: EngineValue, rate: EngineValue, frequency: EngineValue,
             basis: EngineValue) -> tuple[date, date, date, float, int, int]:
    s, m, li = excel_date(number(settlement)), excel_date(number(maturity)), excel_date(number(last))
    r, f, b = number(rate), number(frequency), number(basis)
    if not (li < s < m) or r < 0 or f not in (1, 2, 4) or not 0 <= math.floor(b) <= 4:
        raise ExcelError("#NUM!")
    return s, m, li, r, int(f), math.floor(b)


def oddlprice(_facts: Facts) -> Callback:
    @elementwise
    def ODDLPRICE(settlement: EngineValue, maturity: EngineValue, last_interest: EngineValue, rate: EngineValue, yld: EngineValue,  # noqa: N802
                  redemption: EngineValue, frequency: EngineValue, basis: EngineValue = None) -> float:
        s, m, li, r, f, b = _checked(settlement, maturity, last_interest, rate, frequency, basis)
        y, par = number(yld), number(redemption)
        if y < 0 or par <= 0:
            raise ExcelError("#NUM!")
        counted, accrued, remaining = _sums(s, m, li, f, b)
        coupon = 100 * r / f
        return (par + counted * coupon) / (1 + remaining * y / f) - accrued * coupon
    return ODDLPRICE


def oddlyield(_facts: Facts) -> Callback:
    @elementwise
    def ODDLYIELD(settlement: EngineValue, maturity: EngineValue, last_interest: EngineValue, rate: EngineValue, pr: EngineValue,  # noqa: N802
                  redemption: EngineValue, frequency: EngineValue, basis: EngineValue = None) -> float:
        s, m, li, r, f, b = _checked(settlement, maturity, last_interest, rate, frequency, basis)
        price, par = number(pr), number(redemption)
        if price <= 0 or par <= 0:
            raise ExcelError("#NUM!")
        counted, accrued, remaining = _sums(s, m, li, f, b)
        coupon = 100 * r / f
        paid = price + accrued * coupon
        return ((par + counted * coupon) - paid) / paid * f / remaining
    return ODDLYIELD


FUNCTIONS = {"ODDLPRICE": oddlprice, "ODDLYIELD": oddlyield}
