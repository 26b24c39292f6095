"""ADDRESS as Excel computes it (formualizer drops an empty sheet_text's "!", ignores R1C1
style and does not quote a sheet name that needs it: formulas_test.xlsx LOOKUP!S3:T3).

- `ADDRESS(row, column, [abs_num], [a1], [sheet_text])`; row and column truncated, each
  checked against the sheet's size (#VALUE!), abs_num 1 to 4 ($A$1, A$1, $A1, A1);
- a1 omitted is TRUE; given an empty cell it is FALSE (R1C1 style: `R[3]C[4]` relative);
- sheet_text given, even empty, comes first with "!" (an empty cell: `!C1`), quoted when a
  formula would quote it (`'*b?u*'!`, but `[Book1]Sheet1!`);
- an error argument is the answer (the first, in argument order).
"""

from __future__ import annotations

import re

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Facts, elementwise, number, text
from rates_xl.calc.xlfuncs.omitted import OMITTED, reads_omitted
from rates_xl.functions.sheet import MAX_COL, MAX_ROW, column_letters, quote_sheet


def _style(value: EngineValue) -> bool:
    """a1: TRUE for A1 references. Omitted is TRUE; an empty cell is FALSE."""
    if value is OMITTED or value == OMITTED:
        return True
    if isinstance(value, str):
        if value.strip().upper() in ("TRUE", "FALSE"):
            return value.strip().upper() == "TRUE"
        raise ExcelError("#VALUE!")
    return number(value) != 0


def _address(row: EngineValue, col: EngineValue, abs_num: EngineValue = OMITTED, a1: EngineValue = OMITTED, sheet: EngineValue = OMITTED) -> str:
    r, c = int(number(row)), int(number(col))
    kind = 1 if abs_num == OMITTED else int(number(abs_num))
    style = _style(a1)
    prefix = None if sheet == OMITTED else text(sheet)
    if not (1 <= r <= MAX_ROW and 1 <= c <= MAX_COL and 1 <= kind <= 4):
        raise ExcelError("#VALUE!")
    row_absolute, col_absolute = kind in (1, 2), kind in (1, 3)
    if style:
        place = f"{'$' if col_absolute else ''}{column_letters(c)}{'$' if row_absolute else ''}{r}"
    else:
        place = (f"R{r}" if row_absolute else f"R[{r}]") + (f"C{c}" if col_absolute else f"C[{c}]")
    if prefix is None:
        return place
    return f"{_quoted(prefix)}!{place}"


def _quoted(sheet: str) -> str:
    """The sheet name as a formula writes it; `[Book1]Sheet1` (another workbook's sheet) is
    quoted only when its parts need it (poi's `ADDRESS(2,3,3,TRUE,"[Book1]Sheet1")`)."""
    if not sheet:
        return ""
    book = re.fullmatch(r"\[([\w.]+)\](.+)", sheet)
    if book and quote_sheet(book.group(2)) == book.group(2):
        return sheet
    return quote_sheet(sheet)


def address(_facts: Facts) -> Callback:
    call = elementwise(_address)
    call.__name__ = "ADDRESS"
    reads_omitted(call)
    return call
