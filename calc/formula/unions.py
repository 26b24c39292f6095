"""A union of ranges given to a function, `SUM((B1:B3,D1:D3))`, `RANK(A1,(B1,B2,B3))`, as Excel
reads it. formualizer knows no union: it answered #VALUE!, silently where no cached value checks
the cell (`COUNT((B1,B3,D5))` 0, `SUM((B1,B3))` and `RANK(A1,(B1,B2,B3),1)` #VALUE!).

- A whole argument of a function that reads all its arguments alike (SUM, COUNT, MAX, MEDIAN,
  STDEV ...: Microsoft's pages, "number1, number2, ... arrays or references"): the areas become
  that many arguments, in order (`SUM((B1,B3))` is `SUM(B1,B3)`), as the pass
  `reference_operators` already does for a union met among intersections (formulas_test.xlsx
  LOOKUP).
- The reference of RANK, RANK.EQ and RANK.AVG: RATESXL.UNION's column of the areas' cells,
  empty cells kept empty (calc/xlfuncs/lookup/unions.py), which RANK reads as it reads a range
  (POI's Excel-made 61063.xlsx: `RANK(A1,(B1,B2,B3),1)` is 2, the engine's #VALUE! before).
- AREAS of a union is its count of areas, ROWS and COLUMNS of one #REF! (formulas_test.xlsx
  LOOKUP!R4:U4 and S115; `reference_operators` answers those of this sheet's ranges, before
  this pass, these those of other sheets' too); INDEX where it is the whole formula (the pass `index`, before this
  one: LOOKUP rows 52-54); an INDEX of a union inside a formula is listed.
- Anywhere else (LARGE, PERCENTILE ..., which no Excel-made book here shows, or a union that is
  part of an argument): not computed, listed.
"""

from __future__ import annotations

import re

from rates_xl.calc.formula.site import NotComputed, Site
from rates_xl.calc.formula.tree import Formula
from rates_xl.calc.xlfuncs.lookup.unions import NAME as UNION
from rates_xl.functions.sheet import read_area, split_reference

#: Functions reading every argument's cells alike: a union's areas are as many arguments.
ALIKE = frozenset("""
SUM SUMSQ PRODUCT COUNT COUNTA AVERAGE AVERAGEA MIN MINA MAX MAXA MEDIAN MODE MODE.SNGL
STDEV STDEV.S STDEV.P STDEVP STDEVA STDEVPA VAR VAR.S VAR.P VARP VARA VARPA
AVEDEV DEVSQ GEOMEAN HARMEAN KURT SKEW
""".split())
#: Functions given a union at this argument (0-based): RATESXL.UNION's column of its cells.
AS_COLUMN = {"RANK": 1, "RANK.EQ": 1, "RANK.AVG": 1}
#: Functions that take a union themselves: AREAS counts its areas, ROWS and COLUMNS answer
#: #REF! (formulas_test.xlsx LOOKUP!R4:U4 and S115; `reference_operators` answers those of
#: this sheet's ranges, before this pass).
OWN = frozenset({"AREAS", "ROWS", "COLUMNS"})

# A parenthesis that opens no call and holds a comma before any other parenthesis: the cheap
# test (a union whose first part is a call, `(INDEX(...),B1)`, is not looked for).
_MAY_UNITE = re.compile(r"(?:^|[^\w.])\([^()\"]*,")


def may_unite(text: str) -> bool:
    return _MAY_UNITE.search(text) is not None


def _is_area(text: str) -> bool:
    return read_area(split_reference(text)[1]) is not None


def unions(formula: Formula, _site: Site) -> str:
    """A union given to a function, as Excel reads it (module docstring; POI's Excel-made
    61063.xlsx, tests/calc/test_unions.py)."""
    edits = formula.edits()
    for group in formula.groups:
        if group.kind != "paren" or len(group.arguments) < 2:
            continue
        if (before := formula.previous(group.open)) is not None and before.closes:
            continue  # a LAMBDA's arguments, `LAMBDA(x,y,x+y)(1,2)` (formulas_test.xlsx LOGICAL!C12)
        parent = group.parent
        name = parent.name if parent is not None and parent.kind == "call" else ""
        written = formula.span_text((group.open, group.close + 1)).strip()
        parts = [formula.solid(span) for span in group.arguments]
        whole = parent is not None and parent.kind == "call" and group.close >= 0 \
            and formula.trimmed(parent.arguments[group.position]) == (group.open, group.close + 1)
        if not whole or not all(len(part) == 1 and part[0].is_range for part in parts):
            raise NotComputed(f"a union of ranges, {written}, where calc computes none "
                              f"({'part of an argument' if parent is not None else 'outside a function'})")
        if name in OWN:
            count = len(parts) if all(_is_area(part[0].text) for part in parts) else None
            if count is not None and parent is not None:
                edits.replace(parent.open, parent.close + 1, str(count) if name == "AREAS" else "#REF!")
            elif name != "AREAS":
                raise NotComputed(f"{name} of a union of ranges, {written}, of which a part is a name")
        elif name in ALIKE:
            edits.replace(group.open, group.open + 1, "")
            edits.replace(group.close, group.close + 1, "")
        elif AS_COLUMN.get(name) == group.position:
            edits.replace(group.open, group.open + 1, f"{UNION}(")
        else:
            raise NotComputed(f"a union of ranges, {written}, given to {name or 'a function'}: "
                              "calc computes a union only in SUM, COUNT, MAX ... and RANK's reference")
    return edits.text()
