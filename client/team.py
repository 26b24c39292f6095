"""The team backend: one rate limit and one answer cache for everyone behind one key (Redis).

Opt-in with `RATES_TEAM_URL=redis://host:6379/0` and the team extra (`pip install ".[team]"` in the clone). Every
process and machine that builds a `RatesClient` with that setting (Excel through xlwings,
`rates-xl calc`, the Office.js backend) joins the same team.

- `TeamLimiter`: one shared bucket per key, the GCRA (generic cell rate algorithm) in a Lua
  script that Redis runs atomically: no other command runs between reading the bucket's
  state and writing it back, so N clients together get exactly the key's `burst`, then
  `rate_limit` per second. The clock is Redis' own (`TIME`), so machines' clocks do not
  matter.
- `TeamCache`: answers with the same TTLs as the local cache, and `claim`, which coalesces a
  request across processes: the first asks the service, the others wait for its answer.
  Each answer carries an HMAC-SHA256 keyed by a key derived from the API key (never the key
  itself, never stored): it covers the Redis key, the answer and its fetch time and TTL, so
  whoever can write to Redis but does not hold the API key cannot forge, move or stretch an
  answer; a reader trusts an answer no longer than its own settings' TTL for it.
- `TeamLink`: the connection and its health. Any Redis error or slow answer (more than
  `team_timeout`) marks the team down: the client carries on at once with its local cache and
  limiter, says so in RATES_STATUS and `rates-xl doctor`, and tries Redis again every
  `team_retry` seconds. Nothing here ever raises into a cell or waits without bound.

Keys in Redis: `rates-xl:v1:<fingerprint>:...`, the fingerprint a one-way hash of the service
URL and the API key (see `tiers.key_fingerprint`); the key itself never reaches Redis.
docs/caches.md says how to set Redis up (ACL user, TLS) and what someone with write access
to it can still do (delay and deny, never forge).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import math
import operator
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from urllib.parse import urlsplit

from rates_xl.client.cache import Entry
from rates_xl.client.endpoints import RequestKey
from rates_xl.client.errors import RateLimited
from rates_xl.client.limiter import TokenBucket
from rates_xl.client.tiers import FORMAT, decode_entry, encode_entry, request_text

log = logging.getLogger("rates_xl.client")

# GCRA with reservation. The state is one number, the theoretical arrival time (TAT) of the
# next request in microseconds of Redis' clock. A request may go at max(TAT, now) minus the
# burst tolerance; the caller is told how long to wait until then, and TAT moves one
# emission interval on. A caller that would wait past its deadline takes nothing.
#
# The bucket starts empty (sustained rate, no burst) rather than full when the service's
# bucket may have been drained without Redis knowing: when a client comes back from its
# local limiter (ARGV[4] >= 0: it and its teammates kept sending meanwhile), which also adds
# the ARGV[4] requests its local limiter has already scheduled; or when the state is missing
# and so is the marker KEYS[2], which has no expiry: this Redis restarted empty (or is new),
# while a bucket that merely expired after a quiet spell leaves the marker behind.
#
# KEYS[3] holds who asked in the last ARGV[6] microseconds (ARGV[5] is the caller), and the
# script returns how many: while Redis is down each process takes only its share of the
# sustained rate, so the team together still keeps to it.
#
# A Redis that restarted empty while a team was sending finds its members coming back one
# by one, each when its own `team_retry` comes round; until then each still sends from its
# local bucket at its share. So the first caller to find the restart writes KEYS[4], how
# many members it knew (ARGV[7]), for ARGV[8] microseconds (two retry periods and a
# second), and while it lasts the shared bucket runs at the share of those back: k of n
# members asked since the restart, one slot every interval * n / k. Once all n are back, or
# the time is up (a member that stopped meanwhile never comes back), the whole rate. The
# script then reports n members, not k, so a process that fails over again takes its share
# of the n. A hand-over's backlog is counted at the same pace: those requests were the
# process's share.
#
# What Redis holds is checked first (anyone who can write to it could write anything): a
# state that is not a number, or further ahead than FAR_AHEAD_US (no caller's deadline is
# an hour), is taken for a lost one (the bucket starts empty), members dated in the
# future are dropped and a recovery count that is not a whole number from 1 to
# MAX_MEMBERS is deleted; the fourth value returned counts what was so ignored.
FAR_AHEAD_US = 3600 * 1_000_000
MAX_MEMBERS = 1000
GCRA_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local tolerance = interval * (tonumber(ARGV[2]) - 1)
local max_wait = tonumber(ARGV[3])
local window = tonumber(ARGV[6])
local ignored = redis.call('ZREMRANGEBYSCORE', KEYS[3], '(' .. string.format('%.0f', now), '+inf')
redis.call('ZADD', KEYS[3], now, ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - window)
redis.call('PEXPIRE', KEYS[3], math.ceil(window / 1000))
local members = redis.call('ZCARD', KEYS[3])
local stored = redis.call('GET', KEYS[1])
local tat = tonumber(stored)
local lost = false
if stored and not (tat and tat == tat and tat <= now + """ + str(FAR_AHEAD_US) + """) then
  ignored = ignored + 1
  tat, lost = now, true
end
tat = tat or now
if tat < now then tat = now end
local restarted = false
if not stored then
  lost = redis.call('SET', KEYS[2], '1', 'NX') ~= false
  restarted = lost
end
local expected = members
if restarted then
  expected = math.max(members, math.min(tonumber(ARGV[7]), """ + str(MAX_MEMBERS) + """))
  if expected > members then
    redis.call('SET', KEYS[4], tostring(expected), 'PX', math.ceil(tonumber(ARGV[8]) / 1000))
  end
else
  local recovering = redis.call('GET', KEYS[4])
  if recovering then
    local n = tonumber(recovering)
    if not (n and n == math.floor(n) and n >= 1 and n <= """ + str(MAX_MEMBERS) + """) then
      ignored = ignored + 1
      redis.call('DEL', KEYS[4])
    elseif n > members then
      expected = n
    else
      redis.call('DEL', KEYS[4])
    end
  end
end
local step = interval * expected / members
local back = tonumber(ARGV[4])
if (lost or back >= 0) and tat < now + tolerance + step then
  tat = now + tolerance + step
end
if back > 0 then tat = tat + back * step end
local wait = tat - tolerance - now
if wait < 0 then wait = 0 end
if wait > max_wait then return {0, wait, expected, ignored} end
local new_tat = tat + step
redis.call('SET', KEYS[1], string.format('%.0f', new_tat),
           'PX', math.ceil((new_tat - now) / 1000) + 1000)
return {1, wait, expected, ignored}
"""

