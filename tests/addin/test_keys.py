"""`rates-xl key set / status / clear` against a real (file-backed) keyring backend."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rates_xl.addin import cli as addin_cli
from rates_xl.client import api_key as keys
from rates_xl.client.api_key import KEYRING_SERVICE, KEYRING_USERNAME
from rates_xl.client.settings import load_settings

KEY = "test-key-6f1c2a9e"
REPO = Path(__file__).resolve().parents[2]


class _Tty:
    """A terminal stdin, so `key set` goes through getpass."""

    def isatty(self):
        return True


@pytest.fixture
def typed(monkeypatch):
    """Make getpass return `value` (no echo in real use), recording the prompt."""
    prompts = []

    def use(value):
        monkeypatch.setattr(sys, "stdin", _Tty())

        def fake_getpass(prompt=""):
            prompts.append(prompt)
            if isinstance(value, BaseException):
                raise value
            return value

        monkeypatch.setattr("getpass.getpass", fake_getpass)
        return prompts

    return use


def test_set_stores_the_key_where_the_client_reads_it(cli, paths, keychain, typed):
    prompts = typed(f"  {KEY}  ")
    code, out, err = cli("key", "set")
    assert code == 0, err
    assert prompts == ["API key (input hidden): "]
    assert keychain.get_password(KEYRING_SERVICE, KEYRING_USERNAME) == KEY
    assert load_settings().api_key.get_secret_value() == KEY  # the client picks it up
    assert KEY not in out + err


def test_status_says_where_the_key_is_never_what_it_is(cli, paths, keychain, monkeypatch):
    code, out, err = cli("key", "status")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "no API key is set" in err and "rates-xl key set" in err
    keychain.set_password(KEYRING_SERVICE, KEYRING_USERNAME, KEY)
    code, out, _ = cli("key", "status")
    assert code == 0 and "set (in the keychain: tests.addin.fake_keyring.FileKeyring)" in out
    monkeypatch.setenv("RATES_API_KEY", "env-key-123456")
    code, out, _ = cli("key", "status")
    assert code == 0 and "from the environment variable RATES_API_KEY" in out
    assert "environment wins" in out
    assert KEY not in out and "env-key-123456" not in out


def test_clear_removes_the_key_and_says_when_there_was_none(cli, paths, keychain, monkeypatch):
    keychain.set_password(KEYRING_SERVICE, KEYRING_USERNAME, KEY)
    code, out, _ = cli("key", "clear")
    assert code == 0 and "deleted the key" in out
    assert keychain.get_password(KEYRING_SERVICE, KEYRING_USERNAME) is None
    code, out, _ = cli("key", "clear")
    assert code == 0 and "no key was stored" in out
    monkeypatch.setenv("RATES_API_KEY", "env-key-123456")
    code, out, _ = cli("key", "clear")
    assert "RATES_API_KEY is still set" in out


@pytest.mark.parametrize("value, message", [
    ("", "the key is empty"),
    ("abc def ghi", "contains spaces"),
    ("short", "expected 8 to 512"),
    ("x" * 600, "expected 8 to 512"),
    ("bell\x07character", "control characters"),
], ids=["empty", "spaces", "short", "long", "control"])
def test_bad_keys_are_refused_and_never_echoed(cli, paths, keychain, typed, value, message):
    typed(value)
    code, out, err = cli("key", "set")
    assert code == 1 and message in err
    assert keychain.get_password(KEYRING_SERVICE, KEYRING_USERNAME) is None
    if len(value) > 3:
        assert value not in out + err


def test_ctrl_d_at_the_prompt(cli, paths, keychain, typed):
    typed(EOFError())
    code, _, err = cli("key", "set")
    assert code == 1 and "no key given" in err


def test_no_keychain_backend_is_a_clear_error(cli, paths, no_keychain, typed):
    typed(KEY)
    code, _, err = cli("key", "set")
    assert code == 1
    assert "no usable keychain backend" in err and "RATES_API_KEY" in err
    code, out, err = cli("key", "status")
    assert code == 1 and "no keychain" in err and "RATES_API_KEY" in err
    code, _, err = cli("key", "clear")
    assert code == 1 and "no usable keychain backend" in err


def test_a_backend_that_drops_the_key_is_caught(cli, paths, tmp_path, typed):
    import keyring

    from tests.addin.fake_keyring import ForgetfulKeyring

    previous = keyring.get_keyring()
    keyring.set_keyring(ForgetfulKeyring(tmp_path / "k.json"))
    try:
        typed(KEY)
        code, _, err = cli("key", "set")
    finally:
        keyring.set_keyring(previous)
    assert code == 1 and "did not keep the key" in err


def test_a_broken_backend_never_leaks_the_key(paths, monkeypatch, keychain):
    def explode(*args):
        raise RuntimeError(f"backend failed with {args}")  # a careless backend quoting its input

    monkeypatch.setattr(keychain, "set_password", explode)
    with pytest.raises(keys.KeychainError) as caught:
        keys.store_key(KEY)
    assert KEY not in str(caught.value) and "RuntimeError" in str(caught.value)


def test_key_set_from_a_pipe_in_a_real_process(tmp_path):
    """The console script end to end: piped input, a keyring backend named by environment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RATES_")}
    env.update(PYTHON_KEYRING_BACKEND="tests.addin.fake_keyring.FileKeyring",
               RATES_XL_TEST_KEYRING=str(tmp_path / "keychain.json"),
               PYTHONPATH=str(REPO) + os.pathsep + env.get("PYTHONPATH", ""))

    def run(*argv, stdin=""):
        return subprocess.run([sys.executable, "-m", "rates_xl.cli", *argv], input=stdin,
                              capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)

    done = run("key", "set", stdin=KEY + "\n")
    assert done.returncode == 0, done.stderr
    assert KEY not in done.stdout + done.stderr
    status = run("key", "status")
    assert status.returncode == 0 and "set (in the keychain" in status.stdout
    assert KEY in (tmp_path / "keychain.json").read_text()
    assert run("key", "clear").returncode == 0
    assert run("key", "status").returncode == 1
    bad = run("key", "bogus")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_the_module_reads_no_secret_at_import():
    # A cheap import: keyring is only touched inside the handlers.
    assert "getpass" not in addin_cli.__dict__


def test_without_a_keychain_every_message_says_rates_api_key_not_key_set(
        cli, paths, no_keychain, sandbox, monkeypatch):
    """Headless Linux, CI, a server: `rates-xl key set` cannot work there, so no message
    (key status, doctor, a cell) suggests it; each says to set RATES_API_KEY."""
    from rates_xl.addin.classic.udfs import UDFS
    from rates_xl.client import RatesClient
    from rates_xl.functions import set_client

    code, _, err = cli("key", "status")
    assert code == 1 and "RATES_API_KEY" in err and "key set" not in err
    code, out, _ = cli("doctor", "--base-url", sandbox.base_url, "--timeout", "5")
    assert "RATES_API_KEY" in out and "key set" not in out
    with RatesClient(base_url=sandbox.base_url, api_key=None) as client:
        set_client(client)
        try:
            cell = UDFS["RATES_TENORS"]("SOFR")
        finally:
            set_client(None)
    assert cell.startswith("#RATES! 403 no API key is set: set one in the environment variable "
                           "RATES_API_KEY"), cell
    assert "key set" not in cell


def test_with_a_keychain_messages_say_key_set(cli, paths, keychain):
    from rates_xl.client.api_key import how_to_set_key

    assert "`rates-xl key set`" in how_to_set_key()
    code, _, err = cli("key", "status")
    assert code == 1 and "rates-xl key set" in err
