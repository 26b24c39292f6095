"""PERCENTILE and QUARTILE (.INC, .EXC) read only the numbers of their array, as Excel's
statistical functions skip text, logical values and empty cells in a reference (formulas
answered #VALUE! for a column holding "12" or a blank); then the bridged `formulas`
implementation (calc/xlfuncs/bridge.py) answers."""

from __future__ import annotations

from rates_xl.calc.xlfuncs.bridge import wrapped
from rates_xl.calc.xlfuncs.coercion import Callback, is_number
from rates_xl.calc.xlfuncs.types import Answer, EngineScalar, EngineValue


def _numbers_only(bridged: Callback) -> Callback:
    def call(array: EngineValue, *rest: EngineValue) -> Answer:
        if isinstance(array, list):
            kept: list[list[EngineScalar]] = [[cell] for row in array for cell in (row if isinstance(row, list) else [row])
                    if is_number(cell) or isinstance(cell, dict)]  # numbers, and errors (passed on)
            if kept:
                array = kept
        return bridged(array, *rest)
    return call


NAMES = ("PERCENTILE", "PERCENTILE.INC", "PERCENTILE.EXC", "QUARTILE", "QUARTILE.INC", "QUARTILE.EXC")
FUNCTIONS = {name: wrapped(name, _numbers_only) for name in NAMES}
