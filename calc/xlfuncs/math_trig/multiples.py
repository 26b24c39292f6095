"""FLOOR, CEILING and their kin (.MATH, .PRECISE, ISO.CEILING) and MROUND: a number rounded to a
multiple of the significance as Excel computes it, on 15 significant digits.

The implementations underneath (the bridged `formulas` ones, formualizer's) divide in binary:
7.1 / 0.1 is 70.99999999999999, so FLOOR(7.1,0.1) was 7, FLOOR(0.3,0.1) 0.2 and
FLOOR.MATH(1.15,0.05) 1.1, where Excel answers 7.1, 0.3 and 1.15 (the first in IronCalc's
Excel-made FLOOR_CEILING.xlsx, FLOOR!C99; a price floored to its tick is this call); and
CEILING(7.1,0.1) was 7.1000000000000005. Excel reads the quotient on its 15 significant
digits: a number that is a multiple there is answered as itself, whatever the rounding
direction, and MROUND's half is read there too (MROUND(7.05,0.1) is 7.1: 70.49999999999999 is
70.5). Any other answer is the multiple's product as it falls in binary, as Excel's is
(formulas_test.xlsx: CEILING(5,0.234) is 5.148000000000001, CEILING.MATH(-5.5,-0.6)
-5.3999999999999995).

`exact` wraps a callback: where it answers a number for plain numbers, the answer is `multiple`'s
(the bridged CEILING.MATH and FLOOR.MATH also lost a negative number's sign when the significance
was omitted: CEILING.MATH(-7.15) was 8, Excel -7). Before it, the arguments are read as
IronCalc's Excel-made FLOOR_CEILING.xlsx and MROUND_TRUNC_INT.xlsx show Excel reading them (`_read`: text as a
number, the first error or unreadable text; `_past_largest`: #NUM!); every other check and
coercion stays the underlying implementation's.
"""

from __future__ import annotations

import math

from rates_xl.calc.engines.formualizer.values import error, is_error
from rates_xl.calc.xlfuncs.bridge import wrapped as bridged_with
from rates_xl.calc.xlfuncs.coercion import Callback, is_number
from rates_xl.calc.xlfuncs.math_trig import numeric_text
from rates_xl.calc.xlfuncs.omitted import OMITTED
from rates_xl.calc.xlfuncs.types import Answer, EngineValue

#: The functions, and whether their significance may be omitted (then 1).
NAMES = {"FLOOR": False, "CEILING": False, "MROUND": False, "FLOOR.MATH": True, "CEILING.MATH": True,
         "FLOOR.PRECISE": True, "CEILING.PRECISE": True, "ISO.CEILING": True}


def _fifteen(x: float) -> float:
    return float(f"{x:.15g}")


def multiple(name: str, number: float, significance: float, mode: float = 0.0) -> float | None:
    """`number` rounded to a multiple of `significance` as `name` rounds it (Microsoft's pages):
    FLOOR and CEILING down or up in the significance's units (FLOOR(-2.5,2) is -4, CEILING(-2.5,2)
    -2); the .MATH, .PRECISE and ISO ones in its size, .MATH's mode turning a negative number's
    direction; MROUND to the nearest, a half away from zero. The arguments were checked by the
    underlying implementation (its errors stand). None where the quotient is past the largest
    number (#NUM!, `_past_largest`)."""
    if significance == 0:
        return 0.0
    if name in ("FLOOR", "CEILING", "MROUND"):
        unit = significance
    else:
        unit = abs(significance)
    quotient = _fifteen(number / unit)
    if not math.isfinite(quotient):
        return None
    if quotient == math.floor(quotient):  # a multiple on 15 digits: the number itself
        return number + 0.0
    if name == "MROUND":
        whole = math.copysign(math.floor(abs(quotient) + 0.5), quotient)
    elif name in ("FLOOR.MATH", "CEILING.MATH") and number < 0 and mode:
        # toward zero (FLOOR.MATH) or away from it (CEILING.MATH), by the number's size
        whole = -(math.floor(-quotient) if name == "FLOOR.MATH" else math.ceil(-quotient))
    elif name.startswith("FLOOR"):
        whole = math.floor(quotient)
    else:
        whole = math.ceil(quotient)
    return whole * unit + 0.0  # (the product as it falls: CEILING(5,0.234) is 5.148000000000001 in Excel)


