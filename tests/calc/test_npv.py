"""NPV as Microsoft documents it (Office 2010's WorksheetFunction.Npv page; ISO/IEC 29500-4, NPV):
"Arguments that are numbers, empty cells, logical values, or text representations of numbers are
counted ... If an argument is an array or reference, only numbers in that array or reference are
counted" (calc/xlfuncs/financial/cashflows.py `npv`). The bridged `formulas` NPV counted a text
"10" in a range as 10 (LibreOffice, and the page, leave it out: 57,356.50 against our 52,150.18
on bench/libreoffice_opinion.py's family `errors`) and answered #VALUE! for a TRUE in one, and
formualizer's own answered #VALUE! for a typed "5". Excel's own answers for a range holding an
empty cell, a text, a logical value and errors: formulas_test.xlsx FINANCIAL row 33."""

from __future__ import annotations

import openpyxl
import pytest

from rates_xl.calc.workbook import WorkbookCalculation
from tests.calc.excel_cases import assert_array_as_excel, assert_cell_as_excel


@pytest.mark.parametrize("cell", ["R33", "T33", "U33", "V33", "X33", "Y33"])
def test_excels_answers_over_mixed_cells(tmp_path, cell):
    """NPV(0,{0,4,5,,"ciao"}) is 9 and NPV(4,{4,5,,"ciao",TRUE}) 1 (text, TRUE and the empty cell
    left out), an error in the range the answer, a text rate #VALUE! first."""
    assert_cell_as_excel("NPV", "formulas_test.xlsx", f"FINANCIAL!{cell}", tmp_path)


@pytest.mark.parametrize("anchor", ["AG33", "AH33"])
def test_a_range_of_rates_in_an_array_formula_is_one_npv_each(tmp_path, anchor):
    """`{=NPV(C33:Q33,C33:G33)}` over AH33:AW33 is one NPV per rate (#N/A past the 15th), over
    the one cell AG33 the first."""
    assert_array_as_excel("NPV", "formulas_test.xlsx", f"FINANCIAL!{anchor}", tmp_path)


def test_a_text_or_logical_value_in_a_range_is_left_out_and_a_typed_one_counted(tmp_path):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for row, value in enumerate([100, "10", True, None, "x", 200], start=1):
        sheet[f"B{row}"] = value
    cases = {"A1": ("=NPV(0.1,B1:B6)", 100 / 1.1 + 200 / 1.1 ** 2),  # "10", TRUE, empty and "x" left out
             "A2": ("=NPV(0.1,B2,B3,B1)", 100 / 1.1),  # one cell each: a reference too
             "A3": ('=NPV(0.1,TRUE,"5",1)', 1 / 1.1 + 5 / 1.1 ** 2 + 1 / 1.1 ** 3),  # typed: counted
             "A4": ('=NPV(0.1,{1,"2",TRUE,3})', 1 / 1.1 + 3 / 1.1 ** 2),  # an array: its numbers
             "A5": ('=NPV(0.1,"abc",1)', "#VALUE!"), "A6": ("=NPV(-1,1)", "#DIV/0!")}
    for cell, (formula, _) in cases.items():
        sheet[cell] = formula
    book.save(tmp_path / "npv.xlsx")
    values = WorkbookCalculation(tmp_path / "npv.xlsx", full=True).compute().values
    for cell, (formula, expected) in cases.items():
        got = values[("S", cell)]
        assert got == (pytest.approx(expected) if isinstance(expected, float) else expected), formula
