"""A serial stand-in for desktop Excel: what the ribbon handlers touch, computed the way Excel
computes classic UDFs. Tests (tests/addin) and the benchmark (bench/excel_refresh.py) drive the
real ribbon handlers and the real UDFs with it; only Excel itself is modelled.

What it models, because the product's speed and correctness in Excel depend on it:

- **One thread, one cell at a time.** `App.calculate()` evaluates formula cells one after
  another in dependency order on the calling thread, and every RATES_* call is a call of the
  real xlwings UDF (`rates_xl.addin.classic.udfs`) with the calling cell as `caller`: a cache
  miss blocks the whole calculation for its round trip, as it blocks Excel.
- **Dirty and Calculate as Excel does them.** `Range.api.Dirty()` marks formula cells;
  `App.calculate()` (Application.Calculate) recalculates the dirty cells, the volatile ones
  (TODAY(), NOW(), RATES_STATUS...) and everything depending on them, nothing else;
  `Sheet.calculate()` does the same within one sheet; `App.calculate_full()` recalculates
  every formula. Typing a value or formula marks its dependents dirty and, in automatic mode,
  recalculates.
- **Dynamic arrays.** A formula whose result is a block spills from its anchor (`#SPILL!` if
  a cell in the way is not empty); `Range.api.HasSpill` / `SpillingToRange` report it; a
  formula reading a spilled cell depends on the anchor.
- **What a workbook shows before any calculation**: the values saved in the file.
- **The add-in's VBA wrapper** between Excel and each RATES_* UDF (`RatesAnswer`, modelled
  by `rtd.excel_answer`): a waiting cell subscribes through =RTD and shows #N/A; and
  Excel's RTD machinery once `use_rtd` is called (serial_excel_rtd.py).

The non-RATES parts of formulas (arithmetic, IF, VLOOKUP, INDEX, WORKDAY, SUM...) are
computed per cell by the `formulas` package's parser and functions, with the fixes
`rates-xl calc` applies (INDEX row/column 0, WORKDAY from a holiday, omitted RATES_*
arguments) so both compute the same workbook the same way.

Surface: every member the add-in touches is declared in
`rates_xl.addin.classic.excel_surface` (Protocols); tests/addin/test_excel_surface.py checks
this stand-in and xlwings' classes provide each one. What the tests drive beyond it
(`add_book`, `calculate_full`, `select`, histories of the status bar...) is the stand-in's own.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from rates_xl.addin.classic import scope
from rates_xl.functions.sheet import Area

MAX_ROW = 1_048_576
VOLATILE = frozenset({"TODAY", "NOW", "RAND", "RANDBETWEEN", "OFFSET", "INDIRECT", "CELL", "INFO"})
#: How far down a RATES_* spill's footprint reaches over empty cells beyond the range stored in
#: the file (the same allowance `rates-xl calc` makes): a formula reading there depends on it.
SPILL_ALLOWANCE = 3000


def _fold(name: str) -> str:
    return name.strip().casefold()


# -- cells ------------------------------------------------------------------------------------
@dataclass(eq=False)
class Formula:
    """One formula cell (an anchor when its result spills)."""

    sheet: Sheet
    cell: tuple[int, int]
    text: str
    stored_ref: Area | None = None  # the array range saved in the file, if any
    func: Any = None
    inputs: list[tuple[str, Sheet, Area]] = field(default_factory=list)  # (engine input, sheet, rect)
    volatile: bool = False
    rates: bool = False
    spill: Area | None = None  # where the current result spills (None: one cell)
    array: Area | None = None  # a legacy (CSE) array formula's block (serial_excel_legacy)

    @property
    def footprint(self) -> Area:
        """Cells this formula may write: its anchor, stored array range or current spill."""
        rects = [Area(*self.cell, *self.cell)]
        if self.stored_ref is not None:
            rects.append(self.stored_ref)
            if self.rates:  # a curve may come back longer than when the file was saved
                grown = self.sheet.grow_down(self.stored_ref, SPILL_ALLOWANCE)
                rects.append(grown)
        if self.spill is not None:
            rects.append(self.spill)
        if self.array is not None:
            rects.append(self.array)
        return Area(min(r.top for r in rects), min(r.left for r in rects),
                    max(r.bottom for r in rects), max(r.right for r in rects))


class App:
    """Excel.Application: the open workbooks, the calculation, the status bar."""

    def __init__(self, udf_thread: bool = False) -> None:
        """`udf_thread`: the UDFs run on one thread of their own (Excel still waits for each),
        as when the COM server answers Excel's calls on another thread than the macro's."""
        self.books: list[Book] = []
        self.screen_updating = True
        self.status_bar: Any = False  # False: Excel's own status bar (as xlwings reports it)
        self.status_history: list[Any] = []
        self.screen_history: list[bool] = []
        self.calculation = "automatic"
        self.alerts: list[tuple[str, str | None]] = []
        self.api = _AppApi(self)
        self.hwnd = 0
        # Application.Ready: False while Excel is busy, e.g. a cell in edit mode (MS
        # excel.application.ready); RTD pulls wait for it (serial_excel_rtd).
        self.ready = True
        self.rtd: Any = None  # an RtdHost once use_rtd() is called
        self.on_time: list[str] = []  # procedures Application.OnTime scheduled, not yet run
        # The add-in's VBA flag RatesRtd.RatesLiveOn, set by RatesOnToggle (`toggle`): while
        # on, answered RATES_ cells subscribe to their live topic (rtd.excel_answer).
        self.rates_live_on = False
        # RatesRibbon's RatesScenarioShown, set by RatesShowScenario (Application.Run), and
        # the controls InvalidateControl asked Office to redraw (`ribbon_label` reads them).
        self.rates_scenario_shown = ""
        self.invalidated: list[str] = []
        # What the tests look at: calculations run, cells evaluated, UDF calls and their threads.
        self.calculations = 0
        self.evaluated = 0
        self.udf_calls = 0
        self.udf_threads: set[int] = set()
        self._graph: _Graph | None = None
        self._current: Formula | None = None
        self._lock = threading.Lock()  # one calculation at a time, like Excel's single calc thread
        self._udf_pool = None
        if udf_thread:
            from concurrent.futures import ThreadPoolExecutor

            self._udf_pool = ThreadPoolExecutor(1, thread_name_prefix="udf-server")

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "status_bar" and "status_history" in self.__dict__:
            self.status_history.append(value)
        if name == "screen_updating" and "screen_history" in self.__dict__:
            self.screen_history.append(value)
        super().__setattr__(name, value)

    # -- workbooks --
    def open(self, path: str | Path, name: str | None = None) -> Book:
        """Open a saved workbook: formulas, constants and the values it was saved with."""
        book = Book.from_file(self, Path(path), name)
        self.books.append(book)
        self._graph = None
        return book

    def add_book(self, name: str, sheets: dict[str, dict[str, Any]]) -> Book:
        """A new workbook from {sheet: {"A1": value or "=formula"}}; nothing calculated yet."""
        book = Book(self, name)
        for sheet_name, cells in sheets.items():
            sheet = book.add_sheet(sheet_name)
            for address, content in cells.items():
                sheet.put(scope.parse_address(address)[0], content)
        book.compile()
        self.books.append(book)
        self._graph = None
        return book

    def alert(self, prompt: str, title: str | None = None, **_: Any) -> None:
        self.alerts.append((prompt, title))

    def use_rtd(self, servers: dict[str, Any], clock: Any = None) -> Any:
        """Excel's RTD machinery (tests/support/serial_excel_rtd.py) with these servers,
        {ProgID: factory}; `clock` (seconds) for tests that step time themselves."""
        from tests.support.serial_excel_rtd import RtdHost

        self.rtd = RtdHost(self, servers, **({"clock": clock} if clock else {}))
        return self.rtd

    def idle(self) -> bool:
        """Excel idle and Ready: the procedures OnTime scheduled run now, each the add-in's
        macro it names (ADDIN_MACROS: a RunPython of the ribbon's on_action). True if any ran."""
        from rates_xl.addin.classic import ribbon

        if not self.ready or not self.on_time:
            return False
        procedures, self.on_time = self.on_time, []
        for procedure in procedures:
            action = ADDIN_MACROS.get(procedure.rpartition("!")[2])
            if action is None:
                raise RuntimeError(f"OnTime names {procedure!r}, not a macro of the add-in")
            ribbon.on_action(action, book=self.books[0] if self.books else None)
        return True

    def close_book(self, book: Book) -> None:
        """Workbook.Close: its formulas leave (an RTD topic only they used is disconnected)."""
        self.books.remove(book)
        self._graph = None
        if self.rtd is not None:
            for sheet in book.sheets:
                for f in sheet.formulas.values():
                    self.rtd.release(f)

    # -- calculation --
    def calculate(self) -> None:
        """Application.Calculate: dirty and volatile cells and their dependents, in order."""
        self._calculate(lambda f: f.sheet.dirty_mark(f) or f.volatile)

    def calculate_full(self) -> None:
        """Application.CalculateFull: every formula of every open workbook."""
        self._calculate(lambda f: True)

    def _calculate(self, starts: Any, only: Sheet | None = None) -> None:
        with self._lock:
            self.calculations += 1
            graph = self.graph()
            seeds = [f for f in graph.order if (only is None or f.sheet is only) and starts(f)]
            todo = graph.closure(seeds, only)
            for f in graph.order:
                if f in todo:
                    self._evaluate(f)
                    f.sheet.dirty.discard(f.cell)
                    if f.spill is not None and not self._footprint_known(f):
                        self._graph = None  # a spill grew past what the graph knows
            for f in todo:
                f.sheet.dirty.discard(f.cell)

    def graph(self) -> _Graph:
        if self._graph is None:
            self._graph = _Graph([f for book in self.books for sheet in book.sheets
                                  for f in sheet.formulas.values()])
        return self._graph

    def _footprint_known(self, f: Formula) -> bool:
        """Whether the graph already knows every cell this formula's spill now covers."""
        known = self._graph.footprints.get(f) if self._graph is not None else None
        now = f.footprint
        return known is not None and (known.top <= now.top and known.left <= now.left
                                      and known.bottom >= now.bottom and known.right >= now.right)

    def _evaluate(self, f: Formula) -> None:
        from tests.support import serial_excel_engine as engine

        self.evaluated += 1
        self._current = f
        if self.rtd is not None:
            self.rtd.begin_cell(f)
        try:
            result = engine.compute(f, self)
        finally:
            self._current = None
            if self.rtd is not None:
                self.rtd.end_cell(f)
        f.sheet.write_result(f, result)

    # Called by the RATES_* entries of the formula engine (see serial_excel_engine).
    def call_udf(self, name: str, args: list[Any]) -> Any:
        from rates_xl.addin.classic import rtd, udfs
        from tests.support import serial_excel_engine as engine

        f = self._current
        # Application.Caller: the cell, or a legacy array formula's whole block.
        caller = Range(f.sheet, f.array or Area(*f.cell, *f.cell)) if f is not None else None
        self.udf_calls += 1

        def call() -> Any:
            self.udf_threads.add(threading.get_ident())
            return udfs.UDFS[name](*args, caller=caller)

        def run() -> Any:
            if self._udf_pool is not None:
                return self._udf_pool.submit(call).result()  # Excel waits: still one at a time
            return call()

        if f is not None and udfs.expands(name):
            from tests.support import serial_excel_legacy

            result = serial_excel_legacy.call(self, name, args, f, run)  # xlwings' expand
        else:
            result = run()
        # The add-in's VBA wrapper (RatesAnswer, addin/classic/rtd_vba.py) between Excel and
        # Python: a wait marker subscribes this cell through =RTD and shows #N/A; an error
        # marker shows #VALUE! or #N/A (a VBA UDF returning CVErr: SUM propagates it).
        live_cell = (f.sheet.book.name, f.sheet.name, caller.address) \
            if self.rates_live_on and caller is not None else None
        return rtd.excel_answer(result, self._call_rtd, engine.NA_ERROR(), live_cell, engine.VALUE_ERROR())

    def toggle(self, control_id: str, pressed: bool, book: Book | None = None) -> str:
        """The ribbon's toggle as RatesRibbon.RatesOnToggle does it: the VBA's Live flag
        first, then the handler "<id>_on" / "<id>_off" through RunPython."""
        from rates_xl.addin.classic import ribbon

        self.rates_live_on = pressed
        return ribbon.on_action(f"{control_id}_{'on' if pressed else 'off'}", book=book)

    def ribbon_label(self, control_id: str) -> str:
        """What the Rates tab shows on a control whose label the add-in gives (getLabel):
        RatesRibbon.RatesGetLabel's answer. Office asks getLabel again for a control after
        IRibbonUI.InvalidateControl (MS office/vba/api/office.iribbonui.invalidatecontrol)."""
        if control_id != "rates_scenario":
            raise KeyError(f"{control_id} has a fixed label")
        shown = self.rates_scenario_shown
        return "At Market" if shown == "" else f"SCENARIO {shown}"

    def _call_rtd(self, *args: Any) -> Any:
        """Application.WorksheetFunction.RTD from inside a UDF: the calling cell subscribes."""
        if self.rtd is None:
            raise RuntimeError("no RTD server can be started")  # Excel: run-time error 1004
        return self.rtd.call(*args)

    def close(self) -> None:
        if self._udf_pool is not None:
            self._udf_pool.shutdown()


XL_MANUAL, XL_AUTOMATIC = -4135, -4105  # XlCalculation (MS excel.xlcalculation)
#: The add-in's macros an OnTime may name, and what each runs (addin/classic/vba/RatesRibbon.bas:
#: each is one RunPython of `ribbon.on_action(<id>)`).
ADDIN_MACROS = {"RatesFill": "rates_fill", "RatesStart": "rates_start"}


def _show_scenario(app: App, shown: str) -> None:
    # RatesRibbon.RatesShowScenario: RatesScenarioShown = shown; RatesUI.InvalidateControl.
    app.rates_scenario_shown = shown
    app.invalidated.append("rates_scenario")


#: The add-in's macros Application.Run may name, modelled (vba/RatesRibbon.bas).
ADDIN_RUN = {"RatesShowScenario": _show_scenario}


class _AppApi:
    """Application's COM members the handlers use."""

    def __init__(self, app: App) -> None:
        self._app = app
        self.EnableCancelKey = 1  # xlInterrupt
        self.Workbooks = _Workbooks()
        #: What the user types into the next InputBoxes; none left: Cancel.
        self.input_answers: list[Any] = []
        self.input_prompts: list[tuple[str, str]] = []

    @property
    def Calculation(self) -> int:  # noqa: N802 - xlCalculationManual -4135, Automatic -4105
        return XL_MANUAL if self._app.calculation == "manual" else XL_AUTOMATIC

    def OnTime(self, EarliestTime: Any, Procedure: str, *_: Any) -> None:  # noqa: N802,N803
        """Application.OnTime: the procedure runs once Excel is Ready ("If this argument
        [LatestTime] is omitted, Excel will wait until the procedure can be run": MS
        excel.application.ontime), never inside the calculation that scheduled it: App.idle."""
        self._app.on_time.append(Procedure)

    def Run(self, Macro: str, *args: Any) -> Any:  # noqa: N802,N803
        """Application.Run (MS excel.application.run): the add-in's macros that take arguments,
        modelled as vba/RatesRibbon.bas writes them (ADDIN_RUN); any other name fails, as a
        macro Excel cannot find does (run-time error 1004)."""
        name = Macro.rpartition("!")[2]
        if name not in ADDIN_RUN:
            raise RuntimeError(f"Application.Run: {Macro!r} is not a macro of the add-in")
        return ADDIN_RUN[name](self._app, *args)

    def InputBox(self, prompt: str, title: str, default: str = "", Type: int = 2) -> Any:  # noqa: N802,N803
        # Application.InputBox answers False when the user cancels (learn.microsoft.com/
        # office/vba/api/excel.application.inputbox); Type=1 answers a number.
        self.input_prompts.append((prompt, title))
        return self.input_answers.pop(0) if self.input_answers else False


    @property
    def Ready(self) -> bool:  # noqa: N802 - Excel's name; App.ready (edit mode) as COM shows it
        return self._app.ready

    @property
    def Windows(self) -> list[_Window]:  # noqa: N802 - one window per open workbook
        return [_Window(book) for book in self._app.books]


class _Window:
    """A workbook's window (Application.Windows): hidden when its Book's `hidden` is set."""

    def __init__(self, book: Book) -> None:
        self.Parent = _ComBook(book.name)
        self.Visible = not book.hidden


class _ComBook:
    def __init__(self, name: str) -> None:
        self.Name = name


class _Workbooks:
    def __init__(self) -> None:
        self.added: list[str] = []

    def Add(self, template: str) -> None:  # noqa: N802 - Excel's name
        self.added.append(template)


class Sheets(list):
    active: Sheet | None = None

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            for sheet in self:
                if _fold(sheet.name) == _fold(key):
                    return sheet
            raise KeyError(key)
        return super().__getitem__(key)


class Names(dict):
    """`Book.names`: a reference name -> (Sheet, Area) for the engine; and, as xlwings'
    Names, `add(name, refers_to)` for a constant (="2026-01-02T16:00:00Z"), read back as an
    object with `refers_to` and `delete()`. Names are case-insensitive, as in Excel."""

    def add(self, name: str, refers_to: str) -> Any:
        self[name] = _ConstantName(self, name.upper(), refers_to)
        return self[name]

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key.upper(), value)

    def __getitem__(self, key: str) -> Any:
        return super().__getitem__(key.upper())


