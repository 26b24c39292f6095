"""A book set to precision as displayed (calc/displayed_precision.py), in the fast engine's copy:
each formula cell's number rounded to the decimal places its format shows, as Excel stores it,
before any other cell reads it.

A one-cell formula `=F` whose format shows d decimals holds
`=LET(_rates_xl_pd,(F),IF(ISNUMBER(_rates_xl_pd),ROUND(_rates_xl_pd,d),_rates_xl_pd))`: a number
rounded (ROUND rounds half away from zero, as Excel's display does), a text, a logical or an
error as computed, F computed once. A General cell is left as it is; each cell of an array the
fit lifted into a formula per cell (calc/formula/fit.py) is rounded as a one-cell formula is. A
cell whose format's precision calc cannot tell, and an array spilled from one formula or a
what-if data table with any cell formatted to round, are listed and keep the file's values: each
of their cells has a format of its own, and the rewriting above over a spilled array is not kept
element by element by formualizer 0.13 (tried on `{=MMULT(A1:A2,1/3)}`: both cells 0.333...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rates_xl.calc.displayed_precision import decimals
from rates_xl.functions.sheet import Area, Key, cell_address

if TYPE_CHECKING:
    from openpyxl import Workbook

    from rates_xl.calc.engines.formualizer.prepare import Prepared

_NAME = "_rates_xl_pd"
#: Why an array formula or a data table is listed in such a book.
ARRAY = ("the book is set to precision as displayed, and this array's cells are formatted to round "
         "({}), which calc applies to one-cell formulas only")


def rounded(formula: str, places: int) -> str:
    """`formula` ("=..."), its number rounded to `places` decimals."""
    return f"=LET({_NAME},({formula[1:]}),IF(ISNUMBER({_NAME}),ROUND({_NAME},{places}),{_NAME}))"


def as_displayed(book: Workbook, prepared: Prepared, dynamic: set[Key]) -> None:
    """Every formula the copy holds (`prepared.written`) rounded as its cell's format shows it,
    or listed (`prepared.unsupported`) where that is not known or not one cell's (`dynamic`:
    the dynamic arrays' anchors)."""
    sheets = {ws.title: ws for ws in book.worksheets}
    owners = _array_cells(prepared, dynamic)
    changed: dict[tuple[str, int, int], str] = {}
    for at, formula in prepared.written.items():
        title, row, col = at
        ws = sheets.get(title)
        if ws is None or not isinstance(formula, str) or not formula.startswith("="):
            continue  # (a helper sheet of the copy's own: calc/engines/formualizer/lookups.py)
        if at in owners:
            continue  # (an array spilled from one formula: each of its cells' formats, below)
        code = ws.cell(row=row, column=col).number_format
        places = decimals(code)
        if isinstance(places, str):
            prepared.unsupported.setdefault((title, cell_address(row, col)), places)
        elif places is not None:
            changed[at] = rounded(formula, places)
    # An array spilled from one formula, and a what-if data table, with any cell formatted to
    # round (not only the first: a General anchor over a range shown to 0.00 is rounded by Excel).
    whole = {key: area for key, area in prepared.areas.items() if key in set(owners.values())}
    whole.update((key, table.area) for key, table in prepared.data_tables.items())
    for key, area in whole.items():
        codes = {sheets[key[0]].cell(row=r, column=c).number_format for r, c in area.cells()}
        rounding = sorted(code for code in codes if decimals(code) is not None)
        if rounding:
            prepared.unsupported[key] = ARRAY.format(", ".join(rounding))
    for key in [key for key in prepared.data_tables if key in prepared.unsupported]:
        del prepared.data_tables[key]
    for at in [at for at in changed if (at[0], cell_address(at[1], at[2])) in prepared.unsupported]:
        del changed[at]
    if not changed:
        return
    from rates_xl.calc.engines.formualizer.cells import set_formula

    for (title, row, col), formula in changed.items():
        set_formula(sheets[title].cell(row=row, column=col), formula)
        prepared.sums.pop((title, row, col), None)  # (a rounded sum holds Excel's 0 already)
    prepared.written.update(changed)
    prepared.rates_cells = [(t, r, c, changed.get((t, r, c), f)) for t, r, c, f in prepared.rates_cells]


def _array_cells(prepared: Prepared, dynamic: set[Key]) -> dict[tuple[str, int, int], Key]:
    """Each cell an array formula fills in the copy -> its anchor (the key it is listed by)."""
    owners: dict[tuple[str, int, int], Key] = {}
    for key, area in prepared.areas.items():
        if key in prepared.data_tables or not isinstance(area, Area) or prepared.rewritten.get(key) == "lifted":
            continue  # (a lifted array's cells hold a formula each, rounded as a one-cell formula's)
        r1, c1, r2, c2 = area
        # (A legacy array of one cell holds one value, as a one-cell formula does; a dynamic
        # one may spill past its stored range.)
        if (r1, c1) != (r2, c2) or key in dynamic:
            for r, c in area.cells():
                owners[(key[0], r, c)] = key
    return owners
