"""The rates client: `RatesClient`, its typed results and its errors.

A call travels (docs/architecture.md): `client.py` normalises it (`endpoints.py`), looks in
the cache tiers, coalesces it with an identical call in flight, asks the breaker, takes a
token from the limiter and sends one attempt through a transport, retrying within a deadline.

- `client.py`: `RatesClient`, the one object every cell, template and button goes through;
- `typed.py`: its typed endpoint methods, one per service endpoint;
- `stats.py`: what it counts (the status panel's counters, the requests one batch sent);
- `scopes.py`: what one context asks of it (a freshness floor, planning, recording, Live);
- `transport.py`: the `Transport` protocol and the HTTP transport (one attempt per call);
- `urls.py`: one reading of a URL for every decision about where the key may go;
- `deadline.py`: one wall-clock deadline for one HTTP attempt;
- `redaction.py`: the key removed from text the client did not write;
- `endpoints.py`: the endpoint table, every service endpoint in one place;
- `models.py`: the typed results, one pydantic model per result object;
- `json_types.py`: JSON typed (`JSONValue`, `JSON`), for what is read before it is a model;
- `errors.py`: the client's exceptions (`RatesError` and one subclass per failure);
- `settings.py`: the settings (arguments, `RATES_*` variables, defaults);
- `setting_defaults.py`: what is known of them without pydantic (the prefix, whether any is set,
  the defaults calc's budget reads);
- `api_key.py`: where the key comes from (keychain, environment), the sandbox's public keys;
- `cache.py`: the answer cache interface and the memory tier;
- `persistent.py`: the disk tier (answers that never change);
- `team.py`: the team backend (one limit and one cache behind one key, on Redis);
- `tiers.py`: the tiers chosen from the settings;
- `limiter.py`: the token bucket every thread shares; `breaker.py`: the circuit breaker;
- `pack.py`: the market-data pack (its file form, recording: `PackRecorder`);
- `pack_replay.py`: replaying one (`PackTransport`, `NotInPack`);
- `pack_seal.py`: digests and signatures that show a pack was edited;
- `pack_workbook.py`: the pack inside a workbook (a custom XML part) or beside it;
- `live_scheduler.py`: Live mode, host-free: as-of-now answers kept fresh within a share of the limit;
- `calendars.py`: the business-day calendars (one table with the sandbox);
- `daycounts.py`: day count names as the service speaks them;
- `cli.py`: `rates-xl cache info|clear`.

Names are loaded on first use (PEP 562), so light modules such as
`rates_xl.client.daycounts` can be imported by the UDF module without paying for
requests, tenacity and pydantic at Excel's start-up.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

_EXPORTS = {
    "RatesClient": "rates_xl.client.client",
    "RequestKey": "rates_xl.client.client",
    "Settings": "rates_xl.client.settings",
    **{
        name: "rates_xl.client.errors"
        for name in (
            "RatesError", "BadRequest", "AuthError", "NotFound", "Unprocessable", "RateLimited",
            "ServerError", "ServiceUnavailable", "NetworkDown", "InvalidResponse", "NonFiniteNumber",
            "NotFetched", "Redirected",
        )
    },
}

__all__ = [
    "AuthError", "BadRequest", "InvalidResponse", "NetworkDown", "NonFiniteNumber", "NotFetched", "NotFound",
    "RateLimited", "Redirected",
    "RatesClient", "RatesError", "RequestKey", "ServerError", "ServiceUnavailable", "Settings",
    "Unprocessable",
]


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'rates_xl.client' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:  # for type checkers and IDEs
    from rates_xl.client.client import RatesClient, RequestKey
    from rates_xl.client.errors import (
        AuthError,
        BadRequest,
        InvalidResponse,
        NetworkDown,
        NonFiniteNumber,
        NotFetched,
        NotFound,
        RateLimited,
        RatesError,
        Redirected,
        ServerError,
        ServiceUnavailable,
        Unprocessable,
    )
    from rates_xl.client.settings import Settings
