"""rates_xl.sandbox: a local reference Rates Data Service (FastAPI + uvicorn + QuantLib).

Import-light on purpose: the key constants are here; the app and the server (which pull
in FastAPI and QuantLib) load on first use of `create_app` or `start_in_thread`.
"""

from __future__ import annotations

PAID_KEY = "sandbox-paid"  # everything allowed
TRIAL_KEY = "sandbox-trial"  # live data only: valuation_time / valuation_date refused
EXPIRED_KEY = "sandbox-expired"  # every request refused: the trial is over
BUILTIN_KEYS = {PAID_KEY: "paid", TRIAL_KEY: "trial", EXPIRED_KEY: "expired"}
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
