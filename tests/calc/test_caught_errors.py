"""An error given to UPPER, LOWER, PROPER, TRIM, CONCAT, CONCATENATE or EXACT, read by a
function that reads errors as values (calc/formula/caught_errors.py). formualizer 0.13 answered
`ISERROR(UPPER(NA()))` with #N/A; Excel's is TRUE (Microsoft, "IS functions": ISERROR "Value
refers to any error value"; ISNA "Value refers to the #N/A error value"; IFNA "Returns the
value you specify if the expression resolves to #N/A"; ERROR.TYPE #DIV/0! is 2, #N/A 7)."""

from __future__ import annotations

import openpyxl
import pytest

from rates_xl.calc.workbook import WorkbookCalculation

CASES = {  # each as Excel answers it, A1 holding =NA(), A2 =1/0, A3 5, A4:A6 "ab", =NA(), " cd "
    "=ISERROR(UPPER(A1))": True,
    "=ISNA(LOWER(A1))": True,
    "=ISERR(PROPER(A1))": False,
    "=ISERR(TRIM(A2))": True,
    '=IFNA(CONCAT(A1,"x"),"none")': "none",
    '=IFNA(CONCATENATE("x",A3,A1),"none")': "none",
    "=ERROR.TYPE(EXACT(A3,A2))": 2,
    "=ERROR.TYPE(CONCATENATE(A3,TRIM(A2),A1))": 2,  # the first error among its arguments
    "=ISERROR(UPPER(TRIM(A1)))": True,
    "=IF(ISNA(TRIM(A1)),1,2)": 1,
    '=ISNA(TRIM(A1)&"")': True,
    "=ISTEXT(TRIM(A6))": True,
    "=ISNUMBER(VALUE(TRIM(A3)))": True,
    "=TYPE(UPPER(A1))": 16,
    "=SUMPRODUCT(--ISERROR(UPPER(A4:A6)))": 1,
    "=ISERROR(IFERROR(UPPER(A1),1))": False,
    "=TRIM(A1)": "#N/A",
    "=TRIM(A6)": "cd",
    # The SUMIF family reads an error criterion as a value: the cells holding that error
    # (Excel 16, IronCalc's STATISTICAL__COUNTIF.xlsx Columns!B28 and B30, whole rows: 1 each)
    '=COUNTIF(A1:A6,CONCAT("<>",A1))': 2,
    '=COUNTIF(A:A,CONCAT("<>",A2))': 1,
}


def test_their_errors_are_read_as_values(tmp_path):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for cell, value in {"A1": "=NA()", "A2": "=1/0", "A3": 5, "A4": "ab", "A5": "=NA()", "A6": " cd "}.items():
        sheet[cell] = value
    for row, formula in enumerate(CASES, start=1):
        sheet.cell(row=row, column=2).value = formula
    book.save(tmp_path / "caught.xlsx")
    result = WorkbookCalculation(tmp_path / "caught.xlsx", full=True).compute()
    assert not result.skipped
    got = {formula: result.values.get(("S", f"B{row}")) for row, formula in enumerate(CASES, start=1)}
    assert got == pytest.approx(CASES)