@dataclass
class _ConstantName:
    names: Names
    name: str
    refers_to: str

    def delete(self) -> None:
        del self.names[self.name]


class _CustomXMLParts:
    """`Workbook.CustomXMLParts` (MS office/vba/api/office.customxmlparts): Add(xml), a
    selection by the root element's namespace (Count, Item from 1), a part's XML and Delete."""

    def __init__(self) -> None:
        self.parts: list[_CustomXMLPart] = []

    def Add(self, xml: str) -> _CustomXMLPart:  # noqa: N802 - Office's names
        part = _CustomXMLPart(self, xml)
        self.parts.append(part)
        return part

    def SelectByNamespace(self, namespace: str) -> _Selection:  # noqa: N802
        from xml.etree import ElementTree

        return _Selection([p for p in self.parts
                           if ElementTree.fromstring(p.XML).tag.startswith("{" + namespace + "}")])


class _Selection(list):
    @property
    def Count(self) -> int:  # noqa: N802
        return len(self)

    def Item(self, index: int) -> Any:  # noqa: N802 - from 1, as COM collections
        return self[index - 1]


@dataclass(eq=False)
class _CustomXMLPart:
    owner: _CustomXMLParts
    XML: str  # noqa: N815 - Office's name

    def Delete(self) -> None:  # noqa: N802
        self.owner.parts.remove(self)


