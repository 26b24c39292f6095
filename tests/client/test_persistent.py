"""The persistent tier: immutable answers on disk, across processes and restarts, against the
sandbox over loopback. The sandbox's own arrival log counts what was really sent."""

from __future__ import annotations

import logging
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path

import openpyxl
import pytest

from rates_xl.client import AuthError, RatesClient
from rates_xl.client.cache import Entry
from rates_xl.client.client import RequestKey
from rates_xl.client.persistent import DiskTier
from rates_xl.sandbox import PAID_KEY, TRIAL_KEY
from tests.support.team_worker import run_workers

ROOT = Path(__file__).parents[2]
PAST = "2026-03-10T16:00:00Z"


def _client(service, folder: Path, key: str = PAID_KEY, **settings) -> RatesClient:
    return RatesClient(base_url=service.base_url, api_key=key, cache_dir=str(folder), **settings)


def _sent(service, since: float) -> int:
    return sum(1 for a in service.arrivals if a.at >= since)


def _calc(service, folder: Path, book: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    env = {"RATES_BASE_URL": service.base_url, "RATES_API_KEY": PAID_KEY,
           "RATES_CACHE_DIR": str(folder), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "rates_xl.cli", "calc", str(book), "-o", str(out),
                           "--no-progress", *extra], env=env, capture_output=True, text=True, timeout=180)


def _values(book: Path) -> list:
    sheet = openpyxl.load_workbook(book, data_only=True)["History"]
    return [sheet[f"C{row}"].value for row in range(11, 40)]


@pytest.mark.parametrize("valued", ["now", "as of a past close"])
def test_the_history_workbook_reopened_in_a_new_process_fetches_no_history(sandbox_factory, tmp_path, valued):
    """The year of closes comes back from disk. Valued now, the template asks the service for
    one live answer, its valuation date (a discount curve's first date: the template takes
    its dates from the service, never from TODAY(), so Excel does not recalculate it on
    open); valued as of a past close, that answer is immutable too and nothing is sent."""
    service = sandbox_factory(rate_limit=1000, burst=1000)
    folder = tmp_path / "cache"
    pinned = ("--valuation-time", PAST) if valued != "now" else ()
    started = time.time()
    first = _calc(service, folder, ROOT / "templates" / "history.xlsx", tmp_path / "first.xlsx", *pinned)
    assert first.returncode == 0, first.stderr[-2000:]
    assert any(a.path.endswith("/historical_swap_rates") for a in service.arrivals if a.at >= started)
    reopened = time.time()
    second = _calc(service, folder, ROOT / "templates" / "history.xlsx", tmp_path / "second.xlsx", *pinned)
    assert second.returncode == 0, second.stderr[-2000:]
    sent = [a.path for a in service.arrivals if a.at >= reopened]
    assert sent == ([] if pinned else ["/v1/discount_curve"])
    assert _values(tmp_path / "second.xlsx") == _values(tmp_path / "first.xlsx")
    assert isinstance(_values(tmp_path / "second.xlsx")[0], int | float)  # observations counted


def _past_fixings(index: str, count: int) -> list[list]:
    """Tuesdays to Thursdays of 2025 from February, but Juneteenth and May Day: days that
    both SOFR and SONIA fixed."""
    days, day = [], date(2025, 2, 4)
    while len(days) < count:
        if day.weekday() in (1, 2, 3) and day not in (date(2025, 5, 1), date(2025, 6, 19)):
            days.append(["fixing", {"index": index, "valuation_date": day.isoformat()}])
        day += timedelta(days=1)
    return days


def test_two_processes_writing_at_once_lose_nothing(sandbox_factory, tmp_path):
    service = sandbox_factory(rate_limit=1000, burst=1000)
    folder = tmp_path / "cache"
    requests = {"SOFR": _past_fixings("SOFR", 60), "SONIA": _past_fixings("SONIA", 60)}
    start_at = time.time() + 3
    specs = [{"base_url": service.base_url, "api_key": PAID_KEY, "requests": reqs, "start_at": start_at,
              "threads": 8, "settings": {"cache_dir": str(folder)}} for reqs in requests.values()]
    for result in run_workers(specs):
        assert result["errors"] == [] and result["answered"] == 60, result["errors"]
    assert _sent(service, start_at - 1) == 120
    reader = _client(service, folder)
    try:
        before = time.time()
        for endpoint, params in requests["SOFR"] + requests["SONIA"]:
            reader.get(endpoint, **params)
        assert _sent(service, before) == 0
        assert reader.stats()["persistent_hits"] == 120
        from rates_xl.functions import using_client
        from rates_xl.functions.table import FUNCTIONS

        with using_client(reader):
            status = {row[0]: row[1] for row in FUNCTIONS["RATES_STATUS"].core()}
        assert status["Persistent hits"] == 120 and status["Requests sent"] == 0
        assert status["Persistent cache"].startswith("on")
    finally:
        reader.close()


