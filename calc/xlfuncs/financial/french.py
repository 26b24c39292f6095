"""AMORLINC and AMORDEGRC: the French accounting system's depreciation of an asset in each
accounting period, linear and degressive (support.microsoft.com: "AMORLINC function",
"AMORDEGRC function"). formualizer does not know them (they were listed, not computed).

Both start with a first period prorated from the purchase to the end of the first period:
its days over the year's days, times the rate and the cost, on the basis' count (30/360 US
for 0, actual days for 1 and 3, 30/360 European for 4; a year of 360 days, 365, or on actual/
actual 366 in a leap year of purchase). On the actual-day bases a 29 February, and a 28
February in a leap year, count as the 28th. A purchase on a period's end (no days) takes a
whole year's rate; the first period takes at most the cost less the salvage.

- AMORLINC: every later period `rate x cost`, until what is left above the salvage runs out;
- AMORDEGRC: the rate times Microsoft's coefficient for the life 1 / rate (3 to 4 years 1.5,
  5 to 6 years 2, beyond 2.5), applied to what is left; 50 % of it in the period before the
  last and the rest in the last; each period's answer rounded to a whole number (after 13
  significant digits, as Excel's stored value: 22.49999999999999 is 23).

Rules read from Excel 2010's answers (fsprojects/ExcelFinancialFunctions' testdata,
amorlinc.test: 11,522 cases, amordegrc.test: 23,042, every basis, month ends and 29 February
among the dates, whole and fractional periods): a period is counted in whole periods from 1 up
to it (a fractional period between 0 and 1 answers AMORLINC's rate x cost, AMORDEGRC's second
period's share), and past the life (1 / rate, rounded up) the depreciation is 0. #NUM!: a
negative cost, salvage, period or rate, a salvage at the cost or above, a purchase not before
the first period's end, basis 2 (not in Microsoft's table) or outside 0-4; AMORDEGRC's lives
Microsoft names (0 to 1, 1 to 2, 2 to 3 and 4 to 5 years). A rate of 0, and AMORDEGRC's life
of exactly 3, 4 or 5 years (where Microsoft's ranges meet), are answered by no case and no
page: #NAME? (moneymarket.py's NOT_COMPUTED), which the check against Excel's cached value lists.
"""

from __future__ import annotations

import calendar
import math
from datetime import date

from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Facts, elementwise, number
from rates_xl.calc.xlfuncs.financial.daycounts import european_30_360, us_30_360
from rates_xl.calc.xlfuncs.financial.moneymarket import NOT_COMPUTED, serial
from rates_xl.calc.xlfuncs.financial.moneymarket import basis as read_basis
from rates_xl.calc.xlfuncs.financial.oddcoupon import excel_date
from rates_xl.calc.xlfuncs.types import EngineValue


def _days(start: date, end: date, basis: int) -> int:
    """The days from `start` to `end` on the basis, as AMORLINC counts its first period."""
    if basis in (1, 3):
        return (end - start).days
    # 30/360 on the other bases, actual/360 (2) too: US (NASD), or European on 4 (daycounts.py)
    return european_30_360(start, end) if basis == 4 else us_30_360(start, end)


def _leap_february(day: date, basis: int) -> date:
    """On the actual-day bases, 28 and 29 February of a leap year count as the 28th."""
    if basis in (1, 3) and calendar.isleap(day.year) and day.month == 2 and day.day >= 28:
        return day.replace(day=28)
    return day


def first_period(cost: float, purchased: date, first_end: date, salvage: float, rate: float,
                 basis: int) -> tuple[float, bool]:
    """The first period's depreciation, and whether it was prorated (a part of a year)."""
    year = 360 if basis in (0, 4) else 365 if basis == 3 else 366 if calendar.isleap(purchased.year) else 365
    days = _days(_leap_february(purchased, basis), _leap_february(first_end, basis), basis)
    prorated = days / year * rate * cost
    taken = prorated if prorated != 0 else cost * rate
    return min(taken, cost - salvage), prorated != 0


