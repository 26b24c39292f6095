"""Live mode through the add-in's one RTD server: the `live` channel.

Live (classic/live_mode.py, `ClassicLive` around the host-free `client.live_scheduler.LiveScheduler`) needs
two things from Excel: which RATES_ cells show answers "as of now" (and which requests each
used), and a way to make Excel recalculate a cell once its answer was refetched. Both go
through the RTD server the waiting cells already use (rtd.py): no second COM class, no
second registration, no second process.

- *Which cells.* While Live is on, the add-in's VBA wrapper (`RatesAnswer`, rtd_vba.py)
  subscribes every RATES_ cell it answers with a value to the topic
  `=RTD("RatesXL.RTD", , "live", book, sheet, address)` (the calling cell's own names), and
  the UDF tells this channel which requests the cell's value used (`saw`, from
  `client.requests_used()` around the cell's calculation). Excel's ConnectData for such a
  topic reaches `connect`, which hands the cell and its requests to `ClassicLive.watch`
  (it ignores a cell valued as of a past time); DisconnectData (the formula changed or
  left, its workbook closed, Live turned off and the cell recalculated) reaches
  `disconnect`, which `forget`s it.
- *Recalculating.* After a refetch the scheduler calls `update(cells)` (the `Topics`
  interface of classic/live_mode.py): each cell's topic gets a new value through
  `server.push`, which rings Excel (UpdateNotify, retried while Excel is busy); Excel pulls
  when it is idle, at most once per throttle interval, and recalculates the cells, which
  find the fresh answer in the cache; their dependents follow.

A cell is named by (book, sheet, address) as Excel gives them to VBA: `Application.Caller`'s
workbook name, sheet name and `Address` (a legacy array formula's whole block).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rates_xl.addin.classic import rtd

if TYPE_CHECKING:  # classic/live_mode.py loads the client (pydantic): only once Live is used, so
    # the UDF module, which imports this one, stays light (tests/addin/classic/test_import.py)
    from rates_xl.addin.classic.live_mode import CellRef, ClassicLive

#: The channel's name: the first topic string after the ProgID (the VBA's LIVE_CHANNEL).
CHANNEL = rtd.LIVE_CHANNEL
#: Cells whose requests are kept without a live topic (waiting ones) before they are pruned.
MAX_UNSUBSCRIBED = 50_000


class LiveChannel:
    """The `live` topics of every RTD server Excel started, for one `ClassicLive`."""

    def __init__(self) -> None:
        self.live: ClassicLive | None = None
        self._lock = threading.RLock()
        self._used: dict[CellRef, frozenset[Any]] = {}  # what each live cell's value used
        self._topic: dict[CellRef, tuple[Any, int]] = {}  # cell -> (server, Excel's topic id)
        self._cell: dict[tuple[int, int], CellRef] = {}  # (id(server), topic id) -> cell
        self._rings = 0

    @property
    def watching(self) -> bool:
        """Whether the UDFs should report what their cells use (Live is on)."""
        live = self.live
        return live is not None and live.on

    # -- the UDF side ------------------------------------------------------------------------
    def saw(self, cell: CellRef, keys: Iterable[Any]) -> None:
        """A RATES_ cell computed with these requests (a changed formula keeps its topic:
        the cell is watched again with what it uses now)."""
        used = frozenset(keys)
        with self._lock:
            self._used[cell] = used
            connected = cell in self._topic
            if len(self._used) > MAX_UNSUBSCRIBED + len(self._topic):
                # Cells that never subscribed (deleted while waiting): forget them.
                for stale in [c for c in self._used if c not in self._topic and c != cell]:
                    del self._used[stale]
        if connected and self.live is not None:
            self.live.watch(cell, used)

    # -- the channel (rtd_server.RtdServer calls these) ---------------------------------------------
    def connect(self, server: Any, topic_id: int, strings: list[str]) -> Any:
        from rates_xl.addin.classic.live_mode import CellRef

        if len(strings) < 3:
            return "#N/A"  # not a cell of ours: nothing to watch
        cell = CellRef(*strings[:3])
        with self._lock:
            self._topic[cell] = (server, topic_id)
            self._cell[(id(server), topic_id)] = cell
            used = self._used.get(cell, frozenset())
        if self.live is not None and used:
            self.live.watch(cell, used)
        return 0

    def disconnect(self, server: Any, topic_id: int) -> None:
        with self._lock:
            cell = self._cell.pop((id(server), topic_id), None)
            if cell is None or self._topic.get(cell) != (server, topic_id):
                return
            del self._topic[cell]
            self._used.pop(cell, None)
        if self.live is not None:
            self.live.forget(cell)

    # -- Topics (what ClassicLive calls after a refetch) ---------------------------------------
    def update(self, cells: frozenset[Any]) -> None:
        with self._lock:
            self._rings += 1
            by_server: dict[int, tuple[Any, dict[int, int]]] = {}
            for cell in cells:
                found = self._topic.get(cell)
                if found is not None:
                    server, topic_id = found
                    by_server.setdefault(id(server), (server, {}))[1][topic_id] = self._rings
        for server, values in by_server.values():
            server.push(values)  # rings Excel; retried while it is busy (rtd_server.RtdServer)

    def rewatch(self) -> None:
        """Hand every subscribed cell to the current Live again (a new Live, same cells)."""
        live = self.live
        with self._lock:
            cells = [(cell, self._used.get(cell)) for cell in self._topic]
        for cell, used in cells:
            if live is not None and used:
                live.watch(cell, used)

    def reset(self) -> None:
        """Forget every cell and topic (tests; a new UDF server starts empty)."""
        with self._lock:
            self._used.clear()
            self._topic.clear()
            self._cell.clear()

    def topics(self) -> int:
        with self._lock:
            return len(self._topic)


#: The process's channel (the UDF server's one).
channel = LiveChannel()


def attach(live: ClassicLive | None) -> None:
    """Serve the `live` topics of the process's RTD server for `live` (None: stop)."""
    channel.live = live
    rtd.waits.add_channel(CHANNEL, channel)
    channel.rewatch()


def renew(make_client: Any) -> None:
    """The cells' client changed (Set API Key): the process's Live, if any, is made again on
    `make_client()` as it was (on or off, its share), watching the cells subscribed now, so refetches
    use the new key and fill the cache the cells read."""
    from rates_xl.addin.classic import live_mode

    old = live_mode.current()
    if old is None:
        return
    new = live_mode.ClassicLive(make_client(), channel, old.app, share=old.scheduler.share,
                      tick=old.scheduler.tick)
    was_on = old.on
    live_mode.install(new)  # turns the old one off
    attach(new)
    if was_on:
        new.turn_on()


def cell_of(caller: Any) -> CellRef:
    """The cell as the VBA wrapper names it (workbook name, sheet name, Address)."""
    from rates_xl.addin.classic.live_mode import CellRef

    sheet = caller.sheet
    return CellRef(sheet.book.name, sheet.name, caller.address)
