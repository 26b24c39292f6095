"""Headless workbook calculation: `WorkbookCalculation` coordinates. It reads the file once
(`calc/book.py`), loads it into an engine (`calc/engines/`: the one place that picks one),
runs the plan / fetch / compute loop (`rates_xl.functions.plan.plan_and_evaluate`, the same
loop the Excel hosts use), lists error cells (`calc/error_cells.py`), cells not computed
(with the reason; their cached values are kept), circular references and links to other
books, and writes the values-frozen copy (`calc/frozen.py`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from rates_xl.calc import (
    collector,
    data_tables,
    displayed_precision,
    error_cells,
    frozen,
    merged_spills,
    recalc,
    valuation,
)
from rates_xl.calc.book import Book, CalcError, reraise_interrupts, sheet_rows
from rates_xl.calc.budget import Budget, Deadline, check_cells
from rates_xl.calc.engines import ENGINES, Engine, Settled, load_engine
from rates_xl.calc.engines.rates import computing
from rates_xl.calc.results import BatchResult, CalcResult, SkippedCell
from rates_xl.functions.context import NOW, CallContext
from rates_xl.functions.plan import DEFAULT_MAX_ROUNDS, PlanReport, plan_and_evaluate
from rates_xl.functions.sheet import (
    Area,
    Key,
    cell_address,
    is_rates_name,
    parse_area,
    parse_cell,
)
from rates_xl.functions.tokens import function_names
from rates_xl.functions.values import CellValue, StoredValue

if TYPE_CHECKING:

    from rates_xl.client import RatesClient
    from rates_xl.client.pack import PackRecorder

__all__ = ["ENGINES", "CalcError", "WorkbookCalculation", "calculate", "calculate_many", "workbooks_in"]


# -- the calculation ----------------------------------------------------------------------------
_MAY_PREDATE = "; the book calls the service, so the cached value may predate this calculation's answers"


class WorkbookCalculation:
    """One workbook loaded into a formula engine, ready to be computed (several times).

    `engine_name="auto"` (the default) computes with formualizer; a formula of a kind it gets
    wrong and that cannot be rewritten for it keeps the file's cached value and is listed with
    the reason, never guessed. `formulas` computes the book only when formualizer cannot read
    it at all (`engine_reason` says why). `"fast"` / `"formulas"` force one.
    """

    def __init__(self, path: str | os.PathLike[str], *, engine_name: str = "auto", full: bool = False,
                 budget: Budget | None = None) -> None:
        if engine_name not in ENGINES:
            raise CalcError(f"unknown engine {engine_name!r}; choose one of {', '.join(ENGINES)}")
        self.path = Path(path)
        # The cells its formulas may read and the seconds it may take (calc/budget.py).
        self.budget = budget if budget is not None else Budget.from_settings()
        self.deadline = Deadline(self.path, self.budget.seconds)
        with self.deadline.running(), collector.paused():
            self._open(engine_name, full)

    def _open(self, engine_name: str, full: bool) -> None:
        self.source = Book(self.path)  # raises CalcError
        check_cells(self.source, self.budget)  # raises OverBudget before anything is computed
        self.book = self.source.book
        self.formula_count = len(self.source.formulas)
        self.names = self.source.names
        self.iteration = self.source.iteration
        self.dynamic_arrays = self.source.dynamic_arrays
        self.legacy_arrays = self.source.legacy_arrays
        self.spills = self.source.spills
        self.round_seconds: list[float] = []  # how long each evaluation took (bench/calc_speed.py)
        self._calls_rates: bool | None = None
        self.full = full
        self.scope = recalc.scope(self.source, full)
        self.checked = self.unchecked = 0
        self.stale: dict[Key, str] = {}  # anchors kept at Excel's value: why
        self.engine, self.engine_reason = self._load(engine_name)
        self.engine_name = self.engine.name
        self.unsupported = self.engine.unsupported  # cells no engine computes: why
        self.unknown_functions = self.engine.unknown_functions
        #: The book's own valuation moment (the defined name RATES_VALUATION_TIME), or None.
        self.valuation_time = valuation.book_moment(self.source)
        self.pinned: datetime | None = None  # the moment this run values at (the name, or --valuation-time)
        self.recorder: PackRecorder | None = None  # the pack being recorded

    def call_context(self, client: RatesClient | None, valuation_time: datetime | str | None = None,
                     context: CallContext = NOW) -> CallContext:
        """`context` (a planning round's) for this book's RATES_* calls: they value at the run's
        moment (`valuation_time`, else the book's own), and every answer this book uses is
        recorded for its pack."""
        moment = valuation_time if valuation_time is not None else self.valuation_time
        if isinstance(moment, str):
            moment = valuation.parse_moment(moment, "valuation_time")
        self.pinned = moment
        if client is not None and hasattr(client, "pack_recorder") and self.recorder is None:
            self.recorder = client.pack_recorder()
        return context.replace(valuation_time=moment, recorder=self.recorder if client is not None else None)

    def _load(self, engine_name: str) -> tuple[Engine, str]:
        """The engine that computes the scope's cells, after the check at the stored inputs."""
        scope, book = self.scope, self.source
        if not scope.recompute:
            return Settled("none", {}), ""
        checked = bool(scope.recompute - scope.uncached - scope.inputs)  # else nothing the file holds a value for
        # The check: the recomputed cells at the stored inputs (the RATES_* and NOW-like
        # cells held at their cached values, no service call), against Excel's values.
        inputs = recalc.constants(book, scope.inputs) if checked else {}
        loaded, reason = load_engine(book, engine_name,
                                     constants=recalc.constants(book, scope.kept), held=inputs,
                                     threads=self.budget.threads)
        if not checked:
            self.unchecked = len(scope.recompute - scope.inputs)
            return loaded, reason
        held = {**dict.fromkeys(loaded.service_cells()), **inputs}
        loaded.hold(held)
        outcome = last = recalc.compare(book, scope, loaded.evaluate(), loaded.unsupported)
        self.checked, self.unchecked = outcome.checked, outcome.unchecked
        for _ in range(MAX_CHECK_ROUNDS):
            # A cell may disagree only because it read a wrong one: hold the wrong cells no other
            # wrong cell feeds at Excel's values and compare again what moved since the `last` round.
            first = recalc.roots(scope, set(outcome.wrong))
            if first == set(outcome.wrong):
                break
            loaded.hold(recalc.constants(book, first))
            held.update(recalc.constants(book, first))
            again = last = recalc.compare(book, scope, loaded.evaluate(), {**loaded.unsupported, **dict.fromkeys(first, "")}, last)
            outcome.wrong = {**{key: outcome.wrong[key] for key in first}, **again.wrong}
            outcome.values = again.values
        self.stale = recalc.stale_cells(book, scope, outcome.wrong)
        stale = recalc.constants(book, set(self.stale))
        if not scope.inputs:
            # Nothing new since the check: its values are the answer, but for the stale cells.
            values = {**outcome.values, **stale}
            return Settled(loaded.name, values, loaded), reason
        loaded.release(set(held) - set(stale))
        if stale:
            loaded.hold(stale)
        return loaded, reason

    def formulas(self) -> Iterator[tuple[str, str]]:
        """(address, formula text) of every formula cell."""
        return iter(self.source.formulas)

    def formula_texts(self) -> dict[Key, str]:
        """(sheet, cell) -> formula, for every cell of an array formula's range too."""
        from openpyxl.worksheet.formula import ArrayFormula

        texts = {}
        with collector.paused():
            book = self.source.workbook()  # the formulas as the file holds them (the engine changed its copy)
        for ws in book.worksheets:
            for row in sheet_rows(ws):
                for cell in row:
                    value = cell.value
                    if isinstance(value, ArrayFormula):
                        for r, c in parse_area(value.ref or cell.coordinate).cells():
                            texts[(ws.title, cell_address(r, c))] = str(value.text)
                    elif (table := data_tables.read(ws.title, value)) is not None:
                        for r, c in table.area.cells():  # every cell of a what-if data table
                            texts[(ws.title, cell_address(r, c))] = table.text
                    elif cell.data_type == "f":
                        texts.setdefault((ws.title, cell.coordinate), str(value))
        return texts

    def round_values(self, context: CallContext = NOW) -> dict[Key, CellValue]:
        """One evaluation round (a planning round of functions/plan.py), every RATES_* call
        under `context`: every formula cell's value by (sheet title, coordinate)."""
        started = time.perf_counter()
        try:
            with computing(context), self.deadline.running(), collector.paused():
                values = self.engine.evaluate()
            # Cells kept at Excel's value (not recomputed, or stale) are part of the answer.
            values.update(self._kept_values())
            return values
        finally:
            self.round_seconds.append(time.perf_counter() - started)

    def compute(self, client: RatesClient | None = None, *, valuation_time: datetime | str | None = None,
                max_rounds: int = DEFAULT_MAX_ROUNDS,
                on_fetch: Callable[..., object] | None = None) -> CalcResult:
        """Plan, fetch and compute; the client defaults to the functions' shared client.

        A workbook that calls no RATES_* function is computed once, without a client."""
        from rates_xl.functions import get_client, using_client

        started = time.perf_counter()
        if not self.calls_rates():
            values, report = self.round_values(), PlanReport(rounds=1)
        else:
            client = get_client() if client is None else client

            def one_round(context: CallContext) -> dict[Key, CellValue]:
                return self.round_values(self.call_context(client, valuation_time, context))

            with using_client(client):
                values, report = plan_and_evaluate(one_round, client, max_rounds=max_rounds,
                                                   on_fetch=on_fetch)
        return self.result(values, report, time.perf_counter() - started)

    def _kept_values(self) -> dict[Key, CellValue]:
        if getattr(self, "_kept", None) is None:
            self._kept = recalc.constants(self.source, self.scope.kept | set(self.stale))
        return self._kept

    def result(self, values: dict[Key, CellValue], report: PlanReport, seconds: float) -> CalcResult:
        """The result of an evaluation: skipped cells filled with their cached values, error
        cells, loops and notes."""
        # Built with the collector paused, like the book (calc/collector.py): what it makes lives
        # as long as the result, and formulas_test's 10,909 error cells otherwise set off
        # collections that walked the whole loaded book again (one full, three middle ones:
        # 0.27 of its 4.3 CPU seconds, timed with gc.callbacks).
        with collector.paused():
            return self._result(values, report, seconds)

    def _result(self, values: dict[Key, CellValue], report: PlanReport, seconds: float) -> CalcResult:
        skipped = self._skipped(values)
        stale = recalc.stale_list(self.source, self.stale)
        over_merged = merged_spills.arrays_over_merged(self.source) if self.source.merged else {}
        cut = [(sheet, cell, why) for (sheet, cell), why in sorted({**self.engine.cut, **over_merged}.items())]
        return CalcResult(self.path, values, error_cells.listed(self.book, self.engine, self.spills, values), self.unknown_functions,
                          report, seconds, self.formula_count, engine=self.engine_name,
                          skipped=skipped, loops=self.engine.loops(), notes=self._notes(),
                          mode="full" if self.full else "default",
                          manual_calculation=(self.source.manual_calculation and self.source.values_out_of_date
                                              and not self.source.full_calc_on_load),
                          recomputed=len(self.scope.recompute), checked=self.checked,
                          unchecked=self.unchecked, stale=stale,
                          extents=dict(self.engine.extents), cut=cut,
                          pack=self.recorder.pack(self.pinned) if self.recorder is not None else None,
                          valuation_time=self.pinned)

    def calls_rates(self) -> bool:
        """Whether any formula calls a RATES_* function (else no client is needed)."""
        if self._calls_rates is None:
            # Only a formula whose text holds "RATES" can call one (`is_rates_name`): the others'
            # calls are not looked up.
            self._calls_rates = any(
                "RATES" in text.upper() and any(is_rates_name(name) for name in function_names(text))
                for _, text in self.formulas())
        return self._calls_rates

    def _skipped(self, values: dict[Key, CellValue]) -> list[SkippedCell]:
        """Cells no engine computed: their cached value goes into `values` and the summary."""
        if not self.unsupported:
            return []
        cached = self.source.cached()
        # In a book that calls the service, a cell kept at the file's value that reads a new
        # answer (a RATES_* call, NOW ...) may be older than this run's answers: its reason says
        # so. The `formulas` engine is no fallback for such cells: over the corpus it gives wrong
        # numbers without a word (0.977 of cells right), and a value visibly kept from the file
        # beats one silently wrong (`--engine formulas` still forces it).
        moving = self.scope.answering_among(set(self.unsupported)) if self.calls_rates() else set()
        out = []
        for (sheet, cell), why in sorted(self.unsupported.items()):
            reason = why + (_MAY_PREDATE if (sheet, cell) in moving else "")
            r1, c1, r2, c2 = self.engine.area((sheet, cell)) or Area.cell(*parse_cell(cell))
            for r in range(r1, r2 + 1):
                for c in range(c1, c2 + 1):
                    coordinate = cell_address(r, c)
                    value = cached.get((sheet, coordinate))
                    values[(sheet, coordinate)] = value
                    out.append(SkippedCell(sheet, coordinate, f"not computed ({reason}): the file's cached value is kept", value))
        return out

    def _notes(self) -> list[str]:
        notes = []
        source = self.source
        if source.manual_calculation and self.formula_count and not source.full_calc_on_load:
            if source.values_out_of_date:
                notes.append("saved in manual calculation mode (Excel recalculates it only on F9) without "
                             "recalculating before saving (calcOnSave off): the values it holds may predate its "
                             "inputs, so every formula was recomputed, none compared with them" +
                             ("; the cells not computed keep them" if self.unsupported else ""))
            else:
                notes.append("saved in manual calculation mode, recalculated by Excel when it saved (calcOnSave, "
                             "Excel's default): its values are Excel's answers, checked as an automatic book's")
        elif source.tables_on_f9 and source.data_tables and not source.values_out_of_date:
            notes.append(f"set to calculate automatically except for data tables (Excel computes them only on F9): "
                         f"the {len(source.data_tables)} data table(s) were computed as F9 computes them, and what "
                         "reads them from that, none compared with the values the file holds for them")
        elif not source.calculation_completed and self.formula_count and not source.full_calc_on_load:
            notes.append("saved before Excel finished calculating (calcCompleted off): the values it holds may "
                         "predate its inputs, so every formula was recomputed, none compared with them")
        if self.engine_reason and self.engine_name == "formulas":
            notes.append(f"computed with the formulas engine: {self.engine_reason}")
        elif self.engine_reason:
            notes.append(self.engine_reason)
        if self.source.external_links:
            notes.append(f"{self.source.external_links} link(s) to other workbooks: their values are the ones "
                         "this file cached (the linked files are not opened)")
        if displayed_precision.applies(self.source.book):
            notes.append("set to precision as displayed (Excel's \"Set precision as displayed\"): each formula's "
                         "number is rounded to the decimal places its format shows, as Excel holds it; General "
                         "cells keep full precision, and a cell whose format's precision calc cannot tell is listed")
        if self.source.package.strict:
            notes.append("saved as Strict Open XML: read as the Transitional workbook it maps to, and each copy "
                         "written as an Excel Workbook (*.xlsx), which Excel and other readers open")
        if self.source.read_losses:
            notes.append(f"the copy lacks the book's {self.source.read_losses}")
        if self.source.feeds:
            notes.append(f"{len(self.source.feeds)} link(s) to a live feed ({', '.join(sorted(set(self.source.feeds.values())))}): "
                         "the cells reading them keep the values this file cached (only Excel can call a feed)")
        loops = self.engine.loops()
        if loops:
            iterate, count, delta = self.iteration
            if iterate:
                notes.append(f"circular references ({len(loops)} cells) computed iteratively as the "
                             f"file asks (at most {count} iterations, change below {delta:g})")
            else:
                notes.append(f"circular references ({len(loops)} cells) with iterative calculation "
                             "off: Excel warns and shows 0 in them, and so does this copy")
        if self.unsupported:
            notes.append(f"{len(self.unsupported)} cell(s) not computed: each keeps the value the file "
                         "cached (listed with the reason)")
        return notes

    def freeze(self, result: CalcResult, out: str | os.PathLike[str], *, force: bool = False) -> Path:
        """Write a copy of the original with every formula replaced by its computed value,
        carrying the market-data pack the values came from (client/pack_workbook.py), bound to
        the copy's cells and sealed (calc/provenance.py): `result.pack` becomes that pack."""
        with collector.paused():
            written = frozen.freeze(self.source, result, out, force=force)
        if result.pack is not None:
            from rates_xl.calc.provenance import seal_copy
            from rates_xl.client.pack import PackError
            from rates_xl.client.pack_workbook import write_pack

            try:
                result.pack = seal_copy(written, result.pack, getattr(self.recorder, "signer", None))
                write_pack(written, result.pack)
            except (OSError, PackError) as exc:
                raise CalcError(f"{written}: cannot write the market-data pack into it ({exc})") from None
        return written

    def named(self, result: CalcResult, name: str) -> StoredValue:
        """The value of a defined name's cell: computed for a formula, as typed for an input."""
        sheet, cell = self.cell_of_name(name)
        if (sheet, cell) in result.values:
            return result.values[(sheet, cell)]
        return self.book[sheet][cell].value

    def cell_of_name(self, name: str) -> tuple[str, str]:
        """(sheet, cell) of a workbook-level defined name."""
        try:
            return self.names[name.lower()]
        except KeyError:
            raise KeyError(f"{self.path.name} defines no name {name!r}") from None


#: How many times the check holds the cells found wrong and compares what they feed again.
MAX_CHECK_ROUNDS = 3


def calculate(path: str | os.PathLike[str], out: str | os.PathLike[str] | None = None, *,
              client: RatesClient | None = None, valuation_time: datetime | str | None = None,
              force: bool = False, on_fetch: Callable[..., object] | None = None,
              full: bool = False) -> CalcResult:
    """Compute a workbook and (when `out` is given) write its values-frozen copy."""
    calc = WorkbookCalculation(path, full=full)
    if out is not None and Path(out).exists() and not force:
        raise CalcError(f"{out} exists; pass --force to overwrite it")
    result = calc.compute(client, valuation_time=valuation_time, on_fetch=on_fetch)
    if out is not None:
        calc.freeze(result, out, force=force)
    return result


def calculate_many(paths: Sequence[str | os.PathLike[str]], client: RatesClient | None = None, *,
                   valuation_time: datetime | str | None = None, engine_name: str = "auto",
                   full: bool = False, max_rounds: int = DEFAULT_MAX_ROUNDS, on_fetch: Callable[..., object] | None = None,
                   on_load: Callable[[Path], object] | None = None) -> BatchResult:
    """Load every workbook, then run one plan / fetch / compute loop over all of them: each
    round evaluates every book, so a request several books make is fetched once. A book that
    cannot be read or computed is reported in `failures`; the others go on."""
    from rates_xl.functions import get_client, using_client

    started = time.perf_counter()
    calcs: dict[Path, WorkbookCalculation] = {}
    failures: dict[Path, str] = {}
    for raw in paths:
        path = Path(raw)
        if on_load is not None:
            on_load(path)
        try:
            calcs[path] = WorkbookCalculation(path, engine_name=engine_name, full=full)
        except CalcError as exc:
            failures[path] = str(exc)
        except BaseException as exc:  # never a traceback: the book is reported, the others go on
            reraise_interrupts(exc)
            failures[path] = f"{path}: cannot be computed ({type(exc).__name__}: {exc})"

    def one_round(context: CallContext = NOW) -> dict[Path, dict[Key, CellValue]]:
        out = {}
        for path, calc in list(calcs.items()):
            try:
                # Each book at its own moment, recording its own pack (a request several
                # books share is still fetched once: the recorders read the one cache).
                mine = calc.call_context(client if calc.calls_rates() else None, valuation_time, context)
                out[path] = calc.round_values(mine)
            except CalcError as exc:  # a budget past: this book stops, the others go on
                failures[path] = str(exc)
                del calcs[path]
            except BaseException as exc:  # never a traceback
                reraise_interrupts(exc)
                failures[path] = str(exc) if isinstance(exc, CalcError) else (
                    f"{path}: calculation failed ({type(exc).__name__}: {exc})")
                del calcs[path]
        return out

    needs_client = any(calc.calls_rates() for calc in calcs.values())
    if needs_client:
        client = get_client() if client is None else client
        with using_client(client):
            values, report = plan_and_evaluate(one_round, client, max_rounds=max_rounds,
                                               on_fetch=on_fetch)
    else:
        values, report = one_round(), PlanReport(rounds=1)
    results = {}
    for path, calc in calcs.items():
        if path in values:
            results[path] = calc.result(values[path], report, time.perf_counter() - started)
    return BatchResult(results, failures, report, time.perf_counter() - started,
                       {p: c for p, c in calcs.items() if p in results})


def workbooks_in(paths: list[str | os.PathLike[str]], left_out: list[Path] | None = None) -> list[Path]:
    """The workbooks named, a folder standing for the .xlsx / .xlsm files directly in it:
    Excel's lock files `~$...` and the copies this command wrote are left out (`*.values.*` by
    name; by content, a book with no formula that carries a market-data pack, whatever its
    name: `-o replayed.xlsx`), and listed in `left_out`."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if not path.is_dir():
            found.append(path)
            continue
        for book in sorted(p for p in path.iterdir() if p.suffix.lower() in (".xlsx", ".xlsm")
                           and not p.name.startswith("~$")):
            if ".values." in book.name or is_calc_copy(book):
                if left_out is not None:
                    left_out.append(book)
            else:
                found.append(book)
    return found


def is_calc_copy(path: Path) -> bool:
    """A copy `rates-xl calc` wrote: values only (no formula in any sheet) and a market-data pack."""
    import re
    import zipfile

    from rates_xl.client.pack import PackError
    from rates_xl.client.pack_workbook import read_pack

    try:
        if read_pack(path) is None:
            return False
        with zipfile.ZipFile(path) as package:
            sheets = [n for n in package.namelist() if re.match(r"xl/worksheets/[^/]+\.xml$", n)]
            return not any(b"<f>" in package.read(n) or b"<f " in package.read(n) for n in sheets)
    except (PackError, OSError, zipfile.BadZipFile):
        return False
