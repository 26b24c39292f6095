"""The rates client: `RatesClient`, its typed results and its errors.

Names are loaded on first use (PEP 562), so light modules such as
`rates_xl.client.daycounts` can be imported by the UDF module without paying for
requests, tenacity and pydantic at Excel's start-up.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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


def __getattr__(name: str) -> Any:
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
