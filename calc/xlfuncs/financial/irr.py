"""IRR and MIRR as Excel reads their cash flows; IRR in bounded time however many there are
(MIRR's own arithmetic is at the end of the module).

**The flows.** Microsoft's IRR page: "If an array or reference argument contains text, logical
values, or empty cells, those values are ignored." The bridged `formulas` IRR reads an empty
cell as a flow of 0 (a period more before every later flow), and numeric text and TRUE as
numbers: `IRR(B1:B3)` over -100, an empty cell, 110 was 4.88 % where Excel and LibreOffice
answer 10 %. The numbers alone, in the book's order (row by row), are handed to it here; a
range of plain numbers goes to it as it came, so its answers there are as before.

**The root.** `formulas` answers numpy_financial's `irr`: every root of the flows' polynomial
(`numpy.roots`, the eigenvalues of its companion matrix, cubic in the count of flows), then
the real one whose rate is nearest 0. 200 flows take 0.03 s, 1,000 take 1.1 s, 2,000 about
10 s, and 10,000 hours and 1.6 GB, in one cell nothing could cancel. Past `ROOTS_UP_TO` flows
the root is found otherwise where it is unique:

- Descartes' rule of signs: the polynomial sum(v[t] * x**t) (x = 1 / (1 + rate)) has as many
  positive roots as its coefficients change sign, or fewer by an even number. Flows whose signs
  change once (a loan, an investment and its returns) have exactly one rate above -100 %, which
  is the one numpy_financial answers too; it is found by halving an interval of x in (0, 1] (a
  rate of 0 or more) or of 1 / x (below 0), where no power overflows, until the interval cannot
  shrink. Signs that never change have no root: #NUM!, as numpy_financial finds none.
- Signs that change more than once may give several rates, and which one an iteration finds
  depends on where it starts (Excel's starts at the guess; numpy_financial takes the nearest
  to 0). Up to `MIXED_ROOTS_UP_TO` flows numpy's roots are found (1.1 s) and the one Newton's
  method from the guess reaches is answered (`reached_rate`); past it the answer is #NUM!, an
  error in the cell rather than a rate that may not be Excel's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import date, time, timedelta

from rates_xl.calc.engines.formualizer.values import EngineError, error, is_error
from rates_xl.calc.xlfuncs.bridge import bridged
from rates_xl.calc.xlfuncs.coercion import Callback, Facts
from rates_xl.calc.xlfuncs.types import EngineScalar, EngineValue
from rates_xl.functions.values import to_serial

#: Flows up to which `formulas`' roots decide (numpy.roots of 200: 0.03 CPU s).
ROOTS_UP_TO = 200
#: Flows whose signs change more than once: `formulas`' roots up to this many (1.1 CPU s), #NUM! past it.
MIXED_ROOTS_UP_TO = 1000
#: Flows with a known rate (-1 then 2: 100 %), on which `formulas` reads the guess argument alone.
_GUESS_PROBE = [[-1.0, 2.0]]


def irr(_facts: Facts) -> Callback:
    computed = bridged("IRR")

    def IRR(*args: EngineValue) -> EngineValue:  # noqa: N802
        if not args:
            return computed(*args)
        if len(args) > 1 and isinstance(args[1], int | float) and not isinstance(args[1], bool) and args[1] <= -1:
            # A guess of -100 % or below is #VALUE! in Excel 16 (IronCalc's Excel-made
            # FINANCIAL__IRR.xlsx General!N5, guess -1, and N3, -10; -0.9 is answered, N4):
            # `formulas` answered a rate.
            return error("#VALUE!")
        read = _flows(args[0])
        if is_error(read):  # an error among the flows: `formulas`' answer, as before
            return computed(*args)
        flows, skipped = read
        if not flows:
            return error("#NUM!")
        mixed = _sign_changes(flows) > 1
        if len(flows) <= ROOTS_UP_TO or (mixed and len(flows) <= MIXED_ROOTS_UP_TO):
            answer = computed([flows], *args[1:]) if skipped else computed(*args)
            guess = 0.1 if len(args) < 2 else args[1]
            if mixed and isinstance(answer, float) and isinstance(guess, int | float) and not isinstance(guess, bool):
                return reached_rate(flows, float(guess), answer)
            return answer
        # The guess read as `formulas` reads it (an error, text that is no number), on flows
        # whose own answer is a number: that number stands for this answer.
        probed = computed(_GUESS_PROBE, *args[1:])
        rate = unique_rate(flows)
        return _answered(probed, error("#NUM!") if rate is None else rate)

    return IRR


def reached_rate(flows: list[float], guess: float, nearest_zero: float) -> float:
    """Of flows with several rates, the one Excel's iteration from `guess` reaches, as Microsoft's
    IRR page describes it ("Starting with guess, IRR cycles through the calculation until the
    result is accurate within 0.00001 percent"; "if the result is not close to what you
    expected, try again with a different value for guess"): the rate Newton's method from the
    guess converges to (LibreOffice's IRR iterates so too), given as numpy's root nearest it.
    `formulas`' answer, the root nearest 0 whatever the guess (`nearest_zero`), was another
    rate: IRR of -2558.32, 2453.33, 2657.89, 2268.84, 1466.88, 1644.77, 281.35, 2172, 948.85,
    -420.72 was -73.5 % where LibreOffice answers 90.5 % (IronCalc's Excel-made FINANCIAL__IRR.xlsx
    General!L6, 30.3 % of the rates 30.3 % and -64.7 %, is both). Where the iteration reaches
    no rate, the root nearest the guess."""
    import numpy as np

    roots = np.roots(flows[::-1])
    rates = sorted(1 / float(root.real) - 1 for root in roots if root.imag == 0 and root.real > 0)
    if len(rates) < 2:
        return nearest_zero
    reached = _newton(flows, guess)
    target = guess if reached is None else reached
    return float(min(rates, key=lambda rate: abs(rate - target)))


def _newton(flows: list[float], rate: float) -> float | None:
    """Newton's method on the flows' value from `rate`: the rate it converges to, or None where
    it leaves (-100 %, 1E10) or has not settled after 50 steps."""
    for _ in range(50):
        if not -1 < rate < 1e10:
            return None
        try:
            base = 1 / (1 + rate)
            value = slope = 0.0
            power = 1.0
            for period, flow in enumerate(flows):
                value += flow * power
                slope -= period * flow * power * base
                power *= base
        except OverflowError:
            return None
        if slope == 0 or not math.isfinite(value) or not math.isfinite(slope):
            return None
        step = value / slope
        rate -= step
        if abs(step) <= 1e-12 * max(1.0, abs(rate)):
            return rate
    return None


def _flows(values: EngineValue) -> tuple[list[float], bool] | EngineError:
    """The numbers among `values` in the book's order (a date-formatted one as its serial), and
    whether anything else (an empty cell, text, a logical) was left out or a date read; the
    first error when one is among them."""
    rows = values if isinstance(values, list) else [[values]]
    flows: list[float] = []
    skipped = False
    for row in rows:
        for value in row if isinstance(row, list) else [row]:
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                flows.append(float(value))
            elif isinstance(value, date | time | timedelta):  # a number the cell's format shows as a date
                flows.append(float(to_serial(value)))
                skipped = True  # (handed over as the number)
            elif is_error(value):
                return value
            else:
                skipped = True
    return flows, skipped


def _sign_changes(flows: list[float]) -> int:
    signs = [value > 0 for value in flows if value != 0]
    return sum(1 for before, after in zip(signs, signs[1:], strict=False) if before != after)


def _answered(probed: EngineValue, rate: EngineScalar) -> EngineValue:
    """`rate` where the probe answered a number, the probe's error where it did not (element
    by element for a range of guesses)."""
    if isinstance(probed, list):
        rows = [row if isinstance(row, list) else [row] for row in probed]
        return [[rate if isinstance(value, float) else value for value in row] for row in rows]
    return rate if isinstance(probed, float) else probed


def unique_rate(flows: list[float]) -> float | None:
    """The one rate above -100 % at which `flows` (one per period, the first at period 0) are
    worth 0, where their signs change exactly once; None where they never change (no rate) or
    change more than once (not decided here)."""
    coefficients = _trimmed(flows)
    if _sign_changes(coefficients) != 1:
        return None
    at_one = math.fsum(coefficients)  # the value at a rate of 0
    if at_one == 0:
        return 0.0
    first_positive = coefficients[0] > 0
    if (at_one > 0) != first_positive:
        # The sign flips between x = 0 (the first flow's) and x = 1: a rate of 0 or more.
        x = _halved(lambda x: _value(coefficients, x), first_positive)
        return 1 / x - 1
    # Otherwise between x = 1 and infinity: y = 1/x in (0, 1], the flows taken last first
    # (y**(n-1) * P(1/y), the same sign as P(1/y)).
    reversed_ = coefficients[::-1]
    y = _halved(lambda y: _value(reversed_, y), reversed_[0] > 0)
    return y - 1


def _trimmed(flows: list[float]) -> list[float]:
    """The flows without leading or trailing zeros (a factor x**k, or a lower degree: the same
    positive roots)."""
    nonzero = [index for index, value in enumerate(flows) if value != 0]
    return flows[nonzero[0]:nonzero[-1] + 1] if nonzero else []


def _value(coefficients: list[float], x: float) -> float:
    """sum(c[t] * x**t) for x in [0, 1] (no power overflows): the sign is what is asked."""
    import numpy as np

    powers = np.power(x, np.arange(len(coefficients), dtype=float))
    return math.fsum((np.asarray(coefficients) * powers).tolist())


def _halved(value: Callable[[float], float], positive_at_zero: bool) -> float:
    """The point of [0, 1] where `value` changes sign (its sign at 0 given, the other at 1),
    halved until no float lies between the ends."""
    low, high = 0.0, 1.0
    while True:
        middle = (low + high) / 2
        if middle in (low, high):
            return middle
        at_middle = value(middle)
        if at_middle == 0:
            return middle
        if (at_middle > 0) == positive_at_zero:
            low = middle
        else:
            high = middle


# -- MIRR ----------------------------------------------------------------------------------------

def mirr(_facts: Facts) -> Callback:
    """MIRR over Excel's flows (`_flows`: an empty cell, text and logical values in the range left
    out, as Microsoft's MIRR page says; formualizer's own read an empty cell as a flow of 0 and
    TRUE as 1), with formualizer's own arithmetic on them, so that a range of plain numbers
    answers as before to the bit (tests/calc/test_irr.py compares them): the negative flows
    discounted at the finance rate, the others compounded at the reinvestment rate, each power
    by repeated squaring (Rust's `powi`, LLVM's `__powidf2`); #DIV/0! without a negative flow or
    for a single one (formualizer: #NUM!), -1 without a positive one (`_modified_rate`)."""
    from rates_xl.calc.xlfuncs.coercion import ExcelError, number

    def MIRR(values: EngineValue, finance_rate: EngineValue, reinvest_rate: EngineValue) -> EngineValue:  # noqa: N802
        read = _flows(values)
        if is_error(read):  # the first error among the flows
            return read
        rates: list[float] = []
        for rate in (finance_rate, reinvest_rate):
            if isinstance(rate, list):
                rate = rate[0][0] if rate and isinstance(rate[0], list) and rate[0] else rate
            if is_error(rate):
                return rate
            try:
                rates.append(number(rate))
            except ExcelError:
                return error("#VALUE!")
        return _modified_rate(read[0], *rates)

    return MIRR


def _modified_rate(flows: list[float], finance: float, reinvest: float) -> EngineValue:
    """Excel's answers where the flows or the rates are unusual (IronCalc's Excel-made
    FINANCIAL__MIRR.xlsx, MIT or Apache-2.0, not committed): no negative flow is #DIV/0!
    (Sheet2!N7, N14); no positive one is -1, not #DIV/0! as Microsoft's page says (Sheet2!N15,
    'Three parameters'!F18, F19, 'Two Parameters'!E7: -5 and -3); a ratio below 0, as a
    reinvestment rate below -100 % makes one, #NUM! ('Three parameters'!F31)."""
    count = len(flows)
    if count < 2 or not any(flow < 0 for flow in flows):
        return error("#DIV/0!")
    negative, positive = 0.0, 0.0
    for period, flow in enumerate(flows):
        if flow < 0:
            negative += flow / powi(1.0 + finance, period)
        else:
            positive += flow * powi(1.0 + reinvest, count - 1 - period)
    if negative == 0:
        return error("#DIV/0!")
    ratio = -positive / negative
    if ratio < 0:
        return error("#NUM!")
    try:
        return float(ratio ** (1.0 / (count - 1)) - 1.0)
    except (OverflowError, ZeroDivisionError):
        return error("#NUM!")


def powi(base: float, exponent: int) -> float:
    """base**exponent (a whole exponent from 0 up) as LLVM's `__powidf2` computes it
    (compiler-rt), which Rust's `powi` calls, and as Excel's EFFECT does (compounding.py):
    by repeated squaring, in this order, so that the bits are formualizer's."""
    result = 1.0
    while True:
        if exponent & 1:
            result *= base
        exponent //= 2
        if exponent == 0:
            return result
        base *= base