class _BookApi:
    def __init__(self) -> None:
        self.CustomXMLParts = _CustomXMLParts()


class Book:
    #: Window > Hide: its windows are not Visible (Live mode skips its cells).
    hidden = False

    def __init__(self, app: App, name: str) -> None:
        self.app, self.name = app, name
        self.sheets = Sheets()
        self.selection: Range | None = None
        self.names: Names = Names()
        self.api = _BookApi()

    def add_sheet(self, name: str) -> Sheet:
        sheet = Sheet(self, name)
        self.sheets.append(sheet)
        if self.sheets.active is None:
            self.sheets.active = sheet
        return sheet

    def select(self, sheet: str | int, address: str) -> Range:
        target = self.sheets[sheet]
        self.sheets.active = target
        self.selection = target.range(address)
        return self.selection

    def sheet_named(self, name: str) -> Sheet | None:
        try:
            return self.sheets[name]
        except KeyError:
            return None

    def compile(self) -> None:
        from tests.support import serial_excel_engine as engine

        engine.compile_book(self)

    @classmethod
    def from_file(cls, app: App, path: Path, name: str | None = None) -> Book:
        import openpyxl
        from openpyxl.worksheet.formula import ArrayFormula

        book = cls(app, name or path.name)
        with_formulas = openpyxl.load_workbook(path)
        saved = openpyxl.load_workbook(path, data_only=True)
        for ws in with_formulas.worksheets:
            sheet = book.add_sheet(ws.title)
            shown = saved[ws.title]
            # Cells inside an array formula's range (not its anchor) hold its saved result only.
            spilled = set()
            for row in ws.iter_rows():
                for cell in row:
                    if isinstance(cell.value, ArrayFormula) and cell.value.ref:
                        area = scope.parse_address(cell.value.ref)[0]
                        spilled |= {(r, c) for r in range(area.top, area.bottom + 1)
                                    for c in range(area.left, area.right + 1)} - {(cell.row, cell.column)}
            for row in ws.iter_rows():
                for cell in row:
                    value = cell.value
                    if value is None or (cell.row, cell.column) in spilled:
                        continue
                    where = Area(cell.row, cell.column, cell.row, cell.column)
                    if isinstance(value, ArrayFormula):
                        ref = scope.parse_address(value.ref)[0] if value.ref else None
                        sheet.put(where, value.text, stored_ref=ref)
                        # Excel knows a saved spill: the next result replaces all of it.
                        if ref is not None and (ref.top, ref.left) != (ref.bottom, ref.right):
                            sheet.formulas[(cell.row, cell.column)].spill = ref
                    else:
                        sheet.put(where, value)
                    if cell.data_type == "f" or isinstance(value, ArrayFormula):
                        sheet.values[(cell.row, cell.column)] = shown.cell(cell.row, cell.column).value
                        if isinstance(value, ArrayFormula) and ref is not None:
                            sheet.touch(ref.bottom, ref.right)
            # Saved results of spilled cells (no formula of their own) show too.
            for row in shown.iter_rows():
                for cell in row:
                    if cell.value is not None and (cell.row, cell.column) not in sheet.contents:
                        sheet.values[(cell.row, cell.column)] = cell.value
                        sheet.touch(cell.row, cell.column)
        for defined, item in with_formulas.defined_names.items():
            for sheet_name, ref in item.destinations:
                target = book.sheet_named(sheet_name)
                if target is not None:
                    book.names[defined.upper()] = (target, scope.parse_address(ref)[0])
        book.compile()
        return book


