"""A shared formula's copies, as openpyxl's `Translator` writes them, translated faster.

Excel stores a formula filled over a range once (`<f t="shared" si="0" ref="B2:B900">`) and
each other cell of the range as a reference to it (`<f t="shared" si="0"/>`); openpyxl's
reader writes each copy out with `Translator.translate_formula`, which matches every range
token of the formula against three regular expressions again for each cell (formulas_test.xlsx:
8,102 copies). `Template` does that matching once per shared formula and keeps the formula
as text pieces and relative rows and columns, so that each copy is the pieces joined with its
offsets added: the same text, character for character (tests/calc/test_stored_cells.py
compares both on every shared formula of every corpus and test book). A copy whose row or
column falls off the sheet is openpyxl's own (its `TranslatorError`, or a column past XFD,
which openpyxl writes up to ZZZ). Reproduces openpyxl 3.1.5's `Translator` (calc/stored_cells.py
uses it only with that version).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rates_xl.functions.sheet import MAX_COL, column_letters, column_number

if TYPE_CHECKING:
    from openpyxl.formula.translate import Translator

#: An offset no copy reaches (a sheet's own size past either side): the bound of a copy's offset
#: where the formula has no relative row, or no relative column.
MIN_OFFSET = -(1 << 40)
#: A column -> its letters, as the copies write them (at most one entry for each of a sheet's columns).
_LETTERS: dict[int, str] = {}
#: A piece of a copy: text as it is, or a relative row (True, its number) or column (False,
#: its index) moved by the copy's offset.
_Piece = str | tuple[bool, int]


class Template:
    """`translator`'s formula, ready to be written at any cell (`at`)."""

    def __init__(self, translator: Translator) -> None:
        from openpyxl.formula.tokenizer import Token

        self.translator = translator
        # (where the formula is written; openpyxl's attributes, which the stubs do not declare)
        self.origin: tuple[int, int] = (getattr(translator, "row"), getattr(translator, "col"))  # noqa: B009
        tokens = translator.get_tokens()
        self.constant: str | None = None  # a formula openpyxl writes the same everywhere
        self.pieces: list[_Piece] | None = None  # None: every copy is openpyxl's own
        if not tokens:
            self.constant = ""
        elif tokens[0].type == Token.LITERAL:
            self.constant = tokens[0].value
        else:
            pieces: list[_Piece] = ["="]
            try:
                for token in tokens:
                    if token.type == Token.OPERAND and token.subtype == Token.RANGE:
                        pieces.extend(_range(token.value))
                    else:
                        pieces.append(token.value)
            except ValueError:  # a column past XFD: openpyxl's own translation, copy by copy
                return
            self.pieces = _merged(pieces)
            self._ready(self.pieces)

    def _ready(self, pieces: list[_Piece]) -> None:
        """What `at` writes each copy with: the pieces' texts with a slot for each relative row
        and column, the slots, and the offsets within which every row and column of a copy
        stays on the sheet (a check for the copy, not one for each of its pieces)."""
        self._texts: list[str] = []
        self._rows: list[tuple[int, int]] = []  # (index in `_texts`, the row)
        self._columns: list[tuple[int, int]] = []  # (index in `_texts`, the column)
        for index, piece in enumerate(pieces):
            if isinstance(piece, str):
                self._texts.append(piece)
                continue
            self._texts.append("")
            (self._rows if piece[0] else self._columns).append((index, piece[1]))
        rows = [number for _index, number in self._rows]
        columns = [number for _index, number in self._columns]
        self._least_rows = 1 - min(rows) if rows else MIN_OFFSET
        self._least_columns = 1 - min(columns) if columns else MIN_OFFSET
        self._most_columns = MAX_COL - max(columns) if columns else -MIN_OFFSET

    def at(self, row: int, column: int, coordinate: str) -> str:
        """The copy at `coordinate`, (row, column): openpyxl's `translate_formula(coordinate)`;
        copied by it where a row or column falls off the sheet (it raises or goes past XFD)."""
        if self.constant is not None:
            return self.constant
        if self.pieces is None:
            return self.translator.translate_formula(coordinate)
        rows, columns = row - self.origin[0], column - self.origin[1]
        if rows < self._least_rows or not self._least_columns <= columns <= self._most_columns:
            # A row at 0 or above (openpyxl's TranslatorError), a column off the sheet.
            return self.translator.translate_formula(coordinate)
        out = self._texts.copy()
        for index, number in self._rows:
            out[index] = str(number + rows)
        for index, number in self._columns:
            if (letters := _LETTERS.get(number + columns)) is None:
                letters = _LETTERS[number + columns] = column_letters(number + columns)
            out[index] = letters
        return "".join(out)


def translator(formula: str, origin: str) -> Translator:
    """openpyxl's `Translator` of a shared formula written at `origin` (its first cell), as its
    reader's `parse_formula` makes it for the copies (calc/stored_cells.py reads that cell)."""
    from openpyxl.formula.translate import Translator

    return Translator(formula, origin)


def _range(text: str) -> list[_Piece]:
    """`Translator.translate_range`'s reading of one range token, as pieces."""
    from openpyxl.formula.translate import Translator

    ws_part, text = Translator.strip_ws_name(text)
    if (match := Translator.ROW_RANGE_RE.match(text)) is not None:  # e.g. `3:4`
        return [ws_part, _row(match.group(1)), ":", _row(match.group(2))]
    if (match := Translator.COL_RANGE_RE.match(text)) is not None:  # e.g. `A:BC`
        return [ws_part, _column(match.group(1)), ":", _column(match.group(2))]
    if ":" in text:  # e.g. `A1:B5`, or names at either end
        pieces: list[_Piece] = [ws_part]
        for index, part in enumerate(text.split(":")):
            pieces.extend([":", *_range(part)] if index else _range(part))
        return pieces
    if (match := Translator.CELL_REF_RE.match(text)) is None:  # a name
        return [text]
    return [ws_part, _column(match.group(1)), _row(match.group(2))]


def _row(text: str) -> _Piece:
    return text if text.startswith("$") else (True, int(text))


def _column(text: str) -> _Piece:
    """A relative column's number (ValueError past XFD: openpyxl's reading reaches ZZZ)."""
    return text if text.startswith("$") else (False, column_number(text))


def _merged(pieces: list[_Piece]) -> list[_Piece]:
    """Adjacent texts joined into one."""
    merged: list[_Piece] = []
    for piece in pieces:
        if isinstance(piece, str) and merged and isinstance(merged[-1], str):
            merged[-1] += piece
        elif piece != "":
            merged.append(piece)
    return merged
