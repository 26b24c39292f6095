"""openpyxl's read of a book's sheets, faster, keeping what it drops of each cell as it parses it.

calc needs two things of every `<c>` that openpyxl's model does not hold: the value the file
stored for a formula cell (Excel's answer: openpyxl keeps the formula and drops its `<v>`)
and the `cm` that marks a dynamic array (calc/package.py says why). calc/package.py reads
them in a pass of its own over each sheet part; inside `recording()`, openpyxl's own parse of
the sheets hands each row's `<c>` elements to `package.cell_parts` before it clears them, so
the sheets are parsed once for everything (formulas_test.xlsx: that second parse was 0.1 CPU s
of a 3.3 s run). The cells so kept go to `Package.keep`; a part openpyxl did not parse (none
in a book it reads whole) is still parsed by calc/package.py. What is kept is what openpyxl
reads as cells, the `<c>` children of each `<row>`: a `<c>` anywhere else in the XML is
not a cell of the book for openpyxl, and no longer for the stored values either.

Inside `recording()` the rows are also made into openpyxl's cells faster (`_Rows`): openpyxl
parses each `<c>` into a dict (`WorkSheetParser.parse_cell`, looking up its `<v>` and `<f>`
apart from the keeping's lookups, and its reference character by character) that
`WorksheetReader.bind_cells` then makes into a `Cell`; here one pass does both, with the
same cells, values, types and styles (tests/calc/test_stored_cells.py compares every cell of
every corpus and test book), and shared formulas are written out by calc/shared_formulas.py:
formulas_test.xlsx's `Book` took 0.30 CPU s, 0.21 so (load 11, `Book` alone, 3 runs each).
Every cell of a kind the fast path does not take (a date, inline text, a reference not
written as Excel writes it or off the sheet, a child of `<row>` that is not a `<c>`) goes
through openpyxl's own `parse_cell`.

Where a part's rows are written as Excel writes them (every sheet of the Excel-made corpus),
they are not parsed by openpyxl's XML parser at all: calc/sheet_xml.py reads their text and
`_Rows.read` makes the same cells from it (each cell of an uncommon kind as the element the
parser would have made, read by `_elements`); openpyxl's parser reads the rest of the part
(columns, merged cells, formatting ...) as before. formulas_test.xlsx's `Book`: 0.23 -> 0.20
CPU s.

openpyxl has no hook for this: while `recording()` is open in a thread, its
`WorksheetReader.bind_cells` (openpyxl 3.1.5's, `REPRODUCED`: its parser's `parse` hands every
`<row>` element, whole, to `parse_row` before it clears it, and the parser's source is the zip
part it reads) reads its rows with `_Rows`; in another thread, or outside it, openpyxl reads
as usual (a thread-local flag, as calc/merged_read.py does). With any other openpyxl
`recording()` keeps nothing and calc/package.py parses every sheet itself, as before.
"""

from __future__ import annotations

import io
import re
import threading
from array import array
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from string import ascii_uppercase
from typing import TYPE_CHECKING, Protocol, cast

from rates_xl.calc import sheet_xml
from rates_xl.calc.package import CELL_TAG, Kept, RawCell, cell_parts
from rates_xl.calc.shared_formulas import Template, translator
from rates_xl.errors import Internal
from rates_xl.functions.sheet import MAX_ROW, column_number

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

    from openpyxl import Workbook
    from openpyxl.styles.cell_style import StyleArray
    from openpyxl.worksheet._reader import WorkSheetParser, WorksheetReader
    from openpyxl.worksheet.worksheet import Worksheet

#: The openpyxl versions whose `WorksheetReader.bind_cells` and `WorkSheetParser.parse_row`
#: and `parse_cell` `_Rows` reproduces (tests/calc/test_stored_cells.py). Another version
#: keeps nothing and reads as openpyxl does.
REPRODUCED = ("3.1.5",)

