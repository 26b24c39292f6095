"""ODDLPRICE and ODDLYIELD (a bond with an odd last coupon period) as Excel computes them, and the
dates and day counts Excel uses in all four odd-coupon functions (oddfirst.py: ODDF*).

Microsoft's formula cuts the odd last period into quasi-coupon periods; each contributes its
days counted (DCi), accrued before settlement (Ai) and left after it (DSCi), each over its
normal length (NLi). What Excel 2010 computes, measured on the 30,602 ODDLPRICE cases of
fsprojects/ExcelFinancialFunctions' Excel-generated test data (all equal to these sums):

- the quasi-coupon dates are stepped forward one period at a time from the last interest date,
  each from the one before, its day clipped to the month's length and never recovered
  (30 Nov, 28 Feb, 28 May ...): `stepped` (3,279 cases differ with dates kept on the 30th);
- their number is the coupons from the last interest date to maturity, counted back from
  maturity (`coupon_dates`);
- a period's normal length is its own days on every basis (actual days on 1, 2 and 3: not
  360/f or 365/f; on US 30/360, 2,292 cases differ with 360/f), and on US 30/360 its length
  and the last period's days counted are counted with both ends moved (an end on the last day
  of February is the 30th: 28 Feb to 28 Aug is 178 days; 3,048 cases differ without), the
  February rules kept everywhere (3,744 differ without): `odd_days`;
- the accrued and remaining days are counted on the basis, 0 where negative.

`formulas` uses one year fraction for the whole odd period and ignores the frequency, which is
only right for a period shorter than a coupon.
"""

from __future__ import annotations

import calendar
import itertools
import math
from collections.abc import Iterator
from datetime import date, timedelta

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Facts, elementwise, number
from rates_xl.calc.xlfuncs.financial.daycounts import days_between, us_30_360
from rates_xl.calc.xlfuncs.financial.moneymarket import NOT_COMPUTED


def excel_date(serial: float) -> date:
    """An Excel date serial (1900 system, its 29 February 1900 included) as a date."""
    whole = math.floor(serial)
    if whole < 1:
        raise ExcelError("#NUM!")
    return date(1899, 12, 31 if whole < 61 else 30) + timedelta(days=whole)


def month_end(day: date) -> bool:
    return day.day == calendar.monthrange(day.year, day.month)[1]


def odd_days(start: date, end: date, basis: int, both_ends: bool = False) -> float:
    """Days from `start` to `end` as the odd-coupon functions count them (daycounts.py's, US
    30/360 with its February rules), 0 where negative. With `both_ends` (ODDL*'s period
    lengths) the end's last day of February or 31st is the 30th whatever the start."""
    days = us_30_360(start, end, both_ends=both_ends) if basis == 0 else days_between(start, end, basis)
    return max(0.0, days)


def months_after(day: date, months: int, to_month_end: bool = False) -> date:
    """`day` moved by `months` (back where negative), its day clipped to the month's length, or
    the month's last day with `to_month_end`."""
    year, month = divmod(day.month - 1 + months, 12)
    year, month = day.year + year, month + 1
    last = calendar.monthrange(year, month)[1]
    return date(year, month, last if to_month_end else min(day.day, last))


def stepped(start: date, months: int, to_month_end: bool = False) -> Iterator[date]:
    """`start`, then dates `months` apart each moved from the one before (Excel's stepping:
    a day clipped in February stays clipped)."""
    day = start
    while True:
        yield day
        day = months_after(day, months, to_month_end)


def coupon_dates(settlement: date, anchor: date, frequency: int) -> tuple[date, date, int]:
    """(previous, next coupon date, coupons from the settlement to `anchor`): dates stepped
    back from `anchor` (its maturity or first coupon), month ends if it is one.

    An anchor on the 29th or 30th that is not a month end is clipped in a shorter month (30 May,
    28 Feb); whether Excel's next date is the 28th (stepped, as its quasi-coupon dates are) or
    the anchor's day again (30 Nov) no case of the data shows (their anchors are month ends or
    before the 29th): NOT_COMPUTED (#NAME?, which the check against Excel's cached values lists)
    where a date would be stepped from a clipped one."""
    following = anchor
    for count, previous in enumerate(stepped(anchor, -12 // frequency, month_end(anchor))):
        if previous <= settlement:
            return previous, following, count
        if previous.day < anchor.day and not month_end(anchor):
            raise ExcelError(NOT_COMPUTED)
        following = previous
    raise AssertionError("unreachable: the stepping never ends")


def _sums(settlement: date, maturity: date, last: date, frequency: int, basis: int) -> tuple[float, float, float]:
    """(days counted, accrued before settlement, left after settlement) in the odd period, each
    summed over its quasi-coupon periods in units of the period's normal length."""
    periods = coupon_dates(last, maturity, frequency)[2]
    dates = list(itertools.islice(stepped(last, 12 // frequency), periods + 1))
    counted = accrued = remaining = 0.0
    for start, end in itertools.pairwise(dates):
        normal = odd_days(start, end, basis, both_ends=True)
        days = normal if end < dates[-1] else odd_days(start, maturity, basis, both_ends=True)
        counted += days / normal
        if end < settlement:
            accrued += days / normal
        elif start < settlement:
            accrued += odd_days(start, settlement, basis) / normal
        remaining += odd_days(max(start, settlement), min(end, maturity), basis) / normal
    return counted, accrued, remaining


def _checked(settlement: EngineValue, maturity: EngineValue, last: EngineValue, rate: EngineValue, frequency: EngineValue,
             basis: EngineValue) -> tuple[date, date, date, float, int, int]:
    s, m, li = excel_date(number(settlement)), excel_date(number(maturity)), excel_date(number(last))
    # Microsoft: the dates, the frequency and the basis are truncated to integers.
    r, f, b = number(rate), math.trunc(number(frequency)), math.floor(number(basis))
    if not (li < s < m) or r < 0 or f not in (1, 2, 4) or not 0 <= b <= 4:
        raise ExcelError("#NUM!")
    return s, m, li, r, f, b


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
