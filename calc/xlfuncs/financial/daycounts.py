"""The days Excel counts in its securities functions (PRICE, YIELD, DURATION, COUPDAYSNC, PRICEMAT
...), basis by basis: 0 US (NASD) 30/360, 1 actual/actual, 2 actual/360, 3 actual/365, 4 European
30/360.

Excel's US 30/360 is not one count but two, and neither is its DAYS360: the days accrued from a
coupon date (COUPDAYBS) move a start on the last day of February to the 30th, but an end on the
31st only when the start was the 30th or 31st; the days from the settlement to the next coupon
(COUPDAYSNC) are the whole period counted with both ends moved, less the days accrued. So
COUPDAYBS + COUPDAYSNC need not be COUPDAYS, and PRICE and DURATION discount from the period
less the days accrued, not from COUPDAYSNC. Each rule here reproduces every case of Excel 2010's
answers in the Excel-generated test data of fsprojects/ExcelFinancialFunctions (tests/
ExcelFinancialFunctions.Tests/testdata: 917 COUPDAYBS and COUPDAYSNC, 10,982 PRICE, 5,492 DURATION
and MDURATION, 1,942 PRICEMAT, 2,912 YIELDMAT cases); tests/calc/test_securities.py holds some.
"""

from __future__ import annotations

import calendar
from datetime import date


def _last_of_february(day: date) -> bool:
    return day.month == 2 and day.day == calendar.monthrange(day.year, 2)[1]


def us_30_360(start: date, end: date, *, both_ends: bool = False) -> int:
    """US (NASD) 30/360 days from `start` to `end`. The start's last day of February and 31st
    count as the 30th; the end's 31st counts as the 30th when the start was the 30th or 31st,
    and its last day of February when the start's was too. `both_ends`: the end's are moved
    whatever the start (Excel's count of a whole coupon period in COUPDAYSNC)."""
    d1, d2 = start.day, end.day
    if _last_of_february(end) and (both_ends or _last_of_february(start)):
        d2 = 30
    if d2 == 31 and (both_ends or d1 >= 30):  # (the start's own day, before it is moved)
        d2 = 30
    if d1 == 31 or _last_of_february(start):
        d1 = 30
    return (end.year - start.year) * 360 + (end.month - start.month) * 30 + d2 - d1


def european_30_360(start: date, end: date) -> int:
    return (end.year - start.year) * 360 + (end.month - start.month) * 30 + min(end.day, 30) - min(start.day, 30)


def days_between(start: date, end: date, basis: int) -> float:
    """The days Excel counts from `start` to `end` on `basis`: 30/360 on 0 and 4, else actual."""
    if basis == 0:
        return float(us_30_360(start, end))
    if basis == 4:
        return float(european_30_360(start, end))
    return float((end - start).days)


def period_days(previous: date, following: date, frequency: int, basis: int) -> float:
    """COUPDAYS: the coupon period's length, actual on basis 1, else the year's days / frequency."""
    if basis == 1:
        return float((following - previous).days)
    return (365 if basis == 3 else 360) / frequency


def days_to_next(settlement: date, previous: date, following: date, basis: int) -> float:
    """COUPDAYSNC: days from the settlement to the next coupon date."""
    if basis == 0:
        return float(us_30_360(previous, following, both_ends=True) - us_30_360(previous, settlement))
    return days_between(settlement, following, basis)


def year_days(start: date, end: date, basis: int) -> float:
    """The year's length in days between `start` and `end` (PRICEMAT's and YIELDMAT's B): 360 on the
    30/360 bases and actual/360, 365 on actual/365; on actual/actual YEARFRAC's year, the average
    of the calendar years spanned when the dates are more than a year apart, else 366 when a 29
    February may fall between them (calc/xlfuncs/dates/daycount.py `year_length`)."""
    if basis == 1:
        from rates_xl.calc.xlfuncs.dates.daycount import year_length

        return year_length((start.year, start.month, start.day), (end.year, end.month, end.day))
    return 365.0 if basis == 3 else 360.0
