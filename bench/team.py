"""Team and persistent tiers (issue 14).

Team: 4 client processes x 250 requests, half of them the same 125 in every process, one
API key, the sandbox at the service's own limits (20/s, burst 50) and 30 ms latency, one
real redis-server on loopback. Each process fetches its 250 with 8 threads (`fetch_many`,
as the headless calc and the ribbon do). The sandbox's own arrival log is the judge:
429s (target 0), requests sent / distinct requests across all processes (target 1.00), and
wall time / the bound for the distinct set, (625 - 50) / 20 = 28.75 s (target <= 1.15).
One run of the same processes without the team backend is the contrast.

Restart: 1 process x 160 requests against the same sandbox, Redis killed 40 requests into
the fill and restarted empty (no persistence) 1.5 s later: 429s received (target 0; 34 before the
limiter started failovers from an empty bucket) and the wall time against the bound
(160 - 50) / 20 = 5.5 s.

Persistent: `rates-xl calc templates/history.xlsx` in a fresh process, twice, one cache
folder: requests sent when the workbook is reopened (target 0) and the time of each run.
"""

from __future__ import annotations

import collections
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import figure, main_for, result
from tests.support.redis_server import REDIS_BINARY, RedisServer
from tests.support.team_worker import run_workers

PROCESSES, PER_PROCESS, SHARED, THREADS = 4, 250, 125, 8
RATE, BURST, LATENCY_MS = 20.0, 50, 30
ROOT = Path(__file__).resolve().parents[1]


def _requests(worker: int) -> list:
    """125 shared (the same in every process) and 125 of this process's own, interleaved."""
    def swap(index: str, start: str, years: int) -> list:
        return ["swap_rate", {"index": index, "start_date": start, "maturity_date": f"{years}Y",
                              "fixed_leg_frequency": "1Y"}]

    shared = [swap(index, f"{m}M", y) for index in ("ESTR", "SONIA", "SOFR")
              for m in (1, 2, 3, 4, 5) for y in range(1, 10)][:SHARED]
    own = [swap(index, f"{12 + worker * 12 + m}M", y) for index in ("SOFR", "ESTR", "SONIA")
           for m in range(1, 6) for y in range(1, 10)][:PER_PROCESS - SHARED]
    mixed = [r for pair in zip(shared, own, strict=True) for r in pair]
    return mixed


def _team_run(redis_url: str | None) -> dict:
    from rates_xl.sandbox import PAID_KEY
    from rates_xl.sandbox.server import start_in_thread

    settings = {"persistent": False}
    if redis_url:
        settings["team_url"] = redis_url
    with start_in_thread(rate_limit=RATE, burst=BURST, latency_ms=LATENCY_MS) as sandbox:
        start_at = time.time() + 4
        specs = [{"base_url": sandbox.base_url, "api_key": PAID_KEY, "requests": _requests(w),
                  "start_at": start_at, "threads": THREADS, "settings": settings}
                 for w in range(PROCESSES)]
        results = run_workers(specs, timeout=300)
        arrivals = [a for a in sandbox.arrivals if a.at >= start_at - 1]
    distinct = len({tuple(map(tuple, (r[0], sorted(r[1].items())))) for w in range(PROCESSES)
                    for r in _requests(w)})
    statuses = collections.Counter(a.status for a in arrivals)
    wall = max(r["seconds"] for r in results)
    bound = (distinct - BURST) / RATE
    return {"429s": statuses.get(429, 0), "ok": statuses.get(200, 0), "distinct": distinct,
            "ratio": statuses.get(200, 0) / distinct, "wall": wall, "bound": bound,
            "wall_ratio": wall / bound,
            "unanswered": sum(PER_PROCESS - r["answered"] for r in results)}


def _restart_run(redis: RedisServer) -> dict:
    from rates_xl.sandbox import PAID_KEY
    from rates_xl.sandbox.server import start_in_thread

    requests = [["swap_rate", {"index": "SOFR", "start_date": f"{n % 16 + 1}M",
                               "maturity_date": f"{n // 16 + 1}Y", "fixed_leg_frequency": "1Y"}]
                for n in range(160)]
    with start_in_thread(rate_limit=RATE, burst=BURST, latency_ms=LATENCY_MS) as sandbox:
        start_at = time.time() + 4
        spec = {"base_url": sandbox.base_url, "api_key": PAID_KEY, "requests": requests,
                "start_at": start_at, "threads": THREADS,
                "settings": {"team_url": redis.url, "persistent": False, "team_retry": 0.3,
                             "max_attempts": 8, "deadline": 60}}

        outage = redis.restart_empty_when(lambda: len(sandbox.arrivals) >= 40, down=1.5)
        [worker] = run_workers([spec], timeout=300)
        outage.join(10)
        statuses = collections.Counter(a.status for a in sandbox.arrivals if a.at >= start_at - 1)
    return {"429s": statuses.get(429, 0), "wall": worker["seconds"],
            "wall_ratio": worker["seconds"] / ((len(requests) - BURST) / RATE)}


