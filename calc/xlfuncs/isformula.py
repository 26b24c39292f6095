"""ISFORMULA answered from the book's own formulas, written into the formula's text before
the engine reads it.

formualizer answers FALSE for every cell, and whatever it did, its copy of the book holds the
formulas it does not compute as plain values (the file's cached ones), which no engine can
tell from typed-in numbers (formulas_test.xlsx `=ISFORMULA(F10)` over `=10`: Excel TRUE).
Whether a cell holds a formula does not change while the book calculates, so the answer is
read from the file: an anchor of a formula, or any cell of a legacy (Ctrl+Shift+Enter) array
range, is a formula (formulas_test.xlsx EXTRA!BG76: the cells of `{=BF70:BG74+1}` are TRUE);
every other cell is not. A cell that a dynamic array spills into, other than the anchor, is
left to the engine (its extent may change), as is any argument but a plain reference
(a name, INDIRECT, a whole column): the check against Excel's values then judges it.
"""

from __future__ import annotations

from typing import Any

from rates_xl.functions.sheet import Area, Key, parse_cell, unquote_sheet

#: Past this many cells the argument is left to the engine (the answer is written out cell by cell).
MOST_CELLS = 10_000


class FormulaCells:
    """Which cells of the book hold a formula, as the file was read (`Book.cells`:
    (sheet, anchor) -> (text, area r1, c1, r2, c2); `legacy`: the legacy array anchors;
    `titles`: `Book.sheet_titles`)."""

    def __init__(self, cells: dict[Key, tuple[str, Area]],
                 legacy: frozenset[Key] | set[Key], titles: dict[str, str]) -> None:
        self.titles = titles  # upper-case title -> the sheet's title
        self._cells, self._legacy_anchors = cells, legacy
        self._anchors: dict[str, set[tuple[int, int]]] | None = None  # indexed on first use
        self._legacy: dict[str, list[Area]] = {}
        self._spills: dict[str, list[Area]] = {}

    def _index(self) -> dict[str, set[tuple[int, int]]]:
        if self._anchors is None:
            self._anchors = {}
            for (sheet, anchor), (_text, area) in self._cells.items():
                self._anchors.setdefault(sheet, set()).add(parse_cell(anchor))
                r1, c1, r2, c2 = area
                if (r1, c1) != (r2, c2):
                    kind = self._legacy if (sheet, anchor) in self._legacy_anchors else self._spills
                    kind.setdefault(sheet, []).append(area)
        return self._anchors

    def answer(self, sheet: str, row: int, col: int) -> bool | None:
        """Whether that cell holds a formula; None when the file cannot say (a spilled cell)."""
        if (row, col) in self._index().get(sheet, ()):
            return True
        if any(r1 <= row <= r2 and c1 <= col <= c2 for r1, c1, r2, c2 in self._legacy.get(sheet, ())):
            return True
        if any(r1 <= row <= r2 and c1 <= col <= c2 for r1, c1, r2, c2 in self._spills.get(sheet, ())):
            return None
        return False


def rewrite(formula: str, sheet: str, cells: FormulaCells, array: bool = False) -> str:
    """`formula` (on `sheet`) with each ISFORMULA of a plain reference replaced by its answer:
    TRUE or FALSE for one cell; in an array formula, an array constant for a range (in an
    ordinary cell a range is left to the engine, as Excel's implicit intersection would be)."""
    if "ISFORMULA" not in formula.upper():
        return formula
    from openpyxl.formula.tokenizer import Tokenizer

    try:
        tokens = Tokenizer(formula).items
    except Exception:  # noqa: BLE001 - unreadable here: the engine reports it
        return formula
    pieces: list[str] = []
    changed = False
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.type == "FUNC" and t.subtype == "OPEN" and \
                t.value.upper().rstrip("(").split(".")[-1] == "ISFORMULA":
            inner = [x for x in tokens[i + 1:i + 3] if x.type != "WHITE-SPACE"]
            close = tokens[i + 2] if i + 2 < len(tokens) else None
            if len(inner) == 2 and inner[0].type == "OPERAND" and inner[0].subtype == "RANGE" and \
                    close is not None and close.type == "FUNC" and close.subtype == "CLOSE":
                answer = _answer(inner[0].value, sheet, cells, array)
                if answer is not None:
                    pieces.append(answer)
                    changed, i = True, i + 3
                    continue
        pieces.append(t.value)
        i += 1
    return "=" + "".join(pieces) if changed else formula


def _answer(reference: str, sheet: str, cells: FormulaCells, array: bool) -> str | None:
    """TRUE, FALSE or an array constant for a plain reference; None to leave it."""
    from rates_xl.functions.sheet import read_area, split_reference

    prefix, ref = split_reference(reference)
    if prefix:
        if "[" in prefix or ":" in prefix:  # another workbook, or a 3-D reference
            return None
        title = cells.titles.get(unquote_sheet(prefix[:-1]).upper())
        if title is None:
            return None  # no sheet of this book: the engine's #REF!
        sheet = title
    area = read_area(ref, whole_lines=False)
    if area is None:
        return None
    r1, c1, r2, c2 = area
    if area.size > MOST_CELLS or (not area.is_cell and not array):
        return None
    rows: list[list[str]] = []
    for r in range(r1, r2 + 1):
        line = []
        for c in range(c1, c2 + 1):
            found: Any = cells.answer(sheet, r, c)
            if found is None:
                return None
            line.append("TRUE" if found else "FALSE")
        rows.append(line)
    if len(rows) == 1 and len(rows[0]) == 1:
        return rows[0][0]
    return "{" + ";".join(",".join(line) for line in rows) + "}"
