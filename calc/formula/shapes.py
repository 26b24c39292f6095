"""A formula's shape: its text with every A1 reference written relative to its own cell, as
R1C1 writes it (`=B4*2` in C4 and `=B5*2` in C5 have one shape), and the text a shape has in
another cell. The preparation (calc/engines/formualizer/prepare.py) rewrites a shape once and
writes the answer into each copy of it down a column (calc/formula/memo.py).

Two readings give the same shape: `shape` reads the tokens (functions/tokens.py: only a Range
operand is a reference, so text in quotes, names, table references and errors are kept as
written), `scanned` reads the text with one regular expression, several times faster, for the
copies (the memo takes a scanned shape only where `shape` agreed on its first copy). A
reference is read as Excel writes one in a file (`$A$1`, `A1:B2`, `A:A`, `1:1`, after a sheet
or a book's `[1]Sheet!`); one in lower case, or anything else looking half like one, leaves the
formula without a shape (it is then rewritten in full, never guessed).

A shape is a tuple alternating the text between references (a sheet's prefix and a range's ':'
included) and each reference's corner: (column absolute, column or its offset, row absolute,
row or its offset), no row for a whole column's corner, no column for a whole row's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any, cast

from rates_xl.errors import Internal
from rates_xl.functions.sheet import (
    A1_CORNER,
    A1_DIGITS,
    A1_LETTERS,
    A1_LOOKS_LIKE,
    MAX_COL,
    MAX_ROW,
    column_letters,
)
from rates_xl.functions.tokens import FormulaError, Token, tokenize

Corner = tuple[bool, int | None, bool, int | None]
Shape = tuple[str | Corner, ...]
#: A number that is the row of the cell it is written in (a whole row's corner, offset 0).
OWN_ROW: Corner = (False, None, False, 0)

_COLUMNS: dict[str, int] = {}  # letters -> number (every reference of a book asks one of a few)

# What `scanned` reads: text kept as written (a string, a quoted sheet, a bracket's content),
# else a whole column, a whole row or a cell, not inside a name or a call's name.
_BEFORE = r"(?<![\w.\\$])"
_AFTER = r"(?![\w(.!\[\\$])"
_SCAN = re.compile(
    r'"(?:[^"]|"")*"|\'(?:[^\']|\'\')*\'|\[[^\]]*\]'
    rf"|{_BEFORE}(\$?)({A1_LETTERS}):(\$?)({A1_LETTERS}){_AFTER}"
    rf"|{_BEFORE}(\$?)({A1_DIGITS}):(\$?)({A1_DIGITS}){_AFTER}"
    rf"|{_BEFORE}(\$?)({A1_LETTERS})(\$?)({A1_DIGITS}){_AFTER}")


class _Off(Internal):
    """A reference past the sheet's edge (a name, for Excel): no shape."""


def _column(letters: str) -> int:
    number = _COLUMNS.get(letters)
    if number is None:
        number = 0
        for ch in letters:
            number = number * 26 + ord(ch) - 64
        _COLUMNS[letters] = number
    if number > MAX_COL:
        raise _Off
    return number


def _made(dollar_c: str, letters: str | None, dollar_r: str, digits: str | None, row: int, col: int) -> Corner:
    c = r = None
    if letters is not None:
        c = _column(letters) - (0 if dollar_c else col)
    if digits is not None:
        r = int(digits)
        if r > MAX_ROW:
            raise _Off
        r -= 0 if dollar_r else row
    return (bool(dollar_c), c, bool(dollar_r), r)


def _corner(text: str, row: int, col: int) -> Corner | None:
    """`$B7` in (row, col) -> (True, 2, False, 7 - row); None when it is no corner."""
    match = A1_CORNER.fullmatch(text)
    if match is None or not text:
        return None
    dollar_c, letters, dollar_r, digits = match.groups()
    if letters is None and dollar_c:  # `$7`: a whole row's corner
        dollar_c, dollar_r = "", dollar_c
    if (letters is None and dollar_c) or (digits is None and dollar_r):
        return None
    try:
        return _made(dollar_c, letters, dollar_r, digits, row, col)
    except _Off:
        return None


