"""Subcommand `calc`: compute workbooks without Excel (heavy imports inside the handler)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Literal

from rates_xl.calc.cli_summary import EXIT_ERROR_CELLS, Progress, counted, summary

if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime
    from pathlib import Path

    from rates_xl.calc.results import BatchResult
    from rates_xl.client import RatesClient
    from rates_xl.client.pack import Pack
    from rates_xl.client.pack_seal import Verdict
    from rates_xl.functions.plan import PlanReport
    from rates_xl.scenario.spec import Scenario

    #: What computes books: (client, which books or all, the moment a replay was pinned at,
    #: as its pack writes it).
    Compute = Callable[[RatesClient | None, list[Path] | None, datetime | str | None], BatchResult]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    calc = subparsers.add_parser(
        "calc", help="compute workbooks without Excel and write values-frozen copies",
        description="Compute each BOOK (or every .xlsx/.xlsm in a FOLDER) with every RATES_* function (the "
                    "configured service, or RATES_BASE_URL and RATES_API_KEY), write a copy with every formula "
                    "replaced by its value (styles, charts, drop-downs and VBA kept) and print one summary: error "
                    "cells, cells not computed and why, circular references, links to other workbooks. By default only "
                    "what changed is recomputed (cells depending on a RATES_* call, a volatile function or a formula "
                    "with no cached value), each first checked against the value Excel saved; --full recomputes "
                    "everything. Cells the engine gets wrong keep Excel's value and are listed as stale. Several "
                    "books share one client: a request they have in common is fetched once. Exit code "
                    f"{EXIT_ERROR_CELLS} when some cells hold errors or were not computed, 1 when a book could not "
                    "be computed at all.")
    calc.add_argument("book", nargs="+", metavar="BOOK", help="workbooks (.xlsx, .xlsm) or folders of them")
    calc.add_argument("-o", "--out",
                      help="one book: where to write its copy (default BOOK.values.xlsx beside it); "
                           "several: a folder for the copies")
    calc.add_argument("--valuation-time", metavar="T",
                      help="value every RATES_* call that leaves valuation_time empty as of T "
                           "(2026-01-02 or 2026-01-02T16:00:00Z; paid keys only); without it, a book that defines "
                           "the name RATES_VALUATION_TIME values at that moment")
    calc.add_argument("--engine", choices=("auto", "fast", "formulas"), default="auto",
                      help="auto (default): the fast engine unless a formula needs the exact one; "
                           "fast: formualizer; formulas: the formulas package (slow)")
    calc.add_argument("--full", action="store_true",
                      help="recompute every formula (as Ctrl+Alt+F9); by default only the cells that depend on a "
                           "RATES_* call, a volatile function or a cell with no cached value are, and every other "
                           "cell keeps the value Excel saved")
    calc.add_argument("--force", action="store_true", help="overwrite copies that exist")
    calc.add_argument("--sandbox", action="store_true",
                      help="compute against a sandbox started for the run (no key, no network)")
    calc.add_argument("--pack-out", metavar="FILE",
                      help="also write the market-data pack (every service answer used; the copy always carries "
                           "it inside) to FILE; several books: a folder for BOOK.pack.json files")
    calc.add_argument("--replay", nargs="?", const=True, default=None, metavar="PACK",
                      help="recompute from a market-data pack, with no key and no network: the book's own (inside "
                           "it, else BOOK.pack.json beside it), or PACK (a .pack.json, or a workbook carrying one "
                           "such as the copy a calc wrote). A request the pack does not hold becomes a #RATES! "
                           "cell, never a live request. The pack is checked first (its digests, and its signature "
                           "where this machine's API key signed it): an edited pack is refused. Put BOOK first: "
                           "rates-xl calc BOOK --replay")
    calc.add_argument("--allow-edited-pack", action="store_true",
                      help="with --replay: replay a pack whose check fails (an answer edited after it was "
                           "recorded) anyway; the summary and the copy mark every cell computed from an edited "
                           "answer, and the run is never called a reproduction (exit code "
                           f"{EXIT_ERROR_CELLS})")
    calc.add_argument("--scenario", metavar="SPEC",
                      help="with --replay: the book under a scenario (SOFR+1bp, *+25bp, SOFR:10Y+1bp, "
                           "SOFR:2Y-5bp,SOFR:10Y+5bp): each answer the pack recorded moved by a local curve model's "
                           "change, what it cannot move kept and listed; the copy (BOOK.scenario-SPEC.values.xlsx), "
                           "its RATES_* cells and its pack are marked as a scenario, never market data. The curves "
                           "the pack lacks are fetched once from the service that recorded it (docs/scenarios.md)")
    calc.add_argument("--buckets", metavar="TENORS",
                      help="with --scenario: the key-rate buckets its triangles sit on (default 1Y,2Y,5Y,10Y,30Y)")
    calc.add_argument("--no-progress", action="store_true", help="no progress bar")
    calc.set_defaults(handler=_calc)


# -- handlers ------------------------------------------------------------------------------------
def _calc(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rates_xl.calc.workbook import calculate_many, workbooks_in
    from rates_xl.cli import CommandError

    left_out: list[Path] = []
    books = workbooks_in(args.book, left_out)
    if left_out:
        names = ", ".join(p.name for p in left_out[:5]) + (f" and {len(left_out) - 5} more" if len(left_out) > 5 else "")
        print(f"Left out {counted(len(left_out), 'copy', 'copies')} rates-xl calc wrote (values only): {names}.")
    if not books:
        raise CommandError(f"no .xlsx or .xlsm workbook to compute in {', '.join(args.book)}"
                           + (" (only copies rates-xl calc wrote)" if left_out else ""))
    from rates_xl.scenario import replay as scenario_run

    scenario = scenario_run.parse(args)
    replays = _replays(books, args.replay) if args.replay is not None else None
    outs = _outputs(books, Path(args.out) if args.out else None, any(Path(b).is_dir() for b in args.book),
                    replays, scenario)
    for book, out in outs.items():
        if out.exists() and not args.force:
            raise CommandError(f"{out} exists; pass --force to overwrite it, or -o to write elsewhere")
        if out.exists() and book.exists() and out.resolve() == book.resolve():
            raise CommandError(f"the copy of {book} would replace it; choose another -o")
        if out.suffix.lower() not in (".xlsx", ".xlsm"):
            raise CommandError(f"{out}: the output must be an .xlsx or .xlsm file")
    valuation = _valuation_time(args.valuation_time)
    if args.replay is not None and args.sandbox:
        from rates_xl.cli import UsageError

        raise UsageError("--replay and --sandbox: choose one (a replay asks no service)")
    packs_out = _pack_outputs(books, Path(args.pack_out) if args.pack_out else None, args.force)
    if args.allow_edited_pack and replays is None:
        from rates_xl.cli import UsageError

        raise UsageError("--allow-edited-pack goes with --replay")
    verdicts, refused = _checked(replays or {}, args.allow_edited_pack)
    # (parse refuses --scenario without --replay)
    applied = scenario_run.apply_to(replays, scenario, refused) if scenario is not None and replays is not None else None
    progress = Progress(enabled=not args.no_progress)
    from rates_xl.calc import collector

    # No cyclic collection from the first book read to the last copy written: every book stays
    # alive until then (calculate_many keeps them all), so a collection would only walk them
    # again (formulas_test.xlsx: 0.1 of its 2.6 CPU s), nor after: the process ends.
    with progress, collector.until_exit():
        def loading(path: Path) -> None:
            progress.stage(f"Loading {path.name}")

        def compute(client: RatesClient | None, chosen: list[Path] | None = None,
                    pinned: datetime | str | None = None) -> BatchResult:
            chosen = books if chosen is None else chosen
            return calculate_many(chosen, client, valuation_time=valuation if valuation is not None else pinned,
                                  engine_name=args.engine, full=args.full, on_fetch=progress.fetch,
                                  on_load=loading)

        if replays is not None:
            batch = _replay_batch(books, {b: p for b, p in replays.items() if b not in refused}, compute)
            batch.failures.update(refused)
        elif args.sandbox:
            from rates_xl.templates.demo import sandbox_client

            with sandbox_client() as client:
                batch = compute(client)
        else:
            batch = compute(None)
        written, checked = {}, {}
        for path, result in batch.results.items():
            progress.stage(f"Writing {outs[path].name}")
            try:
                if path in verdicts and verdicts[path].edited:
                    from rates_xl.calc.provenance import untrusted_cells

                    result.untrusted = untrusted_cells(batch.calculations[path], result, verdicts[path].edited)
                under = replays[path].scenario if replays is not None and path in replays else None
                if under is not None:
                    result.scenario = under.described
                    result.scenario_notes = scenario_run.marks(batch.calculations[path], result, under)
                batch.calculations[path].freeze(result, outs[path], force=args.force)
                written[path] = outs[path]
                if path in verdicts and replays is not None:  # (verdicts are the replays')
                    from rates_xl.calc.provenance import reproduced

                    checked[path] = [f"Pack check: {verdicts[path].headline()}."]
                    checked[path].append(
                        "NOT a reproduction: replayed from an edited pack (--allow-edited-pack); rates-xl "
                        "diff names the edited answers too."
                        if verdicts[path].is_edited else
                        (applied and applied.compared(replays[path])) or reproduced(outs[path], replays[path]))
                    if under is not None:
                        checked[path][-1:-1] = scenario_run.summary(replays[path], applied)
                if path in packs_out and result.pack is not None:
                    from rates_xl import atomic

                    with atomic.replacing(packs_out[path]) as tmp:
                        result.pack.write(tmp)
                    print(f"Wrote {packs_out[path]} (market-data pack).")
            except Exception as exc:  # noqa: BLE001 - reported with the book, the others go on
                batch.failures[path] = str(exc)
    return summary(batch, books, written, checked)


def _checked(replays: dict[Path, Pack], allow_edited: bool) -> tuple[dict[Path, Verdict], dict[Path, str]]:
    """Each replayed book's pack checked (client/pack_seal.py), and the books refused for an
    edited pack (unless `allow_edited`) with the line that says so."""
    if not replays:
        return {}, {}
    from rates_xl.calc.provenance import refusal, this_machine
    from rates_xl.client.pack_seal import check

    signer = this_machine()
    by_pack: dict[int, Verdict] = {}  # one check per pack, however many books share it
    verdicts = {}
    for book, pack in replays.items():
        if id(pack) not in by_pack:
            by_pack[id(pack)] = check(pack, signer)
        verdicts[book] = by_pack[id(pack)]
    refused = {book: refusal(book, verdict) for book, verdict in verdicts.items()
               if verdict.is_edited and not allow_edited}
    return verdicts, refused


def _pack_outputs(books: list[Path], out: Path | None, force: bool) -> dict[Path, Path]:
    """Where --pack-out writes each book's pack: FILE for one book, FOLDER/BOOK.pack.json for several."""
    from rates_xl.cli import CommandError

    if out is None:
        return {}
    if len(books) == 1 and not out.is_dir():
        found = {books[0]: out}
    else:
        if out.exists() and not out.is_dir():
            raise CommandError(f"--pack-out {out}: several books need a folder for their packs")
        found = {book: out / f"{book.stem}.pack.json" for book in books}
    for target in found.values():
        if target.exists() and not force:
            raise CommandError(f"{target} exists; pass --force to overwrite it")
    return found


