"""The fair share and the per-user counters of a team server, shared by every worker process
and host through the team's Redis (the client's `TeamLink`, `RATES_TEAM_URL`).

Per process (fairness.py) a user filling 5,000 cells through a load balancer holds one
batch on *each* worker, each fetching on 16 threads: with two workers another user's 10
cells queued behind 32 of her reservations in the shared limiter, and `/api/me` told each
user only what the worker that answered had seen. Here both are one for the team:

- `SharedFairShare.turn(user)`: a user's batches form one FIFO queue in Redis (a sorted set
  by arrival, Redis' clock); the first `running` of them run, whichever worker holds them,
  the others wait (polling), at most `waiting` of them, then 503. Every entry carries a
  lease, renewed while its batch runs or waits, so a worker that dies frees its places
  within `LEASE_SECONDS`.
- `SharedUsage`: each user's batches, cells, requests sent and last error, and the team's
  totals, updated by one script per batch (JSON in a key per user, which expires
  `KEEP_DAYS` after the user's last batch).

Redis down or slow: the per-process `FairShare` and `Usage` take over at once (what the
team server did before), and the shared ones are used again as soon as Redis answers. Users
appear in Redis only as a hash of their name: the access log is the record of who asked.

What Redis holds is checked before it is used, here and in the scripts, because whoever can
write to Redis could write anything there (docs/caches.md says what that still allows):
a counter that is not a whole number from 0 to 2^53, a time that is not one, an error text
over 300 characters, or an entry that is not such an object (a JSON list made `/api/me` a
500) is ignored, as if absent, and the next batch writes a good one over it; a lease running
further ahead than this server's own `LEASE_SECONDS` is cut back to it (a lease of 9e18 made
a user wait for ever) and a queue entry without a lease is dropped (workers write both at
once). Each kind of bad entry is logged once per process.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import asdict
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool

from rates_xl.addin.officejs.fairness import FairShare, Usage, UserBusy, UserUse
from rates_xl.client.team import _DOWN

# KEYS: the user's queue (token -> arrival), its leases (token -> expiry). ARGV: token,
# running, waiting, lease (us), joining (1: a new batch, refused when the queue is full).
# Returns {1 (run), 0 (wait) or -1 (the queue is full), entries repaired}. A lease further
# ahead than `lease` (this server's setting) is cut back to it, a queue entry without a
# lease is dropped (neither was written by a worker), then dead workers' entries go.
TURN_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local lease = tonumber(ARGV[4])
local repaired = 0
local latest = string.format('%.0f', now + lease)
for _, token in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. latest, '+inf')) do
  redis.call('ZADD', KEYS[2], latest, token)
  repaired = repaired + 1
end
local dead = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
for _, token in ipairs(dead) do
  redis.call('ZREM', KEYS[1], token)
  redis.call('ZREM', KEYS[2], token)
end
for _, token in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '+inf', 'LIMIT', 0, 256)) do
  if not redis.call('ZRANK', KEYS[2], token) then
    redis.call('ZREM', KEYS[1], token)
    repaired = repaired + 1
  end
end
local answer = 0
if ARGV[5] == '1' then
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) + tonumber(ARGV[3]) then return {-1, repaired} end
  redis.call('ZADD', KEYS[1], 'NX', now, ARGV[1])
elseif not redis.call('ZRANK', KEYS[1], ARGV[1]) then
  redis.call('ZADD', KEYS[1], now, ARGV[1])  -- our lease lapsed (a long stall): back in line
end
redis.call('ZADD', KEYS[2], now + lease, ARGV[1])
redis.call('PEXPIRE', KEYS[1], math.ceil(2 * lease / 1000))
redis.call('PEXPIRE', KEYS[2], math.ceil(2 * lease / 1000))
if redis.call('ZRANK', KEYS[1], ARGV[1]) < tonumber(ARGV[2]) then answer = 1 end
return {answer, repaired}
"""

LEAVE_LUA = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
"""

# KEYS: the user's counters, the team's, the team's users (hash -> last batch). ARGV: cells,
# requests sent, now (s), last error ('' for none), keep (ms), the user's hash. A stored
# entry of the wrong shape or range (what `StoredUse` refuses) is started afresh, and
# members dated in the future are dropped; returns how many such entries it found.
RECORD_LUA = """
local LIMIT = 9007199254740992
local repaired = 0
local function count(v)
  return type(v) == 'number' and v == v and v >= 0 and v <= LIMIT and v == math.floor(v)
