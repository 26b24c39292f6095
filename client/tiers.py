"""The cache and limiter tiers behind `RatesClient`, and how they are chosen from the settings.

    memory (this process)  ->  disk (answers that never change)  ->  team (Redis, opt-in)

`TieredCache` is an `AnswerCache`: a read tries memory first and returns at once on a hit,
so a warm cell never touches the disk or the network; a lower-tier hit is copied up. A write
goes to memory, to disk when the request is immutable (`is_immutable`), and to the team.

Every entry outside this process is scoped by `key_fingerprint`: a one-way hash of the
service URL and the API key. A trial key never reads what a paid key fetched, two teams on
one Redis never mix, and the key itself is never written anywhere.

What travels between processes is JSON (`encode_entry` / `decode_entry`), never pickles: a
store written by another version, or damaged, decodes to a miss, not to a wrong answer.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from rates_xl.client import errors
from rates_xl.client.cache import AnswerCache, Entry, MemoryCache
from rates_xl.client.endpoints import ENDPOINTS, RequestKey, cache_class_of
from rates_xl.client.limiter import Limiter, TokenBucket
from rates_xl.client.stats import TierStats

if TYPE_CHECKING:
    from rates_xl.client.json_types import JSON
    from rates_xl.client.persistent import DiskTier
    from rates_xl.client.settings import Settings
    from rates_xl.client.team import TeamCache, TeamLink

log = logging.getLogger("rates_xl.client")

#: Bumped when the stored form changes: older entries are then simply not found.
FORMAT = "v1"
_TIMESTAMP_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
_SHARED_ERRORS = {cls.__name__: cls for cls in (errors.BadRequest, errors.NotFound, errors.Unprocessable)}


def key_fingerprint(base_url: str, api_key: str | None) -> str:
    """A one-way fingerprint of (service, key): equal for the same pair, and the key cannot
    be recovered from it. API keys are long random strings, so SHA-256 is enough."""
    material = f"rates-xl key fingerprint {FORMAT}\n{base_url.rstrip('/')}\n{api_key or ''}"
    return hashlib.sha256(material.encode()).hexdigest()[:32]


def request_text(key: RequestKey) -> str:
    """A RequestKey as one stable line, e.g. `fixing?index=SOFR&valuation_date=2026-03-10`."""
    return key.endpoint + "?" + "&".join(f"{name}={value}" for name, value in key.params)


def is_immutable(key: RequestKey, now: datetime | None = None) -> bool:
    """Whether the answer to this request can never change: history that ends before today,
    a fixing of a past date, or anything valued as of a past time. Live data never is."""
    now = now or datetime.now(UTC)
    params = dict(key.params)
    valuation = params.get("valuation_time")
    if valuation is not None:
        return bool(_TIMESTAMP_RE.match(valuation)) and valuation < now.strftime("%Y-%m-%dT%H:%M:%SZ")
    today = now.date().isoformat()
    if key.endpoint == "historical_swap_rates":
        return params.get("end_date", today) < today
    if key.endpoint == "fixing":
        return params.get("valuation_date", today) < today
    return False


def local_ttl(settings: Settings, key: RequestKey, now: datetime | None = None) -> float:
    """How long this process keeps the answer to `key`, from its own settings: anything
    pinned to a past valuation time never changes (`ttl_history`), the rest by data class."""
    now = now or datetime.now(UTC)
    params = dict(key.params)
    valuation = params.get("valuation_time")
    if valuation and valuation < now.strftime("%Y-%m-%dT%H:%M:%SZ"):
        return settings.ttl_history
    return settings.ttl_for(cache_class_of(ENDPOINTS[key.endpoint], params, now.date()).value)


def encode_entry(key: RequestKey, entry: Entry) -> str | None:
    """The JSON form of an entry, or None for what is not shared (an unexpected error type)."""
    record: JSON = {"k": request_text(key), "t": entry.fetched_at, "ttl": entry.ttl}
    if entry.error is None:
        if entry.value is None:  # neither an answer nor a refusal: nothing to share
            return None
        record["v"] = entry.value.model_dump(mode="json", by_alias=True)
        if entry.raw is not None:
            record["r"] = entry.raw  # the text as sent, for a market-data pack read from here
    else:
        error = entry.error
        if type(error).__name__ not in _SHARED_ERRORS:
            return None
        record["e"] = {"type": type(error).__name__, "message": str(error),
                       "endpoint": getattr(error, "endpoint", None)}
    return json.dumps(record, separators=(",", ":"))


def decode_entry(key: RequestKey, text: str | bytes) -> Entry | None:
    """The entry stored for `key`, or None when the text is not a valid entry for exactly it."""
    try:
        record = json.loads(text)
        if record["k"] != request_text(key):
            return None
        if "e" in record:
            cls = _SHARED_ERRORS[record["e"]["type"]]
            error = cls(record["e"]["message"], endpoint=record["e"].get("endpoint"))
            return Entry(None, float(record["t"]), float(record["ttl"]), error=error)
        value = ENDPOINTS[key.endpoint].model.model_validate(record["v"])
        raw = record.get("r")
        return Entry(value, float(record["t"]), float(record["ttl"]), raw=raw if isinstance(raw, str) else None)
    except Exception as exc:  # damaged, foreign or outdated: a miss, never a wrong answer
        log.debug("ignoring an undecodable cache entry: %s", type(exc).__name__)
        return None


class TieredCache:
    """Memory first, then disk (immutable answers), then the team; see the module docstring."""

    def __init__(self, memory: MemoryCache, *, disk: DiskTier | None = None, team: TeamCache | None = None,
                 durable: Callable[[RequestKey], bool] = is_immutable) -> None:
        self.memory, self.disk, self.team = memory, disk, team
        self._durable = durable
        self.persistent_hits = 0
        self.team_hits = 0

    def get(self, key: RequestKey, *, fresh_since: float | None = None) -> Entry | None:
        entry = self.memory.get(key, fresh_since=fresh_since)
        if entry is not None:
            return entry  # the hot path: nothing below memory is touched
        if self.disk is not None and self._durable(key):
            entry = self.disk.get(key, fresh_since=fresh_since)
            if entry is not None:
                self.persistent_hits += 1
                self.memory.put(key, entry)
                return entry
        if self.team is not None:
            entry = self.team.get(key, fresh_since=fresh_since)
            if entry is not None:
                self.team_hits += 1
                self._from_team(key, entry)
                return entry
        return None

    def _from_team(self, key: RequestKey, entry: Entry) -> None:
        """Copy a teammate's answer down here; an immutable one to disk as well, so that it
        survives our restart even if Redis does not."""
        self.memory.put(key, _remaining(entry))
        if self.disk is not None and entry.error is None and self._durable(key):
            self.disk.put(key, entry)

    def put(self, key: RequestKey, entry: Entry) -> None:
        self.memory.put(key, entry)
        if self.disk is not None and entry.error is None and self._durable(key):
            self.disk.put(key, entry)
        if self.team is not None:
            self.team.put(key, entry)

    def claim(self, key: RequestKey, *, fresh_since: float | None, deadline: float):
        """Across processes: None to fetch it ourselves, or a teammate's fresh entry
        (see `TeamCache.claim`). Without a team, always None."""
        if self.team is None:
            from contextlib import nullcontext

            return nullcontext(None)
        return self.team.claim(key, fresh_since=fresh_since, deadline=deadline,
                               on_entry=lambda entry: self._from_team(key, entry))

    def expire(self, *, before: float | None = None, keys: Iterable[RequestKey] | None = None) -> int:
        keys = None if keys is None else list(keys)
        dropped = self.memory.expire(before=before, keys=keys)
        for tier in (self.disk, self.team):
            if tier is not None:
                tier.expire(before=before, keys=keys)
        return dropped

    def clear(self) -> None:
        """Empty this machine's tiers (memory and disk); the team's answers keep their TTLs."""
        self.memory.clear()
        if self.disk is not None:
            self.disk.clear()

    def __len__(self) -> int:
        return len(self.memory)

    def stats(self) -> TierStats:
        return {
            "persistent_hits": self.persistent_hits,
            "team_hits": self.team_hits,
            "team_waits": self.team.coalesced if self.team is not None else 0,
            "team_refused": self.team.rejected if self.team is not None else 0,
            "persistent": self.disk.describe() if self.disk is not None else "off",
            "team": self.team.link.describe() if self.team is not None else "off",
            "team_outages": self.team.link.outages if self.team is not None else 0,
        }

    def close(self) -> None:
        if self.disk is not None:
            self.disk.close()


def _remaining(entry: Entry) -> Entry:
    """The entry with the TTL it has left, so a copy lives no longer than the original."""
    left = entry.ttl - max(0.0, time.time() - entry.fetched_at)
    return Entry(entry.value, entry.fetched_at, max(left, 0.0), entry.error, entry.raw)


def build_tiers(settings: Settings, scope: str, *, cache: AnswerCache | None = None,
                limiter: Limiter | None = None) -> tuple[AnswerCache, Limiter, TeamLink | None]:
    """The cache and limiter the settings ask for (given ones are used as they are), and the
    team link when `team_url` is set."""
    link = None
    if settings.team_url is not None and (cache is None or limiter is None):
        from rates_xl.client.team import TeamLink

        link = TeamLink(settings.team_url.get_secret_value(), scope,
                        timeout=settings.team_timeout, retry_every=settings.team_retry,
                        # Room for 8 fetch_many at once (a team server's batch pool, limits.py).
                        pool_size=settings.max_workers * 8 + 2)
    if cache is None:
        disk = None
        if settings.persistent:
            from rates_xl.client.persistent import DiskTier

            disk = DiskTier(settings.persistent_dir(), scope,
                            size_mb=settings.disk_cache_mb, ttl=settings.ttl_history)
        team = None
        if link is not None:
            from rates_xl.client.team import TeamCache

            api_key = settings.api_key.get_secret_value() if settings.api_key else None
            team = TeamCache(link, lease=settings.deadline + 5, api_key=api_key,
                             ttl_of=lambda key: local_ttl(settings, key))
        cache = TieredCache(MemoryCache(settings.cache_size), disk=disk, team=team)
    if limiter is None:
        local = TokenBucket(settings.rate_limit, settings.burst)
        if link is not None:
            from rates_xl.client.team import TeamLimiter

            limiter = TeamLimiter(link, local, settings.burst)
        else:
            limiter = local
    return cache, limiter, link


def stored_tiers() -> tuple[Settings, DiskTier, TeamCache | None]:
    """(the settings, the disk tier, the team cache or None) as the settings configure them
    outside any client: what `rates-xl cache` and `doctor` report and clear."""
    from rates_xl.client.persistent import DiskTier
    from rates_xl.client.settings import load_settings

    settings = load_settings()
    key = settings.api_key.get_secret_value() if settings.api_key else None
    scope = key_fingerprint(settings.base_url, key)
    disk = DiskTier(settings.persistent_dir(), scope, size_mb=settings.disk_cache_mb,
                    ttl=settings.ttl_history)
    team = None
    if settings.team_url is not None:
        from rates_xl.client.team import TeamCache, TeamLink

        link = TeamLink(settings.team_url.get_secret_value(), scope,
                        timeout=max(settings.team_timeout, 1.0), retry_every=settings.team_retry)
        team = TeamCache(link, lease=settings.deadline)
    return settings, disk, team