_here = threading.local()
_lock = threading.Lock()
#: The characters a book's cells may show from its shared strings, each counted in every cell
#: that shows it: what its package may inflate to (calc/safezip.py). A string written once and
#: shown by many cells costs nothing to read but its length in every copy written (openpyxl
#: writes each cell's text in the cell): POI's poc-shared-strings.xlsx, 110 KB, shows one
#: string of 1 MB in 12,000 cells, and calc worked 3.5 minutes before failing to write a copy
#: past 2 GB. Excel holds at most 32,767 characters in a cell.
MAX_SHOWN_TEXT = 1 << 30


class TextBomb(Internal):
    """The book's cells show more text than MAX_SHOWN_TEXT (its message says how much); said by
    calc/book.py as a refusal. (Not a ValueError: openpyxl's reader wraps those in its own
    "invalid XML" one.)"""


_original: list[Callable[[WorksheetReader], None]] = []
_VALUE = CELL_TAG[:-1] + "v"
_FORMULA = CELL_TAG[:-1] + "f"
#: A `<row>`'s number, as Excel writes it: its first attribute (`_Rows._row_text`).
_ROW_NUMBER = re.compile(r' r="([1-9][0-9]{0,6})"')
#: A shared formula's first cell's `<f>` attributes as Excel writes them (its `si`).
_MASTER = re.compile(r' t="shared" ref="[^"]*"(?: ca="(?:1|0|true|false)")? si="([0-9]{1,9})"')
#: The types (`t`) of a cell `_Rows.read` makes itself (a date, inline text ... `_elements`).
_PLAIN = frozenset(("n", "s", "b", "str", "e"))
#: `StyleArray(styles[i])` without its Python `__new__` (which calls this with "i": the same array)
_new_array = cast("Callable[[type, str, object], StyleArray]", array.__new__)


class _Cell(Protocol):
    """What openpyxl 3.1.5's `Cell.__init__` sets (its slots; the stubs declare a few)."""

    parent: object
    _style: object
    row: int
    column: int
    _value: object
    data_type: str
    _hyperlink: None
    _comment: None


#: A parse_cell answer: row, column, value, data_type, style_id.
_Parsed = dict[str, object]


