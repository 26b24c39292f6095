"""The serial stand-in's formula evaluation (see tests/support/serial_excel.py): one cell at a time with
the `formulas` package's parser and functions; RATES_* calls go to the real xlwings UDFs.

Each formula is compiled on its own (`formulas.Parser().ast(...).compile()`), which gives a
function of its input ranges; the stand-in feeds it the current values of those ranges. The
RATES_* entries are swapped into the engine's function table only while the stand-in compiles
(`formulas` binds functions at compile time), so `rates-xl calc` in the same process keeps its
own entries. The INDEX and WORKDAY fixes and the omitted-argument rewrite are `rates-xl calc`'s
(`rates_xl.calc.engine`): both compute a workbook the same way, which the tests compare.

What Excel hands a UDF, the entries hand it too: a scalar for one cell, a 2-D list for a
range, None for an empty cell, an error cell as its text (xlwings' err_to_str).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from rates_xl.addin.classic import scope
from rates_xl.functions.sheet import Area, cell_address

if TYPE_CHECKING:
    from tests.support.serial_excel import App
    from tests.support.serial_excel_book import Book, Sheet
    from tests.support.serial_excel_graph import Formula

_compile_lock = threading.Lock()
MAX_ROW, MAX_COL = 1_048_576, 16_384
_app: App | None = None  # the stand-in computing right now (one calculation at a time)


def _error(text: str) -> Any:
    from formulas.tokens.operand import XlError

    return XlError(text)


SPILL_ERROR: Any = None  # set below, once `formulas` is importable


def NA_ERROR() -> Any:  # noqa: N802 - named as the error it is
    """#N/A, as a VBA UDF returning CVErr(xlErrNA) shows it: the engine's own #N/A value, which
    its ISNA and IFNA recognise (a second XlError("#N/A") compares unequal to it)."""
    from formulas.tokens.operand import Error

    return Error.errors["#N/A"]


def VALUE_ERROR() -> Any:  # noqa: N802
    """#VALUE!, as a VBA UDF returning CVErr(xlErrValue) shows it."""
    from formulas.tokens.operand import Error

    return Error.errors["#VALUE!"]


def _udf_entry(name: str) -> Any:
    from rates_xl.addin.classic.source import REFERENCE_ARGS
    from rates_xl.calc.engines.formulas import functions as formulas_engine
    from rates_xl.functions.table import FUNCTIONS

    # Arguments xlwings' `range` converter hands over as the Range itself (RATES_SOURCE's cell).
    references = {FUNCTIONS[name].arg_names.index(a) for a in REFERENCE_ARGS.get(name, ())}

    def call(*raw: Any) -> Any:
        app = _app
        if app is None:
            raise RuntimeError("a RATES_* function of the stand-in was called outside a calculation")
        args = [_as_range(a, app) if i in references else _as_excel_passes(formulas_engine.from_engine(a))
                for i, a in enumerate(raw)]
        return formulas_engine.to_engine(app.call_udf(name, args))

    call.__name__ = name
    return formulas_engine.impure(call)


def _as_range(raw: Any, app: App) -> Any:
    """A reference argument as xlwings passes it with the `range` converter: the stand-in's
    Range of those cells; anything else (a value, a nested call's result) as its value."""
    from formulas.ranges import Ranges

    from rates_xl.calc.engines.formulas import functions as formulas_engine
    from tests.support.serial_excel_book import Range

    if isinstance(raw, Ranges) and raw.ranges and app._current is not None:
        found = raw.ranges[0]
        sheet = app._current.sheet.book.sheet_named(found["sheet"]) if found.get("sheet") else app._current.sheet
        if sheet is not None:
            return Range(sheet, Area(int(found["r1"]), int(found["n1"]), int(found["r2"]), int(found["n2"])))
    return _as_excel_passes(formulas_engine.from_engine(raw))


def _rtd_entry() -> Any:
    """=RTD(progid, server, topic...): Excel's RTD machinery of the stand-in (App.use_rtd)."""
    from rates_xl.calc.engines.formulas import functions as formulas_engine

    def call(*raw: Any) -> Any:
        app = _app
        if app is None or app.rtd is None:
            return _error("#N/A")  # no RTD server known: Excel shows #N/A (KB 277617)
        args = [_as_excel_passes(formulas_engine.from_engine(a)) for a in raw]
        value = app.rtd.call(*args)
        return _error(value) if value == "#N/A" else formulas_engine.to_engine(value)

    call.__name__ = "RTD"
    return formulas_engine.impure(call)


def _as_excel_passes(value: Any) -> Any:
    """Error values as xlwings' err_to_str gives them; lists element by element."""
    from formulas.tokens.operand import XlError

    if isinstance(value, XlError):
        return str(value)
    if isinstance(value, list):
        return [_as_excel_passes(v) for v in value]
    return value


