"""Defined names the engine drops on loading, written into each formula using them (the pass
`defined_names`, calc/formula/defined_names.py): dynamic ranges, other formulas, array
constants, relative references. Every cell reading one was #NAME?, silently, where Excel has a
value (and beside ':' a wrong number)."""

from __future__ import annotations

import openpyxl
from openpyxl.workbook.defined_name import DefinedName

from rates_xl.calc.workbook import WorkbookCalculation


def test_a_relative_name_is_read_from_the_cell_using_it(tmp_path):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for row in range(1, 6):
        for column in range(20, 24):  # T1:W5 = 10 * row + column
            sheet.cell(row=row, column=column, value=row * 10 + column)
    names = {"RowT": "S!$T1", "RowTotal": "SUM(S!$T1:$W1)", "Left": "S!XFD1", "Absolute": "S!$T$3"}
    for name, text in names.items():
        book.defined_names[name] = DefinedName(name, attr_text=text)
    other = book.create_sheet("Other")
    other.defined_names["RowT"] = DefinedName("RowT", attr_text="S!$U1")  # Other's own RowT
    cells = {"Y2": "=RowT+1", "Y3": "=RowTotal", "Y4": "=SUM(RowT:$W4)", "Z1": "=Absolute", "X3": "=Left"}
    for address, formula in cells.items():
        sheet[address] = formula
    other["B4"] = "=RowT"
    book.save(tmp_path / "names.xlsx")
    result = WorkbookCalculation(tmp_path / "names.xlsx", full=True).compute()
    # $T2 + 1 (LibreOffice's 41 too); SUM($T3:$W3); SUM($T4:$W4); the absolute name as before; U4
    assert [result.value("S", cell) for cell in ("Y2", "Y3", "Y4", "Z1")] == [41, 206, 246, 50]
    assert result.value("Other", "B4") == 61
    # `Left` reaches round the sheet's edge from X3 (the cell to the left, as Excel writes a
    # name made in B1): listed, not guessed
    assert [(s.cell, "round the sheet's edge" in s.reason) for s in result.skipped] == [("X3", True)]


def test_dynamic_ranges_formulas_and_array_constants_as_names(tmp_path):
    """The values are LibreOffice's too (a book of the same cells, computed headless)."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for row in range(1, 6):
        sheet.cell(row=row, column=20, value=row * 10 + 20)  # T1:T5 = 30..70
    names = {"Arr": "{1,2,3}", "Price": "S!$T$2", "Amount": "Price*2", "Data": "OFFSET(S!$T$1,0,0,COUNTA(S!$T:$T),1)",
             "Span": "INDEX(S!$T:$T,1):INDEX(S!$T:$T,3)", "DataEnd": "S!$T$1:INDEX(S!$T:$T,COUNT(S!$T:$T))",
             "Twice": "SUM(Data)*2"}
    for name, text in names.items():
        book.defined_names[name] = DefinedName(name, attr_text=text)
    cells = {"Y2": ("=SUM(Arr)", 6), "Y3": ("=Amount", 80), "Y4": ("=SUM(Data)", 250), "Y5": ("=ROWS(Data)", 5),
             "Y6": ("=SUM(Span)", 120), "Y9": ("=SUM(DataEnd)", 250), "Y10": ("=INDEX(Arr,2)", 2),
             "Y11": ("=MAX(Data)", 70), "Y12": ('=COUNTIF(Data,">30")', 4), "Y13": ("=VLOOKUP(40,Data,1,FALSE)", 40),
             "Y14": ("=Data", "#VALUE!"),  # T1:T5 intersected in row 14: none
             "Y15": ("=Twice", 500)}  # a name naming another
    for address, (formula, _value) in cells.items():
        sheet[address] = formula
    book.save(tmp_path / "dynamic.xlsx")
    result = WorkbookCalculation(tmp_path / "dynamic.xlsx", full=True).compute()
    assert {cell: result.value("S", cell) for cell in cells} == {cell: value for cell, (_f, value) in cells.items()}
    assert not result.skipped


def test_a_name_for_a_3d_reference_is_read_sheet_by_sheet(tmp_path):
    """`FirstQ` = `Jan:Mar!$A$1`: in `SUM(FirstQ)` the same cell of each sheet from Jan to Mar
    (as `SUM(Jan:Mar!$A$1)` is, the pass `three_d`); the engine dropped the name: #NAME?."""
    book = openpyxl.Workbook()
    book.active.title = "S"
    for number, title in enumerate(("Jan", "Feb", "Mar"), start=1):
        book.create_sheet(title)["A1"] = number
    book.defined_names["FirstQ"] = DefinedName("FirstQ", attr_text="Jan:Mar!$A$1")
    book["S"]["A1"] = "=SUM(FirstQ)"
    book.save(tmp_path / "three_d.xlsx")
    result = WorkbookCalculation(tmp_path / "three_d.xlsx", full=True).compute()
    assert result.value("S", "A1") == 6 and not result.skipped


