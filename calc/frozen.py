"""The values-frozen copy: the original workbook with every formula replaced by its value,
written with openpyxl, so styles, charts, pictures (with Pillow: PNG, JPEG, GIF), data
validation, names, hidden sheets, pivot tables and VBA survive. What openpyxl does not carry
over (shapes, embedded objects, controls, query tables, sparklines ...) is counted and named in
the summary (calc/copy_losses.py). A cell that kept the file's cached value (not
computed, or stale) or was computed from an edited market-data answer carries a note saying why.
"""

from __future__ import annotations

import math
import os
from datetime import date, time, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rates_xl.calc import xlsx_writer
from rates_xl.calc.book import Book, CalcError
from rates_xl.calc.check import normal
from rates_xl.calc.package import escaped
from rates_xl.calc.results import CalcResult
from rates_xl.functions.sheet import Area, Key, cell_address, column_letters
from rates_xl.functions.values import ERRORS, TEXT_LIMIT, CellValue, ErrorLikeText

if TYPE_CHECKING:
    from openpyxl import Workbook
    from openpyxl.worksheet.worksheet import Worksheet

#: Notes on cells computed from an edited answer (a note is a drawing shape: thousands make
#: the file slow to open); the summary counts them all and the pack inside names the answers.
MAX_UNTRUSTED_NOTES = 500
_NUMBERS = (bool, int, float)  # (a tuple: `bool | int | float` is built anew at each call)
#: The data type openpyxl 3.1 gives a value of exactly these classes (openpyxl.cell.cell's
#: `_TYPES`, None's by `get_type`); tests/calc/test_frozen.py holds them equal.
_BOUND: dict[type, str] = {int: "n", float: "n", bool: "b", type(None): "n"}
_ERRORS = frozenset(ERRORS)
#: The defined name the classic add-in gives a book while a scenario is on (the add-in's
#: scenario.NAME; calc may not import the add-in: tests/test_layers.py, and a test holds them equal).
SCENARIO_MARK = "RATES_SCENARIO"


def freeze(book: Book, result: CalcResult, out: str | os.PathLike[str], *, force: bool = False) -> Path:
    """Write a copy of `book` with every formula replaced by its value in `result`."""
    out = Path(out)
    if out.exists() and not force:
        raise CalcError(f"{out} exists; pass --force to overwrite it")
    if out.resolve() == book.path.resolve() and not force:
        raise CalcError(f"{out} is the input workbook; pass --force to overwrite it")
    # The VBA project travels (byte for byte) only into a macro-enabled copy.
    keep_vba = book.path.suffix.lower() == ".xlsm" and out.suffix.lower() == ".xlsm"
    copy = book.writable_copy(keep_vba)
    write_values(copy, book, result)
    _note(copy, [(c.sheet, c.cell, c.reason) for c in result.skipped])
    _note(copy, [(c.sheet, c.cell, c.reason) for c in result.stale])
    _note(copy, result.cut)
    _note(copy, result.untrusted[:MAX_UNTRUSTED_NOTES])
    _note(copy, result.scenario_notes)
    _scenario_mark(copy, result)
    if result.scenario:
        # File > Info in Excel (and any program's document properties) say it too.
        copy.properties.title = f"SCENARIO {result.scenario}: not market data"
        copy.properties.subject = f"rates-xl scenario {result.scenario}"
        copy.properties.keywords = "rates-xl scenario; not market data"
    out.parent.mkdir(parents=True, exist_ok=True)
    # Write beside the target and rename: an interrupted run never leaves half a file.
    # (rates_xl.atomic also removes the temporary file when Ctrl+C or SIGTERM interrupts.)
    from rates_xl import atomic

    try:
        with atomic.replacing(out) as tmp:
            xlsx_writer.save(copy, tmp)  # openpyxl's save, the same bytes, faster
    except OSError as exc:
        raise CalcError(f"{out}: cannot write it ({exc.strerror or exc})") from None
    except Exception as exc:  # a value the writer refuses: say which file, never a traceback
        raise CalcError(f"{out}: cannot write the values-frozen copy ({type(exc).__name__}: {exc})") from None
    _say_what_is_lost(book, out, result)
    return out


