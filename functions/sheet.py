"""Spreadsheet primitives, in one place: A1 cells and ranges, sheet-name quoting, RATES calls.

Used by calc, the classic refresh and scope, respell and the Office.js metadata, so they
agree on every rule below. Host-free: no Excel, no xlwings. Column arithmetic is
openpyxl's (`openpyxl.utils.cell`); only the bounds (Excel's, not openpyxl's ZZZ) and the
rules openpyxl does not have are written here.

- Columns run A..XFD (1..16384), rows 1..1048576; anything else raises ValueError.
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

from openpyxl.utils.cell import column_index_from_string, get_column_letter, quote_sheetname

MAX_ROW, MAX_COL = 1_048_576, 16_384

_CELL = re.compile(r"^\$?([A-Za-z]{1,3})\$?([0-9]{1,7})$")
_COLUMN = re.compile(r"^[A-Za-z]{1,3}$")
_A1 = re.compile(r"^([A-Za-z]{1,3})([0-9]+)$")
_R1C1 = re.compile(r"^R[0-9]*C[0-9]*$|^[RC]$", re.IGNORECASE)
_PLAIN_NAME = re.compile(r"^[^\W\d]\w*$")  # a (Unicode) letter or "_", then word characters

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
    match = _CELL.match(text.strip()) if isinstance(text, str) else None
    if not match:
        raise ValueError(f"not an A1 cell reference: {text!r}")
    row, col = int(match.group(2)), column_number(match.group(1))
    if not 1 <= row <= MAX_ROW:
        raise ValueError(f"cell reference outside the sheet: {text!r}")
    return row, col


def cell_address(row: int, col: int) -> str:
    """(7, 2) -> `"B7"`: the relative A1 form."""
    if isinstance(row, bool) or not isinstance(row, int) or not 1 <= row <= MAX_ROW:
        raise ValueError(f"row {row!r} is outside 1..{MAX_ROW}")
    return f"{column_letters(col)}{row}"


def parse_range(text: str) -> tuple[int, int, int, int]:
    """`"A1:C10"` or `"B2"` -> (top, left, bottom, right), corners in either order."""
    parts = text.split(":") if isinstance(text, str) else []
    if not 1 <= len(parts) <= 2:
        raise ValueError(f"not an A1 range: {text!r}")
    r1, c1 = parse_cell(parts[0])
    r2, c2 = parse_cell(parts[-1])
    return min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2)


def looks_like_cell_reference(name: str) -> bool:
    """True for names Excel would read as a cell: `A1`..`XFD1048576`, or R1C1-style (`R1C1`, `RC`)."""
    match = _A1.match(name)
    if match:
        return _in_sheet(match.group(1), match.group(2))
    return bool(_R1C1.match(name))


def _in_sheet(letters: str, digits: str) -> bool:
    try:
        column_number(letters)
    except ValueError:
        return False
    return 1 <= int(digits) <= MAX_ROW


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