def test_a_name_calling_a_function_the_engine_does_not_know_lists_its_readers(tmp_path):
    """Excel 4 macro functions kept in a name (GET.WORKBOOK listing the sheets, GET.CELL a
    cell's colour), which Excel computes in a name alone: each cell reading one was #NAME?,
    silently, where a cell calling an unknown function is listed. Its readers are listed now,
    Excel's values kept, and what reads them computed from those."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    book.defined_names["SheetNames"] = DefinedName("SheetNames", attr_text="GET.WORKBOOK(1)")
    sheet.defined_names["Colour"] = DefinedName("Colour", attr_text="GET.CELL(63,S!$A$1)")
    book.defined_names["Rate"] = DefinedName("Rate", attr_text="0.05")
    sheet["B1"], sheet["B2"], sheet["B3"], sheet["B4"] = "=INDEX(SheetNames,1)", "=Colour+1", "=Rate*2", '=B2&"!"'
    book.save(tmp_path / "xlm.xlsx")
    result = WorkbookCalculation(tmp_path / "xlm.xlsx", full=True).compute()
    listed = {s.cell: s.reason for s in result.skipped}
    assert sorted(listed) == ["B1", "B2"]
    assert "reads the name SheetNames, which calls GET.WORKBOOK, which the engine does not know" in listed["B1"]
    assert "reads the name Colour, which calls GET.CELL" in listed["B2"]
    assert result.value("S", "B3") == 0.1 and result.value("S", "B4") == "!"  # (B2's value: none cached)


def test_a_name_read_through_the_book_s_own_file_is_that_name(tmp_path):
    """`[0]!Rate`: the book's name Rate read through its own file (external link index 0 is the
    workbook itself; formualizer reads it so too; apache/poi's Excel-made 56737.xlsx caches 142,
    the name's cell, for `=[0]!NR_Global_B2`). Every such cell was listed as reading another
    workbook, not computed. A sheet's own name of that name would stand first for a bare
    `Rate`, so there the reference is still listed."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    sheet["A1"], sheet["A2"], sheet["A3"] = 5, 7, 100
    book.defined_names["Rate"] = DefinedName("Rate", attr_text="S!$A$1")
    book.defined_names["Dyn"] = DefinedName("Dyn", attr_text="OFFSET(S!$A$1,0,0,2,1)")  # written out
    book.defined_names["Loc"] = DefinedName("Loc", attr_text="S!$A$2")
    sheet.defined_names["Loc"] = DefinedName("Loc", attr_text="S!$A$3")  # S's own Loc
    sheet["B1"], sheet["B2"], sheet["B3"] = "=[0]!Rate*2", "=SUM([0]!Dyn)", "=[0]!Loc"
    book.create_sheet("T")["B1"] = "=[0]!Loc+1"
    book.save(tmp_path / "own.xlsx")
    result = WorkbookCalculation(tmp_path / "own.xlsx", full=True).compute()
    assert [result.value("S", "B1"), result.value("S", "B2"), result.value("T", "B1")] == [10, 12, 8]
    assert [(s.sheet, s.cell, "another workbook" in s.reason) for s in result.skipped] == [("S", "B3", True)]
