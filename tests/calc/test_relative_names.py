"""Defined names with relative references, read from the cell using them (the pass
`relative_names`, calc/formula/relative_names.py). formualizer drops such names on loading, and
every cell reading one was #NAME?, silently, where Excel has a value."""

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
