"""ROMAN's form given as a logical value, as Excel reads it: TRUE is form 0 (classic), FALSE
form 4 (simplified), Microsoft's ROMAN page. The bridged `formulas` ROMAN read FALSE as 0:
ROMAN(499, FALSE) was "CDXCIX" where Excel has "ID" (IronCalc's Excel-made
MATH_AND_TRIGONOMETRY__ARABIC_ROMAN.xlsx, ROMAN!M6 to M15, MIT or Apache-2.0, not committed;
its 4,000 other ROMAN cells, every form from 0 to 4, are the bridged one's already)."""

from __future__ import annotations

from rates_xl.calc.xlfuncs.coercion import Callback
from rates_xl.calc.xlfuncs.types import Answer, EngineValue

#: A logical form as the number it stands for.
LOGICAL_FORMS = {True: 0.0, False: 4.0}


def logical_form(bridged: Callback) -> Callback:
    """`bridged` ROMAN given a logical form as its number (arrays as they are)."""
    def ROMAN(*args: EngineValue) -> Answer:  # noqa: N802
        if len(args) == 2 and isinstance(args[1], bool):
            return bridged(args[0], LOGICAL_FORMS[args[1]])
        return bridged(*args)

    return ROMAN