def _reference(text: str, row: int, col: int) -> tuple[str, tuple[Corner, ...]] | str | None:
    """A Range operand as (its prefix, its corners), its text when it is no reference (a name,
    a table reference), None when it looks like one but cannot be read (no shape)."""
    bang = text.rfind("!")
    prefix, ref = (text[:bang + 1], text[bang + 1:]) if bang >= 0 else ("", text)
    if "[" in ref or not ref:
        return text
    first, colon, last = ref.partition(":")
    a = _corner(first, row, col)
    if a is None:
        return None if A1_LOOKS_LIKE.match(ref) or ref[:1] == "$" or ref[:1].isdigit() else text
    if not colon:
        if a[1] is None or a[3] is None:  # `A` alone is a name; `7` alone no reference
            return text if a[0] is False and a[2] is False and a[3] is None else None
        return (prefix, (a,))
    b = _corner(last, row, col)
    if b is None or (a[1] is None) != (b[1] is None) or (a[3] is None) != (b[3] is None):
        return None
    if a[1] is not None and a[3] is not None and (b[1] is None or b[3] is None):
        return None
    return (prefix, (a, b))


#: What `shape(..., own_row=)` reads as the row of the cell the formula is written in, when it
#: is that row: a reference's absolute row (`(c..., True, 0)`), a number (`OWN_ROW`).
REFERENCES, NUMBERS = frozenset({"references"}), frozenset({"numbers"})


def shape(text: str, row: int, col: int, own_row: frozenset[str] = frozenset(),
          tokens: Sequence[Token] | None = None) -> Shape | None:
    """The shape of `text` written in (row, col), read from its tokens (`tokens`: those of
    `text`, already read); None when it has none (the tokenizer refuses it, or a reference
    cannot be read). `own_row`: `REFERENCES`, `NUMBERS` or both, read as the row of the cell
    it is written in where they are."""
    if tokens is None:
        try:
            tokens = tokenize(text)
        except FormulaError:
            return None
    pieces: list[str | Corner] = []
    literal, at = "", 0
    own = str(row)
    for token in tokens:
        if "numbers" in own_row and token.kind == "Operand" and token.sub == "Number" and token.text == own:
            pieces += [literal + text[at:token.start], OWN_ROW]
            literal, at = "", token.end
            continue
        if token.kind != "Operand" or token.sub != "Range":
            continue
        found = _reference(token.text, row, col)
        if found is None:
            return None
        if isinstance(found, str):
            continue  # kept as written, with the text around it
        prefix, corners = found
        if "references" in own_row:
            corners = tuple((a, c, b, 0) if b and r == row else (a, c, b, r) for a, c, b, r in corners)
        literal += text[at:token.start] + prefix
        for k, corner in enumerate(corners):
            pieces += [literal, corner]
            literal = ":" if k + 1 < len(corners) else ""
        at = token.end
    pieces.append(literal + text[at:])
    return tuple(pieces)


def scanned(text: str, row: int, col: int) -> Shape | None:
    """`shape`, read from the text by `_SCAN` (no tokens): the same where the tokens agree."""
    pieces: list[str | Corner] = []
    at = 0
    try:
        for match in _SCAN.finditer(text):
            g = match.groups()
            corners: tuple[Corner, ...]
            if g[1] is not None:  # whole columns
                corners = (_made(g[0], g[1], "", None, row, col), _made(g[2], g[3], "", None, row, col))
            elif g[5] is not None:  # whole rows
                corners = (_made("", None, g[4], g[5], row, col), _made("", None, g[6], g[7], row, col))
            elif g[9] is not None:  # a cell
                corners = (_made(g[8], g[9], g[10], g[11], row, col),)
            else:
                continue  # text kept as written
            pieces.append(text[at:match.start()])
            if len(corners) == 2:
                pieces += [corners[0], ":"]
            pieces.append(corners[-1])
            at = match.end()
    except _Off:
        return None
    pieces.append(text[at:])
    return tuple(pieces)


