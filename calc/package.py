"""A workbook file read once (`Package`: its bytes; openpyxl, the engines and every reader
below read those, not the file again), and what openpyxl drops from it and calc needs, read
from the zip itself.

Two things: whether the book asks to be fully recalculated when opened (`full_calc_on_load`;
openpyxl reads an absent attribute as True), and which array formulas are dynamic. Excel marks a dynamic-array formula by
`cm="N"` on its anchor cell (`<c r="A1" cm="1"><f t="array" ref="A1:A3">`), N pointing (1-based)
into `xl/metadata.xml`'s cellMetadata, whose record names the `XLDAPR` future metadata with
`fDynamic="1"`. A legacy (Ctrl+Shift+Enter) array formula has `<f t="array">` and no such cm.
openpyxl reads both as the same `ArrayFormula`, so calc could not tell a spill from a fixed range.

Written by hand because no reading library keeps the attribute; it costs nothing for a book
without dynamic arrays (no metadata part, no sheet is read) and one streaming pass over each
sheet part otherwise (elements cleared as they go). A book calc computes is parsed once for
both: openpyxl's own read of each sheet keeps every cell's `RawCell` as it goes
(calc/stored_cells.py, handed over by `keep`), and both readings start from those.
"""

from __future__ import annotations

import io
import posixpath
import re
import zipfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from xml.etree import ElementTree

from rates_xl.functions.sheet import parse_cell
from rates_xl.functions.values import CellValue, text_value

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PKG_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_OFFICE_DOCUMENT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
_SHEET_METADATA = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/sheetMetadata"


