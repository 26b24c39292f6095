"""INDEX where formualizer's own differs from Excel (formulas_test.xlsx LOOKUP rows 52-54):

- an array constant of several rows and columns with the column omitted gives the whole row
  (`INDEX({2,3;4,5},2)` is {4,5}; formualizer: 4);
- an array constant as the row or column (`INDEX({2,3;4,5},{1,2})`) is lifted: one answer
  per element, each the top-left value of its INDEX (2 and 4); the analysis cannot lift an
  array constant, so such a cell was not computed;
- an error as area_num is the answer (formualizer: #VALUE!);
- a union of ranges as the reference (`INDEX((C52:C54,D52:D54),1,1,E52:E54)`) picks area
  area_num, #REF! past the last one; formualizer: #VALUE!;
- a reference of several rows and columns with the column omitted is #REF! (a negative
  number #VALUE!); formualizer: the first column's value.

A Python callback receives values, not references, so only calls whose answer is a value
are rewritten to call ours: INDEX of an array constant (always a value), and INDEX of a
union or a 2-D range only where it is the whole formula (nothing reads it as a reference). Their other
arguments must be numbers, single cells or array constants (ranges too for the union, in an
array formula, where Excel lifts them); every other INDEX stays formualizer's own.
"""

from __future__ import annotations

from rates_xl.calc.xlfuncs.coercion import Factory
from rates_xl.calc.xlfuncs.lookup.arrays import excel_function, fail, given, grid, integer, is_array
from rates_xl.calc.xlfuncs.omitted import OMITTED, reads_omitted
from rates_xl.calc.xlfuncs.types import EngineValue, Rows

NAME = "RATESXL.INDEX"  # INDEX of an array constant
LIFTED = "RATESXL.INDEXLIFTED"  # the same given an array constant as row, column or area
AREAS = "RATESXL.INDEXAREAS"  # INDEX of a union: (row, column, area, *areas)


def _pick(rows: Rows, row: EngineValue, column: EngineValue, area: EngineValue, reference: bool) -> EngineValue:
    r = integer(row) if given(row) else 0
    c = integer(column) if given(column) else None
    if given(area):
        integer(area)  # (an error there is the answer; checked by the caller)
    if r < 0 or (c is not None and c < 0):
        raise fail("#VALUE!")
    height, width = len(rows), len(rows[0])
    if c is None:
        if height > 1 and width > 1:
            if reference:  # a 2-D reference wants both (formulas_test LOOKUP!R53)
                raise fail("#REF!")
            c = 0  # an array: the whole row
        elif height == 1:
            r, c = 1, r  # a row: the number counts along it
        else:
            c = 1
    if r > height or c > width:
        raise fail("#REF!")
    picked = rows if r == 0 else [rows[r - 1]]
    return [line if c == 0 else [line[c - 1]] for line in picked]


@excel_function(scalars=(1, 2, 3))
def INDEX(array: EngineValue, row: EngineValue = OMITTED, column: EngineValue = OMITTED, area: EngineValue = OMITTED) -> EngineValue:  # noqa: N802
    rows = grid(array)
    if given(row):
        integer(row)
    if given(column):
        integer(column)
    if given(area) and integer(area) != 1:
        raise fail("#REF!")  # an array constant is one area
    return _pick(rows, row, column, OMITTED, reference=False)


@excel_function(scalars=(0, 1, 2))
def INDEXAREAS(row: EngineValue, column: EngineValue, area: EngineValue, *areas: EngineValue) -> EngineValue:  # noqa: N802
    if given(row):
        integer(row)
    if given(column):
        integer(column)
    which = integer(area) if given(area) else 1
    if which < 1:
        raise fail("#VALUE!")
    if which > len(areas):
        raise fail("#REF!")
    return _pick(grid(areas[which - 1]), row, column, OMITTED, reference=True)


def INDEXLIFTED(*args: EngineValue) -> EngineValue:  # noqa: N802 - the engine's name
    """INDEX given an array constant as the row, column or area: lifted, so each answer is
    the top-left value of its INDEX, even for a constant of one element (`INDEX({2,3;4,5},{1})`
    is 2, not {2,3}), which reaches a callback as a plain number."""
    result = INDEX(*args)
    if isinstance(result, list) and not any(is_array(a) for a in args[1:]):
        return result[0][0]
    return result


reads_omitted(INDEXLIFTED)

FUNCTIONS: dict[str, Factory] = {
    NAME: lambda _facts: INDEX,
    LIFTED: lambda _facts: INDEXLIFTED,
    AREAS: lambda _facts: INDEXAREAS,
}
