"""LARGE and SMALL computed here on a range of plain values and a number k, as the bridged
`formulas` implementation computes them (measured right on formulas_test.xlsx, STATISTICAL):
calling it imported `formulas` and its statistical module, about 0.05 CPU s of a small book
(the DCF's one SMALL, the travel tracker's one LARGE).

The numbers of the range, text, logical values and empty cells skipped; LARGE's k rounded up
and SMALL's down (`formulas`' `values[floor(-k)]` and `values[floor(k - 1)]` over the sorted
numbers), #NUM! for k below 1 or past the count. Anything else (an error in the range, a scalar
or text or a logical as k, an array of k) goes on to the bridged implementation."""

from __future__ import annotations

import math
from collections.abc import Callable

from rates_xl.calc.engines.formualizer.values import error
from rates_xl.calc.xlfuncs.bridge import wrapped
from rates_xl.calc.xlfuncs.coercion import Callback, is_number
from rates_xl.calc.xlfuncs.types import Answer, EngineValue


def _ordinal(large: bool) -> Callable[[Callback], Callback]:
    def wrapper(bridged: Callback) -> Callback:
        def call(values: EngineValue = None, k: EngineValue = None) -> Answer:
            if not isinstance(values, list) or not is_number(k):
                return bridged(values, k)
            numbers = []
            for row in values:
                for value in row if isinstance(row, list) else [row]:
                    if is_number(value):
                        numbers.append(float(value))
                    elif not (value is None or isinstance(value, bool | str)):
                        return bridged(values, k)  # an error among them: `formulas`' answer
            if not 1 <= k <= len(numbers):
                return error("#NUM!")
            numbers.sort()
            return numbers[math.floor(-k)] if large else numbers[math.floor(k - 1)]
        return call
    return wrapper


FUNCTIONS = {"LARGE": wrapped("LARGE", _ordinal(large=True)), "SMALL": wrapped("SMALL", _ordinal(large=False))}
