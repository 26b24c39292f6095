"""QUOTIENT as Excel computes it: an Analysis ToolPak function, it refuses a logical value
(#VALUE!; formualizer read TRUE as 1: IronCalc's Excel-made MOD_QUOTIENT.xlsx DATEVALUE!D39, D40,
MIT or Apache-2.0, not committed); else the quotient truncated, #DIV/0! for a denominator of 0
(an empty cell), an error in either argument first (D37, D38), numeric text read ("16" and "7":
2, D33).
"""

from __future__ import annotations

import math

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Facts, elementwise, toolpak_number


def quotient(_facts: Facts) -> Callback:
    @elementwise
    def QUOTIENT(numerator: EngineValue, denominator: EngineValue) -> float:  # noqa: N802
        n, d = toolpak_number(numerator), toolpak_number(denominator)
        if d == 0:
            raise ExcelError("#DIV/0!")
        try:
            return float(math.trunc(n / d))
        except (OverflowError, ValueError):
            raise ExcelError("#NUM!") from None
    return QUOTIENT


FUNCTIONS = {"QUOTIENT": quotient}
