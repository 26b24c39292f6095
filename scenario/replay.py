"""`rates-xl calc BOOK --replay [PACK] --scenario SPEC`: a book computed offline under a
scenario (docs/scenarios.md), and everything that marks its copy as one.

The pack is checked first (as any replay's), then put under the scenario (scenario/apply.py:
the curves' calibration looked up in the pack, else fetched once from the service that
recorded it), and the book is replayed from that scenario pack. Nothing of it can pass as
market data:

- the copy's default name says the scenario: `BOOK.scenario-SOFR+1bp.values.xlsx`;
- each RATES_* cell of the copy carries a note (what moved, what did not and why), and the
  copy's document properties name the scenario;
- RATES_STATUS has a Scenario row and RATES_SOURCE a Scenario line for each answer;
- its pack is a scenario pack (kind, record, cells bound under the scenario's label), so a
  replay of the copy says so and computes the same scenario again.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rates_xl.errors import CommandError, UsageError

#: RATES_* cells of a copy that get a note (a note is a drawing shape: thousands slow Excel).
MAX_NOTES = 500
MAX_LISTED = 40


def parse(args: Any) -> Any:
    """--scenario SPEC (and --buckets) read: a Scenario, or None; one usage line otherwise."""
    spec, buckets = getattr(args, "scenario", None), getattr(args, "buckets", None)
    if spec is None:
        if buckets is not None:
            raise UsageError("--buckets goes with --scenario")
        return None
    if args.replay is None:
        raise UsageError("--scenario goes with --replay: a scenario moves the answers a market-data pack "
                         "recorded (rates-xl calc BOOK --replay --scenario SOFR+1bp)")
    from rates_xl.scenario.spec import SpecError
    from rates_xl.scenario.spec import parse as parse_spec

    try:
        scenario = parse_spec(spec, buckets)
    except SpecError as exc:
        raise UsageError(f"--scenario: {exc}") from None
    from rates_xl.sandbox.conventions import INDEX_ALIASES

    return scenario.renamed(INDEX_ALIASES)  # named as the copy and its pack will name it


def slug(spec: str) -> str:
    """A scenario as a file name's part: `*` is `all`, anything a file name cannot hold `_`."""
    text = re.sub(r"[^A-Za-z0-9+.\-]+", "_", spec.replace("*", "all"))
    return text[:80].strip("_.") or "scenario"


def copy_name(book: Path, pack: Any) -> str | None:
    """The default name of the copy of a book replayed under a scenario (None: market data)."""
    record = getattr(pack, "scenario", None)
    if record is None:
        return None
    suffix = ".xlsm" if book.suffix.lower() == ".xlsm" else ".xlsx"
    return f"{book.stem}.scenario-{slug(record.spec)}.values{suffix}"


class Applied:
    """What applying a scenario to each pack did, for the summary."""

    def __init__(self) -> None:
        self.fetched: dict[int, tuple[int, str]] = {}  # id(scenario pack) -> (answers fetched, from where)
        self.unfetched: dict[int, str] = {}  # id(scenario pack) -> why nothing could be fetched
        self.fresh: set[int] = set()  # id of each scenario pack made in this run

    def compared(self, pack: Any) -> str | None:
        """The line in place of "Reproduced" for a scenario applied in this run (None otherwise)."""
        if id(pack) not in self.fresh:
            return None
        return ("Not compared with the recorded run: under a scenario the cells differ from the market's by "
                "design; the copy's own pack binds these cells, so a replay of the copy computes this scenario "
                "again and compares.")


