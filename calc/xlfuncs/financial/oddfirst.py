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

The arithmetic is `formulas`' own (which equals Excel's value on every ODDF* cell of
ironcalc_PRICE_YIELD.xlsx), its 30/360 day count too (a start on the last day of February
counts from the 30th on basis 0), but coupon dates are stepped from their anchor (maturity, the
first coupon) and not one from the last (`formulas` drifts: 30 Aug, 28 Feb, 28 Aug ...).
Arguments are Excel's: dates and frequency and basis truncated, #NUM! for maturity <=
first_coupon <= settlement <= issue, a negative rate or yield, a price or redemption <= 0, a
frequency but 1, 2 or 4, a basis outside 0-4; an error argument passed on (the first). A call
with anything else but plain numbers (text, a logical, an array, an empty date) goes on to the bridged `formulas` implementation,
whose coercions the corpus has measured (tests/calc/test_oddfirst.py).
"""

from __future__ import annotations

import calendar
import math
from collections.abc import Callable
from datetime import date
from itertools import pairwise

from rates_xl.calc.engines.formualizer.values import error, is_error
from rates_xl.calc.xlfuncs.bridge import wrapped
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, is_number
from rates_xl.calc.xlfuncs.financial.bondprice import (
    Terms,
    bisected,
    coupon_period,
    months_before,
    solve_yield,
)
from rates_xl.calc.xlfuncs.financial.oddcoupon import day_count, excel_date
from rates_xl.calc.xlfuncs.types import Answer, EngineValue


def _days(start: date, end: date, basis: int) -> float:
    """Days from `start` to `end` as `formulas` counts them for ODDF*: `day_count`, but on US
    30/360 a start on the last day of February counts from the 30th."""
    days = day_count(start, end, basis)
    if basis == 0 and start.month == 2 and start.day == calendar.monthrange(start.year, 2)[1]:
        days -= 30 - start.day
    return days


def terms(settlement: date, maturity: date, issue: date, first_coupon: date, rate: float,
          redemption: float, frequency: int, basis: int) -> Terms:
    """The price's terms, independent of the yield (Microsoft's ODDFPRICE formula)."""
    pcd, ncd, _ = coupon_period(settlement, first_coupon, frequency)
    if basis == 1:
        e = float((ncd - pcd).days)
    else:
        e = (365 if basis == 3 else 360) / frequency
    dfc = _days(issue, first_coupon, basis)
    coupon = 100 * rate / frequency
    if dfc < e:  # a short first period
        n = coupon_period(settlement, maturity, frequency)[2]
        y0 = _days(settlement, first_coupon, basis) / e
        return Terms(redemption, n - 1 + y0, coupon * dfc / e, y0, coupon,
                      tuple(k + y0 for k in range(1, n)), _days(issue, settlement, basis) / e * coupon, frequency)
    quasi = [first_coupon]  # quasi-coupon dates back from the first coupon to the issue
    step = 12 // frequency
    while quasi[-1] > issue:
        quasi.append(months_before(first_coupon, step * len(quasi)))
    counted = accrued = 0.0
    for index, (start, end) in enumerate(pairwise(reversed(quasi))):
        normal = _days(start, end, basis) if basis == 1 else e
        counted += (normal if index else max(0.0, _days(issue, end, basis))) / normal
        accrued += max(0.0, _days(max(issue, start), min(settlement, end), basis)) / normal
    dsc = _days(settlement, ncd, basis) if basis in (2, 3) else e - _days(pcd, settlement, basis)
    y0 = dsc / e
    nq = coupon_period(settlement, first_coupon, frequency)[2] - 1
    n = coupon_period(first_coupon, maturity, frequency)[2]
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