def _excel_round(x: float) -> float:
    """To a whole number, a half away from zero, after 13 significant digits."""
    if x == 0:
        return 0.0
    digits = 12 - math.floor(math.log10(abs(x)))
    stored = float(f"{x:.{max(digits, 0)}f}") if digits > 0 else x
    return math.copysign(math.floor(abs(stored) + 0.5), stored)


def linear(cost: float, purchased: date, first_end: date, salvage: float, period: float, rate: float,
           basis: int) -> float:
    """AMORLINC's depreciation in `period` (checked by the caller)."""
    if period > math.ceil(1 / rate):
        return 0.0
    first, _ = first_period(cost, purchased, first_end, salvage, rate, basis)
    if period == 0:
        return first
    each, left = rate * cost, cost - salvage - first
    k = 1
    while k <= period:
        each = min(each, left)
        left = max(left - each, 0.0)
        k += 1
    return each


def coefficient(life: float) -> float:
    """Microsoft's depreciation coefficient for an asset's life in years."""
    return 1.5 if 3 <= life <= 4 else 2.0 if 5 <= life <= 6 else 2.5 if life > 6 else 1.0


def degressive(cost: float, purchased: date, first_end: date, salvage: float, period: float, rate: float,
               basis: int) -> float:
    """AMORDEGRC's depreciation in `period` (checked by the caller)."""
    life = math.ceil(1 / rate)
    if period > life:
        return 0.0
    applied = rate * coefficient(life)
    first, prorated = first_period(cost, purchased, first_end, salvage, applied, basis)
    first = _excel_round(first)
    if period == 0:
        return first
    periods = life + 1 if prorated else life  # a prorated first period adds one at the end
    left, this, k = cost - first, 0.0, 1
    while k <= period:
        k += 1
        if abs(periods - k - 2) < 1e-4:  # the period before the last: half of what is left,
            this, applied = left * 0.5, 1.0  # the rest in the last
        else:
            this = applied * left
        if left < salvage:
            this = 0.0
        left -= this
    return _excel_round(this)


def _checked(cost: float, purchased: int, first_end: int, salvage: float, period: float, rate: float,
             basis: int) -> tuple[date, date]:
    if cost < 0 or salvage < 0 or salvage >= cost or period < 0 or rate < 0 or purchased >= first_end \
            or basis == 2:
        raise ExcelError("#NUM!")
    if rate == 0:  # (no life: neither the data nor Microsoft's page says what Excel answers)
        raise ExcelError(NOT_COMPUTED)
    return excel_date(purchased), excel_date(first_end)


def amorlinc(_facts: Facts) -> Callback:
    @elementwise
    def AMORLINC(cost: EngineValue, date_purchased: EngineValue, first_period: EngineValue,  # noqa: N802
                 salvage: EngineValue, period: EngineValue, rate: EngineValue, basis: EngineValue = None) -> float:
        c, s, p, r = number(cost), number(salvage), number(period), number(rate)
        b = read_basis(basis)
        bought, ends = _checked(c, serial(date_purchased), serial(first_period), s, p, r, b)
        return linear(c, bought, ends, s, p, r, b) + 0.0
    return AMORLINC


def amordegrc(_facts: Facts) -> Callback:
    @elementwise
    def AMORDEGRC(cost: EngineValue, date_purchased: EngineValue, first_period: EngineValue,  # noqa: N802
                  salvage: EngineValue, period: EngineValue, rate: EngineValue, basis: EngineValue = None) -> float:
        c, s, p, r = number(cost), number(salvage), number(period), number(rate)
        b = read_basis(basis)
        bought, ends = _checked(c, serial(date_purchased), serial(first_period), s, p, r, b)
        life = 1 / r
        if life in (3, 4, 5):  # a life of 3, 4 or 5 years: #NUM! by one line of Microsoft's page,
            raise ExcelError(NOT_COMPUTED)  # a coefficient by another; the data holds none
        if life < 3 or 4 < life < 5:  # Microsoft: lives of 0-1, 1-2, 2-3 and 4-5 years
            raise ExcelError("#NUM!")
        return degressive(c, bought, ends, s, p, r, b) + 0.0
    return AMORDEGRC


FUNCTIONS = {"AMORLINC": amorlinc, "AMORDEGRC": amordegrc}
