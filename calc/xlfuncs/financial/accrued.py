"""ACCRINT and ACCRINTM, a security's accrued interest, as Excel computes them on every basis.

ACCRINTM (interest paid at maturity) is par x rate x YEARFRAC(issue, settlement, basis)
(calc/xlfuncs/dates/daycount.py): Microsoft's par x rate x A / D, with A and D the days and the
year's days as YEARFRAC counts them, on actual/actual the average length of the years spanned
beyond one year.

ACCRINT is Microsoft's par x rate / frequency x the sum over the quasi-coupon periods of the
odd period of A_i / NL_i, the periods stepped back from first_interest by 12 / frequency months
(a month end stays a month end). What Excel 2010 sums (fsprojects/ExcelFinancialFunctions'
Excel-made test data, 1,923 cases, every basis and frequency, settlement up to first_interest):

- PCD, the quasi-coupon date a period before first_interest, is the reference: the accrual
  counts every whole period from the issue up to PCD as 1, the period holding the issue as the
  days from issue to its end over the period's normal length, and then adds the days from PCD
  to the settlement over the last period's length, a negative count when the settlement falls
  before PCD. So a settlement two years before first_interest still accrues its periods' whole
  ones, not its own period's days: Excel's 1,400 for ACCRINT(DATE(1990,3,4),DATE(1993,3,31),
  DATE(1992,3,4),0.07,10000,1,2), where the days from issue to settlement give 1,421.39;
- the days (A) are the basis' own as the coupon functions count them (daycounts.py: on US 30/360
  February's last day is the 30th as a start; a 31st end the 30th only after a 30th or 31st);
- the normal lengths (NL): the period's actual days on actual/actual, 365 / frequency on
  actual/365, its 30/360 days on the others (actual/360 included), both ends moved on US 30/360
  (the 30th of a February-end period, 31sts to 30ths); the last period's length, for the
  settlement's days, 360 / frequency but on actual/actual (its days) and actual/365.

calc_method (TRUE: from issue, FALSE: from first_interest) decides only "when the date of
settlement is later than the date of first_interest" (Microsoft), and Microsoft's example with
FALSE and an earlier settlement accrues from the issue: up to first_interest both give the
sum above. A settlement later than first_interest is not in the data, and Excel's reference
date there is not documented: such a call answers #NAME?, which the check against Excel's
cached values lists (as calc/xlfuncs/statistical/ets.py does), never a guessed number.

Arguments as Microsoft documents them: dates, frequency and basis truncated; a date outside
Excel's #VALUE!; issue >= settlement, rate or par <= 0, a frequency but 1, 2 or 4, a basis
outside 0-4 #NUM!; par omitted is 1,000; the first error argument passed on; arrays lifted.
"""

from __future__ import annotations

import calendar
from datetime import date

from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Facts, elementwise, number
from rates_xl.calc.xlfuncs.dates.daycount import yearfrac
from rates_xl.calc.xlfuncs.financial.daycounts import (
    days_between,
    european_30_360,
    period_days,
    us_30_360,
)
from rates_xl.calc.xlfuncs.financial.moneymarket import NOT_COMPUTED, basis, positive, serial
from rates_xl.calc.xlfuncs.financial.oddcoupon import excel_date
from rates_xl.calc.xlfuncs.omitted import OMITTED, reads_omitted
from rates_xl.calc.xlfuncs.types import EngineValue


def _month_end(day: date) -> bool:
    return day.day == calendar.monthrange(day.year, day.month)[1]


def _length(start: date, end: date, kind: int, frequency: int) -> float:
    """A quasi-coupon period's normal length (NL) on the basis."""
    if kind == 1:
        return float((end - start).days)
    if kind == 3:
        return 365 / frequency
    if kind == 0:
        return us_30_360(start, end, both_ends=True)
    if kind == 4:
        return european_30_360(start, end)
    return us_30_360(start, end)  # actual/360: its 30/360 days


def _before(anchor: date, months: int) -> date:
    """The quasi-coupon date `months` before `anchor`; a month end stays a month end."""
    year, month = divmod(anchor.month - 1 - months, 12)
    year, month = anchor.year + year, month + 1
    last = calendar.monthrange(year, month)[1]
    return date(year, month, last if _month_end(anchor) else min(anchor.day, last))


def periods(issue: date, first_interest: date, settlement: date, frequency: int, kind: int) -> float:
    """The sum of A_i / NL_i for a settlement up to first_interest (module docstring)."""
    step = 12 // frequency
    pcd = _before(first_interest, step)
    last = period_days(pcd, first_interest, frequency, kind)
    total = days_between(max(issue, pcd), settlement, kind) / last
    end, k = pcd, 1
    while end > issue:
        k += 1
        start = _before(first_interest, step * k)
        total += 1.0 if start >= issue else days_between(issue, end, kind) / _length(start, end, kind, frequency)
        end = start
    return total


def accrint(_facts: Facts) -> Callback:
    @elementwise
    def ACCRINT(issue: EngineValue, first_interest: EngineValue, settlement: EngineValue,  # noqa: N802
                rate: EngineValue, par: EngineValue, frequency: EngineValue, day_basis: EngineValue = OMITTED,
                calc_method: EngineValue = OMITTED) -> float:
        i, f, s = serial(_given(issue)), serial(_given(first_interest)), serial(_given(settlement))
        r, p = number(_given(rate)), 1000.0 if par == OMITTED else number(par)
        n, kind = int(number(_given(frequency))), basis(_given(day_basis))
        if calc_method != OMITTED:
            number(calc_method)  # (an error passed on, text #VALUE!: it decides nothing up to first_interest)
        positive(r, p)
        if n not in (1, 2, 4) or i >= s:
            raise ExcelError("#NUM!")
        if s > f:
            raise ExcelError(NOT_COMPUTED)
        return p * r / n * periods(excel_date(i), excel_date(f), excel_date(s), n, kind)
    return reads_omitted(ACCRINT)


def accrintm(_facts: Facts) -> Callback:
    @elementwise
    def ACCRINTM(issue: EngineValue, settlement: EngineValue, rate: EngineValue,  # noqa: N802
                 par: EngineValue = OMITTED, day_basis: EngineValue = OMITTED) -> float:
        i, s = serial(_given(issue)), serial(_given(settlement))
        r, p = number(_given(rate)), 1000.0 if par == OMITTED else number(par)
        kind = basis(_given(day_basis))
        positive(r, p)
        if i >= s:
            raise ExcelError("#NUM!")
        return p * r * yearfrac(i, s, kind)
    return reads_omitted(ACCRINTM)


def _given(value: EngineValue) -> EngineValue:
    """An argument with the omitted marker read as Excel reads an omitted one here (0, or the
    basis' default)."""
    return None if value == OMITTED else value


FUNCTIONS = {"ACCRINT": accrint, "ACCRINTM": accrintm}
