"""The legacy array formulas that pick the rows meeting a condition: `IF` over a range and
`ROW(range)` (which an array formula reads as the column of row numbers: SEQUENCE here,
calc/formula/operators.py) inside SMALL, MAX, INDEX, computed whole (calc/formula/hazards.py
`BROADCASTS`): `{=INDEX(B:B,SMALL(IF($A$1:$A$5>2,ROW($A$1:$A$5)),k))}` was listed as not
computed, "IF given the array from SEQUENCE". And ROW of a range as INDEX's array in an ordinary
cell: `=INDEX(ROW(A1:A3),2)` is 2 (pycel's Excel-made excelcompiler.xlsx, F1:F3), #REF! before.
Checked against LibreOffice, which computes such formulas as Excel does."""

from __future__ import annotations

from tests.support import libreoffice

VALUES = [5, 1, 7, 3, 9]
#: (cell, formula, an array formula?, the answer)
CASES = [
    ("D1", "SMALL(IF(A1:A5>2,ROW(A1:A5)),1)", True, 1),
    ("D2", "SMALL(IF(A1:A5>2,ROW(A1:A5)),2)", True, 3),
    ("D3", "INDEX(B1:B5,SMALL(IF(A1:A5>2,ROW(A1:A5)-ROW(A1)+1),3))", True, "n4"),
    ("D4", "MAX(IF(A1:A5<6,ROW(A1:A5)))", True, 4),
    ("D5", "INDEX(B:B,SMALL(IF($A$1:$A$5>2,ROW($A$1:$A$5)),ROWS($D$1:D1)))", True, "n1"),
    ("D6", "SUM(IF(A1:A5>2,IF(A1:A5<8,ROW(A1:A5))))", True, 8),
    ("D7", 'IFERROR(INDEX(B:B,SMALL(IF($A$1:$A$5>20,ROW($A$1:$A$5)),1)),"none")', True, "none"),
    ("D8", "SUM(IF(A1:A5>2,COLUMN(A1:C1)))", True, 24),  # a column by a row: every pair
    ("E1", "INDEX(ROW(A1:A3),2)", False, 2),
    ("E2", "INDEX(COLUMN(A1:C1),1,3)", False, 3),
]


def _book(path, cases=CASES):
    import openpyxl
    from openpyxl.worksheet.formula import ArrayFormula

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for row, value in enumerate(VALUES, start=1):
        sheet.cell(row=row, column=1).value = value
        sheet.cell(row=row, column=2).value = f"n{row}"
    for cell, formula, array, _ in cases:
        sheet[cell] = ArrayFormula(cell, "=" + formula) if array else "=" + formula
    book.save(path)
    return path


def test_rows_meeting_a_condition(tmp_path):
    from rates_xl.calc.workbook import WorkbookCalculation

    result = WorkbookCalculation(_book(tmp_path / "pick.xlsx"), full=True).compute()
    assert {cell: result.values.get(("S", cell)) for cell, *_ in CASES} == {cell: answer for cell, _, _, answer in CASES}
    assert not result.skipped


def test_arrays_of_other_shapes_stay_listed(tmp_path):
    """IF over a column of 5 and one of 3: Excel pads the shorter with #N/A, the engine answers
    #VALUE!: listed, not computed."""
    from rates_xl.calc.workbook import WorkbookCalculation

    _book(tmp_path / "shapes.xlsx", [("D1", "SUM(IFERROR(IF(A1:A5>2,ROW(A1:A3)),100))", True, None)])
    result = WorkbookCalculation(tmp_path / "shapes.xlsx", full=True).compute()
    assert [s.cell for s in result.skipped] == ["D1"]


@libreoffice.needed
def test_as_libreoffice_computes_them(tmp_path):
    result, theirs = libreoffice.ours_and_theirs(_book(tmp_path / "pick.xlsx"), tmp_path)
    for cell, *_ in CASES:
        column, row = "ABCDE".index(cell[0]), int(cell[1:])
        ours, lo = result.values[("S", cell)], theirs[row - 1][column]
        assert (float(lo) == ours) if isinstance(ours, float | int) else (str(ours) == lo), cell
