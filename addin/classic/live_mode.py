"""Live mode in the classic add-in: the ribbon's Live toggle, Excel's state, the status bar.

The scheduler is host-free (`rates_xl.client.live_scheduler.LiveScheduler`); this module is the
classic host around it, one per UDF server process (every workbook of the Excel instance):

- *which cells*: the add-in's one RTD server reports, through its `live` channel
  (classic/live_rtd.py), each RATES_ cell subscribed while the Live toggle is on, with the
  requests the cell's value used (`ClassicLive.watch`, the requests from
  `client.requests_used()` around the cell's calculation) and each cell Excel disconnects
  (`forget`: DisconnectData, when the formula changes or its workbook closes);
- *pushing answers*: after a refetch the scheduler calls `Topics.update(cells)`; the
  channel gives the cells' topics new values, the RTD server rings Excel (`UpdateNotify`),
  Excel pulls (`RefreshData`) when it is idle, and the cells recalculate from the now fresh
  cache. `Topics` is the one thing Live needs from the RTD server (`live_rtd.LiveChannel`);
- *Excel's state*, asked every tick: edit mode or a dialog (`Application.Ready` False, or a
  COM call rejected because Excel is busy) pauses everything; a workbook none of whose
  windows is visible is skipped;
- *the status bar*: "Rates: Live, last refresh 14:02:07", a pause and any error, whenever
  one of them changes, unless a Refresh is writing its progress there.

A cell is a `CellRef` (book name, sheet name, address), hashable and host-neutral.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import Any, NamedTuple, Protocol

from rates_xl.addin.classic.excel_surface import App
from rates_xl.client.live_scheduler import LiveScheduler

log = logging.getLogger("rates_xl.addin")

STATUS_PREFIX = "Rates: "


class CellRef(NamedTuple):
    book: str
    sheet: str
    address: str


class Topics(Protocol):
    """What Live needs from the RTD server: ring Excel for these cells (UpdateNotify), so it
    pulls and recalculates them."""

    def update(self, cells: frozenset[Any]) -> None: ...


def excel_state(app: App) -> tuple[str | None, frozenset[str]]:
    """(why Live must wait, or None; the names of the hidden workbooks), from COM.

    `Application.Ready` is False while a cell is in edit mode or a dialog is open
    (learn.microsoft.com/office/vba/api/excel.application.ready); a workbook is hidden
    when none of `Application.Windows` showing it is `Visible` (excel.window.visible,
    excel.window.parent). Excel rejecting the call (busy: RPC_E_CALL_REJECTED) raises,
    which the scheduler reads as "host busy" and asks again next tick.
    """
    api = app.api
    if not api.Ready:
        return "edit mode", frozenset()
    shown: dict[str, bool] = {}
    for window in api.Windows:
        name = window.Parent.Name
        shown[name] = shown.get(name, False) or bool(window.Visible)
    return None, frozenset(name for name, visible in shown.items() if not visible)


class ClassicLive:
    """Live mode of one UDF server: off until the ribbon's toggle turns it on."""

    def __init__(self, client: Any, topics: Topics, app: Any, *, share: float | None = None,
                 tick: float = 0.1) -> None:
        self.app = app
        self.topics = topics
        self._lock = threading.Lock()
        self.scheduler = LiveScheduler(client, self._notify, share=share, tick=tick,
                                       host_state=lambda: excel_state(self.app),
                                       on_status=lambda _status: self.show_status())

    # -- the RTD server's side ----------------------------------------------------------------
    def watch(self, cell: CellRef, keys: Iterable[Any]) -> bool:
        """A RATES_ cell computed with these requests; False when it is not live."""
        return self.scheduler.watch(cell, keys, group=cell.book)

    def forget(self, cell: CellRef) -> None:
        self.scheduler.forget(cell)

    # -- the ribbon's side -----------------------------------------------------------------
    @property
    def on(self) -> bool:
        return self.scheduler.running

    def turn_on(self) -> str:
        self.scheduler.clear_error()
        self.scheduler.start()
        return self.show_status()

    def turn_off(self) -> str:
        self.scheduler.stop()
        return self.show_status()

    def set_share(self, share: float) -> None:
        self.scheduler.set_share(share)

    def status_text(self) -> str:
        return STATUS_PREFIX + self.scheduler.status().text()

    def show_status(self) -> str:
        text = self.status_text()
        from rates_xl.addin.classic import refresh

        if refresh.current_pass() is None:  # a Refresh shows its own progress meanwhile
            try:
                self.app.status_bar = text
            except Exception:  # Excel busy: the next round shows it
                log.debug("status bar not written: %s", text)
        return text

    def _notify(self, cells: frozenset[Any]) -> None:
        self.topics.update(cells)


# -- the process's one Live --------------------------------------------------------------------
_live: ClassicLive | None = None
_live_lock = threading.Lock()


def install(live: ClassicLive | None) -> None:
    """The process's Live (the RTD server makes it when Excel starts it; tests make theirs)."""
    global _live
    with _live_lock:
        old, _live = _live, live
    if old is not None and old is not live:
        old.turn_off()


def current() -> ClassicLive | None:
    return _live
