"""PRICE, YIELD, DURATION and MDURATION as Excel computes them (its documented formula over the coupon
period around the settlement date, its days counted as calc/xlfuncs/financial/daycounts.py says:
every case of Excel 2010's answers there, 30/360 month ends included). formualizer's own is right on every basis of ironcalc_PRICE_YIELD.xlsx but
actual/360 (basis 2), where Excel counts the days to the next coupon as the period's 360/f
less the days accrued (PRICE(2025-04-01, 2028-03-13, 22 %, 12 %, 15, 1, 2): Excel
62.7369290692909, formualizer 62.7475994459884); this reproduces all 15 PRICE cells there. YIELD is the yield at which
this PRICE gives the price (formualizer's inverts its own PRICE, so is off on basis 2 too), as
Microsoft documents it: PRICE's one-period formula solved for the yield, else Newton's iteration
to the last bit (Excel's own stops within 2E-10 of it on every YIELD cell there). ODDFPRICE and
ODDFYIELD (oddfirst.py) share `Terms` and `solve_yield`.

Like Excel's other Analysis ToolPak functions, a range where one value is wanted is #VALUE!;
dates are serials (a date typed as text is #VALUE! here, where Excel would read it)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from rates_xl.calc.engines.formualizer.values import EngineValue, error, is_error
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Factory, Facts, number
from rates_xl.calc.xlfuncs.financial.daycounts import days_between, period_days
from rates_xl.calc.xlfuncs.financial.oddcoupon import excel_date, month_end, months_after
from rates_xl.errors import Internal


@dataclass(frozen=True)
class Terms:
    """A bond's price as a function of the yield (PRICE's and ODDFPRICE's formulas): price(y) =
    redemption / x**last + first / x**lead + sum(coupon / x**p for p in powers) - accrued,
    x = 1 + y / frequency."""

    redemption: float
    last: float
    first: float
    lead: float
    coupon: float
    powers: tuple[float, ...]
    accrued: float
    frequency: int

    def price(self, y: float) -> float:
        x = 1 + y / self.frequency
        total = self.redemption / x ** self.last + self.first / x ** self.lead
        total += sum(self.coupon / x ** p for p in self.powers)
        return total - self.accrued

    def slope(self, y: float) -> float:
        """d price / d y."""
        x = 1 + y / self.frequency
        total = -self.last * self.redemption / x ** (self.last + 1) - self.lead * self.first / x ** (self.lead + 1)
        total -= sum(p * self.coupon / x ** (p + 1) for p in self.powers)
        return total / self.frequency


def solve_yield(bond: Terms, price: float, guess: float) -> float:
    """Newton's iteration on price(y) = `price` from `guess`, at most 100 steps (Excel's
    documented count for YIELD and ODDFYIELD); #NUM! when it does not settle."""
    y = guess
    for _ in range(100):
        if y <= -bond.frequency:
            break  # past the yield at which the price is infinite
        gap = bond.price(y) - price
        slope = bond.slope(y)
        if slope == 0 or not math.isfinite(gap):
            break
        step = gap / slope
        y -= step
        if abs(step) <= 1e-12 * max(1.0, abs(y)):
            return y  # (the next step would move it by about step**2: the price's own rounding)
    raise ExcelError("#NUM!")


def months_before(maturity: date, months: int) -> date:
    """A coupon date `months` before maturity; month ends stay month ends (Excel's rule)."""
    return months_after(maturity, -months, month_end(maturity))


def coupon_period(settlement: date, maturity: date, frequency: int) -> tuple[date, date, int]:
    """(previous coupon date, next coupon date, coupons left) around the settlement."""
    step, k = 12 // frequency, 0
    while True:
        k += 1
        previous = months_before(maturity, step * k)
        if previous <= settlement:
            return previous, months_before(maturity, step * (k - 1)), k


def terms(settlement: date, maturity: date, rate: float, redemption: float, frequency: int,
          basis: int) -> tuple[Terms, float, float, float, int]:
    """PRICE's terms over the coupon period around the settlement, and that period's days
    (length, accrued, to the next coupon) and the coupons left."""
    previous, following, coupons = coupon_period(settlement, maturity, frequency)
    accrued = days_between(previous, settlement, basis)  # COUPDAYBS
    period = period_days(previous, following, frequency, basis)  # COUPDAYS
    to_next = period - accrued  # (not COUPDAYSNC on 30/360: daycounts.py)
    coupon = 100 * rate / frequency
    fraction = to_next / period
    bond = Terms(redemption, coupons - 1 + fraction, 0.0, 0.0, coupon,
                 tuple(k - 1 + fraction for k in range(1, coupons + 1)), coupon * accrued / period, frequency)
    return bond, period, accrued, to_next, coupons


def price(settlement: date, maturity: date, rate: float, yld: float, redemption: float,
          frequency: int, basis: int) -> float:
    bond, period, accrued, to_next, coupons = terms(settlement, maturity, rate, redemption, frequency, basis)
    if coupons == 1:
        return (bond.coupon + redemption) / (yld / frequency * to_next / period + 1) - bond.coupon * accrued / period
    return bond.price(yld)


class GivenError(Internal):
    """An error given as an argument: the answer (Excel passes it on)."""

    def __init__(self, value: EngineValue) -> None:
        super().__init__("error argument")
        self.value = value


def single(value: EngineValue) -> float:
    if isinstance(value, list):  # a range where one value is wanted
        cells = [cell for row in value for cell in (row if isinstance(row, list) else [row])]
        if len(cells) != 1:
            raise ExcelError("#VALUE!")
        value = cells[0]
    if is_error(value):
        raise GivenError(value)
    return number(value)


