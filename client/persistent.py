"""The persistent tier: answers that never change, kept on disk across Excel sessions.

Built on `diskcache` (SQLite in WAL mode): safe with several Excel and Python processes at
once, bounded in size with the least recently used answers evicted first. Only immutable
requests reach it (`tiers.is_immutable`: history that ended, past fixings, past valuation
times), and only answers, never refusals. Entries are JSON scoped by the key fingerprint, so
a trial key never reads what a paid key fetched.

A store that cannot be read (a truncated or garbage file, a foreign format) has its own
files (never anything else in the folder) moved into `<folder>/broken-<time>` and is
rebuilt, with one warning; after a second failure the tier turns itself off for this process. Either way a read is a miss and a write is skipped:
never a crash, never a wrong answer. The store is opened on first use, so a workbook of live
data never touches the disk.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import NotRequired, Protocol, TypedDict, TypeVar

from rates_xl.client.cache import Entry
from rates_xl.client.endpoints import RequestKey
from rates_xl.client.tiers import FORMAT, decode_entry, encode_entry, request_text

log = logging.getLogger("rates_xl.client")

#: Seconds SQLite waits for another process's write before giving up on this one.
LOCK_TIMEOUT = 2.0
#: Write attempts before a write is skipped (the answer stays in memory either way).
WRITE_ATTEMPTS = 3


T = TypeVar("T")


class Store(Protocol):
    """What this tier uses of diskcache's `Cache` (its keys are our text, its values the text
    we wrote; anything else found there is read as a miss)."""

    def get(self, key: str) -> object: ...
    def set(self, key: str, value: str) -> bool: ...
    def delete(self, key: str) -> bool: ...
    def clear(self) -> int: ...
    def iterkeys(self) -> Iterator[object]: ...
    def stats(self) -> tuple[int, int]: ...
    def volume(self) -> int: ...
    def close(self) -> None: ...
    def __len__(self) -> int: ...


class DiskInfo(TypedDict):
    """`DiskTier.info()`: `rates-xl cache info`'s figures (the store's own when it opens)."""

    folder: str
    state: str
    size_limit: int
    answers: NotRequired[int]
    bytes: NotRequired[int]
    hits: NotRequired[int]
    misses: NotRequired[int]


class DiskTier:
    def __init__(self, directory: Path, scope: str, *, size_mb: float, ttl: float) -> None:
        self.directory = Path(directory)
        self._prefix = f"{FORMAT}|{scope}|"
        self._size_limit = int(size_mb * 1024 * 1024)
        self._ttl = ttl  # how long a copy lives in memory once read back
        self._lock = threading.Lock()
        self._store: Store | None = None
        self._inode: int | None = None
        self._rebuilt = False
        self.state = "not opened yet"
        self.failed = False

    # -- the AnswerCache methods the tiers use ------------------------------------------------
    def get(self, key: RequestKey, *, fresh_since: float | None = None) -> Entry | None:
        text = self._run(lambda store: store.get(self._key(key)), default=None)
        if text is None:
            return None
        entry = decode_entry(key, text) if isinstance(text, str | bytes) else None
        if entry is None:
            self._delete(key)
            return None
        if fresh_since is not None and entry.fetched_at < fresh_since:
            return None
        return Entry(entry.value, entry.fetched_at, self._ttl, raw=entry.raw)

    def put(self, key: RequestKey, entry: Entry) -> None:
        text = encode_entry(key, entry)
        if text is not None:
            self._run(lambda store: store.set(self._key(key), text), default=None, attempts=WRITE_ATTEMPTS)

    def expire(self, *, before: float | None = None, keys: Iterable[RequestKey] | None = None) -> int:
        if keys is None and before is None:
            return self._run(lambda store: self._drop_scope(store), default=0)
        dropped = 0
        for key in keys if keys is not None else []:
            entry = self.get(key)
            if entry is not None and (before is None or entry.fetched_at < before):
                self._delete(key)
                dropped += 1
        if keys is None:  # every entry of this scope fetched before `before`
            dropped += self._run(lambda store: self._drop_scope(store, before), default=0)
        return dropped

    def _delete(self, key: RequestKey) -> None:
        self._run(lambda store: store.delete(self._key(key)), default=None)

    def clear(self) -> None:
        """Empty the whole store (every key's answers): `rates-xl cache clear`, Clear Cache."""
        self._run(lambda store: store.clear(), default=0)

    # -- for `rates-xl cache info` and the status panel ---------------------------------------
    def info(self) -> DiskInfo:
        base: DiskInfo = {"folder": str(self.directory), "state": self.state, "size_limit": self._size_limit}

        def read(store: Store) -> DiskInfo:
            hits, misses = store.stats()
            return {**base, "answers": len(store), "bytes": store.volume(), "hits": hits, "misses": misses}

        out = self._run(read, default=base)
        out["state"] = self.state
        return out

    def describe(self) -> str:
        return f"{self.state} ({self.directory})"

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                with contextlib.suppress(Exception):
                    self._store.close()
                self._store = None
                if not self.failed:
                    self.state = "closed"

    # -- internals ----------------------------------------------------------------------------
    def _key(self, key: RequestKey) -> str:
        return self._prefix + request_text(key)

    def _drop_scope(self, store: Store, before: float | None = None) -> int:
        dropped = 0
        for name in list(store.iterkeys()):
            if not (isinstance(name, str) and name.startswith(self._prefix)):
                continue
            if before is not None:
                text = store.get(name)
                try:
                    import json

                    if isinstance(text, str | bytes) and float(json.loads(text)["t"]) >= before:
                        continue
                except Exception:  # undecodable: drop it too
                    pass
            store.delete(name)
            dropped += 1
        return dropped

    def _run(self, operation: Callable[[Store], T], *, default: T, attempts: int = 1) -> T:
        """Run one operation on the store; every failure is handled here, none escapes."""
        import diskcache

        for attempt in range(attempts):
            store = self._open()
            if store is None:
                return default
            try:
                return operation(store)
            except (diskcache.Timeout, sqlite3.OperationalError) as exc:
                # Another process holds the write lock, or a passing I/O hiccup: not damage.
                log.debug("persistent cache busy (%s), attempt %d", exc, attempt + 1)
                if "locked" not in str(exc).lower() and not isinstance(exc, diskcache.Timeout):
                    self._recover(exc, store)
                    return default
            except (sqlite3.DatabaseError, OSError) as exc:
                self._recover(exc, store)
                return default
            except Exception as exc:  # e.g. a value this tier did not write: a miss, no more
                log.debug("persistent cache: %s: %s", type(exc).__name__, exc)
                return default
        return default

    def _open(self) -> Store | None:
        with self._lock:
            if self._store is not None or self.failed:
                return self._store
            try:
                self._store = self._open_store()
            except Exception as exc:
                self._set_aside(exc)
                try:
                    self._store = self._open_store()
                except Exception as again:
                    self._give_up(again)
            return self._store

    def _open_store(self) -> Store:
        import diskcache

        store = diskcache.Cache(
            str(self.directory), timeout=LOCK_TIMEOUT, size_limit=self._size_limit, disk=_text_only_disk(),
            eviction_policy="least-recently-used",
            disk_min_file_size=1 << 22,  # answers stay inside SQLite, not in loose files
        )
        try:
            if not store.statistics:
                store.stats(enable=True)  # hits and misses, kept in the store for `cache info`
            len(store)  # reads the tables: a damaged file fails here, not in a cell
        except Exception:
            store.close()
            raise
        self._inode = _inode(self.directory / "cache.db")
        self.state = "on"
        return store

    def _recover(self, exc: BaseException, store: Store) -> None:
        with self._lock:
            if store is not self._store:
                return  # another thread already dealt with it
            with contextlib.suppress(Exception):
                store.close()
            self._store = None
            if self._rebuilt:
                self._give_up(exc)
                return
            if _inode(self.directory / "cache.db") == self._inode:
                self._set_aside(exc)  # else another process has already rebuilt it
            self._rebuilt = True

    def _set_aside(self, exc: BaseException) -> None:
        """Move an unreadable store out of the way so a fresh one can be built in its place.

        Only the store's own files move (diskcache's database and its value folders), into
        `broken-<time>-<pid>` inside the folder: RATES_CACHE_DIR may name a folder that
        holds other things too, and those stay exactly where they are."""
        aside = self.directory / f"broken-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
        moved_to: Path | None = aside
        try:
            own = _store_files(self.directory)
            if own:
                aside.mkdir(exist_ok=True)
                for path in own:
                    path.rename(aside / path.name)
        except OSError as move_error:  # e.g. Windows, another process has it open
            log.debug("could not move the store aside: %s", move_error)
            moved_to = None
        log.warning(
            "rates-xl: the persistent cache at %s could not be read (%s: %s); %s and a new "
            "one is being built. Answers are fetched again as needed.",
            self.directory, type(exc).__name__, exc,
            f"its files were moved to {moved_to}" if moved_to else "it is left in place",
        )
        self._rebuilt = True

    def _give_up(self, exc: BaseException) -> None:
        self.failed = True
        self._store = None
        self.state = f"off: {type(exc).__name__}: {exc}"[:120]
        log.warning("rates-xl: the persistent cache at %s is off for this session (%s); "
                    "answers are kept in memory only", self.directory, self.state)


#: diskcache's database and SQLite's journal files beside it.
_STORE_FILES = ("cache.db", "cache.db-wal", "cache.db-shm", "cache.db-journal")
_HEX = frozenset("0123456789abcdef")


def _store_files(directory: Path) -> list[Path]:
    """The files and folders of `directory` that diskcache made: its database files, and the
    value folders it names with two hex digits (`ab/cd/<hex>.val`). A folder with that name
    holding anything else is not taken for one of them."""
    found = [directory / name for name in _STORE_FILES if (directory / name).exists()]
    for sub in directory.iterdir() if directory.is_dir() else ():
        if _is_hex_pair(sub) and all(
                _is_hex_pair(inner) and all(f.is_file() and f.suffix == ".val" for f in inner.iterdir())
                for inner in sub.iterdir()):
            found.append(sub)
    return found


def _is_hex_pair(path: Path) -> bool:
    return path.is_dir() and len(path.name) == 2 and set(path.name) <= _HEX


def _inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except OSError:
        return None


@functools.cache
def _text_only_disk() -> type:
    import diskcache  # here, not at the top: a session of live data never imports it

    class TextOnlyDisk(diskcache.Disk):
        """diskcache's storage, refusing to unpickle: this tier writes JSON text only, so a
        pickled value in the folder was put there by something else and is not trusted."""

        def fetch(self, mode, filename, value, read):
            if mode == diskcache.core.MODE_PICKLE:
                raise ValueError("a pickled value in the rates-xl cache: ignored")
            return super().fetch(mode, filename, value, read)

    return TextOnlyDisk
