"""The first read of a book leaves merged ranges unformatted (calc/merged_read.py: the engine's
copy never shows a border); the copy written for the user is formatted exactly as openpyxl's own
read formats it: the same style lists in the same order, the same style on every cell."""

from __future__ import annotations

from pathlib import Path

import openpyxl
from openpyxl.styles import Border, Protection, Side

from rates_xl.calc import merged_read
from rates_xl.calc.book import Book


def _styles(workbook) -> tuple:
    lists = tuple(tuple(getattr(workbook, name)) for name in ("_borders", "_protections", "_cell_styles"))
    cells = tuple(sorted((ws.title, key, None if cell._style is None else tuple(cell._style)) for ws in workbook.worksheets
                         for key, cell in ws._cells.items()))
    return lists, cells


def _merged_book(path: Path) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    thin, thick = Side(style="thin", color="FF0000"), Side(style="thick")
    for n, (top_left, bottom_right) in enumerate((("A1", "C2"), ("E1", "E4"), ("B6", "F6"), ("H8", "J10"))):
        ws[top_left] = f"block {n}"
        ws[top_left].border = Border(top=thin, left=thick if n % 2 else thin)
        ws[bottom_right].border = Border(right=thick, bottom=Side(style="dashed"))
        ws[bottom_right].protection = Protection(locked=False)
        ws.merge_cells(f"{top_left}:{bottom_right}")
    ws["L1"] = "=A1&E1"
    wb.create_sheet("Other")["A1"] = 1
    wb["Other"].merge_cells("A1:B3")
    wb.save(path)
    return path


def test_the_written_copy_is_styled_as_openpyxl_reads_it(tmp_path):
    path = _merged_book(tmp_path / "merged.xlsx")
    plain = openpyxl.load_workbook(path)
    book = Book(path)
    assert _styles(book.book)[1] != _styles(plain)[1]  # the first read: edges not formatted
    assert _styles(book.writable_copy(keep_vba=False)) == _styles(plain)


def test_a_read_after_the_unformatted_one_is_formatted(tmp_path):
    path = _merged_book(tmp_path / "merged.xlsx")
    plain = openpyxl.load_workbook(path)
    with merged_read.unformatted():
        openpyxl.load_workbook(path)
    assert _styles(openpyxl.load_workbook(path)) == _styles(plain)
    book = Book(path)
    lent = book.engine_copy()  # the first read goes to the engine, and comes back (calc/undo.py)
    lent.save(tmp_path / "engine.xlsx")
    assert book.writable_copy(keep_vba=False) is lent
    assert _styles(lent) == _styles(plain)
    again = book.writable_copy(keep_vba=False)  # a second copy: read again, formatted as openpyxl reads
    assert again is not lent and _styles(again) == _styles(plain)
