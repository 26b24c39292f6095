"""The rates client: `RatesClient`, its typed results and its errors."""

from rates_xl.client.client import RatesClient, RequestKey
from rates_xl.client.errors import (
    AuthError,
    BadRequest,
    InvalidResponse,
    NotFetched,
    NotFound,
    RateLimited,
    RatesError,
    ServerError,
    ServiceUnavailable,
    Unprocessable,
)
from rates_xl.client.settings import Settings

__all__ = [
    "RatesClient", "RequestKey", "Settings", "RatesError", "BadRequest", "AuthError", "NotFound",
    "Unprocessable", "RateLimited", "ServerError", "ServiceUnavailable", "InvalidResponse",
    "NotFetched",
]
