"""Subcommand `diff`: two computed copies of one book, cell by cell (calc/diff.py)."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    diff = subparsers.add_parser(
        "diff", help="compare two computed copies of one book: the cells that moved and the service answers behind them",
        description="Compare A and B, two copies `rates-xl calc` wrote of one book (two valuations, or one book "
                    "replayed from two market-data packs): every cell whose value moved, by how much, and the "
                    "service answers that moved with it (the requests upstream of the cell in the book's "
                    "formulas). Exit 0 when nothing moved, 4 when something did.")
    diff.add_argument("a", metavar="A", help="the earlier copy (e.g. yesterday's BOOK.values.xlsx)")
    diff.add_argument("b", metavar="B", help="the later copy")
    diff.add_argument("--book", metavar="BOOK",
                      help="the workbook with formulas both were computed from (default: A's name without "
                           "'.values', when it is there): needed to name the answers behind each moved cell")
    diff.add_argument("-o", "--out", metavar="FILE",
                      help="also write B with the moved cells highlighted and noted, and a first sheet listing them")
    diff.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    diff.set_defaults(handler=_diff)


#: Exit code when something moved (as `diff` and `cmp` say "different" apart from "failed").
EXIT_MOVED = 4


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
        result = diff(args.a, args.b, book=args.book)
        if args.out:
            write_report(result, args.out, force=args.force)
    except CalcError as exc:
        raise CommandError(str(exc)) from None
    _print(result, MAX_SHOWN)
    if args.out:
        print(f"Wrote {args.out} (moved cells highlighted).")
    return EXIT_MOVED if result.cells or result.requests else 0


def _print(result: Any, limit: int) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False, width=max(Console().width, 120))
    console.print(f"{result.b.name} against {result.a.name}: {len(result.cells)} cell"
                  f"{'s' if len(result.cells) != 1 else ''} moved, {len(result.requests)} service answer"
                  f"{'s' if len(result.requests) != 1 else ''} moved.")
    if result.cells:
        table = Table("Cell", "A", "B", "Change")
        table.add_column("Service answers moved with it", overflow="fold")
        for moved in result.cells[:limit]:
            change = "" if moved.change is None else f"{moved.change:+.10g}"
            table.add_row(moved.address, _text(moved.before), _text(moved.after), change,
                          "\n".join(moved.requests))
        console.print(table)
        if len(result.cells) > limit:
            console.print(f"... and {len(result.cells) - limit} more (all of them in the workbook -o writes)")
    if result.requests:
        table = Table()
        table.add_column("Request", overflow="fold")
        for title in ("Change", "Valued in A", "Valued in B"):
            table.add_column(title)
        for request in result.requests:
            table.add_row(request.request, request.change, request.valued[0] or "", request.valued[1] or "")
        console.print(table)
    for note in result.notes:
        console.print(f"note: {note}")


def _text(value: Any) -> str:
    return "" if value is None else f"{value:.10g}" if isinstance(value, float) else str(value)
