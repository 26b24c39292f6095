"""The market-data pack: what a book used, so it can be traced and replayed offline.

A pack holds, for each distinct request a calculation made: the request (endpoint and
normalised parameters, exactly as the caches key it: `tiers.request_text`), the service's
answer exactly as it was sent (the JSON text), the valuation time it was valued at, when it
was fetched (UTC) and the service's base URL. It never holds the API key, nor anything
derived from it (not even the caches' key fingerprint): a pack is meant to travel.

Record one with `client.recording()`; the client calls `PackRecorder.record` wherever an
answer arrives (the wire, a cache tier, a teammate), so an answer served from a cache is
recorded with its original fetch time. Replay one with `RatesClient(replay=pack)`, which
answers from it through pack_replay.py's `PackTransport`.

The file form (`dumps` / `loads`) is versioned, compact JSON in a deterministic order: the
same answers always give the same bytes. A pack of another version is refused with one line,
and so is anything two readers could read differently (a key given twice, an answer given
twice, a value of the wrong type, text that is not Unicode): a pack is read one way or not at
all. Each answer and the pack are sealed (pack_seal.py): a digest, and a signature where the
recorder has a key, so an edit is named on replay.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NoReturn, TypeAlias
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, ValidationError

from rates_xl.client import errors, pack_seal
from rates_xl.client.endpoints import ENDPOINTS
from rates_xl.errors import InputError

if TYPE_CHECKING:
    from rates_xl.client.endpoints import RequestKey
    from rates_xl.client.json_types import JSONScalar, JSONValue
    from rates_xl.client.models import Result

#: A pack's JSON with its arrays as tuples (`_tuples`), for the models' strict types.
FrozenJSON: TypeAlias = "JSONScalar | tuple[FrozenJSON, ...] | dict[str, FrozenJSON]"

Kind = Literal["rates-xl market-data pack", "rates-xl scenario pack"]
KIND: Kind = "rates-xl market-data pack"
#: The kind of a pack whose answers are under a scenario (rates_xl.scenario): never market data.
SCENARIO_KIND: Kind = "rates-xl scenario pack"
#: 2: answers and the pack sealed (digest, signature). Version 1 packs still read (unverified).
VERSION = 2
READS = (1, 2)
#: A pack larger than this is refused before it is read (a 500-request pack is about 0.5 MB).
MAX_PACK_BYTES = 64 << 20
#: Final refusals a pack can hold (replay raises the same error); anything else is not recorded.
RECORDED_ERRORS = {cls.__name__: cls for cls in (errors.BadRequest, errors.NotFound, errors.Unprocessable)}


class PackError(InputError):
    """A pack that cannot be read: the message is one line, for a terminal or a cell."""


class PackAnswer(BaseModel):
    """One request and what the service answered."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    endpoint: str
    params: tuple[tuple[str, str], ...]
    #: the answer's JSON text exactly as the service sent it (None for a refusal)
    answer: str | None = None
    #: a final refusal instead of an answer: {"type": "NotFound", "message": "..."}
    error: dict[str, str] | None = None
    #: the moment the answer was valued at: the request's valuation_time, else the answer's
    valuation_time: str | None = None
    #: when the answer arrived from the service (UTC, ISO 8601), even if later read from a cache
    fetched_at: str
    #: False when the answer came from a cache entry older than verbatim recording: it is the
    #: parsed answer written again (the same values, not necessarily the same bytes)
    verbatim: bool = True
    #: "sha256:<hex>" over everything above (pack_seal.answer_bytes); None: a version 1 pack's
    digest: str | None = None
    #: "hmac-sha256:<key id>:<hex>" over the same, when the recorder had a key to sign with
    mac: str | None = None

    @property
    def request(self) -> str:
        return self.endpoint + "?" + "&".join(f"{k}={v}" for k, v in self.params)


class ScenarioAnswer(BaseModel):
    """One recorded answer under the scenario: moved (its text under the scenario), or kept
    with the reason it is not shifted."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    endpoint: str
    params: tuple[tuple[str, str], ...]
    #: the answer's JSON under the scenario: the recorded numbers moved by the local model
    answer: str | None = None
    #: why the recorded answer keeps its value (FX spot, a fixing, an index the model lacks)
    not_shifted: str | None = None

    @property
    def request(self) -> str:
        return self.endpoint + "?" + "&".join(f"{k}={v}" for k, v in self.params)


class ScenarioRecord(BaseModel):
    """What makes a pack a scenario pack (rates_xl.scenario.apply): the spec, how its answers
    were moved, and each moved or unmovable answer. The pack's `answers` stay the market's, as
    recorded (their own digests and MACs); the seal covers this record with the rest."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    spec: str
    buckets: tuple[str, ...]
    method: str
    #: the seal digest of the market pack the scenario was computed from (None: it had none)
    market: str | None = None
    #: the requests the local curves were built from (answers in this pack)
    calibration: tuple[str, ...] = ()
    answers: tuple[ScenarioAnswer, ...] = ()

    def index(self) -> dict[tuple[str, tuple[tuple[str, str], ...]], ScenarioAnswer]:
        return {(a.endpoint, a.params): a for a in self.answers}

    @property
    def described(self) -> str:
        grid = f" (key-rate buckets {' '.join(self.buckets)})" if ":" in self.spec else ""
        return self.spec + grid