class Sheet:
    def __init__(self, book: Book, name: str) -> None:
        self.book, self.name = book, name
        self.contents: dict[tuple[int, int], Any] = {}  # what was typed: constants and formulas
        self.formulas: dict[tuple[int, int], Formula] = {}
        self.values: dict[tuple[int, int], Any] = {}  # what each cell shows
        self.dirty: set[tuple[int, int]] = set()
        self.max_row = self.max_col = 1  # the extent ever used (grows only, like Excel's)
        self.version = 0  # bumped by every change of a value (cached input blocks compare it)
        self.blocks: dict[tuple[int, int, int, int], tuple[int, Any]] = {}

    def touch(self, row: int, col: int) -> None:
        if row > self.max_row:
            self.max_row = row
        if col > self.max_col:
            self.max_col = col

    @property
    def app(self) -> App:
        return self.book.app

    def put(self, where: Area, content: Any, stored_ref: Area | None = None) -> None:
        cell = (where.top, where.left)
        self.touch(*cell)
        self.version += 1
        self.contents[cell] = content
        replaced = self.formulas.get(cell)
        if replaced is not None and self.book.app.rtd is not None:
            self.book.app.rtd.release(replaced)
        if isinstance(content, str) and content.startswith("="):
            self.formulas[cell] = Formula(self, cell, content, stored_ref)
        else:
            self.formulas.pop(cell, None)
            self.values[cell] = content

    def paste(self, cells: dict[str, Any]) -> None:
        """One paste of many cells ({"A1": value or "=formula"}): every new formula and the
        readers of every new value dirty, then one recalculation in automatic mode."""
        for address, content in cells.items():
            self.put(scope.parse_address(address)[0], content)
        self.book.compile()
        app = self.app
        app._graph = None
        for address in cells:
            cell = scope.parse_address(address)[0]
            at = (cell.top, cell.left)
            if at in self.formulas:
                self.dirty.add(at)
            for f in app.graph().readers(self, at):
                f.sheet.dirty.add(f.cell)
        if app.calculation == "automatic":
            app.calculate()

    def show(self, cell: tuple[int, int], value: Any) -> None:
        """Make a cell show `value` without calculating (what a file was saved with)."""
        self.values[cell] = value
        self.touch(*cell)
        self.version += 1

    def dirty_mark(self, f: Formula) -> bool:
        return f.cell in self.dirty

    def grow_down(self, rect: Area, rows: int) -> Area:
        """`rect` extended down over empty cells, to `rows` rows at most."""
        bottom, last = rect.bottom, rect.top + rows - 1
        while bottom < last and all((bottom + 1, c) not in self.contents
                                    for c in range(rect.left, rect.right + 1)):
            bottom += 1
        return Area(rect.top, rect.left, bottom, rect.right)

    @property
    def used_range(self) -> Range:
        cells = [c for c, v in self.values.items() if v is not None] + list(self.contents)
        if not cells:
            return Range(self, Area(1, 1, 1, 1))
        return Range(self, Area(min(r for r, _ in cells), min(c for _, c in cells),
                                max(r for r, _ in cells), max(c for _, c in cells)))

    def range(self, where: Any) -> Range:
        if isinstance(where, tuple):
            return Range(self, Area(*where, *where))
        rects = scope.parse_address(where)
        return Range(self, *rects)

    def calculate(self) -> None:
        """Worksheet.Calculate: this sheet's dirty and volatile cells and their dependents on it."""
        self.app._calculate(lambda f: f.cell in self.dirty or f.volatile, only=self)

    def write_result(self, f: Formula, result: Any) -> None:
        """Put a formula's result in the grid: one value, or a block spilled from the anchor."""
        from tests.support.serial_excel_engine import SPILL_ERROR

        self.version += 1
        if f.array is not None:  # a legacy array formula: fitted into its block
            from tests.support import serial_excel_legacy
            from tests.support.serial_excel_engine import NA_ERROR

            serial_excel_legacy.fit(self, f, result, NA_ERROR())
            return

        previous = f.spill
        if previous is not None:  # clear the old spill first
            for r in range(previous.top, previous.bottom + 1):
                for c in range(previous.left, previous.right + 1):
                    if (r, c) != f.cell and (r, c) not in self.contents:
                        self.values.pop((r, c), None)
        f.spill = None
        if not isinstance(result, list):
            self.values[f.cell] = result
            return
        rows, cols = len(result), max((len(row) for row in result), default=1)
        if rows == 1 and cols == 1:
            self.values[f.cell] = result[0][0]
            return
        block = Area(f.cell[0], f.cell[1], f.cell[0] + rows - 1, f.cell[1] + cols - 1)
        # Only typed content blocks a spill here (what a spill left behind, or the file saved
        # there as this formula's last result, is overwritten).
        blocked = any((r, c) in self.contents
                      for r in range(block.top, block.bottom + 1)
                      for c in range(block.left, block.right + 1) if (r, c) != f.cell)
        if blocked:
            self.values[f.cell] = SPILL_ERROR
            return
        for i, row in enumerate(result):
            for j, value in enumerate(row):
                self.values[(block.top + i, block.left + j)] = value
        self.touch(block.bottom, block.right)
        f.spill = block

    def value_at(self, cell: tuple[int, int]) -> Any:
        return self.values.get(cell)


