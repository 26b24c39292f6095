"""`rates-xl sandbox` starts, prints its URL and keys, serves, and refuses bad flags clearly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import requests

from rates_xl.cli import build_parser
from rates_xl.sandbox import EXPIRED_KEY, PAID_KEY, TRIAL_KEY

COMMAND = [sys.executable, "-c", "import sys; from rates_xl.cli import main; sys.exit(main())"]


def test_command_serves_and_prints_url_and_keys():
    proc = subprocess.Popen([*COMMAND, "sandbox", "--port", "0", "--rate-limit", "0.5", "--burst", "3",
                             "--extra-key", "team-key=trial"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        first = proc.stdout.readline()
        assert first.startswith("rates-xl sandbox serving at http://127.0.0.1:"), first
        base_url = first.split()[4]
        lines = [proc.stdout.readline() for _ in range(6)]
        printed = "".join(lines)
        for key in (PAID_KEY, TRIAL_KEY, EXPIRED_KEY, "team-key"):
            assert key in printed
        deadline = time.monotonic() + 20
        while True:
            try:
                response = requests.get(f"{base_url}/v1/fx", params={"currency_pair": "EURUSD"},
                                        headers={"x-api-key": "team-key"}, timeout=5)
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert response.status_code == 200 and 0.9 < response.json()["rate"] < 1.5
        statuses = [requests.get(f"{base_url}/v1/swap_rate_tenors", params={"index": "SOFR"},
                                 headers={"x-api-key": PAID_KEY}, timeout=5).status_code for _ in range(8)]
        assert statuses[:2] == [200, 200] and 429 in statuses  # --burst 3 took effect
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)


def test_bad_flags_are_one_clear_line():
    result = subprocess.run([*COMMAND, "sandbox", "--fail-rate", "2"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "--fail-rate: expected a number between 0 and 1" in result.stderr
    result = subprocess.run([*COMMAND, "sandbox", "--extra-key", "k=gold"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "KIND one of paid, trial, expired" in result.stderr


def test_port_in_use_is_a_clear_error(sandbox):
    result = subprocess.run([*COMMAND, "sandbox", "--port", str(sandbox.port)], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{sandbox.port}" in result.stderr and "Traceback" not in result.stderr


def test_parser_knows_the_flags_and_importing_it_stays_light():
    args = build_parser().parse_args(["sandbox", "--latency-ms", "20", "--storm-seconds", "3"])
    assert (args.latency_ms, args.storm_seconds, args.port) == (20.0, 3.0, 8765)
    check = subprocess.run([sys.executable, "-c", "import sys, rates_xl.sandbox.cli, rates_xl.sandbox; "
                            "print('QuantLib' in sys.modules or 'fastapi' in sys.modules)"],
                           capture_output=True, text=True, check=True, timeout=60)
    assert check.stdout.strip() == "False"


def test_shift_serves_the_curves_moved_and_says_so_on_start_and_in_every_answer(sandbox):
    """`rates-xl sandbox --shift SPEC`: a 10Y SOFR par rate (a pillar) moves by the parallel
    shift exactly; a fixing does not; the start line and each answer's header say SHIFTED."""
    proc = subprocess.Popen([*COMMAND, "sandbox", "--port", "0", "--shift", "SOFR+25bp"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        base_url = proc.stdout.readline().split()[4]
        assert proc.stdout.readline().startswith("SHIFTED curves: SOFR+25bp: a scenario, not the market")
        at = {"valuation_time": "2026-03-10T16:00:00Z"}
        swap = {"index": "SOFR", "start_date": "2D", "maturity_date": "10Y", "fixed_leg_frequency": "1Y", **at}
        deadline = time.monotonic() + 20
        while True:
            try:
                moved = requests.get(f"{base_url}/v1/swap_rate", params=swap, headers={"x-api-key": PAID_KEY},
                                     timeout=30)
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        base = requests.get(f"{sandbox.base_url}/v1/swap_rate", params=swap, headers={"x-api-key": PAID_KEY},
                            timeout=30).json()["swap_rate"]
        assert moved.headers["X-Rates-Scenario"] == "SOFR+25bp"
        assert abs(moved.json()["swap_rate"] - base - 0.25) < 1e-9
        fixing = {"index": "SOFR", "valuation_date": "2026-03-09"}
        assert requests.get(f"{base_url}/v1/fixing", params=fixing, headers={"x-api-key": PAID_KEY},
                            timeout=30).json() == \
            requests.get(f"{sandbox.base_url}/v1/fixing", params=fixing, headers={"x-api-key": PAID_KEY},
                         timeout=30).json()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)


def test_a_bad_shift_is_one_line_exit_2():
    for argv, says in [(["--shift", "SOFR+1"], "--shift: scenario 'SOFR+1': the amount is in bp"),
                       (["--shift", "SOFT+1bp"], "--shift: the sandbox has no index 'SOFT'"),
                       (["--shift", "SOFR:7Y+1bp"], "7Y is not one of the buckets"),
                       (["--buckets", "1Y,5Y"], "--buckets goes with --shift"),
                       (["--shift", "SOFR+1bp", "--pack", "x.json"], "--shift and --pack: choose one")]:
        result = subprocess.run([*COMMAND, "sandbox", "--port", "0", *argv], capture_output=True, text=True,
                                timeout=60)
        lines = result.stderr.strip().splitlines()
        assert result.returncode == 2 and len(lines) == 1 and says in lines[0], (argv, result.stderr)
