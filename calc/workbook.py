"""Headless workbook calculation: `WorkbookCalculation` loads a file into an engine (the
fast one, formualizer, prepared by `calc/fast.py`; or `formulas` when a formula needs it),
runs the plan / fetch / compute loop (`rates_xl.functions.plan.plan_and_evaluate`, the same
loop the Excel hosts use), lists error cells, cells not computed (with the reason; their
cached values are kept), circular references and links to other books, and freezes the
values into a copy of the original with openpyxl (styles, charts, data validation, names,
hidden sheets, pivot tables and VBA survive because only cell values change).
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from rates_xl.calc import engine, package
from rates_xl.functions.plan import DEFAULT_MAX_ROUNDS, PlanReport, plan_and_evaluate

T = TypeVar("T")

#: Error values a summary lists (besides every `#RATES!` message).
ERROR_VALUES = ("#NAME?", "#VALUE!", "#N/A", "#REF!", "#DIV/0!", "#NUM!", "#NULL!")

#: The engines `WorkbookCalculation` can use ("auto": fast unless a formula needs formulas).
ENGINES = ("auto", "fast", "formulas")

#: How far a RATES_* spill may grow down over empty cells beyond the range stored in the file.
MAX_SPILL_ROWS = 3000


class CalcError(Exception):
    """A workbook that cannot be calculated (missing, not a workbook, corrupt); message for people."""


# -- the workbook -----------------------------------------------------------------------------
@dataclass(frozen=True)
class ErrorCell:
    sheet: str
    cell: str
    value: str

    @property
    def address(self) -> str:
        sheet = f"'{self.sheet}'" if re.search(r"[^A-Za-z0-9_]", self.sheet) else self.sheet
        return f"{sheet}!{self.cell}"


@dataclass(frozen=True)
class SkippedCell:
    """A formula cell the calculator did not compute: the frozen copy keeps the value the file
    had cached for it (Excel's, when Excel saved it last)."""

    sheet: str
    cell: str
    reason: str
    cached: Any = None

    @property
    def address(self) -> str:
        return _address(self.sheet, self.cell)


@dataclass
class CalcResult:
    path: Path
    values: dict[tuple[str, str], Any]  # (sheet title, "B7") -> value of every formula cell
    errors: list[ErrorCell]
    unknown_functions: dict[str, list[str]]
    report: PlanReport
    seconds: float
    formula_cells: int = 0  # formula cells in the file (a spill counts once)
    engine: str = "fast"  # which engine computed it (see WorkbookCalculation)
    skipped: list[SkippedCell] = field(default_factory=list)
    loops: list[str] = field(default_factory=list)  # cells in circular references
    notes: list[str] = field(default_factory=list)  # what a reader of the summary should know

    def value(self, sheet: str, cell: str) -> Any:
        return self.values[(sheet, cell.replace("$", "").upper())]


class WorkbookCalculation:
    """One workbook loaded into a formula engine, ready to be computed (several times).

    `engine="auto"` (the default) computes with formualizer (`calc/fast.py`); a formula of a
    kind it gets wrong and that cannot be rewritten for it (`calc/analysis.py`) keeps the
    file's cached value and is listed with the reason, never guessed. `formulas` computes the
    book only when formualizer cannot read it at all (`engine_reason` says why).
    `engine="fast"` / `"formulas"` force one.
    """

    def __init__(self, path: str | os.PathLike[str], *, engine_name: str = "auto") -> None:
        if engine_name not in ENGINES:
            raise CalcError(f"unknown engine {engine_name!r}; choose one of {', '.join(ENGINES)}")
        self.path = Path(path)
        self.book = _open_workbook(self.path)  # openpyxl, formulas kept (raises CalcError)
        self.sheet_titles = {ws.title.upper(): ws.title for ws in self.book.worksheets}
        self._formulas = list(self._scan_formulas())
        self.formula_count = len(self._formulas)
        self.names = _defined_names(self.book)
        self.external_links = len(getattr(self.book, "_external_links", []) or [])
        self.iteration = _iteration_settings(self.book)
        # Legacy (Ctrl+Shift+Enter) array formulas fill exactly their stored range; dynamic
        # ones spill to their result. openpyxl drops the marker: read it from the package
        # (None: the book has no marker at all, see `_spill_ranges`).
        self.dynamic_arrays = package.dynamic_array_anchors(self.path)
        self.legacy_arrays: frozenset[tuple[str, str]] = frozenset()
        self.spills = self._spill_ranges()
        self.engine_reason = ""
        self._loops: list[str] | None = None
        self.round_seconds: list[float] = []  # how long each evaluation took (bench/calc_speed.py)
        self._calls_rates: bool | None = None
        self.calls_rates()
        self.unsupported: dict[tuple[str, str], str] = {}  # cells no engine computes: why
        self.fast = None
        self.model = None
        self.engine_name = engine_name
        if engine_name in ("auto", "fast"):
            self._load_fast(forced=engine_name == "fast")
        if self.fast is None:
            self.engine_name = "formulas"
            engine.register_functions()  # before the engine parses a single formula
            try:
                with _quiet_engine():
                    self.model = self._load_model()
            except CalcError as exc:
                if engine_name != "auto" or self.engine_reason.startswith("the fast engine could not"):
                    raise
                # The exact engine cannot read it: the fast one computes what it can, and the
                # cells it would get wrong keep their cached values (listed as not computed).
                self.engine_reason += f"; the formulas engine could not read it either ({exc})"
                self._load_fast(forced=True)
        if self.fast is None:
            self.unknown_functions = engine.unknown_functions(self.formulas())

    def _load_fast(self, forced: bool) -> None:
        from rates_xl.calc import fast

        try:
            self.unknown_functions = fast.unknown_functions(self.formulas())
            # An unknown RATES_* name is #NAME? in Excel too (ours is the add-in); any other
            # unknown name may be an Excel function this engine lacks: keep Excel's value.
            foreign = frozenset(n for n in self.unknown_functions if not n.startswith(("RATES_", "RATES.")))
            prepared = fast.prepare(self.book, self._range_size, lambda: _cached_values(self.path), foreign,
                                    self._name_range, self.legacy_arrays)
            from rates_xl.calc import xlfuncs

            prepared.facts = xlfuncs.book_facts(self.path)
        except BaseException as exc:  # never a traceback: say it, use the other engine
            _reraise_interrupts(exc)
            self.engine_reason = f"the fast engine could not read it ({type(exc).__name__}: {exc})"
            self.book = _open_workbook(self.path)
            return
        if prepared.wrong and self.calls_rates():
            # These cells keep the file's cached value and are listed, as in any book; in one
            # that calls the service that value may be older than this run's answers, and the
            # reason says so. The `formulas` engine is no fallback here: over the corpus it
            # gives wrong numbers without a word (0.977 of cells right), and a value visibly
            # kept from the file beats one silently wrong (`--engine formulas` still forces it).
            for key in prepared.wrong:
                prepared.unsupported[key] += ("; the book calls the service, so the cached value "
                                              "may predate this calculation's answers")
        try:
            self.fast = fast.FastModel(prepared)
        except BaseException as exc:  # never a traceback
            _reraise_interrupts(exc)
            self.engine_reason = f"the fast engine could not load it ({type(exc).__name__}: {exc})"
            self.book = _open_workbook(self.path)
            return
        self.engine_name = "fast"
        self.unsupported.update(prepared.unsupported)

    def _range_size(self, sheet: str, text: str) -> int | None:
        """How many cells a formula operand covers (None when it is not known to be one)."""
        from rates_xl.calc.analysis import range_shape, split_reference

        prefix, ref = split_reference(text)
        shape = range_shape(ref.replace("$", "") if ":" in ref else ref)
        if shape is not None:
            c1, r1, c2, r2 = shape
            return (c2 - c1 + 1) * (r2 - r1 + 1)
        if prefix or re.fullmatch(r"\$?[A-Za-z]{1,3}\$?\d+", ref):
            return 1 if not prefix or "[" not in prefix else None
        if re.fullmatch(r"\$?[A-Za-z]{1,3}:\$?[A-Za-z]{1,3}|\$?\d+:\$?\d+", ref):
            return None  # whole columns or rows
        return self._name_size(sheet, ref)

    def _name_range(self, sheet: str, name: str) -> str | None:
        """The one rectangular range in this book a defined name stands for, as a formula
        would write it ("'Data sheet'!$A$1:$A$9"); None for anything else."""
        from rates_xl.calc.analysis import range_shape, split_reference

        if "!" in name:  # 'Other sheet'!local_name: that sheet's own name
            prefix, name = split_reference(name)
            sheet = prefix[:-1].strip("'").replace("''", "'")
        defined = _find_name(self.book, sheet, name)
        value = (getattr(defined, "attr_text", None) or "").strip()
        if not value or "," in value or "[" in value or "(" in value:
            return None
        prefix, ref = split_reference(value)
        if not prefix or range_shape(ref) is None:
            return None
        return value

    def _name_size(self, sheet: str, name: str) -> int | None:
        defined = _find_name(self.book, sheet, name)
        if defined is None:
            return None
        value = (defined.attr_text or "").strip()
        if re.fullmatch(r'-?[\d.]+(E[+-]?\d+)?|"[^"]*"|TRUE|FALSE', value, re.IGNORECASE):
            return 1
        from rates_xl.calc.analysis import range_shape, split_reference

        total = 0
        for part in value.split(","):
            shape = range_shape(split_reference(part.strip())[1].replace("$", ""))
            if shape is None:
                return None
            c1, r1, c2, r2 = shape
            total += (c2 - c1 + 1) * (r2 - r1 + 1)
        return total or None

    def formulas(self) -> Iterator[tuple[str, str]]:
        """(address, formula text) of every formula cell."""
        return iter(self._formulas)

    def _scan_formulas(self) -> Iterator[tuple[str, str]]:
        from openpyxl.worksheet.formula import ArrayFormula

        for ws in self.book.worksheets:
            for row in ws.iter_rows():
                for cell in row:
                    value = cell.value
                    if isinstance(value, ArrayFormula):
                        value = value.text
                    if cell.data_type == "f" or isinstance(cell.value, ArrayFormula):
                        yield f"{_quote(ws.title)}!{cell.coordinate}", str(value)

    def formula_texts(self) -> dict[tuple[str, str], str]:
        """(sheet, cell) -> formula, for every cell of an array formula's range too."""
        from openpyxl.utils.cell import range_boundaries
        from openpyxl.worksheet.formula import ArrayFormula

        texts = {}
        book = _open_workbook(self.path)
        for ws in book.worksheets:
            for row in ws.iter_rows():
                for cell in row:
                    value = cell.value
                    if isinstance(value, ArrayFormula):
                        c1, r1, c2, r2 = range_boundaries(value.ref or cell.coordinate)
                        for r in range(r1, r2 + 1):
                            for c in range(c1, c2 + 1):
                                texts[(ws.title, f"{_column(c)}{r}")] = str(value.text)
                    elif cell.data_type == "f":
                        texts.setdefault((ws.title, cell.coordinate), str(value))
        return texts

    def evaluate(self) -> dict[tuple[str, str], Any]:
        """Compute once; every formula cell's value by (sheet title, coordinate)."""
        started = time.perf_counter()
        try:
            if self.fast is not None:
                return self._evaluate_fast()
            return self._evaluate_formulas()
        finally:
            self.round_seconds.append(time.perf_counter() - started)

    def _evaluate_fast(self) -> dict[tuple[str, str], Any]:
        from openpyxl.utils.cell import range_boundaries

        try:
            self.fast.evaluate()
        except BaseException as exc:  # never a traceback
            _reraise_interrupts(exc)
            raise CalcError(f"{self.path}: calculation failed: {type(exc).__name__}: {exc}") from None
        values: dict[tuple[str, str], Any] = {}
        prepared = self.fast.prepared
        for (sheet, anchor), (r1, c1, r2, c2) in prepared.areas.items():
            if (sheet, anchor) in self.unsupported:
                continue
            kind = prepared.rewritten.get((sheet, anchor))
            cells = {(r, c) for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)}
            if kind == "spill" and (sheet, anchor) in self.legacy_arrays:
                # A legacy array: exactly its stored range, filled from the (cut) result.
                from rates_xl.calc.fast import fit_legacy

                h2, w2 = r1, c1
                extent = self.fast.spill_extent(sheet, anchor)
                if extent:
                    e1, f1, e2, f2 = range_boundaries(extent.rpartition("!")[2].replace("$", ""))
                    h2, w2 = f2, e2
                result = [[self.fast.value(sheet, r, c) for c in range(c1, w2 + 1)] for r in range(r1, h2 + 1)]
                for i, line in enumerate(fit_legacy(result, r2 - r1 + 1, c2 - c1 + 1)):
                    for j, value in enumerate(line):
                        values[(sheet, f"{_column(c1 + j)}{r1 + i}")] = value
                continue
            if kind == "spill":
                # Report the range a RATES_* spill may grow into (blank where it did not).
                g1, h1, g2, h2 = self.spills.get((sheet, anchor), (r1, c1, r2, c2))
                cells |= {(r, c) for r in range(g1, g2 + 1) for c in range(h1, h2 + 1)}
                extent = self.fast.spill_extent(sheet, anchor)
                spilled = set()
                if extent:
                    e1, f1, e2, f2 = range_boundaries(extent.rpartition("!")[2].replace("$", ""))
                    spilled = {(r, c) for r in range(f1, f2 + 1) for c in range(e1, e2 + 1)}
                for r, c in cells - spilled:
                    values[(sheet, f"{_column(c)}{r}")] = None  # a spill that shrank
                cells = spilled | {(r1, c1)}
            for r, c in cells:
                values[(sheet, f"{_column(c)}{r}")] = self.fast.value(sheet, r, c)
        self._settle_loops(values)
        return values

    def _settle_loops(self, values: dict[tuple[str, str], Any]) -> None:
        """Excel's rule for circular references, by the file's own settings: iteration on,
        the iterated values (listed as a loop); off, 0 in every cell of the loop (and a warning)."""
        iterate = self.iteration[0]
        if iterate:
            if self._loops is None:
                self._loops = [_address(s, f"{_column(c)}{r}") for s, r, c in self.fast.loops()] \
                    if self.fast.has_loops() else []
            return
        loops = [key for key, value in values.items() if value == "#CIRC!"]
        for key in loops:
            values[key] = 0
        self._loops = [_address(*key) for key in sorted(loops, key=lambda k: (k[0], *_row_col(k[1])))]

    def _evaluate_formulas(self) -> dict[tuple[str, str], Any]:
        import schedula as sh

        try:
            solution = self.model.calculate()
        except sh.DispatcherError as exc:
            raise CalcError(f"{self.path}: calculation failed: {exc.args[1] if len(exc.args) > 1 else exc}") from None
        values: dict[tuple[str, str], Any] = {}
        for output, cell in self.model.cells.items():
            if not getattr(cell, "inputs", None) and getattr(cell, "func", None) is None:
                continue  # a constant, not a formula
            rng = _range_of(output)
            if rng is None:
                continue
            sheet = self.sheet_titles.get(rng["sheet"].upper(), rng["sheet"])
            computed = solution.get(output, sh.NONE)
            grid = _grid(computed, rng)
            grid = self._trim_spill(sheet, rng, grid)
            for (row, col), value in grid.items():
                values[(sheet, f"{_column(col)}{row}")] = value
        return values

    def compute(self, client: Any = None, *, valuation_time: datetime | str | None = None,
                max_rounds: int = DEFAULT_MAX_ROUNDS,
                on_fetch: Callable[..., Any] | None = None) -> CalcResult:
        """Plan, fetch and compute; the client defaults to the functions' shared client.

        A workbook that calls no RATES_* function is computed once, without a client."""
        from rates_xl.functions import get_client, using_client

        started = time.perf_counter()
        with engine.pinned_valuation_time(valuation_time):
            if not self.calls_rates():
                values, report = self.evaluate(), PlanReport(rounds=1)
            else:
                client = get_client() if client is None else client
                with using_client(client):
                    values, report = plan_and_evaluate(self.evaluate, client, max_rounds=max_rounds,
                                                       on_fetch=on_fetch)
        return self.result(values, report, time.perf_counter() - started)

    def result(self, values: dict[tuple[str, str], Any], report: PlanReport, seconds: float) -> CalcResult:
        """The result of an evaluation: skipped cells filled with their cached values, error
        cells, loops and notes."""
        skipped = self._skipped(values)
        return CalcResult(self.path, values, self._errors(values), self.unknown_functions,
                          report, seconds, self.formula_count, engine=self.engine_name,
                          skipped=skipped, loops=list(self._loops or []), notes=self._notes())

    def calls_rates(self) -> bool:
        """Whether any formula calls a RATES_* function (else no client is needed)."""
        if self._calls_rates is None:
            self._calls_rates = any(
                any(name.startswith(("RATES_", "RATES.")) for name in engine.function_names(text))
                for _, text in self.formulas())
        return self._calls_rates

    def _skipped(self, values: dict[tuple[str, str], Any]) -> list[SkippedCell]:
        """Cells no engine computed: their cached value goes into `values` and the summary."""
        if not self.unsupported:
            return []
        cached = _cached_values(self.path)
        out = []
        areas = self.fast.prepared.areas if self.fast is not None else {}
        for (sheet, cell), reason in sorted(self.unsupported.items()):
            r1, c1, r2, c2 = areas.get((sheet, cell), (*_row_col(cell), *_row_col(cell)))
            for r in range(r1, r2 + 1):
                for c in range(c1, c2 + 1):
                    coordinate = f"{_column(c)}{r}"
                    value = cached.get((sheet, coordinate))
                    values[(sheet, coordinate)] = value
                    out.append(SkippedCell(sheet, coordinate, f"not computed ({reason}): the file's cached value is kept", value))
        return out

    def _notes(self) -> list[str]:
        notes = []
        if self.engine_reason and self.engine_name == "formulas":
            notes.append(f"computed with the formulas engine: {self.engine_reason}")
        elif self.engine_reason:
            notes.append(self.engine_reason)
        if self.external_links:
            notes.append(f"{self.external_links} link(s) to other workbooks: their values are the ones "
                         "this file cached (the linked files are not opened)")
        if self._loops:
            iterate, count, delta = self.iteration
            if iterate:
                notes.append(f"circular references ({len(self._loops)} cells) computed iteratively as the "
                             f"file asks (at most {count} iterations, change below {delta:g})")
            else:
                notes.append(f"circular references ({len(self._loops)} cells) with iterative calculation "
                             "off: Excel warns and shows 0 in them, and so does this copy")
        if self.unsupported:
            notes.append(f"{len(self.unsupported)} cell(s) not computed: each keeps the value the file "
                         "cached (listed with the reason)")
        return notes

    def freeze(self, result: CalcResult, out: str | os.PathLike[str], *, force: bool = False) -> Path:
        """Write a copy of the original with every formula replaced by its computed value."""
        from openpyxl.worksheet.formula import ArrayFormula

        out = Path(out)
        if out.exists() and not force:
            raise CalcError(f"{out} exists; pass --force to overwrite it")
        if out.resolve() == self.path.resolve() and not force:
            raise CalcError(f"{out} is the input workbook; pass --force to overwrite it")
        # The VBA project travels (byte for byte) only into a macro-enabled copy.
        book = _open_workbook(self.path, keep_vba=self.path.suffix.lower() == ".xlsm"
                              and out.suffix.lower() == ".xlsm")
        for ws in book.worksheets:
            for row in ws.iter_rows():
                for cell in row:
                    if cell.data_type == "f" or isinstance(cell.value, ArrayFormula):
                        ref = cell.coordinate
                        if (ws.title, cell.coordinate) in self.spills:
                            r1, c1, r2, c2 = self.spills[(ws.title, cell.coordinate)]
                            ref = f"{_column(c1)}{r1}:{_column(c2)}{r2}"
                        _write_range(ws, ref, result.values)
        _mark_skipped(book, result.skipped)
        out.parent.mkdir(parents=True, exist_ok=True)
        # Write beside the target and rename: an interrupted run never leaves half a file.
        tmp = out.with_name(f".{out.name}.tmp")
        try:
            book.save(tmp)
            os.replace(tmp, out)
        except OSError as exc:
            raise CalcError(f"{out}: cannot write it ({exc.strerror or exc})") from None
        except Exception as exc:  # a value the writer refuses: say which file, never a traceback
            raise CalcError(f"{out}: cannot write the values-frozen copy ({type(exc).__name__}: {exc})") from None
        finally:
            tmp.unlink(missing_ok=True)
        return out

    def named(self, result: CalcResult, name: str) -> Any:
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

    # -- internals ----------------------------------------------------------------------------
    def _load_model(self) -> Any:
        import formulas

        try:
            model = formulas.ExcelModel()
            book, context = model.add_book(str(self.path))
            # The engine maps a result onto the spill range stored in the file and fails when
            # the result is longer (a history over a later window, a longer maturity typed in
            # since Excel last saved it). RATES_* spills are grown down over the empty cells
            # below them; the padding is empty and trimmed from what is reported and frozen.
            for ws in book.worksheets:
                for (sheet, anchor), (_r1, _c1, r2, c2) in self.spills.items():
                    if sheet == ws.title:
                        ws[anchor].value.ref = f"{anchor}:{_column(c2)}{r2}"
                _fill_omitted_arguments(ws)
            model.pushes(*book.worksheets, context=context)
            return model.finish()
        except Exception as exc:  # the engine's own parse errors, in words
            raise CalcError(f"{self.path}: the formula engine could not read it: {exc}") from None

    def _spill_ranges(self) -> dict[tuple[str, str], tuple[int, int, int, int]]:
        """Array-formula anchors: (sheet, anchor) -> (r1, c1, r2, c2), dynamic RATES_* ones
        grown (a legacy array keeps its stored range; those are listed in `legacy_arrays`).

        In a book with no dynamic-array marker at all the RATES_* arrays count as dynamic: a
        template re-saved by openpyxl or LibreOffice has lost the marker, and cutting its curve
        to the range Excel last saved would silently drop rows; every other array there is a
        legacy one, as Excel and LibreOffice read that very file."""
        from openpyxl.utils.cell import range_boundaries
        from openpyxl.worksheet.formula import ArrayFormula

        spills = {}
        legacy = set()
        for ws in self.book.worksheets:
            for row in ws.iter_rows():
                for cell in row:
                    if isinstance(cell.value, ArrayFormula):
                        c1, r1, c2, r2 = range_boundaries(cell.value.ref or cell.coordinate)
                        rates = any(n.startswith(("RATES_", "RATES.")) for n in engine.function_names(cell.value.text))
                        if self.dynamic_arrays is None:
                            dynamic = rates  # no marker in the book (see above)
                        else:
                            dynamic = (ws.title, cell.coordinate) in self.dynamic_arrays
                        if not dynamic:
                            legacy.add((ws.title, cell.coordinate))
                        elif rates:
                            while (r2 - r1 + 1 < MAX_SPILL_ROWS
                                   and all(ws._cells.get((r2 + 1, c)) is None
                                           or ws._cells[(r2 + 1, c)].value is None
                                           for c in range(c1, c2 + 1))):
                                r2 += 1
                        spills[(ws.title, cell.coordinate)] = (r1, c1, r2, c2)
        self.legacy_arrays = frozenset(legacy)
        return spills

    def _trim_spill(self, sheet: str, rng: dict[str, Any], grid: dict[tuple[int, int], Any]) -> dict:
        """Excel shrinks a dynamic spill to its result; the engine pads a stored range with #N/A.

        Trailing rows and columns that are all #N/A are padding (blank in Excel); when the
        anchor is an error or a `#RATES!` message, the whole range beyond it is blank.
        """
        r1, c1 = int(rng["r1"]), int(rng["n1"])
        anchor_key = (sheet, f"{_column(c1)}{r1}")
        if anchor_key not in self.spills or anchor_key in self.legacy_arrays or len(grid) == 1:
            # A legacy array shows its #N/A beyond a shorter result, as Excel does.
            return grid
        anchor = grid.get((r1, c1))
        if _is_error(anchor):
            return {pos: (anchor if pos == (r1, c1) else None) for pos in grid}
        r2, c2 = int(rng["r2"]), int(rng["n2"])
        while r2 > r1 and all(_is_padding(grid.get((r2, c))) for c in range(c1, c2 + 1)):
            r2 -= 1
        while c2 > c1 and all(_is_padding(grid.get((r, c2))) for r in range(r1, r2 + 1)):
            c2 -= 1
        return {(r, c): (v if r <= r2 and c <= c2 else None) for (r, c), v in grid.items()}

    def _errors(self, values: dict[tuple[str, str], Any]) -> list[ErrorCell]:
        order = {title: i for i, title in enumerate(self.book.sheetnames)}
        found = [ErrorCell(sheet, cell, str(v)) for (sheet, cell), v in values.items() if _is_error(v)]
        return sorted(found, key=lambda e: (order.get(e.sheet, 0), *_row_col(e.cell)))


