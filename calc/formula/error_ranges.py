"""A range given as an error to a function that reads a range: the error is the answer, as
Excel passes an argument's error on.

`COUNTIF(INDIRECT("'"&A2&"'!B:B"),"x")` with A2 naming a sheet the book does not have is #REF!
in Excel (Microsoft's INDIRECT page: "If ref_text is not a valid cell reference, INDIRECT
returns the #REF! error value"), as is a range OFFSET moves past the sheet's edge or the
`#REF!` a deleted sheet leaves in a formula. Ours answered otherwise, silently:
- COUNTIF, SUMIF and their family (calc/xlfuncs/statistical/conditional.py) receive values, and
  an error given as the range looks as a one-cell range holding that error does, which they
  must read as a cell (`COUNTIF(A1,"#N/A")` counts it): 0, or a sum;
- formualizer's MATCH, XMATCH, LOOKUP and XLOOKUP take an error given as the array for an
  array matching nothing: #N/A, which `IFNA(MATCH(...),0)` turns into a number.
"""

from __future__ import annotations

from rates_xl.calc.formula.criteria_ranges import SAME_SIZE
from rates_xl.calc.formula.site import Site
from rates_xl.calc.formula.tree import Formula, Span
from rates_xl.functions.tokens import ERROR, OPERAND, PAREN

#: The functions -> the positions of their ranges (the IFS functions: `range_positions`).
_RANGES = {"COUNTIF": (0,), "SUMIF": (0, 2), "AVERAGEIF": (0, 2), "MATCH": (1,), "XMATCH": (1,),
           "LOOKUP": (1, 2), "XLOOKUP": (1, 2)}
#: The calls whose reference may be an error, which ISREF tells from one (formualizer's ISREF
#: of a call it does not know as answering a reference, XLOOKUP's, is FALSE: left alone).
_MAY_FAIL = frozenset({"INDIRECT", "OFFSET"})
NEEDS = ("COUNTIF", "SUMIF", "AVERAGEIF", "MAXIFS", "MINIFS", "MATCH(", "LOOKUP(")


def may_fail(text: str) -> bool:
    """The pass' trigger: a call that may answer an error, or an error written."""
    upper = text.upper()
    return "INDIRECT(" in upper or "OFFSET(" in upper or "#" in text


def error_ranges(formula: Formula, _site: Site) -> str:
    """A range written as INDIRECT or OFFSET (in parentheses too: a dynamic name written out) or
    as an error, given to COUNTIF, SUMIF, their family, MATCH, XMATCH, LOOKUP or XLOOKUP, is
    tested first, `IF(ISREF(r),COUNTIF(r,...),INDEX(r,1,1))`: the call answers the error where
    there is no reference (the module's docstring; tests/calc/test_error_ranges.py)."""
    edits = formula.edits()
    done: list[tuple[int, int]] = []
    for group in formula.groups:
        if group.kind != "call" or group.close < 0 or any(a < group.open < b for a, b in done):
            continue
        failing = [formula.span_text(group.arguments[p]) for p in range_positions(group.name, len(group.arguments))
                   if _may_fail(formula, group.arguments[p])]
        if not failing:
            continue
        written = formula.span_text((group.open, group.close + 1))
        for reference in reversed(failing):
            written = f"IF(ISREF({reference}),{written},INDEX({reference},1,1))"
        edits.replace(group.open, group.close + 1, written)
        done.append((group.open, group.close))
    return edits.text()


def range_positions(name: str, given: int) -> list[int]:
    """Where a call of `name` given `given` arguments has its ranges."""
    if name in SAME_SIZE:  # the sum range, then every second argument from the first criteria range
        first = SAME_SIZE[name]
        return ([0] if first else []) + list(range(first, given, 2))
    return [p for p in _RANGES.get(name, ()) if p < given]


def _may_fail(formula: Formula, span: Span) -> bool:
    """Whether a range argument is an INDIRECT or OFFSET call (alone in parentheses too) or an
    error written in the formula."""
    first, last = formula.trimmed(span)
    tokens = formula.tokens
    while last - first >= 2 and tokens[first].kind == PAREN and tokens[first].opens:
        group = formula.group_at(first)
        if group is None or group.close != last - 1:
            break
        first, last = formula.trimmed((first + 1, last - 1))
    if last - first == 1:
        return tokens[first].kind == OPERAND and tokens[first].sub == ERROR
    if first >= last or not tokens[first].is_call:
        return False
    group = formula.group_at(first)
    return group is not None and group.close == last - 1 and group.name in _MAY_FAIL
