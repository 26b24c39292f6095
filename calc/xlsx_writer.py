"""openpyxl's save of a workbook, the same bytes, with each sheet's cells written faster and
each number exactly (`number_text`: openpyxl's 16 digits change a double that needs 17).

Both copies calc writes (the fast engine's, calc/engines/formualizer/prepare.py `_save`; the
values-frozen copy, calc/frozen.py) go through `save`: openpyxl's own `save_workbook` with one
step replaced, the `<sheetData>` of each sheet (`WorksheetWriter.write_rows`), and two written
as text too: its `<cols>` and `<mergeCells>` (`write_cols`, `write_merged_cells`: an lxml
element a column and a range parsed again, 0.007 s a save of formulas_test). openpyxl writes
every cell through lxml's incremental `xmlfile`, three or four Python context managers per cell,
and reads its coordinate and style id through properties (`openpyxl/cell/_writer.py`
`lxml_write_cell`): on formulas_test.xlsx (34,917 cells, 20 sheets) its `write_rows` took 0.52
of the two saves' 0.68 s under cProfile (`lxml_write_cell` 67,651 calls, 0.41 s), 0.14 s a
save without a profiler (0.05 s here, the whole save 0.19 -> 0.10 s). Building each row as an lxml tree (`SubElement`) is no faster (lxml
makes a Python proxy and a libxml2 node per element: 0.08 s against the contexts' 0.06 for the
same elements), so `_sheet_data` writes the markup as text, escaped as libxml2 escapes it when
lxml serialises without an encoding (ASCII, `&#N;` past it; `_text`, `_attribute`), into the
stream after openpyxl's own writer has flushed what it wrote before, one string a cell (its
column letters and style id found once). Each sheet is written straight into its part of the
archive (openpyxl writes a temporary file, copies it in and removes it), and its cells' order
and dimension come from one sort of their (row, column) pairs. A copy for this process only
(the engine's) may be stored rather than deflated (`compress=False`): the same parts. Written
by hand because no library writes openpyxl's model faster with the same bytes.

`_sheet_data` reproduces openpyxl 3.1.5's `WorksheetWriter.write_rows`, `write_row`,
`lxml_write_cell` and `_set_attributes` with lxml, the sheet writer's `write_cols` and
`write_merged_cells` theirs, the book writer's `write_data` its own (`REPRODUCED`). Two things
are written otherwise on purpose: a sheet's own defined names behind a chart sheet (`BookPart`:
openpyxl numbers them among the worksheets alone, which moves them to another sheet), and the
content type of a picture the platform's table does not know (`_register_types`: openpyxl fails
the whole save); and a link to a DDE or OLE feed, written back as the file held it
(calc/feed_links.py: openpyxl writes an empty link). With any other openpyxl,
`save` is openpyxl's own `Workbook.save`. tests/calc/test_xlsx_writer.py compares this writer's
parts with openpyxl's byte for byte (openpyxl's numbers written by `number_text`), on a hostile
book (every value type, rich and inline text, errors, dates, formulas, array and data table
formulas, hyperlinks, comments, styles, row and column dimensions, merged cells, every
character) and on real books, and fails on an openpyxl
this module was not checked against. Nothing of openpyxl is patched: other users of openpyxl in
the process write as before.
"""

from __future__ import annotations

import datetime
import io
import math
import os
import re
import stat
import time
from collections.abc import Callable, Iterable, Mapping
from typing import IO, TYPE_CHECKING, Protocol, cast
from zipfile import ZIP_DEFLATED, ZIP_STORED, ZipFile, ZipInfo

from rates_xl.calc import feed_links

if TYPE_CHECKING:
    from array import array

    from openpyxl import Workbook
    from openpyxl.cell.cell import Cell
    from openpyxl.worksheet.cell_range import CellRange
    from openpyxl.worksheet.dimensions import ColumnDimension
    from openpyxl.worksheet.worksheet import Worksheet

