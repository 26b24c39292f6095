"""XNPV as Excel computes it. The rate argument is read as Excel reads it before the
`formulas` implementation (bridged, measured right on the cash flows themselves) computes:
an error given as the rate is passed on (XNPV(#N/A, ...) is #N/A; formualizer hands
`formulas` a value it answers #VALUE! for), a boolean is #VALUE! (XNPV(TRUE, ...): `formulas`
reads it as 1) and an empty cell is a rate of 0, which is #NUM! (formulas_test.xlsx FINANCIAL
row 56).

Where `formulas` answers a number for plain numeric cash flows, the sum is taken again in the
book's order: `formulas` sorts the flows by date first, and at a rate next to the root (an
XIRR's answer) the terms cancel, so the order of the additions shows in the 7th digit
(formulas_test.xlsx FINANCIAL!R56: 4.594164160e-09, sorted 4.594164826e-09). Excel and
LibreOffice both add in the order given.

XIRR's root is found as Excel finds it, which the digits of its answers show (formulas_test.xlsx
FINANCIAL rows 54-55): not by Newton's method but by halving an interval that starts at a rate
of 0 and ends at the guess, the guess doubled until the XNPV changes sign across the interval,
the midpoint answered once the half-width is below 1E-8 (the documented "0.000001 percent").
Each answer is then a dyadic fraction of its guess (the guess 1 and the guess 4 give the same
answer, 80439335/2^27) and lies up to 1E-8 from the exact root, which Newton's method reaches.
A guess of 0 starts at 1E-5 (the only start that reproduces Excel's answer for it). Where no
interval is found, `formulas`' answer (Newton from the guess) is kept where it is a root, a
root below 0 is looked for where it is not (`_below_zero`), and flows with no rate at all are
#NUM!; the engine's check against Excel's cached values lists an answer as stale where it differs."""

from __future__ import annotations

import math
from collections.abc import Callable

from rates_xl.calc.engines.formualizer.values import error, is_error
from rates_xl.calc.xlfuncs.bridge import bridged
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Facts, is_number, number
from rates_xl.calc.xlfuncs.types import Answer, EngineScalar, EngineValue


def _cells(argument: EngineValue) -> list[EngineScalar]:
    """A range or scalar argument's values in the book's order (row by row)."""
    rows = argument if isinstance(argument, list) else [[argument]]
    return [value for row in rows for value in (row if isinstance(row, list) else [row])]


def _numbers(argument: EngineValue) -> list[float] | None:
    """The plain numbers of a range or scalar argument, in the book's order (row by row), or
    None when anything else is in it (left to `formulas`' own reading)."""
    flat = _cells(argument)
    numbers = [float(value) for value in flat if isinstance(value, (int, float)) and not isinstance(value, bool)]
    if not flat or len(numbers) < len(flat):
        return None
    return numbers


def _flows(values: EngineValue, dates: EngineValue) -> tuple[list[float], list[float]] | None:
    """XIRR's cash flows and dates in the book's order, a pair whose value is an empty cell or
    text left out as Excel leaves it out (FINANCIAL!AD54 and AE54 answer as the flows without
    them); None where anything else is not a plain number (left to `formulas`)."""
    flows, days = _cells(values), _cells(dates)
    pairs = [(value, date) for value, date in zip(flows, days, strict=False)
             if not (value is None or isinstance(value, str))]
    plain = [(value, date) for value, date in pairs if is_number(value) and is_number(date)]
    if len(flows) != len(days) or not pairs or len(plain) < len(pairs):
        return None
    return [float(value) for value, _ in plain], [float(date) for _, date in plain]


def _in_order(rate: float, values: list[float], dates: list[float]) -> float:
    """Sum of value / (1 + rate)^(days / 365) in the order given, the days counted from the
    earliest whole-day date as `formulas` counts them (its answer is otherwise kept)."""
    if not rate > -1:  # a negative base to a fractional power is a complex number in Python
        raise ValueError(rate)
    days = [math.floor(date) for date in dates]
    first = min(days)
    total = 0.0
    for value, day in zip(values, days, strict=True):
        total += value / (1 + rate) ** ((day - first) / 365)
    return total