#: Analysis ToolPak's functions (MROUND, as GCD and LCM: math_trig/divisors.py) answer #N/A for
#: an omitted argument (MROUND(,5) and MROUND(10, ) in IronCalc's Excel-made
#: MROUND_TRUNC_INT.xlsx, MROUND!C34 and C36); formualizer hands 0 for it, and only one of our
#: functions is told (calc/formula/arguments.py `ours_omitted`): MROUND is registered as ours,
#: the bridged one underneath.
OMITTED_IS_NA = frozenset({"MROUND"})
FUNCTIONS = {"MROUND": bridged_with("MROUND", lambda bridged: bridged)}


def _read(args: tuple[EngineValue, ...], omitted_is_na: bool = False) -> tuple[EngineValue, ...] | EngineValue:
    """The arguments with their text read as numbers (math_trig/numeric_text.py), or the error
    Excel answers for them, read left to right: an error given, or text that reads as no number
    (#VALUE!: CEILING("eight",1/0) is #VALUE!, not #DIV/0!, FLOOR_CEILING.xlsx CEILING!Y22). The
    implementations underneath answered the later error, and #VALUE! for a date written as text
    (CEILING.PRECISE(10,"2024-01-10") is 45301 in Excel: CEILING!AD50; MROUND("2024-01-10",7)
    45304: MROUND_TRUNC_INT.xlsx MROUND!C31)."""
    read: list[EngineValue] = []
    for arg in args:
        if is_error(arg):
            return arg
        if omitted_is_na and arg == OMITTED:
            return error("#N/A")
        if isinstance(arg, str) and arg != OMITTED:
            number = numeric_text.read(arg)
            if number is None:
                return error("#VALUE!")
            arg = number
        read.append(arg)
    return tuple(read)


def _past_largest(args: tuple[EngineValue, ...]) -> bool:
    """The number over the significance past the largest number: #NUM! in Excel, whatever the
    signs (CEILING(709,1E-307), CEILING(-1000,1E-307), CEILING.MATH(709,-1E-307): FLOOR_CEILING.xlsx
    CEILING!N40, N44, M134), where the implementations underneath answered #VALUE!."""
    if len(args) < 2 or not is_number(args[0]) or not is_number(args[1]) or args[1] == 0:
        return False
    return not math.isfinite(args[0] / args[1])


def exact(name: str, call: Callback) -> Callback:
    optional = NAMES[name]
    omitted_is_na = name in OMITTED_IS_NA

    def wrapped(*args: EngineValue) -> Answer:
        read = _read(args, omitted_is_na)
        if not isinstance(read, tuple):
            return read
        args = read
        if _past_largest(args):
            return error("#NUM!")
        answer = call(*args)
        if not is_number(answer) or not args or not is_number(args[0]):
            return answer
        if len(args) > 1 and args[1] is None:
            significance = 0.0  # an empty cell: 0 (CEILING.MATH(x, empty) is 0 in Excel)
        elif len(args) > 1 and args[1] != OMITTED:
            if not is_number(args[1]):
                return answer
            significance = float(args[1])
        elif optional and len(args) == 1:
            significance = 1.0  # not given: 1
        else:
            return answer  # (written but left empty, `x,`: the underlying implementation's)
        mode = args[2] if len(args) > 2 and (is_number(args[2]) or isinstance(args[2], bool)) else 0.0
        found = multiple(name, float(args[0]), significance, float(mode))
        return error("#NUM!") if found is None else found

    wrapped.__name__ = getattr(call, "__name__", name)
    return wrapped
