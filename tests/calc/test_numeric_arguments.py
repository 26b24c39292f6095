"""FLOOR, CEILING and their kin, MROUND, GCD and LCM given cells that hold text, logical values,
nothing, or a significance so small the quotient passes the largest number, as Excel reads
them (calc/xlfuncs/math_trig/numeric_text.py, multiples.py, rounding.py, divisors.py). Before,
a date written as text was #VALUE! (CEILING.PRECISE(10,"2024-01-10"), Excel 45301), an empty
cell made GCD and LCM #VALUE! (GCD(10,3,empty), Excel 1), and CEILING("eight",1/0) was #DIV/0!.

Excel 16's values, cached in IronCalc's xlsx/tests/calc_tests/MATH_AND_TRIGONOMETRY/
FLOOR_CEILING.xlsx, MROUND_TRUNC_INT.xlsx, GCD_LCM.xlsx and LCM_GCD.xlsx (ironcalc/IronCalc,
MIT or Apache-2.0), at the cell after each case, and in formulas_test.xlsx
(../shared/corpus/excel) where it says so.
The inputs are the books': a formula's text (`="2024-01-10"`) in a cell of column B."""

from __future__ import annotations

import pytest

#: Column B, as the books hold them (a formula answering text, a logical, an error, nothing).
INPUTS = {
    "B1": '="2024-01-10"', "B2": '=" 2024-01-10 "', "B3": '="8"', "B4": '=" 10 "', "B5": '="--8"',
    "B6": '=""', "B7": True, "B8": False, "B10": "=1/0", "B11": "eight", "B14": 5, "B15": -0.4,
    "B16": -0.00037,  # B9 and B13 stay empty
}

EXCEL = {
    # FLOOR_CEILING.xlsx: a date written as text is read, a number too, spaces around it allowed
    "CEILING(B3,B1)": 45301,  # CEILING!AF18
    "_xlfn.CEILING.PRECISE(10,B1)": 45301,  # CEILING!AD50
    "ISO.CEILING(PI()/2,B1)": 45301,  # CEILING!AD210
    "ISO.CEILING(-10,B1)": 0,  # CEILING!AD176
    "FLOOR(1E-12,B1)": 0,  # FLOOR!AD11
    "_xlfn.CEILING.MATH(B9,B1)": 0,  # CEILING!AF110
    "_xlfn.CEILING.MATH(B1,B9)": 0,  # CEILING!AK126
    "CEILING(B2,1)": "#VALUE!",  # CEILING!B33: the date with spaces around it is not
    # text that is no number is #VALUE!, before a later error
    "CEILING(B11,B10)": "#VALUE!",  # CEILING!Y22
    "FLOOR(B11,B10)": "#VALUE!",  # FLOOR!W22
    # MROUND_TRUNC_INT.xlsx: MROUND reads text as they do; an omitted argument is #N/A
    "MROUND(B1,7)": 45304,  # MROUND!C31
    "MROUND(B2,7)": "#VALUE!",  # MROUND!C32
    "MROUND(B4,3)": 9,  # MROUND!C23
    "MROUND(,B14)": "#N/A",  # MROUND!C34
    "MROUND(10, )": "#N/A",  # MROUND!C36 (A36 is empty)
    "MROUND(-7.5,B14)": "#NUM!",  # MROUND!C7: signs differ
    # FLOOR(0, 0) read from FALSE and empty cells
    "FLOOR(B8,0)": 0,  # FLOOR!F15
    "FLOOR(B9,B9)": 0,  # FLOOR!M16
    # the quotient past the largest number: #NUM!
    "CEILING(709,1E-307)": "#NUM!",  # CEILING!N40
    "CEILING(-1000,1E-307)": "#NUM!",  # CEILING!N44
    "_xlfn.CEILING.MATH(709,-1E-307)": "#NUM!",  # CEILING!M134
    # GCD_LCM.xlsx Sheet1: an empty cell given alone is skipped, in a range it is 0
    "GCD(10,3,B9)": 1,  # E3
    "LCM(10,3,B9)": 30,  # D3
    "LCM(B9,B14,B9)": 5,  # D35
    "LCM(B9,B9,B9)": "#VALUE!",  # D13
    "LCM(B13:B14)": 0,  # I35
    "GCD(B13:B14)": 5,  # J35
    # text read as Excel reads it, in a cell, a range or an array
    "LCM(B3,2)": 8,  # D24
    "GCD(B4,3)": 1,  # E26
    "LCM(B1,7)": 317107,  # D31
    "GCD(B2,7)": "#VALUE!",  # E32
    "LCM(10,B6,B9)": "#VALUE!",  # D17
    "LCM({4,\"8\",12})": 24,  # K24
    "GCD({4,\"2024-01-10\",12})": 1,  # L31
    "LCM(B7,2)": "#VALUE!",  # D44
    "GCD(,B14,B13)": "#N/A",  # E34: an omitted argument
    "LCM(7.9,4.9)": 28,  # D6
    "LCM(B16,0.0001,B9)": "#NUM!",  # LCM_GCD.xlsx D23: below 0 before it is truncated
    "GCD(B15,B7)": "#VALUE!",  # formulas_test.xlsx MATH & TRIG!Y34: #VALUE! before #NUM!
}


@pytest.fixture(scope="module")
def computed(tmp_path_factory):
    import openpyxl

    from rates_xl.calc.workbook import WorkbookCalculation

    path = tmp_path_factory.mktemp("numeric_arguments") / "cases.xlsx"
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for cell, value in INPUTS.items():
        sheet[cell] = value
    for row, formula in enumerate(EXCEL, start=1):
        sheet.cell(row=row, column=1).value = "=" + formula
    book.save(path)
    result = WorkbookCalculation(path, full=True).compute()
    assert [s.cell for s in result.skipped] == []  # every case computed, none listed
    return {formula: result.values.get(("S", f"A{row}")) for row, formula in enumerate(EXCEL, start=1)}


@pytest.mark.parametrize("formula", list(EXCEL))
def test_as_excel_answers(computed, formula):
    assert computed[formula] == EXCEL[formula]
