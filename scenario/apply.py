"""A market-data pack under a scenario: the scenario pack a replay serves.

`prepare(pack, client)` reads a pack once: which answers the local model can move (and the
curves each is computed from), which it cannot (with why), the calibration of each curve
(scenario/model.py: from the pack, else fetched once from the service that recorded it), and
the model's base number for each answer, checked against the service's. `apply(prepared,
scenario)` then gives, for any number of scenarios (`rates-xl risk` asks for dozens), the
scenario pack: kind "rates-xl scenario pack", the market's answers as recorded, the answers
its curves were built from, and the scenario record (client/pack.py `ScenarioRecord`): each
answer moved (recorded + shifted - base), or kept with the reason it is not shifted. A
replaying client serves the moved answers (client/pack_replay.py `PackTransport`).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from rates_xl.client.pack import (
    SCENARIO_KIND,
    Pack,
    PackAnswer,
    ScenarioAnswer,
    ScenarioRecord,
    utc_text,
)
from rates_xl.errors import InputError
from rates_xl.scenario import answers as shaping
from rates_xl.scenario.model import Calibration, LocalMarket, NotModelled, Request, canonical
from rates_xl.scenario.spec import Scenario

#: How each moved answer was computed, in one line (recorded in every scenario pack).
METHOD = ("recorded answer + (local model shifted - local model base): each index's curve rebuilt with "
          "QuantLib on rates-xl's conventions table from the service's own quotes at the answer's moment "
          "(its swap curve, fixings and short-end forwards), its par quotes shifted by the scenario "
          "(key rates: triangular weights on the buckets) and the curve bootstrapped again")
#: An index whose answers were valued at more moments than this is not calibrated (an
#: unpinned book: one curve fetch per answer).
MAX_MOMENTS = 4

Ident = tuple[str, tuple[tuple[str, str], ...]]


class ScenarioError(InputError):
    """A scenario that cannot be applied to this pack: one line."""


@dataclass
class Entry:
    """A recorded answer the model can move: its numbers and the curves they come from."""

    answer: PackAnswer
    data: dict[str, Any]
    numbers: list[shaping.Number]
    indexes: list[str]
    moment: str
    base: list[float] = field(default_factory=list)


@dataclass
class Prepared:
    pack: Pack
    entries: dict[Ident, Entry] = field(default_factory=dict)
    #: answers that keep their value under any scenario touching them: (indexes named, why)
    kept: dict[Ident, tuple[frozenset[str], str]] = field(default_factory=dict)
    #: the FX spots, fixings, government yields, history: why (under every scenario)
    fixed: dict[Ident, str] = field(default_factory=dict)
    calibrations: dict[str, dict[str, Calibration]] = field(default_factory=dict)  # moment -> index -> ...
    fetched: list[PackAnswer] = field(default_factory=list)  # calibration answers the pack lacked
    calibration_requests: list[str] = field(default_factory=list)
    indexes: set[str] = field(default_factory=set)  # every index an answer of the pack is on
    base_markets: dict[str, LocalMarket] = field(default_factory=dict)

    def not_shifted(self, scenario: Scenario) -> dict[Ident, str]:
        """Every answer a scenario cannot move, and why."""
        out = dict(self.fixed)
        for ident, (named, why) in self.kept.items():
            if any(scenario.touches(i) for i in named):
                out[ident] = why
        return out


def _ident(answer: PackAnswer) -> Ident:
    return (answer.endpoint, answer.params)


def prepare(pack: Pack, client: Any = None, *, only: set[str] | None = None) -> Prepared:
    """Read `pack` for scenarios; calibrate the curves its movable answers are on (`only`:
    those of these indexes and what they are built on). `client` (a live RatesClient of the
    service that recorded the pack, or None) fetches the calibration answers the pack lacks."""
    if pack.scenario is not None:
        raise ScenarioError(f"the pack already holds the scenario {pack.scenario.described}: a scenario "
                            "applies to market data; replay the market copy it came from")
    out = Prepared(pack)
    for answer in pack.answers:
        ident = _ident(answer)
        if answer.answer is None:
            continue  # a refusal stays a refusal
        if answer.endpoint in shaping.FIXED:
            out.fixed[ident] = shaping.FIXED[answer.endpoint]
            continue
        if answer.endpoint not in shaping.MOVABLE:
            continue
        params = dict(answer.params)
        data = json.loads(answer.answer)
        named = frozenset(filter(None, [str(data.get("index") or data.get("index_name") or params.get("index", ""))]))
        try:
            indexes = shaping.indexes_of(answer.endpoint, params, data)
            out.indexes.update(indexes)
            if answer.valuation_time is None:
                raise NotModelled("the answer does not say when it was valued, so no curve can be fetched for it")
            numbers = shaping.numbers(answer.endpoint, params, data, answer.valuation_time)
        except NotModelled as exc:
            out.kept[ident] = (named or frozenset({"*"}), str(exc))
            out.indexes.update(named)
            continue
        out.entries[ident] = Entry(answer, data, numbers, indexes, answer.valuation_time)
    _calibrate(out, client, only)
    return out


def _calibrate(out: Prepared, client: Any, only: set[str] | None) -> None:
    wanted: dict[str, set[str]] = defaultdict(set)  # moment -> indexes
    moments: dict[str, set[str]] = defaultdict(set)  # index -> moments
    for entry in out.entries.values():
        if only is None or any(i in only for i in entry.indexes):
            wanted[entry.moment].update(entry.indexes)
            for index in entry.indexes:
                moments[index].add(entry.moment)
    crowded = {i for i, m in moments.items() if len(m) > MAX_MOMENTS}
    calibrations = {moment: {i: Calibration.of(i, moment) for i in sorted(indexes - crowded)}
                    for moment, indexes in wanted.items()}
    requests = {r for by_index in calibrations.values() for c in by_index.values() for r in c.requests()}
    held = out.pack.index()
    found: dict[Request, Any] = {}
    missing = []
    for request in sorted(requests, key=lambda r: r.text):
        entry = held.get((request.endpoint, request.params))
        if entry is None:
            missing.append(request)
        elif entry.answer is not None:
            found[request] = json.loads(entry.answer)
        else:
            found[request] = RuntimeError(entry.error["message"] if entry.error else "refused")
    if missing and client is not None:
        found.update(_fetch(out, client, missing))
    out.calibration_requests = sorted(r.text for r in requests)
    failed: dict[tuple[str, str], str] = {}
    for moment, by_index in calibrations.items():
        for index, calibration in by_index.items():
            try:
                calibration.read(found)
            except NotModelled as exc:
                failed[(moment, index)] = str(exc)
        out.calibrations[moment] = {i: c for i, c in by_index.items() if (moment, i) not in failed}
        out.base_markets[moment] = LocalMarket(out.calibrations[moment])
    for ident, entry in list(out.entries.items()):
        if only is not None and not any(i in only for i in entry.indexes):
            continue
        reason = next((failed[(entry.moment, i)] for i in entry.indexes if (entry.moment, i) in failed), None)
        if reason is None and any(i in crowded for i in entry.indexes):
            reason = (f"its answers were valued at more than {MAX_MOMENTS} different moments (an unpinned book): "
                      "pin the book's valuation time (RATES_VALUATION_TIME) to shift it")
        if reason is None:
            try:
                market = out.base_markets[entry.moment]
                entry.base = shaping.values(entry.numbers, market, market)
                shaping.check_base(entry.numbers, entry.data, entry.base)
            except NotModelled as exc:
                reason = str(exc)
            except RuntimeError as exc:  # QuantLib: a date it cannot price, a missing fixing
                reason = f"the local model cannot price it (QuantLib: {str(exc).strip()[:160]})"
        if reason is not None:
            del out.entries[ident]
            out.kept[ident] = (frozenset(entry.indexes), reason)


def _fetch(out: Prepared, client: Any, missing: list[Request]) -> dict[Request, Any]:
    """The calibration answers the pack lacks, fetched once from the service and recorded
    (sealed with the client's key like any answer): they join the scenario's pack."""
    from rates_xl.client.client import RequestKey

    keys = {RequestKey(r.endpoint, r.params): r for r in missing}
    with client.recording() as recorder:
        outcomes = client.fetch_many(list(keys))
    out.fetched = list(recorder.pack().answers)
    found: dict[Request, Any] = {}
    for key, outcome in outcomes.items():
        if isinstance(outcome, BaseException):
            found[keys[key]] = outcome
        else:
            found[keys[key]] = json.loads(outcome.model_dump_json(by_alias=True))
    return found


def calibration_client(pack: Any) -> tuple[Any, str | None]:
    """A client of the service that recorded the pack (to fetch what the curves need), or None
    and why: the key goes nowhere else, whatever the pack says its service was."""
    from rates_xl.client import RatesClient
    from rates_xl.client.pack import public_url
    from rates_xl.client.settings import load_settings

    try:
        configured = public_url(load_settings().base_url)
    except Exception as exc:  # noqa: BLE001 - bad settings: nothing fetched, said so
        return None, f"the client's settings cannot be read ({type(exc).__name__}): nothing fetched"
    if configured != pack.base_url:
        return None, (f"the pack was recorded from {pack.base_url} and rates-xl is set for {configured}: what the "
                      f"curves lack is not fetched from another service (set RATES_BASE_URL={pack.base_url})")
    return RatesClient(), None


def replaying_client(pack: Pack) -> Any:
    """A client answering only from `pack` (a scenario pack: the answers under it), every
    answer already in its memory, so a cell computed with it never waits for one, and never
    asks anyone: a request the pack lacks is the cell's "not in the market-data pack"."""
    from rates_xl.client import RatesClient
    from rates_xl.client.client import RequestKey
    from rates_xl.client.errors import RatesError

    client = RatesClient(replay=pack)
    for answer in pack.answers:
        try:
            client.get_key(RequestKey(answer.endpoint, answer.params))
        except RatesError:
            pass  # a recorded refusal: the cell shows it, as in any replay
    return client


def check_names(prepared: Prepared, scenario: Scenario) -> Scenario:
    """The scenario with its indexes named as the conventions table names them; ScenarioError
    for an index no answer of the pack is on (a typo shifts nothing: never silently)."""
    from rates_xl.sandbox.conventions import INDEX_ALIASES

    renamed = scenario.renamed(INDEX_ALIASES)
    for shift in renamed.shifts:
        if shift.index is not None and shift.index not in prepared.indexes:
            known = ", ".join(sorted(prepared.indexes)) or "none: it holds no rate curve answers"
            raise ScenarioError(f"scenario {scenario.text}: no answer in the pack is on {shift.index} "
                                f"(the pack's indexes: {known})")
    return renamed


def apply(prepared: Prepared, scenario: Scenario) -> Pack:
    """The scenario pack (unsealed: `client.pack_seal.seal` it to write it)."""
    scenario = check_names(prepared, scenario)
    shifted_markets: dict[str, LocalMarket] = {}
    moved: dict[Ident, ScenarioAnswer] = {}
    kept = prepared.not_shifted(scenario)
    for ident, entry in prepared.entries.items():
        if not any(scenario.touches(i) for i in entry.indexes):
            continue
        market = shifted_markets.get(entry.moment)
        if market is None:
            market = shifted_markets[entry.moment] = LocalMarket(prepared.calibrations[entry.moment], scenario)
        try:
            base = prepared.base_markets[entry.moment]
            text = shaping.shifted_text(entry.numbers, entry.data, entry.base,
                                        shaping.values(entry.numbers, market, base))
        except NotModelled as exc:
            kept[ident] = str(exc)
            continue
        except RuntimeError as exc:  # QuantLib: the shifted curve does not bootstrap
            kept[ident] = f"the curve does not bootstrap under the scenario (QuantLib: {str(exc).strip()[:160]})"
            continue
        if text is not None:
            moved[ident] = ScenarioAnswer(endpoint=ident[0], params=ident[1], answer=text)
    for ident, why in kept.items():
        moved[ident] = ScenarioAnswer(endpoint=ident[0], params=ident[1], not_shifted=why)
    record = ScenarioRecord(
        spec=scenario.text, buckets=scenario.buckets, method=METHOD,
        market=prepared.pack.seal.digest if prepared.pack.seal is not None else None,
        calibration=tuple(prepared.calibration_requests),
        answers=tuple(moved[k] for k in sorted(moved)))
    answers = {_ident(a): a for a in prepared.pack.answers}
    for answer in prepared.fetched:
        answers.setdefault(_ident(answer), answer)
    return Pack(kind=SCENARIO_KIND, base_url=prepared.pack.base_url, created=utc_text(datetime.now(UTC).timestamp()),
                valuation_time=prepared.pack.valuation_time, answers=tuple(answers[k] for k in sorted(answers)),
                scenario=record)


__all__ = ["METHOD", "Prepared", "ScenarioError", "apply", "calibration_client", "canonical", "check_names",
           "prepare", "replaying_client"]
