"""Excel's comparison operators (=, <>, <, >, <=, >=) read both operands rounded to 15
significant digits, for the comparison only: `=0.1+0.2=0.3` is TRUE in Excel (IEEE: FALSE, the
sum is 0.30000000000000004), `=0.1=(1.2-1.1)` FALSE (1.2-1.1 is 0.0999999999999999 to 15
digits). Described by Excel's experts ("Excel rounds the left and right operands of comparison
operators to 15 significant digits, just for the comparison", MrExcel thread 1149146).
LibreOffice's ScInterpreter::CompareFunc (rtl::math::approxEqual) agrees on the cases of
tests/calc/test_comparisons.py but three it names (`LIBREOFFICE_OWN`): its equality is looser
than 15 digits (`=0.1=(1.2-1.1)` TRUE) and it orders booleans as numbers.

formualizer and `formulas` compare the binary values, and neither lets the operator be
replaced, so the pass `excel_comparisons` (calc/formula/comparisons.py) writes each operand
that may be a number with binary noise through RATESXL.CMPROUND: a number rounded to 15
significant digits, everything else (text, a boolean, an error, an empty cell: None, which the
engine reads as empty) as it came, an array element by element. The engine's own operator then
compares: text still case-insensitively, types still in Excel's order.

Where both operands may hold noise and one of them is one cell or a number, one call does:
`a<b` is written `a<RATESXL.CMPSNAP(b,a)`, `b` as it is unless both are numbers that 15 digits
make equal, then `a` itself (so the engine's operator sees two equal operands, as Excel does).
Rounding is monotone (it never reverses two numbers' order), so two numbers whose roundings
differ are ordered alike unrounded: the answer is CMPROUND's on both sides for every operator,
types and errors included (anything but two numbers passes `b` on as it came), at one call
of the engine's Python callback in place of two (each costs about 10 microseconds, most of it
the engine's conversions of the values both ways).
"""

from __future__ import annotations

import math
from typing import cast

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import Callback, Facts
from rates_xl.calc.xlfuncs.omitted import reads_omitted
from rates_xl.calc.xlfuncs.types import Answer

NAME = "RATESXL.CMPROUND"
SNAP = "RATESXL.CMPSNAP"


def rounded(value: object) -> object:
    """A number to 15 significant digits (a float read from its 15-digit text); any other value,
    and each element of an array (2-D list), as it is. Written for speed: it is called once per
    operand and evaluation."""
    if type(value) is float:
        if value == 0.0 or not math.isfinite(value):
            return value
        return float(f"{value:.15g}")
    if type(value) is list:
        return [[rounded(element) for element in row] if type(row) is list else rounded(row) for row in value]
    if type(value) is int and not -10 ** 15 < value < 10 ** 15:
        return float(f"{value:.15g}")
    return value


def cmpround(_facts: Facts) -> Callback:
    """RATESXL.CMPROUND(value): `value` as Excel's comparison operators read it (`rounded`)."""

    def call(value: EngineValue = None) -> Answer:
        return cast(Answer, rounded(value))  # (the engine's value, its numbers rounded)

    call.__name__ = "CMPROUND"
    reads_omitted(call)  # always given one argument (the pass writes it): no unwrapping
    return call


def snapped(value: object, to: object) -> object:
    """`value` as its comparison with `to` reads it: `to` itself where both are numbers that 15
    significant digits make equal, else `value` as it is; an array element by element (against
    one `to`: the pass writes a one-cell reference or a number there)."""
    if type(value) is list:
        return [[snapped(element, to) for element in row] if type(row) is list else snapped(row, to)
                for row in value]
    if type(to) is list and len(to) == 1 and type(to[0]) is list and len(to[0]) == 1:
        to = to[0][0]  # a one-cell range given as one
    if type(value) in _NUMBERS and type(to) in _NUMBERS and value != to and rounded(value) == rounded(to):
        return to
    return value


_NUMBERS = (float, int)  # (`type(x) in`: a boolean is not one)


def cmpsnap(_facts: Facts) -> Callback:
    """RATESXL.CMPSNAP(value, to): `value` as Excel's comparison with `to` reads it (`snapped`)."""

    def call(value: EngineValue = None, to: EngineValue = None) -> Answer:
        return cast(Answer, snapped(value, to))  # (the engine's value, or `to`)

    call.__name__ = "CMPSNAP"
    reads_omitted(call)  # always given two arguments (the pass writes them): no unwrapping
    return call
