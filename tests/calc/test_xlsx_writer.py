"""calc's save (calc/xlsx_writer.py) writes what openpyxl's own save writes, part by part and
byte for byte: its row writer reproduces openpyxl 3.1.5's, and these tests fail when the
installed openpyxl writes anything else (a new version's writer: check it, then update
`REPRODUCED`). The hostile book holds every kind of cell openpyxl's writer has a branch for.
One difference is meant: a number whose double 16 digits do not hold is written whole
(`xlsx_writer.number_text`); openpyxl's side writes its cells' numbers so too, and
`test_a_number_is_written_whole_where_openpyxl_s_16_digits_change_it` shows the difference."""

from __future__ import annotations

import contextlib
import functools
import gc
import io
import math
import re
import zipfile
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import cast

import numpy
import openpyxl
import pytest
from openpyxl.cell.rich_text import CellRichText, TextBlock
from openpyxl.cell.text import InlineFont
from openpyxl.comments import Comment
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.worksheet.cell_range import CellRange
from openpyxl.worksheet.formula import ArrayFormula, DataTableFormula

from rates_xl.calc import xlsx_writer

STAMPS = re.compile(rb"<dcterms:(created|modified)[^>]*>[^<]*</dcterms:\1>")
CORPUS = Path(__file__).parent / "corpus"
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


