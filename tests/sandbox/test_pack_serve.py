"""`rates-xl sandbox --pack`: a pack's answers over real HTTP, so Excel's add-in can replay."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
import requests

from rates_xl.client import RatesClient, errors
from rates_xl.client.pack import loads
from rates_xl.sandbox.pack_app import create_pack_app
from rates_xl.sandbox.server import start_in_thread

COMMAND = [sys.executable, "-c", "import sys; from rates_xl.cli import main; sys.exit(main())"]
CALLS = [("swap_rate", dict(index="SOFR", start_date="0D", maturity_date="10Y", fixed_leg_frequency="1Y")),
         ("fx_spot", dict(currency_pair="EURUSD")),
         ("discount_curve", dict(index="SOFR", start_date="0D", end_date="2Y", frequency="6M"))]


@pytest.fixture
def recorded(sandbox, sandbox_key, monkeypatch):
    """A pack recorded against the real sandbox, and the answers as parsed live."""
    monkeypatch.setenv("RATES_PERSISTENT", "false")
    with RatesClient(base_url=sandbox.base_url, api_key=sandbox_key) as client, client.recording() as recorder:
        live = [client.get(name, **params) for name, params in CALLS]
        with pytest.raises(errors.Unprocessable):
            client.fx_spot("XXXYYY")
    return loads(recorder.pack().dumps()), live


def test_the_pack_server_answers_byte_for_byte_and_nothing_else(recorded, monkeypatch):
    pack, live = recorded
    monkeypatch.delenv("RATES_API_KEY", raising=False)
    with start_in_thread(app=create_pack_app(pack)) as served:
        with RatesClient(base_url=served.base_url, persistent=False) as client:  # no key at all
            assert [client.get(name, **params) for name, params in CALLS] == live
            with pytest.raises(errors.Unprocessable) as refused:  # the recorded refusal, again
                client.fx_spot("XXXYYY")
            assert "XXXYYY" in str(refused.value)
            with pytest.raises(errors.NotFound) as missing:
                client.fx_spot("GBPUSD")
        assert "not in the market-data pack: fx_spot GBPUSD" in str(missing.value)
        assert "replay cannot ask the service" in str(missing.value)
        for answer in pack.answers:
            if answer.answer is not None:
                body = requests.get(served.base_url + _path(answer.endpoint), params=dict(answer.params),
                                    timeout=10)
                assert body.status_code == 200 and body.text == answer.answer
        unknown = requests.get(served.base_url + "/v1/nothing_here", timeout=10)
        assert unknown.status_code == 404 and "not in the market-data pack" in unknown.json()["detail"]


def _path(endpoint: str) -> str:
    from rates_xl.client.endpoints import ENDPOINTS

    return ENDPOINTS[endpoint].path


def test_the_command_serves_a_pack_file(recorded, tmp_path):
    pack, _ = recorded
    path = pack.write(tmp_path / "book.pack.json")
    proc = subprocess.Popen([*COMMAND, "sandbox", "--port", "0", "--pack", str(path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        first = proc.stdout.readline()
        assert first.startswith("rates-xl sandbox replaying book.pack.json at http://127.0.0.1:"), first
        assert f"{len(pack.answers)} answers" in first
        base_url = first.split()[5].rstrip(":")
        deadline = time.monotonic() + 20
        while True:
            try:
                response = requests.get(f"{base_url}/v1/fx", params={"currency_pair": "EURUSD"}, timeout=5)
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        recorded_fx = next(a for a in pack.answers if a.endpoint == "fx_spot" and a.answer)
        assert response.status_code == 200 and response.text == recorded_fx.answer
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)


def test_a_file_that_is_not_a_pack_is_one_line(tmp_path):
    bad = tmp_path / "bad.pack.json"
    bad.write_text('{"kind": "rates-xl market-data pack", "version": 9}')
    result = subprocess.run([*COMMAND, "sandbox", "--pack", str(bad)], capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "version 9 is not supported" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_replay_with_the_sandbox_stopped_gives_the_same_answers(sandbox_factory, sandbox_key, monkeypatch):
    monkeypatch.setenv("RATES_PERSISTENT", "false")
    running = sandbox_factory(rate_limit=1000, burst=1000)
    with RatesClient(base_url=running.base_url, api_key=sandbox_key) as client, client.recording() as recorder:
        live = [client.get(name, **params) for name, params in CALLS]
    running.stop()
    with pytest.raises(errors.ServiceUnavailable), RatesClient(base_url=running.base_url, max_attempts=1) as gone:
        gone.fx_spot("EURUSD")  # really stopped
    with RatesClient(replay=loads(recorder.pack().dumps())) as offline:
        assert [offline.get(name, **params) for name, params in CALLS] == live


def test_a_scenario_pack_is_never_served(sandbox, sandbox_key, tmp_path, monkeypatch):
    """Served over HTTP, a scenario's answers would reach cells as a service's: refused."""
    from rates_xl.client.pack_seal import seal
    from rates_xl.scenario.apply import apply, prepare
    from rates_xl.scenario.spec import parse

    monkeypatch.setenv("RATES_PERSISTENT", "false")
    with RatesClient(base_url=sandbox.base_url, api_key=sandbox_key) as client:
        with client.recording() as recorder:
            client.swap_rate("SOFR", "2D", "10Y", "1Y", valuation_time="2026-03-10T16:00:00Z")
        under = seal(apply(prepare(recorder.pack(), client), parse("SOFR+1bp")), None)
    path = under.write(tmp_path / "scenario.pack.json")
    result = subprocess.run([*COMMAND, "sandbox", "--port", "0", "--pack", str(path)], capture_output=True,
                            text=True, timeout=60)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 1 and len(lines) == 1, result.stderr
    assert "holds a scenario's pack (SOFR+1bp): its answers are not market data and are not served" in lines[0]
