"""What a cell of the fast engine's copy holds where it holds no formula of the book's: the
value the file cached for it (`set_constant`), Excel's empty text (`empty_text`), a legacy
array's range filled from its result (`fit_legacy`), and numbers without a date format
(`plain_numbers`). openpyxl writes the copy; these say how, where Excel and openpyxl differ.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from rates_xl.functions.values import CLASSIC_ERRORS, CellValue, ErrorLikeText, is_error_text

if TYPE_CHECKING:
    from openpyxl.cell.cell import Cell, MergedCell
    from openpyxl.cell.rich_text import CellRichText
    from openpyxl.worksheet.worksheet import Worksheet

#: The error values formualizer reads from a file (calamine's cell errors): it refuses the whole
#: file over any other (`Unsupported cell error value '#CALC!'`, '#GETTING_DATA' too, and the
#: book fell back to the slow `formulas` engine), so a cell holding #SPILL!, #CALC!, #FIELD! ...
#: is left empty in the copy and given its error once loaded (`Prepared.late_errors`, model.py).
FILE_ERRORS = frozenset(CLASSIC_ERRORS)

#: A result's value, as the engine answered it (kept as it is).
T = TypeVar("T")


def set_constant(cell: Any, value: CellValue) -> str | None:
    """A formula cell of the engine's copy becomes the plain value the file cached for it;
    an error the copy cannot hold (not `FILE_ERRORS`) leaves it empty and is returned, to be
    set once loaded. (`cell`: openpyxl's; its stubs say a MergedCell may answer, whose value
    cannot be set.)"""
    if is_error_text(value) and value not in FILE_ERRORS:
        cell.value = None
        return cast(str, value)
    text = isinstance(value, ErrorLikeText)
    if isinstance(value, str):
        from rates_xl.calc.package import escaped

        # Control characters (CHAR(1)'s answer) and literal `_x0001_` go through openpyxl's
        # writer as Excel stores them, escaped (it writes a cell's text as it is).
        value = escaped(value)
    cell.value = empty_text() if value == "" else value
    if isinstance(value, str) and (cell.data_type == "f" or text):
        # cached text that starts with "=" is text, not a formula; text that reads "#N/A"
        # (VALUETOTEXT's) is text, not the error openpyxl's setter makes of it
        cell.data_type = "s"
    return None


#: Error values the engine reads as a literal in a formula.
_ERROR_LITERALS = frozenset({"#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A"})


def kept_subtotal(formula: object, value: CellValue) -> str | None:
    """For a cell the engine does not compute (listed, or held at Excel's value) that calls
    SUBTOTAL (`formula`), a formula answering `value` that still calls SUBTOTAL, or None (no
    such call, or no literal for the value). SUBTOTAL leaves out the cells of its ranges that hold
    a subtotal (Microsoft's SUBTOTAL page: "nested subtotals are ignored to avoid double
    counting"), and the engine knows one by its SUBTOTAL call: the plain value `set_constant`
    writes was added in (`SUBTOTAL(9,A1:A4)` over a kept `=SUBTOTAL(9,A1:A3)+MYFUNC()` gave 12,
    Excel 6, silently: tests/calc/test_hidden_rows.py)."""
    from rates_xl.functions.tokens import function_names

    text = str(getattr(formula, "text", formula) or "")
    if "SUBTOTAL" not in text.upper() or "SUBTOTAL" not in function_names(text if text.startswith("=") else "=" + text):
        return None
    written = literal(value)
    return None if written is None else f"=IF(TRUE,{written},SUBTOTAL(9,{{0}}))"


def spill_literal(rows: Sequence[Sequence[CellValue]]) -> str | None:
    """A formula spilling these values (an array constant, `={1,2;3,4}`), or None where one
    has no literal (nothing, a long text): a held spill still spills, so `A1#` reads it."""
    written = [[literal(value) for value in row] for row in rows]
    if not written or any(item is None for row in written for item in row):
        return None
    return "={" + ";".join(",".join(cast(list[str], row)) for row in written) + "}"


def literal(value: CellValue) -> str | None:
    """A value as a formula writes it (every digit of a number: calc/xlsx_writer.py
    `number_text` says why), or None where none can (nothing, a long text, #SPILL!)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return repr(value) if math.isfinite(value) else None
    if not isinstance(value, str):
        return None
    if not isinstance(value, ErrorLikeText) and is_error_text(value):
        return value if value in _ERROR_LITERALS else None  # an error value
    if len(value) > 255 or not value.isprintable():
        return None  # (no literal in a formula holds it)
    return '"' + value.replace('"', '""') + '"'


#: The openpyxl versions whose `Cell.value` setter `set_formula` does the work of for a formula
#: (openpyxl 3.1.5's `Cell._bind_value`, `check_string`; tests/calc/test_cells_copy.py compares
#: the two and fails on another version). Another version: the setter itself.
SETTER_CHECKED = ("3.1.5",)
_setter_checked: list[bool] = []  # (the installed openpyxl's version looked at once)


def set_formula(cell: Cell | MergedCell, text: str) -> None:
    """`cell.value = text` for a formula of the engine's copy (a text starting with "="), as
    openpyxl's setter sets it (the text kept, data type "f"), without the setter's search for
    the value's type and its scan for characters a worksheet refuses: the engine's copy sets
    one for most formula cells of a book. A text with anything but printable characters (a
    control character the setter refuses; a tab, which it keeps), past a cell's 32,767
    characters (which it cuts), or not a formula goes through the setter, as does a cell of
    another kind (a merged range's) or any openpyxl but `SETTER_CHECKED`."""
    from openpyxl.cell.cell import Cell  # noqa: F811 - the class itself, at run time

    if not _setter_checked:
        import openpyxl

        _setter_checked.append(openpyxl.__version__ in SETTER_CHECKED)
    if type(cell) is Cell and _setter_checked[0] and 1 < len(text) <= 32767 and text[0] == "=" and text.isprintable():
        cell._value = text  # type: ignore[attr-defined]  # (openpyxl's field, not in its stubs)
        cell.data_type = "f"
    else:
        cell.value = text


def emptied(ws: Worksheet, r1: int, c1: int, r2: int, c2: int) -> None:
    """The cells of `ws` in rows r1..r2, columns c1..c2 hold nothing (the values a file stored
    in a spill range block the spill): each that exists set to None as openpyxl's setter sets
    it (no value, data type "n"), without the setter's search for the type of a None, and none
    made where there is none (`ws.cell` would make one). (Any other kind of cell, a merged
    range's, goes through its own setter.)"""
    from openpyxl.cell.cell import Cell

    cells = ws._cells
    for row in range(r1, r2 + 1):
        for col in range(c1, c2 + 1):
            cell = cells.get((row, col))
            if type(cell) is Cell:
                cell._value = None  # type: ignore[attr-defined]  # (openpyxl's field, not in its stubs)
                cell.data_type = "n"
            elif cell is not None:
                cell.value = None


def empty_text() -> CellRichText:
    """A cell value openpyxl writes as empty text. It writes a plain "" as a bare
    `<c t="inlineStr"/>`, which formualizer reads as a blank cell (COUNTA skips it, ISBLANK is
    TRUE, `=A1` is 0); Excel's empty text (an empty shared string, a formula's "") is text."""
    from openpyxl.cell.rich_text import CellRichText

    return CellRichText([""])  # written <is><r><t/></r></is>: read back as ""


def fit_legacy(result: Sequence[Sequence[T]], rows: int, cols: int) -> list[list[T | str]]:
    """A legacy array formula's `rows` x `cols` range filled from its result as Excel does: a
    1-row result repeats down every row, a 1-column one across every column (a single value
    fills the range), and cells beyond the result's other dimensions show #N/A."""
    height = len(result)
    width = max((len(line) for line in result), default=0)
    out = []
    for i in range(rows):
        line: list[T | str] = []
        for j in range(cols):
            ri = 0 if height == 1 else i
            ci = 0 if width == 1 else j
            inside = ri < height and ci < len(result[ri])
            line.append(result[ri][ci] if inside else "#N/A")
        out.append(line)
    return out


def plain_numbers(book: Any) -> None:
    """The engine's copy holds no date or time format. formualizer reads a number in a cell so
    formatted as a date value, and hands it over (to `plain`, to our functions) as a Python
    date, in which serial 60 (Excel's 29 February 1900) is 28 February like 59: `=A1` over 60
    gave 59, EDATE of it a month from the 28th. Excel keeps only the number (the format shows
    it); the values-frozen copy keeps each cell's own format. (`book`: openpyxl's, whose cells'
    private `_style` its stubs do not type.)"""
    from openpyxl.styles.numbers import BUILTIN_FORMATS, is_date_format

    dated = {i for i, code in BUILTIN_FORMATS.items() if is_date_format(code)}
    dated |= {164 + i for i, code in enumerate(getattr(book, "_number_formats", [])) if is_date_format(code)}
    for ws in book.worksheets:
        for cell in ws._cells.values():
            style = cell._style  # each cell's own StyleArray (openpyxl copies it per cell)
            if style is not None and style.numFmtId in dated:
                style.numFmtId = 0
