"""The ranges of SUMIF and AVERAGEIF, and of the IFS functions, at the sizes Excel reads them.

- SUMIF and AVERAGEIF read their sum (average) range at the criteria range's size, from its
  top-left cell. Microsoft's SUMIF page: "The sum_range argument does not have to be the same
  size and shape as the range argument. The actual cells that are added are determined by using
  the upper leftmost cell in the sum_range argument as the beginning cell, and then including
  cells that correspond in size and shape to the range argument" (AVERAGEIF's page: the same of
  average_range). A function of the engine receives values, not references, so
  `SUMIF(T1:T5,">40",U1)` added U1 alone (0 where Excel adds U3:U5), silently where no cached
  value checks it: the sum range is written at that size (`U1:U5`). The corpus' Excel agrees:
  poi_FormulaEvalTestData_Copy.xlsx EverythingTests!E1324, `SUMIF(AA7:AA13,C10:D10, C7)`, is 1.1
  (listed as stale before).
- SUMIFS, AVERAGEIFS, MAXIFS, MINIFS and COUNTIFS given ranges of different sizes are #VALUE!
  (Microsoft's SUMIFS page: "Unlike the range and criteria arguments in the SUMIF function, in
  the SUMIFS function each criteria_range argument must contain the same number of rows and
  columns as the sum_range argument"; a mismatch is its #VALUE!). Ours read the smaller ranges padded with empty cells, as
  they must for whole columns the engine cuts to each sheet's used rows
  (calc/xlfuncs/statistical/conditional.py), and answered a number.

Only ranges written as A1 areas are read: the size of a name's or a computed range is not known
here, and such a call is left as it is.

Their ranges given an error answer it: calc/formula/error_ranges.py.
"""

from __future__ import annotations

from rates_xl.calc.formula.site import Site
from rates_xl.calc.formula.tree import Formula, Group
from rates_xl.functions.sheet import Area, read_area, resized_reference, split_reference

#: The functions whose third argument is read at the first's size.
RESIZED = frozenset({"SUMIF", "AVERAGEIF"})
#: The IFS functions: the position of the first criteria range (the ranges every other one on).
SAME_SIZE = {"SUMIFS": 1, "AVERAGEIFS": 1, "MAXIFS": 1, "MINIFS": 1, "COUNTIFS": 0}
NEEDS = ("SUMIF", "AVERAGEIF", "IFS(")



def _area(formula: Formula, group: Group, position: int) -> tuple[str, Area] | None:
    """The argument at `position`, written as one A1 range, and its area."""
    token = formula.single(group.arguments[position]) if position < len(group.arguments) else None
    if token is None or not token.is_range:
        return None
    area = read_area(split_reference(token.text)[1])
    return (token.text, area) if area is not None else None


def criteria_ranges(formula: Formula, _site: Site) -> str:
    """SUMIF's sum range at its range's size; the IFS functions' ranges of different sizes
    #VALUE! (the module's docstring: Microsoft's SUMIF, AVERAGEIF and SUMIFS pages;
    poi_FormulaEvalTestData_Copy.xlsx EverythingTests!E1324; tests/calc/test_criteria_ranges.py)."""
    edits = formula.edits()
    replaced: list[tuple[int, int]] = []  # (an IFS call answered #VALUE!: nothing inside it is read)
    for group in formula.groups:
        if group.kind != "call" or group.close < 0 or any(a <= group.open <= b for a, b in replaced):
            continue
        if group.name in RESIZED and len(group.arguments) == 3:
            criteria, summed = _area(formula, group, 0), _area(formula, group, 2)
            if criteria is None or summed is None or (criteria[1].rows, criteria[1].columns) == \
                    (summed[1].rows, summed[1].columns):
                continue
            resized = resized_reference(summed[0], criteria[1].rows, criteria[1].columns)
            if resized is not None:
                start, end = group.arguments[2]
                edits.replace(start, end, resized)
        elif group.name in SAME_SIZE:
            first = SAME_SIZE[group.name]
            positions = [0] if first else []
            positions += list(range(first, len(group.arguments), 2))
            areas = [_area(formula, group, p) for p in positions]
            if None in areas or len({(a[1].rows, a[1].columns) for a in areas if a is not None}) < 2:
                continue
            edits.replace(group.open, group.close + 1, "#VALUE!")
            replaced.append((group.open, group.close))
    return edits.text()

