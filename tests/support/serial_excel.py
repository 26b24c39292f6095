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

This module is the application (`App`: its workbooks, the calculation, OnTime and the add-in's
macros, Application's COM members); the workbooks, sheets and ranges are in
serial_excel_book.py, the formula cells and the dependency graph in serial_excel_graph.py, a
cell's evaluation in serial_excel_engine.py, RTD in serial_excel_rtd.py, legacy array
formulas in serial_excel_legacy.py.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from rates_xl.addin.classic import scope
from rates_xl.functions.sheet import Area
from tests.support.serial_excel_book import Book, Range, Sheet
from tests.support.serial_excel_graph import Formula, Graph


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
        self._graph: Graph | None = None
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

    def graph(self) -> Graph:
        if self._graph is None:
            self._graph = Graph([f for book in self.books for sheet in book.sheets
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