class _Rows:
    """A sheet parser's `parse_row` (openpyxl 3.1.5's `WorkSheetParser.parse_row` and
    `parse_cell`, and `WorksheetReader.bind_cells`' making of each cell) that puts each row's
    cells into the sheet itself, keeping each `<c>`'s `RawCell` in `cells`, and hands the
    parser's `parse` an empty row (bind_cells then binds nothing more)."""

    def __init__(self, parser: WorkSheetParser, ws: Worksheet, cells: list[RawCell]) -> None:
        from openpyxl.cell import Cell
        from openpyxl.styles.cell_style import StyleArray
        from openpyxl.worksheet import _reader

        self.parser, self.ws, self.cells = parser, ws, cells
        self._cell, self._style_array = Cell, StyleArray
        self._cast: Callable[[str], int | float] = vars(_reader)["_cast_number"]  # (not in the stubs)
        self._cells = cast("dict[tuple[int, int], object]", ws._cells)
        self._styles: list[StyleArray] = getattr(ws.parent, "_cell_styles")  # noqa: B009 (not in the stubs)
        self._templates: dict[str | None, Template] = {}  # shared formula (`si`) -> its copies
        self.shown = 0  # the characters of shared strings its cells show (MAX_SHOWN_TEXT)
        self._columns: dict[str, int] = {}  # a reference's letters -> its column
        # A `<row>`'s attributes after its number -> as read (`_row_text`), and whether a row
        # dimension is read for it (attributes other than `r`, `spans` and prefixed ones).
        self._rests: dict[str, tuple[dict[str, str], bool]] = {}

    def parse_row(self, row: Element) -> tuple[int, list[_Parsed]]:
        self._row(dict(row.attrib))
        self._elements(row)
        return self.parser.row_counter, []

    def _row(self, attrs: dict[str, str]) -> None:
        """A `<row>`'s attributes, as openpyxl's `parse_row` reads them."""
        parser = self.parser
        if "r" in attrs:
            try:
                parser.row_counter = int(attrs["r"])
            except ValueError:
                val = float(attrs["r"])
                if val.is_integer():
                    parser.row_counter = int(val)
                else:
                    raise ValueError(f"{attrs['r']} is not a valid row number") from None
        else:
            parser.row_counter += 1
        parser.col_counter = 0
        keys = {k for k in attrs if not k.startswith("{")}
        if keys - {"r", "spans"}:
            parser.row_dimensions[str(parser.row_counter)] = attrs

    def _row_text(self, text: str, namespaces: dict[str, str]) -> None:
        """`_row` of a `<row>`'s attributes as `sheet_xml.items` reads them: where its number
        comes first (` r="7"`, as Excel writes it), the rest (`spans`, `x14ac:dyDescent` ...,
        which a sheet's rows share) is read once for all the rows holding it."""
        match = _ROW_NUMBER.match(text)
        known = None if match is None else self._rests.get(rest := text[match.end():])
        if match is not None and known is None:
            attributes = sheet_xml.row_attributes(rest, namespaces)  # (raises as the whole would)
            if "r" not in attributes:  # (twice: the whole's error)
                plain = not {k for k in attributes if not k.startswith("{")} - {"spans"}
                known = self._rests[rest] = (attributes, plain)
        if match is None or known is None:
            self._row(sheet_xml.row_attributes(text, namespaces))
        elif known[1]:  # (`_row` of a row no row dimension is read for)
            self.parser.row_counter, self.parser.col_counter = int(match.group(1)), 0
        else:
            self._row({"r": match.group(1), **known[0]})

    def _elements(self, row: Iterable[Element]) -> None:
        """A row's `<c>` elements (openpyxl's parse) made into the sheet's cells."""
        parser = self.parser
        ws, kept, sheet_cells, styles = self.ws, self.cells, self._cells, self._styles
        date_formats, shared_strings, data_only = parser.date_formats, parser.shared_strings, parser.data_only
        cell_class, cast_number = self._cell, self._cast
        new, style_array = cast("Callable[[type], _Cell]", object.__new__), self._style_array
        shared_formulae, templates = parser.shared_formulae, self._templates
        for element in row:
            if element.tag != CELL_TAG:  # not a cell for us; openpyxl reads it as one
                self._bind(parser.parse_cell(element))
                continue
            kind = element.get("t", "n")
            v, f = element.find(_VALUE), element.find(_FORMULA)
            if (kind == "inlineStr" or v is not None or f is not None) and \
                    (raw := cell_parts(element, kind, v, f)) is not None:
                kept.append(raw)
            style = element.get("s")  # (openpyxl: `s` as an int when it is not "", 0 when absent)
            style_id = int(style) if style else 0
            text = None if v is None else v.text or None
            coordinate = element.get("r")
            if kind == "inlineStr" or kind == "d" or data_only or style == "" or \
                    (f is None and text is not None and kind == "n" and style_id in date_formats):
                place = None  # (a date's warning is openpyxl's own)
            elif coordinate:
                place = self._place(coordinate)
            else:
                place = (parser.row_counter, parser.col_counter + 1)
            if place is None:
                self._bind(parser.parse_cell(element))
                continue
            r, c = place
            parser.col_counter = c
            value: object = text
            if f is not None:
                kind = "f"
                if coordinate and f.get("t") == "shared" and (si := f.get("si")) in shared_formulae:
                    if (template := templates.get(si)) is None:
                        template = templates[si] = Template(shared_formulae[si])
                    value = template.at(r, c, coordinate)
                else:
                    value = parser.parse_formula(element)
            elif text is not None:
                if kind == "n":
                    value = cast_number(text)
                elif kind == "s":
                    value = shared_strings[int(text)]
                    self.shown += len(value)
                elif kind == "b":
                    value = bool(int(text))
                elif kind == "str":
                    kind = "s"
            # (Cell(ws, row=r, column=c, style_array=...) as openpyxl 3.1.5's Cell.__init__
            # sets it, without its calls: 1.2 -> 0.5 us a cell)
            cell = new(cell_class)
            cell.parent, cell._style, cell.row, cell.column = ws, style_array(styles[style_id]), r, c
            cell._value, cell.data_type, cell._hyperlink, cell._comment = value, kind, None, None
            sheet_cells[(r, c)] = cell

    def read(self, split: sheet_xml.Split) -> None:
        """The rows and cells of a part's `<sheetData>` (calc/sheet_xml.py: checked whole
        already), made into the sheet's cells as `_elements` makes them from openpyxl's
        parse: each cell read here is one `_elements` reads as it is (an ordinary value, an
        ordinary formula, a shared formula's copy, an array formula); every other is made into the element the
        parser would have made, and read by `_elements`."""
        parser, namespaces, unescape = self.parser, split.namespaces, sheet_xml.unescape
        ws, kept, sheet_cells, styles = self.ws, self.cells, self._cells, self._styles
        date_formats, shared_strings = parser.date_formats, parser.shared_strings
        cell_class, cast_number, columns = self._cell, self._cast, self._columns
        new, style_array, array_class = cast("Callable[[type], _Cell]", object.__new__), _new_array, self._style_array
        shared_formulae, templates = parser.shared_formulae, self._templates
        from openpyxl.worksheet.formula import ArrayFormula

        # (a row's cells share its number, and a sheet's cells a few styles: each read once)
        style_ids: dict[str | None, int] = {None: 0}
        last_digits, r = "", 0
        shown = 0
        for item in split.items:
            row, _ends, _end, coordinate, letters, digits, style, t, cm, formula, si, ref, array, attributes, \
                text, v, empty = item
            if coordinate is None or letters is None or digits is None:  # (read together: a cell's, or a row's start)
                self._row_text(row or "", namespaces)
                continue
            kind = "n" if t is None else t
            if (style_id := style_ids.get(style)) is None:
                style_id = style_ids[style] = int(style) if style else 0
            if v is not None:
                if "&" in v:
                    v = unescape(v)
            elif empty is not None:
                v = ""
            if digits != last_digits:
                last_digits, r = digits, int(digits)
            if (c := columns.get(letters)) is None:
                try:
                    c = columns[letters] = column_number(letters)
                except ValueError:  # past XFD: `_elements` (openpyxl) reads it
                    c = 0
            # A shared formula's first cell (`<f t="shared" ref=... si=...>`), read here as openpyxl's
            # `parse_formula` reads it; any other `<f>` with attributes is `_elements`'.
            master = None if attributes is None else _MASTER.fullmatch(attributes)
            if (attributes is not None and (master is None or master.group(1) in shared_formulae)) or \
                    r > MAX_ROW or not c or kind not in _PLAIN or (v and kind == "n" and formula is None and si is None
                                                                    and ref is None and attributes is None
                                                                    and style_id in date_formats):
                if ref is not None:  # (an array formula, as any other `<f>`)
                    attributes, text = f' t="array" ref="{ref}"', array
                self._elements((_element(coordinate, style, t, cm, formula, si, attributes, text, v),))
                continue
            value: object
            if formula is not None:
                kept.append((coordinate, kind, v, None, "", cm))
                kind, value = "f", "=" + unescape(formula) if "&" in formula else "=" + formula
            elif master is not None:
                kept.append((coordinate, kind, v, None, "shared", cm))
                kind, value = "f", "=" + unescape(text) if text else "="
                if value != "=":
                    shared_formulae[master.group(1)] = translator(value, coordinate)
            elif ref is not None:
                kept.append((coordinate, kind, v, None, "array", cm))
                kind, value = "f", ArrayFormula(ref=ref, text="=" + unescape(array or ""))  # (read with ref)
            elif si is not None:
                kept.append((coordinate, kind, v, None, "shared", cm))
                kind = "f"
                if si in shared_formulae:
                    if (template := templates.get(si)) is None:
                        template = templates[si] = Template(shared_formulae[si])
                    value = template.at(r, c, coordinate)
                else:
                    value = "="  # (a copy of a formula the part did not give)
            elif v is None:
                value = None
            else:
                kept.append((coordinate, kind, v, None, None, cm))
                if not v:
                    value = None
                elif kind == "n":
                    value = cast_number(v)
                elif kind == "s":
                    value = shared_strings[int(v)]
                    shown += len(value)
                elif kind == "b":
                    value = bool(int(v))
                else:
                    value = v
                    if kind == "str":
                        kind = "s"
            cell = new(cell_class)
            cell.parent, cell._style, cell.row, cell.column = ws, style_array(array_class, "i", styles[style_id]), r, c
            cell._value, cell.data_type, cell._hyperlink, cell._comment = value, kind, None, None
            sheet_cells[(r, c)] = cell
        self.shown += shown

    def _place(self, coordinate: str) -> tuple[int, int] | None:
        """(row, column) of a cell's `r` as openpyxl reads it (`coordinate_to_tuple`: the
        letters before the first digit, the number after), where it is written as Excel writes
        it (`B7`, on the sheet); None for anything else, which openpyxl's own `parse_cell`
        reads. (Not `functions.sheet.parse_cell`, whose cache would hold every cell's
        reference: 1 MB more at the peak of formulas_test's read.)"""
        digits = coordinate.lstrip(ascii_uppercase)
        if not (digits.isdigit() and digits.isascii()) or len(digits) == len(coordinate):
            return None
        row = int(digits)
        if not 0 < row <= MAX_ROW:  # (openpyxl reads rows without end)
            return None
        letters = coordinate[:-len(digits)]
        column = self._columns.get(letters)
        if column is None:
            try:
                column = self._columns[letters] = column_number(letters)
            except ValueError:  # past XFD (openpyxl reads columns to ZZZ)
                return None
        return row, column

    def _bind(self, parsed: _Parsed) -> None:
        """One cell openpyxl's `parse_cell` read, made as `bind_cells` makes it."""
        row, column = cast("int", parsed["row"]), cast("int", parsed["column"])
        cell = cast("_Cell", self._cell(self.ws, row=row, column=column,
                                        style_array=self._styles[cast("int", parsed["style_id"])]))
        cell._value, cell.data_type = value, kind = parsed["value"], cast("str", parsed["data_type"])
        if kind == "s" and isinstance(value, str):
            self.shown += len(value)
        self._cells[(row, column)] = cell


