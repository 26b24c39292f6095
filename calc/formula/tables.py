"""Excel table references (`Sales[Amount]`, `Sales[#All]`, `Sales[[#This Row],[Amount]]`,
`Sales[@Amount]`, `Sales[[#Headers],[Region]:[Amount]]`, a table's bare name) written as the
plain ranges they stand for.

formualizer reads no table from a file, so every structured reference was #NAME? (and
`[#This Row]` a circular reference once a table is declared to it). The tables are read from
the book (openpyxl keeps their definitions); a reference naming a table or a column the book
does not have is reported instead (`UnknownReference`), never guessed.

Written by hand because no library resolves structured references outside an engine; the
grammar is Excel's (ECMA-376 18.17.6.3 "Structure References").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rates_xl.calc.formula.site import NotComputed
from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.sheet import column_letters, parse_area, quote_sheet

if TYPE_CHECKING:
    from openpyxl import Workbook

    from rates_xl.calc.formula.site import Site

_SPECIALS = {"#ALL", "#DATA", "#HEADERS", "#TOTALS", "#THIS ROW"}
_NAME_BEFORE_BRACKET = re.compile(r"([A-Za-z_\\][\w.\\]*)\[")


class UnknownReference(NotComputed):
    """A structured reference to a table or column the book does not define (the message
    names it)."""

    @property
    def reason(self) -> str:
        return f"a structured reference it cannot resolve: {self}"


@dataclass(frozen=True)
class Table:
    name: str
    sheet: str
    r1: int
    c1: int
    r2: int
    c2: int
    columns: tuple[str, ...]
    header: bool
    totals: bool


def tables(book: Workbook) -> dict[str, Table]:
    """Upper-case table name -> its definition, for every table of an openpyxl workbook."""
    found = {}
    for ws in book.worksheets:
        for table in getattr(ws, "tables", {}).values():
            r1, c1, r2, c2 = parse_area(table.ref)
            columns = tuple(str(column.name) for column in table.tableColumns)
            header = table.headerRowCount is None or int(table.headerRowCount) > 0
            totals = bool(table.totalsRowCount)  # totalsRowShown only says it was shown once
            found[table.displayName.upper()] = Table(table.displayName, ws.title, r1, c1, r2, c2,
                                                     columns, header, totals)
    return found


def may_name_a_table(upper: str, known: dict[str, Table]) -> bool:
    """The formula (upper case) names a table of the book, or may name a column of the table
    it is in (`[col3]`: the cheap test first)."""
    return bool(known) and ("[" in upper or any(name in upper for name in known))


def _table_at(known: dict[str, Table], site: Site) -> Table | None:
    """The table whose range holds the formula's cell, if any."""
    for table in known.values():
        if table.sheet == site.sheet and site.in_rows(table.r1, table.r2) and site.in_cols(table.c1, table.c2):
            return table
    return None


def structured(formula: Formula, site: Site) -> str:
    """Every structured reference to a table of the book as the range it stands for, in a cell
    of row `site.row` (`[#This Row]`); raises UnknownReference for a column or row the table
    does not have. Proved by poi_StructuredRefs-lots-with-lookups.xlsx (models) and
    tests/calc/test_structured.py (Excel's grammar, case by case)."""
    known = site.book.tables
    edits = formula.edits()
    for index, token in enumerate(formula.tokens):
        if not token.is_range:
            continue
        text = token.text
        match = _NAME_BEFORE_BRACKET.match(text)
        if match is not None:
            table = known.get(match.group(1).upper())
            if table is None:
                continue
            end = _closing(text, match.end(1))
            edits.replace(index, index + 1,
                          _range(table, text[match.end(1) + 1:end], site) + text[end + 1:])
        elif text.upper() in known:
            edits.replace(index, index + 1, _range(known[text.upper()], "", site))  # its data rows
        elif text.startswith("[") and "!" not in text and _closing(text, 0) == len(text) - 1:
            # A reference with no table's name, to the table the cell is in: Excel writes its
            # totals row so (`SUBTOTAL(109,[col3])`, pycel's Excel-made excelcompiler.xlsx,
            # sref!F4), and `[@col1]` may be typed in a table. (`[1]Sheet!A1` names another book.)
            table = _table_at(known, site)
            if table is None:
                raise UnknownReference(f"{text} outside any table")
            edits.replace(index, index + 1, _range(table, text[1:-1], site))
    return edits.text()


