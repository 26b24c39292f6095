"""ODDFPRICE and ODDFYIELD (a bond with an odd first coupon period) by Microsoft's documented
formula, computed here rather than by the `formulas` package: its ODDFYIELD imports
scipy.optimize for one root (0.3 CPU s, a third of ironcalc_PRICE_YIELD.xlsx's run).

- A short first period (the days from issue to the first coupon, DFC, fewer than the coupon
  period's, E): the first coupon is DFC/E of a full one, the rest are whole.
- A long one: the odd period is cut into quasi-coupon periods stepped back from the first
  coupon; each counts its days from issue (DCi) and accrued before settlement (Ai) over its
  own normal length (NLi: its actual days on basis 1, E otherwise).
- ODDFYIELD: the yield at which ODDFPRICE gives the price, by Newton's iteration (Microsoft:
  "changed through 100 iterations until the estimated price with the given yield is close to
  the price"), its derivative taken term by term, from the coupon rate; where it does not
  settle (a yield far from the coupon rate), bisection between yields pricing above and below.

What Excel 2010 computes where the documentation is silent, measured on the 19,322 ODDFPRICE
cases of fsprojects/ExcelFinancialFunctions' Excel-generated test data (all equal to this):
the long period's quasi-coupon dates are stepped one from the next with no month-end rule
(30 Jun, 30 Dec, 30 Jun ...: 5,856 cases differ with them kept on month ends); the coupon period around the settlement (E, DSC) is stepped from the first coupon,
on month ends if it is one; Nq is counted forward from the settlement (`_whole_periods`:
3,360 cases differ with the coupons to the first coupon less one); the day counts are
oddcoupon.odd_days (US 30/360 with its February rules: 1,716 cases differ without them).
Where neither the data nor Microsoft tells Excel's answer the call answers moneymarket.NOT_COMPUTED
(#NAME?), which the check against Excel's values lists: a first coupon off the maturity's coupon
dates (every one of the data is on them), a maturity or first coupon on a 29th or 30th clipped in
February (`coupon_dates`), Nq from a month-end settlement to such a first coupon. The data has
no short first period: that branch is Microsoft's formula, checked on ironcalc_PRICE_YIELD.xlsx.

Arguments are Excel's: dates and frequency and basis truncated, #NUM! for maturity <=
first_coupon <= settlement <= issue, a negative rate or yield, a price or redemption <= 0, a
frequency but 1, 2 or 4, a basis outside 0-4; an error argument passed on (the first). A call
with anything else but plain numbers (text, a logical, an array, an empty date) goes on to the bridged `formulas` implementation,
whose coercions the corpus has measured (tests/calc/test_oddfirst.py).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from datetime import date

from rates_xl.calc.engines.formualizer.values import error, is_error
from rates_xl.calc.xlfuncs.bridge import wrapped
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, is_number
from rates_xl.calc.xlfuncs.financial.bondprice import Terms, bisected, solve_yield
from rates_xl.calc.xlfuncs.financial.moneymarket import NOT_COMPUTED
from rates_xl.calc.xlfuncs.financial.oddcoupon import (
    coupon_dates,
    excel_date,
    month_end,
    months_after,
    odd_days,
    stepped,
)
from rates_xl.calc.xlfuncs.types import Answer, EngineValue


def _whole_periods(settlement: date, first_coupon: date, months: int) -> int:
    """The whole quasi-coupon periods from the settlement to the first coupon (Microsoft's Nq),
    as Excel counts them: dates stepped forward from the settlement, those before the first
    coupon. Where the first coupon is a month end, so are the dates, and a settlement that is
    not one steps to its month's end first, which counts one."""
    if not month_end(first_coupon) and first_coupon.day > 28 and month_end(settlement):
        # A first coupon on the 29th or 30th of a longer month, a settlement on a month end:
        # whether Excel steps on month ends there no case of the data shows.
        raise ExcelError(NOT_COMPUTED)
    to_month_end = month_end(first_coupon)
    start = months_after(settlement, 0, to_month_end)
    count = int(start > settlement)
    for day in stepped(months_after(start, months, to_month_end), months, to_month_end):
        if day >= first_coupon:
            return count
        count += 1
    raise AssertionError("unreachable: the stepping never ends")


def terms(settlement: date, maturity: date, issue: date, first_coupon: date, rate: float,
          redemption: float, frequency: int, basis: int) -> Terms:
    """The price's terms, independent of the yield (Microsoft's ODDFPRICE formula)."""
    if coupon_dates(first_coupon, maturity, frequency)[0] != first_coupon:
        # A first coupon off the maturity's coupon dates: undocumented, and no case of the data
        # has one (every first coupon there is a coupon date stepped back from the maturity).
        raise ExcelError(NOT_COMPUTED)
    pcd, ncd, _ = coupon_dates(settlement, first_coupon, frequency)
    if basis == 1:
        e = float((ncd - pcd).days)
    else:
        e = (365 if basis == 3 else 360) / frequency
    dfc = odd_days(issue, first_coupon, basis)
    coupon = 100 * rate / frequency
    if dfc < e:  # a short first period
        n = coupon_dates(settlement, maturity, frequency)[2]
        y0 = odd_days(settlement, first_coupon, basis) / e
        return Terms(redemption, n - 1 + y0, coupon * dfc / e, y0, coupon,
                     tuple(k + y0 for k in range(1, n)), odd_days(issue, settlement, basis) / e * coupon, frequency)
    # A long one: its quasi-coupon periods stepped back from the first coupon (each from the
    # one after it, no month-end rule: 30 Jun, 30 Dec, 30 Jun ...), as many as coupons from
    # the issue to the first coupon.
    quasi = list(itertools.islice(stepped(first_coupon, -12 // frequency),
                                  coupon_dates(issue, first_coupon, frequency)[2] + 1))
    counted = accrued = 0.0
    for start, end in itertools.pairwise(reversed(quasi)):
        normal = float((end - start).days) if basis == 1 else e
        counted += (odd_days(issue, end, basis) if start == quasi[-1] else normal) / normal
        accrued += odd_days(max(issue, start), min(settlement, end), basis) / normal
    if basis in (2, 3):
        dsc = odd_days(settlement, ncd, basis)
    else:
        dsc = e - odd_days(pcd, settlement, basis)
    y0 = dsc / e
    nq = _whole_periods(settlement, first_coupon, 12 // frequency)
    n = coupon_dates(first_coupon, maturity, frequency)[2]
    return Terms(redemption, nq + n + y0, coupon * counted, nq + y0, coupon,
                 tuple(k + y0 for k in range(nq + 1, nq + n + 1)), accrued * coupon, frequency)


#: The positions of the four dates, the frequency and the basis among the nine arguments.
_DATES, _FREQUENCY, _BASIS = (0, 1, 2, 3), 7, 8


def _native(inverse: bool) -> Callable[[Callback], Callback]:
    """ODDFPRICE (or, with `inverse`, ODDFYIELD) over plain numbers; `bridged` for the rest."""
    def wrapper(bridged: Callback) -> Callback:
        def call(*args: EngineValue) -> Answer:
            given = list(args) + [None] * (9 - len(args))
            if given[_BASIS] is None:
                given[_BASIS] = 0.0
            first_error = next((a for a in given if is_error(a)), None)
            if first_error is not None:  # the first in argument order, as Excel and `formulas` pass it on
                return first_error
            if len(args) > 9 or not all(is_number(a) for a in given):
                return bridged(*_frequency_truncated(args))
            try:
                return _computed(inverse, [float(a) for a in given])  # type: ignore[arg-type]  # numbers (is_number)
            except ExcelError as exc:
                return error(exc.text)
            except (OverflowError, ZeroDivisionError, ValueError):
                return error("#NUM!")
        return call
    return wrapper


def _computed(inverse: bool, values: list[float]) -> float:
    s, m, i, fc = (excel_date(values[k]) for k in _DATES)
    rate, given, redemption = values[4], values[5], values[6]
    frequency, basis = math.trunc(values[_FREQUENCY]), math.trunc(values[_BASIS])
    bad_given = given <= 0 if inverse else given < 0
    if not m > fc > s > i or rate < 0 or bad_given or redemption <= 0 or frequency not in (1, 2, 4) \
            or not 0 <= basis <= 4:
        raise ExcelError("#NUM!")
    bond = terms(s, m, i, fc, rate, redemption, frequency, basis)
    if not inverse:
        answer = bond.price(given)
    else:
        try:
            answer = solve_yield(bond, given, rate)
        except ExcelError:  # Newton's did not settle (a yield far from the coupon rate): bisection
            answer = bisected(bond, given)
    if not math.isfinite(answer):
        raise ExcelError("#NUM!")
    return answer


def _frequency_truncated(args: tuple[EngineValue, ...]) -> list[EngineValue]:
    """The arguments for `formulas`' implementation: the frequency truncated first, as Excel
    does (2.3 is 2; `formulas`: #NUM!), trailing empty ones dropped (its default basis 0)."""
    given = [math.trunc(a) if i == _FREQUENCY and isinstance(a, float) and math.isfinite(a) else a
             for i, a in enumerate(args)]
    while given and given[-1] is None:
        given.pop()
    return given


FUNCTIONS = {"ODDFPRICE": wrapped("ODDFPRICE", _native(inverse=False)),
             "ODDFYIELD": wrapped("ODDFYIELD", _native(inverse=True))}