def write_values(copy: Workbook, book: Book, result: CalcResult) -> None:
    """Every formula cell of `copy` (`book` as read) given its value in `result`."""
    from openpyxl.worksheet.formula import ArrayFormula

    values, spills, data_tables, extents = result.values, book.spills, book.data_tables, result.extents
    letters: dict[int, str] = {}  # a column's letters, found once
    for ws in copy.worksheets:
        title = ws.title
        cells: dict[tuple[int, int], Any] = ws._cells  # (openpyxl's stubs declare no `_value`)
        # The formula cells, row by row (as `sheet_rows` gives them), found without sorting
        # and grouping every cell. A cell is asked again when its turn comes: a range written
        # before (a spill's, a data table's) may have given it a value already.
        formulas = sorted([place for place, cell in cells.items()
                           if cell.data_type == "f" or isinstance(cell._value, ArrayFormula)])
        for (row, column), cell in zip(formulas, map(cells.__getitem__, formulas), strict=True):
            # (`_value`: the cell's own, not through openpyxl's property; 35,000 cells a book)
            if cell.data_type == "f" or isinstance(cell._value, ArrayFormula):
                name = letters.get(column)
                if name is None:  # (openpyxl's `Cell.coordinate` once a column: its letters)
                    name = letters[column] = cell.coordinate.rstrip("0123456789")
                key = (title, f"{name}{row}")  # (`cell.coordinate`)
                if key in spills:
                    # The range the file stored (emptied where the spill shrank) and the
                    # one it covers now: a table wider than the file's range is never cut.
                    stored = spills[key]
                    _write_range(ws, stored.span(extents.get(key, stored)), values, letters)
                elif key in data_tables:
                    _write_range(ws, data_tables[key].area, values, letters)  # every result of a what-if data table
                else:
                    set_value(cell, values.get(key))  # (`_write_range` of the formula's one cell)


def _say_what_is_lost(book: Book, out: Path, result: CalcResult) -> None:
    """The summary names what the copy lacks of the original (calc/copy_losses.py)."""
    import zipfile

    from rates_xl.calc import copy_losses

    try:
        with zipfile.ZipFile(book.package.stream()) as original, zipfile.ZipFile(out) as copy:
            note = copy_losses.phrase(copy_losses.lost(original, copy, book.package.rich_value_cells()))
    except (OSError, zipfile.BadZipFile) as exc:
        note = f"could not compare the copy's contents with the original's ({exc})"
    if note:
        result.notes.append(note)


def _scenario_mark(copy: Workbook, result: CalcResult) -> None:
    """A copy never carries `SCENARIO_MARK`, the defined name the classic add-in gives a book
    while a scenario is on: the add-in, finding it in an open book, recalculates the book's
    RATES_ cells from the market and says so (addin/classic/scenario.py `reopened`), which a
    copy of values cannot do. A book saved in Excel under a scenario held the scenario's
    values; a copy computed at market says so in the summary. A scenario's copy says it is one
    in its properties, notes and pack (scenario/replay.py)."""
    saved = next((name for name in copy.defined_names if name.upper() == SCENARIO_MARK), None)
    if saved is None:
        return
    was = (copy.defined_names[saved].attr_text or "").lstrip("=").strip().strip('"')
    del copy.defined_names[saved]
    if not result.scenario:
        result.notes.append(f"saved in Excel while a scenario was on ({was}): the values it held were the "
                            "scenario's; this copy is computed at market, so it does not carry the "
                            f"{SCENARIO_MARK} mark")