def _closing(text: str, open_at: int) -> int:
    """The index of the bracket closing the one at `open_at` (`'` escapes a bracket)."""
    depth, j = 0, open_at
    while j < len(text):
        ch = text[j]
        if ch == "'":
            j += 2
            continue
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    raise UnknownReference(f"unclosed structured reference in {text}")


def _items(spec: str) -> list[str]:
    """`[#This Row],[Amount]` -> ["#This Row", "Amount"]; `@Amount` -> ["#This Row", "Amount"];
    `[Region]:[Amount]` -> ["Region:Amount"]; `Amount` -> ["Amount"]."""
    spec = spec.strip()
    if spec.startswith("@"):
        rest = spec[1:].strip()
        if rest.startswith("[") and rest.endswith("]"):
            rest = rest[1:-1]
        return ["#This Row"] + ([rest] if rest else [])
    if not spec.startswith("["):
        return [spec] if spec else []
    items, j = [], 0
    while j < len(spec):
        if spec[j] == "[":
            end = _closing(spec, j)
            item = spec[j + 1:end]
            j = end + 1
            rest = spec[j:].lstrip()
            if rest.startswith(":["):  # a range of columns
                k = spec.index("[", j)
                end = _closing(spec, k)
                item = f"{item}:{spec[k + 1:end]}"
                j = end + 1
            items.append(item)
        else:
            j += 1
    return items


def _column(table: Table, part: str) -> int:
    """The index of the column `part` names: its name as written, without case, else with the
    spaces around it ignored (a column named "Field 4 ", with its space, is `[Field 4 ]` in
    apache/poi's Excel-made table-sample.xlsx; `[[#This Row], [Amount]]` spaces the items)."""
    for written in (part, part.strip()):
        for i, column in enumerate(table.columns):
            if column.upper() == written.upper():
                return i
    for i, column in enumerate(table.columns):
        if column.strip().upper() == part.strip().upper():
            return i
    raise UnknownReference(f"table {table.name} has no column {part.strip()!r}")


def _range(table: Table, spec: str, site: Site) -> str:
    rows: set[str] = set()
    columns: list[int] = []
    for item in _items(spec):
        name = re.sub(r"'(.)", r"\1", item).strip()
        if name.upper() in _SPECIALS or name == "@":
            rows.add("#THIS ROW" if name == "@" else name.upper())
            continue
        first, _, last = name.partition(":")
        for part in (first, last or first):
            columns.append(_column(table, part))
    data1 = table.r1 + (1 if table.header else 0)
    data2 = table.r2 - (1 if table.totals else 0)
    rows = rows or {"#DATA"}
    if "#THIS ROW" in rows:
        if rows != {"#THIS ROW"} or not site.in_rows(data1, data2):
            raise UnknownReference(f"{table.name}[#This Row] outside the table's rows")
        r1 = r2 = site.this_row()
    elif "#ALL" in rows:
        r1, r2 = table.r1, table.r2
    else:
        spans = {"#HEADERS": (table.r1, table.r1) if table.header else None, "#DATA": (data1, data2),
                 "#TOTALS": (table.r2, table.r2) if table.totals else None}
        picked = [spans[r] for r in rows]
        found = [span for span in picked if span is not None]
        if len(found) < len(picked):
            raise UnknownReference(f"table {table.name} has no {' '.join(sorted(rows))} row")
        r1, r2 = min(s[0] for s in found), max(s[1] for s in found)
    c1 = table.c1 + (min(columns) if columns else 0)
    c2 = table.c1 + (max(columns) if columns else len(table.columns) - 1)
    first = f"${column_letters(c1)}${r1}"
    last = f"${column_letters(c2)}${r2}"
    return f"{quote_sheet(table.sheet)}!{first}" + ("" if first == last else f":{last}")
