"""The market-data pack: what a book used, so it can be traced and replayed offline.

A pack holds, for each distinct request a calculation made: the request (endpoint and
normalised parameters, exactly as the caches key it: `tiers.request_text`), the service's
answer exactly as it was sent (the JSON text), the valuation time it was valued at, when it
was fetched (UTC) and the service's base URL. It never holds the API key, nor anything
derived from it (not even the caches' key fingerprint): a pack is meant to travel.

Record one with `client.recording()`; the client calls `PackRecorder.record` wherever an
answer arrives (the wire, a cache tier, a teammate), so an answer served from a cache is
recorded with its original fetch time. Replay one with `RatesClient(replay=pack)`.

The file form (`dumps` / `loads`) is versioned, compact JSON in a deterministic order: the
same answers always give the same bytes. A pack of another version is refused with one line.
"""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, ValidationError

from rates_xl.client import errors
from rates_xl.client.endpoints import ENDPOINTS
from rates_xl.client.transport import Answer

KIND = "rates-xl market-data pack"
VERSION = 1
#: Final refusals a pack can hold (replay raises the same error); anything else is not recorded.
_ERRORS = {cls.__name__: cls for cls in (errors.BadRequest, errors.NotFound, errors.Unprocessable)}


class PackError(ValueError):
    """A pack that cannot be read: the message is one line, for a terminal or a cell."""


class PackAnswer(BaseModel):
    """One request and what the service answered."""

    model_config = ConfigDict(extra="forbid", frozen=True)

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

    @property
    def request(self) -> str:
        return self.endpoint + "?" + "&".join(f"{k}={v}" for k, v in self.params)


class Pack(BaseModel):
    """A whole pack; `answers` sorted by request, one per distinct request."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["rates-xl market-data pack"] = KIND
    version: int = VERSION
    base_url: str
    created: str
    #: the moment the run was pinned at (RATES_VALUATION_TIME or --valuation-time), ISO 8601
    #: UTC; None: unpinned. A replay values at it again, so `--replay` alone reproduces a run.
    valuation_time: str | None = None
    answers: tuple[PackAnswer, ...] = ()

    def index(self) -> dict[tuple[str, tuple[tuple[str, str], ...]], PackAnswer]:
        return {(a.endpoint, a.params): a for a in self.answers}

    def spread(self) -> str | None:
        """When its answers were valued, in one phrase (`valuation_spread`)."""
        return valuation_spread(a.valuation_time for a in self.answers)

    def dumps(self) -> str:
        """Compact JSON, keys sorted: the same pack always gives the same text."""
        data = self.model_dump(mode="json")
        if data["valuation_time"] is None:  # an unpinned pack reads in a rates-xl that predates the field
            del data["valuation_time"]
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def write(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(self.dumps(), encoding="utf-8")
        return path


def loads(text: str | bytes) -> Pack:
    """A pack from its JSON text; `PackError` (one line) for anything that is not a valid pack."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise PackError(f"not a market-data pack: not JSON ({exc.msg})") from None
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise PackError("not a market-data pack: no 'kind' of rates-xl market-data pack")
    if data.get("version") != VERSION:
        raise PackError(f"market-data pack version {data.get('version')!r} is not supported "
                        f"(this rates-xl reads version {VERSION}): upgrade rates-xl")
    try:
        pack = Pack.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise PackError(f"damaged market-data pack: {where}: {first['msg']}") from None
    for answer in pack.answers:
        if answer.endpoint not in ENDPOINTS:
            raise PackError(f"damaged market-data pack: unknown endpoint {answer.endpoint!r}")
        if (answer.answer is None) == (answer.error is None):
            raise PackError(f"damaged market-data pack: {answer.request} needs an answer or an error")
    return pack


def read(path: str | Path) -> Pack:
    try:
        return loads(Path(path).read_bytes())
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


