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
