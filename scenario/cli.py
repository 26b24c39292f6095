"""Subcommand `risk`: DV01 and key-rate ladder of a book's outputs (heavy imports in the handler)."""

from __future__ import annotations

import argparse
from typing import Any

from rates_xl.errors import CommandError, UsageError

#: Exit code when some outputs have no sensitivity, or one that leaves out answers no scenario
#: moves (listed with why), as calc's 3 for cells it could not compute.
EXIT_PARTIAL = 3


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "risk", help="DV01 and key-rate ladder of a book's outputs, offline from its market-data pack",
        description="For each output cell of BOOK (the formula cells no other formula reads, or --cells), its change "
                    "per +1 bp parallel shift of each index's curve (DV01) and per key-rate bucket (the ladder), by "
                    "central differences (+1 bp and -1 bp) over replays of the book from its market-data pack under "
                    "each scenario (docs/scenarios.md). The book is loaded once; each scenario recomputes only the "
                    "cells downstream of its RATES_* cells. Prints a table, largest first, and writes a workbook with "
                    "the ladder and a chart. An output no curve moves is listed with why. Exit code "
                    f"{EXIT_PARTIAL} when some output has no sensitivity or one that leaves out answers no "
                    "scenario moves (FX spot, a fixing).")
    parser.add_argument("book", metavar="BOOK", help="the workbook (.xlsx, .xlsm)")
    parser.add_argument("--cells", metavar="RANGE",
                        help="the cells to measure: references or defined names, comma-separated (Swap!C31, "
                             "'Fixed leg'!J6:J10, npv); default: every formula cell no other formula reads")
    parser.add_argument("--buckets", metavar="TENORS", default=None,
                        help="the key-rate buckets (default 1Y,2Y,5Y,10Y,30Y)")
    parser.add_argument("--pack", metavar="PACK",
                        help="the market data: a .pack.json or a workbook carrying a pack (default: BOOK's own, else "
                             "BOOK.pack.json, else the copy rates-xl calc wrote, BOOK.values.xlsx)")
    parser.add_argument("-o", "--out", help="the ladder workbook (default BOOK.risk.xlsx beside BOOK)")
    parser.add_argument("--force", action="store_true", help="overwrite the workbook if it exists")
    parser.set_defaults(handler=_risk)


def _risk(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rates_xl.scenario.spec import DEFAULT_BUCKETS, SpecError, parse_buckets

    book = Path(args.book)
    if not book.exists():
        raise CommandError(f"{book}: no such file")
    try:
        buckets = DEFAULT_BUCKETS if args.buckets is None else parse_buckets(args.buckets)
    except SpecError as exc:
        raise UsageError(f"--buckets: {exc}") from None
    out = Path(args.out) if args.out else book.with_name(f"{book.stem}.risk.xlsx")
    if out.suffix.lower() != ".xlsx":
        raise CommandError(f"{out}: the ladder workbook must be an .xlsx file")
    if out.exists() and not args.force:
        raise CommandError(f"{out} exists; pass --force to overwrite it, or -o to write elsewhere")
    if out.exists() and out.resolve() == book.resolve():
        raise CommandError(f"the workbook would replace {book}; choose another -o")
    pack, source = _market_data(book, args.pack)
    from rates_xl.scenario import report
    from rates_xl.scenario.apply import calibration_client
    from rates_xl.scenario.risk import RiskError, measure

    client, why = calibration_client(pack)
    try:
        risk = measure(book, pack, cells=args.cells, buckets=buckets, client=client, pack_from=source)
    except RiskError as exc:
        raise CommandError(str(exc)) from None
    finally:
        if client is not None:
            client.close()
    report.print_table(risk)
    if why is not None and risk.fetched == 0 and _uncalibrated(risk):
        print(f"Curves: {why}.")
    report.write_workbook(risk, out)
    print(f"Wrote {out} (the ladder, a chart, and the market data it came from).")
    partial = any(o.why is not None or o.unshifted for o in risk.outputs) or risk.skipped
    return EXIT_PARTIAL if partial else 0


def _uncalibrated(risk: Any) -> bool:
    return any("cannot be rebuilt" in why for why in risk.not_shifted.values())


def _market_data(book: Any, named: str | None) -> tuple[Any, str]:
    """The pack to measure from, and where it came from; one line when there is none, or it
    was edited, or it is a scenario's."""
    from pathlib import Path

    from rates_xl.client.pack import PackError, read
    from rates_xl.client.pack_seal import check, signer_from_settings
    from rates_xl.client.pack_workbook import beside, read_pack, require_pack

    def load(path: Path) -> Any:
        return require_pack(path) if path.suffix.lower() in (".xlsx", ".xlsm") else read(path)

    try:
        if named is not None:
            path = Path(named)
            if not path.exists():
                raise CommandError(f"--pack {path}: no such file")
            pack, source = load(path), f"the pack of {path.name}"
        else:
            pack, source = read_pack(book), f"the pack inside {book.name}"
            if pack is None and beside(book).exists():
                pack, source = read(beside(book)), beside(book).name
            copy = book.with_name(f"{book.stem}.values{book.suffix if book.suffix.lower() == '.xlsm' else '.xlsx'}")
            if pack is None and copy.exists():
                pack, source = read_pack(copy), f"the pack of {copy.name} (the copy rates-xl calc wrote)"
            if pack is None:
                raise CommandError(f"{book.name} carries no market-data pack, and neither {beside(book).name} nor "
                                   f"{copy.name} is beside it: compute it first (rates-xl calc {book.name}), or give "
                                   "--pack")
    except PackError as exc:
        raise CommandError(str(exc)) from None
    if pack.scenario is not None:
        raise CommandError(f"{source} is a scenario's ({pack.scenario.described}), not market data: measure risk "
                           "from the market copy it came from")
    verdict = check(pack, signer_from_settings())
    if verdict.is_edited:
        raise CommandError(f"{source}: the market-data pack was {verdict.headline()}: risk is not measured on it")
    return pack, source
