"""A fault-injecting `Transport` (client/transport.py) over a real one: the attempts a test
names fail as the network or the service would make them fail, the others go through.

The client cannot tell it from a bad network: it is the transport layer, exactly where
`HTTPTransport` raises, so the client's retries, breaker, deadlines and cache are what a
test exercises, against a real server (the fault server or the sandbox) for every attempt
it lets through.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rates_xl.client.transport import Answer, Transport


def dropped(endpoint: str = "swap_rate") -> BaseException:
    """What `HTTPTransport` raises when the connection died before an HTTP answer."""
    from rates_xl.client.errors import ServiceUnavailable

    error = ServiceUnavailable("cannot reach the service (connection reset by the test)", endpoint=endpoint)
    error.transport_failure = True
    return error


class FaultyTransport:
    """`inner`'s attempts, but the n-th one raises `faults[n]` where that is not None (an
    attempt past the list goes through). Counts every attempt and what reached `inner`."""

    def __init__(self, inner: Transport, faults: Iterable[BaseException | Callable[[], BaseException] | None]) -> None:
        self.inner = inner
        self._faults = list(faults)
        self.attempts = 0
        self.passed = 0
        self._lock = threading.Lock()

    def fetch(self, endpoint: str, path: str, params: dict[str, str], timeout: float, *,
              before_redirect: Callable[[str], None] | None = None) -> Answer:
        with self._lock:
            n, self.attempts = self.attempts, self.attempts + 1
        fault = self._faults[n] if n < len(self._faults) else None
        if fault is not None:
            raise fault() if callable(fault) else fault
        with self._lock:
            self.passed += 1
        return self.inner.fetch(endpoint, path, params, timeout, before_redirect=before_redirect)

    def close(self) -> None:
        self.inner.close()
