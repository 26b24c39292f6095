"""What a calculation answers, the types a caller reads (`rates-xl calc`'s summary, the frozen
copy, the benches): a book's `CalcResult` with its error cells, cells not computed and stale
cells, and several books' `BatchResult`. A leaf: no engine, no openpyxl.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from rates_xl.functions.messages import is_message
from rates_xl.functions.plan import PlanReport
from rates_xl.functions.sheet import Area, Key, address
from rates_xl.functions.values import ERRORS, CellValue, ErrorLikeText, StoredValue

if TYPE_CHECKING:
    from rates_xl.calc.workbook import WorkbookCalculation
    from rates_xl.client.pack import Pack


def listed_error(value: object) -> bool:
    """A value the summary lists as an error cell: one of Excel's error values, or a
    `#RATES!` message (kept as text by `cell_errors = text`)."""
    return isinstance(value, str) and (value in ERRORS and not isinstance(value, ErrorLikeText)
                                       or is_message(value))


@dataclass(frozen=True)
class ErrorCell:
    sheet: str
    cell: str
    value: str
    #: A failing RATES_ cell's message (its value is #VALUE! or #N/A, as in Excel: issue 28).
    message: str = ""

    @property
    def address(self) -> str:
        return address(self.sheet, self.cell)


@dataclass(frozen=True)
class SkippedCell:
    """A formula cell the calculator did not compute: the frozen copy keeps the value the file
    had cached for it (Excel's, when Excel saved it last)."""

    sheet: str
    cell: str
    reason: str
    cached: StoredValue = None

    @property
    def address(self) -> str:
        return address(self.sheet, self.cell)


@dataclass
class CalcResult:
    path: Path
    values: dict[Key, CellValue]  # (sheet title, "B7") -> value of every formula cell
    errors: list[ErrorCell]
    unknown_functions: dict[str, list[str]]
    report: PlanReport
    seconds: float
    formula_cells: int = 0  # formula cells in the file (a spill counts once)
    engine: str = "fast"  # which engine computed it (see WorkbookCalculation)
    skipped: list[SkippedCell] = field(default_factory=list)
    loops: list[str] = field(default_factory=list)  # cells in circular references
    notes: list[str] = field(default_factory=list)  # what a reader of the summary should know
    mode: str = "default"  # "default": only what changed is recomputed; "full": every cell
    #: Saved in manual calculation mode, not recalculated on save: its values may be out of date
    #: (a manual book Excel recalculated when saving, calcOnSave's default, is checked as any).
    manual_calculation: bool = False
    recomputed: int = 0  # formula cells (anchors) the engine computed
    checked: int = 0  # of them, compared with Excel's cached value at the stored inputs first
    unchecked: int = 0  # of them, with no cached value to compare with
    stale: list[StaleCell] = field(default_factory=list)  # kept at Excel's value: why
    #: (sheet, anchor, why) of RATES_* tables a legacy array range shows only part of.
    cut: list[tuple[str, str, str]] = field(default_factory=list)
    #: Spill anchor -> (r1, c1, r2, c2) it covered: the copy holds all of it, however wide.
    extents: dict[Key, Area] = field(default_factory=dict)
    #: The market-data pack: every service answer the book used (None: it called no service).
    pack: Pack | None = None
    #: The moment every RATES_* call that left valuation_time empty valued at (None: now).
    valuation_time: datetime | None = None
    #: (sheet, cell, why) of cells computed from an edited pack's answers (a replay with
    #: --allow-edited-pack): noted in the copy and listed in the summary.
    untrusted: list[tuple[str, str, str]] = field(default_factory=list)
    #: the scenario the book was replayed under (calc --scenario; None: market data), and the
    #: note each of its RATES_* cells carries in the copy (sheet, cell, text)
    scenario: str | None = None
    scenario_notes: list[tuple[str, str, str]] = field(default_factory=list)

    def value(self, sheet: str, cell: str) -> CellValue:
        return self.values[(sheet, cell.replace("$", "").upper())]


@dataclass(frozen=True)
class StaleCell:
    """A formula cell kept at the file's cached value because the engine disagreed with Excel
    at the book's stored inputs (or reads such a cell)."""

    sheet: str
    cell: str
    formula: str
    reason: str
    cached: StoredValue = None

    @property
    def address(self) -> str:
        return address(self.sheet, self.cell)


@dataclass
class BatchResult:
    """Several workbooks computed together: one client, one fetch of each distinct request."""

    results: dict[Path, CalcResult]
    failures: dict[Path, str]  # workbooks that could not be computed: why
    report: PlanReport
    seconds: float
    calculations: dict[Path, WorkbookCalculation] = field(default_factory=dict)
    #: Every answer came from a market-data pack (calc --replay): none was asked of the service.
    replayed: bool = False