class Package:
    """One workbook file's bytes, read once, and what calc reads of its zip parts."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        # The stored values, read with the dynamic-array anchors when those cost a pass over
        # every sheet anyway (`dynamic_array_anchors`); handed once to `cell_values`.
        self._values: Values | None = None
        # Sheet part -> its cells as openpyxl's read of the book parsed them (`keep`).
        self._kept: Kept = {}
        # Saved as Strict Open XML: `data` is the Transitional package it maps to (calc/strict.py).
        self.strict = False
        self._rich: dict[tuple[str, str], str] | None = None  # (`rich_value_cells`, read once)

    @classmethod
    def open(cls, path: str | Path) -> Package:
        return cls(Path(path).read_bytes())

    def stream(self) -> io.BytesIO:
        """The file's bytes as a file (openpyxl, the engines)."""
        return io.BytesIO(self.data)

    def _zip(self) -> zipfile.ZipFile:
        return zipfile.ZipFile(self.stream())

    def keep(self, kept: Kept) -> None:
        """The cells of each sheet part as openpyxl's read of these bytes parsed them
        (calc/stored_cells.py): `dynamic_array_anchors` and the next `cell_values` read those
        instead of parsing the sheets again. A part not in `kept` is parsed here as before."""
        self._kept = kept

    def dynamic_array_anchors(self) -> frozenset[tuple[str, str]] | None:
        """(sheet title, anchor coordinate) of every dynamic-array formula in the workbook;
        every other array formula (`<f t="array">` without a dynamic cm) is a legacy one.

        None when the book carries no dynamic-array metadata at all: either it has only legacy
        arrays or its writer dropped the marker (openpyxl and LibreOffice do), which the file
        cannot tell apart. A file that cannot be read this way (not a zip, a part missing or
        malformed) gives None too: calc's own reading of the file says what is wrong with it."""
        try:
            with self._zip() as package:
                # (the values come too only when nothing is kept: `cell_values` reads those)
                found, self._values = _dynamic_anchors(package, self._kept)
                return found
        except (OSError, KeyError, zipfile.BadZipFile, ElementTree.ParseError, ValueError):
            return None

    def full_calc_on_load(self) -> bool:
        """Whether workbook.xml's `<calcPr fullCalcOnLoad="1">` is set: writers that store no
        answers (openpyxl) or placeholders (XlsxWriter's 0) set it, and Excel then recalculates
        every formula on opening; Excel itself never saves it. Unreadable: True (trust nothing)."""
        return self._workbook_flag("calcPr", "fullCalcOnLoad", unreadable=True)

    def date1904(self) -> bool:
        """Whether workbook.xml's `<workbookPr date1904="1">` is set: the book counts dates
        from 1904 (functions/date_system.py). Unreadable: False, as openpyxl reads it."""
        return self._workbook_flag("workbookPr", "date1904", unreadable=False)

    def _workbook_flag(self, element: str, attribute: str, unreadable: bool) -> bool:
        """A boolean attribute of an element of workbook.xml (absent: False)."""
        try:
            with self._zip() as package:
                root = ElementTree.fromstring(package.read(_office_document(package, set(package.namelist()))))
        except (OSError, KeyError, zipfile.BadZipFile, ElementTree.ParseError, ValueError):
            return unreadable
        found = root.find(f"{_MAIN}{element}")
        return found is not None and found.get(attribute) in ("1", "true")

    def rich_value_cells(self) -> dict[tuple[str, str], str]:
        """(sheet title, coordinate) -> what each cell holding a rich value (`vm="N"`) holds
        (calc/rich_values.py): an error value past the classic seven (#CALC!, #SPILL! ...),
        or a picture placed in a cell, IMAGE's answer, a linked data type (a stock, a
        currency pair). The file stores #VALUE! there for readers that know none, openpyxl
        and the engines among them. None read (empty) in a book without value metadata."""
        if self._rich is None:
            try:
                with self._zip() as package:
                    self._rich = rich_value_cells_in(package)
            except (OSError, KeyError, zipfile.BadZipFile, ElementTree.ParseError, ValueError):
                self._rich = {}
        return self._rich

    def cell_values(self) -> Values | None:
        """Every value the file stores, as Excel stores it: (sheet title, cell) -> number (dates
        and times are their serials), text, bool or error text; and the formula cells with no
        stored value at all (no `<v>`). openpyxl's reading with `data_only` costs a second full
        parse, turns serials into dates and reads an empty cached text (`=""`) as no value; one
        streaming pass here does neither. None when the file cannot be read this way."""
        if self._values is not None:  # read already, with the dynamic-array anchors
            read, self._values = self._values, None
            return read
        kept, self._kept = self._kept, {}  # handed once: a second ask parses the file
        try:
            with self._zip() as package:
                return _cell_values(package, kept)
        except (OSError, KeyError, IndexError, zipfile.BadZipFile, ElementTree.ParseError, ValueError):
            return None

    def shared_strings_escaped(self) -> bool:
        """Whether the shared-string table holds `x005F_` (Excel's escape of a literal
        `_xHHHH_` in text): openpyxl's reader drops every such run, so those cells' text must
        be read here (`cell_values`) before a save writes it back (calc/book.py
        `Book.as_stored`). Unreadable: False (openpyxl's own reading then fails or stands)."""
        try:
            with self._zip() as package:
                return any(info.filename.lower().endswith("sharedstrings.xml") and b"x005F_" in package.read(info)
                           for info in package.infolist())
        except (OSError, zipfile.BadZipFile, ValueError):
            return False

    def application(self) -> str:
        """The application that saved the book (`docProps/app.xml`): CHAR and CODE follow Mac
        Roman in Excel for Mac, Windows-1252 elsewhere (calc/xlfuncs/text/characters.py)."""
        try:
            with self._zip() as package:
                text = package.read("docProps/app.xml").decode("utf-8", "replace")
        except (KeyError, OSError, zipfile.BadZipFile, ValueError):
            return ""
        match = re.search(r"<Application>([^<]*)</Application>", text)
        return match.group(1) if match else ""


#: What one pass over the sheets reads: the stored values, the formula cells with none.
Values = tuple[dict[tuple[str, str], CellValue], frozenset[tuple[str, str]]]
#: What calc reads of one `<c>`: its reference, type (`t`, "n" when absent), `<v>` text (None:
#: no `<v>`; "" an empty one), inline text (None: no `<is>`), formula type (None: no `<f>`;
#: "" an ordinary one, "array", "shared" ...), and `cm` (its cell metadata, None: none).
RawCell = tuple[str, str, str | None, str | None, str | None, str | None]
#: Sheet part (its name in the zip) -> its cells, in the file's order.
Kept = dict[str, list[RawCell]]

