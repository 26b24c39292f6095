"""GCD and LCM, their arguments read as Excel reads them.

The bridged `formulas` implementations refused an empty cell, text and an omitted argument
alike (#VALUE!), so `GCD(A3,B3,C3)` with C3 empty was #VALUE! where Excel answers 1. Excel's
answers, cached in IronCalc's Excel-made GCD_LCM.xlsx and LCM_GCD.xlsx (Sheet1 and LCM_GCD,
the same rows) and formulas_test.xlsx (MATH & TRIG, rows 34 and 37):

- a cell given alone that is empty is skipped (`LCM(10,3,empty)` is 30, D3); with nothing else
  given the answer is #VALUE! (D13, and `GCD(H34)` in formulas_test.xlsx); an empty cell in a
  range is 0 (`LCM(G35:H35)` with G35 empty and H35 5 is 0, I35; an empty range's GCD and LCM
  are 0, I13 and J13);
- text, in a cell or a range or an array, is read as a number where Excel reads it
  (math_trig/numeric_text.py: "8" is 8, "2024-01-10" 45301: D24, I31, `LCM({4,"8",12})` 24 in
  K24), else #VALUE! ("" and "eight": D17, D27); TRUE and FALSE are #VALUE! (D44, K44);
- an omitted argument is #N/A (`GCD(,B34,C34)`, E34);
- the first error given wins, then #VALUE! for what is no number, then #NUM! for a number below
  0 or from 2^53 on (Microsoft's GCD and LCM pages), each over all the arguments:
  `GCD(-0.4,TRUE)` is #VALUE!, `GCD(#NUM!,...,#VALUE!)` #NUM! (formulas_test.xlsx Y34, AU34;
  `formulas` read them in this order, and is kept in it);
- each number is truncated (`LCM(7.9,4.9)` is 28, D6), and an LCM from 2^53 on is #NUM!
  (Microsoft's LCM page: "If LCM(a,b) >=2^53, LCM returns the #NUM! error value.").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from datetime import date, time, timedelta

from rates_xl.calc.engines.formualizer.values import error, is_error
from rates_xl.calc.xlfuncs.coercion import Callback, Facts, is_number
from rates_xl.calc.xlfuncs.math_trig import numeric_text
from rates_xl.calc.xlfuncs.omitted import OMITTED, reads_omitted
from rates_xl.calc.xlfuncs.types import Answer, EngineValue
from rates_xl.functions.values import to_serial

#: Microsoft's GCD and LCM pages: an argument, or LCM's answer, from 2^53 on is #NUM!.
LIMIT = 2**53


def _elements(args: tuple[EngineValue, ...]) -> Iterator[tuple[EngineValue, bool]]:
    """Each value given, and whether it came from a range or an array (an empty one is 0)."""
    for arg in args:
        if isinstance(arg, list):
            for row in arg:
                for value in row if isinstance(row, list) else [row]:
                    yield value, True
        else:
            yield arg, False


def numbers_given(args: tuple[EngineValue, ...], *, signed: bool = False) -> tuple[float, ...] | EngineValue:
    """The numbers GCD and LCM work on, or the error Excel answers (the module says in which
    order). MULTINOMIAL and SERIESSUM, of the same Analysis ToolPak, read their arguments
    alike (series.py); `signed`: any finite number, no #NUM! for one below 0 or past 2^53."""
    numbers: list[float] = []
    refused = False
    for value, in_range in _elements(args):
        if is_error(value):
            return value
        if isinstance(value, str) and value == OMITTED:
            return error("#N/A")
        if value is None:
            if in_range:
                numbers.append(0.0)
        elif isinstance(value, bool):
            refused = True
        elif is_number(value):
            numbers.append(float(value))
        elif isinstance(value, date | time | timedelta):  # a date-formatted number: its serial
            numbers.append(to_serial(value))
        elif isinstance(value, str) and (read := numeric_text.read(value)) is not None:
            numbers.append(read)
        else:
            refused = True
    if refused or not numbers:
        return error("#VALUE!")
    if not signed and any(not 0 <= number < LIMIT for number in numbers):
        return error("#NUM!")
    return tuple(numbers)


def _divisor(combine: Callable[[int, int], int], name: str) -> Callback:
    def call(*args: EngineValue) -> Answer:
        numbers = numbers_given(args)
        if not isinstance(numbers, tuple):
            return numbers
        answer = int(numbers[0])
        for number in numbers[1:]:
            answer = combine(answer, int(number))
            if answer >= LIMIT:  # (only LCM grows; in Python's integers, never wrapped)
                return error("#NUM!")
        return float(answer)

    call.__name__ = name
    return reads_omitted(call)  # an omitted argument is #N/A, not formualizer's 0


def _factory(combine: Callable[[int, int], int], name: str) -> Callable[[Facts], Callback]:
    def factory(_facts: Facts) -> Callback:
        return _divisor(combine, name)
    return factory


FUNCTIONS = {"GCD": _factory(math.gcd, "GCD"), "LCM": _factory(math.lcm, "LCM")}
