"""Excel's `^` where formualizer's differs: `0^0` is #NUM! and `0^-1` #DIV/0! in Excel, as
POWER(0,0) and POWER(0,-1) are (formulas_test.xlsx's POWER cells over C51; a question answered
on superuser.com, "Is there a way to get Excel to work with a zero in the exponent", 2010:
Excel's `=D47^0` is #NUM! where D47 holds 0); formualizer's `^` answers 1 for the first,
silently, and #NUM! for the second.

So `L^R` is written `POWER(L,R)` in the engine's copy: POWER is ours (calc/routing.py),
Excel's there (tests/calc/test_powers.py). Not where no such case can arise, which keeps the
engine's own `^` for most of a model's powers (ours is a Python call, about 25 us each):
an exponent that is a positive number as typed (`x^2`, `A1^0.5`: 0 to it is 0 in both), or a
base that is a number other than 0 as typed (`10^A1`, `2^-n`).

The operands are Excel's: `^` binds tighter than * and / but looser than a prefix sign and
`%` (`=-2^2` is 4, `=2^50%` 1.41); `a^b^c` is `(a^b)^c`. An operand joined to a reference
operator (`A1:A3 B2:B4^2`) is left to the engine as written.
"""

from __future__ import annotations

from rates_xl.calc.formula.site import Site
from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.tokens import INFIX, OPERAND, POSTFIX, PREFIX, Token

#: Infix operators that build a reference (range, intersection, union): tighter than `^`.
_REFERENCE = frozenset({":", " ", ","})


def may_raise(formula: Formula, _site: object = None) -> bool:
    return "^" in formula.text


def excel_powers(formula: Formula, _site: Site | None = None) -> str:
    """Excel's 0^0 (#NUM!) and 0 to a negative power (#DIV/0!), as its POWER answers them
    (formulas_test.xlsx MATH & TRIG!T51:U51): `L^R` written `POWER(L,R)` where L can be 0 and
    R 0 or below (the module's docstring), one at a time from the left, so `a^b^c` is
    `POWER(POWER(a,b),c)`. tests/calc/test_powers.py."""
    text = formula.text
    for _ in range(text.count("^")):
        current = Formula(text)
        changed = _first(current)
        if changed is None:
            break
        text = changed
    return text


def _first(formula: Formula) -> str | None:
    """The formula with its first `^` that needs it written as POWER; None if none does."""
    tokens = formula.tokens
    opening = _groups(formula)
    closing = {close: open_ for open_, close in opening.items()}
    for index, token in enumerate(tokens):
        if token.kind != INFIX or token.text != "^":
            continue
        left = _left(tokens, index, closing)
        right = _right(tokens, index, opening)
        if left is None or right is None:
            continue
        if _positive_number(formula, right) or _nonzero_number(formula, left):
            continue
        edits = formula.edits()
        lhs, rhs = formula.span_text(left), formula.span_text(right)
        edits.replace(left[0], right[1], f"POWER({lhs},{rhs})")
        return edits.text()
    return None


def signed_bases(text: str) -> str:
    """`L^R` whose L begins with a sign written `(L)^R`, for the `formulas` engine, whose parser
    reads a sign after an operator as looser than `^`: its `=1--A1^2` over 2 was 5, Excel's
    (and formualizer's) -3, `1-((-2)^2)`; `=1+-A1^2` -3 where Excel's is 5, silently."""
    formula = Formula(text)
    tokens = formula.tokens
    closing = {close: open_ for open_, close in _groups(formula).items()}
    edits = formula.edits()
    for index, token in enumerate(tokens):
        if token.kind == INFIX and token.text == "^":
            left = _left(tokens, index, closing)
            if left is not None and tokens[left[0]].kind == PREFIX:
                edits.before(left[0], "(")
                edits.after(left[1] - 1, ")")
    return edits.text()


def _groups(formula: Formula) -> dict[int, int]:
    """Each closed call's, parenthesis' or array's opening token -> its closing one."""
    return {group.open: group.close for group in formula.groups if group.close >= 0}


def _left(tokens: tuple[Token, ...], at: int, closing: dict[int, int]) -> tuple[int, int] | None:
    """The span of `^`'s left operand: prefix signs, a primary (an operand, a call, a
    parenthesis, an array), its postfix operators; None where it is not read so."""
    end = _skip_space_back(tokens, at - 1) + 1
    k = end - 1
    while k >= 0 and tokens[k].kind == POSTFIX:
        k = _skip_space_back(tokens, k - 1)
    if k < 0:
        return None
    if tokens[k].closes:
        if k not in closing:
            return None
        start = closing[k]
    elif tokens[k].kind == OPERAND:
        start = k
    else:
        return None
    before = _skip_space_back(tokens, start - 1)
    while before >= 0 and tokens[before].kind == PREFIX:
        start, before = before, _skip_space_back(tokens, before - 1)
    if before >= 0 and tokens[before].kind == INFIX and tokens[before].text in _REFERENCE - {","}:
        return None
    return start, end


def _right(tokens: tuple[Token, ...], at: int, opening: dict[int, int]) -> tuple[int, int] | None:
    k = _skip_space(tokens, at + 1)
    start = k
    while k < len(tokens) and tokens[k].kind == PREFIX:
        k = _skip_space(tokens, k + 1)
    if k >= len(tokens):
        return None
    if tokens[k].opens:
        if k not in opening:
            return None
        k = opening[k]
    elif tokens[k].kind != OPERAND:
        return None
    end = k + 1
    after = _skip_space(tokens, end)
    while after < len(tokens) and tokens[after].kind == POSTFIX:
        end, after = after + 1, _skip_space(tokens, after + 1)
    if after < len(tokens) and tokens[after].kind == INFIX and tokens[after].text in _REFERENCE - {","}:
        return None
    return start, end


def _skip_space_back(tokens: tuple[Token, ...], k: int) -> int:
    while k >= 0 and tokens[k].is_space:
        k -= 1
    return k


def _skip_space(tokens: tuple[Token, ...], k: int) -> int:
    while k < len(tokens) and tokens[k].is_space:
        k += 1
    return k


def _positive_number(formula: Formula, span: tuple[int, int]) -> bool:
    number = formula.number(span)
    return number is not None and number > 0


def _nonzero_number(formula: Formula, span: tuple[int, int]) -> bool:
    number = formula.number(span)
    return number is not None and number != 0
