"""What `rates-xl calc` shows: the summary of each book it computed (`summary`: the formulas,
the requests, what was recomputed and checked, the market data, every cell not computed,
stale, cut or in error, and the exit status they make), and its progress on stderr
(`Progress`: a line per stage, a bar while requests are fetched). `templates/cli.py` shows
its builds the same way.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from rich.progress import Progress as RichProgress
    from rich.progress import TaskID

    from rates_xl.calc.results import BatchResult, CalcResult


#: Exit code of `calc` when the workbook computed but some cells hold errors.
EXIT_ERROR_CELLS = 3


MAX_LISTED_ERRORS = 40
_Listed = TypeVar("_Listed")


def _print_some(items: Sequence[_Listed], line: Callable[[_Listed], str], indent: str) -> None:
    """The first MAX_LISTED_ERRORS items' lines, then how many more there are (the line of
    each item only for those printed: formulas_test lists 40 of its 10,909 error cells)."""
    for item in items[:MAX_LISTED_ERRORS]:
        print(f"{indent}{line(item)}")
    if len(items) > MAX_LISTED_ERRORS:
        print(f"{indent}... and {len(items) - MAX_LISTED_ERRORS} more")


def summary(batch: BatchResult, books: list[Path], written: dict[Path, Path], checked: dict[Path, list[str]]) -> int:
    from rates_xl.functions.sheet import address

    report = batch.report
    several = len(books) > 1
    if several:
        print(f"Computed {len(batch.results)} of {len(books)} workbooks in {batch.seconds:.1f} s: "
              f"{counted(report.distinct_requests, 'distinct service request')}, {report.requests_sent} sent, "
              f"{counted(report.rounds, 'evaluation round')}.")
    status = 0
    for book in books:
        if book in batch.failures:
            print(f"rates-xl calc: {batch.failures[book]}", file=sys.stderr)
            status = 1
            continue
        result = batch.results.get(book)
        if result is None:
            continue
        formulas = (f"{counted(result.formula_cells, 'formula')} ({result.engine} engine)" if result.formula_cells
                    else "no formulas (values only: nothing to compute)")
        if several:
            print(f"{book.name}: {formulas}.")
        else:
            sent = "read from the pack" if batch.replayed else "sent"
            computed = f"{counted(result.formula_cells, 'formula')} in {result.seconds:.1f} s ({result.engine} engine)" \
                if result.formula_cells else formulas
            print(f"Computed {book.name}: {computed}; {counted(report.distinct_requests, 'distinct service request')}, "
                  f"{report.requests_sent} {sent}, {counted(report.rounds, 'evaluation round')}.")
        if book in written:
            print(f"Wrote {written[book]} (values frozen).")
        print(f"  {recomputed(result)}")
        market = market_data(result, replayed=batch.replayed)
        if market:
            print(f"  {market}")
        for line in checked.get(book, []):
            print(f"  {line}")
        if result.untrusted:
            count = len(result.untrusted)
            listed = ", ".join(address(sheet, cell) for sheet, cell, _ in result.untrusted[:MAX_LISTED_ERRORS])
            more = f" and {count - MAX_LISTED_ERRORS} more" if count > MAX_LISTED_ERRORS else ""
            print(f"  {count} cell{'s' if count != 1 else ''} computed from an edited answer (noted in the copy): "
                  f"{listed}{more}")
        for note in result.notes:
            print(f"  note: {note}")
        if result.unknown_functions:
            for name, cells in sorted(result.unknown_functions.items()):
                listed = ", ".join(cells[:5]) + (f" and {len(cells) - 5} more" if len(cells) > 5 else "")
                print(f"  unknown function {name} (becomes #NAME?): {listed}")
        if result.loops:
            listed = ", ".join(result.loops[:MAX_LISTED_ERRORS])
            more = f" and {len(result.loops) - MAX_LISTED_ERRORS} more" if len(result.loops) > MAX_LISTED_ERRORS else ""
            print(f"  circular reference: {listed}{more}")
        if result.skipped:
            print(f"  {len(result.skipped)} cell{'s' if len(result.skipped) != 1 else ''} not computed "
                  "(the file's cached value kept):")
            _print_some(result.skipped, lambda skipped: f"{skipped.address}: {skipped.reason}", "    ")
        for sheet, anchor, why in result.cut:
            print(f"  table cut: {address(sheet, anchor)}: {why}")
        if result.stale:
            print(f"  {len(result.stale)} cell{'s' if len(result.stale) != 1 else ''} stale (the engine disagrees "
                  "with Excel at the book's stored inputs; Excel's value kept):")
            _print_some(result.stale, lambda stale: f"{stale.address} {stale.formula}: {stale.reason}", "    ")
        if not result.errors:
            print("  No error cells." if several else "No error cells.")
        else:
            print(f"{'  ' if several else ''}{len(result.errors)} error cell{'s' if len(result.errors) != 1 else ''}:")
            _print_some(result.errors, lambda error: f"{error.address}: {error.value}" +
                        (f" ({error.message})" if error.message else ""), "  ")
        edited = book in checked and checked[book][-1].startswith("NOT a reproduction")
        if (result.errors or result.skipped or result.stale or result.untrusted or edited) and status == 0:
            status = EXIT_ERROR_CELLS
    return status


# -- helpers -------------------------------------------------------------------------------------
def counted(n: int, one: str, many: str | None = None) -> str:
    """1 formula, 2 formulas; 1 copy, 3 copies."""
    return f"{n:,} {one if n == 1 else many or one + 's'}"


def market_data(result: CalcResult, *, replayed: bool = False) -> str | None:
    """One line: the pack the values came from and when its answers were valued."""
    pack = result.pack
    if pack is None:
        return None
    count = len(pack.answers)
    from rates_xl.client.pack_seal import sealed_phrase

    if getattr(result, "scenario", None):
        line = (f"Market data UNDER THE SCENARIO {result.scenario}: {count} service answer{'s' if count != 1 else ''} "
                "replayed from the pack, each moved as the scenario says (below)")
    else:
        line = (f"Market data: {count} service answer{'s' if count != 1 else ''} "
                + ("replayed from the market-data pack (no service asked)" if replayed
                   else f"recorded in the copy's market-data pack, {sealed_phrase(pack)}"))
    if result.valuation_time is not None:
        line += f"; valuation time pinned at {result.valuation_time:%Y-%m-%d %H:%M:%S} UTC"
    spread = pack.spread()
    return line + (f"; {spread}." if spread else ".")


def recomputed(result: CalcResult) -> str:
    """One line: what was recomputed, how much of it was checked against Excel's values."""
    mode = "every formula (--full)" if result.mode == "full" else "only what changed"
    if not result.recomputed:
        return (f"Recomputed nothing ({mode}): no RATES_* call, no volatile function and every formula "
                "holds Excel's value.")
    line = f"Recomputed {result.recomputed} formula cell{'s' if result.recomputed != 1 else ''} ({mode}); "
    if result.checked:
        line += f"{result.checked} checked against Excel's values at the book's stored inputs"
        line += f", {result.unchecked} unchecked (no cached value)" if result.unchecked else ""
    elif getattr(result, "manual_calculation", False):
        line += ("unchecked (saved in manual calculation mode without recalculating before saving: its values "
                 "may be out of date)")
    else:
        line += "unchecked (the file holds no values computed by Excel to compare with)"
    return line + f"; {len(result.stale)} stale."