#: The openpyxl versions whose worksheet writer `_sheet_data` reproduces (checked byte for
#: byte by tests/calc/test_xlsx_writer.py). Another version saves through openpyxl's own.
REPRODUCED = ("3.1.5",)
#: What libxml2 writes as itself: in text, tab, newline and printable ASCII but & < >; in an
#: attribute's value, printable ASCII but " & < >. Anything else is escaped (`_escape`).
_TEXT_SPECIAL = re.compile("[^\t\n\x20-\x25\x27-\x3b\x3d\x3f-\x7f]")
_ATTRIBUTE_SPECIAL = re.compile("[^\x20\x21\x23-\x25\x27-\x3b\x3d\x3f-\x7f]")
_NAMED = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}
#: What lxml refuses to write (its `_utf8`: C0 controls but tab, newline and carriage return,
#: U+FFFE, U+FFFF, and the surrogates, which do not encode).
_REFUSED = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
#: The content types of the pictures Excel embeds, by extension, where the platform's table
#: (openpyxl's) lacks one (`_register_types`); anything else unknown is declared as bytes.
_CONTENT_TYPES = {".webp": "image/webp", ".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg",
                  ".jpeg": "image/jpeg", ".gif": "image/gif", ".bmp": "image/bmp", ".tif": "image/tiff",
                  ".tiff": "image/tiff", ".emf": "image/x-emf", ".wmf": "image/x-wmf", ".ico": "image/x-icon"}
_ANY_CONTENT = "application/octet-stream"
_PARTS_PER_WRITE = 4096  # the markup is written out after the row that passes this many pieces


class _Cell(Protocol):
    """What the row writer reads of an openpyxl cell (a `Cell`, or a `MergedCell`'s class
    defaults: no value, type "n", no comment, no hyperlink)."""

    row: int
    column: int
    coordinate: str
    data_type: str
    _value: object
    _style: array[int] | None  # (a StyleArray; openpyxl checks for None too: so does the writer)
    _comment: object
    hyperlink: object


def save(book: Workbook, target: str | os.PathLike[str] | IO[bytes], *, compress: bool = True) -> None:
    """`book.save(target)`: the same parts, byte for byte, written faster (openpyxl 3.1.5's
    `Workbook.save`, with the sheets' cells written by `_sheet_data`). Without `compress`, the
    parts are stored as they are, not deflated (the engine's copy, read back at once in this
    process: 0.01 s less a book of 1.5 MB of XML, and its reader has nothing to inflate)."""
    import openpyxl

    if openpyxl.__version__ not in REPRODUCED:
        book.save(target)
        return
    if book.read_only:
        raise TypeError("""Workbook is read-only""")
    if book.write_only and not book.worksheets:
        book.create_sheet()
    write(book, target, compression=ZIP_DEFLATED if compress else ZIP_STORED)


def to_bytes(book: Workbook, *, compress: bool = True) -> bytes:
    """`save` into memory: the file's bytes."""
    buffer = io.BytesIO()
    save(book, buffer, compress=compress)
    return buffer.getvalue()


def write(book: Workbook, target: str | os.PathLike[str] | IO[bytes], *, compression: int = ZIP_DEFLATED) -> None:
    """openpyxl 3.1.5's `save_workbook` with this module's sheet writer, whatever openpyxl is
    installed (the test compares it with openpyxl's own)."""
    archive = ZipFile(target, "w", compression, allowZip64=True)
    book.properties.modified = datetime.datetime.now(tz=datetime.UTC).replace(tzinfo=None)
    _book_writer()(book, archive).save()


class _Saving(Protocol):
    def save(self) -> None: ...


class _Manifest(Protocol):
    """What `_register_types` reads of openpyxl's Manifest: its list of default content types."""

    Default: list[object]


class _Flushing(Protocol):
    def flush(self) -> None: ...


_BOOK_WRITER: Callable[[Workbook, ZipFile], _Saving] | None = None


