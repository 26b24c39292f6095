"""The one way calc has openpyxl read a book: never lost whole for a part openpyxl cannot read.

`load_workbook` is openpyxl's, with its reading mended where it fails on what Excel writes
(grouped pivot items: calc/pivot_read.py `mend`; DDE and OLE links: calc/feed_links.py `mend`).
Should it still fail, the book is read again with less, in this order, and the first reading
that succeeds is the book:

1. with its parts named as its content types declare them, those it does not hold undeclared
   (`_parts_as_declared`);
2. without its pivot tables and caches (calc/pivot_read.py `without_pivots`; the copy lacks
   them, which copy_losses.py counts);
3. without its conditional formats (LibreOffice wrote `<cfRule operator="expression">`, which
   openpyxl refuses: ClosedXML's TryToLoad LO_xlsx_formats.xlsx);
4. with its stylesheet kept to its number formats (calc/style_read.py `plain`, as many cell
   formats as its cells use), then also without its differential formats, then without its
   conditional formats too.

A Strict Open XML book is read as the Transitional one it maps to (calc/strict.py).

`read_losses` says what a book was read without, and why; the summary says the copy lacks it
(calc/workbook.py).

A book none of these reads raises openpyxl's first failure, which says what is wrong with it.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from rates_xl.calc import feed_links, package, pivot_read, strict, style_read

if TYPE_CHECKING:
    from openpyxl import Workbook

_STYLES = "xl/styles.xml"  # (openpyxl's ARC_STYLE: the name it reads the stylesheet by)
_LOST = "_rates_xl_read_losses"
_TYPES = "[Content_Types].xml"
_OVERRIDE = re.compile(rb'<(?:[A-Za-z_][\w.-]*:)?Override\b[^>]*?PartName="(?P<part>[^"]*)"[^>]*?/>')
_SHEET = re.compile(r"^xl/worksheets/[^/]+\.xml$", re.I)
#: A sheet's conditional formats (and Excel 2010's in its extension list, which openpyxl drops anyway).
_CONDITIONAL = re.compile(rb"<(?P<p>[A-Za-z_][\w.-]*:)?conditionalFormatting\b(?:[^>]*/>|.*?</(?P=p)?conditionalFormatting\s*>)",
                          re.S)
_STYLE_ID = re.compile(rb'<(?:[A-Za-z_][\w.-]*:)?(?:c|row)\b[^>]*?\ss="(\d{1,9})"')


def load_workbook(source: bytes | str | Path | io.BytesIO, **options: bool) -> Workbook:
    """openpyxl's `load_workbook` of a file (its bytes, its path or a buffer of them) with
    `options`, read again with less where openpyxl fails (the module's docstring)."""
    import openpyxl

    data = source if isinstance(source, bytes) else \
        source.getvalue() if isinstance(source, io.BytesIO) else Path(source).read_bytes()
    if strict.is_strict(data):  # (in which openpyxl finds no sheet: calc/strict.py)
        data = strict.transitional(data)
    pivot_read.mend()
    feed_links.mend()
    try:
        return openpyxl.load_workbook(io.BytesIO(data), **options)
    except Exception as exc:  # noqa: BLE001 - whatever openpyxl raises: read with less
        first = last = exc
    for changed, lost in _with_less(data):
        try:
            book = openpyxl.load_workbook(io.BytesIO(changed), **options)
        except Exception as exc:  # noqa: BLE001
            last = exc
            continue
        if lost:
            said = f"{' and '.join(lost)}, which openpyxl could not read ({_said(last)})"
            setattr(book, _LOST, said)  # noqa: B010 (openpyxl declares no such slot)
        return book
    raise first from None


def read_losses(book: Workbook) -> str | None:
    """What `book` was read without, which its copy lacks, and why; None: read whole (pivot
    tables aside, which copy_losses.py counts)."""
    found = getattr(book, _LOST, None)
    return found if isinstance(found, str) else None


#: What each reading with less leaves out of the book and its copy.
STYLES = "fonts, fills, borders, alignments and cell styles (number formats kept)"
FORMATTING = "conditional formats' formatting"
CONDITIONAL = "conditional formats"


def _with_less(data: bytes) -> Iterator[tuple[bytes, tuple[str, ...]]]:
    """The package with less in it, in the order tried: (its bytes, what the copy then lacks,
    pivot tables aside)."""
    declared = _parts_as_declared(data)
    if declared is not None:
        yield declared, ()
        data = declared
    unpivoted = pivot_read.without_pivots(data)
    if unpivoted is not None:
        yield unpivoted, ()
        data = unpivoted
    unformatted = _sheets_changed(data, partial(_CONDITIONAL.sub, b""))
    if unformatted is not None:
        yield unformatted, (CONDITIONAL,)
    least = _cell_formats_used(data)
    for base, lost in ((data, ()), (unformatted, (CONDITIONAL,))):
        if base is None:
            continue
        for differential, formatting in ((True, ()), (False, (FORMATTING,))):
            if lost and not differential:
                continue  # (without conditional formats, their formatting is nothing to lose)
            changed = _part_replaced(base, _STYLES, partial(style_read.plain, differential=differential, least=least))
            if changed is not None:
                yield changed, (STYLES, *formatting, *lost)


def _parts_as_declared(data: bytes) -> bytes | None:
    """The package with each part its content types declare under the name they declare it by
    (part names match case-blind in Open XML, ECMA-376 Part 2, M1.12, and zipfile's do not:
    excelize's test_CalcChain.xlsx holds xl/SharedStrings.xml and declares xl/sharedStrings.xml,
    "KeyError: There is no item named 'xl/sharedStrings.xml'"), and without the declarations of
    parts it does not hold at all; None when nothing is changed."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as source:
            held = {name.lower(): name for name in source.namelist()}
            types = source.read(_TYPES) if _TYPES in held.values() else b""
    except (zipfile.BadZipFile, OSError, KeyError, ValueError):
        return None
    declared = [m.group("part").decode("utf-8", "replace").lstrip("/") for m in _OVERRIDE.finditer(types)]
    renamed = {held[name.lower()]: name for name in declared if name not in held.values() and name.lower() in held}
    missing = {name for name in declared if name.lower() not in held}

    def declare(name: str, content: bytes) -> tuple[str, bytes]:
        if name == _TYPES:
            return name, _OVERRIDE.sub(lambda m: b"" if m.group("part").decode("utf-8", "replace").lstrip("/")
                                       in missing else m.group(0), content)
        return renamed.get(name, name), content
    return package.repacked(data, declare) if renamed or missing else None


def _cell_formats_used(data: bytes) -> int:
    """How many cell formats the sheets' cells and rows use (the highest `s` plus one)."""
    highest = 0
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as source:
            for name in source.namelist():
                if _SHEET.match(name):
                    for found in _STYLE_ID.finditer(source.read(name)):  # (no list of every cell's)
                        highest = max(highest, int(found.group(1)))
    except (zipfile.BadZipFile, OSError, KeyError, ValueError):
        return 1
    return highest + 1


def _said(exc: BaseException) -> str:
    """The failure openpyxl's reading ended with, in one line."""
    while exc.__cause__ is not None:  # (openpyxl's "Unable to read workbook: could not read stylesheet")
        exc = exc.__cause__
    said = str(exc).splitlines()
    return f"{type(exc).__name__}: {said[0]}" if said else type(exc).__name__


def _sheets_changed(data: bytes, change: Callable[[bytes], bytes]) -> bytes | None:
    """The package with each worksheet's part given by `change`, or None when none changes."""
    return package.repacked(data, lambda name, content: (name, change(content) if _SHEET.match(name) else content))


def _part_replaced(data: bytes, part: str, replace: Callable[[bytes], bytes | None]) -> bytes | None:
    """The package with its part `part` given by `replace` (None: left as it is), or None when
    it is not changed."""
    return package.repacked(data, lambda name, content: (name, (replace(content) or content) if name == part else content))
