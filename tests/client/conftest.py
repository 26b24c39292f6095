import pytest

from rates_xl.client import RatesClient
from tests.support.faultserver import FaultServer
from tests.support.redis_server import redis_server, tls_redis_server  # noqa: F401  (real redis-servers, for the team tests)

# A fake key: printed nowhere, searched for everywhere.
SECRET = "sk-test-6f1c2e9a-DO-NOT-PRINT"


@pytest.fixture
def server():
    fault_server = FaultServer()
    yield fault_server
    fault_server.stop()


@pytest.fixture
def other():
    """A second server: another origin (another port) that must never see the key; it
    records every request, headers and all."""
    elsewhere = FaultServer()
    yield elsewhere
    elsewhere.stop()


@pytest.fixture
def make_client(server, monkeypatch):
    """Clients pointed at the fault server, fast retries, no keychain lookups."""
    monkeypatch.delenv("RATES_API_KEY", raising=False)
    clients = []

    def make(**settings):
        settings.setdefault("backoff", 0.01)
        settings.setdefault("max_backoff", 0.05)
        client = RatesClient(base_url=server.base_url, api_key=SECRET, **settings)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()