end
local function moment(v)
  return type(v) == 'number' and v == v and v >= 0 and v <= 1e11
end
local function read(key)
  local stored = redis.call('GET', key)
  if not stored then return {} end
  local ok, use = false, nil
  if #stored <= 4096 then ok, use = pcall(cjson.decode, stored) end
  if ok and type(use) == 'table' then
    local clean = {}
    for name, v in pairs(use) do
      if v == cjson.null then
      elseif name == 'batches' or name == 'cells' or name == 'requests_sent' then
        if not count(v) then ok = false end
        clean[name] = v
      elseif name == 'last_seen' or name == 'last_error_at' then
        if not moment(v) then ok = false end
        clean[name] = v
      elseif name == 'last_error' then
        if type(v) ~= 'string' or #v > 300 then ok = false end
        clean[name] = v
      elseif type(name) ~= 'string' then
        ok = false
      end
    end
    if ok then return clean end
  end
  repaired = repaired + 1
  return {}
end
local function add(key, fields)
  local use = read(key)
  for name, amount in pairs(fields) do use[name] = math.min(LIMIT, (use[name] or 0) + amount) end
  return use
end
local counts = {batches = 1, cells = tonumber(ARGV[1]), requests_sent = tonumber(ARGV[2])}
local use = add(KEYS[1], counts)
use.last_seen = tonumber(ARGV[3])
if ARGV[4] ~= '' then use.last_error = ARGV[4]; use.last_error_at = tonumber(ARGV[3]) end
redis.call('SET', KEYS[1], cjson.encode(use), 'PX', ARGV[5])
redis.call('SET', KEYS[2], cjson.encode(add(KEYS[2], counts)), 'PX', ARGV[5])
repaired = repaired + redis.call('ZREMRANGEBYSCORE', KEYS[3], '(' .. (tonumber(ARGV[3]) + 60), '+inf')
redis.call('ZADD', KEYS[3], tonumber(ARGV[3]), ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', tonumber(ARGV[3]) - tonumber(ARGV[5]) / 1000)
redis.call('PEXPIRE', KEYS[3], ARGV[5])
return repaired
"""

log = logging.getLogger("rates_xl.addin.officejs")


def _whole(value: int | float) -> int:
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError("not a whole number")
        return int(value)
    return value


#: A counter: a whole number from 0 to 2^53 (cjson writes large ones as floats).
_Count = Annotated[int | float, Field(ge=0, le=2**53), AfterValidator(_whole)]
#: A Unix time, in seconds, before the year 5138.
_Moment = Annotated[float, Field(ge=0, le=1e11)]


class StoredUse(BaseModel):
    """A user's (or the team's) counters as Redis holds them, checked before use: the shape
    and range RECORD_LUA writes, and checks too. Members it does not know are left out."""

    model_config = ConfigDict(extra="ignore", strict=True)

    batches: _Count = 0
    cells: _Count = 0
    requests_sent: _Count = 0
    last_seen: _Moment = 0.0
    last_error: Annotated[str, Field(max_length=300)] | None = None
    last_error_at: _Moment | None = None


class WarnOnce:
    """Log a kind of bad entry found in Redis once (per server object), not once per read."""

    def __init__(self, link: Any) -> None:
        self.link = link
        self._kinds: set[str] = set()

    def __call__(self, kind: str) -> None:
        if kind not in self._kinds:
            self._kinds.add(kind)
            log.warning("rates-xl: the team's Redis at %s held %s; it is ignored. Something other than "
                        "a rates-xl server wrote it (docs/caches.md: what write access to Redis can do)",
                        getattr(self.link, "url", "?"), kind)


BAD_COUNTER = "a usage counter of the wrong shape or range"


def stored_use(raw: Any, warn: WarnOnce) -> StoredUse | None:
    """The counters in a Redis value, or None (logged once) when it is not such an entry."""
    if raw is None:
        return StoredUse()
    try:
        if len(raw) > 4096:
            raise ValueError("too long")
        return StoredUse.model_validate(json.loads(raw))
    except (ValueError, TypeError, RecursionError, ValidationError):
        warn(BAD_COUNTER)
        return None


def _user_key(user: str) -> str:
    return hashlib.sha256(user.encode()).hexdigest()[:32]


class SharedFairShare:
    """`FairShare` for every worker at once; `local` stands in while Redis is down."""

    LEASE_SECONDS = 30.0  # a dead worker's batches hold their user's places this long at most
    POLL_FIRST, POLL_MAX = 0.02, 0.2  # seconds between looks while a batch waits its turn

    def __init__(self, link: Any, local: FairShare) -> None:
        self.link, self.local = link, local
        self.running, self.waiting = local.running, local.waiting
        self._turn = link.script(TURN_LUA)
        self._leave = link.script(LEAVE_LUA)
        self._warn = WarnOnce(link)

    def _keys(self, user: str) -> list[str]:
        base = self.link.prefix + "fair:" + _user_key(user)
        return [base + ":queue", base + ":lease"]

    async def _ask(self, keys: list[str], token: str, joining: bool) -> Any:
        """1 (run), 0 (wait), -1 (the queue is full), or _DOWN."""
        args = [token, self.running, self.waiting, int(self.LEASE_SECONDS * 1e6), int(joining)]
        # On a thread: a slow Redis must not stall the event loop (team_timeout at most).
        answer = await run_in_threadpool(self.link.call, lambda r: self._turn(keys=keys, args=args))
        if answer is _DOWN:
            return answer
        if int(answer[1]):
            self._warn(f"a fair-share queue entry with a lease beyond this server's {self.LEASE_SECONDS:g} s, "
                       "or without one")
        return int(answer[0])

    @contextlib.asynccontextmanager
    async def turn(self, user: str) -> AsyncIterator[None]:
        keys, token = self._keys(user), uuid.uuid4().hex
        answer = await self._ask(keys, token, joining=True)
        if answer is _DOWN:
            async with self.local.turn(user):
                yield
            return
        try:
            pause = self.POLL_FIRST
            while answer == 0:
                await asyncio.sleep(pause)
                pause = min(pause * 2, self.POLL_MAX)
                answer = await self._ask(keys, token, joining=False)
            if answer == -1:
                raise UserBusy
            if answer is _DOWN:  # Redis went away while we waited: this worker's queue
                async with self.local.turn(user):
                    yield
                return
            renewing = asyncio.create_task(self._renew(keys, token))
            try:
                yield
            finally:
                renewing.cancel()
        finally:
            await run_in_threadpool(self.link.call, lambda r: self._leave(keys=keys, args=[token]))

    async def _renew(self, keys: list[str], token: str) -> None:
        while True:
            await asyncio.sleep(self.LEASE_SECONDS / 3)
            await self._ask(keys, token, joining=False)


class SharedUsage:
    """`Usage` for every worker at once; `local` counts while Redis is down."""

    KEEP_DAYS = 30  # a user's counters expire this long after their last batch

    def __init__(self, link: Any, local: Usage) -> None:
        self.link, self.local = link, local
        self._record = link.script(RECORD_LUA)
        self._warn = WarnOnce(link)
        self._keep_ms = int(self.KEEP_DAYS * 86400 * 1000)

    def _key(self, name: str) -> str:
        return self.link.prefix + "usage:" + name

    def record(self, user: str, *, cells: int, requests_sent: int, error: str | None) -> None:
        hashed = _user_key(user)
        keys = [self._key("user:" + hashed), self._key("team"), self._key("users")]
        args = [cells, requests_sent, repr(time.time()), (error or "")[:300], self._keep_ms, hashed]
        repaired = self.link.call(lambda r: self._record(keys=keys, args=args))
        if repaired is _DOWN:
            self.local.record(user, cells=cells, requests_sent=requests_sent, error=error)
        elif int(repaired):
            self._warn(BAD_COUNTER)

    def of(self, user: str) -> dict:
        stored = self.link.call(lambda r: r.get(self._key("user:" + _user_key(user))))
        if stored is _DOWN:
            return self.local.of(user)
        use = stored_use(stored, self._warn) or StoredUse()
        return {**asdict(UserUse()), **use.model_dump()}

    def team(self) -> dict:
        found = self.link.call(lambda r: (r.get(self._key("team")), r.zcard(self._key("users"))))
        if found is _DOWN:
            return self.local.team()
        totals = stored_use(found[0], self._warn) or StoredUse()
        return {"users": int(found[1]), "batches": totals.batches, "cells": totals.cells,
                "requests_sent": totals.requests_sent}