def _replays(books: list[Path], named: str | Literal[True]) -> dict[Path, Pack]:
    """Each book's pack to replay: its own (`named` True) or the one named; one line if none."""
    from pathlib import Path

    from rates_xl.cli import CommandError
    from rates_xl.client.pack import PackError, read
    from rates_xl.client.pack_workbook import require_pack

    def load(source: Path) -> Pack:
        if not source.exists():
            raise CommandError(f"--replay {source}: no such file")
        return require_pack(source) if source.suffix.lower() in (".xlsx", ".xlsm") else read(source)

    try:
        if named is True:
            return {book: load(book) for book in books if book.exists()}
        pack = load(Path(named))
        return dict.fromkeys(books, pack)
    except PackError as exc:
        raise CommandError(str(exc)) from None


def _replay_batch(books: list[Path], packs: dict[Path, Pack], compute: Compute) -> BatchResult:
    """Compute each book against a client that answers only from its pack: no key, no
    network. Books sharing one pack share one client (one batch)."""
    from rates_xl.calc.results import BatchResult
    from rates_xl.client import RatesClient
    from rates_xl.functions.plan import PlanReport

    merged = BatchResult({}, {}, PlanReport(), 0.0)
    groups: dict[int, list[Path]] = {}
    for book in books:
        if book in packs:
            groups.setdefault(id(packs[book]), []).append(book)
    for group in groups.values():
        pack = packs[group[0]]
        with RatesClient(replay=pack) as client:
            # The moment the recorded run was pinned at (--valuation-time or the book's name):
            # --replay alone reproduces it; --valuation-time given again still wins.
            batch = compute(client, group, pack.valuation_time)
        merged.replayed = True
        merged.results.update(batch.results)
        merged.failures.update(batch.failures)
        merged.calculations.update(batch.calculations)
        merged.seconds += batch.seconds
        merged.report = batch.report if len(groups) == 1 else _sum_reports(merged.report, batch.report)
    return merged


def _sum_reports(a: PlanReport, b: PlanReport) -> PlanReport:
    from dataclasses import fields, replace

    return replace(a, **{f.name: getattr(a, f.name) + getattr(b, f.name) for f in fields(a)
                         if isinstance(getattr(a, f.name), int | float)})


def _outputs(books: list[Path], out: Path | None, folder_given: bool, replays: dict[Path, Pack] | None = None,
             scenario: Scenario | None = None) -> dict[Path, Path]:
    from rates_xl.scenario.replay import copy_name as scenario_name
    from rates_xl.scenario.replay import slug

    def copy_name(book: Path) -> str:
        suffix = ".xlsm" if book.suffix.lower() == ".xlsm" else ".xlsx"
        if scenario is not None:  # the copy's name says it is a scenario's, never the market's
            return f"{book.stem}.scenario-{slug(scenario.text)}.values{suffix}"
        return scenario_name(book, (replays or {}).get(book)) or f"{book.stem}.values{suffix}"

    if out is None:
        return {book: book.with_name(copy_name(book)) for book in books}
    if len(books) == 1 and not folder_given and not out.is_dir():
        return {books[0]: out}
    return {book: out / copy_name(book) for book in books}


def _valuation_time(text: str | None) -> datetime | None:
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