def _book_writer() -> Callable[[Workbook, ZipFile], _Saving]:
    """openpyxl's ExcelWriter with its sheets written by `_sheet_data` (classes made on first
    use: openpyxl is imported only by a save)."""
    global _BOOK_WRITER
    if _BOOK_WRITER is not None:
        return _BOOK_WRITER
    from openpyxl.drawing.spreadsheet_drawing import SpreadsheetDrawing
    from openpyxl.styles.stylesheet import write_stylesheet
    from openpyxl.utils import quote_sheetname
    from openpyxl.workbook._writer import WorkbookWriter
    from openpyxl.workbook.defined_name import DefinedName, DefinedNameList
    from openpyxl.worksheet._writer import WorksheetWriter
    from openpyxl.worksheet.dimensions import SheetDimension
    from openpyxl.writer.excel import ExcelWriter
    from openpyxl.writer.theme import theme_xml
    from openpyxl.xml.constants import (
        ARC_APP,
        ARC_CORE,
        ARC_CUSTOM,
        ARC_ROOT_RELS,
        ARC_STYLE,
        ARC_THEME,
        ARC_WORKBOOK,
        ARC_WORKBOOK_RELS,
        CPROPS_TYPE,
    )
    from openpyxl.xml.functions import tostring

    class SheetWriter(WorksheetWriter):
        def write_dimensions(self) -> None:
            # openpyxl's (Worksheet.calculate_dimension), from the cells' coordinates sorted
            # once for the rows too: sorting (row, column) pairs is 10 times faster than
            # sorting openpyxl's ((row, column), cell) items (8 ms on a sheet of 26,593 cells).
            cells = cast("Worksheet", self.ws)._cells
            self.coordinates = coordinates = sorted(cells)
            ref = "A1:A1"
            if coordinates:
                columns = [column for _, column in coordinates]
                first, last = (coordinates[columns.index(edge)] for edge in (min(columns), max(columns)))
                ref = (f"{_letters(cells[first].coordinate)}{coordinates[0][0]}:"
                       f"{_letters(cells[last].coordinate)}{coordinates[-1][0]}")
            self.xf.send(SheetDimension(ref).to_tree())

        def write_rows(self) -> None:
            xf = cast(_Flushing, self.xf.send(True))
            xf.flush()  # what openpyxl wrote so far, into self.out: the rows follow it
            _sheet_data(self, cast(IO[bytes], self.out))
            self.xf.send(None)

        def write_cols(self) -> None:
            # openpyxl's (DimensionHolder.to_tree, ColumnDimension.to_tree: each column's
            # attributes as openpyxl reads them, `dict(column)`), written as text rather than an
            # lxml element each (formulas_test: 542 columns, 5 ms a save).
            holder = cast("Worksheet", self.ws).column_dimensions
            columns: list[str] = []
            outlines: set[int | None] = set()
            for column in sorted(holder.values(), key=_column_start):
                attrs = _dimension(column)
                if attrs.keys() != {"min", "max"}:
                    outlines.add(column.outlineLevel)
                    columns.append(f"<col{_attributes(attrs)}/>")
            if outlines:
                holder.max_outline = max(outlines)  # type: ignore[type-var]  # (openpyxl's: None with a level fails there too)
            if columns:
                self._markup(f"<cols>{''.join(columns)}</cols>")

        def write_merged_cells(self) -> None:
            # openpyxl's, written as text: each range as `MergeCell(str(ref)).ref` gives it,
            # which is `ref.coord` for a range with no sheet title and whole bounds (every
            # range read from a file: 186 of formulas_test's, parsed again for each save).
            merged = cast("Worksheet", self.ws).merged_cells
            if merged:
                refs = [f'<mergeCell ref="{_attribute(_merged_ref(ref))}"/>' for ref in merged]
                self._markup(f'<mergeCells count="{len(refs)}">{"".join(refs)}</mergeCells>')

        def _markup(self, text: str) -> None:
            """Write `text` into the part after what openpyxl's writer wrote so far."""
            xf = cast(_Flushing, self.xf.send(True))
            xf.flush()
            cast(IO[bytes], self.out).write(text.encode("ascii"))
            self.xf.send(None)

    class BookPart(WorkbookWriter):
        def write_names(self) -> None:
            # openpyxl 3.1.5's, each sheet's own names (and the print area, print titles and
            # filter names it writes for a sheet) numbered by the sheet's place among all the
            # book's sheets, chart sheets too: `localSheetId` is an index into <sheets>, as
            # Excel and openpyxl's own reader (`WorkbookParser.assign_names`, `wb._sheets[idx]`)
            # read it. openpyxl numbers them among the worksheets alone, so behind a chart sheet
            # a name moved to the sheet before its own: POI's stress024.xlsx, Buy's names on
            # the chart "Selling price figure"; `=rate*2` on such a sheet became #NAME? in the
            # engine's copy, and the values-frozen copy could not be read back.
            # (tests/calc/test_xlsx_writer.py `test_local_names_behind_a_chart_sheet`)
            defined_names = list(self.wb.defined_names.values())
            for idx, sheet in enumerate(self.wb._sheets):  # type: ignore[attr-defined]
                if not hasattr(sheet, "defined_names"):  # a chart sheet: no names of its own
                    continue
                quoted = quote_sheetname(sheet.title)
                if sheet.defined_names:
                    names = sheet.defined_names.values()
                    for n in names:
                        n.localSheetId = idx
                    defined_names.extend(names)
                if sheet.auto_filter:
                    name = DefinedName(name="_FilterDatabase", localSheetId=idx, hidden=True)
                    name.value = f"{quoted}!{sheet.auto_filter}"
                    defined_names.append(name)
                if sheet.print_titles:
                    name = DefinedName(name="Print_Titles", localSheetId=idx)
                    name.value = sheet.print_titles
                    defined_names.append(name)
                if sheet.print_area:
                    name = DefinedName(name="Print_Area", localSheetId=idx)
                    name.value = sheet.print_area
                    defined_names.append(name)
            self.package.definedNames = DefinedNameList(definedName=defined_names)

    class BookWriter(ExcelWriter):
        def __init__(self, workbook: Workbook, archive: ZipFile) -> None:
            super().__init__(workbook, archive)
            # (its own method, not a subclass: openpyxl's serialisation reads the elements a
            # class declares itself, and a subclass of Manifest wrote no content types at all)
            manifest = self.manifest
            manifest._register_mimetypes = lambda filenames: _register_types(manifest, filenames)  # type: ignore[attr-defined]

        def write_data(self) -> None:
            # openpyxl 3.1.5's ExcelWriter.write_data, workbook.xml written by `BookPart`.
            from openpyxl.packaging.extended import ExtendedProperties

            archive = self._archive  # type: ignore[attr-defined]
            book = self.workbook
            archive.writestr(ARC_APP, tostring(ExtendedProperties().to_tree()))
            archive.writestr(ARC_CORE, tostring(book.properties.to_tree()))
            archive.writestr(ARC_THEME, book.loaded_theme if book.loaded_theme else theme_xml)
            props = book.custom_doc_props  # type: ignore[attr-defined]
            if len(props) >= 1:
                archive.writestr(ARC_CUSTOM, tostring(props.to_tree()))

                class CustomOverride:
                    path = "/" + ARC_CUSTOM  # PartName
                    mime_type = CPROPS_TYPE  # ContentType

                self.manifest.append(CustomOverride())
            self._write_worksheets()  # type: ignore[attr-defined]
            self._write_chartsheets()  # type: ignore[attr-defined]
            self._write_images()  # type: ignore[attr-defined]
            self._write_charts()  # type: ignore[attr-defined]
            feed_links.write_links(book, archive, self.manifest)  # (a DDE or OLE link written back too)
            archive.writestr(ARC_STYLE, tostring(write_stylesheet(book)))
            writer = BookPart(book)
            archive.writestr(ARC_ROOT_RELS, writer.write_root_rels())
            archive.writestr(ARC_WORKBOOK, writer.write())
            archive.writestr(ARC_WORKBOOK_RELS, writer.write_rels())
            self._merge_vba()  # type: ignore[attr-defined]
            self.manifest._write(archive, book)  # type: ignore[attr-defined]

        def write_worksheet(self, ws: Worksheet) -> None:
            # openpyxl 3.1.5's ExcelWriter.write_worksheet, the sheet written straight into its
            # part of the archive, not into a temporary file copied in and removed (0.5 ms a
            # sheet); the part's header is the one openpyxl's ZipFile.write gives that file
            # (ZipInfo.from_file of a file made by mkstemp: a regular file, mode 0600).
            if self.workbook.write_only:  # (its rows are written already)
                super().write_worksheet(ws)
                return
            ws._drawing = SpreadsheetDrawing()  # type: ignore[attr-defined]
            ws._drawing.charts = ws._charts  # type: ignore[attr-defined]
            ws._drawing.images = ws._images  # type: ignore[attr-defined]
            archive = cast(ZipFile, self._archive)  # type: ignore[attr-defined]
            part = ZipInfo(ws.path[1:], time.localtime(time.time())[:6])
            part.external_attr = (stat.S_IFREG | 0o600) << 16
            part.compress_type = archive.compression
            with archive.open(part, "w") as out:
                writer = SheetWriter(ws, out)
                writer.write()
            ws._rels = writer._rels  # type: ignore[attr-defined]
            self.manifest.append(ws)

    _BOOK_WRITER = BookWriter
    return BookWriter