def _guess(rest: tuple[EngineValue, ...]) -> float | None:
    """XIRR's guess as a number: 0.1 when not written, 0 for an empty cell, numeric text read
    as `formulas` reads it ("26/08/1987" is the date 32015); None for anything else."""
    if len(rest) < 3:
        return 0.1
    guess = rest[2]
    if guess is None:
        return 0.0
    if isinstance(guess, str):
        from formulas.functions import _text2num

        guess = _text2num(guess)
    if isinstance(guess, bool) or not isinstance(guess, (int, float)):
        return None
    return float(guess)


def _halving(values: list[float], dates: list[float], guess: float) -> float | None:
    """XIRR by Excel's interval halving (see the module's docstring), or None where no
    interval with a sign change is found before the rate leaves (-1, 1E300)."""
    def npv(rate: float) -> float:
        return _in_order(rate, values, dates)

    low, high = 0.0, guess if guess != 0 else 1e-5
    at_low = npv(low)
    if at_low == 0:
        return low
    if not -1 < high < 1e300:
        return None
    try:
        at_high = npv(high)
        while (at_high > 0) == (at_low > 0) and at_high != 0:
            high *= 2
            if not -1 < high < 1e300:
                return None
            at_high = npv(high)
    except (OverflowError, ZeroDivisionError, ValueError):
        return None
    if not math.isfinite(at_high):
        return None
    if at_high == 0:
        return high
    while True:
        middle = (low + high) / 2
        if abs(high - low) / 2 < 1e-8:
            return middle
        at_middle = npv(middle)
        if at_middle == 0:
            return middle
        if (at_middle > 0) == (at_low > 0):
            low, at_low = middle, at_middle
        else:
            high = middle


def _is_root(rate: float, values: list[float], dates: list[float]) -> bool:
    """Whether the XNPV at `rate` is zero to within 1E-6 of the flows' size."""
    try:
        return abs(_in_order(rate, values, dates)) <= 1e-6 * sum(map(abs, values))
    except (OverflowError, ZeroDivisionError, ValueError):
        return False


def _below_zero(npv: Callable[[float], float], at_zero: float) -> float | None:
    """A root between -100 % and 0 where doubling the guess found none above 0: the interval from 0
    halved toward -1 until the XNPV changes sign, then halved to within 1E-8 (Excel finds such
    roots: XIRR of -900, 10, 12, 13, 40, 100 over 2024-2026 is -0.560838276892901 in IronCalc's
    Excel-made XIRR.xlsx, where `formulas`' Newton stopped at -0.9999999). None without a sign
    change."""
    low, high = 0.0, -0.5
    try:
        at_high = npv(high)
        while (at_high > 0) == (at_zero > 0) and at_high != 0:
            high = (high - 1) / 2
            if high + 1 < 1e-12:
                return None
            at_high = npv(high)
        while abs(high - low) / 2 >= 1e-8 and at_high != 0:
            middle = (low + high) / 2
            at_middle = npv(middle)
            if (at_middle > 0) == (at_zero > 0):
                low = middle
            else:
                high, at_high = middle, at_middle
    except (OverflowError, ZeroDivisionError, ValueError):
        return None
    return high if at_high == 0 else (low + high) / 2


def xirr(_facts: Facts) -> Callback:
    computed = bridged("XIRR")

    def XIRR(*args: EngineValue) -> EngineValue:  # noqa: N802
        answer = computed(*args)
        if len(args) < 2:
            return answer
        newton = isinstance(answer, float) and math.isfinite(answer)
        flows, guess = _flows(args[0], args[1]), _guess(args)
        if flows is None or guess is None or not (newton or answer == error("#NUM!")):
            return answer
        values, dates = flows
        if not newton and (not dates or min(dates) < max(dates[0], 0)):
            return answer  # #NUM! for its arguments (a date before the first), not for a root not found
        found = _halving(values, dates, guess)
        if found is not None:
            return found
        if newton and _is_root(answer, values, dates):
            return answer
        # No root between 0 and the guess doubled, and `formulas`' Newton stopped where there is
        # none (-0.9999999) or found none (#NUM!): one below 0, else no rate at all, which Excel
        # answers #NUM! ("If XIRR can't find a result that works after 100 tries"): -0.9999999
        # was answered there, a rate at which the flows are worth anything but 0.
        found = _below_zero(lambda rate: _in_order(rate, values, dates), _in_order(0.0, values, dates))
        return error("#NUM!") if found is None else found
    return XIRR


