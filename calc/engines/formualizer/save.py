"""The engine's copy of the book as the bytes formualizer loads (prepare.py `_save`).

openpyxl's writer, but each worksheet's cells (its `<sheetData>`) written as text in one pass:
openpyxl writes every cell through lxml's incremental writer, an element opened and closed per
cell and per value (`openpyxl.cell._writer.lxml_write_cell`), 0.19 of the 0.49 CPU s
poi_StructuredRefs' preparation took (38,000 cells). Nothing here is a format of our own:
the text is what openpyxl writes, byte for byte (the same attributes in the same order, the
same escaping as lxml's: `&`, `<`, `>` and a carriage return in text; in attributes `"`, tabs
and line ends too), and the rest of the file is openpyxl's own. A sheet holding a cell this
writer does not write the way openpyxl does (a date, an array or data-table formula, a comment,
a hyperlink, a character XML cannot hold) is written by openpyxl's writer whole; rich text
(Excel's empty text, cells.py) is lxml's own serialisation of openpyxl's element.
bench/prepared_dump.py compares every part of the copy with openpyxl's, book by book.
"""

from __future__ import annotations

import datetime
import io
import re
import uuid
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Protocol, cast
from zipfile import ZIP_DEFLATED, ZipFile

from lxml.etree import tostring, xmlfile
from openpyxl.cell.rich_text import CellRichText
from openpyxl.compat import safe_string
from openpyxl.drawing.spreadsheet_drawing import SpreadsheetDrawing
from openpyxl.worksheet._writer import WorksheetWriter
from openpyxl.writer.excel import ExcelWriter

from rates_xl.errors import Internal

if TYPE_CHECKING:
    from openpyxl import Workbook
    from openpyxl.worksheet.worksheet import Worksheet

#: What lxml refuses to write (openpyxl's writer then raises): control characters, U+FFFE,
#: U+FFFF, lone surrogates.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_TEXT = re.compile("[&<>\r]")
_SPECIAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f&<>\r]")  # (in ASCII text: refused or escaped)
_TEXT_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;"}
_ATTRIBUTE = re.compile('[&<>"\t\n\r]')
_ATTRIBUTE_ESCAPES = {**_TEXT_ESCAPES, '"': "&quot;", "\t": "&#9;", "\n": "&#10;"}
#: Cell kinds written here (openpyxl's `data_type`): numbers, formulas, booleans, errors, text.
_PLAIN = frozenset({"n", "f", "b", "e", "s"})


class _Unwritten(Internal):
    """A cell this writer does not write: the sheet goes to openpyxl's writer whole."""


class _Cell(Protocol):
    """What `_rows` reads of an openpyxl cell (a merged one's too)."""

    _comment: object
    _value: object
    _style: Sequence[int] | None
    hyperlink: object
    data_type: str
    coordinate: str

    @property
    def style_id(self) -> int: ...


def save(book: Workbook) -> bytes:
    """`book.save(...)` (openpyxl's `save_workbook`), each sheet's cells written as text."""
    if book.read_only or book.write_only:
        raise TypeError("the engine's copy is an ordinary workbook")
    buffer = io.BytesIO()
    with ZipFile(buffer, "w", ZIP_DEFLATED, allowZip64=True) as archive:
        book.properties.modified = datetime.datetime.now(tz=datetime.UTC).replace(tzinfo=None)
        _BookWriter(book, archive).save()
    return buffer.getvalue()


class _Sheet(Protocol):
    """What `write_worksheet` sets and reads of an openpyxl worksheet (openpyxl's own names)."""

    _drawing: SpreadsheetDrawing
    _charts: list[object]
    _images: list[object]
    _rels: object
    path: str


class _BookWriter(ExcelWriter):
    def __init__(self, book: Workbook, archive: ZipFile) -> None:
        super().__init__(book, archive)
        self.zip = archive

    def write_worksheet(self, ws: Worksheet) -> None:
        """openpyxl's, with `_SheetWriter` into memory (no temporary file)."""
        sheet = cast(_Sheet, ws)
        sheet._drawing = SpreadsheetDrawing()
        sheet._drawing.charts = sheet._charts
        sheet._drawing.images = sheet._images
        out = io.BytesIO()
        writer: WorksheetWriter = _SheetWriter(ws, out=out)
        writer.write()
        data = cast(_SheetWriter, writer).spliced(out.getvalue())
        if data is None:  # (the marker is not where it was put: openpyxl's writer)
            out = io.BytesIO()
            writer = WorksheetWriter(ws, out=out)
            writer.write()
            data = out.getvalue()
        sheet._rels = cast(_Sheet, writer)._rels
        self.zip.writestr(sheet.path[1:], data)
        self.manifest.append(ws)


