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

from rates_xl.calc.xlfuncs.coercion import Callback, Facts, elementwise, text

NAME = "RATESXL.NUMTEXT"
_COMPARISONS = frozenset({"=", "<>", "<", ">", "<=", ">="})
def numtext(_facts: Facts) -> Callback:
    """RATESXL.NUMTEXT(value): a number as Excel's text (each element of an array); text,
    a boolean's text, an empty cell's "" and errors as they come."""
    call = elementwise(text)
    call.__name__ = "NUMTEXT"
    return call
