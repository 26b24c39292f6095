"""CELL("filename", reference), which models use to title a sheet with its own name or to read
the book's name, is the book's path, its name in brackets and the reference's sheet
(calc/formula/cell_info.py). Before, the engine answered #VALUE!, and a cell naming itself
(`CELL("filename",A1)` in A1) was a circular reference showing 0. CELL is new at every
calculation, so its cells are never compared with Excel's values: the info_types the engine
cannot answer (a cell's formatting: "format", "width" ...) were #VALUE! silently, and are listed.
"""

from __future__ import annotations

import openpyxl
import pytest

from rates_xl.calc.formula.cell_info import FORMATTING
from rates_xl.cli import main

SHEET_NAME = '=MID(CELL("filename",A1),FIND("]",CELL("filename",A1))+1,255)'
BOOK_NAME = ('=MID(CELL("filename",$A$1),FIND("[",CELL("filename",$A$1))+1,'
             'FIND("]",CELL("filename",$A$1))-FIND("[",CELL("filename",$A$1))-1)')


def _book(path):
    book = openpyxl.Workbook()
    inputs = book.active
    inputs.title = "Inputs 2024"
    inputs["A1"] = SHEET_NAME  # (reads its own cell: no loop in Excel)
    inputs["A2"] = BOOK_NAME
    inputs["A3"] = "=CELL(\"filename\",'Rates & FX'!B2)"
    inputs["A4"] = '=CELL("FileName",A1)&" ("&CELL("row",A9)&")"'
    inputs["A5"] = '=CELL("filename")'  # (the cell Excel has selected: only Excel knows)
    inputs["A6"] = '=CELL("filename",rate)'  # (a name: its sheet is not in the text)
    book.create_sheet("Rates & FX")["B2"] = 0.05
    for row, kind in enumerate(sorted(FORMATTING), start=1):
        inputs.cell(row=row, column=3, value=f'=CELL("{kind}",A1)')
    book.save(path)
    return path


def test_the_file_name_a_sheet_s_name_and_the_book_s_name(tmp_path, capsys):
    book, out = _book(tmp_path / "Plan Q3.xlsx"), tmp_path / "out.xlsx"
    assert main(["calc", str(book), "--full", "-o", str(out), "--no-progress"]) == 3
    printed = capsys.readouterr().out
    assert "circular" not in printed
    sheet = openpyxl.load_workbook(out)["Inputs 2024"]
    folder = str(tmp_path.resolve())
    assert sheet["A1"].value == "Inputs 2024" and sheet["A2"].value == "Plan Q3.xlsx"
    assert sheet["A3"].value == f"{folder}/[Plan Q3.xlsx]Rates & FX"
    assert sheet["A4"].value == f"{folder}/[Plan Q3.xlsx]Inputs 2024 (9)"
    listed = {line.split(":")[0].strip() for line in printed.splitlines() if "not computed (CELL" in line}
    assert listed == {"'Inputs 2024'!A5", "'Inputs 2024'!A6",
                      *(f"'Inputs 2024'!C{row}" for row in range(1, len(FORMATTING) + 1))}
    assert 'CELL("format") reads the cell\'s formatting' in printed


@pytest.mark.parametrize("kind", ["address", "col", "contents", "row", "type"])
def test_the_info_types_the_engine_answers_are_left_to_it(tmp_path, kind):
    book = openpyxl.Workbook()
    book.active["B7"], book.active["A1"] = 12.5, f'=CELL("{kind}",B7)'
    book.save(tmp_path / "b.xlsx")
    assert main(["calc", str(tmp_path / "b.xlsx"), "--full", "-o", str(tmp_path / "o.xlsx"), "--no-progress"]) == 0
    value = openpyxl.load_workbook(tmp_path / "o.xlsx").active["A1"].value
    assert value == {"address": "$B$7", "col": 2, "contents": 12.5, "row": 7, "type": "v"}[kind]
