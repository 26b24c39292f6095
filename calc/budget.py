"""Every calculation has a budget: how many cells its formulas may read, and how long it may
compute. Past either the book stops with one line naming the cell and the setting to raise
(`calc_cells`, `calc_seconds`: client/settings.py, `RATES_CALC_CELLS` / `RATES_CALC_SECONDS`);
the other books of the run go on.

- Cells, measured before anything is computed (`measure`): every formula cell, plus every
  distinct wide rectangle the formulas read (whole rows, columns and sheets counted over the
  used range of the sheet they name, which is what the engine reads of them; any range past
  column ZZ or row 999). A 5 KB book whose
  `=SUM(Sheet2!A:XFD)` reads a sheet with one value in A1 and one in XFD1048576 reads 17
  billion cells: stopped at once, instead of computing for minutes (issue 27, point 5).
- Time, the book's own from its first read (`Deadline`): checked between the formulas the
  preparation rewrites and before each evaluation, and an evaluation under way is cancelled
  when it runs out (formualizer's own `cancel`, which stops it between cells); the line names
  the cell it was at (the first formula cell the engine had not computed).
"""

from __future__ import annotations

import contextvars
import operator
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from rates_xl.calc.book import Book, CalcError, OverBudget
from rates_xl.client import setting_defaults
from rates_xl.functions.sheet import Area, Key, address, may_read_wide_range

#: The settings a user raises, as the line names them.
CELLS_SETTING = "calc_cells (RATES_CALC_CELLS)"
SECONDS_SETTING = "calc_seconds (RATES_CALC_SECONDS)"


@dataclass(frozen=True)
class Budget:
    cells: int
    seconds: float
    #: The engine's evaluation threads (`calc_threads`; 0: formualizer's default, one per core).
    threads: int = setting_defaults.CALC_THREADS

    @classmethod
    def from_settings(cls) -> Budget:
        """`calc_cells`, `calc_seconds` and `calc_threads` of the settings (client/settings.py). With no RATES_*
        variable set they are the defaults, known without loading pydantic (0.1 CPU s and 14 MB,
        most of what a book calling no RATES_* function would load for nothing)."""
        if not setting_defaults.any_set():
            return cls(setting_defaults.CALC_CELLS, setting_defaults.CALC_SECONDS, setting_defaults.CALC_THREADS)
        from pydantic import ValidationError

        from rates_xl.client.settings import Settings

        try:
            settings = Settings()
        except ValidationError as exc:  # one line, never a traceback
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            raise CalcError(f"the settings cannot be read ({problems})") from None
        return cls(settings.calc_cells, settings.calc_seconds, settings.calc_threads)


# -- cells ------------------------------------------------------------------------------------
@dataclass
class Reads:
    """What a book's formulas read: `total` cells (the formula cells and each distinct
    rectangle once), and the formula reading the largest one."""

    total: int
    largest: int = 0
    where: Key | None = None
    formula: str = ""
    place: tuple[str, Area] | None = None


def measure(book: Book) -> Reads:
    """The cells a calculation of `book` reads (see the module's docstring). References the
    dependency reader cannot follow (INDIRECT's text, a 3-D range) are not counted: the
    engine bounds those to the used range too."""
    from rates_xl.calc.dependencies import references

    # Only formulas that may read a wide range are read token by token (10 us a formula: 2 s
    # for a 200,000-cell book otherwise); a narrow one counts as its cell.
    wide_names = [name.upper() for name, value in _defined(book) if may_read_wide_range(value)]
    areas: dict[tuple[str, Area], int] = {}
    reads = Reads(len(book.cells))
    seen: set[tuple[str, str]] = set()  # (formula, sheet): a copy reads only rectangles counted already
    for key, (formula, _area) in book.cells.items():
        if not may_read_wide_range(formula) and not (wide_names and _names_in(formula.upper(), wide_names)):
            continue
        if (formula, key[0]) in seen:
            continue
        seen.add((formula, key[0]))
        for target, area in references(formula, key[0], book) or ():
            place = (target.upper(), area)
            if place in areas:
                continue
            bottom, right = _used_ranges(book).get(target.upper(), (0, 0))
            rows = min(area.bottom, bottom) - area.top + 1
            cols = min(area.right, right) - area.left + 1
            size = rows * cols if rows > 0 and cols > 0 else 0
            areas[place] = size
            if size > reads.largest:
                reads.largest, reads.where, reads.formula, reads.place = size, key, formula, (target, area)
    reads.total += sum(areas.values())
    return reads


def _names_in(text: str, names: list[str]) -> bool:
    return any(name in text for name in names)


def check_cells(book: Book, budget: Budget) -> None:
    """Raise OverBudget when the book's formulas read more cells than the budget allows."""
    reads = measure(book)
    if reads.total <= budget.cells:
        return
    where = ""
    if reads.where is not None and reads.place is not None:
        target, area = reads.place
        bottom, right = _used_ranges(book).get(target.upper(), (area.bottom, area.right))
        used = Area(1, 1, bottom, right).a1()
        where = (f"{address(*reads.where)} ({reads.formula}) reads {reads.largest:,} cells "
                 f"({target}'s used range is {used}); ")
    raise OverBudget(f"{book.path}: stopped before computing: {where}the book's {len(book.cells):,} formula "
                     f"cells and the ranges they read come to {reads.total:,} cells, past the budget of "
                     f"{budget.cells:,}; raise the setting {CELLS_SETTING} to compute it")


