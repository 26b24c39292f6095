"""The `formulas` engine's adapter (the `formulas` package, EUPL, parses the file into a graph
and computes it). The RATES_* functions and the fixes it needs are registered by `functions.py`;
this module is the adapter: it loads a book into it and reads its values back as Excel shows
them.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from rates_xl.calc import data_tables, displayed_precision, merged_spills
from rates_xl.calc.book import Book, CalcError, sheet_rows
from rates_xl.calc.engines.formulas import functions, kept, rewriting
from rates_xl.calc.formula import lotus_rules
from rates_xl.calc.formula.tree import Formula
from rates_xl.calc.results import listed_error
from rates_xl.functions.sheet import (
    Area,
    Key,
    address,
    cell_address,
    column_letters,
    is_rates_name,
    parse_cell,
)
from rates_xl.functions.values import (
    CellValue,
    ErrorLikeText,
    is_error_text,
    text_value,
)

if TYPE_CHECKING:
    from formulas import ExcelModel
    from openpyxl.worksheet.worksheet import Worksheet


#: Why a formula the engine found no answer for is not computed (`evaluate`).
UNSOLVED = ("the formulas engine found no answer for it: a circular reference, or one it takes for one "
            "(the formula's own cell given to ISREF or to ROW of a range)")


class FormulasEngine:
    name = "formulas"

    def __init__(self, book: Book, *, constants: dict[Key, Any], held: dict[Key, CellValue] | None = None) -> None:
        from openpyxl.utils.datetime import CALENDAR_MAC_1904

        if getattr(book.book, "epoch", None) == CALENDAR_MAC_1904:
            # `formulas` reads every serial on the 1900 system: each date 1,462 days off, silently.
            raise CalcError(f"{book.path}: the formula engine counts dates from 1900, and this book counts them "
                            "from 1904 (Excel's date1904 setting): it is computed by the fast engine only")
        if displayed_precision.applies(book.book):
            # Its numbers at full precision where Excel holds each rounded as its format shows it.
            raise CalcError(f"{book.path}: the formula engine cannot compute a book set to precision as displayed "
                            "(Excel's fullPrecision off): it is computed by the fast engine only")
        if lotus_rules.lotus_sheets(book.book):
            # Text as 0 and logical values as 0 or 1 on such a sheet (calc/formula/lotus_rules.py):
            # `formulas` reads the file itself, so its formulas could not be listed one by one.
            raise CalcError(f"{book.path}: the formula engine cannot compute a sheet set to Lotus 1-2-3's rules "
                            "(Transition formula evaluation): it is computed by the fast engine only")
        if book.package.strict:
            # `formulas` reads the file itself, not the Transitional bytes calc/strict.py mapped it
            # to: it found no cell in a Strict book, and every formula answered blank.
            raise CalcError(f"{book.path}: the formula engine reads the file itself and cannot read Strict Open "
                            "XML: it is computed by the fast engine only")
        self.book = book
        self.unsupported: dict[Key, str] = {}
        self.extents: dict[Key, Area] = {}  # RATES_* spills: the range each result covers
        self.cut: dict[Key, str] = {}
        self.blocked: dict[Key, Area] = {}  # spills held at #SPILL!: the merged range in the way
        self._spilled: dict[Key, Area] = {}  # dynamic spills: the area each result covers
        self._widened: dict[Key, Area] = {}
        functions.register_functions()  # before the engine parses a single formula
        self._written = rewriting.rewritten(book, self.unsupported)  # the engine's copy of some cells' formulas
        written = {address(sheet, anchor): text for sheet, texts in self._written.items()
                   for anchor, text in texts.items()}
        self.unknown_functions = functions.unknown_functions(
            (cell, written.get(cell, text)) for cell, text in book.formulas)
        data_tables.drop_calls(self.unknown_functions, book.data_tables)
        self._kept = kept.foreign_calls(book, self.unknown_functions, written, self.unsupported)  # held throughout
        self._kept.update(kept.linked_reads(book, written, self.unsupported))
        kept.readers_of_unheld_values(book, self.unsupported)
        # Cells the caller will hold at once are held in this load: holding them after it
        # would load the book a second time before its first evaluation (`hold`).
        self._constants = {**self._kept, **constants, **(held or {})}
        with _quiet_engine():
            self.model = self._load(self._constants)  # here, so a book it cannot read fails the load
        self._reload = False  # a cell held or released since: `evaluate` loads the book again

    def service_cells(self) -> set[Key]:
        return set()  # a held cell is a constant in a fresh load: no RATES_* call runs for it

    def hold(self, values: dict[Key, Any]) -> None:
        # The engine's graph is built once from the file: a cell held or released means a
        # new load (slow, like everything in this engine; it is the exact fallback), made
        # when the book is next evaluated, so a release and a hold in a row load it once.
        # (Cells held already, at these very values, need no new load: those held at the load.)
        if any(key not in self._constants or self._constants[key] is not value for key, value in values.items()):
            self._constants.update(values)
            self._reload = True

    def release(self, cells: set[Key]) -> None:
        # The spills held at #SPILL! are computed again too: their inputs may change the size.
        for anchor in self.blocked:
            cells = cells | set(self._blocked_cells(anchor))
        self.blocked = {}
        for key in cells - self._kept.keys():  # (held throughout: kept.py, `_load`)
            self._constants.pop(key, None)
        self._reload = True

    def area(self, key: Key) -> Area | None:
        return self.book.cells.get(key, (None, None))[1]

    def loops(self) -> list[str]:
        return []

    def _load(self, constants: dict[Key, CellValue]) -> ExcelModel:
        """The engine's model of the book, `constants` held. A formula its parser cannot read
        (`=1000%%`, `=#VALUE! #VALUE!`, both Excel's) failed the whole book: each such cell keeps
        the file's value, listed, and the book is loaded once more without it."""
        from formulas.errors import FormulaError

        try:
            return self._loaded(constants)
        except FormulaError as exc:
            unreadable = kept.unreadable(self.book, self._written, constants)
            if not unreadable:
                raise CalcError(f"{self.book.path}: the formula engine could not read it: {exc}") from None
        for key in unreadable:
            self.unsupported.setdefault(key, "the formulas engine cannot read its formula")
        self._kept.update(unreadable)
        constants.update(unreadable)
        return self._loaded(constants)

    def _loaded(self, constants: dict[Key, Any]) -> Any:
        import formulas
        from formulas.errors import FormulaError
        from formulas.tokens.operand import Error, XlError
        from openpyxl.cell.cell import MergedCell

        _quiet_schedula()

        try:
            model = formulas.ExcelModel()
            book, context = model.add_book(str(self.book.path))
            # The engine maps a result onto the spill range stored in the file and fails when
            # the result is longer (a history over a later window, a longer maturity typed in
            # since Excel last saved it). RATES_* spills are grown down over the empty cells
            # below them; the padding is empty and trimmed from what is reported and frozen.
            # Grown right too, over empty columns: the engine lays a result wider than the range
            # into it row by row (a 2-column curve in a 1-column range read Tenor, Rate, 1W, ...
            # down column A), so the range must be at least as wide (`_widened`).
            self._widened = {}
            for ws in book.worksheets:
                for (sheet, anchor), area in self.book.spills.items():
                    if sheet == ws.title and (sheet, anchor) not in constants:
                        if (sheet, anchor) not in self.book.legacy_arrays and _rates_on_top(ws[anchor].value.text):
                            area = self._widened.setdefault((sheet, anchor), _widened(ws, area))
                        ws[anchor].value.ref = area.a1()
                # What-if data tables: this engine computes none (their first cell holds an
                # object it cannot read): each keeps the file's values, listed.
                cached = self.book.cached() if self.book.data_tables else {}
                for (sheet, coordinate) in self.book.data_tables:
                    if sheet == ws.title:
                        self.unsupported[(sheet, coordinate)] = "a what-if data table (the formulas engine computes none)"
                        constants.setdefault((sheet, coordinate), cached.get((sheet, coordinate)))
                for (sheet, coordinate), value in constants.items():
                    if sheet == ws.title and not isinstance(ws[coordinate], MergedCell):
                        ws[coordinate].value = value
                        if isinstance(value, str) and is_error_text(value) and not isinstance(value, ErrorLikeText):
                            ws[coordinate].data_type = "e"  # Excel's error, held: ISERROR reads it (it was text)
                            if value not in Error.errors:
                                # #SPILL!, #CALC!: errors the engine reads from no file, only from its
                                # own token (openpyxl's setter would make it a str: a SUM over it 0).
                                ws[coordinate]._value = XlError(value)
                        # text, not a formula ("=..."), nor an error ("#N/A" from VALUETOTEXT)
                        elif isinstance(value, str) and (ws[coordinate].data_type == "f" or
                                                         isinstance(value, ErrorLikeText)):
                            ws[coordinate].data_type = "s"
                _fill_omitted_arguments(ws)
                self._rewrite(ws)
            model.pushes(*book.worksheets, context=context)
            return model.finish()
        except FormulaError:
            raise  # (`_load` finds the cells)
        except Exception as exc:  # the engine's own errors, in words
            raise CalcError(f"{self.book.path}: the formula engine could not read it: {exc}") from None


    def _rewrite(self, ws: Worksheet) -> None:
        """`rewriting.rewritten`'s texts into the sheet the engine loads."""
        from openpyxl.worksheet.formula import ArrayFormula

        for anchor, written in self._written.get(ws.title, {}).items():
            if (ws.title, anchor) in self._constants:
                continue
            value = ws[anchor].value
            if isinstance(value, ArrayFormula):
                value.text = written if str(value.text).startswith("=") else written[1:]
            elif isinstance(value, str):
                ws[anchor].value = written

    def evaluate(self) -> dict[Key, Any]:
        import schedula as sh

        if self._reload:
            with _quiet_engine():
                self.model = self._load(self._constants)
            self._reload = False
        try:
            solution = self.model.calculate()
        except sh.DispatcherError as exc:
            raise CalcError(f"{self.book.path}: calculation failed: "
                            f"{exc.args[1] if len(exc.args) > 1 else exc}") from None
        values: dict[Key, Any] = {}
        self._spilled = {}
        for output, cell in self.model.cells.items():
            if not getattr(cell, "inputs", None) and getattr(cell, "func", None) is None:
                continue  # a constant, not a formula
            rng = _range_of(output)
            if rng is None:
                continue
            sheet = self.book.sheet_titles.get(rng["sheet"].upper(), rng["sheet"])
            if (sheet, cell_address(int(rng["r1"]), int(rng["n1"]))) not in self.book.cells:
                # An error value typed or pasted (or the #VALUE! a picture in a cell is stored
                # as), which the engine reads as a formula of its own: a value, not a formula
                # cell, as the fast engine has it (it was named among the error cells).
                continue
            computed = solution.get(output, sh.NONE)
            if computed is sh.NONE:
                # No answer: the engine never reached the cell, on a circular reference (`=B3+1`
                # in B3) or one it takes for one (`=ISREF(B1)` in B1, whose value no function
                # reads). Its #VALUE! (as text) was the answer, unlisted where Excel shows 0
                # and warns, or computes; the cell keeps the file's value, listed.
                self.unsupported.setdefault((sheet, cell_address(int(rng["r1"]), int(rng["n1"]))), UNSOLVED)
                continue
            rows = self._trim_spill(sheet, rng, _rows(computed, rng))
            area = Area(int(rng["r1"]), int(rng["n1"]), int(rng["r2"]), int(rng["n2"]))
            values.update(zip(self._addresses(sheet, area), itertools.chain.from_iterable(rows), strict=True))
        if self._block_merged():
            return self.evaluate()
        for anchor in self.blocked:  # held: constants now, which the loop above skips
            values.update(self._blocked_cells(anchor))
        return values

    def _addresses(self, sheet: str, area: Area) -> list[Key]:
        """The keys of a range's cells, row by row as `_rows` lays them out: made once per range
        and kept for the next rounds (a history table's range holds a million cells)."""
        cache: dict[tuple[str, Area], list[Key]] = self.__dict__.setdefault("_address_cache", {})
        found = cache.get((sheet, area))
        if found is None:
            r1, c1, r2, c2 = area
            letters = [column_letters(col) for col in range(c1, c2 + 1)]
            found = cache[(sheet, area)] = [(sheet, f"{letter}{row}") for row in range(r1, r2 + 1)
                                            for letter in letters]
        return found

    def _block_merged(self) -> bool:
        """A spill over merged cells is #SPILL! in Excel (calc/merged_spills.py): this engine lays
        a result over the hidden cells of a merged range (they are empty in the file), so each
        such anchor is held at the error, its range emptied, and the book loaded again. Whether
        it found one."""
        merged = self.book.merged
        found = {}
        for key, area in self._spilled.items():
            hit = merged_spills.in_the_way(merged.get(key[0], ()), area)
            if hit is not None and key not in self.blocked:
                found[key] = hit
        if not found:
            return False
        self.blocked.update(found)
        # Held: the anchor, and the cells of its range the file stored a value for (a spill's
        # last result, which would show again); the rest is empty already.
        stored = self.book.cached()
        self.hold({cell: value for anchor in found for cell, value in self._blocked_cells(anchor).items()
                   if cell == anchor or cell in stored})
        return True

    def _blocked_cells(self, key: Key) -> dict[Key, CellValue | None]:
        """What a spill blocked by merged cells shows: #SPILL! in its anchor, its range empty
        but for the merged cells, which keep their own content."""
        sheet, anchor = key
        merged = self.book.merged.get(sheet, ())
        cells: dict[Key, CellValue | None] = {key: "#SPILL!"}
        for row, col in self.book.spills.get(key, Area.cell(*parse_cell(anchor))).cells():
            if not any(area.intersects(Area.cell(row, col)) for area in merged):
                cells.setdefault((sheet, cell_address(row, col)), None)
        return cells

    def _trim_spill(self, sheet: str, rng: dict[str, Any], rows: list[list[object]]) -> list[list[object]]:
        """Excel shrinks a dynamic spill to its result; the engine pads a stored range with #N/A.

        Trailing rows and columns that are all #N/A are padding (blank in Excel); when the
        anchor is an error or a `#RATES!` message, the whole range beyond it is blank. (Rows
        of the range, as `_rows` lays them out: a history table's is a million cells, most of
        them one padding object, so each row is judged by its distinct objects.)
        """
        r1, c1 = int(rng["r1"]), int(rng["n1"])
        height, width = len(rows), len(rows[0])
        anchor_key = (sheet, cell_address(r1, c1))
        if anchor_key not in self.book.spills or anchor_key in self.book.legacy_arrays or height * width == 1:
            # A legacy array shows its #N/A beyond a shorter result, as Excel does.
            return rows
        anchor = rows[0][0]
        if listed_error(anchor):
            return [[anchor] + [None] * (width - 1)] + [[None] * width for _ in range(height - 1)]
        h, w = height, width
        while h > 1 and _all_padding(rows[h - 1]):
            h -= 1
        while w > 1 and _all_padding([row[w - 1] for row in rows[:h]]):
            w -= 1
        r2, c2 = r1 + h - 1, c1 + w - 1
        self._spilled[anchor_key] = Area(r1, c1, r2, c2)
        if anchor_key in self._widened:
            self.extents[anchor_key] = Area(r1, c1, r2, c2)  # what the copy holds (calc/frozen.py)
        if anchor_key in self._widened and c2 == int(rng["n2"]) and c2 - c1 + 1 > 1:
            # The table fills every column free beside it: it may be wider, and what the range
            # shows may be laid out row by row; listed, never silent.
            self.cut[anchor_key] = (f"the table fills the {c2 - c1 + 1} column(s) free beside its anchor and may be "
                                    "wider; the formulas engine cannot show more (clear the cells to its right, or "
                                    "compute with the fast engine)")
        if (h, w) == (height, width):
            return rows
        return [row[:w] + [None] * (width - w) for row in rows[:h]] + [[None] * width for _ in range(height - h)]


#: How far right a RATES_* spill may grow over empty columns in this engine (a history grid of
#: many tenors is the widest such table).
MAX_SPILL_COLUMNS = 256



def _rates_on_top(text: str) -> bool:
    """Whether the formula is one RATES_* call (`=RATES_SWAPCURVE("SOFR")`): its answer is the
    table (functions.py lays it into the range, `SpillArray`); a table the engine's own
    functions make of it (`=INDEX(RATES_...)`) keeps the stored range, as Excel saved it."""

    formula = Formula(text if text.startswith("=") else f"={text}")
    groups = formula.groups
    return (bool(groups) and groups[0].kind == "call" and is_rates_name(groups[0].name)
            and groups[0].open == 0 and groups[0].close == len(formula.tokens) - 1)


def _widened(ws: Any, area: Area) -> Area:
    """`area` grown right over the columns that are empty in its rows (up to MAX_SPILL_COLUMNS
    wide), to the first column right of it holding something in one of its rows. (Found in one
    walk over the sheet's stored cells: asked column by column of each row, a history table's
    5,000 rows cost 1.3 million questions.)"""
    r1, c1, r2, c2 = area
    widest = c1 + MAX_SPILL_COLUMNS - 1
    if c2 >= widest:
        return area
    held = min((c for (r, c), cell in ws._cells.items()
                if r1 <= r <= r2 and c2 < c <= widest and cell.value is not None), default=widest + 1)
    return Area(r1, c1, r2, held - 1)


@contextlib.contextmanager
def _quiet_engine() -> Iterator[None]:
    """`formulas` draws its own tqdm bars while loading; ours is the one the user sees."""
    import functools

    import formulas.excel as fx

    with _QUIET_LOCK:
        original = fx.tqdm.tqdm
        fx.tqdm.tqdm = functools.partial(original, disable=True)
        try:
            yield
        finally:
            fx.tqdm.tqdm = original


_QUIET_LOCK = threading.Lock()
_RANGE_CACHE: dict[str, dict[str, Any] | None] = {}


def _range_of(output: str) -> dict[str, Any] | None:
    if output not in _RANGE_CACHE:
        from formulas.ranges import Ranges

        try:
            rng = Ranges.get_range(output)
        except Exception:
            rng = None
        _RANGE_CACHE[output] = rng if rng and rng.get("sheet") and "r1" in rng else None
    return _RANGE_CACHE[output]


def _rows(computed: Any, rng: dict[str, Any]) -> list[list[object]]:
    """A computed range's values, plain (`_plain`), row by row over the range's every cell."""
    import numpy as np
    import schedula as sh
    from formulas.ranges import Ranges

    r1, c1, r2, c2 = int(rng["r1"]), int(rng["n1"]), int(rng["r2"]), int(rng["n2"])
    if isinstance(computed, Ranges):
        computed = computed.value
    if computed is sh.NONE:
        array = np.full((r2 - r1 + 1, c2 - c1 + 1), "#VALUE!", dtype=object)
    else:
        array = np.atleast_2d(np.asarray(computed, dtype=object))
    height, width = r2 - r1 + 1, c2 - c1 + 1
    if not array.size:
        return [[None] * width for _ in range(height)]
    # Each element converted once (a smaller result repeats over the range, as the engine
    # broadcasts it); a number is its own plain value, and the engine's padding (one #N/A or
    # empty object, most of a history table's range) is converted once, by identity: every
    # element is alive in `elements` meanwhile, so an id names one object.
    elements = array[:height, :width].tolist()
    known: dict[int, Any] = {}
    for row in elements:
        for value in row:
            if type(value) is not float and id(value) not in known:
                known[id(value)] = _plain(value)
    rows = [[v if type(v) is float else known[id(v)] for v in row] for row in elements]
    if len(rows) == height and len(rows[0]) == width:
        return rows
    across = len(rows[0])
    return [[row[j % across] for j in range(width)] for row in (rows[i % len(rows)] for i in range(height))]


def _all_padding(values: list[object]) -> bool:
    """Whether every value is padding, each distinct object judged once."""
    return all(_is_padding(v) for v in {id(v): v for v in values}.values())


def _plain(value: Any) -> Any:
    """A computed value as a plain Python value; engine errors become their text ('#N/A')."""
    import numpy as np
    import schedula as sh
    from formulas.tokens.operand import XlError

    if value is sh.EMPTY or value is None:
        return None
    if isinstance(value, XlError):
        return str(value)
    if isinstance(value, np.bool_ | bool):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating | float):
        return float(value)
    if isinstance(value, np.str_ | str):
        return text_value(str(value))  # text, even "#N/A": its errors are XlError
    return value


