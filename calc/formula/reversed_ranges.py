"""A range written with its corners the other way round (`A3:A1`, `F1:D22`, `C:A`, `5:1`), as
Excel reads it: the range between them (`A1:A3`, `D1:F22`). Excel writes a range top-left
first whatever was typed, so its own books hold none; a book written by a program may
(openpyxl writes a formula as given). formualizer 0.13 raised #REF! out of the whole
evaluation for one such range anywhere in a book, so the book was lost ("calculation failed:
ExcelEvaluationError: #REF!"): bench/libreoffice_opinion.py's family `regression` wrote
`CORREL(F1:F22,F1:D22)`. Each corner keeps its `$` with its row or column. A text INDIRECT
reads is put in order as it is computed (`ordered`, calc/xlfuncs/lookup/reference_text.py):
formualizer answered #REF! for `INDIRECT("D"&5&":D1")`, Excel reads D1:D5.
"""

from __future__ import annotations

import re

from rates_xl.calc.formula.site import Site
from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.sheet import split_reference

_CELLS = re.compile(r"(\$?)([A-Za-z]{1,3})(\$?)(\d+):(\$?)([A-Za-z]{1,3})(\$?)(\d+)")
_COLUMNS = re.compile(r"(\$?)([A-Za-z]{1,3}):(\$?)([A-Za-z]{1,3})")
_ROWS = re.compile(r"(\$?)(\d+):(\$?)(\d+)")
#: Any pair of corners in a formula's text, for the cheap test.
_PAIR = re.compile(r"(?<![\w.])\$?([A-Za-z]{1,3})?\$?(\d+)?:\$?([A-Za-z]{1,3})?\$?(\d+)?(?![\w(])")


def _column(letters: str) -> tuple[int, str]:
    return len(letters), letters.upper()


def may_reverse(formula: Formula, _site: object = None) -> bool:
    """Whether the text holds a pair of corners that may be the other way round."""
    for found in _PAIR.finditer(formula.text):
        c1, r1, c2, r2 = found.groups()
        if (c1 and c2 and _column(c1) > _column(c2)) or (r1 and r2 and int(r1) > int(r2)):
            return True
    return False


def ordered(reference: str) -> str:
    """One reference (a sheet's name before it kept) with its corners top-left first."""
    prefix, ref = split_reference(reference)
    if (cells := _CELLS.fullmatch(ref)) is not None and "0" not in (cells[4].lstrip("0") or "0", cells[8].lstrip("0") or "0"):
        d1, c1, e1, r1, d2, c2, e2, r2 = cells.groups()
        if _column(c1) > _column(c2):
            d1, c1, d2, c2 = d2, c2, d1, c1
        if int(r1) > int(r2):
            e1, r1, e2, r2 = e2, r2, e1, r1
        return f"{prefix}{d1}{c1}{e1}{r1}:{d2}{c2}{e2}{r2}"
    if (columns := _COLUMNS.fullmatch(ref)) is not None and _column(columns[2]) > _column(columns[4]):
        return f"{prefix}{columns[3]}{columns[4]}:{columns[1]}{columns[2]}"
    if (rows := _ROWS.fullmatch(ref)) is not None and int(rows[2]) > int(rows[4]) > 0:
        return f"{prefix}{rows[3]}{rows[4]}:{rows[1]}{rows[2]}"
    return reference


def reversed_ranges(formula: Formula, _site: Site | None = None) -> str:
    """A range whose corners are the other way round is the range between them, as Excel reads
    it (`SUM(A3:A1)` is SUM(A1:A3)); formualizer raised #REF! out of the whole book's
    evaluation for one. tests/calc/test_reversed_ranges.py."""
    swaps = {index: ordered(token.text) for index, token in enumerate(formula.tokens) if token.is_range}
    return formula.swapped({index: text for index, text in swaps.items() if text != formula.tokens[index].text})
