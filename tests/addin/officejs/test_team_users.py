"""`rates-xl serve users add|list|remove`: a per-user token is shown once, stored only as
its SHA-256 in a 0600 file, and a removed user's token is refused by the store at once."""

from __future__ import annotations

import hashlib
import json
import stat

import pytest

from rates_xl.addin.officejs.users import UserStore
from rates_xl.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_add_shows_the_token_once_and_stores_only_its_hash(tmp_path, capsys):
    path = tmp_path / "conf" / "users.json"
    code, out, _ = run(capsys, "serve", "users", "--users-file", str(path), "add", "alice@corp.example")
    assert code == 0
    token = out.strip().rsplit(" ", 1)[-1]
    assert token.startswith("rxl_") and len(token) >= 4 + 43  # 32 random bytes, base64url
    stored = path.read_text()
    assert token not in stored and token[4:] not in stored
    assert json.loads(stored)["users"]["alice@corp.example"]["sha256"] == hashlib.sha256(token.encode()).hexdigest()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert UserStore(path).identify(token) == "alice@corp.example"
    assert UserStore(path).identify(token + "x") is None

    code, out, _ = run(capsys, "serve", "users", "--users-file", str(path), "list")
    assert code == 0 and out.startswith("alice@corp.example\t") and token not in out
    # Issuing again is refused (the old token would otherwise silently stop working).
    code, _, err = run(capsys, "serve", "users", "--users-file", str(path), "add", "alice@corp.example")
    assert code != 0 and err.count("\n") == 1 and "already has a token" in err


def test_remove_revokes_and_a_running_store_sees_it(tmp_path, capsys):
    path = tmp_path / "users.json"
    store = UserStore(path)
    bob, carol = store.add("bob"), store.add("carol")
    assert store.identify(bob) == "bob" and store.identify(carol) == "carol"
    code, out, _ = run(capsys, "serve", "users", "--users-file", str(path), "remove", "bob")
    assert code == 0 and "removed bob" in out
    assert store.identify(bob) is None and store.identify(carol) == "carol"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize("argv, message", [
    (("add", "a b"), "a user name is letters, digits"),
    (("add", "x" * 65), "a user name is letters, digits"),
    (("remove", "nobody"), "no user 'nobody'"),
])
def test_bad_user_commands_print_one_line(tmp_path, capsys, argv, message):
    code, _, err = run(capsys, "serve", "users", "--users-file", str(tmp_path / "u.json"), *argv)
    assert code != 0 and message in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_damaged_file_is_one_line_too(tmp_path, capsys):
    path = tmp_path / "u.json"
    path.write_text("{not json")
    code, _, err = run(capsys, "serve", "users", "--users-file", str(path), "list")
    assert code != 0 and f"cannot read {path}" in err and err.count("\n") == 1
