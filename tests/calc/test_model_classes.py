"""Classes of formula seen in real models kept outside the project (issue 30, point 4), each
reproduced in a small book made here. Where Excel's answer is established (Microsoft's
documentation of the function, or a cell of ../shared/corpus read at test time) it is asserted;
a construct whose answer the engine cannot reproduce is listed, never silently different."""

from __future__ import annotations

import openpyxl
import pytest
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.formula import ArrayFormula

from rates_xl.calc.workbook import WorkbookCalculation
from tests.calc.excel_cases import assert_cell_as_excel
from tests.calc.test_recalc import excel_saved


def _table(book):
    """A product-spec table: table!I5:M19, each cell 100 x row + column."""
    table = book.create_sheet("table")
    for r in range(5, 20):
        for c in range(9, 14):
            table.cell(row=r, column=c).value = r * 100 + c
    return table


def _computed(book, tmp_path, cells):
    book.save(tmp_path / "model.xlsx")
    result = WorkbookCalculation(tmp_path / "model.xlsx").compute()
    listed = {s.cell for s in result.skipped if s.sheet == "S"}
    return {cell: result.values.get(("S", cell)) for cell in cells}, listed


def test_offset_of_one_cell_inside_if(tmp_path):
    """`IF(flag, OFFSET(table!$I$5, MIN(10, n), $F$15), 0)`: OFFSET of one cell with no height
    or width is that one cell (Microsoft's OFFSET: "the same size as reference"), not an array;
    the cell was not computed ("IF given the array from OFFSET"; 1,201 cells of one model)."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    _table(book)
    sheet["F15"], sheet["A1"], sheet["A2"], sheet["B1"], sheet["B2"] = 2, True, False, 3, 40
    sheet["C1"] = "=IF(A1,OFFSET(table!$I$5,MIN(10,B1),$F$15),0)"
    sheet["C2"] = "=IF(A2,OFFSET(table!$I$5,MIN(10,B1),$F$15),0)"
    sheet["C3"] = "=IF($A$1,OFFSET(table!$I$5,MIN(10,B2),$F$15),0)*2"
    sheet["C4"] = "=SUM(IF(A1,OFFSET(table!$I$5,0,0,2,1),0))"  # two cells: still an array
    values, listed = _computed(book, tmp_path, ["C1", "C2", "C3", "C4"])
    assert values["C1"] == 8 * 100 + 11  # table!K8: 3 rows down, 2 columns right of I5
    assert values["C2"] == 0 and values["C3"] == 2 * (15 * 100 + 11)  # MIN(10, 40): K15
    assert not {"C1", "C2", "C3"} & listed
    assert values["C4"] == 509 + 609 or "C4" in listed  # computed right, or listed


def test_range_plus_nested_mmult_in_a_legacy_array(tmp_path):
    """`{=$Z$120:$Z$184+MMULT(MMULT(MMULT(...)))}`: operators over a range and computed
    arrays only, computed whole (each element the sum of the range's cell and the matrix
    product's, Microsoft's MMULT); it was not computed ("an array of ranges"; 65 cells)."""
    import numpy as np

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    _table(book)
    sheet["C40"] = ArrayFormula("C40:C42", "=table!I5:I7+MMULT(MMULT(MMULT(table!I5:K7,table!J5:L7),"
                                           "table!K5:M7),table!K5:K7)")
    values, listed = _computed(book, tmp_path, ["C40", "C41", "C42"])

    def grid(r1, r2, c1, c2):
        return np.array([[r * 100 + c for c in range(c1, c2 + 1)] for r in range(r1, r2 + 1)], dtype=float)

    expected = grid(5, 7, 9, 9) + grid(5, 7, 9, 11) @ grid(5, 7, 10, 12) @ grid(5, 7, 11, 13) @ grid(5, 7, 11, 11)
    assert not listed
    assert [values[c] for c in ("C40", "C41", "C42")] == pytest.approx(list(expected.ravel()), rel=1e-12)


def test_index_to_index_of_a_name_as_a_range_under_operators(tmp_path):
    """`INDEX(name,1,1):INDEX(name,1,n)` is a reference (Microsoft's INDEX: "returns a
    reference"); read by a function it was right, under an operator the engine answered #REF!
    (`SUMPRODUCT(INDEX(r,1,1):INDEX(r,1,n)*2)`, `{=INDEX(r,1,1):INDEX(r,1,n)*2}`)."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    table = _table(book)
    for c, value in zip(range(9, 14), (5, 10, 11, 20, 30), strict=True):
        table.cell(row=5, column=c).value = value
    book.defined_names["rate_row"] = DefinedName("rate_row", attr_text="table!$I$5:$M$5")
    sheet["N1"] = 3
    sheet["A1"] = "=SUMPRODUCT(INDEX(rate_row,1,1):INDEX(rate_row,1,N1)*2)"
    sheet["A2"] = "=SUM(INDEX(rate_row,1,1):INDEX(rate_row,1,N1))"
    sheet["A3"] = '=COUNTIF(INDEX(rate_row,1,1):INDEX(rate_row,1,N1),">9")'
    sheet["B1"] = ArrayFormula("B1:D1", "=INDEX(rate_row,1,1):INDEX(rate_row,1,N1)*2")
    sheet["B2"] = ArrayFormula("B2", "=SUM(INDEX(rate_row,1,1):INDEX(rate_row,1,N1)-1)")
    values, listed = _computed(book, tmp_path, ["A1", "A2", "A3", "B1", "C1", "D1", "B2"])
    assert values == {"A1": 52, "A2": 26, "A3": 2, "B1": 10, "C1": 20, "D1": 22, "B2": 23}
    assert not listed


def test_hour_minute_second_of_a_time_as_text(tmp_path):
    """Microsoft's HOUR, MINUTE and SECOND: "Times may be entered as text strings within
    quotation marks (for example, "6:45 PM")": HOUR is 18, MINUTE 45; the engine answered
    #VALUE!. The corpus rows of these functions (numbers, text "3", TRUE, errors) stay Excel's."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    sheet["A1"], sheet["A2"], sheet["A3"] = '=HOUR("6:45 PM")', '=MINUTE("6:45 PM")', '=SECOND("4:48:18 PM")'
    sheet["A4"], sheet["A5"] = '=HOUR("abc")', '=HOUR("12:30")'
    values, listed = _computed(book, tmp_path, ["A1", "A2", "A3", "A4", "A5"])
    assert values == {"A1": 18, "A2": 45, "A3": 18, "A4": "#VALUE!", "A5": 12} and not listed


@pytest.mark.parametrize("cell", ["R11", "S11", "X11", "Y11", "AA11", "R13", "X13", "R18", "X18", "Y18"])
def test_hour_minute_second_keep_the_corpus_answers(tmp_path, cell):
    assert_cell_as_excel("HOUR/MINUTE/SECOND", "formulas_test.xlsx", f"DATE & TIME!{cell}", tmp_path)


def test_text_with_its_format_in_a_cell(tmp_path):
    """`TEXT(value, format_in_a_cell)`: a number in the cell is its text as the format (a
    cell holding 0 is the code "0": 1235 as TEXT(1234.5,"0"), rounding half away from zero as
    Microsoft's TEXT page shows), an empty cell the empty format (""); the engine gave "1234"."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    sheet["B1"], sheet["B3"] = 0, "#,##0.00"
    sheet["A1"], sheet["A2"], sheet["A3"] = "=TEXT(1234.5,B1)", "=TEXT(1234.5,B2)", "=TEXT(1234.567,B3)"
    sheet["A4"] = '=TEXT(1234.5,"0")'
    values, listed = _computed(book, tmp_path, ["A1", "A2", "A3", "A4"])
    assert values == {"A1": "1235", "A2": "", "A3": "1,234.57", "A4": "1235"} and not listed


def test_a_class_the_engine_answers_otherwise_is_listed_with_excels_value(tmp_path):
    """INDEX with a negative row over a 2-D range is #VALUE! in Excel (formulas_test.xlsx
    LOOKUP!R54, `INDEX(C52:E53,-1)`); with its column given the engine answers #REF!. Checked
    against the value Excel saved, the cell is stale: Excel's value is kept and listed, never
    silently different (as are the LINEST/TREND edges, LOOKUP edges, SWITCH over an error value
    and INDIRECT("H47:I48") in an ordinary cell, whose Excel answers no document here gives)."""
    book = excel_saved(tmp_path / "index.xlsx", {"A1": 1, "B1": 2, "A2": 3, "B2": 4, "C1": "=INDEX(A1:B2,-1,1)",
                                                 "C2": "=C1"}, {"C1": "#VALUE!", "C2": "#VALUE!"})
    result = WorkbookCalculation(book, full=True).compute()
    stale = {s.cell: s.reason for s in result.stale}
    assert result.value("S", "C1") == "#VALUE!" and "C1" in stale and "Excel has #VALUE!" in stale["C1"]