def _element(coordinate: str, style: str | None, kind: str | None, cm: str | None, formula: str | None,
             si: str | None, attributes: str | None, text: str | None, v: str | None) -> Element:
    """The `<c>` element the XML parser makes of a cell `sheet_xml.items` read (its groups)."""
    from xml.etree.ElementTree import Element, SubElement

    unescape = sheet_xml.unescape
    element = Element(CELL_TAG, {name: value for name, value in (("r", coordinate), ("s", style), ("t", kind),
                                                                 ("cm", cm)) if value is not None})
    if formula is not None:
        SubElement(element, _FORMULA).text = unescape(formula) or None
    elif si is not None:
        SubElement(element, _FORMULA, {"t": "shared", "si": si})
    elif attributes is not None:
        SubElement(element, _FORMULA, sheet_xml.formula_attributes(attributes)).text = \
            None if text is None else unescape(text) or None
    if v is not None:
        SubElement(element, _VALUE).text = v or None
    return element


def _bind_cells(reader: WorksheetReader) -> None:
    """openpyxl's `bind_cells`, its parser's rows read by `_Rows` (while `recording`)."""
    kept: Kept | None = getattr(_here, "kept", None)
    if kept is not None:
        parser = reader.parser
        cells: list[RawCell] = []
        part = getattr(parser.source, "name", None)  # (a zip part: `ZipExtFile.name`)
        if isinstance(part, str):
            kept.setdefault(part, cells)  # (a part read twice: its first read stands)
        rows = _Rows(parser, reader.ws, cells)
        setattr(parser, "parse_row", rows.parse_row)  # noqa: B010 (this parser's own)
        source = parser.source
        # The rows and cells, where written as Excel writes them, read by calc/sheet_xml.py, the
        # rest by openpyxl's parser (a zip part, read whole; neither `data_only` nor rich
        # text is calc's read).
        if isinstance(source, io.BufferedIOBase) and not parser.data_only and not parser.rich_text:
            data = source.read()
            split = sheet_xml.split(data)
            if split is not None:
                rows.read(split)
            parser.source = io.BytesIO(data if split is None else split.rest)
        try:
            # openpyxl 3.1.5's `bind_cells` (`_original`), its every row made into cells by `_Rows`
            # already and handed back empty, and the sheet's current row its last cell's row:
            # `max_row` built a set of every cell's row (35,000 in formulas_test.xlsx) for it.
            for _index, row in parser.parse():
                for parsed in row:
                    rows._bind(parsed)
            _here.shown = shown = getattr(_here, "shown", 0) + rows.shown
            _refuse_past_the_limit(shown, reader.ws.title)
            sheet_cells = reader.ws._cells
            if sheet_cells:
                reader.ws._current_row = max(sheet_cells)[0]  # type: ignore[attr-defined]  # (not in the stubs)
        finally:  # (parser -> _Rows -> parser: a cycle, left to a collector calc holds off)
            del parser.__dict__["parse_row"]
        return
    _original[0](reader)


