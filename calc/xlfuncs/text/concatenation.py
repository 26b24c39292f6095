"""Numbers joined into text (`&`, CONCATENATE) as Excel writes them: 15 significant digits
(`values.number_text`). formualizer writes the shortest exact decimal, 17 digits for a sum
with binary noise: `="Total "&(0.1+0.2)` gave "Total 0.30000000000000004" where Excel shows
"Total 0.3", and `=A1&" : "&B1` over =1/3 "0.3333333333333333" (Excel: 0.333333333333333).

The engine's operator cannot be replaced, so the formula is rewritten (the pass
`numbers_as_text`, calc/formula/text.py): each operand of `&`, and each argument of
CONCATENATE, goes through RATESXL.NUMTEXT, which turns a number into Excel's text and leaves
text, booleans' text and errors as the engine has them.
"""

from __future__ import annotations

from rates_xl.calc.xlfuncs.coercion import Callback, Facts, elementwise, number_text, text
from rates_xl.calc.xlfuncs.omitted import OMITTED, given, reads_omitted
from rates_xl.calc.xlfuncs.types import Answer, EngineValue

NAME = "RATESXL.NUMTEXT"
_COMPARISONS = frozenset({"=", "<>", "<", ">", "<=", ">="})
def numtext(_facts: Facts) -> Callback:
    """RATESXL.NUMTEXT(value): a number as Excel's text (each element of an array); text,
    a boolean's text, an empty cell's "" and errors as they come."""
    lifted = elementwise(text)

    def call(*args: EngineValue) -> Answer:
        # Most calls (6,250 of formulas_test's 6,676) hand over text, which `text` gives back as
        # it is, and a few a number: both answered here, without the lifting's and the omitted
        # marker's wrappers (0.8 -> 0.2 us a call). The marker is a text of its own (read as "").
        if len(args) == 1:
            value = args[0]
            if type(value) is str and value != OMITTED:
                return value
            if type(value) is float:
                return number_text(value)
        return lifted(*given(args)) if OMITTED in args else lifted(*args)

    call.__name__ = "NUMTEXT"
    return reads_omitted(call)