def calculate(path: str | os.PathLike[str], out: str | os.PathLike[str] | None = None, *,
              client: Any = None, valuation_time: datetime | str | None = None,
              force: bool = False, on_fetch: Callable[..., Any] | None = None) -> CalcResult:
    """Compute a workbook and (when `out` is given) write its values-frozen copy."""
    calc = WorkbookCalculation(path)
    if out is not None and Path(out).exists() and not force:
        raise CalcError(f"{out} exists; pass --force to overwrite it")
    result = calc.compute(client, valuation_time=valuation_time, on_fetch=on_fetch)
    if out is not None:
        calc.freeze(result, out, force=force)
    return result


@dataclass
class BatchResult:
    """Several workbooks computed together: one client, one fetch of each distinct request."""

    results: dict[Path, CalcResult]
    failures: dict[Path, str]  # workbooks that could not be computed: why
    report: PlanReport
    seconds: float
    calculations: dict[Path, WorkbookCalculation] = field(default_factory=dict)


def calculate_many(paths: list[str | os.PathLike[str]], client: Any = None, *,
                   valuation_time: datetime | str | None = None, engine_name: str = "auto",
                   max_rounds: int = DEFAULT_MAX_ROUNDS, on_fetch: Callable[..., Any] | None = None,
                   on_load: Callable[[Path], Any] | None = None) -> BatchResult:
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
            calcs[path] = WorkbookCalculation(path, engine_name=engine_name)
        except CalcError as exc:
            failures[path] = str(exc)
        except BaseException as exc:  # never a traceback: the book is reported, the others go on
            _reraise_interrupts(exc)
            failures[path] = f"{path}: cannot be computed ({type(exc).__name__}: {exc})"

    def evaluate() -> dict[Path, dict[tuple[str, str], Any]]:
        out = {}
        for path, calc in list(calcs.items()):
            try:
                out[path] = calc.evaluate()
            except BaseException as exc:  # never a traceback
                _reraise_interrupts(exc)
                failures[path] = str(exc) if isinstance(exc, CalcError) else (
                    f"{path}: calculation failed ({type(exc).__name__}: {exc})")
                del calcs[path]
        return out

    needs_client = any(calc.calls_rates() for calc in calcs.values())
    with engine.pinned_valuation_time(valuation_time):
        if needs_client:
            client = get_client() if client is None else client
            with using_client(client):
                values, report = plan_and_evaluate(evaluate, client, max_rounds=max_rounds,
                                                   on_fetch=on_fetch)
        else:
            values, report = evaluate(), PlanReport(rounds=1)
    results = {}
    for path, calc in calcs.items():
        if path in values:
            results[path] = calc.result(values[path], report, time.perf_counter() - started)
    return BatchResult(results, failures, report, time.perf_counter() - started,
                       {p: c for p, c in calcs.items() if p in results})