class Range:
    """A block (or several areas) of one sheet, as xlwings' Range."""

    def __init__(self, sheet: Sheet, *rects: Area) -> None:
        self.sheet = sheet
        self.rects = list(rects)
        self.address = ",".join(r.a1(absolute=True) for r in self.rects)

    @property
    def _rect(self) -> Area:
        return self.rects[0]

    def _grid(self, pick: Any) -> Any:
        rect = self._rect
        rows = [[pick((r, c)) for c in range(rect.left, rect.right + 1)]
                for r in range(rect.top, rect.bottom + 1)]
        if len(rows) == 1 and len(rows[0]) == 1:
            return rows[0][0]
        if len(rows) == 1:
            return rows[0]  # xlwings: a single row is a flat list
        if all(len(row) == 1 for row in rows):
            return [row[0] for row in rows]  # and so is a single column
        return rows

    @property
    def formula(self) -> Any:
        def text(cell: tuple[int, int]) -> Any:
            content = self.sheet.contents.get(cell)
            return "" if content is None else (content if isinstance(content, str) else str(content))
        return self._grid(text)

    @formula.setter
    def formula(self, text: Any) -> None:
        self._type(text)

    @property
    def value(self) -> Any:
        return self._grid(self.sheet.value_at)

    @value.setter
    def value(self, value: Any) -> None:
        self._type(value)

    def _type(self, content: Any) -> None:
        """Typing into one cell: it and its dependents become dirty; automatic mode recalculates."""
        book = self.sheet.book
        for rect in self.rects:
            for r in range(rect.top, rect.bottom + 1):
                for c in range(rect.left, rect.right + 1):
                    self.sheet.put(Area(r, c, r, c), content)
                    if (r, c) in self.sheet.formulas:
                        book.compile()
                        self.sheet.dirty.add((r, c))
                    else:
                        app = book.app
                        app._graph = None
                        for f in app.graph().readers(self.sheet, (r, c)):
                            f.sheet.dirty.add(f.cell)
        book.app._graph = None
        if book.app.calculation == "automatic":
            book.app.calculate()

    @property
    def api(self) -> _RangeApi:
        return _RangeApi(self)


