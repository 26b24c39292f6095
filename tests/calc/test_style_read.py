"""A book whose stylesheet openpyxl cannot read is computed, never lost whole
(calc/openpyxl_read.py, calc/style_read.py): its number formats kept, the rest of its styles
left out of the copy, and the summary says so."""

from __future__ import annotations

import datetime
import io

import openpyxl
import pytest
import xlsxwriter

from rates_xl.calc import style_read
from rates_xl.calc.workbook import WorkbookCalculation
from tests.calc.corpus import build

#: What openpyxl 3.1.5 fails the whole book on, each seen in a file Excel opens.
BROKEN = {
    # ClosedXML's TryToLoad EmptyFill.xlsx: "TypeError: expected <class 'openpyxl.styles.fills.Fill'>"
    "an empty fill": (b"<fills", b"<fill/>", False),
    # ClosedXML's TryToLoad InvalidColors.xlsx: "Colors must be aRGB hex values"
    "a colour that is no aRGB": (b"<fonts", b'<font><color rgb="FED+"/></font>', False),
    # the same in a differential format a conditional format points at
    "a differential format's colour": (b"<dxfs", b'<dxf><font><color rgb="FED+"/></font></dxf>', True),
}


def _book(path, broken):
    wb = xlsxwriter.Workbook(path)
    ws = wb.add_worksheet("S")
    day = wb.add_format({"num_format": "yyyy-mm-dd", "bold": True})
    share = wb.add_format({"num_format": "0.0%"})
    ws.write_datetime("A1", datetime.datetime(2026, 1, 2), day)
    ws.write_formula("B1", "=A1+1", day, 46025)
    ws.write_number("C1", 0.25, share)
    ws.write_formula("C2", "=C1*2", share, 0.5)
    ws.conditional_format("C1:C2", {"type": "cell", "criteria": ">", "value": 0.3,
                                    "format": wb.add_format({"font_color": "#9C0006"})})
    wb.close()
    opening, element, _differential = broken

    def insert(parts: dict[str, bytes]) -> None:
        styles = parts["xl/styles.xml"]
        at = styles.index(b">", styles.index(opening)) + 1  # (first inside the list, so it is read)
        parts["xl/styles.xml"] = styles[:at] + element + styles[at:]
    build.edit_parts(path, insert)
    return path


@pytest.mark.parametrize("broken", BROKEN.values(), ids=BROKEN.keys())
def test_a_book_whose_stylesheet_openpyxl_cannot_read_is_computed(tmp_path, broken):
    path = _book(tmp_path / "styled.xlsx", broken)
    with pytest.raises(Exception):  # noqa: B017, PT011 - openpyxl's own reading fails on it
        openpyxl.load_workbook(io.BytesIO(path.read_bytes()))
    calculation = WorkbookCalculation(path, full=True)
    result = calculation.compute()
    assert result.values[("S", "B1")] == 46025 and result.values[("S", "C2")] == 0.5
    assert not result.skipped and not result.stale
    notes = " ".join(result.notes)
    assert "the copy lacks the book's fonts, fills, borders, alignments and cell styles (number formats kept)" \
           in notes
    assert ("conditional formats' formatting" in notes) == broken[2]
    copy = calculation.freeze(result, tmp_path / "copy.xlsx")
    sheet = openpyxl.load_workbook(copy)["S"]
    assert sheet["B1"].value == datetime.datetime(2026, 1, 3)  # a date still: its number format kept
    assert (sheet["B1"].number_format, sheet["C2"].number_format) == ("yyyy-mm-dd", "0.0%")
    assert sheet["C2"].value == 0.5 and not sheet["A1"].font.b  # (the bold font is what was lost)
    assert len(sheet.conditional_formatting) == 1


def test_the_plain_stylesheet_keeps_every_number_format_and_takes_a_fallback_s():
    styles = (b'<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
              b'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">'
              b'<numFmts count="2"><numFmt numFmtId="164" formatCode="0.000&quot;x&quot;"/>'
              b'<numFmt numFmtId="0" formatCode=""/></numFmts>'
              b'<cellXfs count="3"><xf numFmtId="0"/><xf numFmtId="164" fontId="9"/>'
              b'<mc:AlternateContent><mc:Choice Requires="hs"><xf numFmtId="3"/></mc:Choice>'
              b'<mc:Fallback><xf numFmtId="14"/></mc:Fallback></mc:AlternateContent></cellXfs></styleSheet>')
    plain = style_read.plain(styles)
    assert plain is not None
    root = openpyxl.xml.functions.fromstring(plain)
    main = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
    assert [(f.get("numFmtId"), f.get("formatCode")) for f in root.iter(f"{main}numFmt")] == [("164", '0.000"x"')]
    assert [xf.get("numFmtId") for xf in root.find(f"{main}cellXfs")] == ["0", "164", "14"]
    assert style_read.plain(b"not xml") is None


def test_a_cell_format_past_the_last_gets_the_default(tmp_path):
    """A cell whose `s` is past the stylesheet's cell formats (ClosedXML's TryToLoad
    LO_xlsx_tdf100709.xlsx: "IndexError: list index out of range") is read with the default
    format, as Excel repairs it; the rest of the book is computed."""
    path = tmp_path / "past.xlsx"
    wb = xlsxwriter.Workbook(path)
    ws = wb.add_worksheet("S")
    ws.write_number("A1", 3, wb.add_format({"num_format": "0.00"}))
    ws.write_formula("A2", "=A1*2", None, 6)
    wb.close()
    sheet = "xl/worksheets/sheet1.xml"
    build.edit_parts(path, lambda parts: parts.update({sheet: parts[sheet].replace(b'<c r="A2"', b'<c r="A2" s="40"')}))
    calculation = WorkbookCalculation(path, full=True)
    result = calculation.compute()
    assert result.values[("S", "A2")] == 6 and not result.skipped and not result.stale
    assert "IndexError" in " ".join(result.notes)
    sheet = openpyxl.load_workbook(calculation.freeze(result, tmp_path / "copy.xlsx"))["S"]
    assert (sheet["A1"].number_format, sheet["A2"].number_format, sheet["A2"].value) == ("0.00", "General", 6)


def test_a_hostile_cell_format_number_asks_no_more_than_excel_s_limit():
    """`s="999999999"` would have the plain stylesheet hold a billion default formats; it holds
    at most Excel's 65,430, and the cell past them fails the book in one line, as before."""
    plain = style_read.plain(b'<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"/>',
                             least=1_000_000_000)
    assert plain is not None and plain.count(b"<xf ") == style_read.MAX_CELL_FORMATS + 1  # (and cellStyleXfs' one)