def _not_flows(values: list[EngineScalar], dates: list[EngineScalar]) -> bool:
    """Whether Excel answers XNPV #NUM! for its values: an empty cell, a text or a boolean among
    them, or more or fewer values than dates (Excel 16's answers, cached in IronCalc's
    xlsx/tests/calc_tests/FINANCIAL__XNPV.xlsx Q7, Q8, Q9 and S2; `formulas` left the empty cell
    out and answered a number, 39.46 for Q7, and #VALUE! for the others). An error among either
    is passed on as `formulas` passes it (Q10's #DIV/0!), whichever else is wrong."""
    if any(is_error(value) for value in (*values, *dates)):
        return False
    return len(values) != len(dates) or any(value is None or isinstance(value, (str, bool)) for value in values)


def xnpv(_facts: Facts) -> Callback:
    computed = bridged("XNPV")

    def XNPV(rate: EngineValue, *rest: EngineValue) -> EngineValue:  # noqa: N802
        if is_error(rate):
            return rate
        if isinstance(rate, bool):
            return error("#VALUE!")
        if rate is None:
            return error("#NUM!")
        if len(rest) == 2 and _not_flows(_cells(rest[0]), _cells(rest[1])):
            return error("#NUM!")
        answer = computed(rate, *rest)
        if (isinstance(answer, float) and math.isfinite(answer) and len(rest) == 2
                and isinstance(rate, (int, float))):
            values, dates = _numbers(rest[0]), _numbers(rest[1])
            if values is not None and dates is not None and len(values) == len(dates):
                try:
                    again = _in_order(float(rate), values, dates)
                except (OverflowError, ZeroDivisionError, ValueError):
                    return answer
                if math.isfinite(again):
                    return again
        return answer
    return XNPV


def npv(_facts: Facts) -> Callback:
    """NPV as Microsoft documents it (the Office 2010 WorksheetFunction.Npv page, ISO/IEC 29500
    part 4's NPV): values typed as arguments are counted, "If an argument is an array or
    reference, only numbers in that array or reference are counted" (text, logical values and
    empty cells left out, as periods too); an error among them is the answer, the rate read
    first (formulas_test.xlsx FINANCIAL row 33: NPV(0,{0,4,5,,"ciao"}) is 9, NPV(4,{4,5,,"ciao",
    TRUE}) 1, `ciao` as the rate #VALUE! before the range's #N/A; a range of rates one NPV each,
    as `formulas`' lifted itself: AH33:AW33). The bridged `formulas` NPV counted a text "10" in a
    range as 10 and answered #VALUE! for a TRUE there, silently or not (found by
    bench/libreoffice_opinion.py's family `errors`). Typed text and logical values reach here as numbers (calc/formula/
    arguments.py `typed_literals`): a text or a logical value here is a cell's, left out."""

    def NPV(rate: EngineValue, *values: EngineValue) -> Answer:  # noqa: N802
        if isinstance(rate, list):
            return [[one(r, values) for r in row] for row in rate]
        return one(rate, values)

    def one(rate: EngineScalar, values: tuple[EngineValue, ...]) -> EngineScalar:
        if is_error(rate):
            return rate
        try:
            r = number(rate)
        except ExcelError as exc:
            return error(exc.text)
        flows: list[float] = []
        for argument in values:
            for value in _cells(argument):
                if is_error(value):
                    return value
                if is_number(value):
                    flows.append(float(value))
        if r == -1 and flows:
            return error("#DIV/0!")
        total = 0.0
        for period, flow in enumerate(flows, start=1):  # in the book's order, one term at a time
            total += flow / (1 + r) ** period
        return total if math.isfinite(total) else error("#NUM!")
    return NPV
