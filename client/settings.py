"""Client settings: keyword arguments first, then `RATES_*` environment variables, then defaults.

The API key is the one exception to "a setting is a plain value": it is a `SecretStr`, so it
never shows in a repr, and when neither the argument nor `RATES_API_KEY` gives it, it is
read from the OS keychain (service `rates-xl`).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from rates_xl.client.api_key import KEYRING_SERVICE, KEYRING_USERNAME
from rates_xl.client.setting_defaults import CALC_CELLS, CALC_SECONDS, CALC_THREADS, PREFIX

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.bluegamma.io"


class Settings(BaseSettings):
    """Every knob of the client. Each field `x` is also the environment variable `RATES_X`."""

    model_config = SettingsConfigDict(env_prefix=PREFIX, extra="forbid", validate_default=True)

    # Each description is the settings page's text (generated: docs/hooks.py, rates_xl.docgen);
    # `default_text` says what an empty default means.
    base_url: str = Field(DEFAULT_BASE_URL, description="Service root; paths are `/v1/...` below it.")
    api_key: SecretStr | None = Field(
        None, description="The key, sent only as the `x-api-key` header to `base_url`.",
        json_schema_extra={"default_text": "the OS keychain (service `rates-xl`)"},
    )
    trust_store: Literal["os", "certifi"] = Field(
        "os", description="Certificates that verify the service: `os` (the operating system's store, "
        "via truststore) or `certifi` (requests' bundled list).",
    )
    timeout: float = Field(
        10.0, gt=0, description="Seconds per attempt: connecting, redirects, headers and the whole body."
    )
    max_answer_mb: float = Field(
        16.0, gt=0, description="Largest answer read, MB; a larger one is refused, not retried."
    )
    rate_limit: float = Field(20.0, gt=0, description="Requests per second, sustained.")
    burst: int = Field(
        50, ge=1, description="The service's burst; the client holds 250 ms worth of requests of it in "
        "reserve (5 at 20/s) for network jitter.",
    )
    max_attempts: int = Field(4, ge=1, description="Attempts per request, the first included.")
    deadline: float = Field(
        30.0, gt=0, description="Seconds one call may take in all (limiter waits and retries).",
    )
    cell_deadline: float = Field(
        4.0, gt=0, description="Seconds a cell calculated by Excel may wait in all (the worksheet "
        "functions' budget; `deadline` is for headless calc, refresh fetches and scripts).",
    )
    backoff: float = Field(
        0.25, ge=0, description="First retry delay, seconds; doubles, jittered, never below `Retry-After`.",
    )
    max_backoff: float = Field(8.0, ge=0, description="Longest single retry delay, seconds.")
    breaker_failures: int = Field(
        3, ge=1, description="Transport failures in a row (timeouts, DNS, TLS, resets; never an HTTP "
        "answer) that open the circuit breaker.",
    )
    breaker_cooldown: float = Field(
        10.0, gt=0, description="Seconds the open breaker answers every call at once before letting one "
        "probe through.",
    )
    ttl_live: float = Field(
        60.0, ge=0, description="Seconds cached: swap rates and curves, forwards, discount factors, US "
        "government yields, today's fixing.",
    )
    ttl_fx: float = Field(15.0, ge=0, description="Seconds cached: FX spot and forwards.")
    ttl_daily: float = Field(
        86400.0, ge=0, description="Seconds cached: other government yields (updated daily).",
    )
    ttl_history: float = Field(
        86400.0, ge=0, description="Seconds cached: historical swap rates, past fixings, tenor lists, and "
        "any request with a past `valuation_time`.",
    )
    cell_errors: Literal["values", "text"] = Field(
        "values", description="How a failing RATES_ cell shows: `values`, an Excel error (`#VALUE!` for an "
        "argument to fix, `#N/A` for no answer) that SUM and IFERROR treat as any error, its message one "
        "step away (RATES_ERROR, the Explain button, the hover in Office.js); `text`, the `#RATES!` "
        "message in the cell, as Bloomberg's add-in shows its messages (SUM then skips the cell).",
    )
    live_share: float = Field(
        0.5, gt=0, le=1, description="Share of `rate_limit` Live mode may use (0 to 1); new formulas "
        "always have the rest, so they never wait behind Live.",
    )
    cache_size: int = Field(
        20000, ge=1, description="Answers kept in memory; the least recently used go first.",
    )
    max_workers: int = Field(
        16, ge=1, description="Concurrent requests when a workbook is fetched in one go.",
    )
    persistent: bool = Field(
        True, description="Keep answers that never change on disk, across Excel sessions.",
    )
    cache_dir: str | None = Field(
        None, description="Where the persistent tier lives: `~/.cache/rates-xl` (Linux), "
        "`%LOCALAPPDATA%\\rates-xl\\Cache` (Windows), `~/Library/Caches/rates-xl` (macOS).",
        json_schema_extra={"default_text": "the OS's user cache folder"},
    )
    disk_cache_mb: float = Field(
        256.0, gt=0, description="Size bound of the persistent tier, MB; the least recently used answers "
        "go first.",
    )
    calc_cells: int = Field(
        CALC_CELLS, ge=1, description="Cells one book's formulas may read in `rates-xl calc` (every formula "
        "cell, and each distinct range once, whole rows, columns and sheets over the used range); a book "
        "past it stops before computing, with one line naming the formula that reads the most.",
    )
    calc_seconds: float = Field(
        CALC_SECONDS, gt=0, description="Seconds one book may take in `rates-xl calc` (reading and preparing its "
        "formulas, each evaluation round); past it the book stops with one line naming the cell being "
        "computed, and the run goes on with the other books.",
    )
    calc_threads: int = Field(
        CALC_THREADS, ge=0, description="Threads the engine may use for one book's evaluation in `rates-xl "
        "calc`; 0: one per core. One by default: the Excel functions it calls back in Python hold "
        "Python's lock, so a second thread mostly waits for it (formulas_test.xlsx: 0.15 CPU s more "
        "with two on two cores, no sooner done). A book of native formulas only may be done sooner "
        "on more threads (docs/performance.md): raise it for such books on a machine with cores to spare.",
    )
    team_url: SecretStr | None = Field(
        None, description="Redis URL of the team backend, e.g. `redis://cache.internal:6379/0`: one rate "
        "limit and one cache for everyone behind the key.",
        json_schema_extra={"default_text": "none (solo)"},
    )
    team_timeout: float = Field(
        0.25, gt=0, description="Seconds one Redis operation may take before the client carries on "
        "without the team.",
    )
    team_retry: float = Field(
        5.0, gt=0, description="Seconds between attempts to reach a team backend that is down.",
    )

    @field_validator("base_url")
    @classmethod
    def _a_service_root(cls, value: str) -> str:
        problem = base_url_problem(value)
        if problem:
            raise ValueError(problem)
        return value.strip()

    def ttl_for(self, cache_class: str) -> float:
        return float(getattr(self, f"ttl_{cache_class}"))

    def persistent_dir(self) -> Path:
        """Where the persistent tier lives: `cache_dir`, else the OS convention for caches
        (~/.cache/rates-xl on Linux, %LOCALAPPDATA%\\rates-xl\\Cache on Windows,
        ~/Library/Caches/rates-xl on macOS)."""
        if self.cache_dir:
            return Path(self.cache_dir).expanduser()
        from platformdirs import user_cache_dir

        return Path(user_cache_dir("rates-xl", appauthor=False))


def base_url_problem(url: str) -> str | None:
    """What is wrong with a service root, in words (None: nothing). Checked here, once, so
    a root without http:// fails as settings, not later as requests' MissingSchema, and a
    root that parsers read as two places (a backslash, user@host, `127.1`: client/urls.py)
    is refused before the key could go to the wrong one."""
    from urllib.parse import urlsplit

    from rates_xl.client.urls import ambiguity

    text = url.strip()
    shown = re.sub(r"(?<=://)[^/@\s]+@", "", text)  # never echo a user:password@
    try:
        parts = urlsplit(text)
    except ValueError:
        return f"{shown!r} is not a URL; write it like {DEFAULT_BASE_URL}"
    if parts.scheme.lower() not in ("http", "https"):
        return (f"{shown!r} has no http:// or https:// in front; write it like {DEFAULT_BASE_URL}"
                if not parts.scheme or "://" not in text else
                f"{shown!r} is not an http:// or https:// URL; write it like {DEFAULT_BASE_URL}")
    if not parts.hostname:
        return f"{shown!r} names no host; write it like {DEFAULT_BASE_URL}"
    if parts.query or parts.fragment or "?" in text or "#" in text:
        return f"{shown!r} holds a ? or #: a service root is scheme://host[:port][/path]"
    problem = ambiguity(text)
    if problem:
        return (f"{shown!r} holds {problem}, which programs read as different places; "
                f"write it like {DEFAULT_BASE_URL} (the key goes in RATES_API_KEY)")
    return None


def key_from_keychain() -> SecretStr | None:
    """The key stored by `rates-xl key set`, or None when there is none or no keychain."""
    try:
        import keyring

        secret = keyring.get_password(KEYRING_SERVICE, KEYRING_USERNAME)
    except Exception as exc:  # no backend, locked keychain, D-Bus missing: treat as "not set"
        log.debug("keychain not available: %s", type(exc).__name__)
        return None
    return SecretStr(secret) if secret else None


def load_settings(**overrides: object) -> Settings:
    """Settings from the given values, the environment and the keychain (for the key only)."""
    given: dict[str, Any] = {k: v for k, v in overrides.items() if v is not None}
    settings = Settings(**given)
    if settings.api_key is None:
        keychain_key = key_from_keychain()
        if keychain_key is not None:
            settings = settings.model_copy(update={"api_key": keychain_key})
    return settings
