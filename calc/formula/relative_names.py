"""Defined names whose references are relative (`Left` = `Sheet1!XFD1`: the cell to the left
of the one using it): each use is the name's text moved to the formula's cell.

A name's relative reference is relative to the cell using it (Microsoft's Names.Add: with A10
selected, a name given "=sheet1!A1:B1" refers to A10:B10); the file holds it as if written in
A1, and LibreOffice reads it so (`RowT` = `S!$T1` in Y2 is $T2). formualizer drops such names
on loading ("Unevaluable or cyclic defined name omitted from calculation") and every cell using
one was #NAME?, silently, where Excel has a value.
"""

from __future__ import annotations

from typing import Any

from rates_xl.calc.formula.shapes import Shape, shape, text_at
from rates_xl.calc.formula.site import NotComputed, Site
from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.sheet import read_area, split_reference, unquote_sheet


def of_book(book: Any) -> dict[tuple[str, str], tuple[Shape, bool]]:
    """(the sheet a local name belongs to, "" for the book's; the name in upper case) -> (its
    text's shape as written in A1, whether the text is one reference), of the defined names of
    openpyxl's `book` with a relative reference in their text."""
    found: dict[tuple[str, str], tuple[Shape, bool]] = {}
    scopes = [("", book.defined_names)] + [(ws.title, getattr(ws, "defined_names", {})) for ws in book.worksheets]
    for sheet, names in scopes:
        for name, defined in names.items():
            text = defined.attr_text
            if not isinstance(text, str) or not text.strip() or "[" in text:
                continue  # (another workbook's, or a table's: the passes `other_workbook_names`, `table_names`)
            text = text.strip()
            written = shape("=" + text, 1, 1)
            if written is None or not any(isinstance(corner, tuple) and not _absolute(corner) for corner in written):
                continue
            read = Formula("=" + text)
            single = read.error is None and len(read.tokens) == 1 and read.tokens[0].is_range
            found[(sheet, str(name).upper())] = (written, single)
    return found


def _absolute(corner: tuple[Any, ...]) -> bool:
    absolute_c, c, absolute_r, r = corner
    return (c is None or absolute_c) and (r is None or absolute_r)


def may_use(formula: Formula, site: Site) -> bool:
    names = site.book.relative_names
    return bool(names) and any(name in formula.upper for _sheet, name in names)


def relative_names(formula: Formula, site: Site) -> str:
    """A defined name with relative references (`RowT` = `S!$T1`, `RowTotal` =
    `SUM(S!$B1:$M1)`) is its text moved from A1 to the formula's cell (`=RowT+1` in Y2 is
    `S!$T2+1`, LibreOffice's 41 too); a formula text is put in parentheses; a local name of the
    formula's sheet comes before the book's. One whose reference would come round the sheet's
    edge (`Left` = `S!XFD1`, the cell to the left as a name made in B1 holds it) is listed:
    Excel's reading of it is not shown here (LibreOffice answers 0). formualizer omits such
    names at load and every cell reading one was #NAME? (tests/calc/test_relative_names.py)."""
    names = site.book.relative_names
    edits = formula.edits()
    for index, token in enumerate(formula.tokens):
        if not token.is_range:
            continue
        prefix, name = split_reference(token.text)
        if "[" in prefix or read_area(name) is not None:
            continue
        sheet = unquote_sheet(prefix[:-1]) if prefix else site.sheet
        found = names.get((sheet, name.upper())) or names.get(("", name.upper()))
        if found is None:
            continue
        written, single = found
        text = text_at(written, site.row, site.col)
        if text is None:
            raise NotComputed(f"the defined name {name}, whose relative reference would come round the sheet's "
                              "edge from this cell (Excel's reading of that is not known here)")
        edits.replace(index, index + 1, text[1:] if single else f"({text[1:]})")
    return edits.text()
