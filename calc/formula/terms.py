"""Excel's last step on a + or -: the terms a formula adds, for the rounding of a result
within a few units of its operands' 15th significant digit to 0 (calc/engines/formualizer.py
evaluates each term to know their size)."""

from __future__ import annotations

from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.tokens import INFIX

#: Operators of lower precedence than + and - (and the reference operators): one of them last
#: means the formula's last operation is not a sum.
_LOWER = frozenset({"&", "=", "<", ">", "<=", ">=", "<>", ":", " ", ","})


def additive_terms(formula: Formula) -> list[str] | None:
    """The terms of a formula whose last operation is + or - (`=0.5-0.4-0.1`: '0.5', '0.4',
    '0.1'); None for any other (`=1*(0.5-0.4-0.1)`: a product; `=A1-B1>0`: a comparison).
    Excel sets such a result to 0 when it is within a few units of the 15th significant digit
    of its operands (what is left of subtracting near-equal numbers): Microsoft's KB 78113
    example, `=0.5-0.4-0.1` shows 0 where the engine left -2.8E-17 (tests/calc/test_recalc.py)."""
    if formula.error:
        return None
    depth, cuts = 0, []
    for index, token in enumerate(formula.tokens):
        if token.opens:
            depth += 1
        elif token.closes:
            depth -= 1
        elif depth == 0 and token.kind == INFIX:
            if token.text in ("+", "-"):
                cuts.append(index)
            elif token.text in _LOWER:
                return None  # a lower precedence operation comes last (or a reference operator)
    if not cuts:
        return None
    bounds = [-1, *cuts, len(formula.tokens)]
    terms = [formula.span_text(formula.trimmed((a + 1, b))) for a, b in zip(bounds, bounds[1:], strict=False)]
    return [t for t in terms if t]
