"""TEXTSPLIT as Excel computes it (formualizer: an empty delimiter splits nothing where Excel
says #VALUE!; an array as the text, or as ignore_empty / match_mode / pad_with, is not applied
to each element).

The text is cut into rows at any row delimiter, each row into columns at any column
delimiter (at each position the first delimiter given that starts there); an empty
delimiter is #VALUE!, as is a match_mode other than 0 or 1 (1: ignoring case). With
ignore_empty, empty pieces (and empty rows) are dropped. Short rows are padded with pad_with
(#N/A). Given an array as the text (or another single-value argument), Excel answers one
value per element: the top-left piece of each split.
"""

from __future__ import annotations

from rates_xl.calc.engines.formualizer.values import error, is_error
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Facts, elementwise, number, text
from rates_xl.calc.xlfuncs.omitted import OMITTED, reads_omitted
from rates_xl.calc.xlfuncs.types import Answer, EngineScalar, EngineValue, Rows
from rates_xl.errors import Internal


class _ErrorValue(Internal):
    def __init__(self, value: EngineValue) -> None:
        super().__init__("error")
        self.value = value


def _delimiters(value: EngineValue) -> list[str]:
    if value == OMITTED:
        return []
    found = []
    for row in value if isinstance(value, list) else [[value]]:
        for item in row:
            if is_error(item):
                raise _ErrorValue(item)
            found.append(text(item))
    if any(d == "" for d in found):
        raise _ErrorValue(error("#VALUE!"))
    return found


def _cut(subject: str, delimiters: list[str], fold: bool) -> list[str]:
    if not delimiters:
        return [subject]
    haystack = subject.casefold() if fold else subject
    needles = [d.casefold() if fold else d for d in delimiters]
    pieces, start, p = [], 0, 0
    while p < len(haystack):
        hit = next((d for d in needles if haystack.startswith(d, p)), None)
        if hit is None:
            p += 1
            continue
        pieces.append(subject[start:p])
        p += len(hit)
        start = p
    pieces.append(subject[start:])
    return pieces


def _split(value: EngineScalar, columns: list[str], rows: list[str], ignore_empty: EngineScalar, match_mode: EngineScalar,
           pad_with: EngineScalar) -> Rows:
    subject = text(value)
    ignore = False if ignore_empty in (OMITTED, None) else number(ignore_empty) != 0
    mode = 0 if match_mode in (OMITTED, None) else int(number(match_mode))
    if mode not in (0, 1):
        raise ExcelError("#VALUE!")
    if subject == "":
        raise ExcelError("#VALUE!")
    fold = mode == 1
    lines = _cut(subject, rows, fold)
    if ignore:
        lines = [line for line in lines if line != ""]
    grid = []
    for line in lines:
        cells = _cut(line, columns, fold)
        if ignore:
            cells = [c for c in cells if c != ""]
        grid.append(cells)
    grid = [row for row in grid if row] or [[""]]
    width = max(len(row) for row in grid)
    pad = error("#N/A") if pad_with == OMITTED else pad_with
    return [[*row, *[pad] * (width - len(row))] for row in grid]


def textsplit(_facts: Facts) -> Callback:
    def TEXTSPLIT(value: EngineValue, col_delimiter: EngineValue = OMITTED, row_delimiter: EngineValue = OMITTED,  # noqa: N802
                  ignore_empty: EngineValue = OMITTED, match_mode: EngineValue = OMITTED, pad_with: EngineValue = OMITTED) -> Answer:
        try:
            columns, rows = _delimiters(col_delimiter), _delimiters(row_delimiter)
        except _ErrorValue as passed:
            return passed.value
        if not columns and not rows:
            # Neither delimiter given (`TEXTSPLIT(A26,)`, `TEXTSPLIT(A26,,)`): Excel's #VALUE!, as for
            # an empty one (IronCalc's Excel-made TEXT__TEXTSPLIT.xlsx B26, L26, MIT or Apache-2.0)
            return error("#VALUE!")
        args = (value, ignore_empty, match_mode, pad_with)
        if not any(isinstance(a, list) for a in args):
            return elementwise(lambda *one: _split(one[0], columns, rows, *one[1:]))(*args)
        # One value per element: the top-left piece of each split (Excel's lifting).
        return elementwise(lambda *one: _split(one[0], columns, rows, *one[1:])[0][0])(*args)

    reads_omitted(TEXTSPLIT)
    return TEXTSPLIT
