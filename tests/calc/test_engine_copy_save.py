"""calc/engines/formualizer/save.py: the engine's copy written with each sheet's cells as text
is openpyxl's own file, part for part (the save time aside), whatever the cells hold."""

from __future__ import annotations

import datetime
import io
import zipfile

import openpyxl
from openpyxl.cell.rich_text import CellRichText
from openpyxl.comments import Comment
from openpyxl.styles import Font

from rates_xl.calc.engines.formualizer import save


def _book(extra=None):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data & <more>"
    ws["A1"] = 1.5
    ws["B1"] = "=A1*2&\"<&>\""
    ws["C1"] = " padded text "
    ws["D1"] = "caf\u00e9 \u2026 \U0001F600 a\r\nb\tc"
    ws["E1"] = True
    ws["F1"] = "#N/A"
    ws["F1"].data_type = "e"
    ws["G1"] = float("nan")
    ws["H1"] = 12345678901234567890
    ws["A2"] = CellRichText([""])  # Excel's empty text (calc/engines/formualizer/cells.py)
    ws["B2"].font = Font(bold=True)  # a styled empty cell
    ws["C2"] = ""
    ws["C2"].font = Font(italic=True)
    ws.row_dimensions[3].height = 30  # a row of dimensions and no cells
    ws.row_dimensions[2].hidden = True
    for row in range(4, 40):
        ws.cell(row=row, column=1, value=f"=A{row - 1}+1").font = Font(bold=row % 2 == 0)
    other = wb.create_sheet("Empty")
    other.sheet_properties.tabColor = "FF0000"
    if extra is not None:
        extra(wb)
    return wb


def _parts(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {n: archive.read(n) for n in archive.namelist() if n != "docProps/core.xml"}


def _same_as_openpyxl(extra=None) -> dict[str, bytes]:
    buffer = io.BytesIO()
    _book(extra).save(buffer)
    ours = _parts(save.save(_book(extra)))
    assert ours == _parts(buffer.getvalue())
    return ours


def test_cells_written_as_text_are_openpyxl_s_bytes():
    parts = _same_as_openpyxl()
    sheet = parts["xl/worksheets/sheet1.xml"].decode("ascii")
    assert "caf&#233; &#8230; &#128512; a&#13;\nb\tc" in sheet  # (what lxml writes: ASCII)
    assert '<t xml:space="preserve"> padded text </t>' in sheet


def test_a_sheet_with_a_cell_only_openpyxl_writes_is_openpyxl_s_whole():
    def dates_comments_links(wb):
        ws = wb["Data & <more>"]
        ws["J5"] = datetime.datetime(2024, 2, 29, 12, 30)
        ws["K5"].comment = Comment("a note", "me")
        ws["L5"] = "link"
        ws["L5"].hyperlink = "https://example.com/a?b=1&c=2"

    sheet = _same_as_openpyxl(dates_comments_links)["xl/worksheets/sheet1.xml"]
    assert b"2024-02-29" in sheet or b"45351" in sheet
