"""What the values-frozen copy lacks of the original: the parts openpyxl, which writes the copy,
does not carry over, counted in both files and named in the summary, never dropped silently.

openpyxl reads and writes cells, styles, names, tables, charts, notes, data validation,
conditional formats and VBA; it leaves out, by its own documentation ("openpyxl does currently
not read all possible items in an Excel file so shapes will be lost from existing files if they
are opened and saved with the same name", openpyxl 3.1's docs, "Usage"), shapes, connectors,
embedded (OLE) objects, form and ActiveX controls, query tables and data connections, slicers
and timelines, threaded comments, custom XML parts, the extension lists of a sheet (sparklines,
Excel 2010's conditional formats and data validations), and pictures unless Pillow is
installed. What is lost is found by counting each kind in the original's zip and in the copy's,
not by a list of what openpyxl is believed to drop: a kind it learns to keep stops being named.

Written by hand on the zip (zipfile, ElementTree): no library reports what another one dropped.
"""

from __future__ import annotations

import re
import zipfile
from collections import Counter
from collections.abc import Container
from xml.etree import ElementTree

from rates_xl.calc import rich_values
from rates_xl.calc.package import rich_value_cells_in
from rates_xl.functions.values import CLASSIC_ERRORS

#: Part name patterns counted one per part, and what one of them is to a reader.
_PARTS = (
    (re.compile(r"^xl/embeddings/[^/]+$", re.I), "embedded object"),
    (re.compile(r"^xl/ctrlProps/[^/]+\.xml$", re.I), "form control"),
    (re.compile(r"^xl/activeX/activeX\d+\.xml$", re.I), "ActiveX control"),
    (re.compile(r"^xl/queryTables/[^/]+\.xml$", re.I), "query table"),
    (re.compile(r"^xl/connections\.xml$", re.I), "data connections part"),
    (re.compile(r"^xl/slicers/[^/]+\.xml$", re.I), "slicer"),
    (re.compile(r"^xl/timelines/[^/]+\.xml$", re.I), "timeline"),
    (re.compile(r"^xl/threadedComments/[^/]+\.xml$", re.I), "threaded comments part"),
    (re.compile(r"^xl/pivotTables/[^/]+\.xml$", re.I), "pivot table"),
    (re.compile(r"^xl/charts/(style|colors)\d+\.xml$", re.I), "chart style or colour part"),
    # (openpyxl reads an Excel 4 macro sheet's cells as a worksheet's and writes it as one)
    (re.compile(r"^xl/macrosheets/[^/]+\.xml$", re.I), "Excel 4 macro sheet (its cells kept in a worksheet)"),
    (re.compile(r"^xl/dialogsheets/[^/]+\.xml$", re.I), "Excel 5 dialog sheet"),
)
_DRAWING = re.compile(r"^xl/drawings/[^/]+\.xml$", re.I)
#: The cells holding a rich value (calc/rich_values.py): a picture placed in a cell or
#: a linked data type; an error value past the classic seven (an empty FILTER's #CALC!), which
#: the copy shows as the #VALUE! the file stores for readers that know none. (A classic error's
#: rich value, which argument was wrong, is Excel's tooltip alone: not counted.)
_RICH_VALUES = re.compile(r"^xl/richData/rdrichvalue\.xml$", re.I)
_RICH_VALUE = "rich cell value (a picture or a data type in a cell)"
_NEWER_ERROR = "newer error value (#CALC!, #SPILL! ...: #VALUE! in the copy)"
_SHEET = re.compile(r"^xl/worksheets/[^/]+\.xml$", re.I)
_CUSTOM_XML = re.compile(r"^customXml/item\d+\.xml$", re.I)
_CHART_URI = "http://schemas.openxmlformats.org/drawingml/2006/chart"
#: What a drawing's anchored element is, by its local name.
_ANCHORED = {"pic": "picture", "sp": "shape", "cxnSp": "connector", "grpSp": "group of shapes"}
#: Elements of a sheet's extension list, by local name (x14's).
_EXTENSIONS = {"sparklineGroup": "sparkline group", "conditionalFormatting": "Excel 2010 conditional format",
               "dataValidation": "Excel 2010 data validation", "slicerList": "slicer list"}
_EXT_TAG = re.compile(rb"<(?:[A-Za-z0-9]+:)?(sparklineGroup|conditionalFormatting|dataValidation|slicerList)[\s>]")
_PACK_ROOT = b"urn:rates-xl:market-data-pack"
_CHART, _GRAPHIC = "chart", "graphic (SmartArt or other)"
_ALTERNATE = "drawing object Excel alone reads (form control, slicer, 3D model ...)"
#: Every kind `_drawing` counts.
_DRAWN = (*_ANCHORED.values(), _CHART, _GRAPHIC, _ALTERNATE)


