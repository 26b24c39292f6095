"""Subcommand `diff`: two computed copies of one book, cell by cell (calc/diff.py)."""

from __future__ import annotations

import argparse
from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.table import Table

    from rates_xl.calc.diff import Diff, MovedCell
    from rates_xl.functions.values import CellValue


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from rates_xl.calc.diff import DEFAULT_RELATIVE, DEFAULT_TOLERANCE, MAX_SHOWN

    diff = subparsers.add_parser(
        "diff", help="compare two computed copies of one book: the cells that moved and the service answers behind them",
        description="Compare A and B, two copies `rates-xl calc` wrote of one book (two valuations, or one book "
                    "replayed from two market-data packs): every cell whose value moved, by how much (absolute "
                    "and relative), and the service answers that moved with it (the requests upstream of the "
                    "cell in the book's formulas). The book's outputs (cells no formula reads, such as an NPV) "
                    "come first, then the cells they read; each group largest relative move first, "
                    f"{MAX_SHOWN} of each on the screen: half those that moved most by share, half by amount "
                    "(every one in -o's workbook). Each copy's market-data pack is "
                    "checked (its digests, and its signature where this machine's API key made it) and so are "
                    "its cells against the digest the pack recorded: an edited pack, or a copy whose cells are "
                    f"not the ones its pack was written with, is named first and the exit code is {EXIT_EDITED}. "
                    "Otherwise exit 0 when nothing moved, 4 when something did.")
    diff.add_argument("a", metavar="A", help="the earlier copy (e.g. yesterday's BOOK.values.xlsx)")
    diff.add_argument("b", metavar="B", help="the later copy")
    diff.add_argument("--book", metavar="BOOK",
                      help="the workbook with formulas both were computed from (default: A's name without "
                           "'.values', when it is there): needed to name the answers behind each moved cell "
                           "and to tell outputs apart")
    diff.add_argument("--tolerance", metavar="ABS", type=_tolerance, default=DEFAULT_TOLERANCE,
                      help=f"a number moved only when it changed by more than ABS (default {DEFAULT_TOLERANCE:g}) "
                           f"and by more than --relative-tolerance of its size (default {DEFAULT_RELATIVE:g}): "
                           "floating-point wobbles are not moves; 0 counts every difference")
    diff.add_argument("--relative-tolerance", metavar="REL", type=_tolerance, default=DEFAULT_RELATIVE,
                      help=f"see --tolerance (default {DEFAULT_RELATIVE:g})")
    diff.add_argument("-o", "--out", metavar="FILE",
                      help="also write B with the moved cells highlighted and noted, and a first sheet listing them")
    diff.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    diff.set_defaults(handler=_diff)


#: Exit code when something moved (as `diff` and `cmp` say "different" apart from "failed").
EXIT_MOVED = 4
#: Exit code when a copy's record cannot be trusted (calc/provenance.py): an edited pack, or
#: cells that are not those its pack was written with; whatever moved, never a clean diff.
EXIT_EDITED = 5


def _tolerance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (e.g. 1e-9)") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: give a number 0 or more (e.g. 1e-9)")
    return value


def _diff(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rates_xl.calc.book import CalcError
    from rates_xl.calc.diff import MAX_SHOWN, diff, write_report
    from rates_xl.cli import CommandError

    if args.out and Path(args.out).suffix.lower() not in (".xlsx", ".xlsm"):
        raise CommandError(f"{args.out}: the output must be an .xlsx file")
    if args.out and Path(args.out).exists() and not args.force:
        raise CommandError(f"{args.out} exists; pass --force to overwrite it")
    try:
        result = diff(args.a, args.b, book=args.book, tolerance=args.tolerance, relative=args.relative_tolerance)
        if args.out:
            write_report(result, args.out, force=args.force)
    except CalcError as exc:
        raise CommandError(str(exc)) from None
    _print(result, MAX_SHOWN, args.out)
    if args.out:
        print(f"Wrote {args.out} (moved cells highlighted).")
    if result.untrusted:
        return EXIT_EDITED
    return EXIT_MOVED if result.cells or result.requests else 0


def _print(result: Diff, limit: int, out: str | None) -> None:
    from rich.console import Console

    from rates_xl.calc.diff import headline, moved_most, on_screen

    console = Console(highlight=False, width=max(Console().width, 120))
    for line in result.untrusted:
        print(f"NOT TRUSTED: {line}.")
    print(headline(result), flush=True)
    most = moved_most(result.cells)
    if most:
        print(most)
    for line in result.scenarios:
        print(f"SCENARIO: {line}.")
    if result.untrusted:
        print("This is not a comparison of two faithful records: see NOT TRUSTED above.")
    told_apart = all(c.output is not None for c in result.cells)
    groups = ([("Outputs: cells no formula reads", result.outputs),
               ("Cells they read (intermediate)", result.others)] if told_apart
              else [("Cells that moved", result.cells)])
    hidden = 0
    for title, cells in groups:
        if not cells:
            continue
        shown = on_screen(cells, limit)
        hidden += len(cells) - len(shown)
        more = f", the {len(shown)} that moved most by share or amount" if len(shown) < len(cells) else ""
        console.print(_cells_table(f"{title} ({len(cells)}{more}, largest relative move first)", shown))
    if hidden:
        where = f"in {out}" if out else "in the workbook -o FILE writes"
        console.print(f"... and {hidden} more {where}.")
    if result.requests:
        from rich.table import Table

        listed = result.requests[:limit]
        more = f", the first {len(listed)}" if len(listed) < len(result.requests) else ""
        table = Table(title=f"Service answers that moved ({len(result.requests)}{more})", title_justify="left")
        table.add_column("Request", overflow="fold")
        for title in ("Change", "Valued in A", "Valued in B"):
            table.add_column(title)
        for request in listed:
            table.add_row(request.request, request.change, request.valued[0] or "", request.valued[1] or "")
        console.print(table)
        if len(listed) < len(result.requests):
            console.print(f"... and {len(result.requests) - len(listed)} more service answers, in the workbook "
                          f"{out or '-o FILE writes'}.")
    for note in [*result.checks, *result.notes]:
        print(f"note: {note}")


def _cells_table(title: str, cells: list[MovedCell]) -> Table:
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    table.add_column("Cell")
    table.add_column("Label", overflow="fold", max_width=24)
    for name in ("A", "B", "Change", "Change %"):
        table.add_column(name, justify="right")
    table.add_column("Service answers behind it", overflow="fold")
    for moved in cells:
        change = "" if moved.change is None else f"{moved.change:+.6g}"
        relative = "" if moved.relative is None else f"{moved.relative * 100:+.4g} %"
        table.add_row(moved.address, moved.label or "", _text(moved.before), _text(moved.after), change,
                      relative, _requests(moved.requests))
    return table


def _requests(requests: tuple[str, ...]) -> str:
    """The answers behind a cell in a line or two: each one when few, else how many of which
    endpoint (the -o workbook lists them all)."""
    if len(requests) <= 2:
        return "\n".join(requests)
    unlinked = [r for r in requests if r.startswith("the request of ")]
    counts = Counter(r.split("?", 1)[0] for r in requests if not r.startswith("the request of "))
    parts = [f"{endpoint} x{n}" if n > 1 else endpoint for endpoint, n in sorted(counts.items())]
    if unlinked:
        parts.append(f"{len(unlinked)} not linked (e.g. {unlinked[0]})")
    return f"{len(requests)} answers: " + ", ".join(parts)


def _text(value: CellValue) -> str:
    return "" if value is None else f"{value:.10g}" if isinstance(value, float) else str(value)
