"""The formula engines behind one small interface, and the one place that picks an engine.

An engine (`Engine`) is loaded from a `Book` (calc/book.py) and evaluates every formula cell
it computes, once per planning round. `constants` are formula cells it must not compute: the
engine's copy holds them as plain values (the file's cached ones, Excel's answers), so what
depends on them starts from Excel's value. Modelled on httpx's transports and pycel's
ExcelWrapper: the coordinator (calc/workbook.py) never asks which engine it holds.

- `formualizer/`: the fast one (Rust): `formualizer/prepare.py` makes its copy of the book
  (calc/formula's passes and fit), `formualizer/model.py` loads it with the functions
  registered, `formualizer/values.py` converts its values, `formualizer/engine.py` is the
  adapter; it lists what it cannot compute instead of guessing;
- `formulas/`: the `formulas` package (slow, exact on some classes), its functions registered
  by `formulas/functions.py`; used when formualizer cannot read a book at all, or when asked for;
- `rates.py`: the RATES_* functions as both register them (the table, the spellings, the
  call context of the calculation under way: functions/context.py);
- `Settled`: an engine whose values are already known (nothing to recompute).
"""

from __future__ import annotations

from typing import Protocol

from rates_xl.calc.book import Book, CalcError
from rates_xl.errors import TaskError
from rates_xl.functions.sheet import Area, Key
from rates_xl.functions.values import CellValue

#: The engines a calculation can ask for ("auto": fast unless a book needs formulas).
ENGINES = ("auto", "fast", "formulas")


class Engine(Protocol):
    #: "fast" or "formulas", as the summary names it.
    name: str
    #: Formula cells (anchors) it cannot compute: why. They keep the file's cached value.
    unsupported: dict[Key, str]
    #: Function name -> cell addresses of calls it turns into #NAME?.
    unknown_functions: dict[str, list[str]]
    #: Spill anchor -> the area it covered in the last evaluation, where the engine knows it
    #: (wider or longer than the file's range too: the copy holds all of it).
    extents: dict[Key, Area]
    #: Legacy array anchors showing part of a RATES_* table, as of the last evaluation: why.
    cut: dict[Key, str]
    #: Spill anchors held at #SPILL! because merged cells lie in their way: the merged range
    #: (calc/merged_spills.py).
    blocked: dict[Key, Area]

    def evaluate(self) -> dict[Key, CellValue]:
        """One round: the value of every cell it computes (errors as Excel's text, '#N/A';
        every cell of an array formula's range; blank where a spill shrank)."""
        ...

    def service_cells(self) -> set[Key]:
        """Cells whose formula calls a RATES_* function (helper cells included)."""
        ...

    def hold(self, values: dict[Key, CellValue]) -> None:
        """These cells hold these values, their formulas not computed, until `release`d
        (the check holds the RATES_* cells at their cached values; stale cells are held at
        Excel's value)."""
        ...

    def release(self, cells: set[Key]) -> None:
        """Compute these cells' formulas again."""
        ...

    def loops(self) -> list[str]:
        """Cells in circular references (addresses), as of the last evaluation."""
        ...

    def area(self, key: Key) -> Area | None:
        """The area a formula anchored at `key` fills, when it knows it."""
        ...


class Settled:
    """An engine whose values are already known: nothing to recompute, or the check's own
    values when nothing changed since (a book with no RATES_* and no volatile call): the
    engine that computed them (`checked`) answers the rest."""

    def __init__(self, name: str, values: dict[Key, CellValue], checked: Engine | None = None) -> None:
        self.name = name
        self._values = values
        self._checked = checked
        self.unsupported: dict[Key, str] = dict(checked.unsupported) if checked is not None else {}
        self.unknown_functions: dict[str, list[str]] = dict(checked.unknown_functions) if checked is not None else {}
        self.extents: dict[Key, Area] = dict(checked.extents) if checked is not None else {}
        self.cut: dict[Key, str] = dict(checked.cut) if checked is not None else {}
        self.blocked: dict[Key, Area] = dict(checked.blocked) if checked is not None else {}

    def evaluate(self) -> dict[Key, CellValue]:
        return dict(self._values)

    def service_cells(self) -> set[Key]:
        return set()  # nothing here asks the service

    def hold(self, values: dict[Key, CellValue]) -> None:
        """Nothing is computed here: the values are held already."""

    def release(self, cells: set[Key]) -> None:
        """Nothing is computed here."""

    def loops(self) -> list[str]:
        return self._checked.loops() if self._checked is not None else []

    def area(self, key: Key) -> Area | None:
        return self._checked.area(key) if self._checked is not None else None


def load_engine(book: Book, name: str = "auto", *, constants: dict[Key, CellValue] | None = None,
                held: dict[Key, CellValue] | None = None, threads: int) -> tuple[Engine, str]:
    """The engine for `book`, and why it is not the default one ("" when it is).

    The one routing decision: formualizer computes the book; `formulas` when formualizer
    cannot read it at all, or when asked for by name (a per-formula choice would go here).
    `held`: cells the caller holds as soon as it is loaded (the check's stored inputs); the
    `formulas` engine, for which a hold means loading the book again, loads it with them held."""
    from rates_xl.calc.engines.formualizer.engine import FormualizerEngine

    if name not in ENGINES:
        raise CalcError(f"unknown engine {name!r}; choose one of {', '.join(ENGINES)}")
    constants = constants or {}
    reason = ""
    if name in ("auto", "fast"):
        try:
            return FormualizerEngine(book, constants=constants, threads=threads), ""
        except EngineError as exc:
            reason = str(exc)
    # (imported only here: formualizer could not read the book, or `formulas` was asked for)
    from rates_xl.calc.engines.formulas.engine import FormulasEngine

    try:
        return FormulasEngine(book, constants=constants, held=held), reason
    except CalcError as exc:
        raise CalcError(f"{exc}; {reason}" if reason else str(exc)) from None


class EngineError(TaskError):
    """An engine cannot load a book (the message says why, for the summary)."""
