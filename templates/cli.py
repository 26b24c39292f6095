"""Subcommands `demo` and `templates build|list` (heavy imports inside the handlers)."""

from __future__ import annotations

import argparse
from typing import Any

from rates_xl.calc.cli_summary import EXIT_ERROR_CELLS, Progress
from rates_xl.errors import CommandError


def register(subparsers: Any) -> None:
    demo = subparsers.add_parser(
        "demo", help="compute every template against a local sandbox and print the headline numbers",
        description="Starts the sandbox in-process on a free loopback port with its paid key (no key of yours, "
                    "no network), computes every pricing template and writes them, values frozen, to DIR "
                    "(its template files are replaced).")
    demo.add_argument("--out", default="rates-demo", metavar="DIR", help="output folder (default ./rates-demo)")
    demo.add_argument("--no-progress", action="store_true", help="no progress bar")
    demo.set_defaults(handler=_demo)

    templates = subparsers.add_parser(
        "templates", help="build or list the pricing templates",
        description="The pricing workbooks shipped with rates-xl (swap pricer, curve dashboard, FX hedging, swap "
                    "spreads, history): `list` says where they are, `build` makes a fresh copy from their "
                    "Python source against a sandbox.")
    sub = templates.add_subparsers(dest="templates_command", metavar="ACTION")
    build = sub.add_parser("build", help="build template workbooks from their Python source into the current folder",
                           description="Builds each template NAME (default: all) with XlsxWriter against a sandbox "
                                       "started for the run (needs the [sandbox] extra; no key, no network), so "
                                       "spill ranges have their real shapes and the files open showing numbers. "
                                       "Writes NAME.xlsx into the current folder, or into --out DIR. It never "
                                       "replaces an existing file without --force, and the shipped templates "
                                       "(rates-xl templates list) only when --out names their folder and "
                                       "--force is given (run in that folder, it refuses even with --force).")
    build.add_argument("names", nargs="*", metavar="NAME", help="templates to build (default: all)")
    build.add_argument("--out", metavar="DIR", help="output folder (default: the current folder)")
    build.add_argument("--force", action="store_true", help="replace files that exist")
    build.set_defaults(handler=_build)
    listing = sub.add_parser("list", help="list the templates and where their files are")
    listing.set_defaults(handler=_list)
    templates.set_defaults(handler=lambda args: (templates.print_help(), 2)[1])


# -- handlers ------------------------------------------------------------------------------------
def _demo(args: argparse.Namespace) -> int:
    try:
        from rates_xl.templates.demo import run_demo
    except ImportError as exc:  # pragma: no cover - the sandbox extra is missing
        raise CommandError(_needs_sandbox("the demo", exc)) from None
    from pathlib import Path

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CommandError(f"--out {out} is a file, not a folder: name a folder (new or "
                           "existing) with --out DIR")
    progress = Progress(enabled=not args.no_progress)
    try:
        with progress:
            progress.stage("Starting the sandbox")
            run = run_demo(args.out, on_template=lambda name: progress.stage(f"Computing {name}"),
                           on_fetch=progress.fetch)
    except ModuleNotFoundError as exc:
        raise CommandError(_needs_sandbox("the demo", exc)) from None
    except OSError as exc:
        where = exc.filename or args.out
        raise CommandError(f"cannot write to {where}: {exc.strerror or exc}") from None
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
    from rates_xl.templates import TEMPLATES

    unknown = [n for n in args.names if n not in TEMPLATES]
    if unknown:
        raise CommandError(f"unknown template {', '.join(unknown)}; known: {', '.join(TEMPLATES)}")
    from rates_xl.templates.build import TemplateBuildError, build, target

    names = list(dict.fromkeys(args.names)) or list(TEMPLATES)
    try:
        for name in names:  # every target checked before anything is built
            target(name, args.out, force=args.force)
        from rates_xl.templates.demo import sandbox_client

        with sandbox_client() as client:
            for name in names:
                built = build(name, args.out, client=client, force=args.force)
                print(f"built {built.path} ({built.result.formula_cells} formulas, no error cells)")
    except TemplateBuildError as exc:
        raise CommandError(str(exc)) from None
    except OSError as exc:
        raise CommandError(f"cannot write to {exc.filename or args.out or '.'}: {exc.strerror or exc}") from None
    return 0


def _list(args: argparse.Namespace) -> int:
    from rates_xl.templates import TEMPLATES, template_path

    for name, what in TEMPLATES.items():
        print(f"{name:16} {template_path(name)}\n{'':16} {what}")
    return 0


# -- helpers -------------------------------------------------------------------------------------
def _needs_sandbox(what: str, exc: ImportError) -> str:
    from rates_xl.extras import missing_extra

    return f"{what} needs the sandbox: {missing_extra(exc, 'sandbox')}"


def _templates_dir() -> str:
    from rates_xl.templates import PACKAGE_DIR

    return str(PACKAGE_DIR)
