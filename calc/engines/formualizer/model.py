"""The fast engine's loaded workbook: formualizer (Rust; MIT) holding the copy `prepare.py`
prepared, with the RATES_* functions and the Excel-exact ones (calc/xlfuncs) registered under
every spelling, computed again cheaply in later planning rounds (`FastModel.recalculate`: only the
formulas that call a RATES_* function are re-set; the engine recomputes those and what depends
on them). Values cross between the engine and Python here, through `values.py`.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, cast

from rates_xl.calc.engines import rates
from rates_xl.calc.engines.formualizer import legacy_fills, lookups
from rates_xl.calc.engines.formualizer.callbacks import Registrar
from rates_xl.calc.engines.formualizer.cells import kept_subtotal
from rates_xl.calc.engines.formualizer.prepare import Prepared
from rates_xl.calc.engines.formualizer.values import (
    from_engine,
    is_error,
    plain,
    plains,
    scalar_to_engine,
    to_engine,
)
from rates_xl.calc.formula.hazards import builds_reference
from rates_xl.client import setting_defaults
from rates_xl.functions import errors
from rates_xl.functions.sheet import (
    Area,
    address,
    cell_address,
    parse_area,
    parse_cell,
    split_reference,
    unquote_sheet,
)
from rates_xl.functions.tokens import function_names, range_operands
from rates_xl.functions.values import EPOCH_1900, EPOCH_1904, CellValue

if TYPE_CHECKING:
    from formualizer import EvaluationConfig, Sheet, Workbook

    from rates_xl.calc.sources import InternalFunction
    from rates_xl.functions.core import FunctionSpec


class FastModel:
    """A workbook loaded in formualizer, computed again cheaply in later planning rounds."""

    def __init__(self, prepared: Prepared, threads: int) -> None:
        self.prepared = prepared
        self.threads = threads  # the evaluation's (`evaluation_config`)
        self.date1904 = bool(prepared.facts.get("date1904"))
        #: The book's day 0: a date the engine answers is read back as its serial from it.
        self.epoch = EPOCH_1904 if self.date1904 else EPOCH_1900
        self._spots: dict[tuple[str, str], str] = {}  # (sheet, cell) -> its address (`spill_extent`)
        self._extents: dict[str, Area] = {}  # a spill's extent as the engine writes it -> its area
        self.workbook = self._load()
        self.rounds = 0
        self.held: dict[tuple[str, int, int], Any] = {}  # cells held at a value (see `hold`)
        self.held_spills: dict[tuple[str, int, int], tuple[str, Area]] = {}  # (see `hold`)
        #: (sheet, anchor) -> (extent, values) of each legacy array `_fills` read, while the
        #: book is not computed again nor a cell set since: what the engine adapter reads back.
        self.legacy_read: dict[tuple[str, str], tuple[Area | None, list[list[CellValue]]]] = {}

    def _load(self) -> Any:

        workbook = load_dynamic(self.prepared.data, self.threads, self.date1904)
        # Its undo log, never used here, doubles what each edit (`hold`, a re-set RATES_*
        # formula) costs.
        workbook.set_changelog_enabled(False)
        self.workbook = workbook
        self._sheets: dict[str, Sheet] = {}  # its sheets' handles (`block`)
        self.filled = legacy_fills.Fills()  # legacy arrays' rests (`_fill_legacy`)
        self.snapped: dict[tuple[str, int, int], str] = {}  # sums given Excel's zero (`_snap_to_zero`)
        self._register()
        _set_helpers(workbook, self.prepared)
        for (sheet, row, col), text in self.prepared.late_errors.items():
            workbook.set_value(sheet, row, col, scalar_to_engine(text))  # (cells.py `FILE_ERRORS`)
        self._graph_built = False  # (`hold` builds the engine's dependency graph before its first edit)
        self._indirect_again()
        return workbook

    def _indirect_again(self) -> None:
        """In a workbook read from a file holding links to other workbooks, formualizer 0.13's
        INDIRECT answers #REF! for a computed text (`INDIRECT("A"&1)`, not `INDIRECT("A1")`)
        in the formulas it read from the file, and answers right in the same formulas set again
        after loading. The copy holds its links only where a formula can read them (links.py:
        poi_StructuredRefs-lots-with-lookups.xlsx's 3,798 running counts
        `INDIRECT("A"&ROW(...)-1)+1` are right at load, its link left out); in such a copy the
        INDIRECT formulas are set again, once, after loading, before the engine builds its
        dependency graph (`hold`, or the first evaluation, builds it once either way): a formula
        set then costs next to nothing (10,000 of formulas_test's: 0.015 CPU s)."""
        if not self.prepared.links:
            return
        again = [(key, formula) for key, formula in self.prepared.written.items() if "INDIRECT" in formula.upper()]
        if not again:
            return
        self._set_formulas(dict(again))

    def _set_formulas(self, formulas: dict[tuple[str, int, int], str]) -> None:
        """These formulas set, each run of cells one under another in one call (the 3,798
        running counts of poi_StructuredRefs-lots-with-lookups.xlsx: 0.32 CPU s one by one,
        0.09 so)."""
        runs: list[tuple[str, int, int, list[list[str]]]] = []
        for (sheet, row, col), formula in sorted(formulas.items(), key=lambda item: (item[0][0], item[0][2], item[0][1])):
            if runs and runs[-1][:3] == (sheet, row - len(runs[-1][3]), col):
                runs[-1][3].append([formula])
            else:
                runs.append((sheet, row, col, [[formula]]))
        for sheet, row, col, column in runs:
            self.workbook.set_formulas_batch(sheet, row, col, column)

    def _register(self) -> None:
        # Each function kept from making a Python thread state per call (callbacks.py).
        registrar = Registrar(self.workbook)
        for excel_name, spec in rates.function_table().items():
            call = _adapt(excel_name, spec, self.date1904)
            for alias in rates.engine_names(excel_name):
                registrar.register_function(alias, call, volatile=False, deterministic=True)
        from rates_xl.calc import xlfuncs

        # The Excel-exact functions (calc/routing.py); here, so a reload (`release`) keeps them.
        # (xlfuncs.register calls nothing of the workbook but `register_function`.)
        xlfuncs.register(cast("Workbook", registrar), self.prepared.facts)
        # The tables shared by many lookups (lookups.py), kept by token for this workbook.
        lookups.register(registrar, lookups.Tables())

    def recalculate(self) -> None:
        """Compute; in later rounds only the RATES_* cells and what depends on them."""
        with _no_collection():
            self._recalculate()

    def _recalculate(self) -> None:
        if self.rounds:
            for sheet, row, col, formula in self.prepared.rates_cells:
                if (sheet, row, col) not in self.held:
                    self.workbook.set_formula(sheet, row, col, formula)
        self._evaluate_all()
        if not self.rounds:
            self._keep_array_loops()
        self._fill_legacy()
        self._compute_data_tables()
        self.rounds += 1

    def _evaluate_all(self) -> None:
        """The book computed, then Excel's zero given to the sums it lands near 0."""
        self.legacy_read = {}
        self.workbook.evaluate_all()
        self._snap_to_zero()

    def _snap_to_zero(self) -> None:
        """The sums the preparation left for the values to decide (calc/formula/terms.py): those
        this evaluation landed within 2^-49 of their last operand get the rule written in and
        the book is computed again, until none is left (each time one more sum at least is
        written out, so it ends). Held cells are left alone (their formula is not computed)."""
        sums = self.prepared.sums
        if not sums:
            return
        from rates_xl.calc.formula.terms import to_snap, written_out

        read = self.workbook.get_value
        while True:
            found = [key for key in to_snap(sums, read, self.snapped) if key not in self.held]
            if not found:
                return
            for key in found:
                self.snapped[key] = formula = written_out(self.prepared.written[key])
                self.workbook.set_formula(*key, formula)
            self.workbook.evaluate_all()

    def _compute_data_tables(self) -> None:
        """Each what-if data table as Excel's what-if analysis computes it (calc/data_tables.py):
        its input cells given each of its values in turn, the formula recomputed with what
        depends on them (the engine's own dirty tracking), the inputs put back; the results go
        into the table's cells and the book is computed once more for what reads them."""
        from rates_xl.calc import data_tables

        if not self.prepared.data_tables:
            return
        self.legacy_read = {}
        workbook = self.workbook
        for (sheet, _anchor), table in self.prepared.data_tables.items():
            if (sheet, table.area[0], table.area[1]) in self.held:
                continue  # (held at the file's values: calc/recalc.py, a table Excel computes on F9)
            originals = {cell: self.value(sheet, *cell) for cell in table.inputs}

            def substitute(cell: tuple[int, int], value: Any, sheet: str = sheet) -> None:
                workbook.set_value(sheet, *cell, scalar_to_engine(value) if value is not None else None)

            def restore(cell: tuple[int, int], sheet: str = sheet, originals: dict = originals) -> None:
                formula = self.prepared.written.get((sheet, *cell))
                if formula is not None:
                    workbook.set_formula(sheet, *cell, formula)
                else:
                    substitute(cell, originals[cell])

            def read(cell: tuple[int, int], sheet: str = sheet) -> Any:
                return self.value(sheet, *cell)

            def result(cell: tuple[int, int], sheet: str = sheet) -> Any:
                return plain(workbook.evaluate_cell(sheet, *cell), self.epoch)

            results = data_tables.compute(table, read, substitute, result, restore)
            for cell, value in results.items():
                substitute(cell, value)
        workbook.evaluate_all()

    def _fill_legacy(self) -> None:
        """A legacy array whose result is smaller than its stored range: Excel shows the
        rest of the range filled (`fit_legacy`: a single value everywhere, a row repeated down,
        #N/A past the result), and a formula reading a cell there reads that, not the blank
        the engine's cut spill leaves (`=K5` over `{=H2}` in J4:K5 read 0, silently). Those
        cells are set, a rectangle at a time (right of the result, then below it: a call each,
        not one per cell), and the book computed once more.

        A later round finds the last round's fills in place (formulas_test.xlsx: 337). Where
        every result kept its extent and none reads #SPILL!, only those whose values changed
        (or a cell of which was set since) are set again, those of arrays held since emptied.
        Otherwise (a result grew into its fill, or shrank) every fill is emptied and the book
        computed again first, as in the first round (legacy_fills.py)."""
        wanted = self._wanted()
        filled = self.filled
        if filled.rows and (wanted.blocked or not filled.in_step(wanted.fills, self.held)):
            for (sheet, row, col), rows in filled.rows.items():
                self.workbook.set_values_batch(sheet, row, col, legacy_fills.emptied(rows))
            filled.rows = {}
            for key in wanted.blocked:  # (the engine does not compute a blocked spill again when its way clears)
                self.workbook.set_formula(*key, self.prepared.written[key])
            self._evaluate_all()
            wanted = self._wanted()
        gone = [(key, rows) for key, rows in filled.rows.items() if key not in wanted.fills]  # (arrays held since)
        changed = filled.changed(wanted.fills)
        for (sheet, row, col), rows in gone:
            self.workbook.set_values_batch(sheet, row, col, legacy_fills.emptied(rows))
        for (sheet, row, col), rows in changed:  # (once every result is read)
            self.workbook.set_values_batch(sheet, row, col, rows)
        filled.rows, filled.owners, filled.touched = wanted.fills, wanted.owners, set()
        if gone or changed:
            self._evaluate_all()

    def _wanted(self) -> legacy_fills.Wanted:
        """The fills the legacy arrays' results leave as the book stands (`legacy_fills.wanted`),
        what it read kept for the engine adapter (`legacy_read`)."""
        wanted = legacy_fills.wanted(self.prepared.legacy_spills, self.held, bool(self.filled.rows),
                                     self.spill_extent, self.block)
        self.legacy_read = wanted.read
        return wanted

    def _keep_array_loops(self) -> None:
        """Cycles are found as the evaluation really reads cells (`load_dynamic`), but an
        array formula written out cell by cell (`prepared.rewritten`) reads less than Excel's,
        which evaluates every argument of `{=IF(A8:A9,B8:B9,1)}` whole: in a cycle on paper
        it is a circular reference in Excel whatever the branch. Those cells are held at
        #CIRC! (listed as the loop, as with static detection) and the engine computes again,
        so what really reads them is in the loop too; the rest of a paper cycle is computed."""
        import formualizer

        if not self.prepared.rewritten or not self.workbook.last_cycle_telemetry().phantom_sccs:
            return
        static = formualizer.load_workbook_bytes(self.prepared.data)  # every static cycle #CIRC!
        _set_helpers(static, self.prepared)
        static.evaluate_all()  # our functions are not registered there: no request
        looped = {}
        for key in self.prepared.rewritten:
            r1, c1, r2, c2 = self.prepared.areas[key]
            for r in range(r1, r2 + 1):
                for c in range(c1, c2 + 1):
                    if _is_circ(static.get_value(key[0], r, c)) and not _is_circ(self.workbook.get_value(key[0], r, c)):
                        looped[(key[0], r, c)] = "#CIRC!"
        if looped:
            self.hold(looped)
            self._evaluate_all()

    def readers(self, cells: Iterable[tuple[str, int, int]]) -> dict[tuple[str, int, int], tuple[str, int, int]]:
        """Every cell whose formula reads one of `cells`, directly or through other formulas,
        -> the one of `cells` it was found from: the engine's dependency graph, before any
        evaluation (a reference an INDIRECT or OFFSET builds is not in it). What reads any
        cell of an array found is found too (`B2` of `B1`'s spill: the graph names the
        anchor's readers apart from those of the cells it fills), and what reads a defined
        name covering a cell found (`_NamedReaders`: the report names no such reader)."""
        if not self._graph_built:
            self.workbook.get_eval_plan([])  # (the graph, built once: `hold`)
            self._graph_built = True
        areas = self.prepared.areas
        named = _NamedReaders(self.workbook.get_named_ranges(), self.prepared.written)
        found: dict[tuple[str, int, int], tuple[str, int, int]] = {}
        todo = [(cell, cell) for cell in cells]
        while todo:
            (sheet, row, col), source = todo.pop()
            report = self.workbook.dependents(address(sheet, cell_address(row, col)))
            keys = []
            for dependent in report.dependents:
                title, reference = split_reference(dependent.cell)
                try:
                    r, c = parse_cell(reference)
                except ValueError:
                    continue  # (a cell is all it names; nothing else is read here)
                keys.append((unquote_sheet(title[:-1]) if title else sheet, r, c))
            for key in [*keys, *named.of(sheet, row, col)]:
                r, c = key[1], key[2]
                if key in found:
                    continue
                found[key] = source
                todo.append((key, source))
                area = areas.get((key[0], cell_address(r, c)))
                if area is not None and (area[0], area[1]) != (area[2], area[3]):
                    todo.extend(((key[0], rr, cc), source) for rr, cc in area.cells() if (rr, cc) != (r, c))
        return found

    def reference_builders(self) -> list[tuple[str, int, int]]:
        """The formula cells building a reference as they compute (INDIRECT of a computed text,
        OFFSET: `readers` cannot find what these read, the dependency graph holding no reference
        made at evaluation), in the prepared copy's order. An INDIRECT of a literal reference
        was written as that reference (calc/formula/ranges.py), and a defined name by a formula
        written into each formula using it (calc/formula/defined_names.py), so the text written
        says which build one."""
        return [key for key, text in self.prepared.written.items() if builds_reference(text)]

    def hold(self, values: dict[tuple[str, int, int], Any],
             spills: dict[tuple[str, int, int], tuple[str, Area]] | None = None) -> None:
        """These cells hold these values (their formulas are not computed) until `release`;
        `spills`: dynamic arrays among them, anchor -> (a formula spilling their values, their
        range), which spill them, so that `A1#` reads them (the engine adapter's `hold`)."""
        spills = spills or {}
        if not self.rounds and not self._graph_built and values:
            # Before its first evaluation the engine has no dependency graph yet, and each
            # edit then costs ten times as much (swap_pricer's 426 held cells: 0.5 s against
            # 0.06 s): the graph is built first, without evaluating anything.
            self.workbook.get_eval_plan([])
            self._graph_built = True
        self.filled.touch(values)
        self.legacy_read = {}
        self.held_spills.update(spills)
        spilled = {(sheet, r, c) for (sheet, _r, _c), (_formula, area) in spills.items() for r, c in area.cells()}
        for (sheet, row, col), value in values.items():
            self.held[(sheet, row, col)] = value
            if (sheet, row, col) in spilled:
                if (sheet, row, col) in spills:
                    self.workbook.set_formula(sheet, row, col, spills[(sheet, row, col)][0])
                continue  # (the rest of its range: its anchor's spill fills it)
            written = self.prepared.written.get((sheet, row, col))
            if written is None and value is None:
                continue  # already empty in the engine's copy (a spill range is emptied)
            if written is not None and (nested := kept_subtotal(written, value)) is not None:
                self.workbook.set_formula(sheet, row, col, nested)  # still a subtotal to a SUBTOTAL reading it
                continue
            self.workbook.set_value(sheet, row, col, scalar_to_engine(value) if value is not None else None)

    def release(self, cells: set[tuple[str, int, int]]) -> None:
        """Compute these cells' formulas again. Ordinary formula cells get their formulas back
        in place, after an evaluation (the engine then recomputes them and what depends on
        them: formulas_test.xlsx's check held 25 volatile cells, and loading the book again
        and computing all of it cost 1.0 of its 6.9 CPU seconds). Otherwise the engine is
        loaded afresh from the prepared copy (putting a formula back over a held spill or an
        array's cell in place left a spill's neighbours reading stale cells) and the other
        held cells are held again."""
        freed = [key for key in self.held if key in cells]
        self.legacy_read = {}
        if self._in_place(freed):
            self.filled.touch(freed)
            for key in freed:
                del self.held[key]
                self.workbook.set_formula(*key, self.prepared.written[key])
            return
        kept = {key: value for key, value in self.held.items() if key not in cells}
        spills = {key: spill for key, spill in self.held_spills.items() if key in kept}
        self._load()
        self.held, self.held_spills = {}, {}
        self.rounds = 0
        if kept:
            self.hold(kept, spills)

    def _in_place(self, freed: list[tuple[str, int, int]]) -> bool:
        """Whether these held cells can have their formulas back without loading the book
        again: evaluated once already, each an ordinary formula cell (no array's, no spill's,
        no data table's). A legacy array's fill is redone by every round (`_fill_legacy`)."""
        prepared = self.prepared
        return bool(self.rounds) and all(key in prepared.written and key not in prepared.elements for key in freed)

    def first_not_computed(self, most: int = 50_000) -> tuple[str, str] | None:
        """After a cancelled evaluation: the first formula cell (in the book's order) the
        engine never computed, where it was when it stopped (None past `most` cells asked)."""
        for (sheet, row, col) in list(self.prepared.written)[:most]:
            try:
                state = self.workbook.inspect_cell(address(sheet, cell_address(row, col)),
                                                   include_values=False).cell.staleness
            except Exception:
                continue
            if str(state).endswith("NeverEvaluated"):
                return sheet, cell_address(row, col)
        return None

    def value(self, sheet: str, row: int, col: int) -> Any:
        return plain(self.workbook.get_value(sheet, row, col), self.epoch)

    def values(self, sheets: list[str], rows: list[int], cols: list[int]) -> list[CellValue]:
        """`value` of each cell (its sheet, row and column side by side), read in one pass."""
        return plains(map(self.workbook.get_value, sheets, rows, cols), self.epoch)

    def block(self, sheet: str, r1: int, c1: int, r2: int, c2: int) -> list[list[CellValue]]:
        """`value` of each cell of a rectangle, by row: one batch read (formualizer's
        `Sheet.get_values`: a 4 x 4 block in a third of the time of its 16 `get_value` calls)."""
        import formualizer

        handle = self._sheets.get(sheet)
        if handle is None:
            handle = self._sheets[sheet] = self.workbook.sheet(sheet)
        epoch = self.epoch
        return [plains(row, epoch) for row in handle.get_values(formualizer.RangeAddress(sheet, r1, c1, r2, c2))]

    def spill_extent(self, sheet: str, coordinate: str) -> Area | None:
        """The area a spilled anchor covers, None for one that does not spill."""
        spot = self._spots.get((sheet, coordinate))
        if spot is None:  # (asked of every spill anchor each round: its address made once)
            spot = self._spots[(sheet, coordinate)] = address(sheet, coordinate)
        try:
            snapshot = self.workbook.inspect_cell(spot, include_values=False)
            spill = snapshot.cell.spill
        except Exception:
            return None
        if spill is None or not (extent := spill.extent):
            return None
        area = self._extents.get(extent)
        if area is None:  # (the same extents recur every round)
            area = self._extents[extent] = parse_area(split_reference(extent)[1])
        return area

    def loops(self) -> list[tuple[str, int, int]]:
        """Cells in a circular reference: (sheet, row, col). Read from the engine when it
        stamps them (iteration off); from a copy with iteration off when the book iterates."""
        import formualizer

        if self.prepared.probe is None:
            workbook = self.workbook
        else:
            workbook = formualizer.load_workbook_bytes(self.prepared.probe)
            _set_helpers(workbook, self.prepared)
            workbook.evaluate_all()  # our functions are not registered there: no request
        found = []
        for (sheet, _anchor), (r1, c1, r2, c2) in self.prepared.areas.items():
            for r in range(r1, r2 + 1):
                for c in range(c1, c2 + 1):
                    value = workbook.get_value(sheet, r, c)
                    if isinstance(value, dict) and value.get("kind") == "Circ":
                        found.append((sheet, r, c))
        return found

    def has_loops(self) -> bool:
        telemetry = self.workbook.last_cycle_telemetry()
        return bool(telemetry.static_sccs or telemetry.live_cycles_witnessed or telemetry.circ_cells_stamped)


@contextmanager
def _no_collection() -> Iterator[None]:
    """Python's cyclic collector off while the engine computes. The engine hands our functions
    (SUMIF, COUNTIF, MATCH ... over ranges) their ranges as lists of lists, and those
    allocations set off full collections that walk every object of the process again
    (the openpyxl workbook read, the prepared formulas): 22 % of the evaluation's CPU time on
    poi_StructuredRefs-lots-with-lookups.xlsx (perf: gc_collect_main, visit_decref,
    visit_reachable). What the callbacks allocate holds no cycles; reference counting frees it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def load_dynamic(data: bytes, threads: int, date1904: bool = False) -> Any:
    """The workbook `data` in formualizer, reporting a circular reference as Excel does: only
    when an evaluation really reads a cell still being computed ("runtime" cycle detection).
    A cycle on paper only (`=IF(A10,C10,1)` with A10 FALSE, C10 leading back to it) is
    computed, as Excel computes it, instead of every cell of the static cycle being #CIRC!.
    The file's own iteration settings (calcPr) still apply: they need runtime detection too.
    `date1904`: the book counts dates from 1904 (the engine's own date functions told so;
    calc/xlfuncs/dates/system1904.py for ours)."""
    import formualizer

    config = formualizer.WorkbookConfig(eval_config=evaluation_config(threads, date1904))
    return formualizer.Workbook.from_bytes(data, config=config)


def evaluation_config(threads: int = setting_defaults.CALC_THREADS, date1904: bool = False) -> EvaluationConfig:
    """The engine's evaluation settings: runtime cycle detection (`load_dynamic`), at most
    `threads` threads (the setting `calc_threads`; 0: formualizer's default, one per core), and
    its parallel evaluation left on, whatever the threads. formualizer 0.13's sequential one (`enable_parallel = False`,
    at most 0.1 CPU s less on formulas_test) is wrong after an edit: a formula made dirty
    (set again, or a precedent edited) that reads, through formulas not dirty, a cell of a
    spill its anchor changes in the same evaluation is computed before them and never again
    (tests/calc/test_engine_order.py; swap_pricer's RATES_DISCOUNT of a date read from its curve
    stayed "" and made no request)."""
    import formualizer

    config = formualizer.EvaluationConfig()
    config.cycle_detection = "runtime"
    if date1904:
        config.date_system = "1904"
    if threads:
        # One by default (client/settings.py says why): formualizer's parallel scheduler on one
        # thread is not its sequential evaluation above (tests/calc/test_engine_order.py).
        config.max_threads = threads
    return config


def _set_helpers(workbook: Workbook, prepared: Prepared) -> None:
    """The shared lookups' helper cells, which the prepared copy leaves out, given their
    formulas in a workbook just loaded from it (lookups.py: loading them cost more)."""
    for (sheet, row, col), formula in lookups.pending(prepared).items():
        workbook.set_formula(sheet, row, col, formula)


_KNOWN: dict[str, bool] = {}


def unknown_functions(formulas_by_cell: Any) -> dict[str, list[str]]:
    """{function name: [cell addresses]} for every call the fast engine turns into #NAME?.

    Asked of the engine itself: `=NAME()` on a scratch sheet is #NAME? only for a name it
    does not know (a known one complains about its arguments instead); answers are cached."""
    import collections
    import itertools
    import operator

    import formualizer

    from rates_xl.calc import xlfuncs

    ours = {n.upper() for name in rates.function_table() for n in rates.engine_names(name)}
    ours |= xlfuncs.handled()  # registered by us or rewritten before the engine sees them
    ours |= _registered()  # Excel functions formualizer lacks, registered from calc/xlfuncs
    found: dict[str, list[str]] = collections.defaultdict(list)
    cells = list(formulas_by_cell)
    calls = list(map(function_names, map(operator.itemgetter(1), cells)))  # (each formula's, side by side)
    # A book's formulas call few distinct sets of functions: each set is judged once.
    distinct = set(calls)
    todo = sorted({n for names in distinct for n in names} - ours - set(_KNOWN))
    if todo:
        scratch = formualizer.Workbook()
        sheet = scratch.sheet("S")
        for i, name in enumerate(todo):
            sheet.set_formula(i + 1, 1, f"={name}()")
        scratch.evaluate_all()
        for i, name in enumerate(todo):
            value = scratch.get_value("S", i + 1, 1)
            _KNOWN[name] = not (isinstance(value, dict) and value.get("kind") == "Name")
    unknown = {names: [name for name in sorted(names - ours) if not _KNOWN.get(name, True)] for names in distinct}
    # Only the cells calling an unknown name are walked, picked in C (formulas_test: 20 of 13,487).
    calling = {names for names, missing in unknown.items() if missing}
    for (where, _formula), names in itertools.compress(zip(cells, calls, strict=True), map(calling.__contains__, calls)):
        for name in unknown[names]:
            found[name].append(where)
    return dict(found)


def _registered() -> set[str]:
    from rates_xl.calc import routing, xlfuncs

    return set(routing.BRIDGED) | set(xlfuncs.OURS)


def _is_circ(value: Any) -> bool:
    return isinstance(value, dict) and value.get("kind") == "Circ"


def _adapt(excel_name: str, spec: FunctionSpec | InternalFunction, date1904: bool = False) -> Callable[..., Any]:
    """A RATES_* function as the engine calls it. In a book counting dates from 1904, a date
    given as a serial is moved onto the 1900 system the function table reads, and a date it
    answers written as the book's serial (functions/date_system.py, as the add-ins do)."""
    from rates_xl.functions import date_system

    dates = date_system.date_arguments(spec) if date1904 else ()
    if date1904 and getattr(spec, "reads_dates", False):  # calc's RATES_SOURCE_OF: it moves its own
        spec = dataclasses.replace(spec, core=functools.partial(spec.core, date1904=True))

    def call(*raw: Any) -> Any:
        args = [from_engine(a) for a in (date_system.onto_1900(raw, dates) if dates else raw)]
        error = rates.first_error(args, is_error)
        if error is not None:
            return error
        # The engine may call from its own threads: the calculation's context is read from
        # `rates`, not from this thread's context variables.
        try:
            result = rates.call(spec, args)
        except Exception as exc:  # the function layer never raises; stay a cell value
            result = f"#RATES! {excel_name}: {type(exc).__name__}"[:254]
        # A failing call is an error value, as in Excel; its message kept for the summary.
        value = errors.engine_value(excel_name, args, result, rates.context())
        return to_engine(date_system.dates_as_serials(value) if date1904 else value)

    call.__name__ = excel_name
    return call


class _NamedReaders:
    """The formula cells whose text names a defined name covering a cell: formualizer 0.13's
    dependency report leaves out what reads a cell through a name (`=Pic`, `SUM(Rng)` over A1:
    no dependent of A1), so `FastModel.readers` asks this too. A name's readers are the formulas
    the engine computes with the name among their range operands (`_names`), found once per
    name asked; a name defined by a formula covers no cell here."""

    def __init__(self, names: list[dict[str, object]], written: dict[tuple[str, int, int], str]) -> None:
        self._names: list[tuple[str, str, int, int, int, int]] = []
        for n in names:
            if n.get("kind") in ("cell", "range"):
                r1, c1, r2, c2 = (int(str(n[field])) for field in ("start_row", "start_col", "end_row", "end_col"))
                self._names.append((str(n["name"]), str(n.get("sheet") or n.get("start_sheet") or ""), r1, c1, r2, c2))
        self._written = written
        self._readers: dict[str, list[tuple[str, int, int]]] = {}

    def of(self, sheet: str, row: int, col: int) -> list[tuple[str, int, int]]:
        found: list[tuple[str, int, int]] = []
        for name, title, r1, c1, r2, c2 in self._names:
            if title.upper() == sheet.upper() and r1 <= row <= r2 and c1 <= col <= c2:
                found += self._reading(name)
        return found

    def _reading(self, name: str) -> list[tuple[str, int, int]]:
        readers = self._readers.get(name)
        if readers is None:
            upper = name.upper()
            readers = self._readers[name] = [key for key, text in self._written.items()
                                             if upper in text.upper() and _names(text, upper)]
        return readers


def _names(formula: str, name: str) -> bool:
    """Whether `formula` reads the defined name `name` (upper case): one of its range operands
    is the name, alone or after a sheet (functions/tokens.py; a text or a call is none; a
    formula the tokenizer refuses reads it, to be safe)."""
    operands = range_operands(formula)
    if operands is None:
        return True
    return any(o is not None and o.upper().rpartition("!")[2] == name for o in operands)