def kinds(package: zipfile.ZipFile, only: Container[str] | None = None,
          rich: dict[tuple[str, str], str] | None = None) -> Counter[str]:
    """How many of each kind of thing a workbook's zip holds, of those a copy may lack (of
    the kinds in `only`, when given: a drawing, a sheet or a custom XML part is read only if
    what it may hold is among them; the others are counted anyway, from the part's name)."""
    found: Counter[str] = Counter()
    drawings = only is None or any(kind in only for kind in _DRAWN)
    sheets = only is None or any(kind in only for kind in _EXTENSIONS.values())
    custom = only is None or "custom XML part" in only
    for name in package.namelist():
        for pattern, kind in _PARTS:
            if pattern.match(name):
                found[kind] += 1
        if _RICH_VALUES.match(name):
            try:  # (each cell holding one; `rich`: read already, calc/package.py `rich_value_cells`)
                held = rich if rich is not None else rich_value_cells_in(package)
            except (KeyError, ValueError, ElementTree.ParseError):
                held = {}  # (rich data calc cannot read: not counted, never the book lost)
            for what in held.values():
                if what == rich_values.PICTURE_OR_DATA_TYPE:
                    found[_RICH_VALUE] += 1
                elif what not in CLASSIC_ERRORS:
                    found[_NEWER_ERROR] += 1
        elif _DRAWING.match(name):
            if drawings:
                found.update(_drawing(package.read(name)))
        elif _SHEET.match(name):
            if sheets:
                found.update(_extensions(package.read(name)))
        elif custom and _CUSTOM_XML.match(name) and _PACK_ROOT not in package.read(name)[:400]:
            found["custom XML part"] += 1  # (the market-data pack is written again into the copy)
    return found


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _drawing(data: bytes) -> Counter[str]:
    """The objects a drawing part anchors to its sheet: pictures, shapes, charts ..."""
    found: Counter[str] = Counter()
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError:
        return found
    for anchor in root:
        for element in anchor:
            name = _local(element.tag)
            if name in _ANCHORED:
                found[_ANCHORED[name]] += 1
            elif name == "graphicFrame":
                chart = any(_local(e.tag) == "graphicData" and e.get("uri") == _CHART_URI for e in element.iter())
                found[_CHART if chart else _GRAPHIC] += 1
            elif name == "AlternateContent":
                found[_ALTERNATE] += 1
    return found


def _extensions(data: bytes) -> Counter[str]:
    """A sheet's extension-list elements (read only where the sheet has an extension list)."""
    at = data.find(b"<extLst")
    if at < 0 and data.find(b":extLst") < 0:
        return Counter()
    return Counter(_EXTENSIONS[m.group(1).decode()] for m in _EXT_TAG.finditer(data, max(at, 0)))


def lost(original: zipfile.ZipFile, copy: zipfile.ZipFile,
         rich: dict[tuple[str, str], str] | None = None) -> Counter[str]:
    """Each kind the original holds more of than the copy, and how many more (the copy's
    parts read only for the kinds the original holds: most books hold none, and reading every
    sheet of the copy again cost formulas_test 0.01 s). `rich`: the original's cells holding a
    rich value, read already (0.02 s of formulas_test's sheets)."""
    held = kinds(original, rich=rich)
    return held - kinds(copy, only=held) if held else held


def _plural(kind: str) -> str:
    head, _, tail = kind.partition(" (")
    head = head.replace("group of", "groups of") if head.startswith("group of") else head + "s"
    return head + (f" ({tail}" if tail else "")


#: Whether the copy holds every cell's value (a cell whose rich value is lost holds what the
#: file stores for older readers).
_VALUES_THERE = {False: "every cell's value is there",
                 True: "every other cell's value is there, and a cell whose rich value is lost shows the #VALUE! "
                       "Excel stores for readers that know none"}


def phrase(missing: Counter[str]) -> str | None:
    """One note for the summary naming what the copy lacks, or None."""
    if not missing:
        return None
    listed = ", ".join(f"{n:,} {kind if n == 1 else _plural(kind)}" for kind, n in
                       sorted(missing.items(), key=lambda item: (-item[1], item[0])))
    return ("the values-frozen copy lacks what openpyxl, which writes it, does not carry over: "
            f"{listed} ({_VALUES_THERE[_RICH_VALUE in missing or _NEWER_ERROR in missing]}; keep the original for these: "
            "docs/templates-and-calc.md, \"What the copy keeps\")")