def _used_ranges(book: Book) -> dict[str, tuple[int, int]]:
    """Upper-case sheet title -> (last row, last column) holding anything."""
    if not hasattr(book, "_used"):
        found = {}
        for ws in book.book.worksheets:
            cells = ws._cells  # (row, col) -> cell: openpyxl's own store, read once
            # (the last row is the largest key's; the last column read by `map`, not a
            # generator: poi_StructuredRefs' 35,000 cells, 0.02 -> 0.005 CPU s)
            found[ws.title.upper()] = (max(cells, default=(0, 0))[0], max(map(_column, cells), default=0))
        book._used = found  # type: ignore[attr-defined]
    return book._used  # type: ignore[attr-defined]


_column = operator.itemgetter(1)


def _defined(book: Book) -> Iterator[tuple[str, str]]:
    """(name, the text it stands for) of every defined name, the sheets' own too."""
    for name, defined in book.book.defined_names.items():
        yield name, getattr(defined, "attr_text", None) or ""
    for ws in book.book.worksheets:
        for name, defined in getattr(ws, "defined_names", {}).items():
            yield name, getattr(defined, "attr_text", None) or ""


# -- time -------------------------------------------------------------------------------------
class Deadline:
    """The seconds a book's calculation may take, counted only while it runs (`running`: a
    run of several books loads them all, then evaluates each in turn), and the cell it is at:
    `at(key)` raises past the budget; an engine's evaluation runs under `cancelling`."""

    def __init__(self, path: Path, seconds: float) -> None:
        self.path, self.seconds = path, seconds
        self.spent = 0.0
        self._since: float | None = None
        #: Set when an evaluation of this book runs out of time. The engine's `cancel` stops
        #: only between cells: a function of ours that loops within one cell (a LAMBDA called
        #: per element by MAKEARRAY, MAP, REDUCE ...: calc/xlfuncs/logical/pipes.py) asks it,
        #: through `stop_event`, which the callbacks registered for this book hold.
        self.out_of_time = threading.Event()

    def elapsed(self) -> float:
        return self.spent + (time.monotonic() - self._since if self._since is not None else 0.0)

    @contextmanager
    def running(self) -> Iterator[Deadline]:
        """Count the time inside as this book's; `at` and `cancelling` see this deadline."""
        outer, token = self._since, current.set(self)
        if outer is None:
            self._since = time.monotonic()
        try:
            yield self
        finally:
            current.reset(token)
            if outer is None and self._since is not None:
                self.spent += time.monotonic() - self._since
                self._since = None

    def at(self, key: Key | None, what: str = "preparing the formulas") -> None:
        if self.elapsed() > self.seconds:
            self.stop(key, what)

    def stop(self, key: Key | None, what: str) -> None:
        cell = f" at {address(*key)}" if key is not None else ""
        raise OverBudget(f"{self.path}: stopped after {self.elapsed():.1f} s {what}{cell}: past the "
                         f"budget of {self.seconds:g} s a book may take; raise the setting "
                         f"{SECONDS_SETTING} to compute it")

    @contextmanager
    def cancelling(self, cancel: Callable[[], None], first_not_computed: Callable[[], Key | None],
                   what: str = "computing") -> Iterator[None]:
        """Run an engine's evaluation, cancelled (`cancel`, from a timer thread) when the
        budget runs out; a cancelled evaluation becomes the one line, naming the first cell
        it had not computed. Out of time before it starts (the preparation took the budget,
        as on a busy machine), the line names that cell too: the first the engine would compute."""
        if self.elapsed() > self.seconds:
            self.stop(first_not_computed(), what)
        fired = threading.Event()

        def fire() -> None:
            fired.set()
            self.out_of_time.set()
            cancel()

        timer = threading.Timer(max(self.seconds - self.elapsed(), 0.0), fire)
        timer.daemon = True
        timer.start()
        try:
            yield
        except BaseException:
            if fired.is_set():
                self.stop(first_not_computed(), what)
            raise
        finally:
            timer.cancel()
            self.out_of_time.clear()


#: The deadline of the book being calculated in this context (None: no budget, as in a
#: library call that builds the pieces itself).
current: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar("calc_deadline", default=None)


def stop_event() -> threading.Event | None:
    """The event set when the current book's evaluation runs out of time (None: no budget)."""
    deadline = current.get()
    return None if deadline is None else deadline.out_of_time


def at(key: Key) -> None:
    """The preparation is at formula cell `key`: stop there if the book's time is up."""
    deadline = current.get()
    if deadline is not None:
        deadline.at(key)


@contextmanager
def cancelling(cancel: Callable[[], None], first_not_computed: Callable[[], Key | None]) -> Iterator[None]:
    """An engine's evaluation under the current book's deadline (none: as it is)."""
    deadline = current.get()
    if deadline is None:
        yield
        return
    with deadline.cancelling(cancel, first_not_computed):
        yield
