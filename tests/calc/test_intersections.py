"""Excel's intersection operator (a space between two references: Microsoft's "Calculation
operators and precedence", "produces one reference to cells common to the two references")
over whole columns and rows, of any sheet, and over names standing for them (Excel's "natural
language" formulas, `=SUM(Sales Jan)`), written out by the pass `reference_operators`
(calc/formula/operators.py). The engine's own answered #VALUE! (`T:T 3:3`: its tokenizer reads
the space as white space) or 0 (`$T:$T $3:$3`), silently; one the pass cannot read is listed."""

from __future__ import annotations

import openpyxl
from openpyxl.workbook.defined_name import DefinedName

from rates_xl.calc.workbook import WorkbookCalculation

#: (cell, formula, Excel's value) over T1:W5 = 10 * row + column (T3 is 50); LibreOffice agrees but for
#: Y6 (#REF!; Microsoft documents #NULL! for "an intersection of two areas that do not intersect").
CASES = [("Y1", "=SUM(T:T 3:3)", 50), ("Y2", "=T:T 3:3", 50), ("Y3", "=SUM($T:$T $3:$3)", 50),
         ("Y4", "=SUM(ColT Hdr)", 50), ("Y5", "=SUM(S!T:T S!3:3)", 50), ("Y6", "=SUM(T1:T5  U:U)", "#NULL!"),
         ("Y7", "=ColT Hdr*2", 100)]


def test_intersections_of_whole_lines_and_their_names(tmp_path):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for row in range(1, 6):
        for column in range(20, 24):
            sheet.cell(row=row, column=column, value=row * 10 + column)
    names = {"ColT": "S!$T:$T", "Hdr": "S!$3:$3", "Data": "OFFSET(S!$T$1,0,0,5,1)"}
    for name, text in names.items():
        book.defined_names[name] = DefinedName(name, attr_text=text)
    for cell, formula, _excel in CASES:
        sheet[cell] = formula
    sheet["Z1"] = "=SUM(Data Hdr)"  # a dynamic range's intersection: not read here
    sheet["Z2"] = "=SUM(OFFSET(T1,0,0,5,5) T3:W3)"
    book.save(tmp_path / "intersections.xlsx")
    result = WorkbookCalculation(tmp_path / "intersections.xlsx", full=True).compute()
    assert {cell: result.value("S", cell) for cell, _, _ in CASES} == {cell: excel for cell, _, excel in CASES}
    assert sorted((s.cell, "intersection" in s.reason) for s in result.skipped) == [("Z1", True), ("Z2", True)]


def test_intersection_of_another_sheets_whole_lines_as_excel_made_it(tmp_path):
    """Apache POI's Excel-made Intersection-52111-xssf.xlsx (test-data/spreadsheet, kept outside
    the project): `=Tabelle2!E:E Tabelle2!11:11` is 5 in Excel, `=Tabelle2!E:F Tabelle2!11:12`
    (four cells, in an ordinary cell) #VALUE!. Rebuilt here with the cells it reads."""
    book = openpyxl.Workbook()
    book.active.title = "Tabelle1"
    other = book.create_sheet("Tabelle2")
    other["E11"], other["F11"], other["E12"], other["F12"] = 5, 6, 7, 8
    book["Tabelle1"]["A7"] = "=Tabelle2!E:E Tabelle2!11:11"
    book["Tabelle1"]["A9"] = "=Tabelle2!E:F Tabelle2!11:12"
    book.save(tmp_path / "intersection.xlsx")
    result = WorkbookCalculation(tmp_path / "intersection.xlsx", full=True).compute()
    assert (result.value("Tabelle1", "A7"), result.value("Tabelle1", "A9")) == (5, "#VALUE!")
    assert not result.skipped
