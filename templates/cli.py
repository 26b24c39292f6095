"""Subcommands `calc`, `demo` and `templates build|list` (heavy imports inside the handlers)."""

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

    demo = subparsers.add_parser(
        "demo", help="compute every template against a local sandbox and print the headline numbers",
        description="Starts the sandbox in-process on a free loopback port with its paid key (no key of yours, "
                    "no network), computes every pricing template and writes them, values frozen, to DIR "
                    "(its template files are replaced).")
    demo.add_argument("--out", default="rates-demo", metavar="DIR", help="output folder (default ./rates-demo)")
    demo.add_argument("--no-progress", action="store_true", help="no progress bar")
    demo.set_defaults(handler=_demo)

    templates = subparsers.add_parser("templates", help="build or list the pricing templates")
    sub = templates.add_subparsers(dest="templates_command", metavar="ACTION")
    build = sub.add_parser("build", help="build the template workbooks from their Python source",
                           description="Builds each template with XlsxWriter against a sandbox started for the "
                                       "run (needs the [sandbox] extra), so spill ranges have their real shapes "
                                       "and the files open showing numbers.")
    build.add_argument("names", nargs="*", help="templates to build (default: all)")
    build.add_argument("--out", metavar="DIR", help="output folder (default: the installed templates folder)")
    build.set_defaults(handler=_build)
    listing = sub.add_parser("list", help="list the templates and where their files are")
    listing.set_defaults(handler=_list)
    templates.set_defaults(handler=lambda args: (templates.print_help(), 2)[1])


# -- handlers ------------------------------------------------------------------------------------
def _calc(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rates_xl.cli import CommandError
    from rates_xl.templates.calc import CalcError, WorkbookCalculation

    book = Path(args.book)
    out = Path(args.out) if args.out else book.with_name(f"{book.stem}.values.xlsx")
    if out.exists() and not args.force:
        raise CommandError(f"{out} exists; pass --force to overwrite it, or -o to write elsewhere")
    if out.resolve() == book.resolve():
        raise CommandError("the output would replace the input workbook; choose another -o")
    if out.suffix.lower() not in (".xlsx", ".xlsm"):
        raise CommandError(f"{out}: the output must be an .xlsx file")
    valuation = _valuation_time(args.valuation_time)
    progress = _Progress(enabled=not args.no_progress)
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


def _demo(args: argparse.Namespace) -> int:
    from rates_xl.cli import CommandError

    try:
        from rates_xl.templates.demo import run_demo
    except ImportError as exc:  # pragma: no cover - the sandbox extra is missing
        raise CommandError(f"the demo needs the sandbox: pip install \"rates-xl[sandbox]\" ({exc})") from None
    progress = _Progress(enabled=not args.no_progress)
    try:
        with progress:
            progress.stage("Starting the sandbox")
            run = run_demo(args.out, on_template=lambda name: progress.stage(f"Computing {name}"),
                           on_fetch=progress.fetch)
    except ModuleNotFoundError as exc:
        raise CommandError(f"the demo needs the sandbox: pip install \"rates-xl[sandbox]\" ({exc.name} is missing)") from None
    except OSError as exc:
        raise CommandError(f"cannot write to {args.out}: {exc}") from None
    _print_demo(run)
    errors = sum(len(r.errors) for r in run.results.values())
    return 0 if errors == 0 else EXIT_ERROR_CELLS


def _print_demo(run: Any) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    table = Table(title="rates-xl demo: headline numbers (local sandbox market)", title_justify="left")
    table.add_column("Number")
    table.add_column("Value", justify="right")
    table.add_column("Unit")
    for label, value, unit, fmt in run.headlines:
        shown = fmt.format(value) if isinstance(value, int | float) else str(value)
        table.add_row(label, shown, unit)
    console.print(table)
    files = Table(title=f"Workbooks (values frozen) in {run.out_dir.resolve()}", title_justify="left")
    files.add_column("File")
    files.add_column("Formulas", justify="right")
    files.add_column("Error cells", justify="right")
    for name, path in run.files.items():
        result = run.results[name]
        files.add_row(path.name, str(result.formula_cells), str(len(result.errors)))
    console.print(files)
    console.print(f"{run.stats['requests_sent']} requests to the sandbox in {run.seconds:.1f} s. "
                  "Open the files in Excel; the templates with live formulas are in "
                  f"{_templates_dir()} (rates-xl templates list).")


def _build(args: argparse.Namespace) -> int:
    from rates_xl.cli import CommandError
    from rates_xl.templates import TEMPLATES

    unknown = [n for n in args.names if n not in TEMPLATES]
    if unknown:
        raise CommandError(f"unknown template {', '.join(unknown)}; known: {', '.join(TEMPLATES)}")
    from rates_xl.templates.build import BuildError, build
    from rates_xl.templates.demo import sandbox_client

    try:
        with sandbox_client() as client:
            for name in args.names or list(TEMPLATES):
                built = build(name, args.out, client=client)
                print(f"built {built.path} ({built.result.formula_cells} formulas, no error cells)")
    except BuildError as exc:
        raise CommandError(str(exc)) from None
    return 0


def _list(args: argparse.Namespace) -> int:
    from rates_xl.templates import TEMPLATES, template_path

    for name, what in TEMPLATES.items():
        print(f"{name:16} {template_path(name)}\n{'':16} {what}")
    return 0


# -- helpers -------------------------------------------------------------------------------------
def _templates_dir() -> str:
    from rates_xl.templates import PACKAGE_DIR

    return str(PACKAGE_DIR)


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


class _Progress:
    """A rich progress display on stderr: a line per stage, a bar while requests are fetched."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self._progress = None
        self._stage = None

    def __enter__(self) -> _Progress:
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