def _refuse_past_the_limit(shown: int, title: str) -> None:
    if shown > MAX_SHOWN_TEXT:
        raise TextBomb(f"its cells show {shown:,} characters of text by the sheet {title!r} (a string stored "
                       f"once and shown in many cells counts in each), past the {MAX_SHOWN_TEXT:,} a workbook's "
                       "package may inflate to")


def refuse_text_bomb(book: Workbook) -> None:
    """TextBomb when the cells of `book`, read outside `recording()` (which counts as it
    reads), show more text than MAX_SHOWN_TEXT: each text cell's length, sheet by sheet."""
    shown = 0
    for ws in book.worksheets:
        cells = cast("dict[tuple[int, int], _Cell]", ws._cells)
        shown += sum(len(value) for cell in cells.values()
                     if cell.data_type == "s" and type(value := cell._value) is str)
        _refuse_past_the_limit(shown, ws.title)


def _install() -> None:
    from openpyxl.worksheet._reader import WorksheetReader

    with _lock:
        if not _original:
            _original.append(cast("Callable[[WorksheetReader], None]", WorksheetReader.bind_cells))
            setattr(WorksheetReader, "bind_cells", _bind_cells)  # noqa: B010 (openpyxl's stub types it apart)


@contextmanager
def recording() -> Iterator[Kept | None]:
    """Within: openpyxl's reads of sheets in this thread keep each part's cells in the dict
    yielded (for `Package.keep`); None with an openpyxl this was not checked against, which
    keeps nothing."""
    import openpyxl

    if openpyxl.__version__ not in REPRODUCED:
        yield None
        return
    _install()
    kept: Kept = {}
    outer, _here.kept = getattr(_here, "kept", None), kept
    shown, _here.shown = getattr(_here, "shown", 0), 0  # (the text a book's cells show: `_bind_cells`)
    try:
        yield kept
    finally:
        _here.kept, _here.shown = outer, shown
