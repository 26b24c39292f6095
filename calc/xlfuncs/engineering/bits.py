"""BITAND, BITOR, BITXOR, BITLSHIFT and BITRSHIFT as Excel computes them on single values.

The bridged `formulas` implementations (1.3.4, functions/eng.py) refuse 2^48 - 1 itself (their
bound is `r < MASK`, where Excel takes every whole number from 0 to 2^48 - 1), and a left shift
past 48 bits keeps the low 48 (`& MASK`), where Excel answers #NUM!: BITLSHIFT(12, 45) was
140737488355328. IronCalc's Excel-made ENGINEERING__BITs.xlsx (ironcalc/IronCalc
xlsx/tests/calc_tests, MIT or Apache-2.0, not committed) shows Excel's rules, which
tests/calc/test_bits.py holds at its cells:

- each number read as Excel reads one (TRUE 1, "123" 123, an empty cell 0, an error first) and
  whole from 0 to 2^48 - 1, else #NUM! (12.5, -34, 2^48: rows 6 to 11);
- a shift truncated (34.67 is 34), at most 53 either way (54: #NUM!), a negative one the other
  way (BITLSHIFT(12, -2) is 3), and a result past 2^48 - 1 #NUM! (J47).

An array or a range given goes on to the bridged implementation, which lifts over it as
formulas_test.xlsx's Excel did (calc/xlfuncs/scalars.py)."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable

from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, elementwise, number_or_date
from rates_xl.calc.xlfuncs.omitted import OMITTED, given
from rates_xl.calc.xlfuncs.types import Answer, EngineValue

LIMIT = 1 << 48  # the numbers are whole, from 0 to LIMIT - 1
LONGEST_SHIFT = 53


def _whole(value: EngineValue) -> int:
    x = number_or_date(value)
    if not (math.isfinite(x) and x.is_integer() and 0 <= x < LIMIT):
        raise ExcelError("#NUM!")
    return int(x)


def _shifted(value: EngineValue, shift: EngineValue, left: bool) -> float:
    n, by = _whole(value), number_or_date(shift)
    if not math.isfinite(by) or abs(math.trunc(by)) > LONGEST_SHIFT:
        raise ExcelError("#NUM!")
    s = math.trunc(by) if left else -math.trunc(by)
    answer = n << s if s >= 0 else n >> -s
    if answer >= LIMIT:
        raise ExcelError("#NUM!")
    return float(answer)


def _combined(combine: Callable[[int, int], int]) -> Callable[[EngineValue, EngineValue], float]:
    def call(a: EngineValue, b: EngineValue) -> float:
        return float(combine(_whole(a), _whole(b)))
    return call


IMPLEMENTATIONS: dict[str, Callable[[EngineValue, EngineValue], float]] = {
    "BITAND": _combined(operator.and_),
    "BITOR": _combined(operator.or_),
    "BITXOR": _combined(operator.xor),
    "BITLSHIFT": lambda value, shift: _shifted(value, shift, left=True),
    "BITRSHIFT": lambda value, shift: _shifted(value, shift, left=False),
}


def excel_bits(name: str, bridged: Callback) -> Callback:
    """`name` computed here on single values (an omitted one is 0), `bridged` given an array."""
    scalar = elementwise(IMPLEMENTATIONS[name])

    def call(*args: EngineValue) -> Answer:
        if len(args) != 2 or any(isinstance(a, list) for a in args):
            return bridged(*args)
        return scalar(*given(args)) if OMITTED in args else scalar(*args)  # (None: 0, as an empty cell)

    call.__name__ = name
    return call