#: A plain reference on the formula's own sheet, as Excel writes one in a file (`$B7:C9`).
_PLAIN = re.compile(rf"\$?{A1_LETTERS}\$?{A1_DIGITS}(?::\$?{A1_LETTERS}\$?{A1_DIGITS})?")


def reference_shape(text: str, row: int, col: int) -> Shape | None:
    """`shape("=" + text, row, col)` of an operand's text (a reference, a name ...), asked of
    each range whose size a rewriting asks (calc/formula/memo.py). A plain reference whose
    corners are on the sheet is read without its tokens: the tokenizer reads it as one Range
    operand (tests/calc/test_shape_memo.py), whose corners are `_reference`'s; any other text
    (a corner past the sheet's edge splits it into two operands) is read by `shape`."""
    if _PLAIN.fullmatch(text) is not None:
        found = _reference(text, row, col)
        if isinstance(found, tuple):
            corners = found[1]
            return ("=", corners[0], "") if len(corners) == 1 else ("=", corners[0], ":", corners[1], "")
    return shape("=" + text, row, col)


class Scanner:
    """Formulas' shapes read over one walk of a book (`read`: `scanned` unless given another
    reading), each first as the shape last read in the formula's column, then in its row: one
    that writes the formula's text in its cell is taken without reading the text, and writing
    it costs a fraction of reading (poi_StructuredRefs: 28 scans for its 7,274 formulas). For
    `scanned` that is the shape it reads: `text_at` writes each reference as `scanned` reads
    one, of the same kind, and the text around them as it was (tests/calc/test_shape_memo.py)."""

    def __init__(self, read: Callable[[str, int, int], Shape | None] = scanned) -> None:
        self._read = read
        self._down: dict[tuple[str, int], Shape] = {}  # (sheet, column) -> the last shape read
        self._along: dict[tuple[str, int], Shape] = {}  # (sheet, row) -> the same

    def __call__(self, sheet: str, text: str, row: int, col: int) -> Shape | None:
        down, along = (sheet, col), (sheet, row)
        for recent in (self._down.get(down), self._along.get(along)):
            # (Its text up to the first reference, first: most formulas beside another differ there.)
            if recent is not None and text.startswith(cast(str, recent[0])) and text_at(recent, row, col) == text:
                return recent
        found = self._read(text, row, col)
        if found is not None:
            self._down[down] = self._along[along] = found
        return found


_LETTERS: dict[int, str] = {}  # column number -> letters (a book writes a few, many times)


def _letters(c: int) -> str:
    letters = _LETTERS.get(c)
    if letters is None:
        letters = _LETTERS[c] = column_letters(c)
    return letters


def text_at(found: Shape, row: int, col: int) -> str | None:
    """The text a shape has in (row, col); None when a reference falls off the sheet there.
    (A shape alternates text and corners, text first and last: read so, each corner written
    here, not by a call per corner. Asked of most formulas of a book, some twice.)"""
    pieces: Iterator[Any] = iter(found)
    out = [next(pieces)]
    for absolute_c, c, absolute_r, r in pieces:
        if c is None:
            written = ""
        else:
            if not absolute_c:
                c += col
            if not 1 <= c <= MAX_COL:
                return None
            written = _LETTERS.get(c) or _letters(c)
            if absolute_c:
                written = "$" + written
        if r is not None:
            if absolute_r:
                r = r or row  # (absolute row 0: the cell's own)
            else:
                r += row
            if not 1 <= r <= MAX_ROW:
                return None
            written += f"${r}" if absolute_r else str(r)
        out.append(written)
        out.append(next(pieces))
    return "".join(out)


def moved(text: str, origin: tuple[int, int], to: tuple[int, int]) -> str | None:
    """`text` written in `origin`, as the same shape is written in `to` (None: no shape, or
    a reference falls off the sheet)."""
    found = shape(text, *origin)
    return None if found is None else text_at(found, *to)
