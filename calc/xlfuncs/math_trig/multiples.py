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
was omitted: CEILING.MATH(-7.15) was 8, Excel -7); every error, check and coercion stays the
underlying implementation's.
"""

from __future__ import annotations

import math

from rates_xl.calc.engines.formualizer.values import error, is_error
from rates_xl.calc.xlfuncs.coercion import Callback, is_number
from rates_xl.calc.xlfuncs.omitted import OMITTED
from rates_xl.calc.xlfuncs.types import Answer, EngineValue

#: The functions, and whether their significance may be omitted (then 1).
NAMES = {"FLOOR": False, "CEILING": False, "MROUND": False, "FLOOR.MATH": True, "CEILING.MATH": True,
         "FLOOR.PRECISE": True, "CEILING.PRECISE": True, "ISO.CEILING": True}


def _fifteen(x: float) -> float:
    return float(f"{x:.15g}")


def multiple(name: str, number: float, significance: float, mode: float = 0.0) -> float:
    """`number` rounded to a multiple of `significance` as `name` rounds it (Microsoft's pages):
    FLOOR and CEILING down or up in the significance's units (FLOOR(-2.5,2) is -4, CEILING(-2.5,2)
    -2); the .MATH, .PRECISE and ISO ones in its size, .MATH's mode turning a negative number's
    direction; MROUND to the nearest, a half away from zero. The arguments were checked by the
    underlying implementation (its errors stand)."""
    if significance == 0:
        return 0.0
    if name in ("FLOOR", "CEILING", "MROUND"):
        unit = significance
    else:
        unit = abs(significance)
    quotient = _fifteen(number / unit)
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


#: formualizer's own, replaced by `formulas`' under `exact`: whose error Excel answers first is
#: checked here (`_first_problem`), as formualizer did and `formulas` does not.
NATIVE = frozenset({"FLOOR.PRECISE", "CEILING.PRECISE", "ISO.CEILING"})


def _first_problem(args: tuple[EngineValue, ...]) -> EngineValue | None:
    """The error Excel answers for these arguments, read left to right: an error given, or
    text that reads as no number (#VALUE!: ISO.CEILING("eight",1/0) is #VALUE!, not #DIV/0!)."""
    from rates_xl.calc.xlfuncs.bridge import bridged

    for arg in args:
        if is_error(arg):
            return arg
        if isinstance(arg, str) and not _reads_as_number(arg, bridged("VALUE")):
            return error("#VALUE!")
    return None


def _reads_as_number(text: str, value_of: Callback) -> bool:
    """Text Excel reads as a number there: a number, spaces around it allowed, or a date, a time
    or a percentage as VALUE reads them but written alone ("--8" and " 2024-01-10 " are #VALUE! in
    IronCalc's Excel-made FLOOR_CEILING.xlsx, though `formulas`' VALUE reads them)."""
    try:
        float(text.strip())
        return True
    except ValueError:
        pass
    return text == text.strip() and not text.startswith(("-", "+")) and is_number(value_of(text))


def exact(name: str, call: Callback) -> Callback:
    optional = NAMES[name]
    checked = name in NATIVE

    def wrapped(*args: EngineValue) -> Answer:
        if checked and (problem := _first_problem(args)) is not None:
            return problem
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
        return multiple(name, float(args[0]), significance, float(mode))

    wrapped.__name__ = getattr(call, "__name__", name)
    return wrapped
