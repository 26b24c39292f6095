"""NOMINAL and EFFECT, the conversions between an annual rate compounded npery times a year and
the effective annual rate, as Excel computes them: EFFECT = (1 + nominal/n)^n - 1 and
NOMINAL = n ((1 + effect)^(1/n) - 1), n the number of periods truncated; a rate of 0 or below,
or fewer than one period, is #NUM!; a logical value is #VALUE!, as in the Analysis ToolPak's
other functions (IronCalc's Excel-made FINANCIAL__NOMINAL_EFFECT.xlsx C20, C21, D20, D21:
NOMINAL(10, TRUE), EFFECT(FALSE, 2.9); formualizer read TRUE as 1 and answered 10 and #NUM!).
Every other cell of that book is formualizer's answer and this one's, to the bit.
"""

from __future__ import annotations

import math

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Facts, elementwise, toolpak_number
from rates_xl.calc.xlfuncs.financial.irr import powi


def _read(rate: EngineValue, periods: EngineValue) -> tuple[float, int]:
    r, n = toolpak_number(rate), math.trunc(toolpak_number(periods))
    if r <= 0 or n < 1:
        raise ExcelError("#NUM!")
    return r, n


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise ExcelError("#NUM!")
    return value


def effect(_facts: Facts) -> Callback:
    @elementwise
    def EFFECT(nominal_rate: EngineValue, npery: EngineValue) -> float:  # noqa: N802
        r, n = _read(nominal_rate, npery)
        try:
            # (repeated squaring: EFFECT(0.2, 12) is Excel's 0.21939108490523185 so, NOMINAL_EFFECT!D3,
            # 0.21939108490523163 by `**`; every EFFECT of the book to the bit)
            return _finite(powi(1 + r / n, n) - 1)
        except OverflowError:
            raise ExcelError("#NUM!") from None
    return EFFECT


def nominal(_facts: Facts) -> Callback:
    @elementwise
    def NOMINAL(effect_rate: EngineValue, npery: EngineValue) -> float:  # noqa: N802
        r, n = _read(effect_rate, npery)
        return _finite(((1 + r) ** (1 / n) - 1) * n)
    return NOMINAL


FUNCTIONS = {"EFFECT": effect, "NOMINAL": nominal}