#: A cell's tag (calc/stored_cells.py reads openpyxl's rows with it too).
CELL_TAG = f"{_MAIN}c"
_ROW = f"{_MAIN}row"
_VALUE = f"{_MAIN}v"
_FORMULA = f"{_MAIN}f"
_INLINE = f"{_MAIN}is"
_TEXT = f"{_MAIN}t"
_RUN = f"{_MAIN}r"


def raw_cell(element: ElementTree.Element) -> RawCell | None:
    """One `<c>` as calc reads it (`RawCell`); None for a cell that stores neither a value
    nor a formula (a styled blank). Both readings go through `cell_parts`: the pass of this
    module over a sheet part and openpyxl's own (calc/stored_cells.py)."""
    return cell_parts(element, element.get("t", "n"), element.find(_VALUE), element.find(_FORMULA))


def cell_parts(element: ElementTree.Element, kind: str, v: ElementTree.Element | None,
               f: ElementTree.Element | None) -> RawCell | None:
    """`raw_cell` of a `<c>` whose type (`t`, "n" when absent), first `<v>` and first `<f>`
    were looked up already (calc/stored_cells.py's parse looks them up for openpyxl's cell too)."""
    inline = None
    if kind == "inlineStr":
        found = element.find(_INLINE)
        if found is not None:  # (its text and its runs' texts; a phonetic guide, rPh, is no part of it)
            inline = "".join(t.text or "" for t in [found.find(_TEXT), *(r.find(_TEXT) for r in found.findall(_RUN))]
                             if t is not None)
    elif v is None and f is None:
        return None
    return (element.get("r", ""), kind, None if v is None else v.text or "", inline,
            None if f is None else f.get("t", ""), element.get("cm"))


def _cell_values(package: zipfile.ZipFile, kept: Kept) -> Values:
    names = set(package.namelist())
    workbook_part = _office_document(package, names)
    relations = _relations(package, names, workbook_part)
    shared = _shared_strings(package, names, relations)
    values: dict[tuple[str, str], CellValue] = {}
    missing: set[tuple[str, str]] = set()
    for title, cells in _sheet_cells(package, names, workbook_part, relations, kept):
        _read_values(title, cells, shared, values, missing)
    return values, frozenset(missing)


def _read_values(title: str, cells: Iterable[RawCell], shared: list[str],
                 values: dict[tuple[str, str], CellValue], missing: set[tuple[str, str]]) -> None:
    """`_read_value` of each of a sheet's cells; an error, a number or a shared string (most
    cells) read here as `_cell_value` reads it, without its two calls a cell (formulas_test.xlsx's
    29,000 cells: 0.017 -> 0.010 CPU s; its 14,000 errors and 8,500 fractions 0.015 -> 0.011)."""
    for cell in cells:
        text = cell[2]
        if not text:  # (no `<v>`, or an empty one)
            _read_value(title, cell, shared, values, missing)
            continue
        kind = cell[1]
        if kind == "e":
            value: CellValue = _unescape(text) if "_x" in text else text
        elif kind == "n":
            if len(text) < 16 and text.isdigit() and text.isascii():
                value = int(text)  # (as `float` reads it and `_cell_value` makes it an int: exact below 2**53)
            elif not text.strip():
                continue  # (a `<v>` of white space alone)
            else:  # (`_cell_value`'s reading of a number)
                number = float(text)
                value = int(number) if number.is_integer() and "." not in text and "E" not in text.upper() else number
        elif kind == "s":
            value = text_value(shared[int(text)])
        else:
            value = _cell_value(cell, shared)
            if value is None:  # (a `<v>` of white space alone)
                continue
        values[(title, cell[0])] = value


