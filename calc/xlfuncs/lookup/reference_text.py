"""RATESXL.REFTEXT: INDIRECT's text checked as Excel reads it, before formualizer resolves it.

Excel's INDIRECT answers #REF! for a text that names no reference (Microsoft's INDIRECT page: "If
ref_text is not a valid cell reference, INDIRECT returns the #REF! error value"). formualizer
answered #NAME? for a word ("hola"), #VALUE! for an empty cell or a number, and for a sheet the
book does not have ("NonExist!W3") the cell of that address on another sheet: ROW(INDIRECT(...))
was 3, silently, where Excel has #REF! (IronCalc's Excel-made LOOKUP_AND_REFERENCE__ROW_COLUM.xlsx,
MIT or Apache-2.0, not committed: INDIRECT!B5:D7, ROW_COLUMN!K2:L12).

The pass `indirect_text` (calc/formula/ranges.py) writes INDIRECT's first argument through it
where the preparation has not already written the reference out. It answers #REF! where the
text cannot name one: empty, a number or a logical value, a sheet this book does not have, or a
single word that is neither an A1 reference nor one of the book's tables or names defined as a
reference (a name of a constant or a formula is none: calc/formula/defined_names.py `is_reference`); any
other text (A1 areas, names, R1C1 with a1 FALSE, another workbook, an expression of ranges) is
passed on as it is, for formualizer to resolve, an area with its corners the other way round
put in order first ("D5:D1" is D1:D5: calc/formula/reversed_ranges.py). #REF! is answered as
a text naming no row (`NO_REFERENCE`): formualizer's INDIRECT turns an error given to it into
#VALUE!, but reads that text as #REF! wherever the reference goes (INDIRECT alone, ROW, COLUMN,
OFFSET, INDEX, IFERROR, ISREF's FALSE; ROWS of it is 1, where Excel has #REF!; COUNTIF and its
family take it for an empty range: calc/formula/error_ranges.py). An
error given is passed on (formualizer's #VALUE! then, as before: Excel passes the error on).
"""

from __future__ import annotations

import re

from rates_xl.calc.engines.formualizer.values import is_error
from rates_xl.calc.xlfuncs.coercion import Callback, Facts, is_number
from rates_xl.calc.xlfuncs.types import Answer, EngineValue
from rates_xl.functions.sheet import (
    ordered_reference,
    r1c1_reference,
    read_area,
    split_reference,
    unquote_sheet,
)

NAME = "RATESXL.REFTEXT"
#: A reference text formualizer reads as #REF! (rows 1 to 0).
NO_REFERENCE = "1:0"
#: A single word: what a defined name or an A1 reference may be (anything else is passed on).
_WORD = re.compile(r"[A-Za-z_\\][\w.\\?]*")


def _r1c1(text: str, row: EngineValue, column: EngineValue) -> str | None:
    """An R1C1 text in A1 for the formula's cell (`row`, `column`: its ROW() and COLUMN()); a
    word that is no A1 reference as it is (a defined name reads alike in either style); None for
    anything else (Excel's #REF!: "T3" given a1 FALSE)."""
    position = [int(v) if is_number(v) else None for v in (row, column)]
    read = r1c1_reference(text, position[0], position[1])
    if read is not None:
        return read
    _, ref = split_reference(text)
    return text if _WORD.fullmatch(ref) and read_area(ref) is None else None


def reftext(facts: Facts) -> Callback:
    sheets, names = facts.get("sheets"), facts.get("names")  # (None: not known, not checked)

    def REFTEXT(text: EngineValue, a1: EngineValue = True, row: EngineValue = None,  # noqa: N802
                column: EngineValue = None) -> Answer:
        if is_error(text) or isinstance(text, list):
            return text  # (an array of texts: formualizer's reading)
        if is_error(a1):
            return a1
        if not isinstance(text, str) or not text.strip():
            return NO_REFERENCE  # an empty cell, a number, a logical value
        if a1 is False or (is_number(a1) and a1 == 0):
            read = _r1c1(text.strip(), row, column)
            if read is None:
                return NO_REFERENCE
            text = read
        if sheets is None or names is None:
            return text
        prefix, ref = split_reference(text.strip())
        if prefix and "[" not in prefix and ":" not in prefix:
            if unquote_sheet(prefix[:-1]).upper() not in sheets:
                return NO_REFERENCE  # a sheet this book does not have
        if not _WORD.fullmatch(ref):
            in_order = ordered_reference(text.strip())  # an area: "D5:D1" is D1:D5 to Excel
            return text if in_order == text.strip() else in_order  # (more than one word: as it is)
        if read_area(ref) is not None or ref.upper() in names:
            return text
        return NO_REFERENCE  # a word naming nothing

    return REFTEXT
