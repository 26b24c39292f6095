"""The API key: where the client's comes from (the OS keychain: store, read, clear; the
environment), how to set one on this machine, and the sandbox's published keys.

The key lives in the keychain under service "rates-xl", user "api_key" (the constants the
client reads), or in the environment as RATES_API_KEY, which wins. Nothing here ever puts
the key in a message, a repr or a log line.

The local sandbox's built-in keys (`rates-xl sandbox`) are published in its docs: anyone may
use them, so a pack signed with one proves nothing (pack_seal.py says so). The sandbox
serves exactly these.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from rates_xl.errors import TaskError

ENV_VAR = "RATES_API_KEY"
#: Where the keychain holds the key (the client's settings read it there too).
KEYRING_SERVICE = "rates-xl"
KEYRING_USERNAME = "api_key"

SANDBOX_PAID_KEY = "sandbox-paid"  # everything allowed
SANDBOX_TRIAL_KEY = "sandbox-trial"  # live data only: valuation_time / valuation_date refused
SANDBOX_EXPIRED_KEY = "sandbox-expired"  # every request refused: the trial is over
#: The sandbox's built-in keys and the kind of each.
SANDBOX_KEYS = {SANDBOX_PAID_KEY: "paid", SANDBOX_TRIAL_KEY: "trial", SANDBOX_EXPIRED_KEY: "expired"}
_MIN_LENGTH = 8
_MAX_LENGTH = 512


class KeychainError(TaskError):
    """The keychain cannot be used; the message says why and what to do."""


@dataclass(frozen=True)
class KeyState:
    """Where the key comes from, never the key itself."""

    source: str | None  # "environment", "keychain" or None
    in_environment: bool
    in_keychain: bool
    backend: str
    keychain_problem: str | None = None

    @property
    def is_set(self) -> bool:
        return self.source is not None

    def describe(self) -> str:
        if self.source == "environment":
            text = f"set (from the environment variable {ENV_VAR})"
            if self.in_keychain:
                text += "; a keychain key is also stored but the environment wins"
            return text
        if self.source == "keychain":
            return f"set (in the keychain: {self.backend})"
        text = "not set"
        if self.keychain_problem:
            text += f" (keychain unavailable: {self.keychain_problem})"
        return text


def keychain_usable() -> bool:
    """Can `rates-xl key set` work here? False on headless Linux, CI, a server..."""
    try:
        read_keychain()
    except KeychainError:
        return False
    return True


def how_to_set_key() -> str:
    """The one place that says how to give the client a key on this machine, for every
    message that tells the user to (cells, `key status`, doctor, serve): the keychain
    where one is usable, else the environment variable. Reads as "set a key {this}"."""
    if keychain_usable():
        return f"with `rates-xl key set` (or in {ENV_VAR})"
    return f"in the environment variable {ENV_VAR} (no keychain on this machine)"


def backend_name() -> str:
    import keyring

    kr = keyring.get_keyring()
    return f"{type(kr).__module__}.{type(kr).__qualname__}"


def _no_backend_message(exc: BaseException | None = None) -> str:
    return (
        "no usable keychain backend on this machine"
        + (f" ({type(exc).__name__})" if exc is not None else "")
        + ". Install one (Windows Credential Manager and macOS Keychain work out of the box; "
        "on Linux install and unlock a Secret Service such as GNOME Keyring or KWallet), "
        f"or set the key in the environment variable {ENV_VAR} instead."
    )


def _keyring():
    import keyring
    from keyring.backends import fail

    if isinstance(keyring.get_keyring(), fail.Keyring):
        raise KeychainError(_no_backend_message())
    return keyring


def read_keychain() -> str | None:
    """The stored key, or None when none is stored. Raises KeychainError without a backend."""
    kr = _keyring()
    try:
        return kr.get_password(KEYRING_SERVICE, KEYRING_USERNAME) or None
    except Exception as exc:  # every backend has its own failures (locked, no D-Bus, ...)
        raise KeychainError(_no_backend_message(exc)) from None


def validate_key(key: str) -> str:
    """The key as it will be stored, or ValueError saying what is wrong (never quoting it)."""
    key = key.strip()
    if not key:
        raise ValueError("the key is empty")
    if any(ch.isspace() for ch in key):
        raise ValueError("the key contains spaces or line breaks; paste it again")
    if not key.isprintable():
        raise ValueError("the key contains control characters; paste it again")
    if not _MIN_LENGTH <= len(key) <= _MAX_LENGTH:
        raise ValueError(
            f"the key has {len(key)} characters; expected {_MIN_LENGTH} to {_MAX_LENGTH}"
        )
    return key


def store_key(key: str) -> None:
    """Validate and store the key, then read it back: a backend that drops it is an error."""
    key = validate_key(key)
    kr = _keyring()
    try:
        kr.set_password(KEYRING_SERVICE, KEYRING_USERNAME, key)
        stored = kr.get_password(KEYRING_SERVICE, KEYRING_USERNAME)
    except Exception as exc:
        raise KeychainError(f"could not store the key: {_no_backend_message(exc)}") from None
    if stored != key:
        raise KeychainError(
            f"the keychain backend {backend_name()} did not keep the key; "
            f"use another backend or set {ENV_VAR}"
        )


def clear_key() -> bool:
    """Delete the stored key; False when there was none."""
    if read_keychain() is None:
        return False
    kr = _keyring()
    try:
        kr.delete_password(KEYRING_SERVICE, KEYRING_USERNAME)
    except Exception as exc:
        raise KeychainError(f"could not delete the key: {_no_backend_message(exc)}") from None
    return True


def key_state(environ: Mapping[str, str] | None = None) -> KeyState:
    environ = os.environ if environ is None else environ
    in_env = bool(environ.get(ENV_VAR, "").strip())
    problem = None
    try:
        in_keychain = read_keychain() is not None
    except KeychainError as exc:
        in_keychain, problem = False, str(exc)
    try:
        backend = backend_name()
    except Exception:  # keyring itself broken: still report the environment
        backend = "unknown"
    source = "environment" if in_env else "keychain" if in_keychain else None
    return KeyState(source, in_env, in_keychain, backend, problem)