def _forget_answers(redis: RedisServer) -> None:
    """Empty the team's answers between runs, as a new day would, but keep the marker that
    says this Redis has kept the bucket (a restarted one starts the bucket empty)."""
    store = redis.client()
    names = [n for n in store.scan_iter(match="rates-xl:*") if n != b"rates-xl:v1:kept"]
    if names:
        store.delete(*names)


def _calc(base_url: str, folder: str, out: Path) -> float:
    from rates_xl.sandbox import PAID_KEY

    env = {**os.environ, "RATES_BASE_URL": base_url, "RATES_API_KEY": PAID_KEY, "RATES_CACHE_DIR": folder,
           "RATES_PERSISTENT": "true"}
    env.pop("RATES_TEAM_URL", None)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "rates_xl.cli", "calc", str(ROOT / "templates" / "history.xlsx"),
                           "-o", str(out), "--no-progress", "--force"],
                          env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"rates-xl calc failed: {done.stderr[-2000:]}")
    return time.perf_counter() - started


def _history_run() -> dict:
    from rates_xl.sandbox.server import start_in_thread

    folder = tempfile.mkdtemp(prefix="rates-xl-bench-cache-")
    try:
        with start_in_thread(rate_limit=RATE, burst=BURST, latency_ms=LATENCY_MS) as sandbox:
            first_at = time.time()
            first = _calc(sandbox.base_url, folder, Path(folder) / "first.xlsx")
            sent_first = sum(1 for a in sandbox.arrivals if a.at >= first_at)
            again_at = time.time()
            again = _calc(sandbox.base_url, folder, Path(folder) / "again.xlsx")
            sent_again = sum(1 for a in sandbox.arrivals if a.at >= again_at)
            history_again = sum(1 for a in sandbox.arrivals
                                if a.at >= again_at and a.path.endswith("/historical_swap_rates"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {"first": first, "again": again, "sent_first": sent_first, "sent_again": sent_again,
            "history_again": history_again}


def run(runs: int = 3) -> dict:
    if REDIS_BINARY is None:
        raise RuntimeError("redis-server is not installed (Debian: apt-get install redis-server)")
    redis = RedisServer().start()
    try:
        team = []
        for _ in range(runs):
            _forget_answers(redis)
            team.append(_team_run(redis.url))
        solo = _team_run(None)
        restarts = [_restart_run(redis) for _ in range(runs)]
    finally:
        redis.stop()
    history = [_history_run() for _ in range(runs)]
    col = lambda rows, name: [r[name] for r in rows]  # noqa: E731
    bound = team[0]["bound"]
    return result(
        "team", f"Team: {PROCESSES} processes x {PER_PROCESS} requests ({SHARED} shared), one key, "
        f"sandbox {RATE:g}/s burst {BURST}, {LATENCY_MS} ms; history template reopened",
        [
            figure("team: 429s received", col(team, "429s"), "", target=0, digits=0),
            figure("team: requests sent / distinct", col(team, "ratio"), "x", target=1.0),
            figure(f"team: wall time / bound ({bound:g} s)", col(team, "wall_ratio"), "x",
                   target=1.15),
            figure("team: wall time", col(team, "wall"), "s"),
            figure("team: cells without an answer", col(team, "unanswered"), "", target=0, digits=0),
            figure("solo (no team), 1 run: 429s received", [solo["429s"]], "", digits=0),
            figure("solo (no team), 1 run: requests sent / distinct", [solo["ratio"]], "x"),
            figure("solo (no team), 1 run: wall time / bound", [solo["wall_ratio"]], "x"),
            figure("Redis restarted empty mid-fill: 429s received", col(restarts, "429s"), "",
                   target=0, digits=0),
            figure("Redis restarted empty mid-fill: wall time / bound (5.5 s)",
                   col(restarts, "wall_ratio"), "x"),
            figure("history reopened: history requests sent", col(history, "history_again"), "",
                   target=0, digits=0),
            # The one live answer a reopen asks for: the template's valuation date (a discount
            # curve's first date; the templates never read TODAY(), see templates/layout.py).
            figure("history reopened: all requests sent", col(history, "sent_again"), "", digits=0),
            figure("history reopened: rates-xl calc time", col(history, "again"), "s"),
            figure("history first open: requests sent", col(history, "sent_first"), "", digits=0),
            figure("history first open: rates-xl calc time", col(history, "first"), "s"),
        ],
        runs=runs,
        setup={"processes": PROCESSES, "per_process": PER_PROCESS, "shared": SHARED,
               "threads": THREADS, "rate_limit": RATE, "burst": BURST, "latency_ms": LATENCY_MS,
               "distinct": team[0]["distinct"], "redis": "redis-server on 127.0.0.1"},
        notes=[
            "The sandbox runs in the benchmark's own process; its arrival log counts what was sent.",
            "calc times include starting Python and loading the workbook into the engine.",
        ],
    )


if __name__ == "__main__":
    main_for(run, 3)
