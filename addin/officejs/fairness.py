"""Each user's fair share of a busy team server, and what each user has used.

The service's rate limit is one for the whole team. Two places decide who gets it:

- **Batches** (`FairShare`): a user has at most `running` batches in the server's batch
  pool at once; their further batches wait in that user's own queue (FIFO, at most
  `waiting`, then 503). The pool therefore holds at most `running` batches of each busy
  user, and serves them in turn: one user filling 5,000 cells (three POSTs of the script)
  occupies one worker, not all of them, and another user's batch starts at once.
- **Requests** (the client's limiter): its reservations are first come, first served, per
  fetching thread; a batch fetches on at most `max_workers` threads (16). So a user's
  requests queue behind at most `running x 16` of each other busy user's, whatever the
  size of their fill: 10 new cells wait about (16 + 10) / 20 s = 1.3 s at 20/s.

`Usage` counts, per user, the batches, cells and service requests sent, and keeps each
user's last error, for the task pane and the administrator (`GET /api/me`).

Both are this process's own. With the team's Redis (`RATES_TEAM_URL`) the team server uses
shared_fairness.py's, one for every worker and host, and these while Redis is down.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass, field

from rates_xl.errors import Refusal


class UserBusy(Refusal):
    """This user already has as many batches waiting as allowed."""


@dataclass
class _Queue:
    slots: asyncio.Semaphore
    members: int = 0  # this user's batches running or waiting


class FairShare:
    """Per-user queues in front of the shared batch pool. Used on the event loop only."""

    def __init__(self, running: int = 1, waiting: int = 16) -> None:
        self.running, self.waiting = running, waiting
        self._queues: dict[str, _Queue] = {}

    @contextlib.asynccontextmanager
    async def turn(self, user: str) -> AsyncIterator[None]:
        queue = self._queues.get(user)
        if queue is None:
            queue = self._queues[user] = _Queue(asyncio.Semaphore(self.running))
        if queue.members >= self.running + self.waiting:
            raise UserBusy
        queue.members += 1
        try:
            async with queue.slots:
                yield
        finally:
            queue.members -= 1
            if queue.members == 0:
                self._queues.pop(user, None)  # idle: forget it (names come and go)


@dataclass
class UserUse:
    batches: int = 0
    cells: int = 0
    requests_sent: int = 0
    last_seen: float = 0.0
    last_error: str | None = None
    last_error_at: float | None = None


@dataclass
class Usage:
    """Counters per user since the server started. Thread-safe."""

    users: dict[str, UserUse] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, user: str, *, cells: int, requests_sent: int, error: str | None) -> None:
        with self._lock:
            use = self.users.setdefault(user, UserUse())
            use.batches += 1
            use.cells += cells
            use.requests_sent += requests_sent
            use.last_seen = time.time()
            if error:
                use.last_error, use.last_error_at = error[:300], use.last_seen

    def of(self, user: str) -> dict:
        with self._lock:
            return asdict(self.users.get(user, UserUse()))

    def team(self) -> dict:
        with self._lock:
            return {
                "users": len(self.users),
                "batches": sum(u.batches for u in self.users.values()),
                "cells": sum(u.cells for u in self.users.values()),
                "requests_sent": sum(u.requests_sent for u in self.users.values()),
            }
