"""Fixtures for the add-in tests: a file-backed keychain, private config and XLSTART paths, and
the classic add-in's client on a sandbox."""

from __future__ import annotations

import keyring
import pytest

from tests.addin.fake_keyring import FileKeyring


@pytest.fixture
def keychain(tmp_path):
    """A real keyring backend on a temporary file, set for this test only."""
    previous = keyring.get_keyring()
    backend = FileKeyring(tmp_path / "keychain.json")
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def no_keychain():
    """The machine has no keychain backend (keyring's own 'fail' backend)."""
    from keyring.backends import fail

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


@pytest.fixture
def paths(tmp_path, monkeypatch):
    """The add-in's settings file and XLSTART in a temporary folder (documented overrides)."""
    config = tmp_path / "home" / ".rates_xl" / "rates_xl.conf"
    xlstart = tmp_path / "XLSTART"
    monkeypatch.setenv("RATES_XL_CONF", str(config))
    monkeypatch.setenv("RATES_XL_XLSTART", str(xlstart))
    monkeypatch.delenv("RATES_API_KEY", raising=False)

    class Paths:
        pass

    p = Paths()
    p.config, p.xlstart, p.root = config, xlstart, tmp_path
    return p


@pytest.fixture
def cli(capsys):
    """Run `rates-xl ARGS...` in-process: returns (exit code, stdout, stderr)."""
    from rates_xl.cli import main

    def run(*argv: str):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse: unknown flags, --help
            code = exc.code
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """The add-in as `rates-xl addin build` writes it (built once per test session)."""
    from rates_xl.addin.classic import build, build_sources

    result = build.build_checked(build_sources.find_schema())
    assert result.result.ok, result.result.problems
    return result


@pytest.fixture(scope="session")
def built_xlam(built, tmp_path_factory):
    """The built add-in as a file."""
    path = tmp_path_factory.mktemp("dist") / "rates_xl.xlam"
    path.write_bytes(built.xlam)
    return path


@pytest.fixture
def classic_client(sandbox, sandbox_key):
    """The classic add-in's shared client on `sandbox`; every book's refresh scopes, pinned
    moments and scenarios forgotten afterwards."""
    from rates_xl.addin.classic import refresh, scenario, udfs, valuation
    from rates_xl.client import RatesClient

    refresh.clear_scopes()
    live = RatesClient(base_url=sandbox.base_url, api_key=sandbox_key, persistent=False)
    udfs.set_client(live)
    yield live
    udfs.set_client(None)
    live.close()
    refresh.clear_scopes()
    valuation._pins.clear()
    for name in list(scenario._books):
        scenario._books.pop(name).client.close()
