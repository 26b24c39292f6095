"""ROWS and COLUMNS of a reference written out, and ROW and COLUMN of one cell, answer from the
formula's text: no cell is read, so a formula naming its own cell there is no circular
reference (calc/formula/positions.py). `=ROWS($B$1:B1)` down column B numbers a list."""

from __future__ import annotations

import openpyxl
import pytest

from rates_xl.calc.formula.positions import row_column, sizes
from rates_xl.calc.formula.site import Site
from rates_xl.calc.formula.tree import Formula
from rates_xl.calc.workbook import WorkbookCalculation
from tests.support import libreoffice


def _book(path):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for row in range(1, 6):
        sheet[f"B{row}"] = f"=ROWS($B$1:B{row})"  # the list's number, counting its own cell
    sheet["C1"], sheet["D2"], sheet["E3"] = "=COLUMNS(A1:C1)*2", "=ROW(D2)*10", "=COLUMN(E3)+ROWS(E1:E4)"
    sheet["F4"] = '=CELL("row",F4)*10+CELL("col",F4)'
    book.save(path)
    return path


@pytest.mark.parametrize("engine", ["fast", "formulas"])
def test_a_formula_counting_its_own_cell_is_no_loop(tmp_path, engine):
    """formualizer took `=ROWS($B$1:B1)` in B1 for a circular reference: every cell of the
    numbered column 0, listed as a loop "Excel warns about"; the `formulas` engine answered
    #VALUE! for them and for `=ROW(D2)` in D2. LibreOffice computes 1 to 5 (below)."""
    result = WorkbookCalculation(_book(tmp_path / "numbers.xlsx"), full=True, engine_name=engine).compute()
    assert [result.value("S", f"B{row}") for row in range(1, 6)] == [1, 2, 3, 4, 5]
    assert [result.value("S", "C1"), result.value("S", "D2"), result.value("S", "E3")] == [6, 20, 9]
    if engine == "fast":
        assert result.value("S", "F4") == 46  # CELL's row and col of its own cell (cell_info.py)
    else:  # (it knows no CELL: kept at the file's value, listed)
        assert "F4" in {skipped.cell for skipped in result.skipped}
    assert result.loops == []


@libreoffice.needed
def test_libreoffice_computes_them_so_too(tmp_path):
    rows = libreoffice.computed_rows(_book(tmp_path / "numbers.xlsx"), tmp_path)
    assert [rows[row][1] for row in range(5)] == ["1", "2", "3", "4", "5"]
    assert [rows[0][2], rows[1][3], rows[2][4], rows[3][5]] == ["6", "20", "9", "46"]


def test_only_a_reference_written_out_is_answered_from_the_text():
    site = Site("S", 1, 1)
    assert sizes(Formula("=SUM(ROWS(A1:A3),COLUMNS($A$1:D1))"), site) == "=SUM(3,4)"
    assert row_column(Formula("=ROW(B7)+COLUMN($C$1)"), site) == "=7+3"
    for kept in ("=ROWS(Data)", "=ROWS(A1:B2 C1:C5)", "=ROWS(Jan:Mar!A1:A2)", "=ROWS([1]S!A1:A3)",
                 "=ROWS(OFFSET(A1,0,0,3))", "=ROW(B5:B6)"):
        assert sizes(Formula(kept), site) == kept and row_column(Formula(kept), site) == kept
