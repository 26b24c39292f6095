"""What-if data tables (Data > What-If Analysis > Data Table; `{=TABLE(row_input, col_input)}`
in Excel's formula bar): read from the file, and computed as Excel computes them, by putting
each of the table's input values into its input cell(s), recomputing what depends on them and
reading the table's formula.

A file stores a table once, in its first cell: `<f t="dataTable" ref="I268:M272" dt2D="1"
dtr="1" r1="D247" r2="J10"/>` (ECMA-376 Part 1, 18.3.1.40 `f`), every cell of `ref` holding its
last value. The layout, as Excel's dialog lays it out and LibreOffice reads it
(sc/source/filter/oox/sheetdatabuffer.cxx, `finalizeTableOperation`):

- two inputs (`dt2D`): the formula in the cell above and left of `ref`; `r1` the row input cell,
  given the values of the row above `ref`; `r2` the column input cell, given the values of the
  column left of `ref`;
- one input in a row (`dtr`): `r1` given the values of the row above `ref`, each row's formula
  in the column left of `ref`;
- one input in a column: `r1` given the values of the column left of `ref`, each column's
  formula in the row above `ref`.

Input cells are on the table's own sheet (Excel refuses any other). A table whose input cell
was deleted (`del1`, `del2`) is not computed: its cells keep the file's values, listed.
Proved by packt_Wazobia_Valuation.xlsx ('Financial Model'!I268:M272, D278:D279, G278:G279,
J278:J279 in ../shared/corpus/models) and tests/calc/test_data_tables.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from rates_xl.functions.sheet import Area, Key, parse_area, parse_cell

#: A value as the engine computing a table holds it.
V = TypeVar("V")

Cell = tuple[int, int]  # (row, column) on the table's sheet


@dataclass(frozen=True)
class DataTable:
    sheet: str
    area: Area  # the cells holding its results (`ref`)
    row_input: Cell | None  # given the values of the row above `area`
    col_input: Cell | None  # given the values of the column left of `area`
    deleted: bool = False  # an input cell was deleted (#REF! in Excel's TABLE(...))

    @property
    def text(self) -> str:
        """As Excel's formula bar shows it: `=TABLE(D247,J10)`, `=TABLE(,C277)`."""
        from rates_xl.functions.sheet import cell_address

        def name(cell: Cell | None) -> str:
            return "" if cell is None else cell_address(*cell)

        return f"=TABLE({name(self.row_input)},{name(self.col_input)})"

    @property
    def inputs(self) -> list[Cell]:
        return [cell for cell in (self.row_input, self.col_input) if cell is not None]

    def cases(self) -> Iterator[tuple[Cell, Cell, list[tuple[Cell, Cell]]]]:
        """For each result cell: (the result cell, the formula cell it shows, [(an input cell,
        the cell whose value it is given)])."""
        r1, c1, r2, c2 = self.area
        for r in range(r1, r2 + 1):
            for c in range(c1, c2 + 1):
                given = []
                if self.row_input is not None:
                    given.append((self.row_input, (r1 - 1, c)))
                if self.col_input is not None:
                    given.append((self.col_input, (r, c1 - 1)))
                if self.row_input is not None and self.col_input is not None:
                    formula = (r1 - 1, c1 - 1)
                elif self.row_input is not None:
                    formula = (r, c1 - 1)
                else:
                    formula = (r1 - 1, c)
                yield (r, c), formula, given


def read(sheet: str, value: object) -> DataTable | None:
    """The table an openpyxl `DataTableFormula` (a cell's value) stores; None for another value."""
    from openpyxl.worksheet.formula import DataTableFormula

    if not isinstance(value, DataTableFormula):
        return None

    def cell(text: object) -> Cell | None:
        return parse_cell(str(text).replace("$", "")) if text else None

    first, second = cell(value.r1), cell(value.r2)
    def is_set(flag: object) -> bool:
        # The file's attribute text ("1", "true"), or the constructor's False when it has
        # none (openpyxl's stubs say bool: its reader passes the text as it is).
        return bool(flag) and flag not in ("0", "false")

    deleted = is_set(value.del1) or is_set(value.del2)
    two = str(value.dt2D) in ("1", "true")
    if two:
        row_input, col_input = first, second
    elif str(value.dtr) in ("1", "true"):
        row_input, col_input = first, None
    else:
        row_input, col_input = None, first
    area = parse_area(value.ref) if value.ref else None
    if area is None or (row_input is None and col_input is None):
        deleted = True
        area = area or Area.cell(1, 1)
    return DataTable(sheet, area, row_input, col_input, deleted)


def not_computed(table: DataTable, formula_cells: set[Key], unsupported: dict[Key, str]) -> str | None:
    """Why a table cannot be computed, or None: an input deleted, outside the sheet, or a
    formula cell that is not a formula the engine computes."""
    from rates_xl.functions.sheet import cell_address

    if table.deleted:
        return "a what-if data table whose input cell was deleted"
    r1, c1, _r2, _c2 = table.area
    if r1 < 2 or c1 < 2:
        return "a what-if data table with no row or column for its inputs and formulas"
    for _cell, (fr, fc), _given in table.cases():
        key = (table.sheet, cell_address(fr, fc))
        if key in unsupported:
            return f"a what-if data table whose formula {cell_address(fr, fc)} is not computed ({unsupported[key]})"
        if key not in formula_cells:
            return f"a what-if data table whose formula cell {cell_address(fr, fc)} holds no formula"
    return None


def compute(table: DataTable, value: Callable[[Cell], V], substitute: Callable[[Cell, V], None],
            result: Callable[[Cell], V], restore: Callable[[Cell], None]) -> dict[Cell, V]:
    """Each result cell's value, as Excel's what-if analysis gives it: every input cell given
    its value for that cell (`substitute`), the formula cell recomputed (`result`), then the
    inputs put back as they were (`restore`). `value` reads a cell as computed before."""
    sources = {given for _cell, _formula, pairs in table.cases() for _input, given in pairs}
    known = {cell: value(cell) for cell in sources}  # read before any input moves
    out: dict[Cell, V] = {}
    try:
        for cell, formula, pairs in table.cases():
            for input_cell, given in pairs:
                substitute(input_cell, known[given])
            out[cell] = result(formula)
    finally:
        for input_cell in table.inputs:
            restore(input_cell)
    return out


def drop_calls(unknown: dict[str, list[str]], tables: dict[Key, DataTable]) -> None:
    """A data table's `TABLE(...)` is no function call: not listed as an unknown one."""
    if "TABLE" in unknown:
        from rates_xl.functions.sheet import address

        cells = {address(*key) for key in tables}
        left = [cell for cell in unknown.pop("TABLE") if cell not in cells]
        if left:
            unknown["TABLE"] = left
