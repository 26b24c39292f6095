"""How often the calculator agrees with another spreadsheet engine: compute a workbook whose
cached values were written by that engine (LibreOffice, Excel) and compare cell by cell.

A formula cell counts as equal when both are numbers within 1e-9 relative (1e-12 absolute
near zero), or both are the same text, boolean, error or blank (the text "#N/A", VALUETOTEXT's,
is not the error). Cells whose formula calls a
volatile function (NOW, TODAY, RAND ...) or reads another workbook are counted apart: their
reference value is not one a recalculation can reproduce.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from rates_xl.calc.check import normal
from rates_xl.functions.sheet import address
from rates_xl.functions.values import ErrorLikeText, StoredValue, from_serial, text_value

if TYPE_CHECKING:
    from rates_xl.calc.results import CalcResult
    from rates_xl.client import RatesClient

VOLATILE = frozenset({"NOW", "TODAY", "RAND", "RANDBETWEEN", "RANDARRAY", "INFO", "CELL"})
_EXTERNAL = re.compile(r"\[\d+\]|\[[^\]]+\.xls[xmb]?\]", re.IGNORECASE)


@dataclass
class Fidelity:
    path: Path
    engine: str
    compared: int = 0
    equal: int = 0
    volatile: int = 0
    external: int = 0
    skipped: int = 0  # cells the calculator did not compute (listed with a reason)
    stale: int = 0  # cells kept at the cached value: the engine disagreed with it (listed)
    circular: int = 0  # loops with iteration off: Excel shows 0, LibreOffice an error
    differences: list[tuple[str, StoredValue, StoredValue]] = field(default_factory=list)
    result: CalcResult | None = field(default=None, repr=False)  # the CalcResult compared
    formulas: dict[tuple[str, str], str] = field(default_factory=dict, repr=False)

    @property
    def share(self) -> float:
        return self.equal / self.compared if self.compared else 1.0


def same(ours: StoredValue, theirs: StoredValue) -> bool:
    from datetime import datetime

    if isinstance(theirs, datetime) and isinstance(ours, int | float) and not isinstance(ours, bool):
        # The reader turned a date-formatted serial into a date; compare as dates, in the
        # reader's own mapping (it reads both 59 and 60 as 1900-02-28, Excel's leap-year quirk).
        try:
            moment = from_serial(ours)
        except (OverflowError, ValueError, TypeError):
            return False
        if not isinstance(moment, datetime):  # a time of day: not the reader's date
            return False
        seconds = abs((moment - theirs).total_seconds())
        return seconds <= max(1e-3, 1e-9 * abs(ours) * 86400)
    ours, theirs = normal(ours), normal(theirs)
    if isinstance(ours, bool) or isinstance(theirs, bool):
        return type(ours) is type(theirs) and ours == theirs
    if isinstance(ours, int | float) and isinstance(theirs, int | float):
        return math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=1e-12)
    return ours == theirs and isinstance(ours, ErrorLikeText) == isinstance(theirs, ErrorLikeText)


class ReadCell(Protocol):
    """What `stored` reads of an openpyxl cell."""

    @property
    def value(self) -> StoredValue: ...

    @property
    def data_type(self) -> str: ...


def stored(cell: ReadCell) -> StoredValue:
    """An openpyxl cell's value as its file types it: a string cell's "#N/A" is text
    (`ErrorLikeText`), an error cell's the error."""
    value = cell.value
    return text_value(value) if isinstance(value, str) and cell.data_type == "s" else value


def measure(path: str | Path, *, engine_name: str = "auto", client: RatesClient | None = None, full: bool = True) -> Fidelity:
    """Compute `path` (every formula: `full`, as Ctrl+Alt+F9) and compare every formula cell
    with the value cached in the file. Cells listed as stale (kept at the cached value because
    the engine disagreed at the stored inputs) are counted apart, like those not computed."""
    import openpyxl

    from rates_xl.calc.workbook import WorkbookCalculation
    from rates_xl.functions.tokens import function_names

    path = Path(path)
    calc = WorkbookCalculation(path, engine_name=engine_name, full=full)
    result = calc.compute(client)
    cached = openpyxl.load_workbook(path, data_only=True)
    report = Fidelity(path, calc.engine_name, result=result)
    skipped = {(s.sheet, s.cell) for s in result.skipped}
    stale = {(s.sheet, s.cell) for s in result.stale}
    formulas = report.formulas = dict(calc.formula_texts())
    loops = set(result.loops) if not calc.iteration[0] else set()
    for (sheet, cell), ours in sorted(result.values.items()):
        text = formulas.get((sheet, cell), "")
        if text:
            names = function_names(text)
            if names & VOLATILE:
                report.volatile += 1
                continue
            if _EXTERNAL.search(text):
                report.external += 1
                continue
        if loops and address(sheet, cell) in loops:
            report.circular += 1
            continue
        if (sheet, cell) in skipped:
            report.skipped += 1
            continue
        if (sheet, cell) in stale:
            report.stale += 1
            continue
        theirs = stored(cached[sheet][cell])
        report.compared += 1
        if same(ours, theirs):
            report.equal += 1
        else:
            report.differences.append((f"{sheet}!{cell}", ours, theirs))
    return report