class _SheetWriter(WorksheetWriter):
    """openpyxl's sheet writer; its rows written as text (`_rows`), put in the place of a
    marker lxml writes where they go."""

    def write_rows(self) -> None:
        self.cells: str | None = None
        try:
            self.cells = _rows(self)
        except _Unwritten:
            super().write_rows()
            return
        self.marker = uuid.uuid4().hex
        xf = cast(xmlfile, self.xf.send(True))
        with xf.element("sheetData"):
            xf.write(self.marker)
        self.xf.send(None)

    def spliced(self, data: bytes) -> bytes | None:
        """The sheet's XML (`data`) with the rows in place (None: the marker is not found once)."""
        if self.cells is None:
            return data
        marker = f"<sheetData>{self.marker}</sheetData>".encode()
        if data.count(marker) != 1:
            return None
        return data.replace(marker, f"<sheetData>{self.cells}</sheetData>".encode())


def _text(value: str) -> str:
    if value.isascii() and not _SPECIAL.search(value):
        return value  # (most text: nothing to escape)
    return _escaped(value, _TEXT, _TEXT_ESCAPES)


def _attribute(value: str) -> str:
    return _escaped(value, _ATTRIBUTE, _ATTRIBUTE_ESCAPES)


def _escaped(value: str, special: re.Pattern[str], escapes: dict[str, str]) -> str:
    """`value` as lxml writes it in openpyxl's sheets: `special` characters escaped, and (no
    encoding given: ASCII) each other character as its decimal reference (`&#8230;`,
    `&#128512;`); _Unwritten for one lxml refuses."""
    if _NOT_XML.search(value):
        raise _Unwritten
    if special.search(value):
        value = special.sub(lambda m: escapes[m.group()], value)
    return value if value.isascii() else value.encode("ascii", "xmlcharrefreplace").decode("ascii")


def _rows(writer: WorksheetWriter) -> str:
    """The `<row>` elements openpyxl's `write_row` and `lxml_write_cell` write for the sheet
    (its styles numbered in the same order); _Unwritten for a cell they alone write."""
    dims = cast("Worksheet", writer.ws).row_dimensions
    styles: dict[int, int] = {}  # id(a cell's style array) -> its number (one per array: hashed once)
    out: list[str] = []
    add = out.append
    rows = cast(Iterable[tuple[int, list[_Cell]]], writer.rows())
    for row_idx, row in rows:
        attrs = {"r": f"{row_idx}"}
        attrs.update(dims.get(row_idx, {}))
        add("<row" + "".join(f' {key}="{_attribute(value)}"' for key, value in attrs.items()) + ">")
        for cell in row:
            if cell._comment is not None or cell.hyperlink:
                raise _Unwritten
            value = cell._value
            style = cell._style
            styled = style is not None and any(style)  # (StyleableObject.has_style)
            if value is None and not styled:
                continue
            kind = cell.data_type
            if kind not in _PLAIN:
                raise _Unwritten
            head = f'<c r="{cell.coordinate}"'
            if styled:
                number = styles.get(id(style))
                if number is None:  # (the first cell with it numbers it, in openpyxl's order)
                    number = styles[id(style)] = cell.style_id
                head += f' s="{number}"'
            if kind == "s":
                head += ' t="inlineStr"'
            elif kind != "f":
                head += f' t="{kind}"'
            if value is None or value == "":
                add(head + "></c>")
            elif kind == "f":
                if not isinstance(value, str):
                    raise _Unwritten
                add(f"{head}><f>{_text(value[1:])}</f><v></v></c>")
            elif kind == "s":
                if isinstance(value, CellRichText):  # (Excel's empty text: cells.py `empty_text`)
                    add(f"{head}>{tostring(value.to_tree()).decode('ascii')}</c>")
                    continue
                if not isinstance(value, str):
                    raise _Unwritten
                space = ' xml:space="preserve"' if value != value.strip() else ""
                add(f"{head}><is><t{space}>{_text(value)}</t></is></c>")
            elif value.__class__ is float or value.__class__ is int:  # ("%.16g", or "" for nan: nothing to escape)
                add(f"{head}><v>{safe_string(value)}</v></c>")
            else:
                add(f"{head}><v>{_text(safe_string(value))}</v></c>")
        add("</row>")
    return "".join(out)