def apply_to(replays: dict[Path, Any], scenario: Any, refused: dict[Path, str]) -> Applied:
    """Each book's pack (not refused) put under `scenario`, in place in `replays`; one
    CommandError line for a pack that is a scenario's already or a scenario it cannot take."""
    from rates_xl.client.pack_seal import seal
    from rates_xl.scenario.apply import ScenarioError, apply, calibration_client, prepare
    from rates_xl.scenario.model import canonical

    applied = Applied()
    done: dict[int, Any] = {}
    for book, pack in list(replays.items()):
        if book in refused:
            continue
        if id(pack) in done:
            replays[book] = done[id(pack)]
            continue
        if pack.scenario is not None:
            raise CommandError(f"{book.name}: its pack already holds the scenario {pack.scenario.described}: replay it "
                               "without --scenario (it computes that scenario again), or replay the market copy "
                               "it came from under another")
        client, why = calibration_client(pack)
        only = None
        if all(s.index is not None for s in scenario.shifts):
            only = set()
            for shift in scenario.shifts:
                try:
                    only.add(canonical(shift.index))
                except Exception:  # noqa: BLE001 - an index the table lacks: check_names says it
                    pass
        try:
            prepared = prepare(pack, client, only=only)
            under = apply(prepared, scenario)
        except ScenarioError as exc:
            raise CommandError(f"{book.name}: {exc}") from None
        finally:
            if client is not None:
                client.close()
        under = seal(under, getattr(client, "pack_signer", None) if client is not None else None)
        if prepared.fetched:
            applied.fetched[id(under)] = (len(prepared.fetched), pack.base_url)
        if why is not None:
            applied.unfetched[id(under)] = why
        applied.fresh.add(id(under))
        done[id(pack)] = replays[book] = under
    return applied


def summary(pack: Any, applied: Applied | None) -> list[str]:
    """The summary's lines for a book replayed under a scenario (its pack's record)."""
    record = pack.scenario
    moved = [a for a in record.answers if a.answer is not None]
    kept = [a for a in record.answers if a.not_shifted is not None]
    lines = [f"Scenario {record.described}: NOT market data: {len(moved)} service answer"
             f"{'s' if len(moved) != 1 else ''} moved by the local model's change (recorded + shifted - base), "
             f"{len(kept)} not shifted (kept as recorded), the rest unchanged by it; the copy, its RATES_* cells "
             "and its pack say so."]
    if applied is not None and id(pack) in applied.fetched:
        count, where = applied.fetched[id(pack)]
        lines.append(f"Curves: {count} answer{'s' if count != 1 else ''} the pack lacked fetched once from {where} "
                     "and recorded in the copy's pack.")
    if applied is not None and id(pack) in applied.unfetched:
        lines.append(f"Curves: {applied.unfetched[id(pack)]}.")
    for answer in kept[:MAX_LISTED]:
        lines.append(f"  not shifted: {answer.request}: {answer.not_shifted}")
    if len(kept) > MAX_LISTED:
        lines.append(f"  ... and {len(kept) - MAX_LISTED} more not shifted (listed in the copy's pack)")
    return lines


def marks(calc: Any, result: Any, record: Any) -> list[tuple[str, str, str]]:
    """(sheet, cell, note) for each RATES_* cell of a scenario copy (the first MAX_NOTES): the
    scenario, and the answers it reads that were not shifted, with why."""
    from rates_xl.calc.attribution import cells_reading
    from rates_xl.calc.dependencies import anchors_calling
    from rates_xl.functions.sheet import parse_cell

    kept = {a.request: a.not_shifted for a in record.answers if a.not_shifted is not None}
    values = dict(calc.source.cached())
    values.update(result.values)
    reading = cells_reading(calc.source, values, result.valuation_time, set(kept)) if kept else {}
    order = {title: i for i, title in enumerate(calc.book.sheetnames)}
    anchors = sorted(anchors_calling(calc.source.cells, None, rates=True),
                     key=lambda k: (order.get(k[0], 0), *parse_cell(k[1])))
    out = []
    for sheet, cell in anchors[:MAX_NOTES]:
        text = (f"SCENARIO {record.described}, NOT market data: the service's answers this cell reads, moved by "
                "the local model's change (recorded + shifted - base; docs/scenarios.md)")
        for request in reading.get((sheet, cell), ()):
            if request in kept:
                text += f". Not shifted: {request} ({kept[request]})"
            else:
                text += f". {request}"  # an answer whose request could not be read: said as is
        out.append((sheet, cell, text))
    return out


__all__ = ["MAX_NOTES", "Applied", "apply_to", "copy_name", "marks", "parse", "slug", "summary"]