def _read_value(title: str, cell: RawCell, shared: list[str],
                values: dict[tuple[str, str], CellValue], missing: set[tuple[str, str]]) -> None:
    """One `<c>`'s stored value into `values`; a formula cell with none into `missing`."""
    value = _cell_value(cell, shared)
    if value is not None:
        values[(title, cell[0])] = value
    elif cell[4] is not None and cell[2] is None:
        missing.add((title, cell[0]))


def _sheet_cells(package: zipfile.ZipFile, names: set[str], workbook_part: str,
                 relations: dict[str, tuple[str, str]],
                 kept: Kept) -> Iterator[tuple[str, Iterable[RawCell]]]:
    """(sheet title, its cells) of every worksheet, in the workbook's order: the cells
    `kept` holds for its part, or else the part's own `<c>` elements, streamed (each element
    cleared once read)."""
    for title, part in _sheet_parts(package, names, workbook_part, relations):
        cells = kept.get(part)
        yield title, cells if cells is not None else _part_cells(package, part)


def _sheet_parts(package: zipfile.ZipFile, names: set[str], workbook_part: str,
                 relations: dict[str, tuple[str, str]]) -> Iterator[tuple[str, str]]:
    """(sheet title, its part in the zip) of every worksheet, in the workbook's order."""
    root = ElementTree.fromstring(package.read(workbook_part))
    for sheet in root.iter(f"{_MAIN}sheet"):
        relation = relations.get(sheet.get(f"{_REL}id", ""))
        if relation is None or relation[1] not in names:
            continue  # a chart sheet or a dangling relation: no cells
        yield sheet.get("name", ""), relation[1]


def _metadata_part(workbook_part: str, relations: dict[str, tuple[str, str]]) -> str:
    """The workbook's metadata part (xl/metadata.xml where Excel writes it)."""
    return next((target for kind, target in relations.values() if kind == _SHEET_METADATA),
                posixpath.join(posixpath.dirname(workbook_part), "metadata.xml"))


def _part_cells(package: zipfile.ZipFile, part: str) -> Iterator[RawCell]:
    with package.open(part) as stream:
        for _event, element in ElementTree.iterparse(stream, events=("end",)):
            if element.tag == CELL_TAG:
                if (cell := raw_cell(element)) is not None:
                    yield cell
                element.clear()
            elif element.tag == _ROW:
                element.clear()


_SHARED_STRINGS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings"


def _shared_strings(package: zipfile.ZipFile, names: set[str], relations: dict[str, tuple[str, str]]) -> list[str]:
    part = next((target for kind, target in relations.values() if kind == _SHARED_STRINGS), "xl/sharedStrings.xml")
    if part not in names:
        return []
    strings = []
    for item in ElementTree.fromstring(package.read(part)).iter(f"{_MAIN}si"):
        # Plain or rich text (runs); phonetic guides (rPh) are not part of the value.
        texts = [t.text or "" for t in item.iter(f"{_MAIN}t")]
        phonetic = {id(t) for ph in item.iter(f"{_MAIN}rPh") for t in ph.iter(f"{_MAIN}t")}
        strings.append(_unescape("".join(text for t, text in zip(item.iter(f"{_MAIN}t"), texts, strict=False)
                                         if id(t) not in phonetic)))
    return strings


_ESCAPED = re.compile(r"_x([0-9A-Fa-f]{4})_")


def _unescape(text: str) -> str:
    """OOXML writes characters XML cannot hold as `_xHHHH_` (and `_` before such a pattern
    as `_x005F_`)."""
    return _ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), text) if "_x" in text else text


#: Text Excel would read as an escape (`_x0001_` is CHAR(1)); a literal one is written with its
#: underscore escaped (`_x005F_x0001_`), as Excel writes it.
_ESCAPE_LIKE = re.compile(r"_(x[0-9A-Fa-f]{4}_)")
#: What Excel stores escaped: control characters XML cannot hold, and the carriage return,
#: which an XML reader turns into a line feed (CHAR(13) would come back as CHAR(10)).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f]")


