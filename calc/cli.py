"""Subcommand `calc`: compute workbooks without Excel (heavy imports inside the handler)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

#: Exit code of `calc` when the workbook computed but some cells hold errors.
EXIT_ERROR_CELLS = 3
MAX_LISTED_ERRORS = 40


def register(subparsers: Any) -> None:
    calc = subparsers.add_parser(
        "calc", help="compute a workbook without Excel and write a values-frozen copy",
        description="Compute BOOK with every RATES_* function (the configured service, or RATES_BASE_URL "
                    "and RATES_API_KEY), write a copy with every formula replaced by its value (styles, charts "
                    f"and drop-downs kept) and list every error cell. Exit code {EXIT_ERROR_CELLS} when some "
                    "cells hold errors.")
    calc.add_argument("book", help="the .xlsx (or .xlsm) workbook to compute")
    calc.add_argument("-o", "--out", help="where to write the values-frozen copy (default: BOOK.values.xlsx beside it)")
    calc.add_argument("--valuation-time", metavar="T",
                      help="value every RATES_* call that leaves valuation_time empty as of T "
                           "(2026-01-02 or 2026-01-02T16:00:00Z; paid keys only)")
    calc.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    calc.add_argument("--sandbox", action="store_true",
                      help="compute against a sandbox started for the run (no key, no network)")
    calc.add_argument("--no-progress", action="store_true", help="no progress bar")
    calc.set_defaults(handler=_calc)



# -- handlers ------------------------------------------------------------------------------------
def _calc(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rates_xl.calc.workbook import CalcError, WorkbookCalculation
    from rates_xl.cli import CommandError

    book = Path(args.book)
    out = Path(args.out) if args.out else book.with_name(f"{book.stem}.values.xlsx")
    if out.exists() and not args.force:
        raise CommandError(f"{out} exists; pass --force to overwrite it, or -o to write elsewhere")
    if out.resolve() == book.resolve():
        raise CommandError("the output would replace the input workbook; choose another -o")
    if out.suffix.lower() not in (".xlsx", ".xlsm"):
        raise CommandError(f"{out}: the output must be an .xlsx file")
    valuation = _valuation_time(args.valuation_time)
    progress = Progress(enabled=not args.no_progress)
    try:
        with progress:
            progress.stage(f"Loading {book.name}")
            calc = WorkbookCalculation(book)
            if calc.unknown_functions:
                for name, cells in sorted(calc.unknown_functions.items()):
                    listed = ", ".join(cells[:5]) + (f" and {len(cells) - 5} more" if len(cells) > 5 else "")
                    progress.print(f"[yellow]unknown function {name}[/] (becomes #NAME?): {listed}")
            progress.stage("Computing")
            if args.sandbox:
                from rates_xl.templates.demo import sandbox_client

                with sandbox_client() as client:
                    result = calc.compute(client, valuation_time=valuation, on_fetch=progress.fetch)
            else:
                result = calc.compute(valuation_time=valuation, on_fetch=progress.fetch)
            progress.stage(f"Writing {out.name}")
            calc.freeze(result, out, force=args.force)
    except CalcError as exc:
        raise CommandError(str(exc)) from None
    return _report(result, out)


def _report(result: Any, out: Any) -> int:
    report = result.report
    print(f"Computed {result.path.name}: {result.formula_cells} formulas in {result.seconds:.1f} s; "
          f"{report.distinct_requests} distinct service requests, {report.requests_sent} sent, "
          f"{report.rounds} evaluation round{'s' if report.rounds != 1 else ''}.")
    print(f"Wrote {out} (values frozen).")
    if not result.errors:
        print("No error cells.")
        return 0
    print(f"{len(result.errors)} error cell{'s' if len(result.errors) != 1 else ''}:")
    for error in result.errors[:MAX_LISTED_ERRORS]:
        print(f"  {error.address}: {error.value}")
    if len(result.errors) > MAX_LISTED_ERRORS:
        print(f"  ... and {len(result.errors) - MAX_LISTED_ERRORS} more")
    return EXIT_ERROR_CELLS


# -- helpers -------------------------------------------------------------------------------------
def _valuation_time(text: str | None) -> Any:
    if not text:
        return None
    from datetime import UTC, datetime

    from rates_xl.cli import CommandError

    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise CommandError(f"--valuation-time {text!r}: expected a date or date-time such as "
                           "2026-01-02 or 2026-01-02T16:00:00Z") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class Progress:
    """A rich progress display on stderr: a line per stage, a bar while requests are fetched."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self._progress = None
        self._stage = None

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

    def fetch(self, total: int, done: Any) -> Any:
        """The planning loop's hook: a bar over `total` requests, polled until they are in."""
        if self._progress is None:
            return None
        import threading

        task = self._progress.add_task(f"Fetching {total} request{'s' if total != 1 else ''}", total=total)
        stop = threading.Event()

        def poll() -> None:
            while not stop.wait(0.1):
                self._progress.update(task, completed=done())

        thread = threading.Thread(target=poll, name="rates-progress", daemon=True)
        thread.start()

        def finished() -> None:
            stop.set()
            thread.join()
            self._progress.remove_task(task)

        return finished
