"""Spreadsheet primitives, in one place: cells and areas of a sheet, A1 references, sheet-name
quoting, RATES calls.

Used by calc, the classic refresh and scope, respell, the templates and the Office.js
metadata, so they agree on every rule below. Host-free: no Excel, no xlwings. Column
arithmetic is openpyxl's (`openpyxl.utils.cell`); only the bounds (Excel's, not openpyxl's
ZZZ) and the rules openpyxl does not have are written here.

- A cell of a book is a `Key`: (sheet title, "B7"). A block of cells is an `Area`:
  (top, left, bottom, right), 1-based and inclusive, the one corner order everywhere
  (openpyxl's `range_boundaries` order, (left, top, right, bottom), is never used).
- Columns run A..XFD (1..16384), rows 1..1048576; anything else raises ValueError.
  `parse_area` is the one A1 parser: a cell (`$B$7`), a range in either corner order
  (`C10:A1`), whole columns (`A:C`) or rows (`2:5`); `split_reference` takes a sheet off
  (`'My Data'!A1:B2`). `read_area` is the same parser for formula operands, None instead
  of an error (a defined name, a structured reference).
- A sheet name is quoted as Excel writes it in a formula: only when it is not a plain
  name (a letter or underscore, then letters, digits, underscores; Unicode letters count)
  or when it reads as a cell reference (`A1`, `XFD1`, `R1C1`, `R`, `C`), with an
  apostrophe inside doubled: `Bob's` -> `'Bob''s'`. (openpyxl's `quote_sheetname` always
  quotes; it is used for the quoting itself, which doubles the apostrophe as Excel does.)
- A RATES call is a RATES function name followed by "(": `RATES_SWAP(`, the Office.js
  spelling `RATES.SWAP(`, Excel's stored forms `_xludf.RATES_SWAP(` and
  `_xldudf_RATES_SWAP(`, or qualified by a workbook (`[1]!RATES_SWAP(`,
  `rates_xl.xlam!RATES_SWAP(`); in any letter case; never a longer name that contains
  it (`XRATES_SWAP(`, `MY.RATES_SWAP(`), nor text in a string literal or a quoted name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import NamedTuple

from openpyxl.utils.cell import column_index_from_string, get_column_letter, quote_sheetname

MAX_ROW, MAX_COL = 1_048_576, 16_384

#: A cell of a book: (sheet title, "B7").
Key = tuple[str, str]

_CELL = re.compile(r"^(\$?)([A-Za-z]{1,3})(\$?)([0-9]{1,7})$")
_COLUMN = re.compile(r"^[A-Za-z]{1,3}$")
_R1C1 = re.compile(r"^R[0-9]*C[0-9]*$|^[RC]$", re.IGNORECASE)
_PLAIN_NAME = re.compile(r"^[^\W\d]\w*$")  # a (Unicode) letter or "_", then word characters
#: A1 as Excel writes it in a file, for readers that scan formula text at speed (a formula's
#: shape, calc/formula/shapes.py): a column's letters in capitals, a row's digits with no
#: leading 0 (so that the text written back is the text read), and one corner (`$B$7`, `B`,
#: `7`) in four groups: the column's $, its letters, the row's $, its digits.
A1_LETTERS = r"[A-Z]{1,3}"
A1_DIGITS = r"[1-9][0-9]{0,6}"
A1_CORNER = re.compile(rf"(\$?)({A1_LETTERS})?(\$?)({A1_DIGITS})?")
#: Text that looks like a cell or a range of cells in any case (`b7`, `$a$1:c3`).
A1_LOOKS_LIKE = re.compile(r"^\$?[A-Za-z]{1,3}\$?[0-9]+(:\$?[A-Za-z]{1,3}\$?[0-9]+)?$")

# -- columns and cells ------------------------------------------------------------------------


def column_number(letters: str) -> int:
    """`"A"` -> 1, `"xfd"` -> 16384; ValueError outside A..XFD."""
    if not isinstance(letters, str) or not _COLUMN.match(letters):
        raise ValueError(f"not a column: {letters!r}")
    number = column_index_from_string(letters.upper())
    if number > MAX_COL:
        raise ValueError(f"column {letters!r} is past XFD")
    return number


def column_letters(number: int) -> str:
    """1 -> `"A"`, 16384 -> `"XFD"`; ValueError outside 1..16384."""
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= MAX_COL:
        raise ValueError(f"column {number!r} is outside 1..{MAX_COL}")
    return get_column_letter(number)


def parse_cell(text: str) -> tuple[int, int]:
    """`"$B$7"` or `"b7"` -> (row 7, column 2); ValueError for anything else or off the sheet."""
    found = _cell(text.strip()) if isinstance(text, str) else None
    if found is None:
        raise ValueError(f"not an A1 cell reference: {text!r}")
    return found


def cell_address(row: int, col: int) -> str:
    """(7, 2) -> `"B7"`: the relative A1 form."""
    if isinstance(row, bool) or not isinstance(row, int) or not 1 <= row <= MAX_ROW:
        raise ValueError(f"row {row!r} is outside 1..{MAX_ROW}")
    return f"{column_letters(col)}{row}"


@lru_cache(maxsize=65536)
def _cell(text: str) -> tuple[int, int] | None:
    """(row, column) of one A1 cell (`$B$7`, `b7`), None for anything else: the one reading
    of A1 (`parse_cell`, `parse_area`, `read_area` and `looks_like_cell_reference` use it)."""
    match = _CELL.match(text)
    if match is None:
        return None
    try:
        col = column_number(match.group(2))
    except ValueError:  # past XFD: a name, not a cell
        return None
    row = int(match.group(4))
    return (row, col) if 1 <= row <= MAX_ROW else None


# -- areas ------------------------------------------------------------------------------------


class Area(NamedTuple):
    """A block of cells, 1-based and inclusive: (top, left, bottom, right), corners in that
    order everywhere (it unpacks as `r1, c1, r2, c2`)."""

    top: int
    left: int
    bottom: int
    right: int

    @classmethod
    def of(cls, row1: int, col1: int, row2: int, col2: int) -> Area:
        """The area between two corners given in either order."""
        return cls(min(row1, row2), min(col1, col2), max(row1, row2), max(col1, col2))

    @classmethod
    def cell(cls, row: int, col: int) -> Area:
        return cls(row, col, row, col)

    @property
    def rows(self) -> int:
        return self.bottom - self.top + 1

    @property
    def columns(self) -> int:
        return self.right - self.left + 1

    @property
    def size(self) -> int:
        return self.rows * self.columns

    @property
    def is_cell(self) -> bool:
        return self.top == self.bottom and self.left == self.right

    def __contains__(self, cell: object) -> bool:
        """`(row, col) in area`."""
        if not isinstance(cell, tuple) or len(cell) != 2:
            return False
        row, col = cell
        return self.top <= row <= self.bottom and self.left <= col <= self.right

    def intersects(self, other: Area) -> bool:
        return not (other.left > self.right or other.right < self.left
                    or other.top > self.bottom or other.bottom < self.top)

    def intersection(self, other: Area) -> Area | None:
        """The cells both hold (Excel's ` ` operator), None when they share none."""
        if not self.intersects(other):
            return None
        return Area(max(self.top, other.top), max(self.left, other.left),
                    min(self.bottom, other.bottom), min(self.right, other.right))

    def span(self, other: Area) -> Area:
        """The smallest area holding both (Excel's `:` operator between two references)."""
        return Area(min(self.top, other.top), min(self.left, other.left),
                    max(self.bottom, other.bottom), max(self.right, other.right))

    def cells(self) -> Iterator[tuple[int, int]]:
        """(row, col) of every cell, row by row."""
        for row in range(self.top, self.bottom + 1):
            for col in range(self.left, self.right + 1):
                yield row, col

    def a1(self, absolute: bool = False) -> str:
        """`"B7"` for one cell, `"B7:C9"` otherwise; `"$B$7:$C$9"` when `absolute`."""
        dollar = "$" if absolute else ""
        first = f"{dollar}{column_letters(self.left)}{dollar}{self.top}"
        if self.is_cell:
            return first
        return f"{first}:{dollar}{column_letters(self.right)}{dollar}{self.bottom}"


def parse_area(text: str) -> Area:
    """`"A1:C10"`, `"$C$10:A1"`, `"B2"`, `"A:C"`, `"2:5"` -> its Area; ValueError for
    anything else (a sheet prefix is not taken here: `split_reference`)."""
    area = read_area(text) if isinstance(text, str) else None
    if area is None:
        raise ValueError(f"not an A1 range: {text!r}")
    return area


@lru_cache(maxsize=65536)
def read_area(text: str, whole_lines: bool = True) -> Area | None:
    """The Area an A1 reference without its sheet covers (as `parse_area`), None for anything
    else (a name, a structured reference, R1C1); whole columns and rows only when
    `whole_lines`. Asked of every operand of every formula: cached."""
    first, colon, second = text.partition(":")
    if ":" in second:
        return None
    if not colon:
        found = _cell(first)
        return Area(found[0], found[1], found[0], found[1]) if found else None
    a, b = _cell(first), _cell(second)
    if a is not None and b is not None:
        return Area.of(a[0], a[1], b[0], b[1])
    if not whole_lines or a is not None or b is not None:
        return None
    first, second = first.removeprefix("$"), second.removeprefix("$")
    if _COLUMN.match(first) and _COLUMN.match(second):
        try:
            c1, c2 = column_number(first), column_number(second)
        except ValueError:
            return None
        return Area(1, min(c1, c2), MAX_ROW, max(c1, c2))
    if first.isdigit() and second.isdigit() and first.isascii() and second.isascii():
        r1, r2 = int(first), int(second)
        if 1 <= r1 <= MAX_ROW and 1 <= r2 <= MAX_ROW:
            return Area(min(r1, r2), 1, max(r1, r2), MAX_COL)
    return None


#: A range that may be wide: whole columns (`A:XFD`), whole rows (`1:1048576`), or one ending
#: past column ZZ or row 999 (calc/budget.py counts what those read).
_WIDE = re.compile(r"(?<![\w.])\$?[A-Za-z]{1,3}:\$?[A-Za-z]{1,3}(?![\w(])|(?<![\w.$])\$?\d+:\$?\d+(?![\w.])"
                   r"|:\$?[A-Za-z]{1,3}\$?\d{4,7}|:\$?[A-Za-z]{3}\$?\d+")


def may_read_wide_range(text: str) -> bool:
    """Whether a formula (or a defined name's text) may hold a wide range (`_WIDE`): a cheap
    test before its tokens are read. Every form holds a ':', and most formulas none: asked of
    every formula of a book, the search is left out for those (poi_StructuredRefs' 7,274
    formulas: 0.026 -> 0.003 CPU s)."""
    return ":" in text and _WIDE.search(text) is not None


def is_whole_lines(area: Area) -> bool:
    """Whole columns or whole rows (`A:C`, `2:5`)."""
    return (area.top == 1 and area.bottom == MAX_ROW) or (area.left == 1 and area.right == MAX_COL)


def split_reference(text: str) -> tuple[str, str]:
    """`'Sheet 1'!$A$1:B3` -> (`'Sheet 1'!`, `$A$1:B3`); no sheet: ("", the text)."""
    if "!" in text:
        sheet, _, ref = text.rpartition("!")
        return sheet + "!", ref
    return "", text


#: Two corners joined by a colon in formula text (cells, whole columns, whole rows): the cheap
#: test of `may_hold_reversed_range`.
_CORNERS = re.compile(r"(?<![\w.])\$?([A-Za-z]{1,3})?\$?(\d+)?:\$?([A-Za-z]{1,3})?\$?(\d+)?(?![\w(])")
_ROWS = re.compile(r"^(\$?)([0-9]{1,7})$")


def _letters_order(letters: str) -> tuple[int, str]:
    return len(letters), letters.upper()


def may_hold_reversed_range(text: str) -> bool:
    """Whether a formula's text may hold a range written with its corners the other way round
    (`A3:A1`, `C:A`, `5:1`): the cheap test before its tokens are read."""
    for found in _CORNERS.finditer(text):
        c1, r1, c2, r2 = found.groups()
        if (c1 and c2 and _letters_order(c1) > _letters_order(c2)) or (r1 and r2 and int(r1) > int(r2)):
            return True
    return False


def ordered_reference(reference: str) -> str:
    """A range reference (its sheet's name kept) with its corners top-left first, as Excel reads
    one written the other way round: `A3:A1` is `A1:A3`, `'S'!$F$1:D22` is `'S'!D$1:$F22`
    (each `$` stays with its row or column), `C:A` is `A:C`, `5:1` is `1:5`. Anything else
    (one cell, a name, a row 0) as it is."""
    prefix, ref = split_reference(reference)
    first, colon, second = ref.partition(":")
    if not colon or ":" in second:
        return reference
    a, b = _CELL.match(first), _CELL.match(second)
    if a is not None and b is not None and int(a[4]) > 0 and int(b[4]) > 0:
        (d1, c1, e1, r1), (d2, c2, e2, r2) = a.groups(), b.groups()
        if _letters_order(c1) > _letters_order(c2):
            d1, c1, d2, c2 = d2, c2, d1, c1
        if int(r1) > int(r2):
            e1, r1, e2, r2 = e2, r2, e1, r1
        return f"{prefix}{d1}{c1}{e1}{r1}:{d2}{c2}{e2}{r2}"
    left, right = first.removeprefix("$"), second.removeprefix("$")
    if _COLUMN.match(left) and _COLUMN.match(right) and _letters_order(left) > _letters_order(right):
        return f"{prefix}{second}:{first}"
    rows_a, rows_b = _ROWS.match(first), _ROWS.match(second)
    if rows_a is not None and rows_b is not None and int(rows_a[2]) > int(rows_b[2]) > 0:
        return f"{prefix}{second}:{first}"
    return reference


def resized_reference(reference: str, rows: int, columns: int) -> str | None:
    """A range reference (its sheet kept) made `rows` by `columns` from its top-left cell, as
    SUMIF reads its sum range: `U1` 5 by 1 is `U1:U5`, `$U$1:$W$1` is `$U$1:$U$5`, `'S'!U:U` is
    `'S'!U$1:U$5` (a row the reference does not write is fixed, so that the copy of the formula
    in another row reads the same cells). None where it passes the sheet's edge or the reference
    is not an A1 area (a name)."""
    prefix, ref = split_reference(reference)
    area = read_area(ref)
    if area is None or area.top + rows - 1 > MAX_ROW or area.left + columns - 1 > MAX_COL:
        return None
    first = _CELL.match(ref.partition(":")[0])
    if first is not None:
        column_dollar, row_dollar = first.group(1), first.group(3)
    else:  # whole columns (`U:U`: the row fixed) or whole rows (`3:3`: the column fixed)
        whole_columns = area.top == 1 and area.bottom == MAX_ROW
        dollar = "$" if ref.startswith("$") else ""
        column_dollar, row_dollar = (dollar, "$") if whole_columns else ("$", dollar)
    corners = [(area.top, area.left), (area.top + rows - 1, area.left + columns - 1)]
    written = [f"{column_dollar}{column_letters(c)}{row_dollar}{r}" for r, c in corners]
    return prefix + (written[0] if rows == columns == 1 else ":".join(written))


#: One R1C1 corner: R and C each with a number (absolute), a number in brackets (relative to the
#: cell the formula is in) or nothing (its own row or column); one of them may be left out
#: (a whole row, `R3`, or column, `C[-1]`).
_R1C1_PART = re.compile(r"^(?:R(\[-?\d+\]|\d+)?)?(?:C(\[-?\d+\]|\d+)?)?$", re.IGNORECASE)


def _r1c1_line(written: str | None, own: int | None) -> int | None:
    if not written:
        return own
    if written.startswith("["):
        return None if own is None else own + int(written[1:-1])
    return int(written)


def r1c1_reference(reference: str, row: int | None = None, column: int | None = None) -> str | None:
    """An R1C1 reference (INDIRECT's text given a1 FALSE) in A1, for the formula in (`row`,
    `column`): `R3C20` is T3, `RC[-1]` the cell to the left, `R2C1:R3C2` A2:B3, `R3` the whole
    row 3:3, `C[1]` the column to the right; its sheet kept. None for anything else, or for a
    cell outside the sheet (Excel's #REF!), or a relative one where the cell is not given."""
    prefix, ref = split_reference(reference.strip())
    corners = []
    for part in ref.split(":") if ref.count(":") <= 1 else []:
        found = _R1C1_PART.match(part)
        if found is None or not part:
            return None
        has_row, has_column = part[:1].upper() == "R", "C" in part.upper()
        r = _r1c1_line(found.group(1), row) if has_row else None
        c = _r1c1_line(found.group(2), column) if has_column else None
        if (has_row and r is None) or (has_column and c is None):
            return None
        if (r is not None and not 1 <= r <= MAX_ROW) or (c is not None and not 1 <= c <= MAX_COL):
            return None
        corners.append((r, c))
    kinds = {(r is not None, c is not None) for r, c in corners}
    if not corners or len(kinds) != 1:
        return None
    if kinds == {(True, True)}:
        written = [cell_address(r, c) for r, c in corners if r is not None and c is not None]
    elif kinds == {(True, False)}:
        written = [str(r) for r, _ in corners]
        written = written * 2 if len(written) == 1 else written
    else:
        written = [column_letters(c) for _, c in corners if c is not None]
        written = written * 2 if len(written) == 1 else written
    return prefix + ":".join(written)


def cell_reference(text: str) -> tuple[str | None, str] | None:
    """`'My Data'!$b$7` -> ("My Data", "B7"), `B7` -> (None, "B7"): one cell, perhaps with its
    sheet (None: the formula's own); None for anything else."""
    prefix, ref = split_reference(text)
    found = _cell(ref)
    return (sheet_of(prefix), cell_address(*found)) if found is not None else None


def sheet_of(prefix: str) -> str | None:
    """The sheet a reference's prefix names (`'Bob''s'!` -> `Bob's`); None for no prefix."""
    return unquote_sheet(prefix[:-1]) if prefix else None


def looks_like_cell_reference(name: str) -> bool:
    """True for names Excel would read as a cell: `A1`..`XFD1048576`, or R1C1-style (`R1C1`, `RC`)."""
    if "$" not in name and _cell(name) is not None:
        return True
    return bool(_R1C1.match(name))


# -- sheet names ------------------------------------------------------------------------------


def quote_sheet(name: str) -> str:
    """A sheet name as a formula writes it before "!": `Data`, `'My Data'`, `'Bob''s'`, `'A1'`."""
    if _PLAIN_NAME.match(name) and not looks_like_cell_reference(name):
        return name
    return quote_sheetname(name)


def unquote_sheet(text: str) -> str:
    """`'Bob''s'` -> `Bob's`; a plain name as it is."""
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    return text


def address(sheet: str, cell: str) -> str:
    """`("My Data", "B7")` -> `'My Data'!B7`."""
    return f"{quote_sheet(sheet)}!{cell}"


# -- RATES calls ------------------------------------------------------------------------------

#: A RATES call: optional `[n]!` external-link and stored prefixes (`_xludf.`: an unknown
#: function, some writers; `_xldudf_`: an Office.js custom function, the namespace's dot as
#: "_"), RATES, "_" or ".", the
#: function (group "name"), then "(". Not preceded by a name character, so `XRATES_SWAP(`
#: and `MY.RATES_SWAP(` are not calls; `book.xlam!RATES_SWAP(` is.
RATES_CALL = re.compile(
    r"(?<![A-Za-z0-9_.\\])(?:\[\d+\]!)?(?:_xludf\.|_xldudf_)?RATES[._](?P<name>[A-Za-z][A-Za-z0-9]*)(?=\s*\()",
    re.IGNORECASE,
)
_STRING_LITERAL = re.compile(r'"(?:[^"]|"")*"')
_QUOTED_NAME = re.compile(r"'(?:[^']|'')*'")


def rates_calls(formula: object) -> list[str]:
    """The RATES functions a formula (`=...`) calls, upper-case suffixes (`SWAP`), in order.

    String literals and quoted sheet/book names are blanked first, so text in them never counts.
    """
    if not isinstance(formula, str) or not formula.startswith("="):
        return []
    bare = _QUOTED_NAME.sub("''", _STRING_LITERAL.sub('""', formula))
    return [m.group("name").upper() for m in RATES_CALL.finditer(bare)]


def is_rates_name(name: str) -> bool:
    """True for a bare function name (prefixes already removed) of either spelling: RATES_X, RATES.X."""
    return name.upper().startswith(("RATES_", "RATES."))
