"""XNPV given values that are not cash flows (calc/xlfuncs/financial/cashflows.py `_not_flows`):
an empty cell, a text or a boolean among the values, or more values or dates than the other,
is #NUM! in Excel; an error among them is passed on.

Excel 16's values, cached in IronCalc's xlsx/tests/calc_tests/FINANCIAL__XNPV.xlsx (ironcalc/IronCalc,
MIT or Apache-2.0), Sheet1 Q2, Q7, Q8, Q9, Q10 and S2: the rows' values and dates copied here.
Before, Q7 (an empty value) answered 39.46, silently; Q8, Q9 and S2 #VALUE!."""

from __future__ import annotations

import datetime

import openpyxl
import pytest

from rates_xl.calc.workbook import WorkbookCalculation

DATES = [datetime.datetime(2023, month, 1) for month in (2, 3, 4, 6, 7, 8)]
ROWS = {  # row: (values A:F, the formula in Q, Excel's answer)
    2: ([-20, 5, 5, 5, 5, 5], "=XNPV(0.1,A2:F2,H2:M2)", 4.310013415970243),
    3: ([-20, 5, 5, 5, 5, 5], "=XNPV(0.1,A3:E3,H3:M3)", "#NUM!"),  # S2: five values, six dates
    7: ([20, 5, 5, None, 5, 5], "=XNPV(0.1,A7:F7,H7:M7)", "#NUM!"),
    8: ([-70, 12, 15, "hello", 5, 5], "=XNPV(0.1,A8:F8,H8:M8)", "#NUM!"),
    9: ([-20, 8, 5, True, 6, 5], "=XNPV(0.1,A9:F9,H9:M9)", "#NUM!"),
    10: ([-20, 1, 1, "=1/0", 1, 1], "=XNPV(0.1,A10:F10,H10:M10)", "#DIV/0!"),
}


def test_values_that_are_not_cash_flows(tmp_path):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for row, (values, formula, _excel) in ROWS.items():
        for column, value in enumerate(values, start=1):
            sheet.cell(row=row, column=column).value = value
        for column, date in enumerate(DATES, start=8):
            sheet.cell(row=row, column=column).value = date
        sheet.cell(row=row, column=17).value = formula
    book.save(tmp_path / "xnpv.xlsx")
    result = WorkbookCalculation(tmp_path / "xnpv.xlsx", full=True).compute()
    assert not result.skipped
    got = {row: result.values.get(("S", f"Q{row}")) for row in ROWS}
    assert got == pytest.approx({row: excel for row, (_values, _formula, excel) in ROWS.items()})
