"""TYPE and ERROR.TYPE of values formualizer cannot read, written as Excel's answer in the
engine's copy of the formula:

- TYPE of a function value is 128 (`TYPE(_xleta.SUM)`, formulas_test.xlsx INFORMATION!S24;
  `_xleta.SUM` is #NAME? to formualizer);
- ERROR.TYPE of a typed #GETTING_DATA is 8 (formulas_test.xlsx INFORMATION!T4; formualizer
  reads the unknown error as #VALUE!, 3)."""

from __future__ import annotations

import re

_TYPE_OF_ETA = re.compile(r"(?<![\w.])TYPE\(\s*_xleta\.[A-Za-z][\w.]*\s*\)", re.IGNORECASE)
_ERROR_TYPE_OF_GETTING_DATA = re.compile(r"(?<![\w.])ERROR\.TYPE\(\s*#GETTING_DATA\s*\)", re.IGNORECASE)
_STRING = re.compile(r'"(?:[^"]|"")*"')


def rewrite(formula: str) -> str:
    """`formula` with each TYPE of an eta-reduced function written as 128 and each ERROR.TYPE
    of #GETTING_DATA as 8 (never in a string)."""
    lower = formula.lower()
    if "_xleta" not in lower and "#getting_data" not in lower:
        return formula  # the cheap test first

    def answered(part: str) -> str:
        return _ERROR_TYPE_OF_GETTING_DATA.sub("8", _TYPE_OF_ETA.sub("128", part))

    pieces, last = [], 0
    for literal in _STRING.finditer(formula):
        pieces.append(answered(formula[last:literal.start()]) + literal[0])
        last = literal.end()
    pieces.append(answered(formula[last:]))
    return "".join(pieces)