def workbooks_in(paths: list[str | os.PathLike[str]]) -> list[Path]:
    """The workbooks named, a folder standing for the .xlsx / .xlsm files directly in it
    (Excel's lock files `~$...` and copies this command wrote, `*.values.*`, left out)."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found += sorted(p for p in path.iterdir()
                            if p.suffix.lower() in (".xlsx", ".xlsm") and not p.name.startswith("~$")
                            and ".values." not in p.name)
        else:
            found.append(path)
    return found


# -- helpers ----------------------------------------------------------------------------------
def _open_workbook(path: Path, *, keep_vba: bool | None = None) -> Any:
    import openpyxl

    if not path.exists():
        raise CalcError(f"{path}: no such file")
    if path.is_dir():
        raise CalcError(f"{path} is a folder, not a workbook")
    if path.suffix.lower() not in (".xlsx", ".xlsm"):
        raise CalcError(f"{path}: not an .xlsx or .xlsm workbook")
    if not zipfile.is_zipfile(path):
        raise CalcError(f"{path}: not a valid workbook (the file is not an Excel zip package; is it corrupt?)")
    try:
        keep_vba = path.suffix.lower() == ".xlsm" if keep_vba is None else keep_vba
        return openpyxl.load_workbook(path, keep_vba=keep_vba, keep_links=True)
    except Exception as exc:
        raise CalcError(f"{path}: cannot read the workbook ({type(exc).__name__}: {exc}); is it corrupt?") from None


def _defined_names(book: Any) -> dict[str, tuple[str, str]]:
    """Workbook-level names that point at one place in this workbook: name -> (sheet, cell).

    Every other kind Excel saves is skipped here (it is still computed by the engine):
    constants and formulas (`rate = 0.05`, `=OFFSET(...)`), names into other workbooks
    (`[1]Sheet1!A1`), #REF! names, and several areas. Sheet-scoped names are read too,
    under `sheet!name`, without shadowing a workbook-level one.
    """
    names: dict[str, tuple[str, str]] = {}

    def add(key: str, defined: Any) -> None:
        try:
            destinations = list(defined.destinations)
        except Exception:  # a formula, a constant or a malformed reference: no destination
            return
        for sheet, ref in destinations[:1]:
            if not sheet or not ref or "[" in sheet or sheet not in book.sheetnames:
                continue
            names.setdefault(key, (sheet, ref.replace("$", "").split(":")[0]))

    for name, defined in book.defined_names.items():
        add(name.lower(), defined)
    for ws in book.worksheets:
        for name, defined in getattr(ws, "defined_names", {}).items():
            add(f"{ws.title}!{name}".lower(), defined)
    return names


def _find_name(book: Any, sheet: str, name: str) -> Any:
    """The defined name `name` as a formula on `sheet` sees it (sheet scope first)."""
    try:
        scoped = book[sheet].defined_names
        for key, defined in scoped.items():
            if key.lower() == name.lower():
                return defined
    except (KeyError, AttributeError):
        pass
    for key, defined in book.defined_names.items():
        if key.lower() == name.lower():
            return defined
    return None


def _reraise_interrupts(exc: BaseException) -> None:
    """Engine failures are caught as BaseException, because a Rust panic inside formualizer
    arrives as pyo3's PanicException, which derives from it; Ctrl-C and exit still pass."""
    if isinstance(exc, KeyboardInterrupt | SystemExit | GeneratorExit):
        raise exc