def bond_yield(settlement: date, maturity: date, rate: float, pr: float, redemption: float,
               frequency: int, basis: int) -> float:
    """YIELD as Microsoft documents it: for one coupon period or less to redemption, PRICE's
    formula solved for the yield (a closed form); otherwise Newton's iteration from the coupon
    rate, and bisection where Newton's does not settle (a yield near -frequency, where the
    price is infinite), the answer the same to the last bits."""
    bond, period, accrued, to_next, coupons = terms(settlement, maturity, rate, redemption, frequency, basis)
    if coupons == 1:
        paid = pr + bond.coupon * accrued / period
        return (bond.coupon + redemption - paid) / paid * frequency * period / to_next
    try:
        return solve_yield(bond, pr, rate)
    except ExcelError:
        return bisected(bond, pr)


def bisected(bond: Terms, pr: float) -> float:
    """The yield at which `bond` is priced `pr`: the price falls as the yield rises, so bisect
    between a yield low enough to price above `pr` and one high enough to price below it."""
    def gap(y: float) -> float:
        return bond.price(y) - pr

    frequency = bond.frequency
    low, high = 0.0, 1.0
    while gap(low) < 0:  # a negative yield: halve the way to -frequency (where the price is infinite)
        low = (low - frequency) / 2
        if low + frequency < 1e-9:
            raise ExcelError("#NUM!")
    while gap(high) > 0:
        high *= 2
        if high > 1e6:
            raise ExcelError("#NUM!")
    for _ in range(200):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if gap(middle) > 0:
            low = middle
        else:
            high = middle
    return low if abs(gap(low)) <= abs(gap(high)) else high


def _bond(inverse: bool) -> Factory:
    def factory(_facts: Facts) -> Callback:
        def call(settlement: EngineValue, maturity: EngineValue, rate: EngineValue, given: EngineValue, redemption: EngineValue,
                 frequency: EngineValue, basis: EngineValue = None) -> EngineValue:
            return _computed(inverse, settlement, maturity, rate, given, redemption, frequency, basis)
        call.__name__ = "YIELD" if inverse else "PRICE"
        return call
    return factory


def _computed(inverse: bool, *args: EngineValue) -> EngineValue:
    """PRICE(..., yld, ...) or, with `inverse`, YIELD(..., pr, ...) with Excel's checks."""
    def compute() -> float:
        values = [single(a) for a in args]
        s, m = excel_date(values[0]), excel_date(values[1])
        r, given, red = values[2], values[3], values[4]
        f, b = math.trunc(values[5]), math.trunc(values[6])
        bad_given = given <= 0 if inverse else given < 0
        if s >= m or r < 0 or bad_given or red <= 0 or f not in (1, 2, 4) or not 0 <= b <= 4:
            raise ExcelError("#NUM!")
        return (bond_yield if inverse else price)(s, m, r, given, red, f, b)
    return answered(compute)


def answered(compute: Callable[[], float]) -> EngineValue:
    """`compute()`'s answer as a cell shows it: an error given as an argument passed on, an
    Excel error raised (#NUM!, #VALUE!) answered, an arithmetic failure or a non-finite answer
    #NUM! (the securities functions here and in maturity.py)."""
    try:
        answer = compute()
    except GivenError as passed:
        return passed.value
    except ExcelError as exc:
        return error(exc.text)
    except (OverflowError, ZeroDivisionError, ValueError):
        return error("#NUM!")
    return answer if math.isfinite(answer) else error("#NUM!")


def duration(settlement: date, maturity: date, coupon: float, yld: float, frequency: int, basis: int) -> float:
    """DURATION: the Macaulay duration of a bond of par 100, in years; each flow's time counted
    from the settlement as PRICE discounts it (the coupon period less the days accrued, then
    whole periods), so Microsoft's example DURATION(2018-07-01, 2048-01-01, 8 %, 9 %, 2, 1) is
    10.9191453 (LibreOffice's reading, YEARFRAC over the whole life, gives 10.9216)."""
    bond = terms(settlement, maturity, coupon, 100.0, frequency, basis)[0]
    x = 1 + yld / frequency
    flows = [(p, bond.coupon) for p in bond.powers]
    flows[-1] = (bond.last, bond.coupon + bond.redemption)
    present = [(p, flow / x ** p) for p, flow in flows]
    return sum(p * value for p, value in present) / sum(value for _, value in present) / frequency


def _duration(modified: bool) -> Factory:
    def factory(_facts: Facts) -> Callback:
        def call(settlement: EngineValue, maturity: EngineValue, coupon: EngineValue, yld: EngineValue,
                 frequency: EngineValue, basis: EngineValue = None) -> EngineValue:
            def compute() -> float:
                values = [single(a) for a in (settlement, maturity, coupon, yld, frequency, basis)]
                s, m = excel_date(values[0]), excel_date(values[1])
                c, y = values[2], values[3]
                f, b = math.trunc(values[4]), math.trunc(values[5])
                if s >= m or c < 0 or y < 0 or f not in (1, 2, 4) or not 0 <= b <= 4:
                    raise ExcelError("#NUM!")
                answer = duration(s, m, c, y, f, b)
                # MDURATION: the Macaulay duration / (1 + yield / frequency)
                return answer / (1 + y / f) if modified else answer
            return answered(compute)
        call.__name__ = "MDURATION" if modified else "DURATION"
        return call
    return factory


FUNCTIONS = {"PRICE": _bond(inverse=False), "YIELD": _bond(inverse=True),
             "DURATION": _duration(modified=False), "MDURATION": _duration(modified=True)}