class _RangeApi:
    """Range's COM members the handlers call."""

    def __init__(self, rng: Range) -> None:
        self._rng = rng

    @property
    def Application(self) -> _AppApi:  # noqa: N802 - Range.Application
        return self._rng.sheet.app.api

    def Dirty(self) -> None:  # noqa: N802 - Excel's name
        sheet = self._rng.sheet
        for rect in self._rng.rects:
            for cell in sheet.formulas:
                if cell in rect:
                    sheet.dirty.add(cell)

    def Calculate(self) -> None:  # noqa: N802
        """Range.Calculate: the range's formulas, dirty or not, and not their dependents
        outside it ("Calculates a specified range of cells", MS excel.range.calculate; the
        dependents are left to the next recalculation: C. Williams, "Exploring Range.Calculate",
        fastexcel 2013)."""
        for rect in self._rng.rects:
            for cell in list(self._rng.sheet.formulas):
                if cell in rect:
                    self._rng.sheet.app._evaluate(self._rng.sheet.formulas[cell])
                    self._rng.sheet.dirty.discard(cell)

    @property
    def HasSpill(self) -> bool:  # noqa: N802
        f = self._rng.sheet.formulas.get((self._rng._rect.top, self._rng._rect.left))
        return f is not None and f.spill is not None

    @property
    def SpillingToRange(self) -> _RangeApi:  # noqa: N802
        f = self._rng.sheet.formulas[(self._rng._rect.top, self._rng._rect.left)]
        return Range(self._rng.sheet, f.spill).api

    @property
    def SpillParent(self) -> _RangeApi:  # noqa: N802
        """The anchor whose spill covers this cell (Excel raises when none does)."""
        sheet, rect = self._rng.sheet, self._rng._rect
        for f in sheet.formulas.values():
            if f.spill is not None and f.spill.top <= rect.top <= f.spill.bottom \
                    and f.spill.left <= rect.left <= f.spill.right:
                return Range(sheet, Area(*f.cell, *f.cell)).api
        raise AttributeError("SpillParent: the cell is not in a spill")  # Excel: run-time error 1004

    @property
    def Formula2(self) -> Any:  # noqa: N802
        return self._rng.formula

    @property
    def Address(self) -> str:  # noqa: N802
        return self._rng.address