def _cached_values(path: Path) -> dict[tuple[str, str], Any]:
    """The values the file itself cached for its formula cells (what Excel last computed)."""
    import openpyxl

    try:
        book = openpyxl.load_workbook(path, data_only=True, keep_links=True)
    except Exception:
        return {}
    return {(ws.title, cell.coordinate): cell.value for ws in book.worksheets
            for row in ws.iter_rows() for cell in row if cell.value is not None}


def _iteration_settings(book: Any) -> tuple[bool, int, float]:
    """The workbook's own calculation settings for circular references (Excel's defaults)."""
    calc = getattr(book, "calculation", None)
    iterate = bool(getattr(calc, "iterate", False))
    count = int(getattr(calc, "iterateCount", None) or 100)
    delta = float(getattr(calc, "iterateDelta", None) or 0.001)
    return iterate, count, delta


def _address(sheet: str, cell: str) -> str:
    return f"{_quote(sheet)}!{cell}"


@contextlib.contextmanager
def _quiet_engine() -> Iterator[None]:
    """`formulas` draws its own tqdm bars while loading; ours is the one the user sees."""
    import functools

    import formulas.excel as fx
    import tqdm

    with _QUIET_LOCK:
        original = fx.tqdm.tqdm
        fx.tqdm.tqdm = functools.partial(original, disable=True)
        try:
            yield
        finally:
            fx.tqdm.tqdm = original
    del tqdm


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