def _parts(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        found = {name: package.read(name) for name in package.namelist()}
    found["docProps/core.xml"] = STAMPS.sub(b"", found["docProps/core.xml"])
    return found


def _headers(data: bytes) -> list[tuple[object, ...]]:
    """Each part's zip header but its time."""
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        return [(i.filename, i.compress_type, i.external_attr, i.flag_bits, i.create_system, i.create_version,
                 i.extract_version, i.extra, i.comment, i.internal_attr) for i in package.infolist()]


@contextlib.contextmanager
def _whole_numbers() -> Iterator[None]:
    """openpyxl's cell writer with each cell's number written as calc writes it (`number_text`),
    the one difference meant between the two writers."""
    from openpyxl.cell import _writer

    original = _writer.safe_string

    def safe_string(value: object) -> str:
        if type(value) in (int, float) and math.isfinite(cast(float, value)):
            return xlsx_writer.number_text(cast(float, value))
        return original(value)

    _writer.safe_string = safe_string
    try:
        yield
    finally:
        _writer.safe_string = original


def _both(build: Callable[[], openpyxl.Workbook]) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """The book saved by openpyxl and by calc's writer (each built afresh: a save changes the
    workbook's style list): their parts, once their zip headers are shown the same."""
    theirs, ours = io.BytesIO(), io.BytesIO()
    with _whole_numbers():
        build().save(theirs)
    xlsx_writer.write(build(), ours)
    assert _headers(ours.getvalue()) == _headers(theirs.getvalue())
    return _parts(theirs.getvalue()), _parts(ours.getvalue())


def _assert_same(theirs: dict[str, bytes], ours: dict[str, bytes]) -> None:
    assert list(ours) == list(theirs)  # the same parts, in the same order
    for name in theirs:
        assert ours[name] == theirs[name], f"{name} differs from openpyxl {openpyxl.__version__}'s"


def _hostile(*, iso_dates: bool = False, epoch_1904: bool = False) -> openpyxl.Workbook:
    wb = openpyxl.Workbook(iso_dates=iso_dates)
    if epoch_1904:
        wb.epoch = openpyxl.utils.datetime.CALENDAR_MAC_1904
    ws = wb.active
    ws.title = "Hostile"
    values: list[object] = [
        0, 1, -7, 10**20, 2**53 + 1, 0.1, -0.39999999999999947, 12345678901234567, -1.5e-300, 1e308, 123456789.123456789, float("nan"),
        float("inf"), -float("inf"), True, False, Decimal("1.10"), numpy.float64(2.5), numpy.int64(42),
        "plain", " leading", "trailing ", " ", "\n", "a\r\nb", "tab\there", "<&>\"'", "]]>",
        "unicode é 東京 \U0001F600", "\x85 next line", "#N/A", "#DIV/0!", "#SPILL!", "=SUM(1,2)",
        "'=not a formula", "=", "", None,
        datetime(2026, 1, 2, 3, 4, 5, 600000), date(1900, 2, 28), date(1904, 1, 2), time(13, 14, 15),
        timedelta(days=1, hours=2), timedelta(0),
    ]
    for n, value in enumerate(values, 1):
        ws.cell(row=n, column=1, value=value)
        ws.cell(row=n, column=3, value=repr(value))
    row = len(values) + 2
    ws.cell(row=row, column=2, value="#N/A").data_type = "s"  # text that reads as an error
    ws.cell(row=row, column=3, value="=").data_type = "f"  # a formula of nothing
    ws.cell(row=row, column=4).value = 5
    ws.cell(row=row, column=4).data_type = "s"  # a number typed as text
    ws.cell(row=row, column=5, value="x").data_type = "e"
    row += 1
    ws.cell(row=row, column=1, value="=A1+A2")
    ws.cell(row=row, column=2, value='=IF(A1<2,"<&>","b")')
    ws.cell(row=row, column=3, value=ArrayFormula(f"C{row}:C{row + 2}", "=A1:A3*2"))
    ws.cell(row=row, column=4, value=ArrayFormula(f"D{row}", None))
    ws.cell(row=row, column=5, value=DataTableFormula(ref=f"E{row}:F{row + 3}", dt2D="1", dtr="0",
                                                    r1="A1", r2="B1", ca="1"))
    ws.cell(row=row, column=6, value=DataTableFormula(ref=f"F{row}:F{row + 2}", r1="A2"))
    row += 4
    rich = CellRichText([" bold start", TextBlock(InlineFont(b=True, color="FF0000"), "red "), "tail "])
    ws.cell(row=row, column=1, value=rich)
    ws.cell(row=row, column=2, value=CellRichText())
    ws.cell(row=row, column=3, value=CellRichText(["only"]))
    row += 1
    link = ws.cell(row=row, column=1, value="a link")
    link.hyperlink = "https://example.com/?a=1&b=<2>"
    ws.cell(row=row, column=2, value="inside").hyperlink = "#Other!A1"
    ws.cell(row=row, column=3).hyperlink = "https://example.com/empty"  # no value, no style
    styled_link = ws.cell(row=row, column=4)
    styled_link.hyperlink = "https://example.com/styled"
    styled_link.font = Font(underline="single")
    row += 1
    ws.cell(row=row, column=1, value=3).comment = Comment("a note", "someone")
    ws.cell(row=row, column=2).comment = Comment("on an empty cell", "someone")
    ws.cell(row=row, column=3, value="x").comment = Comment(" spaced <&> note ", "")
    row += 1
    thin = Side(style="thin")
    for column, fmt in enumerate(["0.00", "yyyy-mm-dd", "@", "General", '"text"0'], 1):
        cell = ws.cell(row=row, column=column, value=column * 1.5)
        cell.number_format = fmt
        cell.font = Font(bold=column % 2 == 0, italic=column % 3 == 0)
        cell.fill = PatternFill("solid", fgColor="FFFF00" if column % 2 else "00FF00")
        cell.border = Border(left=thin, bottom=thin)
        cell.alignment = Alignment(wrap_text=True)
    ws.cell(row=row + 1, column=2).font = Font(bold=True)  # styled, empty
    ws.cell(row=row + 1, column=3)  # neither value nor style: not written
    ws.cell(row=row + 1, column=16384, value="XFD")
    row += 3
    ws.row_dimensions[row].height = 30  # a row with attributes and no cell
    ws.row_dimensions[row + 1].hidden = True
    ws.row_dimensions[row + 1].outlineLevel = 2
    ws.cell(row=row + 1, column=1, value="hidden row")
    ws.row_dimensions[row + 2].font = Font(italic=True)  # a styled empty row
    ws.row_dimensions[row + 3].height = 12.75
    ws.cell(row=row + 3, column=2, value=1)
    ws.column_dimensions["A"].width = 30
    ws.column_dimensions["C"].hidden = True
    ws.column_dimensions.group("E", "G", outline_level=1)
    ws.column_dimensions["J"].font = Font(color="FF0000")  # a styled column: its style joins the book's
    ws.column_dimensions["K"].width = 0  # min and max alone: no <col>
    ws.column_dimensions["L"].bestFit = True
    row += 5
    ws.cell(row=row, column=1, value="merged").font = Font(bold=True)
    ws.merge_cells(start_row=row, start_column=1, end_row=row + 1, end_column=3)
    ws.merge_cells("E1:E1")  # one cell: written "E1"
    ws.merge_cells("AA30:AC40")
    ws.cell(row=row, column=1).border = Border(top=thin, bottom=thin, left=thin, right=thin)
    ws.freeze_panes = "B2"
    ws.auto_filter.ref = "A1:C5"
    wb.create_sheet("Other")["A1"] = "second sheet"
    wb.create_sheet("Empty")  # no rows at all
    many = wb.create_sheet("Many")
    for r in range(1, 60):
        many.append([r, r / 7, f"t{r}", f"=A{r}*2", None, True])
    return wb


@pytest.mark.parametrize("options", [{}, {"iso_dates": True}, {"epoch_1904": True}],
                         ids=["default", "iso_dates", "1904"])
def test_a_hostile_book_is_written_as_openpyxl_writes_it(options):
    theirs, ours = _both(lambda: _hostile(**options))
    _assert_same(theirs, ours)
    sheet = ours["xl/worksheets/sheet1.xml"]
    # (the book does reach the branches: rich text, preserved spaces, a data table, comments)
    for fragment in (b"<is><r>", b'xml:space="preserve"', b't="dataTable"', b't="array"', b"<v></v>",
                     b"<row r=", b'customHeight="1"'):
        assert fragment in sheet, fragment
    assert "xl/comments/comment1.xml" in ours


def _engine_copy() -> openpyxl.Workbook:
    """What the engine's copy holds (calc/engines/formualizer/prepare.py, cells.py): Excel's
    empty text as rich text, formulas, a sheet name to escape (from the engine copy's writer
    this module replaced)."""
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
    ws["B2"].font = Font(bold=True)
    ws["C2"] = ""
    ws["C2"].font = Font(italic=True)
    ws.row_dimensions[3].height = 30
    ws.row_dimensions[2].hidden = True
    for row in range(4, 40):
        ws.cell(row=row, column=1, value=f"=A{row - 1}+1").font = Font(bold=row % 2 == 0)
    wb.create_sheet("Empty").sheet_properties.tabColor = "FF0000"
    return wb


def test_the_engine_s_copy_is_written_as_openpyxl_writes_it():
    theirs, ours = _both(_engine_copy)
    _assert_same(theirs, ours)
    sheet = ours["xl/worksheets/sheet1.xml"].decode("ascii")
    assert "caf&#233; &#8230; &#128512; a&#13;\nb\tc" in sheet  # (what lxml writes: ASCII)
    assert '<t xml:space="preserve"> padded text </t>' in sheet
    with zipfile.ZipFile(io.BytesIO(xlsx_writer.to_bytes(_engine_copy()))) as package:
        assert STAMPS.sub(b"", package.read("docProps/core.xml")) == theirs["docProps/core.xml"]


def test_a_value_the_writer_refuses_is_refused_alike():
    def bad(value: object, data_type: str) -> Callable[[], openpyxl.Workbook]:
        def build() -> openpyxl.Workbook:
            wb = openpyxl.Workbook()
            cell = wb.active["A1"]
            cell._value, cell.data_type = value, data_type  # past openpyxl's own checks
            return wb
        return build

    cases = [("a\x01b", "s"), ("\ud800", "s"), ("=\x02", "f"), (datetime(2026, 1, 1, tzinfo=UTC), "d")]
    buffers = []  # (kept open until the failed saves' archives are collected)
    for value, data_type in cases:
        build = bad(value, data_type)
        buffers += [io.BytesIO(), io.BytesIO()]
        with pytest.raises(Exception) as theirs:
            build().save(buffers[-2])
        with pytest.raises(Exception) as ours:
            xlsx_writer.write(build(), buffers[-1])
        assert (type(ours.value), str(ours.value)) == (type(theirs.value), str(theirs.value))
        del theirs, ours
    gc.collect()


@functools.cache
def _every_character() -> str:
    """Every character lxml writes (it refuses the rest), each between two plain letters."""
    from lxml.etree import Element

    element = Element("v")

    def written(first: int, last: int) -> list[int]:  # of first..last-1 (halved where one is refused)
        try:
            element.text = "".join(map(chr, range(first, last)))
        except (ValueError, UnicodeEncodeError):
            if last - first == 1:
                return []
            middle = (first + last) // 2
            return written(first, middle) + written(middle, last)
        return list(range(first, last))

    return "".join(f"a{chr(n)}" for n in written(0, 0x110000))


def test_text_and_attributes_are_escaped_as_libxml2_escapes_them():
    from lxml.etree import xmlfile

    every = _every_character()
    out = io.BytesIO()
    with xmlfile(out) as xf:  # as openpyxl writes: no encoding
        with xf.element("v", {"a": every}):
            xf.write(every)
    assert out.getvalue() == f'<v a="{xlsx_writer._attribute(every)}">{xlsx_writer._text(every)}</v>'.encode("ascii")
    for refused in ("\x00", "\x1f", "\ufffe", "\uffff", "\ud800", "\udfff"):
        with pytest.raises((ValueError, UnicodeEncodeError)):
            xlsx_writer._text(f"ok{refused}")
        with pytest.raises((ValueError, UnicodeEncodeError)):
            xlsx_writer._attribute(refused)


def test_rich_text_of_every_character_is_written_as_openpyxl_writes_it():
    every = _every_character()

    def build() -> openpyxl.Workbook:
        wb = openpyxl.Workbook()
        wb.active["A1"] = CellRichText([every[:40000], TextBlock(InlineFont(i=True), every[40000:80000])])
        wb.active["A2"] = every[80000:112000]  # inline text (a cell holds at most 32,767 characters)
        wb.active["A3"] = "=" + every[112000:120000]
        wb.active["A4"].value = every[120000:150000]
        wb.active["A4"].data_type = "e"
        return wb

    _assert_same(*_both(build))


def _books() -> list[Path]:
    found = sorted(CORPUS.glob("source/*.xlsx")) + sorted(CORPUS.glob("reference/*.xlsx"))
    found += sorted(SHARED.glob("models/*.xlsx"))
    return found


@pytest.mark.parametrize("path", _books(), ids=lambda p: p.name)
def test_a_book_read_back_is_written_as_openpyxl_writes_it(path):
    theirs, ours = _both(lambda: openpyxl.load_workbook(path, keep_vba=False, keep_links=True))
    _assert_same(theirs, ours)


def test_calc_saves_through_the_writer_only_with_an_openpyxl_it_reproduces():
    assert openpyxl.__version__ in xlsx_writer.REPRODUCED, (
        f"openpyxl {openpyxl.__version__} is installed; calc/xlsx_writer.py reproduces "
        f"{xlsx_writer.REPRODUCED}: with this one calc saves through openpyxl's own (slower) writer. "
        "If the comparisons above pass, add the version to REPRODUCED; if not, update the writer")


@pytest.mark.parametrize("ref", [CellRange("E1:E1"), CellRange("AA30:AC40"), CellRange("H50:I51", title="Other sheet"),
                                 CellRange(min_col=2, min_row=3, max_col=2, max_row=3)], ids=str)
def test_a_merged_range_is_written_as_openpyxl_writes_it(ref: CellRange) -> None:
    from openpyxl.worksheet.merge import MergeCell

    assert xlsx_writer._merged_ref(ref) == MergeCell(str(ref)).ref


@pytest.mark.parametrize("value", [True, False, 0, 1, -7, 2**53 + 1, 10**20, 0.5, -0.0, 1e300, 1 / 3,
                                   float("nan"), float("inf"), -float("inf"), "", "12.5", "text",
                                   Decimal("1.25"), None, datetime(2024, 2, 29, 12, 30), numpy.float64(2.5)])
def test_a_dimension_s_value_is_written_as_openpyxl_s_safe_string_writes_it(value):
    from openpyxl.compat import safe_string

    assert xlsx_writer._safe_string(value) == safe_string(value)


def test_a_row_s_and_a_column_s_attributes_are_read_as_openpyxl_reads_them():
    book = openpyxl.Workbook()
    ws = book.active
    ws.row_dimensions[2].height = 31.5
    ws.row_dimensions[3].hidden = True
    ws.row_dimensions[3].outlineLevel = 2
    ws.row_dimensions[4].font = Font(bold=True)
    ws.row_dimensions[5].thickBot = True
    ws.column_dimensions["B"].width = 20.25
    ws.column_dimensions["C"].bestFit = True
    ws.column_dimensions["D"].hidden = True
    ws.column_dimensions["E"].outlineLevel = 1
    ws.column_dimensions["F"].fill = PatternFill("solid", fgColor="FFFF00")
    ws.column_dimensions.group("G", "H", hidden=True)
    dimensions = [*ws.row_dimensions.values(), *ws.column_dimensions.values()]
    assert [xlsx_writer._dimension(d) for d in dimensions] == [dict(d) for d in dimensions]


def test_a_number_is_written_whole_where_openpyxl_s_16_digits_change_it(tmp_path):
    """Each number reads back as the same double (Excel writes formulas_test.xlsx EXTRA!E64
    as -0.39999999999999947; openpyxl's "%.16g" writes -0.3999999999999995, another double);
    where 16 digits hold it, the text is openpyxl's ("0.1", not repr's 17 digits of 0.1+0.2)."""
    numbers = [-0.39999999999999947, 1 / 7, 0.1 + 0.2, 5e-324, 1.7976931348623157e308, -2.2250738585072014e-308,
               12345678901234567, 2**53 + 1, 0.1, 3, -7.5, 1e20, 123456789.123456789]
    book = openpyxl.Workbook()
    for row, number in enumerate(numbers, 1):
        book.active.cell(row=row, column=1, value=number)
    xlsx_writer.save(book, tmp_path / "ours.xlsx")
    book.save(tmp_path / "openpyxl.xlsx")
    read = [row[0] for row in openpyxl.load_workbook(tmp_path / "ours.xlsx").active.iter_rows(values_only=True)]
    assert [float(value) for value in read] == [float(number) for number in numbers]
    theirs = [row[0] for row in openpyxl.load_workbook(tmp_path / "openpyxl.xlsx").active.iter_rows(values_only=True)]
    assert theirs[0] == -0.3999999999999995 != numbers[0]  # what openpyxl's own save changes
    with zipfile.ZipFile(tmp_path / "ours.xlsx") as package:
        sheet = package.read("xl/worksheets/sheet1.xml").decode()
    texts = re.findall(r"<v>([^<]*)</v>", sheet)
    assert texts[0] == "-0.39999999999999947" and texts[2] == "0.30000000000000004"
    assert texts[8:12] == ["0.1", "3", "-7.5", "1e+20"]  # openpyxl's own, where it holds the double
    assert texts[12] == "123456789.12345679"  # (openpyxl: 123456789.1234568, another double)


def test_local_names_behind_a_chart_sheet_keep_their_sheet(tmp_path):
    """A sheet's own name is numbered by the sheet's place among all the book's sheets
    (`localSheetId` indexes <sheets>, chart sheets too, as Excel writes it and openpyxl reads
    it). openpyxl 3.1.5 numbers it among the worksheets alone: behind a chart sheet the name
    moved to the sheet before, `=rate*2` was #NAME? and the copy could not be read back (POI's
    stress024.xlsx, a chart sheet between its worksheets)."""
    import xlsxwriter

    from rates_xl.cli import main

    source, out = tmp_path / "chart_sheet.xlsx", tmp_path / "out.xlsx"
    book = xlsxwriter.Workbook(str(source))  # (numbers a local name as Excel does)
    data = book.add_worksheet("Data")
    for row in range(3):
        data.write(row, 0, row + 1)
    chart = book.add_chart({"type": "bar"})
    chart.add_series({"values": "=Data!$A$1:$A$3"})
    book.add_chartsheet("Chart").set_chart(chart)
    calc = book.add_worksheet("Calc")
    calc.write("A1", 5)
    book.define_name("Calc!rate", "=Calc!$A$1")
    book.define_name("Data!rate", "=Data!$A$3")
    calc.write_formula("B1", "=rate*2")
    data.write_formula("B1", "=rate*2")
    book.close()
    assert main(["calc", str(source), "--full", "--no-progress", "-o", str(out)]) == 0
    with zipfile.ZipFile(out) as package:
        names = re.findall(rb'<definedName name="rate" localSheetId="(\d)">([^<]*)<', package.read("xl/workbook.xml"))
    assert sorted(names) == [(b"0", b"Data!$A$3"), (b"2", b"Calc!$A$1")]
    copy = openpyxl.load_workbook(out, data_only=True)
    assert (copy["Calc"]["B1"].value, copy["Data"]["B1"].value) == (10, 6)
    assert set(copy["Calc"].defined_names) == {"rate"}


def test_a_picture_type_the_platform_does_not_know_still_gets_its_copy(monkeypatch):
    """openpyxl takes each part's content type from the platform's table (`mimetypes`: a
    Linux machine's /etc/mime.types, Windows' registry), and Python 3.11 has no .webp of its
    own: a book with a WebP picture (Excel 365 inserts them; ClosedXML's picture-webp.xlsx) had
    no copy at all there, "KeyError: '.webp'". The table is made to lack it here, as such a
    machine's does: openpyxl's own save fails, calc's writes the type Excel writes."""
    import PIL.Image
    from openpyxl.drawing.image import Image
    from openpyxl.packaging.manifest import mimetypes as platform_types

    monkeypatch.delitem(platform_types.types_map[True], ".webp", raising=False)

    def book() -> openpyxl.Workbook:
        picture = io.BytesIO()
        PIL.Image.new("RGB", (4, 4), "red").save(picture, "WEBP")
        wb = openpyxl.Workbook()
        wb.active["A1"] = "=1+1"
        wb.active.add_image(Image(picture), "C3")
        return wb

    with pytest.raises(KeyError, match="webp"):
        book().save(io.BytesIO())
    data = xlsx_writer.to_bytes(book())
    types = _parts(data)["[Content_Types].xml"]
    assert b'<Default Extension="webp" ContentType="image/webp"/>' in types
    assert "xl/media/image1.webp" in _parts(data)
    read = openpyxl.load_workbook(io.BytesIO(data))
    assert len(read.active._images) == 1 and read.active["A1"].value == "=1+1"