class Progress:
    """A rich progress display on stderr: a line per stage, a bar while requests are fetched."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self._progress: RichProgress | None = None  # while shown
        self._stage: TaskID | None = None

    def __enter__(self) -> Progress:
        if self.enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                SpinnerColumn,
                TextColumn,
                TimeElapsedColumn,
            )

            self._progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                      MofNCompleteColumn(), TimeElapsedColumn(),
                                      console=Console(stderr=True), transient=True)
            self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()

    def stage(self, text: str) -> None:
        if self._progress is None:
            return
        if self._stage is not None:
            self._progress.update(self._stage, description=text, total=None, completed=0)
        else:
            self._stage = self._progress.add_task(text, total=None)

    def print(self, text: str) -> None:
        if self._progress is not None:
            self._progress.console.print(text)
        else:
            from rich.console import Console

            Console(stderr=True).print(text)

    def fetch(self, total: int, done: Callable[[], int]) -> Callable[[], None] | None:
        """The planning loop's hook: a bar over `total` requests, polled until they are in."""
        progress = self._progress
        if progress is None:
            return None
        import threading

        task = progress.add_task(f"Fetching {total} request{'s' if total != 1 else ''}", total=total)
        stop = threading.Event()

        def poll() -> None:
            while not stop.wait(0.1):
                progress.update(task, completed=done())

        thread = threading.Thread(target=poll, name="rates-progress", daemon=True)
        thread.start()

        def finished() -> None:
            stop.set()
            thread.join()
            progress.remove_task(task)

        return finished