def _grid(computed: Any, rng: dict[str, Any]) -> dict[tuple[int, int], Any]:
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
    grid = {}
    for i in range(r2 - r1 + 1):
        for j in range(c2 - c1 + 1):
            value = array[i % array.shape[0], j % array.shape[1]] if array.size else None
            grid[(r1 + i, c1 + j)] = _plain(value)
    return grid


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
    if isinstance(value, np.str_):
        return str(value)
    return value


def _is_error(value: Any) -> bool:
    return isinstance(value, str) and (value in ERROR_VALUES or value.startswith("#RATES!"))


def _is_padding(value: Any) -> bool:
    return value is None or value == "#N/A"


def _write_range(ws: Any, ref: str, values: dict[tuple[str, str], Any]) -> None:
    from openpyxl.utils.cell import get_column_letter, range_boundaries

    c1, r1, c2, r2 = range_boundaries(ref)
    for r in range(r1, r2 + 1):
        for c in range(c1, c2 + 1):
            coordinate = f"{get_column_letter(c)}{r}"
            value = values.get((ws.title, coordinate))
            if value is None and (r, c) not in ws._cells:
                continue  # padding of a grown spill: leave the sheet as it was
            _set_value(ws.cell(row=r, column=c), value)


def _mark_skipped(book: Any, skipped: list[SkippedCell]) -> None:
    """The copy says so itself: a note on each cell that keeps its cached value."""
    from openpyxl.comments import Comment

    for cell in skipped:
        if cell.sheet not in book.sheetnames:
            continue
        target = book[cell.sheet][cell.cell]
        text = f"rates-xl calc: {cell.reason}."
        if target.comment is not None:
            text = f"{target.comment.text}\n\n{text}"
        target.comment = Comment(text, "rates-xl")


