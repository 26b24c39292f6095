"""Fixtures shared by every test folder: a running sandbox over real HTTP on loopback.

Area-specific fixtures belong in tests/<area>/conftest.py.
"""

from __future__ import annotations

import pytest

from rates_xl.sandbox import PAID_KEY


@pytest.fixture(scope="session")
def sandbox():
    """One sandbox for the session, with limits generous enough that no suite is throttled."""
    from rates_xl.sandbox.server import start_in_thread

    with start_in_thread(rate_limit=1000, burst=1000) as running:
        yield running


@pytest.fixture
def sandbox_factory():
    """Start sandboxes with given knobs, e.g. `sandbox_factory(rate_limit=5, burst=2)`;
    each is stopped when the test ends."""
    from rates_xl.sandbox.server import start_in_thread

    started = []

    def start(**knobs):
        running = start_in_thread(**knobs)
        started.append(running)
        return running

    yield start
    for running in started:
        running.stop()


@pytest.fixture
def sandbox_key() -> str:
    """The sandbox's built-in paid key (everything allowed)."""
    return PAID_KEY
