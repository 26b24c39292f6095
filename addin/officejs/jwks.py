"""The identity provider's signing keys (JWKS) as sign-in needs them: never waited on for long.

PyJWT's `PyJWKClient` fetched the keys under one lock with a 10 s timeout per read, no
overall deadline and no size cap, and fetched again for any token naming an unknown `kid`:
a provider trickling its JWKS held every sign-in for more than 45 s, a 60 MB one cost
206 MB, and made-up key ids were free refreshes. `KeySet` keeps PyJWT for what it does well
(turning a JWK into a key: `jwt.PyJWK`) and decides the fetching itself:

- **one deadline and a size cap** per fetch: the client's own transport
  (client/transport.py: one wall-clock deadline over connecting, headers and body, the
  answer refused past `max_bytes`, the OS's certificates and proxies, the one URL parser);
- **in the background**: a fetch runs on a thread of its own, and the lock is held only to
  swap the keys in, so a known key is served at once while a refresh runs, however slow;
- **at a bounded rate**: fetches start at most once per `min_interval_s` (whatever asks:
  the keys' age, an unknown `kid`, a failed fetch), so unknown key ids cannot force them;
- **who waits**: only a sign-in that itself started a refresh for its unknown `kid` (the
  provider rotated its keys and signs with the new one at once), or every sign-in while no
  key was ever fetched (there is nothing to check a token with), and never longer than the
  fetch's deadline;
- a failed refresh keeps the keys already known (logged once per run of failures).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from rates_xl.client import urls
from rates_xl.errors import Refusal, TaskError

log = logging.getLogger("rates_xl.addin.officejs")

#: Seconds one fetch of the keys (or the discovery document) may take in all.
DEADLINE_S = 5.0
#: Largest JWKS read, bytes: Entra ID's is about 10 kB; past this it is refused unread.
MAX_BYTES = 1 << 20
#: Keys kept from one JWKS (each one is an RSA key to build): providers publish a handful.
MAX_KEYS = 100
#: Seconds between background refreshes of keys in use (rotations are published ahead).
MAX_AGE_S = 300.0
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")


class ProviderError(TaskError):
    """The provider's keys or configuration could not be fetched; `str()` says why, one line."""


def provider_url_problem(url: str) -> str | None:
    """Why the client may not fetch sign-in material from `url` (None: it may): read with the
    one URL parser (client/urls.py), https only, but plain http on loopback (a test's
    provider, a sidecar)."""
    problem = urls.ambiguity(url)
    if problem:
        return f"holds {problem}"
    where = urls.origin(url)
    if where.scheme != "https" and not (where.scheme == "http" and where.host in LOOPBACK_HOSTS):
        return "is not https://"
    return None


class Fetcher:
    """GET one URL's JSON within `deadline_s` in all and `max_bytes`, through the client's
    transport (no API key: it has none to send)."""

    def __init__(self, url: str, *, deadline_s: float = DEADLINE_S, max_bytes: int = MAX_BYTES) -> None:
        from rates_xl.client.transport import HTTPTransport

        problem = provider_url_problem(url)
        if problem:
            raise ProviderError(f"{url[:200]!r} {problem}")
        self.url, self.deadline_s = url, deadline_s
        self._target = urls.request_target(url)
        self._transport = HTTPTransport(str(urls.origin(url)), None, pool_size=2, max_bytes=max_bytes)

    def __call__(self) -> Any:
        from rates_xl.client.errors import RatesError

        try:
            return self._transport.fetch("jwks", self._target, {}, self.deadline_s).payload
        except RatesError as exc:
            # The transport words it for the rates service; here it is the provider.
            said = str(exc).replace("the service's", "the provider's").replace("the service", "the provider")
            raise ProviderError(said.replace(" (RATES_MAX_ANSWER_MB)", "")) from None

    def close(self) -> None:
        self._transport.close()