def escaped(value: str) -> str:
    """Text as Excel writes it in a cell's XML (ECMA-376 ST_Xstring escapes): `_unescape`'s
    inverse. openpyxl writes a cell's text as it is, so text headed for one of its saves
    goes through here."""
    if "_x" in value:  # (what `_ESCAPE_LIKE` needs: most text has none, and is not searched for it)
        value = _ESCAPE_LIKE.sub(r"_x005F_\1", value)
    return _CONTROL.sub(lambda m: f"_x{ord(m.group(0)):04X}_", value)


def _cell_value(cell: RawCell, shared: list[str]) -> CellValue:
    _ref, kind, text, inline, _formula, _cm = cell
    if kind == "inlineStr":
        return text_value(_unescape(inline)) if inline is not None else None
    if text is None:
        return None
    # A string ("#N/A" from VALUETOTEXT) is text even where it reads as an error value.
    if kind == "s":
        return text_value(shared[int(text)])
    if kind == "str":
        return text_value(_unescape(text))
    if kind == "e":
        return _unescape(text)
    if kind == "b":
        return text.strip() in ("1", "true")
    if not text.strip():
        return None
    number = float(text)
    return int(number) if number.is_integer() and "." not in text and "E" not in text.upper() else number


def _dynamic_anchors(package: zipfile.ZipFile,
                     kept: Kept) -> tuple[frozenset[tuple[str, str]] | None, Values | None]:
    """The dynamic-array anchors (None: no marker in the book) and, when finding them parses
    every sheet (nothing `kept`), the stored values too (`_cell_values`' answer; None when
    those cannot be read, which leaves the anchors as they are: `cell_values` then reads and
    fails alone, or nothing was parsed)."""
    names = set(package.namelist())
    workbook_part = _office_document(package, names)
    relations = _relations(package, names, workbook_part)
    metadata = _metadata_part(workbook_part, relations)
    if metadata not in names:
        return None, None
    dynamic = _dynamic_cell_metadata(package.read(metadata))
    if not dynamic:
        return None, None
    found = set()
    shared: list[str] | None = None
    if not kept:
        try:
            shared = _shared_strings(package, names, relations)
        except (OSError, KeyError, zipfile.BadZipFile, ElementTree.ParseError, ValueError):
            shared = None  # the values are read apart, and fail there
    values: dict[tuple[str, str], CellValue] = {}
    missing: set[tuple[str, str]] = set()
    for title, cells in _sheet_cells(package, names, workbook_part, relations, kept):
        for cell in cells:
            cm = cell[5]
            if cm is not None and cell[4] == "array" and cm.isdigit() and int(cm) in dynamic:
                found.add((title, cell[0]))
            if shared is not None:
                try:
                    _read_value(title, cell, shared, values, missing)
                except (IndexError, ValueError):
                    shared = None  # a value that cannot be read: `cell_values` says so on its own
    return frozenset(found), ((values, frozenset(missing)) if shared is not None else None)


#: A `vm` attribute, and a cell's `r` (Excel writes the default namespace: `<c r=... vm=...>`).
_VM = re.compile(rb'\svm="([0-9]{1,9})"')
_R = re.compile(rb'(?:^|\s)r="([0-9A-Za-z]{2,10})"')


def rich_value_cells_in(package: zipfile.ZipFile) -> dict[tuple[str, str], str]:
    """`Package.rich_value_cells`: each sheet part's cell start tags searched for `vm`, only
    when the metadata part holds value metadata (a book without one: no sheet read)."""
    from rates_xl.calc import rich_values

    names = set(package.namelist())
    workbook_part = _office_document(package, names)
    relations = _relations(package, names, workbook_part)
    metadata = _metadata_part(workbook_part, relations)
    if metadata not in names or b"valueMetadata" not in package.read(metadata):
        return {}
    found: dict[tuple[str, str], int] = {}
    for title, part in _sheet_parts(package, names, workbook_part, relations):
        data = package.read(part)
        if b' vm="' not in data:
            continue
        # Each `vm` found, then the cell start tag it is in: a few in a sheet of many cells (a
        # search of every start tag cost formulas_test's sheets 0.021 s, this 0.001).
        for vm in _VM.finditer(data):
            start = data.rfind(b"<c ", max(0, vm.start() - 256), vm.start())  # (a start tag is short:
            # a bounded look back, never a scan to the part's start for each `vm` of a hostile one)
            if start < 0 or data.find(b">", start, vm.start()) >= 0:
                continue  # (not in a cell's start tag)
            attributes = data[start + 3:vm.start()]
            if (r := _R.search(attributes)) is not None:
                coordinate = r.group(1).decode().upper()
                try:
                    parse_cell(coordinate)  # (functions/sheet.py: the one A1 reading)
                except ValueError:
                    continue
                found[(title, coordinate)] = int(vm.group(1))
    return rich_values.values(package, names, metadata, found) if found else {}