# Release a claim only if it is still ours (it may have expired and been taken by another).
RELEASE_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

_DOWN = object()  # what `TeamLink.call` returns when Redis could not answer


def redact(url: str) -> str:
    """The URL without its password, for messages and status."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    user = f"{parts.username}:***@" if parts.username else ("***@" if parts.password else "")
    return f"{parts.scheme}://{user}{host}{port}{parts.path}"


class TeamLink:
    """The Redis connection of one client, and whether the team is up."""

    def __init__(self, url: str, scope: str, *, timeout: float, retry_every: float,
                 pool_size: int = 32) -> None:
        self.url = redact(url)
        self.prefix = f"rates-xl:{FORMAT}:{scope}:"
        self.retry_every = retry_every
        self._lock = threading.Lock()
        self._down_until = 0.0
        self._marked = 0.0  # time.monotonic() of the latest failure
        self._down_since: float | None = None
        self.problem: str | None = None
        self.outages = 0
        try:
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry
        except ImportError:
            self._redis = None
            from rates_xl.extras import install_hint

            self.problem = f"the redis package is not installed: {install_hint('team')}"
            log.warning("rates-xl: RATES_TEAM_URL is set but %s; working solo", self.problem)
            return
        self._errors = (redis.RedisError, OSError)
        try:
            # A blocking pool: a thread finding every connection in use waits for one
            # instead of failing. redis-py's default pool raises "Too many connections" at
            # once, which we took for Redis being down: a team server ran 8 batches of 16
            # fetch threads against 34 connections, and each process that so went solo took
            # the whole rate (docs/performance.md, the team server). That wait is on our own
            # threads, each holding a connection at most `timeout` (and, with 100 threads
            # on a busy machine, waiting its turn for the interpreter): longer than a
            # Redis answer may take. Connections are opened only as needed.
            pool = redis.BlockingConnectionPool.from_url(
                url, socket_timeout=timeout, socket_connect_timeout=timeout,
                retry=Retry(NoBackoff(), 0), max_connections=pool_size,
                timeout=max(1.0, 4 * timeout),
            )
            self._redis = redis.Redis(connection_pool=pool)
        except (ValueError, *self._errors) as exc:
            self._redis = None
            self.problem = f"RATES_TEAM_URL is not a Redis URL ({type(exc).__name__})"
            log.warning("rates-xl: %s; working solo", self.problem)
            return
        self._gcra = self._redis.register_script(GCRA_LUA)
        self._release = self._redis.register_script(RELEASE_LUA)

    def script(self, lua: str) -> Any:
        """A Lua script registered with this Redis (loaded again if Redis forgot it), for
        other shared state (the team server's fair share); None without Redis."""
        return self._redis.register_script(lua) if self._redis is not None else None

    @property
    def up(self) -> bool:
        return self._redis is not None and time.monotonic() >= self._down_until and self._down_since is None

    def call(self, operation: Callable[[Any], Any]) -> Any:
        """`operation(redis)`, or `_DOWN` at once when Redis is down, failing or too slow."""
        asked = time.monotonic()
        if self._redis is None or asked < self._down_until:
            return _DOWN
        try:
            result = operation(self._redis)
        except self._errors as exc:
            self._mark_down(exc)
            return _DOWN
        # Only a call made after the latest failure says Redis is back: one already under
        # way then (another thread's) must not report "up" while calls are still refused.
        if self._down_since is not None and asked >= self._marked:
            with self._lock:
                if self._down_since is not None and asked >= self._marked:
                    log.warning("rates-xl: the team backend at %s is back; sharing again", self.url)
                    self._down_since, self.problem = None, None
        return result

    def _mark_down(self, exc: BaseException) -> None:
        with self._lock:
            self._marked = time.monotonic()
            self._down_until = self._marked + self.retry_every
            first = self._down_since is None
            if first:
                self._down_since = time.time()
                self.outages += 1
            self.problem = _reason(exc)
        if first:
            log.warning("rates-xl: the team backend at %s is unreachable (%s); using this "
                        "machine's cache and limit, retrying every %g s",
                        self.url, self.problem, self.retry_every)

    def describe(self) -> str:
        if self._redis is None:
            return f"off: {self.problem}"
        if self._down_since is not None:
            since = time.strftime("%H:%M:%S", time.localtime(self._down_since))
            return (f"down since {since} ({self.problem}): local cache and limit in use, "
                    f"retrying every {self.retry_every:g} s ({self.url})")
        return f"up ({self.url})"

    def ping(self) -> bool:
        return self.call(lambda r: r.ping()) is True

    def close(self) -> None:
        if self._redis is not None:
            with contextlib.suppress(Exception):
                self._redis.close()
                self._redis.connection_pool.disconnect()


def _reason(exc: BaseException) -> str:
    text = str(exc).lower()
    if "refused" in text:
        return "connection refused"
    if type(exc).__name__ == "AuthenticationError" or "noauth" in text or "wrongpass" in text:
        return "Redis refused the credentials: check the password in RATES_TEAM_URL"
    if "timeout" in text or "timed out" in text:
        return "no answer in time"
    if "certificate" in text:
        return ("its TLS certificate is not trusted here: name its root with "
                "?ssl_ca_certs=<file> in RATES_TEAM_URL, or install it in the OS store")
    return type(exc).__name__


class TeamLimiter:
    """The key's one bucket, shared through Redis; this process's `TokenBucket` while the
    team is down.

    Like the local bucket it keeps part of the service's burst in reserve, but more of it:
    250 ms worth of requests (5 at 20/s) rather than 100 ms. Several processes and machines
    send what the script schedules with more jitter than one process does (each its own
    CPU share, connection and network path); with the smaller reserve, 4 processes on
    2 cores drew an occasional 429.

    A failover either way starts from an empty bucket, never a full one: the service's own
    bucket may be drained by what was sent just before. The local bucket that takes over
    starts empty once the slots Redis gave this process have passed, at this process's share
    of the rate (the rate / the teammates that asked in the last `MEMBER_WINDOW_SECONDS`, as
    Redis last said). Back on Redis, one thread hands over: the script starts the shared
    bucket empty plus what our local bucket still has scheduled (and starts it empty by
    itself when Redis lost the state). The cost is at most one burst's worth of waiting; a
    burst on a drained bucket cost a 429 (and a retry) per request of it. A Redis found
    restarted empty runs the shared bucket at the share of the teammates back on it until
    all are (the script's recovery count): the others are still at their local shares.
    """

    JITTER_SLACK_SECONDS = 0.25
    MEMBER_WINDOW_SECONDS = 10.0

    def __init__(self, link: TeamLink, local: TokenBucket, burst: int, sleep=time.sleep) -> None:
        self.link, self.local = link, local
        self.rate, self.burst = local.rate, burst
        headroom = min(burst // 2, math.ceil(self.rate * self.JITTER_SLACK_SECONDS))
        self.capacity = max(1, burst - headroom)
        self._interval_us = 1_000_000 / local.rate
        # The marker is one for the whole Redis, not per key: a restart loses every key at
        # once, and a key (or a service URL) new to a Redis that kept its state has not
        # drained anything.
        self._keys = [link.prefix + "bucket", f"rates-xl:{FORMAT}:kept", link.prefix + "members",
                      link.prefix + "recovering"]
        self._recovery_us = int((2 * link.retry_every + 1.0) * 1e6)
        self._me = uuid.uuid4().hex
        self._sleep = sleep
        self._lock = threading.Lock()
        self._local_mode = False  # Redis failed us and no shared request has worked since
        self._handing_over = False  # a thread is telling Redis we are back
        self._handed = threading.Condition(self._lock)  # ... and has finished
        self._last_slot = 0.0  # time.monotonic() of the latest slot Redis gave this process
        self.members = 1  # processes sharing the bucket, as Redis last said
        self._asked_at = -math.inf  # time.monotonic() of our latest acquire, shared or local
        self.shared_acquires = 0
        self.local_acquires = 0
        self._warned = False

    def acquire(self, deadline: float) -> float:
        # Back from an outage: one thread hands over, telling Redis what our local bucket
        # still has scheduled; the others wait for it (as long as their deadline allows).
        # A thread that took a local slot meanwhile would be missing from that backlog, and
        # its request would meet the team's next ones at the service: a 429 after a restart.
        with self._lock:
            while self._local_mode and self._handing_over:
                if not self._handed.wait(timeout=max(0.0, deadline - time.monotonic())):
                    break
            local = self._local_mode
            if local and self._handing_over:
                handing_over = False  # our deadline came first: the local bucket will refuse
            else:
                handing_over = self._handing_over = local
        if local and not handing_over:
            return self._acquire_local(deadline)
        backlog = self.local.backlog() if handing_over else -1
        max_wait = max(0.0, deadline - time.monotonic())
        members = self._members_now()
        answer = self.link.call(lambda r: self.link._gcra(
            keys=self._keys, args=[self._interval_us, self.capacity, int(max_wait * 1e6), backlog,
                                   self._me, int(self.MEMBER_WINDOW_SECONDS * 1e6),
                                   members, self._recovery_us]))
        with self._lock:
            if handing_over:
                self._handing_over = False
                self._handed.notify_all()
            if answer is _DOWN and not self._local_mode:
                # Empty, and nothing before the slots Redis already gave us have gone: they
                # were scheduled at the team's rate, on top of which ours would come.
                self._local_mode = True
                self.local = TokenBucket(self.rate / self.members, self.burst)
                self.local.drain(until=self._last_slot)
            elif answer is not _DOWN:
                self._local_mode = False
        if answer is _DOWN:
            return self._acquire_local(deadline)
        allowed, wait_us, self.members = int(answer[0]), int(answer[1]), max(1, int(answer[2]))
        if int(answer[3]) and not self._warned:
            self._warned = True
            log.warning("rates-xl: the team's Redis at %s held a rate-limit state (or a member) that no "
                        "client wrote; it is ignored and the bucket starts empty (docs/caches.md)", self.link.url)
        wait = wait_us / 1e6
        if not allowed:
            raise RateLimited(
                f"team rate limit: no request slot within the deadline "
                f"({self.rate:g}/s, burst {self.capacity}, shared by the team)",
                retry_after=wait,
            )
        self.shared_acquires += 1
        self._last_slot = max(self._last_slot, time.monotonic() + wait)
        if wait > 0:
            self._sleep(wait)
        return wait

    def _members_now(self) -> int:
        """How many we were, for a Redis found restarted: as Redis last said if we asked within
        the members' window, else just us (a process idle for an hour must not make the team
        wait for teammates who have long stopped)."""
        asked, self._asked_at = self._asked_at, time.monotonic()
        return self.members if self._asked_at - asked <= self.MEMBER_WINDOW_SECONDS else 1

    def _acquire_local(self, deadline: float) -> float:
        self._asked_at = time.monotonic()
        self.local_acquires += 1
        return self.local.acquire(deadline)


def entry_key(api_key: str) -> bytes:
    """The key that authenticates the team's answers, derived from the API key (HMAC as a
    one-step HKDF: the API key is already a long random secret). Everyone holding the API key
    derives the same one; Redis never sees it or the API key."""
    return hmac.new(api_key.encode(), b"rates-xl team cache v1", hashlib.sha256).digest()


class TeamCache:
    """Answers shared by the team, with their TTLs; `claim` coalesces across processes.

    An answer is stored as `<HMAC hex>.<JSON>` (`tiers.encode_entry`), the MAC over the Redis
    key and the JSON, which holds the request, the answer, its fetch time and its TTL. Without
    `api_key` nothing can be authenticated, so nothing is read or written (the CLI's cache
    commands, which only count and delete, build it so). `ttl_of(key)` is this process's own
    TTL for a request: a teammate with longer TTLs cannot make us keep an answer longer.
    """

    POLL_FIRST, POLL_MAX = 0.005, 0.05  # seconds between looks while a teammate fetches
    ANSWERS = "a2:"  # answers with a MAC; older clients' unauthenticated `a:` ones are never read

    def __init__(self, link: TeamLink, *, lease: float, api_key: str | None = None,
                 ttl_of: Callable[[RequestKey], float] | None = None) -> None:
        self.link = link
        self.lease_ms = int(lease * 1000)  # a claim outlives no leader by more than this
        self._mac_key = entry_key(api_key) if api_key else None
        self._ttl_of = ttl_of
        self.coalesced = 0  # answers a teammate fetched while we waited
        self.rejected = 0  # entries refused: no valid MAC
        self._warned = False

    def _answer_key(self, key: RequestKey) -> str:
        return self.link.prefix + self.ANSWERS + hashlib.sha256(request_text(key).encode()).hexdigest()[:40]

    def claim_key(self, key: RequestKey) -> str:
        return self.link.prefix + "claim:" + self._answer_key(key).rsplit(":", 1)[1]

    def _mac(self, name: str, body: bytes) -> str:
        if self._mac_key is None:  # (callers check: no key, no team cache)
            raise ValueError("the team cache has no MAC key")
        return hmac.new(self._mac_key, name.encode() + b"\n" + body, hashlib.sha256).hexdigest()

    def get(self, key: RequestKey, *, fresh_since: float | None = None) -> Entry | None:
        if self._mac_key is None:
            return None
        name = self._answer_key(key)
        stored = self.link.call(lambda r: r.get(name))
        if stored is _DOWN or stored is None:
            return None
        if isinstance(stored, str):  # a URL with ?decode_responses=true
            stored = stored.encode()
        mac, _, body = stored.partition(b".")
        if not hmac.compare_digest(mac, self._mac(name, body).encode()):
            self._refuse(key)
            return None
        entry = decode_entry(key, body)
        if entry is None or (fresh_since is not None and entry.fetched_at < fresh_since):
            return None
        if self._ttl_of is not None and entry.ttl > self._ttl_of(key):
            entry = Entry(entry.value, entry.fetched_at, self._ttl_of(key), entry.error)
        if time.time() >= entry.fetched_at + entry.ttl:
            return None  # Redis' own expiry is not authenticated: the MAC'd one is
        return entry

    def _refuse(self, key: RequestKey) -> None:
        self.rejected += 1
        if not self._warned:
            self._warned = True
            log.warning("rates-xl: a team cache entry failed authentication (%s at %s); it is not "
                        "used. Something other than a client with this API key wrote it to Redis",
                        getattr(key, "endpoint", "?"), self.link.url)

    def put(self, key: RequestKey, entry: Entry) -> None:
        left_ms = int((entry.ttl - max(0.0, time.time() - entry.fetched_at)) * 1000)
        text = encode_entry(key, entry)
        if self._mac_key is None or left_ms <= 0 or text is None:
            return
        name, body = self._answer_key(key), text.encode()
        stored = self._mac(name, body).encode() + b"." + body
        self.link.call(lambda r: r.set(name, stored, px=left_ms))

    def count(self) -> int | None:
        """How many answers of this key Redis holds, or None when it cannot be reached."""
        found = self.link.call(lambda r: sum(1 for _ in r.scan_iter(
            match=self.link.prefix + self.ANSWERS + "*", count=500)))
        return None if found is _DOWN else int(found)

    def expire(self, *, before: float | None = None, keys: Iterable[RequestKey] | None = None) -> int:
        """Drop the given keys' shared answers fetched before `before`. Without keys nothing
        is dropped: one member's Clear Cache must not empty the whole team's."""
        dropped = 0
        for key in keys or ():
            entry = self.get(key)
            if entry is not None and (before is None or entry.fetched_at < before):
                if self.link.call(operator.methodcaller("delete", self._answer_key(key))) not in (_DOWN, 0):
                    dropped += 1
        return dropped

    def clear_scope(self) -> int:
        """Delete every shared answer of this key (`rates-xl cache clear --team`)."""
        def drop(r: Any) -> int:
            names = list(r.scan_iter(match=self.link.prefix + self.ANSWERS + "*", count=500))
            return r.delete(*names) if names else 0

        result = self.link.call(drop)
        return 0 if result is _DOWN else int(result)

    @contextlib.contextmanager
    def claim(self, key: RequestKey, *, fresh_since: float | None, deadline: float,
              on_entry: Callable[[Entry], None] = lambda entry: None) -> Iterator[Entry | None]:
        """Yield None when this process should fetch the request (it holds the claim, or the
        team is down, or it waited half the time left until `deadline`), or the entry a
        teammate just fetched.

        The claim is a Redis key set with NX and a lease, released (if still ours) on exit,
        after the caller has stored its answer, so a waiter finds the answer once the claim
        is gone; a waiter whose leader failed without an answer takes the claim itself. A
        waiter gives up at half its time, keeping the other half to fetch for itself: a
        leader that died holding the claim, or a claim written by someone else, delays a
        call but does not make it fail.
        """
        lock = self.claim_key(key)
        token = uuid.uuid4().hex
        pause = self.POLL_FIRST
        give_up = time.monotonic() + max(0.0, deadline - time.monotonic()) / 2
        while True:
            taken = self.link.call(lambda r: r.set(lock, token, nx=True, px=self.lease_ms))
            if taken is _DOWN:
                yield None
                return
            entry = self.get(key, fresh_since=fresh_since)  # it may have landed meanwhile
            if entry is not None:
                if taken:
                    self.link.call(lambda r: self.link._release(keys=[lock], args=[token]))
                self.coalesced += 1
                on_entry(entry)
                yield entry
                return
            if taken:
                try:
                    yield None
                finally:
                    self.link.call(lambda r: self.link._release(keys=[lock], args=[token]))
                return
            if time.monotonic() + pause > give_up:
                yield None  # waited as long as this call can afford: fetch it ourselves
                return
            time.sleep(pause)
            pause = min(pause * 2, self.POLL_MAX)
