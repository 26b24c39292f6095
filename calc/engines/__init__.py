"""The formula engines behind one small interface, and the one place that picks an engine.

An engine (`Engine`) is loaded from a `Book` (calc/book.py) and evaluates every formula cell
it computes, once per planning round. `constants` are formula cells it must not compute: the
engine's copy holds them as plain values (the file's cached ones, Excel's answers), so what
depends on them starts from Excel's value. Modelled on httpx's transports and pycel's
ExcelWrapper: the coordinator (calc/workbook.py) never asks which engine it holds.

- `formualizer` (calc/engines/formualizer.py): the fast one (Rust), with calc/fast.py's
  preparation, loaded by calc/fast_model.py; it lists what it cannot compute instead of guessing.
- `formulas` (calc/engines/formulas.py): the `formulas` package (slow, exact on some
  classes); used when formualizer cannot read a book at all, or when asked for.
"""

from __future__ import annotations

from typing import Any, Protocol

from rates_xl.calc.book import Book, CalcError
from rates_xl.functions.sheet import Area, Key

#: The engines a calculation can ask for ("auto": fast unless a book needs formulas).
ENGINES = ("auto", "fast", "formulas")


class Engine(Protocol):
    #: "fast" or "formulas", as the summary names it.
    name: str
    #: Formula cells (anchors) it cannot compute: why. They keep the file's cached value.
    unsupported: dict[Key, str]
    #: Function name -> cell addresses of calls it turns into #NAME?.
    unknown_functions: dict[str, list[str]]

    def evaluate(self) -> dict[Key, Any]:
        """One round: the value of every cell it computes (errors as Excel's text, '#N/A';
        every cell of an array formula's range; blank where a spill shrank)."""
        ...

    def service_cells(self) -> set[Key]:
        """Cells whose formula calls a RATES_* function (helper cells included)."""
        ...

    def hold(self, values: dict[Key, Any]) -> None:
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


def load_engine(book: Book, name: str = "auto", *, constants: dict[Key, Any] | None = None,
                calls_rates: bool = False) -> tuple[Engine, str]:
    """The engine for `book`, and why it is not the default one ("" when it is).

    The one routing decision: formualizer computes the book; `formulas` when formualizer
    cannot read it at all, or when asked for by name (a per-formula choice would go here)."""
    from rates_xl.calc.engines.formualizer import FormualizerEngine
    from rates_xl.calc.engines.formulas import FormulasEngine

    if name not in ENGINES:
        raise CalcError(f"unknown engine {name!r}; choose one of {', '.join(ENGINES)}")
    constants = constants or {}
    reason = ""
    if name in ("auto", "fast"):
        try:
            return FormualizerEngine(book, constants=constants, calls_rates=calls_rates), ""
        except EngineError as exc:
            reason = str(exc)
    try:
        return FormulasEngine(book, constants=constants), reason
    except CalcError as exc:
        raise CalcError(f"{exc}; {reason}" if reason else str(exc)) from None


class EngineError(Exception):
    """An engine cannot load a book (the message says why, for the summary)."""