def _office_document(package: zipfile.ZipFile, names: set[str]) -> str:
    """The workbook part (xl/workbook.xml in every file Excel writes)."""
    if "_rels/.rels" in names:
        for rel in ElementTree.fromstring(package.read("_rels/.rels")).iter(f"{_PKG_REL}Relationship"):
            if rel.get("Type") == _OFFICE_DOCUMENT:
                return rel.get("Target", "").lstrip("/")
    return "xl/workbook.xml"


def _relations(package: zipfile.ZipFile, names: set[str], part: str) -> dict[str, tuple[str, str]]:
    """Relationship id -> (type, part name in the zip) of `part`."""
    folder, base = posixpath.split(part)
    rels = posixpath.join(folder, "_rels", base + ".rels")
    if rels not in names:
        return {}
    found = {}
    for rel in ElementTree.fromstring(package.read(rels)).iter(f"{_PKG_REL}Relationship"):
        target = rel.get("Target", "")
        if rel.get("TargetMode") == "External":
            continue
        target = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
        found[rel.get("Id", "")] = (rel.get("Type", ""), target)
    return found


def _dynamic_cell_metadata(data: bytes) -> set[int]:
    """The cm values (1-based cellMetadata records) that mark a dynamic array: the record's
    `rc t` names (1-based) a metadataType, `v` (0-based) that type's futureMetadata block."""
    root = ElementTree.fromstring(data)
    types = [t.get("name", "") for t in root.iter(f"{_MAIN}metadataType")]
    flags: dict[str, list[bool]] = {}
    for future in root.iter(f"{_MAIN}futureMetadata"):
        blocks = flags.setdefault(future.get("name", ""), [])
        for block in future.findall(f"{_MAIN}bk"):
            # The flag sits in an extension of its own namespace (xda:dynamicArrayProperties).
            blocks.append(any(e.tag.endswith("}dynamicArrayProperties") and e.get("fDynamic") in ("1", "true")
                              for e in block.iter()))
    dynamic = set()
    cells = root.find(f"{_MAIN}cellMetadata")
    for index, block in enumerate(cells.findall(f"{_MAIN}bk") if cells is not None else [], start=1):
        for record in block.findall(f"{_MAIN}rc"):
            t, v = int(record.get("t", "0")), int(record.get("v", "-1"))
            name = types[t - 1] if 0 < t <= len(types) else ""
            if name == "XLDAPR" and 0 <= v < len(flags.get(name, [])) and flags[name][v]:
                dynamic.add(index)
    return dynamic


def repacked(data: bytes, change: Callable[[str, bytes], tuple[str, bytes]]) -> bytes | None:
    """The package `data` with each part (name, bytes) as `change` gives it, or None when
    nothing is changed or the package cannot be read: a book read again with less
    (calc/openpyxl_read.py, calc/pivot_read.py `without_pivots`)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as source:
            parts, changed = [], False
            for info in source.infolist():
                content = source.read(info)
                name, given = change(info.filename, content)
                changed = changed or name != info.filename or given != content
                parts.append((info, name, given))
    except (zipfile.BadZipFile, OSError, KeyError, ValueError):
        return None
    if not changed:
        return None
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as copy:
        for info, name, content in parts:
            copy.writestr(info if name == info.filename else name, content)
    return out.getvalue()
