"""LOG as Excel computes it: a base of 1 is #DIV/0! (the logarithm's denominator, ln 1, is 0),
where formualizer answered #NUM! (IronCalc's Excel-made MATH_AND_TRIGONOMETRY__LOG_LOG10_LN.xlsx
G3, G8, G13, G18: LOG(10, 1), LOG(10, TRUE), LOG(1, 1)). A number or a base of 0 or below is
#NUM!; logical values are 1 and 0, an empty cell 0. The value is ln(number) / ln(base), as
formualizer's (and Excel's: LOG(10, 1000) is 0.33333333333333337, G5, where log10 over log10 is
1/3). With the base omitted it is LOG10's, as Excel's (LOG(0.004) is -2.3979400086720375, LOG!B12,
the bits of LOG10 there); formualizer divided by ln 10 there too, and LOG(1000) was
2.9999999999999996, so INT(LOG(1000)) was 2.
"""

from __future__ import annotations

import math

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import (
    Callback,
    ExcelError,
    Facts,
    elementwise,
    number,
)
from rates_xl.calc.xlfuncs.omitted import OMITTED, reads_omitted


def log(_facts: Facts) -> Callback:
    def LOG(value: EngineValue, base: EngineValue = OMITTED) -> float:  # noqa: N802
        x = number(value)
        b = 10.0 if base == OMITTED else number(base)
        if x <= 0 or b <= 0:
            raise ExcelError("#NUM!")
        if b == 1:
            raise ExcelError("#DIV/0!")
        return math.log10(x) if base == OMITTED else math.log(x) / math.log(b)

    LOG.__name__ = "LOG"
    return reads_omitted(elementwise(LOG))


FUNCTIONS = {"LOG": log}
