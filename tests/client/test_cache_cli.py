"""`rates-xl cache info|clear`, run through the console script's entry point."""

from __future__ import annotations

from rates_xl.cli import main
from rates_xl.client import RatesClient
from rates_xl.sandbox import PAID_KEY
from tests.support.redis_server import needs_redis


def _env(monkeypatch, sandbox, folder, team_url=None):
    monkeypatch.setenv("RATES_BASE_URL", sandbox.base_url)
    monkeypatch.setenv("RATES_API_KEY", PAID_KEY)
    monkeypatch.setenv("RATES_CACHE_DIR", str(folder))
    monkeypatch.setenv("COLUMNS", "250")  # rich: no wrapped paths
    if team_url:
        monkeypatch.setenv("RATES_TEAM_URL", team_url)


def test_info_says_where_how_big_how_many_and_the_hit_rate_and_clear_empties_it(
        sandbox, tmp_path, monkeypatch, capsys):
    _env(monkeypatch, sandbox, tmp_path / "cache")
    assert main(["cache", "info"]) == 0
    assert "nothing stored yet" in capsys.readouterr().out
    for _ in range(2):  # two sessions: the second is a persistent hit
        with RatesClient() as client:
            client.fixing("SOFR", "2025-02-04")
            client.fixing("SOFR", "2025-02-05")
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert str(tmp_path / "cache") in out
    assert "answers" in out and " 2 " in out
    assert "50% (2 of 4 looks)" in out
    assert main(["cache", "clear"]) == 0
    assert "cleared 2 answers" in capsys.readouterr().out
    with RatesClient() as client:
        client.fixing("SOFR", "2025-02-04")
        assert client.stats()["requests_sent"] == 1


@needs_redis
def test_clear_team_deletes_this_keys_shared_answers_only(sandbox, tmp_path, monkeypatch, capsys, redis_server):
    _env(monkeypatch, sandbox, tmp_path / "cache", redis_server.url)
    with RatesClient() as client:
        client.swap_rate("SOFR", "0D", "10Y", "1Y")
    with RatesClient(api_key="sandbox-trial") as other:
        other.swap_rate("SOFR", "0D", "10Y", "1Y")
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert "up (redis://127.0.0.1" in out and "shared answers" in out
    assert main(["cache", "clear", "--team"]) == 0
    assert "cleared 1 shared answer of this key" in capsys.readouterr().out  # not "1 ... answers"
    remaining = [k for k in redis_server.client().scan_iter(match="rates-xl:*:a2:*")]
    assert len(remaining) == 1  # the other key's answer is still there


def test_clear_team_without_a_team_says_so(sandbox, tmp_path, monkeypatch, capsys):
    _env(monkeypatch, sandbox, tmp_path / "cache")
    assert main(["cache", "clear", "--team"]) == 1
    assert "no team backend is set" in capsys.readouterr().err