def _fill(service, folder: Path, count: int = 30) -> dict:
    client = _client(service, folder)
    try:
        return {tuple(p.items()): client.get(e, **p).fixing_rate for e, p in _past_fixings("SOFR", count)}
    finally:
        client.close()


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_a_damaged_store_is_set_aside_and_rebuilt_with_one_warning(sandbox_factory, tmp_path, caplog, damage):
    service = sandbox_factory(rate_limit=1000, burst=1000)
    folder = tmp_path / "cache"
    answers = _fill(service, folder)
    db = folder / "cache.db"
    if damage == "garbage":
        db.write_bytes(b"this is not a database, it is what a bad disk left behind\n" * 400)
    else:
        with db.open("r+b") as handle:
            handle.truncate(db.stat().st_size // 3)
    client = _client(service, folder)
    try:
        with caplog.at_level(logging.WARNING, logger="rates_xl.client"):
            for (params, rate) in answers.items():
                assert client.get("fixing", **dict(params)).fixing_rate == rate
        warnings = [r for r in caplog.records if "persistent cache" in r.getMessage()]
        assert len(warnings) == 1, [r.getMessage() for r in warnings]
        assert "could not be read" in warnings[0].getMessage()
        assert list(folder.glob("broken-*")), "the damaged store was not set aside"
        assert client.stats()["persistent"].startswith("on")
    finally:
        client.close()
    # The rebuilt store works: a new process-like client answers from it.
    again = _client(service, folder)
    try:
        before = time.time()
        for params, rate in answers.items():
            assert again.get("fixing", **dict(params)).fixing_rate == rate
        assert _sent(service, before) == 0
    finally:
        again.close()


def test_recovery_moves_only_the_stores_own_files(sandbox_factory, tmp_path):
    """RATES_CACHE_DIR may point at a folder that holds other things: recovering a damaged
    store must leave them exactly where they were (it used to rename the whole folder)."""
    service = sandbox_factory(rate_limit=1000, burst=1000)
    folder = tmp_path / "shared-folder"
    folder.mkdir()
    thesis = folder / "thesis.docx"
    thesis.write_bytes(b"PK\x03\x04 four years of work")
    notes = folder / "ab"  # a two-hex-digit name, like diskcache's value folders, but not one
    notes.mkdir()
    (notes / "notes.txt").write_text("mine")
    answers = _fill(service, folder, count=5)
    (folder / "cache.db").write_bytes(b"\0garbage" * 5000)
    client = _client(service, folder)
    try:
        for params, rate in answers.items():
            assert client.get("fixing", **dict(params)).fixing_rate == rate
        assert client.stats()["persistent"].startswith("on")
    finally:
        client.close()
    assert thesis.read_bytes() == b"PK\x03\x04 four years of work"
    assert (notes / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shared-folder"]  # nothing renamed
    aside = list(folder.glob("broken-*"))
    assert len(aside) == 1 and (aside[0] / "cache.db").read_bytes().startswith(b"\0garbage")
    assert not (aside[0] / "thesis.docx").exists() and not (aside[0] / "ab").exists()


def test_a_store_that_cannot_be_created_leaves_the_client_working_in_memory(sandbox, tmp_path, caplog):
    blocker = tmp_path / "a-file"
    blocker.write_text("a file where the cache folder should be")
    client = _client(sandbox, blocker / "cache")
    try:
        assert client.fixing("SOFR", "2025-02-04").fixing_rate > 0
        assert client.fixing("SOFR", "2025-02-04").fixing_rate > 0
        assert client.stats()["requests_sent"] == 1
        assert client.stats()["persistent"].startswith("off")
    finally:
        client.close()


def test_only_immutable_answers_go_to_disk(sandbox, tmp_path):
    client = _client(sandbox, tmp_path / "cache")
    try:
        client.swap_rate("SOFR", "0D", "10Y", "1Y")
        client.swap_curve("SOFR")
        client.fx_spot("EURUSD")
        client.fx_forward("EURUSD", "2027-01-04")
        client.swap_rate_tenors("SOFR")
        client.historical_swap_rates("SOFR", "10Y", date.today() - timedelta(days=30), date.today())
        assert client.cache.disk.info().get("answers", 0) == 0  # live data: never on disk
        client.swap_rate("SOFR", "0D", "10Y", "1Y", valuation_time=PAST)
        client.fx_spot("EURUSD", valuation_time=PAST)
        client.fixing("SOFR", "2025-02-04")
        client.historical_swap_rates("SOFR", "10Y", "2025-01-02", "2025-02-28")
        assert client.cache.disk.info()["answers"] == 4
    finally:
        client.close()


def test_a_trial_key_never_reads_what_a_paid_key_stored(sandbox, tmp_path):
    paid = _client(sandbox, tmp_path / "cache")
    trial = _client(sandbox, tmp_path / "cache", key=TRIAL_KEY)
    try:
        assert paid.swap_rate("SOFR", "0D", "10Y", "1Y", valuation_time=PAST).swap_rate > 0
        with pytest.raises(AuthError):
            trial.swap_rate("SOFR", "0D", "10Y", "1Y", valuation_time=PAST)
        assert trial.stats()["persistent_hits"] == 0
        raw = b"".join(p.read_bytes() for p in (tmp_path / "cache").iterdir() if p.is_file())
        assert PAID_KEY.encode() not in raw
    finally:
        paid.close()
        trial.close()


def test_the_store_is_bounded_and_the_least_recently_used_go_first(sandbox, tmp_path):
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, persistent=False)
    try:
        history = client.historical_swap_rates("SOFR", "10Y", "2025-01-02", "2025-02-28")
    finally:
        client.close()
    tier = DiskTier(tmp_path / "cache", "scope", size_mb=0.2, ttl=60)

    def key(n: int) -> RequestKey:
        return RequestKey("historical_swap_rates", (("end_date", "2025-02-28"), ("index", "SOFR"),
                                                    ("start_date", f"2025-01-02#{n}"), ("tenor", "10Y")))

    for n in range(600):
        tier.put(key(n), Entry(history, time.time(), 60))
        if n % 20 == 0:
            assert tier.get(key(0)) is not None, n  # kept in use: never evicted
    info = tier.info()
    assert info["answers"] < 600 and info["bytes"] <= 0.3 * 1024 * 1024, info
    assert tier.get(key(1)) is None  # written once, never read: among the first to go
    assert tier.get(key(599)) is not None
    tier.close()


def test_clear_cache_empties_memory_and_disk(sandbox, tmp_path):
    client = _client(sandbox, tmp_path / "cache")
    try:
        client.fixing("SOFR", "2025-02-04")
        client.clear_cache()
        assert client.cache.disk.info()["answers"] == 0
        client.fixing("SOFR", "2025-02-04")
        assert client.stats()["requests_sent"] == 2
    finally:
        client.close()


def test_two_open_clients_survive_damage_under_them_with_one_set_aside(sandbox_factory, tmp_path, caplog):
    service = sandbox_factory(rate_limit=1000, burst=1000)
    folder = tmp_path / "cache"
    answers = _fill(service, folder, count=10)
    first, second = _client(service, folder), _client(service, folder)
    try:
        some = next(iter(answers))
        first.get("fixing", **dict(some))
        second.get("fixing", **dict(some))  # both have the store open
        (folder / "cache.db").write_bytes(b"\0garbage" * 5000)
        with caplog.at_level(logging.WARNING, logger="rates_xl.client"):
            for client in (first, second, first, second):
                client.cache.memory.clear()  # memory empty: every read goes to the disk
                for params, rate in answers.items():
                    assert client.get("fixing", **dict(params)).fixing_rate == rate
        warnings = [r.getMessage() for r in caplog.records if "persistent cache" in r.getMessage()]
        assert 1 <= len(warnings) <= 2, warnings  # at most one per client, however often they read
        assert len(list(folder.glob("broken-*"))) <= 2
        assert first.stats()["persistent"].startswith("on") and second.stats()["persistent"].startswith("on")
    finally:
        first.close()
        second.close()


def test_a_value_this_tier_did_not_write_is_a_miss(sandbox, tmp_path):
    import diskcache

    client = _client(sandbox, tmp_path / "cache")
    try:
        key = client.request_key("fixing", index="SOFR", valuation_date="2025-02-04")
        client.fixing("SOFR", "2025-02-04")
        name = client.cache.disk._key(key)
        client.close()
        with diskcache.Cache(str(tmp_path / "cache")) as raw:
            raw.set(name, {"not": "json text"})  # stored as a pickle by someone else
        again = _client(sandbox, tmp_path / "cache")
        assert again.fixing("SOFR", "2025-02-04").fixing_rate > 0
        assert again.stats()["requests_sent"] == 1 and again.stats()["persistent_hits"] == 0
        again.close()
    finally:
        client.close()
