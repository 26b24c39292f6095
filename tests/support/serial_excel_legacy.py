"""Legacy (CSE) array formulas and xlwings' `expand="table"` for the serial-Excel stand-in:
what a RATES_ curve does in an Excel without dynamic arrays (`RATES_XL_LEGACY_ARRAYS=1`).

Excel's side (learn.microsoft.com/office/vba/api/excel.range.formulaarray; Microsoft
support, "Guidelines and examples of array formulas"): `Range.FormulaArray` enters one
formula over a block; its `Application.Caller` is the whole block; the result is fitted
into the block: a scalar fills every cell, a smaller array leaves #N/A in the rest, a
larger one is cut to the block.

xlwings' side (xlwings 0.37.8 `udfs.call_udf` with the `expand` option, synchronous path):
the result is cached by (function, arguments, book, sheet, the caller's top-left cell);
when its size is not the caller's, `delayed_resize_dynamic_array_formula` rewrites the
formula array over a block of the result's size from xlwings' event loop 0.1 s later
(`clear_contents` of the old block first when it is bigger in a dimension) and the
recalculation that follows finds the cached result; when the sizes match the entry is
dropped. `com_server.CallUDF` hands VBA a 1x1 result as a scalar.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rates_xl.addin.classic import scope
from rates_xl.functions.sheet import Area

if TYPE_CHECKING:
    from tests.support.serial_excel import App
    from tests.support.serial_excel_book import Sheet
    from tests.support.serial_excel_graph import Formula


@dataclass
class Xlwings:
    """xlwings' state for `expand` UDFs in one UDF server: its cache and the resizes queued."""

    cache: dict[tuple, Any] = field(default_factory=dict)
    resizes: list[tuple[Formula, int, int]] = field(default_factory=list)
    rewrites: int = 0  # formula arrays rewritten (each one a change to the workbook)
    cuts: int = 0  # rewrites that made an array smaller (clear_contents first)


def state(app: App) -> Xlwings:
    if "_xlwings" not in app.__dict__:
        app.__dict__["_xlwings"] = Xlwings()
    return app.__dict__["_xlwings"]


def shape(value: Any) -> tuple[int, int]:
    if isinstance(value, list) and value:
        rows = [row if isinstance(row, list) else [row] for row in value]
        return len(rows), max(1, len(rows[0]))
    return 1, 1


def call(app: App, name: str, args: list[Any], f: Formula, run: Any) -> Any:
    """xlwings' call_udf for an `expand` function: `run()` calls the UDF."""
    xlw = state(app)
    area = f.array or Area(*f.cell, *f.cell)
    key = (name, repr(args), f.sheet.book.name, f.sheet.name, f.cell)
    if key in xlw.cache:
        result = xlw.cache[key]
    else:
        result = xlw.cache[key] = run()
    size = shape(result)
    if size != (area.bottom - area.top + 1, area.right - area.left + 1):
        xlw.resizes.append((f, *size))  # delayed_resize_dynamic_array_formula, 0.1 s later
    else:
        del xlw.cache[key]
    if isinstance(result, list) and size == (1, 1):
        row = result[0]
        return row[0] if isinstance(row, list) else row  # CallUDF: 1x1 -> a scalar
    return result


def run_resizes(app: App) -> int:
    """xlwings' event loop running the queued resizes (each rewrites a formula array, which
    recalculates). How many ran."""
    xlw = state(app)
    done = 0
    while xlw.resizes:
        f, rows, cols = xlw.resizes.pop(0)
        sheet = f.sheet
        if sheet.formulas.get(f.cell) is not f:
            continue  # the formula left meanwhile
        old = f.array or Area(*f.cell, *f.cell)
        if old.bottom - old.top + 1 > rows or old.right - old.left + 1 > cols:
            xlw.cuts += 1
            clear(sheet, old)
        xlw.rewrites += 1
        done += 1
        enter_array(sheet, Area(f.cell[0], f.cell[1], f.cell[0] + rows - 1, f.cell[1] + cols - 1), f.text)
    return done


def clear(sheet: Sheet, area: Area) -> None:
    """Range.ClearContents over an array formula's block."""
    for r in range(area.top, area.bottom + 1):
        for c in range(area.left, area.right + 1):
            sheet.put(Area(r, c, r, c), None)
            sheet.values.pop((r, c), None)
    sheet.book.compile()
    sheet.app._graph = None


def enter_array(sheet: Sheet, area: Area | str, formula: str) -> Formula:
    """Range.FormulaArray = formula over `area` (Ctrl+Shift+Enter), then the recalculation."""
    if isinstance(area, str):
        area = scope.parse_address(area)[0]
    sheet.put(Area(area.top, area.left, area.top, area.left), formula)
    f = sheet.formulas[(area.top, area.left)]
    f.array = area
    sheet.touch(area.bottom, area.right)
    sheet.book.compile()
    app = sheet.app
    app._graph = None
    sheet.dirty.add(f.cell)
    for r in range(area.top, area.bottom + 1):
        for c in range(area.left, area.right + 1):
            for reader in app.graph().readers(sheet, (r, c)):
                reader.sheet.dirty.add(reader.cell)
    if app.calculation == "automatic":
        app.calculate()
    return f


def fit(sheet: Sheet, f: Formula, result: Any, na: Any) -> None:
    """Excel writing an array formula's result into its block."""
    area = f.array
    rows = result if isinstance(result, list) else None
    if rows is not None:
        rows = [row if isinstance(row, list) else [row] for row in rows]
    sheet.version += 1
    for i, r in enumerate(range(area.top, area.bottom + 1)):
        for j, c in enumerate(range(area.left, area.right + 1)):
            if rows is None:
                value = result
            elif i < len(rows) and j < len(rows[i]):
                value = rows[i][j]
            else:
                value = na
            sheet.values[(r, c)] = value
