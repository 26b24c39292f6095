"""CELL("filename", reference): the workbook's path, its name in brackets and the reference's
sheet, `C:\\Models\\[Plan.xlsx]Inputs` in Excel for Windows (support.microsoft.com, "CELL
function": "Filename of the file that contains reference, as text"). Models read a sheet's or a
book's name out of it (`=MID(CELL("filename",A1),FIND("]",CELL("filename",A1))+1,255)` titling a
sheet with its own name); formualizer answers #VALUE!, and the reference read made such a cell
a circular reference of its own, 0.

The answer is decided by the text: the call is written as that text, the book's path as calc
opened it (`BookFacts.file_name`: where Excel would give the path it saved the book to, the
name in brackets and the sheet are the book's either way). A call without a reference (the
cell Excel has selected when it calculates), with a reference whose sheet the text does not
name for certain (a defined name, another workbook, a computed one) is listed. An info_type
computed, not written, is the engine's CELL's to answer. The info_types that read a cell's
formatting (`FORMATTING`), which formualizer answers #VALUE!, are listed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from rates_xl.calc.formula.site import NotComputed
from rates_xl.functions.sheet import Area, parse_area, split_reference, unquote_sheet
from rates_xl.functions.tokens import TEXT

if TYPE_CHECKING:
    from rates_xl.calc.formula.site import Site
    from rates_xl.calc.formula.tree import Formula

#: CELL's info_types that read a cell's formatting or its column (support.microsoft.com, "CELL
#: function"), which formualizer answers #VALUE!: listed, as a CELL call is never compared with
#: Excel's value (calc/recalc.py NEW_EACH_TIME).
FORMATTING = frozenset({"color", "format", "parentheses", "prefix", "protect", "width"})

_UNSURE = "CELL(\"filename\") {}: only Excel can say which file and sheet it names"


def file_name(path: Path) -> str:
    """What CELL("filename") answers before the sheet's name for the book at `path`."""
    path = Path(path).resolve()
    return f"{path.parent}{os.sep}[{path.name}]"


def cell_info(formula: Formula, site: Site) -> str:
    """Each `CELL("filename", reference)` written as the text Excel answers: the book's path,
    its name in brackets, the reference's sheet (Microsoft's CELL function page; a model titling
    a sheet `=MID(CELL("filename",A1),FIND("]",CELL("filename",A1))+1,255)` reads its own name:
    tests/calc/test_cell_info.py). NotComputed where the text does not name the sheet, and for
    the info_types reading a cell's formatting (`FORMATTING`), which formualizer answers #VALUE!."""
    edits = formula.edits()
    for call in formula.calls("CELL"):
        if call.close < 0 or not call.arguments:
            continue
        info = formula.solid(call.arguments[0])
        if not (len(info) == 1 and info[0].sub == TEXT):
            continue  # (an info_type computed: the engine's CELL answers it, as for a cell's address)
        kind = info[0].text[1:-1].strip().lower()
        if kind in FORMATTING:
            raise NotComputed(f'CELL("{kind}") reads the cell\'s formatting, which calc does not read for it '
                              "(the engine answers #VALUE!)")
        if kind in ("row", "col") and len(call.arguments) == 2:
            # The reference's first row or column, from the text: no cell is read, so a cell
            # asking it of itself (`=CELL("row",B1)` in B1) is no circular reference, as
            # positions.py says of ROW (formualizer made it one: 0; LibreOffice answers 1).
            corner = _corner(formula, call.arguments[1])
            if corner is not None:
                edits.replace(call.open, call.close + 1, str(corner[0] if kind == "row" else corner[1]))
            continue
        if kind != "filename":
            continue  # (address, contents, type: the engine's CELL answers them as Excel does)
        if len(call.arguments) < 2:
            raise NotComputed(_UNSURE.format("without a reference (it reads the cell Excel has selected)"))
        sheet = _sheet(formula, call.arguments[1], site)
        if sheet is None or not site.book.file_name:
            raise NotComputed(_UNSURE.format("of a reference whose sheet the formula does not name"))
        text = site.book.file_name + sheet
        edits.replace(call.open, call.close + 1, '"' + text.replace('"', '""') + '"')
    return edits.text()


def _written_reference(formula: Formula, span: tuple[int, int]) -> tuple[str, Area] | None:
    """A reference argument written out: (its sheet prefix, "" for none; its area). None for
    anything else: another workbook's, a defined name or a table, a computed one."""
    solid = formula.solid(span)
    if len(solid) != 1 or not solid[0].is_range or "[" in solid[0].text:
        return None
    prefix, area = split_reference(solid[0].text)
    try:
        return prefix, parse_area(area)
    except ValueError:
        return None  # (a defined name or a table: what it covers is not in the text)


def _corner(formula: Formula, span: tuple[int, int]) -> tuple[int, int] | None:
    """(row, column) of the top-left cell of a reference written out, None for anything else."""
    found = _written_reference(formula, span)
    if found is None or ":" in found[0]:
        return None  # (or a 3-D reference)
    return found[1].top, found[1].left


def _sheet(formula: Formula, span: tuple[int, int], site: Site) -> str | None:
    """The sheet a reference argument names: its own, or the formula's when it names none."""
    found = _written_reference(formula, span)
    if found is None:
        return None
    if not found[0]:
        return site.sheet
    named = unquote_sheet(found[0][:-1])
    return next((title for title in site.book.sheets if title.upper() == named.upper()), None)