def _is_padding(value: Any) -> bool:
    return value is None or is_error_text(value) and value == "#N/A"


def _fill_omitted_arguments(ws: Any) -> None:
    """The engine's copy only: omitted RATES_* arguments become "" (the pass `rates_omitted`,
    calc/formula/arguments.py)."""
    from openpyxl.worksheet.formula import ArrayFormula

    from rates_xl.calc.formula.arguments import rates_omitted

    for row in sheet_rows(ws):
        for cell in row:
            value = cell.value
            if isinstance(value, ArrayFormula):
                text = str(value.text)
                if "RATES" in text.upper():
                    value.text = rates_omitted(Formula(text))
            elif isinstance(value, str) and value.startswith("=") and "RATES" in value.upper():
                cell.value = rates_omitted(Formula(value))


def _quiet_schedula() -> None:
    """schedula (the `formulas` engine's dispatcher) logs each formula it could not compute
    with its traceback (`log.error(..., exc_info=1)`), which Python's last-resort handler
    printed on the terminal (`=SUBTOTAL(9,A1:A3)+MYFUNC()`: 60 lines). The cell's value says
    it (an error, its unknown function named in the summary): the log goes nowhere."""
    import logging

    # `formulas` itself warns of each linked workbook it could not open ("Error in loading
    # `'[market data.xlsx]RATES'!B2`"): the cells reading a link are held at the file's values
    # and listed (kept.py `linked_reads`), so the warning goes nowhere either.
    for name in ("schedula", "formulas"):
        logger = logging.getLogger(name)
        if not any(isinstance(handler, logging.NullHandler) for handler in logger.handlers):
            logger.addHandler(logging.NullHandler())
        logger.propagate = False
