"""Per-user tokens for a team server without single sign-on (`rates-xl serve users ...`).

`add(name)` makes a token of 32 random bytes (`secrets`), shows it once and keeps only its
SHA-256. A slow password hash (scrypt, bcrypt) exists to make guessing a *human-chosen*
password from its hash expensive; a 256-bit random token cannot be guessed from its hash at
any speed, so a fast hash is the right tool and keeps every request's check cheap.

The store is one JSON file, `users.json`, in the server's config folder (platformdirs),
written whole to a temporary file and renamed over (no half-written file) with mode 0600.
The server reads it again when it changes, so `users add` / `users remove` take effect on a
running server without a restart.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import tempfile
import threading
import time
from pathlib import Path

from rates_xl.errors import TaskError

TOKEN_PREFIX = "rxl_"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")


class UsersError(TaskError):
    """A user command that cannot be done; one line."""


def default_path() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("rates-xl", appauthor=False)) / "serve" / "users.json"


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class UserStore:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._seen: tuple[int, int, int] | None = None
        self._by_digest: dict[str, str] = {}

    # -- the file -------------------------------------------------------------------------
    def _read(self) -> dict[str, dict]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise UsersError(f"cannot read {self.path}: {exc}") from None
        users = data.get("users") if isinstance(data, dict) else None
        if not isinstance(users, dict):
            raise UsersError(f"{self.path} is not a users file")
        return users

    def _write(self, users: dict[str, dict]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".users-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump({"users": users}, out, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        os.chmod(self.path, 0o600)

    # -- commands -------------------------------------------------------------------------
    def add(self, name: str) -> str:
        """Issue a token for a new user; returns it (the only time it exists in clear)."""
        if not _NAME.match(name):
            raise UsersError(f"{name[:70]!r}: a user name is letters, digits and . _ @ - (at most 64)")
        users = self._read()
        if name in users:
            raise UsersError(f"{name} already has a token: `users remove {name}` first to issue a new one")
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        users[name] = {"sha256": digest(token), "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        self._write(users)
        return token

    def remove(self, name: str) -> None:
        users = self._read()
        if name not in users:
            raise UsersError(f"no user {name[:70]!r}")
        del users[name]
        self._write(users)

    def list(self) -> list[tuple[str, str]]:
        """(name, created) for every user, by name."""
        return sorted((name, str(entry.get("created", ""))) for name, entry in self._read().items())

    # -- the server's check ---------------------------------------------------------------
    def identify(self, token: str) -> str | None:
        """The user a token was issued to, or None."""
        with self._lock:
            self._reload_if_changed()
            return self._by_digest.get(digest(token))

    def _reload_if_changed(self) -> None:
        try:
            stat = self.path.stat()
            seen = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        except FileNotFoundError:
            seen = None
        if seen != self._seen or seen is None:
            users = self._read() if seen else {}
            self._by_digest = {entry["sha256"]: name for name, entry in users.items()
                               if isinstance(entry, dict) and isinstance(entry.get("sha256"), str)}
            self._seen = seen
