"""`rates-xl doctor` against the sandbox over loopback, and against nothing listening."""

from __future__ import annotations

import re
import socket

import pytest

from rates_xl.addin import doctor


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def installed(cli, paths, built_xlam):
    assert cli("addin", "install", "--xlam", str(built_xlam))[0] == 0
    return paths


def _lines(out: str) -> dict[str, str]:
    """{check name: state} from doctor's `[state] name  detail` lines."""
    found = {}
    for line in out.splitlines():
        match = re.match(r"^\[\s*(\w+)\] (.+?)\s{2,}", line)
        if match:
            found[match.group(2)] = match.group(1)
    return found


def test_everything_set_up_passes(cli, installed, keychain, sandbox, sandbox_key, monkeypatch):
    monkeypatch.setenv("RATES_API_KEY", sandbox_key)
    code, out, err = cli("doctor", "--base-url", sandbox.base_url)
    assert code == 0, out + err
    states = _lines(out)
    assert states == {"python": "ok", "packages": "ok", "xlwings config": "ok", "add-in": "ok",
                      "api key": "ok", "caches": "ok", "certificates": "ok", "proxy": "ok", "tls": "ok",
                      "service": "ok", "test request": "ok"}
    assert "swap_rate_tenors(SOFR):" in out and "tenors (" in out
    assert "11 of 11 checks passed" in out
    assert sandbox_key not in out + err


def test_a_missing_key_fails_the_test_request_and_says_how_to_fix_it(cli, installed, keychain, sandbox):
    code, out, _ = cli("doctor", "--base-url", sandbox.base_url)
    assert code == 1
    states = _lines(out)
    assert states["api key"] == "warn" and states["test request"] == "FAIL"
    assert "fix: run: rates-xl key set" in out


def test_nothing_listening_is_reported_with_a_fix(cli, installed, keychain):
    url = f"http://127.0.0.1:{_closed_port()}"
    code, out, _ = cli("doctor", "--base-url", url, "--timeout", "2")
    assert code == 1
    assert f"{url}: connection refused" in out
    assert "skipped: the service is not reachable" in out
    assert "fix: check the network" in out


def test_no_config_says_run_install(cli, paths, keychain, sandbox, sandbox_key, monkeypatch):
    monkeypatch.setenv("RATES_API_KEY", sandbox_key)
    code, out, _ = cli("doctor", "--base-url", sandbox.base_url)
    assert code == 1
    assert _lines(out)["xlwings config"] == "FAIL"
    assert "fix: run: rates-xl addin install" in out
    assert _lines(out)["add-in"] == "warn"


def test_a_stale_config_is_explained(paths, tmp_path):
    paths.config.parent.mkdir(parents=True)
    paths.config.write_text('"UDF MODULES","other"\n"INTERPRETER_WIN","C:\\gone\\python.exe"\n'
                            '"INTERPRETER_MAC","/gone/python"\n')
    check = doctor.check_config(paths.config)
    assert check.state == doctor.FAIL
    assert "needs rates_xl.addin.classic.udfs" in check.detail and "does not exist" in check.detail
    assert "USE UDF SERVER is not True" in check.detail


@pytest.mark.parametrize("argv", [("doctor", "--timeout", "0"), ("doctor", "--timeout", "soon"),
                                  ("doctor", "--verbose")])
def test_bad_flags(cli, argv):
    code, _, err = cli(*argv)
    assert code == 2 and "usage:" in err


def test_probe_reports_bad_urls():
    assert not doctor.probe("not a url").reachable
    assert "no http://" in doctor.probe("example.invalid/v1").summary