def _register_types(manifest: _Manifest, filenames: list[str]) -> None:
    """openpyxl 3.1.5's `Manifest._register_mimetypes`, an extension its table lacks given the
    type Excel writes for it. openpyxl's table is the platform's (`mimetypes` reads
    /etc/mime.types or Windows' registry), so a book with a WebP picture, which Excel 365
    inserts, had no copy at all on a machine whose table lacks .webp ("KeyError: '.webp'":
    Python 3.11 has none of its own; ClosedXML's picture-webp.xlsx)."""
    from openpyxl.packaging.manifest import FileExtension
    from openpyxl.packaging.manifest import mimetypes as openpyxl_types

    known = openpyxl_types.types_map[True]
    for name in filenames:
        extension = os.path.splitext(name)[-1]
        if extension:
            content_type = known.get(extension) or _CONTENT_TYPES.get(extension.lower(), _ANY_CONTENT)
            manifest.Default.append(FileExtension(extension[1:], content_type))


def _escape(text: str, special: re.Pattern[str]) -> str:
    """`text` as libxml2 writes it (in text or in an attribute's value: `special`), or lxml's
    own error for a character it refuses."""
    if special.search(text) is None:
        return text
    if _REFUSED.search(text):
        from lxml.etree import Element

        Element("v").text = text  # lxml's own ValueError (or UnicodeEncodeError: a surrogate)
    return special.sub(_reference, text)


