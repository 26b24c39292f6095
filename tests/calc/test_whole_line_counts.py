"""COUNTIF and COUNTIFS over whole columns and rows count the blank cells past the used ones where
the criteria count a blank (the pass `whole_line_counts`, calc/formula/calls.py; RATESXL.COUNTIF(S),
calc/xlfuncs/statistical/conditional.py). The engine hands a whole line over cut to its used
cells: COUNTIF($1:$1,"<>23") counted 10 cells where Excel counts 16,383.

Excel's answers: IronCalc's Excel-made COUNTIF workbook (ironcalc/IronCalc,
xlsx/tests/calc_tests/STATISTICAL/COUNTIF.xlsx, MIT or Apache-2.0, saved by Excel 16), sheet
Columns: row 1 holds these values, row 12 `COUNTIF($1:$1, CONCAT("<>", B2))` for each criterion
of row 2."""

from __future__ import annotations

import openpyxl
import pytest

ROW_1 = ["Range", 23, "23", True, 1, -23, "hey", False, 123, '=""']
CRITERIA = [23, 1, -23, 1, 0, 100, -2]
EXCEL_ROW_12 = [16383, 16383, 16383, 16383, 16384, 16384, 16384]


def _computed(tmp_path, sheet_cells):
    from rates_xl.calc.workbook import WorkbookCalculation

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for (row, col), value in sheet_cells.items():
        sheet.cell(row=row, column=col).value = value
    book.save(tmp_path / "counts.xlsx")
    result = WorkbookCalculation(tmp_path / "counts.xlsx", full=True).compute()
    assert not result.skipped, [s.reason for s in result.skipped]
    return result.values


def test_excels_counts_over_a_whole_row(tmp_path):
    cells = {(1, c): v for c, v in enumerate(ROW_1, start=1)}
    cells |= {(2, c): v for c, v in enumerate(CRITERIA, start=2)}
    cells |= {(12, c): f'=COUNTIF($1:$1, _xlfn.CONCAT("<>",{openpyxl.utils.get_column_letter(c)}2))'
              for c in range(2, 2 + len(CRITERIA))}
    values = _computed(tmp_path, cells)
    got = [values[("S", f"{openpyxl.utils.get_column_letter(c)}12")] for c in range(2, 2 + len(CRITERIA))]
    assert got == EXCEL_ROW_12


@pytest.mark.parametrize(("formula", "expected"), [
    ('COUNTIF(B:B,"<>x")', 1048575),  # every cell of the column but the "x"
    ('COUNTIF(B:B,"")', 1048572),  # the blank ones (as COUNTBLANK)
    ('COUNTIF(B:B,"<>")', 4),  # the ones holding something: no blank counts
    ('COUNTIF(B:B,">1")', 2),
    ('COUNTIF(B:C,"<>x")', 2097151),
    ('COUNTIFS(B:B,"<>x",C:C,"")', 1048575),  # every criterion counts a blank: the rows past
    ('COUNTIFS(B:B,"<>x",C:C,">0")', 0),  # one does not: none of them
    ('COUNTIF(B1:B10,"<>x")', 9),  # a bounded range: as before
])
def test_whole_columns(tmp_path, formula, expected):
    cells = {(r, 2): v for r, v in enumerate([1, 2, "x", None, 5], start=1) if v is not None}
    cells[(1, 1)] = "=" + formula
    assert _computed(tmp_path, cells)[("S", "A1")] == expected
