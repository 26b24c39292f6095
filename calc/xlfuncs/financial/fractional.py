"""DOLLARDE and DOLLARFR, the conversions between a price in fractional notation (1.02 at a
fraction of 16 is 1 and 2/16) and a decimal one, as Excel computes them.

- DOLLARDE: the digits after the point are the numerator, over as many digits as the fraction
  has (10 ** ceil(log10(fraction))): DOLLARDE(15.58, 8) is 15 + 5.8/8 = 15.725. formualizer
  rounded the numerator to a whole number (15 + 6/8 = 15.75); LibreOffice (checked here) gives
  15.725, and its arithmetic is used: the fractional part over the fraction, times the power of
  ten, plus the whole part. Microsoft's examples (1.125 for DOLLARDE(1.02,16), 1.3125 for
  DOLLARDE(1.1,32)) are both.
- DOLLARFR: formualizer's own arithmetic, which agrees with LibreOffice (a test compares the
  bits with formualizer's native answers).
- Both: the fraction is truncated; below 0 it is #NUM!, from 0 to below 1 #DIV/0! (Microsoft's
  pages; formualizer answered #NUM! for both); a logical value is #VALUE!, as in the Analysis
  ToolPak's other functions (IronCalc's Excel-made TEXT__DOLLARs.xlsx C11, C12, D11, D12;
  formualizer read TRUE as 1).
"""

from __future__ import annotations

import math

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Facts, elementwise, toolpak_number


def _fraction(value: EngineValue) -> float:
    fraction = math.trunc(toolpak_number(value))
    if fraction < 0:
        raise ExcelError("#NUM!")
    if fraction < 1:
        raise ExcelError("#DIV/0!")
    return float(fraction)


def _power(fraction: float) -> float:
    """10 to the count of the fraction's digits (10 for 8, 100 for 16 or 32)."""
    return 10.0 ** math.ceil(math.log10(fraction))


def dollarde(_facts: Facts) -> Callback:
    @elementwise
    def DOLLARDE(fractional_dollar: EngineValue, fraction: EngineValue) -> float:  # noqa: N802
        dollar, over = toolpak_number(fractional_dollar), _fraction(fraction)
        whole = math.trunc(dollar)
        return (dollar - whole) / over * _power(over) + whole
    return DOLLARDE


def dollarfr(_facts: Facts) -> Callback:
    @elementwise
    def DOLLARFR(decimal_dollar: EngineValue, fraction: EngineValue) -> float:  # noqa: N802
        dollar, over = toolpak_number(decimal_dollar), _fraction(fraction)
        sign = -1.0 if dollar < 0 else 1.0
        size = abs(dollar)
        whole = math.trunc(size)
        return sign * (whole + (size - whole) * over / _power(over))
    return DOLLARFR
