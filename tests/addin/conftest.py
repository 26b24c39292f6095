"""Fixtures for the add-in tests: a file-backed keychain, private config and XLSTART paths."""

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
    """Private xlwings config and XLSTART through the documented environment overrides."""
    config = tmp_path / "home" / ".xlwings" / "xlwings.conf"
    xlstart = tmp_path / "XLSTART"
    monkeypatch.setenv("RATES_XL_XLWINGS_CONF", str(config))
    monkeypatch.setenv("RATES_XL_XLSTART", str(xlstart))
    monkeypatch.delenv("RATES_API_KEY", raising=False)
    monkeypatch.delenv("RATES_XL_XLAM", raising=False)

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
def built_xlam(tmp_path_factory):
    """The assembled package (`rates-xl addin build --no-vba`), for install tests."""
    from rates_xl.addin.classic import build

    result, package = build.run_checks(None, build.find_template())
    assert result.ok, result.problems
    path = tmp_path_factory.mktemp("dist") / "rates_xl.xlam"
    path.write_bytes(package)
    return path