def compile_book(book: Book) -> None:
    """Compile every formula of `book` not compiled yet."""
    import formulas

    from rates_xl.calc.engines import rates
    from rates_xl.calc.engines.formulas import functions as formulas_engine
    from rates_xl.functions.table import FUNCTIONS

    global SPILL_ERROR
    SPILL_ERROR = _error("#SPILL!")
    with _compile_lock:
        formulas_engine.register_functions()  # INDEX / WORKDAY fixes (and calc's own RATES_* entries)
        table = formulas.get_functions()
        saved: dict[str, Any] = {}
        for name in FUNCTIONS:
            entry = _udf_entry(name)
            for alias in rates.engine_names(name):
                saved[alias] = table.get(alias)
                table[alias] = entry
        saved["RTD"] = table.get("RTD")
        table["RTD"] = _rtd_entry()
        try:
            for sheet in book.sheets:
                for f in sheet.formulas.values():
                    if f.func is None:
                        _compile(f, book)
        finally:
            for alias, entry in saved.items():
                if entry is None:
                    table.pop(alias, None)
                else:
                    table[alias] = entry


def _compile(f: Formula, book: Book) -> None:
    import formulas

    from rates_xl.calc.formula.arguments import rates_omitted
    from rates_xl.calc.formula.tree import Formula as Read
    from rates_xl.functions.table import FUNCTIONS
    from rates_xl.functions.tokens import function_names

    text = rates_omitted(Read(f.text))
    context = {"sheet": f.sheet.name}
    f.func = formulas.Parser().ast(text, context=context)[1].compile(context=context)
    f.inputs = [_resolve(key, f.sheet, book) for key in f.func.inputs]
    names = function_names(text)
    from tests.support.serial_excel_graph import VOLATILE

    volatile_udfs = {n for n, spec in FUNCTIONS.items() if spec.volatile}
    f.volatile = bool(names & VOLATILE) or bool(names & volatile_udfs)
    f.rates = scope.is_rates_formula(f.text)


def _resolve(key: str, sheet: Sheet, book: Book) -> tuple[str, Any, Area | None]:
    """An engine input ('SWAP'!C8, 'FIXED LEG'!B:B, CONVENTIONS) -> (key, sheet, rect)."""
    from formulas.ranges import Ranges

    if "!" not in key:
        target = book.names.get(key.upper())
        return (key, target[0], target[1]) if target else (key, sheet, None)
    try:
        found = Ranges().push(key).ranges[0]
    except Exception:
        return key, sheet, None
    target = book.sheet_named(found["sheet"]) if found.get("sheet") else sheet
    if target is None:
        return key, sheet, None
    top = max(1, int(found["r1"]))
    bottom = int(found["r2"])
    return key, target, Area(top, int(found["n1"]), bottom, int(found["n2"]))


def _engine_value(value: Any) -> Any:
    import schedula as sh

    from tests.support.serial_excel_graph import to_serial

    if value is None:
        return sh.EMPTY
    if hasattr(value, "year") and hasattr(value, "month"):
        return to_serial(value)
    return value


def _block(sheet: Sheet, top: int, left: int, bottom: int, right: int) -> Any:
    """The engine's array of a block's current values; reused while the sheet is unchanged
    (a lookup table read by hundreds of formulas is converted once)."""
    import numpy as np

    key = (top, left, bottom, right)
    cached = sheet.blocks.get(key)
    if cached is not None and cached[0] == sheet.version:
        return cached[1]
    block = np.empty((bottom - top + 1, right - left + 1), dtype=object)
    values = sheet.values
    for i, r in enumerate(range(top, bottom + 1)):
        for j, c in enumerate(range(left, right + 1)):
            block[i, j] = _engine_value(values.get((r, c)))
    block.setflags(write=False)
    sheet.blocks[key] = (sheet.version, block)
    return block


def compute(f: Formula, app: App) -> Any:
    """The value of one formula from the current values of its inputs (a scalar or 2-D list)."""
    from formulas.ranges import Ranges

    global _app
    args = []
    for key, sheet, rect in f.inputs:
        if rect is None:
            return _error("#NAME?") if "!" not in key else _error("#REF!")
        # Whole columns or rows are cut at the sheet's used extent; any other range is read
        # whole, so ranges of one formula keep the shapes they were written with.
        bottom = min(rect.bottom, max(sheet.max_row, rect.top)) if rect.bottom >= MAX_ROW else rect.bottom
        right = min(rect.right, max(sheet.max_col, rect.left)) if rect.right >= MAX_COL else rect.right
        ref = f"'{sheet.name.upper()}'!{cell_address(rect.top, rect.left)}:" \
              f"{cell_address(bottom, right)}"
        args.append(Ranges().push(ref, _block(sheet, rect.top, rect.left, bottom, right)))
    _app = app
    try:
        result = f.func(*args)
    except Exception:  # what the engine cannot compute shows as #VALUE!, as in Excel
        result = _error("#VALUE!")
    finally:
        _app = None
    return _python(result)


def _python(result: Any) -> Any:
    import numpy as np
    import schedula as sh
    from formulas.ranges import Ranges

    from rates_xl.calc.engines.formulas import functions as formulas_engine

    if isinstance(result, Ranges):
        result = result.value
    if isinstance(result, np.ndarray):
        if result.size == 1:
            return formulas_engine.scalar_from_engine(result.ravel()[0])
        return [[formulas_engine.scalar_from_engine(v) for v in row] for row in np.atleast_2d(result)]
    if result is sh.EMPTY:
        return 0.0  # a formula pointing at an empty cell shows 0
    return formulas_engine.scalar_from_engine(result)