def parse_keys(payload: Any, limit: int = MAX_KEYS) -> dict[str, Any]:
    """kid -> jwt.PyJWK for the RSA signing keys of a JWKS document (at most `limit` looked
    at); ProviderError when there is none."""
    import jwt

    entries = payload.get("keys") if isinstance(payload, dict) else None
    if not isinstance(entries, list):
        raise ProviderError("the provider's JWKS is not {\"keys\": [...]}")
    keys: dict[str, Any] = {}
    for entry in entries[:limit]:
        if not (isinstance(entry, dict) and isinstance(entry.get("kid"), str) and entry.get("kty") == "RSA"
                and entry.get("use", "sig") == "sig" and entry.get("alg", "RS256") == "RS256"):
            continue
        try:
            keys.setdefault(entry["kid"], jwt.PyJWK(entry, algorithm="RS256"))
        except (jwt.PyJWTError, ValueError, TypeError):
            continue  # an unusable key: the others may do
    if not keys:
        raise ProviderError("the provider's JWKS holds no usable RS256 key")
    return keys


class KeysUnavailable(Refusal):
    """No key was ever fetched, and the latest fetch failed or ran past its deadline."""


class KeySet:
    """The provider's keys by `kid`, refreshed in the background (see the module's text)."""

    def __init__(self, fetch: Callable[[], Any], *, deadline_s: float = DEADLINE_S,
                 min_interval_s: float = 10.0, max_age_s: float = MAX_AGE_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._fetch, self.deadline_s = fetch, deadline_s
        self.min_interval_s, self.max_age_s = min_interval_s, max_age_s
        self._clock = clock
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._keys: dict[str, Any] = {}
        self._fetched_at = -float("inf")  # clock() of the latest good fetch
        self._started_at = -float("inf")  # clock() of the latest fetch started
        self._runs = 0  # fetches finished, good or not (waiters watch it move)
        self.refreshing = False
        self.fetches = 0
        self.failures = 0
        self.last_error: str | None = None

    # -- what sign-in calls --------------------------------------------------------------
    def key(self, kid: str) -> Any | None:
        """The key named `kid`, or None when the provider does not publish it; raises
        KeysUnavailable when no key is known at all."""
        with self._lock:
            found = self._keys.get(kid)
            if found is not None:
                if self._clock() - self._fetched_at >= self.max_age_s:
                    self._start()  # refreshed behind this sign-in, which does not wait
                return found
            started = self._start()
            # Wait only when this sign-in started the refresh, or when no key is known yet.
            if (started or not self._keys) and self.refreshing:
                run = self._runs
                self._changed.wait_for(lambda: self._runs != run, timeout=self.deadline_s + 0.5)
            if not self._keys:
                raise KeysUnavailable(self.last_error or "no answer from the provider yet")
            return self._keys.get(kid)

    def prefetch(self) -> None:
        """Start fetching now (at server start), so the first sign-in finds the keys."""
        with self._lock:
            self._start()

    # -- the background fetch --------------------------------------------------------------
    def _start(self) -> bool:
        """Start a fetch if none runs and the rate allows; True when one was started. Called
        with the lock held."""
        now = self._clock()
        if self.refreshing or now - self._started_at < self.min_interval_s:
            return False
        self._started_at, self.refreshing = now, True
        self.fetches += 1
        threading.Thread(target=self._run, name="rates-jwks", daemon=True).start()
        return True

    def _run(self) -> None:
        keys: dict[str, Any] | None = None
        error: str | None = None
        try:
            keys = parse_keys(self._fetch())
        except ProviderError as exc:
            error = str(exc)
        except Exception as exc:  # noqa: BLE001 (a background thread: nothing may escape it)
            error = f"{type(exc).__name__} while reading the provider's keys"
        with self._lock:
            if keys is not None:
                self._keys, self._fetched_at = keys, self._clock()
                if self.last_error is not None:
                    log.warning("sign-in: the identity provider's keys are fetched again (%d keys)", len(keys))
                self.last_error = None
            else:
                self.failures += 1
                if self.last_error is None:  # once per run of failures
                    log.warning("sign-in: the identity provider's keys cannot be fetched: %s; %s", error,
                                "the keys fetched earlier are still used" if self._keys else
                                "SSO sign-ins are refused until they can be")
                self.last_error = error
            self.refreshing = False
            self._runs += 1
            self._changed.notify_all()
