"""TYPE of a function value: Excel answers 128 for an eta-reduced function given as a value
(`TYPE(_xleta.SUM)`, formulas_test.xlsx INFORMATION!S24), which formualizer cannot read
(`_xleta.SUM` is #NAME? to it). The engine's copy of the formula gets 128 in its place."""

from __future__ import annotations

import re

_TYPE_OF_ETA = re.compile(r"(?<![\w.])TYPE\(\s*_xleta\.[A-Za-z][\w.]*\s*\)", re.IGNORECASE)
_STRING = re.compile(r'"(?:[^"]|"")*"')


def rewrite(formula: str) -> str:
    """`formula` with each TYPE of an eta-reduced function written as 128 (never in a string)."""
    if "_xleta" not in formula.lower():
        return formula  # the cheap test first
    pieces, last = [], 0
    for literal in _STRING.finditer(formula):
        pieces.append(_TYPE_OF_ETA.sub("128", formula[last:literal.start()]) + literal[0])
        last = literal.end()
    pieces.append(_TYPE_OF_ETA.sub("128", formula[last:]))
    return "".join(pieces)
