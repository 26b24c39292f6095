"""Files the commands write are documents to share: 0666 less the user's umask, as any file
they create (issue 31, point 8: calc's, the demo's and addin build's were 0600 under umask
022); a file holding a secret (the team server's users file) stays private. The demo's copies
are checked where the demo runs anyway, as the README's first command in a fresh venv under
umask 022 (tests/docs/test_readme_first_command.py), not a second time here."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess

import pytest

from rates_xl.templates import template_path
from tests.support.commands import console_script, fresh_env

pytestmark = pytest.mark.skipif(os.name != "posix", reason="file modes and umask are POSIX's")


def _run(umask: int, cwd, env, *argv: str) -> subprocess.CompletedProcess:
    done = subprocess.run([console_script(), *argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, check=False, stdin=subprocess.DEVNULL,
                          preexec_fn=lambda: os.umask(umask))
    assert done.returncode in (0, 4), (argv, done.stdout, done.stderr)
    return done


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_under_umask_022_every_copy_is_0644_and_the_users_file_0600(tmp_path):
    env = fresh_env(tmp_path / "home", RATES_SERVE_USERS_FILE=str(tmp_path / "team" / "users.json"))
    shutil.copyfile(template_path("curve_dashboard"), tmp_path / "book.xlsx")
    _run(0o022, tmp_path, env, "calc", "book.xlsx", "--sandbox", "--no-progress", "--pack-out", "book.pack.json")
    _run(0o022, tmp_path, env, "calc", "book.xlsx", "--replay", "book.values.xlsx", "-o", "replayed.xlsx",
         "--no-progress")
    _run(0o022, tmp_path, env, "diff", "book.values.xlsx", "replayed.xlsx", "-o", "explain.xlsx")
    _run(0o022, tmp_path, env, "addin", "build", "-o", "rates_xl.xlam")
    _run(0o022, tmp_path, env, "respell", "book.xlsx", "--to", "officejs")
    _run(0o022, tmp_path, env, "officejs", "manifest", "--url", "https://localhost:8766", "-o", "manifest.xml")
    written = ["book.values.xlsx", "book.pack.json", "replayed.xlsx", "explain.xlsx", "rates_xl.xlam",
               "manifest.xml"]
    written += [p.name for p in tmp_path.glob("book-officejs*.xlsx")]
    assert len(written) == 7, sorted(p.name for p in tmp_path.iterdir())
    assert {name: oct(_mode(tmp_path / name)) for name in written} == dict.fromkeys(written, oct(0o644))
    _run(0o022, tmp_path, env, "serve", "users", "add", "alice")
    assert _mode(tmp_path / "team" / "users.json") == 0o600  # tokens' hashes: private whatever the umask


def test_a_stricter_umask_is_respected(tmp_path):
    env = fresh_env(tmp_path / "home")
    shutil.copyfile(template_path("curve_dashboard"), tmp_path / "book.xlsx")
    _run(0o077, tmp_path, env, "calc", "book.xlsx", "--sandbox", "--no-progress")
    _run(0o027, tmp_path, env, "addin", "build", "-o", "rates_xl.xlam")
    assert _mode(tmp_path / "book.values.xlsx") == 0o600
    assert _mode(tmp_path / "rates_xl.xlam") == 0o640
