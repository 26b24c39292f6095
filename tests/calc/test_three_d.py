"""3-D references (`SUM(Jan:Mar!B5)`) in the functions Microsoft lists as taking them: the same
cells on every sheet from the first to the last in the order of the tabs (calc/formula/three_d.py).
formualizer answered #VALUE! for each (apache/poi's Excel-made 55906-MultiSheetRefs.xlsx:
`SUM(Sheet1:Sheet3!A1)` 66, AVERAGE 22, MIN 11, MAX 33, COUNT 3; FormulaSheetRange.xlsx:
`SUM(Sheet2:Sheet5!A12:C12)` 60): the sums a model makes of the same cell across months."""

from __future__ import annotations

import openpyxl

from rates_xl.calc.formula.passes import one
from rates_xl.calc.formula.site import BookFacts, Site
from rates_xl.calc.workbook import WorkbookCalculation


def test_a_column_of_3d_sums_across_monthly_sheets(tmp_path):
    book = openpyxl.Workbook()
    summary = book.active
    summary.title = "Summary"
    months = {"Jan": 1, "Feb 2026": 10, "Mar": 100}
    for title, scale in months.items():
        sheet = book.create_sheet(title)
        for row in range(1, 21):
            sheet.cell(row=row, column=2, value=row * scale)
        sheet["C1"] = "text"
    book.create_sheet("Notes")["B1"] = 1_000_000  # after the span: not read
    for row in range(1, 21):  # copies down a column: one shape, rewritten once (calc/formula/memo.py)
        summary.cell(row=row, column=1, value=f"=SUM(Jan:Mar!B{row})")
    summary["C1"] = "=AVERAGE(Jan:Mar!B1)"
    summary["C2"] = "=MAX(Jan:Mar!$B$1:$B$20)"
    summary["C3"] = "=MIN(Jan:Mar!B2,5)"
    summary["C4"] = "=COUNT(Jan:Mar!B1:C1)"
    summary["C5"] = "=COUNTA(Jan:Mar!B1:C1)"
    summary["C6"] = "=PRODUCT(Jan:Mar!B1)"
    summary["C7"] = "=SUM('Feb 2026:Mar'!B1)*2"
    summary["C8"] = "=SUM(Jan:Apr!B1)"  # no sheet Apr: listed, not guessed
    book.save(tmp_path / "months.xlsx")
    result = WorkbookCalculation(tmp_path / "months.xlsx").compute()
    assert [result.value("Summary", f"A{row}") for row in range(1, 21)] == [111 * row for row in range(1, 21)]
    assert [result.value("Summary", f"C{row}") for row in range(1, 8)] == [37, 2000, 2, 3, 6, 1000, 220]
    assert [(c.address, "sheets the book does not have (Jan:Apr)" in c.reason) for c in result.skipped] == \
        [("Summary!C8", True)]


def test_only_a_whole_argument_of_a_function_taking_one_is_written_out():
    facts = BookFacts(sheets=("X", "Y", "Z"))
    site = Site("X", 1, 1, False, facts)
    assert one("three_d", "=SUM(X:Z!B1,1)", site) == "=SUM(X!B1,Y!B1,Z!B1,1)"
    assert one("three_d", "=SUM(Z:X!B1)", site) == "=SUM(X!B1,Y!B1,Z!B1)"  # the tabs' order
    assert one("three_d", "=INDEX(X:Z!B1,1)", site) == "=INDEX(X:Z!B1,1)"  # not a 3-D function
    assert one("three_d", "=SUM(X!B1:C2)", site) == "=SUM(X!B1:C2)"  # one sheet
