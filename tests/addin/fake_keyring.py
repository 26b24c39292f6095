"""A real keyring backend for the tests: a JSON file, never the user's keychain.

In-process tests install it with `keyring.set_keyring(FileKeyring(path))`; subprocess
tests name it in PYTHON_KEYRING_BACKEND=tests.addin.fake_keyring.FileKeyring with the file
in RATES_XL_TEST_KEYRING.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class FileKeyring(KeyringBackend):
    # Never chosen by keyring's own detection (it instantiates every backend class it
    # knows): only when a test sets it or names it in PYTHON_KEYRING_BACKEND.
    priority = -1  # type: ignore[assignment]

    def __init__(self, path: str | os.PathLike | None = None) -> None:
        super().__init__()
        where = path or os.environ.get("RATES_XL_TEST_KEYRING")
        self.path = Path(where) if where else None

    def _load(self) -> dict[str, str]:
        if self.path is None:
            raise RuntimeError("FileKeyring needs a path or RATES_XL_TEST_KEYRING")
        try:
            return json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}

    def _save(self, data: dict[str, str]) -> None:
        self.path.write_text(json.dumps(data), encoding="utf-8")

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(f"{service}/{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        data = self._load()
        data[f"{service}/{username}"] = password
        self._save(data)

    def delete_password(self, service: str, username: str) -> None:
        data = self._load()
        if data.pop(f"{service}/{username}", None) is None:
            raise PasswordDeleteError("no such password")
        self._save(data)


class ForgetfulKeyring(FileKeyring):
    """Accepts every key and keeps none, like a misconfigured backend."""

    def set_password(self, service: str, username: str, password: str) -> None:
        return None