class Seal(BaseModel):
    """The pack's own digest and signature, over everything in it but this (pack_seal.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    digest: str
    signature: str | None = None


class Pack(BaseModel):
    """A whole pack; `answers` sorted by request, one per distinct request."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    kind: Kind = KIND
    version: int = VERSION
    base_url: str
    created: str
    #: the moment the run was pinned at (RATES_VALUATION_TIME or --valuation-time), ISO 8601
    #: UTC; None: unpinned. A replay values at it again, so `--replay` alone reproduces a run.
    valuation_time: str | None = None
    answers: tuple[PackAnswer, ...] = ()
    #: the digest of the values-frozen copy's cells written with it (calc's copies; None
    #: for a pack recorded in Excel, whose cells live on): a pack moved to another copy shows
    values: str | None = None
    #: a scenario pack's record (kind "rates-xl scenario pack"): what its answers are under
    scenario: ScenarioRecord | None = None
    seal: Seal | None = None

    def index(self) -> dict[tuple[str, tuple[tuple[str, str], ...]], PackAnswer]:
        return {(a.endpoint, a.params): a for a in self.answers}

    def spread(self) -> str | None:
        """When its answers were valued, in one phrase (`valuation_spread`)."""
        return valuation_spread(a.valuation_time for a in self.answers)

    def dumps(self) -> str:
        """Compact JSON, keys sorted: the same pack always gives the same text. Fields that
        are empty are left out (an unpinned pack, an unsealed answer)."""
        data = self.model_dump(mode="json", exclude_none=True)
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def write(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(self.dumps(), encoding="utf-8")
        return path


def loads(text: str | bytes) -> Pack:
    """A pack from its JSON text; `PackError` (one line) for anything that is not a valid pack."""
    if len(text) > MAX_PACK_BYTES:
        raise PackError(f"market-data pack larger than {MAX_PACK_BYTES >> 20} MB: refused")
    try:
        data = json.loads(text, object_pairs_hook=_once_each, parse_constant=_no_constant)
    except RecursionError:
        raise PackError("damaged market-data pack: nested too deeply") from None
    except PackError:
        raise
    except ValueError as exc:
        raise PackError(f"not a market-data pack: not JSON ({getattr(exc, 'msg', None) or exc})") from None
    if not isinstance(data, dict) or data.get("kind") not in (KIND, SCENARIO_KIND):
        raise PackError("not a market-data pack: no 'kind' of rates-xl market-data pack")
    version = data.get("version")
    if type(version) is not int or version not in READS:
        raise PackError(f"market-data pack version {version!r} is not supported "
                        f"(this rates-xl reads versions {', '.join(map(str, READS))}): upgrade rates-xl")
    try:
        pack = Pack.model_validate(_tuples(data))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise PackError(f"damaged market-data pack: {where}: {first['msg']}") from None
    seen: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
    for answer in pack.answers:
        _check_answer(answer)
        if (answer.endpoint, answer.params) in seen:
            raise PackError(f"damaged market-data pack: {answer.request} is given twice (which one would replay use?)")
        seen.add((answer.endpoint, answer.params))
    _check_scenario(pack, seen)
    if pack.valuation_time is not None and _moment(pack.valuation_time) is None:
        raise PackError(f"damaged market-data pack: valuation_time {pack.valuation_time[:40]!r} is not a moment")
    if version == 1 and (pack.seal is not None or pack.values is not None
                         or any(a.digest or a.mac for a in pack.answers)):
        raise PackError("damaged market-data pack: a version 1 pack carries no seal")
    return pack


def _check_scenario(pack: Pack, requests: set[tuple[str, tuple[tuple[str, str], ...]]]) -> None:
    """A scenario pack says so in its kind and carries its record, and the record speaks only
    of answers the pack holds, once each, each moved or kept with a reason."""
    if (pack.kind == SCENARIO_KIND) != (pack.scenario is not None):
        raise PackError("damaged market-data pack: a scenario pack has the kind 'rates-xl scenario pack' and "
                        "its scenario record, both or neither")
    if pack.scenario is None:
        return
    if pack.version < 2:
        raise PackError("damaged market-data pack: a version 1 pack carries no scenario")
    seen: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
    for entry in pack.scenario.answers:
        where = f"damaged scenario pack: {entry.request[:200]}"
        ident = (entry.endpoint, entry.params)
        if ident not in requests or ident in seen:
            raise PackError(f"{where}: not an answer of the pack, or given twice")
        seen.add(ident)
        if (entry.answer is None) == (entry.not_shifted is None):
            raise PackError(f"{where} needs an answer under the scenario or why it is not shifted")
        if entry.answer is not None:
            try:
                parsed = json.loads(entry.answer, parse_constant=_no_constant)
            except (ValueError, RecursionError):
                raise PackError(f"{where}: its answer under the scenario is not JSON") from None
            if not isinstance(parsed, dict):
                raise PackError(f"{where}: its answer under the scenario is not a JSON object")


def _once_each(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A JSON object whose keys are all different (readers disagree on which of two wins)."""
    found: dict[str, object] = {}
    for key, value in pairs:
        if key in found:
            raise PackError(f"damaged market-data pack: the key {key[:40]!r} is given twice in one object")
        found[key] = value
    return found


def _no_constant(name: str) -> NoReturn:
    raise PackError(f"damaged market-data pack: {name} is not JSON")


def _tuples(data: JSONValue) -> FrozenJSON:
    """JSON arrays as tuples and text checked to be Unicode, for the models' strict types."""
    if isinstance(data, list):
        return tuple(_tuples(item) for item in data)
    if isinstance(data, dict):
        return {key: _tuples(value) for key, value in data.items()}
    if isinstance(data, str):
        try:
            data.encode("utf-8")
        except UnicodeEncodeError:
            raise PackError("damaged market-data pack: text that is not Unicode (a lone surrogate)") from None
    return data


def _moment(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def _check_answer(answer: PackAnswer) -> None:
    """One entry a replay can use: a known endpoint, its parameters sorted and its own, an
    answer that is a JSON object or a refusal replay knows."""
    where = f"damaged market-data pack: {answer.request[:200]}"
    endpoint = ENDPOINTS.get(answer.endpoint)
    if endpoint is None:
        raise PackError(f"damaged market-data pack: unknown endpoint {answer.endpoint[:60]!r}")
    names = [name for name, _ in answer.params]
    if names != sorted(set(names)) or not set(names) <= set(endpoint.params):
        raise PackError(f"{where}: its parameters are not {answer.endpoint}'s, once each, sorted")
    for moment in (answer.fetched_at, answer.valuation_time):
        if moment is not None and _moment(moment) is None:
            raise PackError(f"{where}: {moment[:40]!r} is not a moment (ISO 8601)")
    if (answer.answer is None) == (answer.error is None):
        raise PackError(f"{where} needs an answer or an error")
    if answer.error is not None and (set(answer.error) != {"type", "message"} or answer.error["type"] not in RECORDED_ERRORS):
        raise PackError(f"{where}: its error is not one replay can give")
    if answer.answer is not None:
        try:
            parsed = json.loads(answer.answer)
        except (ValueError, RecursionError):
            raise PackError(f"{where}: its answer is not JSON") from None
        if not isinstance(parsed, dict):
            raise PackError(f"{where}: its answer is not a JSON object")


def read(path: str | Path) -> Pack:
    try:
        with open(path, "rb") as handle:
            text = handle.read(MAX_PACK_BYTES + 1)  # never more than the cap in memory
        return loads(text)
    except OSError as exc:
        raise PackError(f"cannot read the market-data pack {path}: {exc.strerror or exc}") from None


def public_url(base_url: str) -> str:
    """The base URL without anything secret a user may have put in it (user:password@, a query)."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def valuation_spread(moments: Iterable[str | None]) -> str | None:
    """'every answer valued at 2026-01-02 16:00:00 UTC', or, where a key cannot pin the moment
    (a trial key values as of now), 'answers valued between 10:02:11 and 10:02:19 UTC'
    (with the dates when they differ); None when no answer says when it was valued."""
    parsed = set()
    for text in moments:
        if not text:
            continue
        try:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            continue
        parsed.add((moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC))
    if not parsed:
        return None
    first, last = min(parsed), max(parsed)
    if first == last:
        return f"every answer valued at {first:%Y-%m-%d %H:%M:%S} UTC"
    shape = "%H:%M:%S" if first.date() == last.date() else "%Y-%m-%d %H:%M:%S"
    day = f" on {first:%Y-%m-%d}" if first.date() == last.date() else ""
    return f"answers valued between {first.strftime(shape)} and {last.strftime(shape)} UTC{day}"


def utc_text(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class PackRecorder:
    """Collects answers as the client hands them over (from any thread); `pack()` at the end.

    One answer per distinct request: the first one seen wins, which within one calculation
    is the answer every cell of that request used.
    """

    def __init__(self, base_url: str, *, source: Pack | None = None,
                 signer: pack_seal.Signer | None = None) -> None:
        self.base_url = public_url(source.base_url if source is not None else base_url)
        #: pack_seal.Signer of the client's key: each answer and the pack are signed with it
        self.signer = signer
        self._lock = threading.Lock()
        self._answers: dict[tuple[str, tuple[tuple[str, str], ...]], PackAnswer] = {}
        # Replaying: what is used is recorded as the pack had it (fetch times included), not
        # as if it had been fetched now.
        self._source = source.index() if source is not None else None
        #: a scenario pack replayed: its record (and calibration) goes into every pack made here
        self._scenario = source.scenario if source is not None else None

    def record(self, key: RequestKey, value: Result | None, fetched_at: float, *, raw: str | None = None,
               error: BaseException | None = None) -> None:
        """Called by the client with a RequestKey, the parsed answer (or a final error), the
        time it was fetched and the answer's text as sent, when known. Replaying, the pack's
        entry is kept as it is, its digest and MAC with it (an edited one stays edited)."""
        ident = (key.endpoint, tuple(key.params))
        if ident in self._answers:  # cheap early exit: the hot path of a warm recalculation
            return
        if self._source is not None:
            if ident in self._source:
                with self._lock:
                    self._answers.setdefault(ident, self._source[ident])
            return
        if error is not None:
            if type(error).__name__ not in RECORDED_ERRORS:
                return  # transient failures are not market data
            entry = PackAnswer(endpoint=key.endpoint, params=ident[1], fetched_at=utc_text(fetched_at),
                               error={"type": type(error).__name__, "message": str(error)})
        else:
            verbatim = raw is not None
            if raw is None:
                if value is None:
                    return  # neither an answer nor a refusal: nothing to record
                raw = value.model_dump_json(by_alias=True)
            entry = PackAnswer(endpoint=key.endpoint, params=ident[1], answer=raw, verbatim=verbatim,
                               valuation_time=valued_at(key, value), fetched_at=utc_text(fetched_at))
        entry = pack_seal.seal_answer(entry, self.signer)
        with self._lock:
            self._answers.setdefault(ident, entry)

    def __len__(self) -> int:
        return len(self._answers)

    def pack(self, pinned: datetime | None = None) -> Pack:
        """The sealed pack of what was recorded; `pinned`: the moment the run valued at, if pinned."""
        with self._lock:
            answers = dict(self._answers)
        moment = pinned.astimezone(UTC).isoformat().replace("+00:00", "Z") if pinned is not None else None
        scenario, kind = None, KIND  # (kind: Kind)
        if self._scenario is not None and self._source is not None:
            # A scenario replayed stays one: its record, for the answers used, and the answers
            # its curves were built from.
            kind = SCENARIO_KIND
            by_text = {a.request: ident for ident, a in self._source.items()}
            for request in self._scenario.calibration:
                ident = by_text.get(request)
                if ident is not None:
                    answers.setdefault(ident, self._source[ident])
            scenario = self._scenario.model_copy(update={"answers": tuple(
                a for a in self._scenario.answers if (a.endpoint, a.params) in answers)})
        ordered = tuple(sorted(answers.values(), key=lambda a: (a.endpoint, a.params)))
        return pack_seal.seal(Pack(kind=kind, base_url=self.base_url, created=utc_text(datetime.now(UTC).timestamp()),
                                   valuation_time=moment, answers=ordered, scenario=scenario), self.signer)


def valued_at(key: RequestKey, value: object) -> str | None:
    """The moment an answer is valued at: the request's valuation_time, else the answer's."""
    asked = dict(key.params).get("valuation_time")
    if asked:
        return asked
    valued = getattr(value, "valuation_time", None)
    if isinstance(valued, datetime):
        return valued.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return None


__all__ = ["Pack", "PackAnswer", "PackError", "Seal", "ScenarioAnswer", "ScenarioRecord", "SCENARIO_KIND", "PackRecorder",
           "loads", "read", "public_url", "valuation_spread", "KIND", "VERSION"]
