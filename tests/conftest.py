"""Fixtures shared by every test folder: a running sandbox over real HTTP on loopback.

Area-specific fixtures belong in tests/<area>/conftest.py.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from rates_xl.sandbox import PAID_KEY

# An xdist worker's exit on a busy machine, the longest files first, and the bytecode compiled
# once: tests/support/worker_exit.py, file_order.py and bytecode.py say why.
pytest_plugins = ["tests.support.worker_exit", "tests.support.file_order", "tests.support.bytecode"]

# Tests never write to the user's cache folder nor join a developer's team: every client
# (and every subprocess) keeps its persistent tier in a temporary folder, and solo.
_SESSION_CACHE_DIR = tempfile.mkdtemp(prefix="rates-xl-tests-")
os.environ["RATES_CACHE_DIR"] = _SESSION_CACHE_DIR
os.environ.pop("RATES_TEAM_URL", None)
os.environ.pop("RATES_PERSISTENT", None)  # the tier is on by default, as users get it


def pytest_unconfigure(config):
    """The folder above goes when this process's session ends (the controller and each xdist
    worker import this file, so each made one): left behind, every run added a few to /tmp."""
    shutil.rmtree(_SESSION_CACHE_DIR, ignore_errors=True)


@pytest.fixture(autouse=True)
def _own_persistent_cache(tmp_path_factory, monkeypatch):
    """Each test starts with an empty persistent tier, so no answer leaks between tests."""
    monkeypatch.setenv("RATES_CACHE_DIR", str(tmp_path_factory.mktemp("rates-cache")))


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