def _set_value(cell: Any, value: Any) -> None:
    """A computed value into a cell as a value, whatever it is: text that looks like a formula
    stays text, characters a file cannot hold are dropped, anything else becomes its text."""
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    if isinstance(value, bool | int | float) or value is None:
        if isinstance(value, float) and not math.isfinite(value):
            value = "#NUM!"
        cell.value = value
        return
    if not isinstance(value, str):
        value = str(value)  # a reference or another object an engine handed back
    value = ILLEGAL_CHARACTERS_RE.sub("", value)[:32767]
    # openpyxl stores '#N/A'-like strings as error cells, as Excel would show them.
    cell.value = value
    if value.startswith("="):
        cell.data_type = "s"  # a text result, not a formula to write


def _fill_omitted_arguments(ws: Any) -> None:
    """The engine's copy only: omitted RATES_* arguments become "" (see engine.fill_omitted_arguments)."""
    from openpyxl.worksheet.formula import ArrayFormula

    for row in ws.iter_rows():
        for cell in row:
            value = cell.value
            if isinstance(value, ArrayFormula):
                if "RATES" in value.text.upper():
                    value.text = engine.fill_omitted_arguments(value.text)
            elif isinstance(value, str) and value.startswith("=") and "RATES" in value.upper():
                cell.value = engine.fill_omitted_arguments(value)


def _column(n: int) -> str:
    from openpyxl.utils.cell import get_column_letter

    return get_column_letter(n)


def _row_col(coordinate: str) -> tuple[int, int]:
    from openpyxl.utils.cell import column_index_from_string, coordinate_from_string

    col, row = coordinate_from_string(coordinate)
    return row, column_index_from_string(col)


def _quote(title: str) -> str:
    return f"'{title}'" if re.search(r"[^A-Za-z0-9_]", title) else title
