"""The fixtures the asynchronous-RATES_ tests share (tests/addin/test_rtd_excel.py,
test_rtd_reopen.py): each test starts and ends with no refresh scope, no RTD wait and no
client installed, and `client` is one on the session sandbox installed as the UDFs' client.
A module takes them by importing them (`from tests.support.rtd_fixtures import clean, client`)."""

from __future__ import annotations

import pytest

from rates_xl.addin.classic import refresh, udfs
from rates_xl.client import RatesClient
from tests.support.async_excel import stop_async


@pytest.fixture(autouse=True)
def clean():
    refresh.clear_scopes()
    yield
    stop_async()
    refresh.clear_scopes()
    udfs.set_client(None)


@pytest.fixture
def client(sandbox, sandbox_key):
    live = RatesClient(base_url=sandbox.base_url, api_key=sandbox_key)
    udfs.set_client(live)
    yield live
    live.close()
