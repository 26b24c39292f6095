"""Fixtures for the worksheet functions: a client on the session sandbox, set as the shared one."""

from __future__ import annotations

import pytest

from rates_xl.addin.classic import refresh
from rates_xl.client import RatesClient
from rates_xl.functions import core
from tests.support.timing import PATIENT


@pytest.fixture(autouse=True)
def _isolated_functions(monkeypatch):
    """No test sees another's shared client or refresh scopes, nor the developer's settings."""
    for name in ("RATES_BASE_URL", "RATES_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    refresh.clear_scopes()
    yield
    core.set_client(None)
    refresh.clear_scopes()


@pytest.fixture
def client(sandbox, sandbox_key):
    """A fresh client (empty cache, zeroed counters) on the sandbox, used by every RATES_* call."""
    made = RatesClient(base_url=sandbox.base_url, api_key=sandbox_key, **PATIENT)
    core.set_client(made)
    yield made
    made.close()


@pytest.fixture
def offline_client():
    """A client whose every request would fail at once (nothing listens on port 9): for
    tests that must not reach any service, and prove it with its counters."""
    made = RatesClient(base_url="http://127.0.0.1:9", api_key="offline-test-key", max_attempts=1)
    core.set_client(made)
    yield made
    made.close()