def valuation_spread(moments: Any) -> str | None:
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

    def __init__(self, base_url: str, *, source: Pack | None = None) -> None:
        self.base_url = public_url(source.base_url if source is not None else base_url)
        self._lock = threading.Lock()
        self._answers: dict[tuple[str, tuple[tuple[str, str], ...]], PackAnswer] = {}
        # Replaying: what is used is recorded as the pack had it (fetch times included), not
        # as if it had been fetched now.
        self._source = source.index() if source is not None else None

    def record(self, key: Any, value: Any, fetched_at: float, *, raw: str | None = None,
               error: BaseException | None = None) -> None:
        """Called by the client with a RequestKey, the parsed answer (or a final error), the
        time it was fetched and the answer's text as sent, when known."""
        ident = (key.endpoint, tuple(key.params))
        if ident in self._answers:  # cheap early exit: the hot path of a warm recalculation
            return
        if self._source is not None:
            if ident in self._source:
                with self._lock:
                    self._answers.setdefault(ident, self._source[ident])
            return
        if error is not None:
            if type(error).__name__ not in _ERRORS:
                return  # transient failures are not market data
            entry = PackAnswer(endpoint=key.endpoint, params=ident[1], fetched_at=utc_text(fetched_at),
                               error={"type": type(error).__name__, "message": str(error)})
        else:
            verbatim = raw is not None
            if raw is None:
                raw = value.model_dump_json(by_alias=True)
            entry = PackAnswer(endpoint=key.endpoint, params=ident[1], answer=raw, verbatim=verbatim,
                               valuation_time=valued_at(key, value), fetched_at=utc_text(fetched_at))
        with self._lock:
            self._answers.setdefault(ident, entry)

    def __len__(self) -> int:
        return len(self._answers)

    def pack(self, pinned: datetime | None = None) -> Pack:
        """The pack of what was recorded; `pinned`: the moment the run valued at, if pinned."""
        with self._lock:
            answers = sorted(self._answers.values(), key=lambda a: (a.endpoint, a.params))
        moment = pinned.astimezone(UTC).isoformat().replace("+00:00", "Z") if pinned is not None else None
        return Pack(base_url=self.base_url, created=utc_text(datetime.now(UTC).timestamp()),
                    valuation_time=moment, answers=tuple(answers))


def valued_at(key: Any, value: Any) -> str | None:
    """The moment an answer is valued at: the request's valuation_time, else the answer's."""
    asked = dict(key.params).get("valuation_time")
    if asked:
        return asked
    valued = getattr(value, "valuation_time", None)
    if isinstance(valued, datetime):
        return valued.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return None


class NotInPack(errors.RatesError):
    """Replay was asked a request its pack does not hold: never sent to the service."""

    retryable = False


class PackTransport:
    """Stands in for `Transport` when replaying: answers only from the pack, never the network."""

    trust_store = "none (replay)"

    def __init__(self, pack: Pack) -> None:
        self.pack = pack
        self.base_url = pack.base_url
        self._index = pack.index()
        self.served = 0

    def fetch(self, endpoint: str, path: str, params: dict[str, str], timeout: float, **_: Any):
        found = self._index.get((endpoint, tuple(sorted(params.items()))))
        if found is None:
            order = list(ENDPOINTS[endpoint].params)  # the function's own argument order
            shown = " ".join(v for _, v in sorted(params.items(), key=lambda kv: order.index(kv[0])))
            raise NotInPack(
                f"not in the market-data pack: {endpoint} {shown} (recorded {self.pack.created[:19]}Z): "
                "replay cannot ask the service", endpoint=endpoint)
        self.served += 1
        if found.error is not None:
            raise _ERRORS[found.error["type"]](found.error["message"], endpoint=endpoint)
        return Answer(json.loads(found.answer), found.answer)

    def recorded_at(self, key: Any) -> float | None:
        """When the pack's answer to `key` was fetched (time.time() seconds), if it holds one."""
        found = self._index.get((key.endpoint, tuple(key.params)))
        if found is None:
            return None
        return datetime.fromisoformat(found.fetched_at.replace("Z", "+00:00")).timestamp()

    def close(self) -> None:
        pass


__all__ = ["Pack", "PackAnswer", "PackError", "PackRecorder", "PackTransport", "NotInPack",
           "loads", "read", "public_url", "valuation_spread", "KIND", "VERSION"]