# -- the dependency graph -----------------------------------------------------------------------
class _Graph:
    """Who reads whom, over every formula of the open workbooks; a topological order."""

    def __init__(self, formulas: list[Formula]) -> None:
        self.footprints = {f: f.footprint for f in formulas}
        owner: dict[tuple[int, int, int], Formula] = {}
        for f, rect in self.footprints.items():
            sid = id(f.sheet)
            for r in range(rect.top, rect.bottom + 1):
                for c in range(rect.left, rect.right + 1):
                    owner[(sid, r, c)] = f
        self._owner = owner
        self.precedents: dict[Formula, set[Formula]] = {}
        self.dependents: dict[Formula, set[Formula]] = {f: set() for f in formulas}
        for f in formulas:
            found: set[Formula] = set()
            for _, sheet, rect in f.inputs:
                found |= self._owners(sheet, rect)
            found.discard(f)
            self.precedents[f] = found
            for p in found:
                self.dependents[p].add(f)
        self.order = _topological(formulas, self.precedents)

    def _owners(self, sheet: Sheet, rect: Area) -> set[Formula]:
        sid = id(sheet)
        bottom = min(rect.bottom, sheet.max_row + SPILL_ALLOWANCE)
        right = min(rect.right, sheet.max_col)
        out = set()
        for r in range(rect.top, bottom + 1):
            for c in range(rect.left, right + 1):
                f = self._owner.get((sid, r, c))
                if f is not None:
                    out.add(f)
        return out

    def readers(self, sheet: Sheet, cell: tuple[int, int]) -> Iterator[Formula]:
        for f in self.dependents:
            if any(s is sheet and cell in rect for _, s, rect in f.inputs):
                yield f

    def closure(self, seeds: Iterable[Formula], only: Sheet | None) -> set[Formula]:
        todo: set[Formula] = set()
        stack = list(seeds)
        while stack:
            f = stack.pop()
            if f in todo:
                continue
            todo.add(f)
            stack.extend(d for d in self.dependents.get(f, ()) if only is None or d.sheet is only)
        return todo


def _topological(formulas: list[Formula], precedents: dict[Formula, set[Formula]]) -> list[Formula]:
    order: list[Formula] = []
    state: dict[Formula, int] = {}
    for root in formulas:
        if root in state:
            continue
        stack: list[tuple[Formula, Iterator[Formula]]] = [(root, iter(precedents[root]))]
        state[root] = 1
        while stack:
            node, it = stack[-1]
            nxt = next((p for p in it if state.get(p) is None), None)
            if nxt is not None:
                state[nxt] = 1
                stack.append((nxt, iter(precedents[nxt])))
                continue
            stack.pop()
            state[node] = 2
            order.append(node)
    return order


def to_serial(value: date | datetime) -> float:
    from rates_xl.functions.values import to_serial

    return to_serial(value)