def _reference(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or f"&#{ord(char)};"


def _text(text: str) -> str:
    return _escape(text, _TEXT_SPECIAL)


def _attribute(text: str) -> str:
    return _escape(text, _ATTRIBUTE_SPECIAL)


def _attributes(attrs: dict[str, str]) -> str:
    """` name="value"` for each attribute, in order."""
    return "".join([f' {name}="{_attribute(value)}"' for name, value in attrs.items()])


def _sheet_data(writer: object, out: IO[bytes]) -> None:
    """openpyxl 3.1.5's `WorksheetWriter.write_rows` (with `rows`, `write_row`,
    `lxml_write_cell` and `_set_attributes`), the markup written as text, one string a cell:
    every element openpyxl opens with `xf.element` closes as `<x></x>`, never `<x/>`.
    (`writer.coordinates`: the sheet's cells' (row, column), sorted.)"""
    from lxml.etree import tostring
    from openpyxl.cell.rich_text import CellRichText
    from openpyxl.comments.comment_sheet import CommentRecord
    from openpyxl.compat import safe_string
    from openpyxl.utils.datetime import to_excel, to_ISO8601
    from openpyxl.worksheet.formula import ArrayFormula, DataTableFormula

    ws = writer.ws  # type: ignore[attr-defined]
    coordinates: list[tuple[int, int]] = writer.coordinates  # type: ignore[attr-defined]
    book = ws.parent
    row_dimensions = ws.row_dimensions
    cells: dict[tuple[int, int], _Cell] = ws._cells
    comments, links = ws._comments, ws._hyperlinks
    iso_dates, epoch = book.iso_dates, book.epoch
    styles = book._cell_styles
    style_ids: dict[bytes, str] = {}  # a style array's contents -> ' s="its index"', "" unstyled
    letters: dict[int, str] = {}
    type_attributes = {"s": ' t="inlineStr"', "f": ""}  # a cell's data type -> its t attribute
    special = _TEXT_SPECIAL.search
    plain_errors: set[str] = set()  # the error values written so far that need no escape
    isfinite = math.isfinite
    # openpyxl's `rows`: each row that holds cells, and each a row dimension names (empty or
    # not), in order; the dimensioned rows are merged in as the cells' rows pass them.
    dimensioned = sorted(row_dimensions)
    next_dimensioned, dimensions = 0, len(dimensioned)
    parts = ["<sheetData>"]
    current = None
    here = ""  # the current row's number, as text
    for (row_idx, column), cell in zip(coordinates, map(cells.__getitem__, coordinates), strict=True):
        if row_idx != current:
            if current is not None:
                parts.append("</row>")
                if len(parts) > _PARTS_PER_WRITE:
                    out.write("".join(parts).encode("ascii"))
                    parts.clear()
            while next_dimensioned < dimensions and dimensioned[next_dimensioned] <= row_idx:
                if dimensioned[next_dimensioned] < row_idx:  # a row with no cells
                    parts.append(_row(dimensioned[next_dimensioned], row_dimensions) + "</row>")
                next_dimensioned += 1
            current = row_idx
            here = f"{row_idx}"
            parts.append(_row(row_idx, row_dimensions))
        comment = cell._comment
        if comment is not None:
            comments.append(CommentRecord.from_cell(cast("Cell", cell)))
        style = cell._style
        s = ""
        if style is not None:
            shape = style.tobytes()
            s = style_ids.get(shape)  # type: ignore[assignment]
            if s is None:
                s = style_ids[shape] = f' s="{styles.add(style)}"' if any(style) else ""
        value = cell._value
        if value is None and not s and not comment:
            continue
        letter = letters.get(column)
        if letter is None:
            letter = letters[column] = _letters(cell.coordinate)  # (openpyxl's, once a column)
        data_type = cell.data_type
        t = type_attributes.get(data_type)
        if t is None:
            t = type_attributes[data_type] = f' t="{_attribute(data_type)}"'
        if data_type == "d":
            if hasattr(value, "tzinfo") and value.tzinfo is not None:
                raise TypeError("Excel does not support timezones in datetimes. "
                                "The tzinfo in the datetime/time object must be set to None.")
            if iso_dates and not isinstance(value, datetime.timedelta):
                value = to_ISO8601(value)
            else:
                t = ' t="n"'
                value = to_excel(value, epoch)
        # (`cell.hyperlink`: a Cell's property reads its `_hyperlink` slot; a MergedCell has no
        # such slot, its `hyperlink` is None)
        link = getattr(cell, "_hyperlink", None)
        if link:
            links.append(link)
        # The cells of most books, each written at once as the general path below writes it:
        # an error value, a number, an empty styled cell, text, a formula, a boolean
        # (formulas_test: 13,599 errors, 8,544 floats and 1,924 ints, 5,566 empty, 3,946 texts,
        # 1,338 booleans; its prepared copy 12,844 formulas).
        if data_type == "e" and type(value) is str and value:
            if value not in plain_errors:  # (a book's few error values, each searched once)
                if special(value) is not None:
                    value = _text(value)
                else:
                    plain_errors.add(value)
            parts.append(f'<c r="{letter}{here}"{s}{t}><v>{value}</v></c>')
            continue
        if data_type == "n" and (type(value) is float or type(value) is int):
            # (`number_text`; nothing for NaN and infinities, as openpyxl)
            parts.append(f'<c r="{letter}{here}"{s}{t}><v>{number_text(value)}</v></c>' if isfinite(value)
                         else f'<c r="{letter}{here}"{s}{t}><v></v></c>')
            continue
        if value is None or value == "":
            parts.append(f'<c r="{letter}{here}"{s}{t}></c>')
            continue
        if type(value) is str:
            if data_type == "s":
                space = ' xml:space="preserve"' if value != value.strip() else ""
                parts.append(f'<c r="{letter}{here}"{s}{t}><is><t{space}>'
                             f'{value if special(value) is None else _text(value)}</t></is></c>')
                continue
            if data_type == "f":  # (the common formula: no array, no table)
                parts.append(f'<c r="{letter}{here}"{s}{t}><f>'
                             f'{value[1:] if special(value) is None else _text(value[1:])}</f><v></v></c>')
                continue
        elif data_type == "b" and type(value) is bool:
            parts.append(f'<c r="{letter}{here}"{s}{t}><v>{"1" if value else "0"}</v></c>')
            continue
        markup = f'<c r="{letter}{here}"{s}{t}>'
        if data_type == "f":
            formula: dict[str, str] = {}
            if isinstance(value, ArrayFormula):
                formula = dict(value)
                value = value.text
            elif isinstance(value, DataTableFormula):
                formula = dict(value)
                value = None
            markup += f"<f{_attributes(formula)}>" if formula else "<f>"
            if value is not None and not formula.get("t") == "dataTable":
                text = value[1:]  # type: ignore[index]
                markup += text if special(text) is None else _text(text)
                value = None
            markup += "</f>"
        if data_type == "s":
            if isinstance(value, CellRichText):
                markup += tostring(value.to_tree()).decode("ascii")
            elif isinstance(value, str):
                space = ' xml:space="preserve"' if value != value.strip() else ""
                markup += f"<is><t{space}>{_text(value)}</t></is>"
            else:
                markup += "<is></is>"
        elif value is None:
            markup += "<v></v>"
        elif type(value) is float or type(value) is int:
            markup += f"<v>{number_text(value)}</v>" if math.isfinite(value) else "<v></v>"
        elif type(value) is str:
            markup += f"<v>{value if special(value) is None else _text(value)}</v>"
        elif type(value) is bool:
            markup += "<v>1</v>" if value else "<v>0</v>"
        else:
            markup += f"<v>{_text(safe_string(value))}</v>"
        parts.append(markup + "</c>")
    if current is not None:
        parts.append("</row>")
    parts.extend(_row(row_idx, row_dimensions) + "</row>" for row_idx in dimensioned[next_dimensioned:])
    parts.append("</sheetData>")
    out.write("".join(parts).encode("ascii"))


def _column_start(column: ColumnDimension) -> int:
    """openpyxl's order of a sheet's columns (DimensionHolder.to_tree's `sorter`)."""
    column.reindex()
    return cast(int, column.min)


def _merged_ref(ref: CellRange) -> str:
    """What openpyxl writes of a merged range (`MergeCell(str(ref)).ref`)."""
    if not ref.title and all(type(bound) is int for bound in (ref.min_col, ref.min_row, ref.max_col, ref.max_row)):
        return ref.coord  # (what parsing str(ref), that is ref.coord, again gives)
    from openpyxl.worksheet.merge import MergeCell

    return MergeCell(str(ref)).ref


def _letters(coordinate: str) -> str:
    """A cell's column letters, as openpyxl writes them: its coordinate's."""
    return coordinate.rstrip("0123456789")


def _row(row_idx: int, row_dimensions: Mapping[int, Iterable[tuple[str, str]]]) -> str:
    """A row's start tag: its number, and its dimension's attributes (openpyxl's `write_row`)."""
    dimension = row_dimensions.get(row_idx)
    if dimension is None:
        return f'<row r="{row_idx}">'
    attrs = {"r": f"{row_idx}"}
    attrs.update(_dimension(dimension))
    return f"<row{_attributes(attrs)}>"


def _dimension(dimension: Iterable[tuple[str, str]]) -> dict[str, str]:
    """`dict(dimension)`: a row's or a column's attributes as openpyxl 3.1.5 writes them
    (`Dimension.__iter__`: each of its `__fields__` that is set, as `safe_string` writes it),
    without a generator and with `_safe_string` (formulas_test: 1,800 rows and columns a save)."""
    found = {}
    for key in dimension.__fields__:  # type: ignore[attr-defined]
        value = getattr(dimension, key, None)
        if value:
            found[key] = _safe_string(value)
    return found


def number_text(value: float) -> str:
    """A cell's number as Excel writes it: the shortest text that reads back as the same
    double. openpyxl's `safe_string` (and XlsxWriter) write "%.16g", which changes a double
    that needs 17 digits: formulas_test.xlsx EXTRA!E64, -0.39999999999999947 as Excel wrote it,
    became -0.3999999999999995 in the engine's copy, and `TRUNC(E64,1)` -0.4 where Excel has
    -0.3 (tests/calc/test_xlsx_writer.py). The engine's copy must hold the file's doubles, and
    the frozen copy the computed ones; "%.16g" is kept where it holds the double (most
    numbers), so the bytes are openpyxl's there."""
    text = "%.16g" % value  # noqa: UP031
    if float(text) == value:
        return text
    return repr(float(value))


def _safe_string(value: object) -> str:
    """openpyxl's `safe_string`, its common cases (text, a boolean, a number) without its
    `isinstance` of a tuple of numeric types and its calls."""
    kind = value.__class__
    if kind is str:
        return cast(str, value)
    if kind is bool or kind is int or kind is float:
        number = cast(float, value)
        return "%.16g" % number if kind is not float or math.isfinite(number) else ""  # noqa: UP031
    from openpyxl.compat import safe_string

    return safe_string(value)
