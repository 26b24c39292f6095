"""A book with pivot tables read by openpyxl, never lost whole for one openpyxl cannot read.

openpyxl reads every pivot cache of a book for each of its sheets (`ExcelReader.read_worksheets`
asks `WorkbookParser.pivot_caches` per sheet), unguarded: one it fails on fails the whole read,
so calc, the copy and the diff had nothing of the book but "cannot read the workbook".

- Items grouped by hand in a pivot table (Excel: select items, PivotTable Analyze > Group
  Selection) are kept in its cache as `<fieldGroup><discretePr count="n"><x v="0"/>...`.
  openpyxl 3.1.5 declares `FieldGroup.discretePr` a sequence of `NestedInteger`, a descriptor
  class with no `from_tree` of its own to call, and raises "TypeError: Nested.from_tree()
  missing 1 required positional argument: 'node'" on any such book (SheetJS' test_files
  pivot_table_named_range.xlsx, saved by Excel for Mac). Each `<x v>` is the `Index` openpyxl
  reads a pivot field's items with (openpyxl/pivot/fields.py), so `mend` declares it so, where
  the declaration is still openpyxl 3.1.5's: the group is read and written back as it was.
- Any other pivot part openpyxl fails on: the book is read again without its pivot tables and
  caches (`without_pivots`, which calc/openpyxl_read.py's one reading tries), its cells whole; the copy then lacks them, which its summary names
  (copy_losses.py counts pivot tables in both files).

Written by hand: openpyxl has no switch to leave pivot tables unread.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from rates_xl.calc import package

if TYPE_CHECKING:
    from openpyxl.pivot.cache import CacheDefinition
    from openpyxl.reader.workbook import WorkbookParser

_lock = threading.Lock()
_mended: list[bool] = []

#: A workbook's list of its pivot caches (with any namespace prefix), and a relationship to a
#: sheet's pivot table: what openpyxl follows to read them.
_CACHES = re.compile(rb"<(?P<p>[A-Za-z_][\w.-]*:)?pivotCaches\b(?:[^>]*/>|.*?</(?P=p)?pivotCaches\s*>)", re.S)
_PIVOT_REL = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?Relationship\b[^>]*Type=\"[^\"]*/pivotTable\"[^>]*/>")
_WORKBOOK_PART = re.compile(r"^xl/workbook\.xml$", re.I)
_SHEET_RELS = re.compile(r"^xl/worksheets/_rels/[^/]+\.xml\.rels$", re.I)


def without_pivots(data: bytes) -> bytes | None:
    """The file `data` with nothing leading openpyxl to a pivot table or cache (the workbook's
    list of caches, the sheets' relationships to their tables; the parts themselves stay,
    unread), or None when it has none."""
    def strip(name: str, content: bytes) -> tuple[str, bytes]:
        pattern = _CACHES if _WORKBOOK_PART.match(name) else _PIVOT_REL if _SHEET_RELS.match(name) else None
        return name, content if pattern is None else pattern.sub(b"", content)
    return package.repacked(data, strip)


def mend() -> None:
    """openpyxl's reading of pivot caches mended (once):

    - `FieldGroup.discretePr` read as the sequence of `Index` it is, only where openpyxl still
      declares it its 3.1.5 way (a later openpyxl's own reading is left alone);
    - `WorkbookParser.pivot_caches` read once per book, not once per sheet: each read parses
      every cache and its records again (20,000 records, 1.8 CPU s here), and the copies it
      made, equal, were written as one cache anyway (openpyxl's writer keeps a set of them)."""
    if _mended:
        return
    from openpyxl.descriptors.nested import NestedInteger
    from openpyxl.descriptors.sequence import NestedSequence
    from openpyxl.pivot.cache import FieldGroup
    from openpyxl.pivot.fields import Index
    from openpyxl.reader.workbook import WorkbookParser

    with _lock:
        if _mended:
            return
        declared: object = FieldGroup.__dict__.get("discretePr")
        if isinstance(declared, NestedSequence) and getattr(declared, "expected_type", None) is NestedInteger:
            mended: NestedSequence[list[Index]] = NestedSequence(expected_type=Index, count=True)
            mended.name = "discretePr"  # (what openpyxl's metaclass names each descriptor)
            setattr(FieldGroup, "discretePr", mended)  # noqa: B010 (openpyxl's stub types it apart)
        per_sheet: object = WorkbookParser.__dict__.get("pivot_caches")
        if isinstance(per_sheet, property) and per_sheet.fget is not None:
            setattr(WorkbookParser, "pivot_caches", property(_once(per_sheet.fget)))  # noqa: B010
        _mended.append(True)


def _once(read: Callable[[WorkbookParser], dict[int, CacheDefinition]]) -> \
        Callable[[WorkbookParser], dict[int, CacheDefinition]]:
    def pivot_caches(parser: WorkbookParser) -> dict[int, CacheDefinition]:
        found: dict[int, CacheDefinition] | None = parser.__dict__.get(_READ)
        if found is None:
            found = parser.__dict__[_READ] = read(parser)
        return found
    return pivot_caches


_READ = "_rates_xl_pivot_caches"