def _write_range(ws: Worksheet, area: Area, values: dict[Key, CellValue], letters: dict[int, str]) -> None:
    """Each cell of `area` given its value (`letters`: columns' letters found so far)."""
    from openpyxl.cell.cell import MergedCell

    title, cells = ws.title, ws._cells
    top, left, bottom, right = area
    cell_address(bottom, right)  # (its ValueError for a range off the sheet)
    # Each column's letters once: a spill of a few columns and hundreds of rows.
    columns = [(c, letters.get(c) or column_letters(c)) for c in range(left, right + 1)]
    for r in range(top, bottom + 1):
        for c, column in columns:
            value = values.get((title, f"{column}{r}"))  # (`cell_address(r, c)`)
            cell = cells.get((r, c))
            if cell is None:
                if value is None:
                    continue  # padding of a grown spill: leave the sheet as it was
                cell = ws.cell(row=r, column=c)
            elif isinstance(cell, MergedCell):
                # A merged range's hidden cell holds nothing and takes no value: a spill over it is
                # #SPILL! in its anchor, and an array over it is listed (calc/merged_spills.py).
                continue
            set_value(cell, value)


def _note(book: Workbook, cells: list[tuple[str, str, str]]) -> None:
    """The copy says so itself: a note on each cell that keeps its cached value."""
    from openpyxl.cell.cell import MergedCell
    from openpyxl.comments import Comment

    for sheet, coordinate, reason in cells:
        if sheet not in book.sheetnames:
            continue
        target = book[sheet][coordinate]
        if isinstance(target, MergedCell):
            continue  # a merged range's hidden cell takes no note (openpyxl refuses it); the summary lists it
        text = f"rates-xl calc: {reason}."
        if target.comment is not None:
            text = f"{target.comment.text}\n\n{text}"
        target.comment = Comment(text, "rates-xl")


def set_value(cell: Any, value: object) -> None:
    """A computed value into a cell as a value, whatever it is: text that looks like a formula
    stays text, characters a file cannot hold are dropped, anything else becomes its text.
    (`cell`: openpyxl's, left untyped: its stubs say `ws.cell` may answer a MergedCell, whose
    value openpyxl refuses to set; `_write_range` never passes one.)"""
    kind = _BOUND.get(value.__class__)
    if kind is not None and (not isinstance(value, float) or math.isfinite(value)):
        # What openpyxl's `cell.value = value` does for these (`Cell._bind_value`: the type
        # by its class, the value kept), without its calls: most cells of a copy are numbers.
        cell._value = value
        cell.data_type = kind
        return
    if value.__class__ is str and value in _ERRORS:
        # An error value (10,618 of formulas_test's cells): what the text path below gives it
        # (`escaped` changes none of them), without its calls. Text that reads as one is an
        # ErrorLikeText, not a str.
        cell._value = value
        cell.data_type = "e"
        return
    if value is None or isinstance(value, _NUMBERS):
        if isinstance(value, float) and not math.isfinite(value):
            value = "#NUM!"
        cell.value = value
        return
    if isinstance(value, date | time | timedelta):
        cell.value = normal(value)  # Excel stores a serial; the cell's format shows the date
        return
    if not isinstance(value, str):
        value = str(value)  # a reference or another object an engine handed back
    text = isinstance(value, ErrorLikeText)
    value = escaped(value)[:TEXT_LIMIT]  # (a str now, whatever class it was)
    # What openpyxl's `cell.value = value` does with it (`Cell._bind_value`, `check_string`),
    # without its calls (12,332 texts in formulas_test): the text kept as it is (`escaped` left
    # no character openpyxl refuses: tests/calc/test_frozen.py), its type an error for an error
    # value (a plain str here) and text otherwise: right for VALUETOTEXT(#N/A)'s "#N/A", text
    # that reads so, and for text that looks like a formula, where openpyxl would say "f";
    # #SPILL!, #CALC! ... are errors too (openpyxl knows only the classic seven).
    cell._value = value
    cell.data_type = "e" if not text and value in _ERRORS else "s"
