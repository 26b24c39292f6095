"""Sandbox test helpers: one HTTP getter over the session sandbox, a recent business day."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
import requests

from rates_xl.sandbox import PAID_KEY


class Api:
    def __init__(self, base_url: str):
        self.base_url = base_url
        self.session = requests.Session()

    def get(self, path: str, key: str | None = PAID_KEY, **params) -> requests.Response:
        headers = {"x-api-key": key} if key is not None else {}
        return self.session.get(f"{self.base_url}/v1/{path}", params=params, headers=headers, timeout=30)

    def ok(self, path: str, **params) -> dict:
        response = self.get(path, **params)
        assert response.status_code == 200, response.text
        return response.json()


@pytest.fixture(scope="session")
def api(sandbox) -> Api:
    return Api(sandbox.base_url)


@pytest.fixture(scope="session")
def past_day() -> date:
    """A fixed past weekday that is a business day on every calendar the tests use."""
    return date(2026, 3, 10)


def stamp(day: date, hour: int = 16) -> str:
    return f"{day.isoformat()}T{hour:02d}:00:00Z"


def yesterday() -> date:
    return datetime.now(UTC).date() - timedelta(days=1)
