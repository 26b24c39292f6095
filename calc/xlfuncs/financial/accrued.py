"""ACCRINT and ACCRINTM, a security's accrued interest, as Excel computes them on every basis.

ACCRINTM (interest paid at maturity) is par x rate x YEARFRAC(issue, settlement, basis)
(calc/xlfuncs/dates/daycount.py): Microsoft's par x rate x A / D, with A and D the days and the
year's days as YEARFRAC counts them, on actual/actual the average length of the years spanned
beyond one year.

ACCRINT is Microsoft's par x rate / frequency x the sum over quasi-coupon periods of A_i / NL_i,
the periods stepped from first_interest by 12 / frequency months (a month end stays a month
end). What Excel sums, read from two Excel-made sets: Excel 2010's 1,923 cases in
fsprojects/ExcelFinancialFunctions' test data (every basis and frequency, calc_method TRUE,
settlement up to first_interest) and Excel 16's 549 ACCRINT cells in IronCalc's
xlsx/tests/calc_tests/FINANCIAL books (ACCRINT, ACCRINT_extended, accrint_cases,
ACCRINT_ACCRINTM: calc_method both ways, settlements after first_interest among them):

- a reference date R: the quasi-coupon date a period before first_interest; with calc_method
  TRUE and a settlement after first_interest, the last coupon date before the settlement;
- from R back to the issue, each whole period counts 1 with calc_method TRUE and 0 with FALSE,
  the period holding the issue its days from issue to its end over its normal length;
- then the days from R (or the issue, if later) to the settlement over the length of the
  period before first_interest: a negative count when the settlement falls before R. So a
  settlement two years before first_interest accrues its periods' whole ones, not its own
  days: Excel's 1,400 for ACCRINT(DATE(1990,3,4),DATE(1993,3,31),DATE(1992,3,4),0.07,10000,1,2),
  where formualizer's days from issue to settlement gave 1,421.39; and FALSE can be negative
  (Excel's -253.88 for ACCRINT(DATE(2017,1,1),DATE(2017,12,1),DATE(2017,4,1),0.33,3000,4,1,FALSE));
- the days (A) are the basis' own as the coupon functions count them (daycounts.py: on US 30/360
  February's last day is the 30th as a start; a 31st end the 30th only after a 30th or 31st);
- the normal lengths (NL): the period's actual days on actual/actual, 365 / frequency on
  actual/365, its 30/360 days on the others (actual/360 included), both ends moved on US 30/360
  (the 30th of a February-end period, 31sts to 30ths); the period before first_interest, for
  the settlement's days, as COUPDAYS counts it (actual days on 1, 365 / frequency on 3, else 360).

Microsoft's page says FALSE accrues "from first_interest to settlement"; Excel's answers above
do not, and they are what this reproduces. A first_interest at or before the issue is in neither
set: it answers #NAME? (not computed, moneymarket.NOT_COMPUTED), which the check lists.

Arguments as Microsoft documents them: dates, frequency and basis truncated; a date outside
Excel's #VALUE!; issue >= settlement, rate or par <= 0, a frequency but 1, 2 or 4, a basis
outside 0-4 #NUM!; par omitted is 1,000; the first error argument passed on; arrays lifted.
"""

from __future__ import annotations

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
from rates_xl.calc.xlfuncs.financial.oddcoupon import excel_date, month_end, months_after
from rates_xl.calc.xlfuncs.omitted import OMITTED, reads_omitted
from rates_xl.calc.xlfuncs.types import EngineValue


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


def _shifted(anchor: date, months: int) -> date:
    """The quasi-coupon date `months` after `anchor` (before it when negative); a month end
    stays a month end."""
    return months_after(anchor, months, month_end(anchor))


def periods(issue: date, first_interest: date, settlement: date, frequency: int, kind: int,
            from_issue: bool) -> float:
    """The sum of A_i / NL_i (module docstring): from the reference date R back to the issue, and
    from R to the settlement over the last period's length."""
    step = 12 // frequency
    k = -1  # R: the quasi-coupon date before first_interest ...
    if from_issue:  # ... or, TRUE, the last coupon date before a later settlement
        while _shifted(first_interest, step * (k + 1)) < settlement:
            k += 1
    end = _shifted(first_interest, step * k)
    total = days_between(max(issue, end), settlement, kind) / period_days(
        _shifted(first_interest, -step), first_interest, frequency, kind)
    while end > issue:
        k -= 1
        start = _shifted(first_interest, step * k)
        if start >= issue:
            total += 1.0 if from_issue else 0.0
        else:
            total += days_between(issue, end, kind) / _length(start, end, kind, frequency)
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
        from_issue = calc_method == OMITTED or number(calc_method) != 0
        positive(r, p)
        if n not in (1, 2, 4) or i >= s:
            raise ExcelError("#NUM!")
        if f <= i:
            raise ExcelError(NOT_COMPUTED)  # a first interest date at or before the issue: in neither data set
        return p * r / n * periods(excel_date(i), excel_date(f), excel_date(s), n, kind, from_issue)
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
