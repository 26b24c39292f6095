"""rates_xl.sandbox: a local reference Rates Data Service (FastAPI + uvicorn + QuantLib).

- `app.py`: `create_app(**knobs)`, one independent service; `server.py`: serving it in a
  thread (tests, demo) or in the foreground; `cli.py`: `rates-xl sandbox`;
- `behaviour.py`: what the real service does before answering (keys, limits, faults);
- `routes_rates.py`, `routes_market_data.py`, `routes_common.py`: the endpoints;
- `params.py`: the service's parameter types and date rules; `schemas.py`: the bodies;
  `errors.py`: error bodies as the service writes them;
- `conventions.py`: the conventions table, every market convention in one place;
- `market.py`: QuantLib bootstraps of each day's quotes, and the sums on them;
- `scenario.py`: the market's history (the bundled snapshot moved by a deterministic walk);
- `pack_app.py`: `rates-xl sandbox --pack FILE`, a pack's answers and nothing else.

Import-light on purpose: the key constants (client/api_key.py's) are here; the app and the
server (which pull in FastAPI and QuantLib) load on first use of `create_app` or
`start_in_thread`.
"""

from __future__ import annotations

# The built-in keys are published, and the client knows them (client/api_key.py: a pack
# signed with one proves nothing).
from rates_xl.client.api_key import SANDBOX_EXPIRED_KEY as EXPIRED_KEY
from rates_xl.client.api_key import SANDBOX_KEYS as BUILTIN_KEYS
from rates_xl.client.api_key import SANDBOX_PAID_KEY as PAID_KEY
from rates_xl.client.api_key import SANDBOX_TRIAL_KEY as TRIAL_KEY

KEY_KINDS = ("paid", "trial", "expired")
DEFAULT_PORT = 8765

__all__ = [
    "BUILTIN_KEYS", "DEFAULT_PORT", "EXPIRED_KEY", "KEY_KINDS", "PAID_KEY", "TRIAL_KEY",
    "RunningSandbox", "create_app", "start_in_thread",
]


def __getattr__(name: str):
    if name == "create_app":
        from rates_xl.sandbox.app import create_app

        return create_app
    if name in ("start_in_thread", "RunningSandbox"):
        from rates_xl.sandbox import server

        return getattr(server, name)
    raise AttributeError(f"module 'rates_xl.sandbox' has no attribute {name!r}")
