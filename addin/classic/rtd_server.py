"""The IRtdServer Excel talks to, host-free: `RtdServer` (ServerStart, ConnectData,
RefreshData, DisconnectData, Heartbeat, ServerTerminate as pywin32 presents Excel's calls),
over the process's waits (`rtd.waits`), with UpdateNotify tried again while Excel is busy.

`rtd_com.RatesRtdServer` exposes it to COM on Windows; the serial-Excel stand-in
(tests/support/serial_excel_rtd.py) drives it on Linux.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from rates_xl.addin.classic.rtd import FETCHING, RECONNECT, Waits, waits

#: HRESULTs of a COM call an STA rejected because it was busy (a dialog, edit mode, a
#: calculation): RPC_E_CALL_REJECTED, RPC_E_SERVERCALL_RETRYLATER, and Excel's own 0x800AC472
#: (Andrew Whitechapel, "Implementing IMessageFilter in an Office add-in", MSDN blog 2008).
BUSY_HRESULTS = frozenset({-2147418111, -2147417846, -2146777998})


#: Retry delays for a rejected UpdateNotify, seconds (then every last one until accepted).
RETRY_DELAYS = (0.05, 0.1, 0.2, 0.5, 1.0)


def is_busy(exc: BaseException) -> bool:
    """Whether a COM call failed only because Excel was busy (pywintypes.com_error's hresult)."""
    hresult = getattr(exc, "hresult", None)
    if hresult is None and getattr(exc, "args", None):
        hresult = exc.args[0]
    return hresult in BUSY_HRESULTS


# -- the IRtdServer, as pywin32 presents Excel's calls -------------------------------------------
class RtdServer:
    """The IRtdServer methods, host-free; `rtd_com.RatesRtdServer` exposes them to COM.

    Signatures as pywin32 passes them (ByRef arguments returned as extra values), as in
    pywin32's com/win32com/demos/excelRTDServer.py. Excel's order: ServerStart with its
    IRTDUpdateEvent; ConnectData per topic (a topic id Excel chose, our strings); UpdateNotify
    from us when something changed; RefreshData when Excel is ready; DisconnectData when no
    cell uses a topic; ServerTerminate (learn.microsoft.com/office/vba/api/excel.irtdserver).
    """

    def __init__(self, owner: Waits | None = None,
                 schedule: Callable[[float, Callable[[], None]], Any] | None = None) -> None:
        self.owner = waits if owner is None else owner
        self.callback: Any = None
        self._ids: dict[int, str] = {}  # Excel's topic id -> our topic
        self._channel_of: dict[int, Any] = {}  # Excel's topic id -> its channel (Live...)
        self._pushed: dict[int, Any] = {}  # a channel topic's current value
        self._changed: set[int] = set()
        self._rung = False  # an UpdateNotify Excel has not answered with RefreshData yet
        self._lock = threading.RLock()
        self._retries = 0
        # How a rejected UpdateNotify is tried again later (a timer thread by default).
        self._schedule = schedule or _timer
        self.rejected = 0  # UpdateNotify calls Excel rejected as busy (then retried)
        self.rings_due = 0  # rings scheduled from ConnectData, not yet made

    def ServerStart(self, callback: Any) -> int:  # noqa: N802 - Excel's names
        self.callback = callback
        self.owner.attach(self)
        return 1  # "Negative value or zero indicates failure" (excel.irtdserver.serverstart)

    def ConnectData(self, topic_id: int, strings: Any, get_new_values: bool) -> tuple[Any, bool]:  # noqa: N802
        strings = [str(s) for s in (strings or [])]
        topic = strings[0] if strings else ""
        channel = self.owner.channel(topic) if topic else None
        if channel is not None:
            with self._lock:
                self._channel_of[int(topic_id)] = channel
            value = channel.connect(self, int(topic_id), strings[1:])
            with self._lock:
                self._pushed[int(topic_id)] = value
            return value, True
        with self._lock:
            self._ids[int(topic_id)] = topic
        known = self.owner.known(topic)
        value = self.owner.state(topic)
        if not known:
            # Reopened with a topic this process never queued: a new value makes Excel
            # recalculate the cell, and the ring that follows delivers another (FETCHING, or
            # READY once the recalculated cell's request is answered) in case it did not.
            self._ring_soon(topic)
            return RECONNECT, True
        if value != FETCHING:
            # Answered between the cell's miss and this subscription (the race): answer
            # FETCHING now and ring, so RefreshData delivers READY as a *changed* value. Excel
            # recalculates a topic's cells only when RefreshData changes its value: "It seems
            # Excel no longer updates if the RefreshData returns the same value" (Excel-DNA,
            # ExcelRtdObserver.cs, 2020-03-02; ExcelRtdServer.cs marks Topic.UpdateNotify
            # obsolete for the same reason). Rung from another thread: never call into Excel
            # while it is calling us.
            self._ring_soon(topic)
        return FETCHING, True

    def _ring_soon(self, topic: str) -> None:
        """Ring for `topic` from another thread at once (`rings_due` counts it meanwhile)."""
        with self._lock:
            self.rings_due += 1

        def ring() -> None:
            try:
                self.topics_ready([topic])
            finally:
                with self._lock:
                    self.rings_due -= 1

        self._schedule(0.0, ring)

    def RefreshData(self, topic_count: int = 0) -> tuple[tuple[list[int], list[Any]], int]:  # noqa: N802
        with self._lock:
            ids = sorted(i for i in self._changed if i in self._ids or i in self._channel_of)
            self._changed.clear()
            self._rung = False
            topics = {i: self._ids[i] for i in ids if i in self._ids}
            pushed = {i: self._pushed.get(i) for i in ids if i not in topics}
        values = [self.owner.state(topics[i]) if i in topics else pushed[i] for i in ids]
        return (ids, values), len(ids)

    def DisconnectData(self, topic_id: int) -> None:  # noqa: N802
        with self._lock:
            self._ids.pop(int(topic_id), None)
            self._changed.discard(int(topic_id))
            channel = self._channel_of.pop(int(topic_id), None)
            self._pushed.pop(int(topic_id), None)
        if channel is not None:
            channel.disconnect(self, int(topic_id))
        self.owner.tidy()

    def push(self, values: dict[int, Any]) -> None:
        """New values for channel topics (Live mode); Excel is rung and pulls them."""
        with self._lock:
            ids = {int(i) for i in values if int(i) in self._channel_of}
            for i in ids:
                self._pushed[i] = values[i]
            if not ids:
                return
            self._changed |= ids
            if self._rung:
                return
            self._rung = True
        self._ring()

    def held_topics(self) -> set[str]:
        """The request topics Excel holds on this server (a cell subscribed to each)."""
        with self._lock:
            return set(self._ids.values())

    def Heartbeat(self) -> int:  # noqa: N802
        return 1

    def ServerTerminate(self) -> None:  # noqa: N802
        with self._lock:
            self._ids.clear()
            self._changed.clear()
            channels = list(self._channel_of.items())
            self._channel_of.clear()
            self._pushed.clear()
            self.callback = None
        for topic_id, channel in channels:
            channel.disconnect(self, topic_id)
        self.owner.detach(self)

    # -- from the waits --
    def topics_ready(self, topics: Iterable[str]) -> None:
        wanted = set(topics)
        with self._lock:
            ids = {i for i, t in self._ids.items() if t in wanted}
            if not ids:
                return  # nobody in this Excel waits on them (a closed book, an edited cell)
            self._changed |= ids
            if self._rung:
                return  # Excel will pull everything changed meanwhile with the next RefreshData
            self._rung = True
        self._ring()

    def _ring(self) -> None:
        with self._lock:
            callback = self.callback
            if callback is None or not self._rung:
                return
        try:
            callback.UpdateNotify()
        except Exception as exc:
            if not is_busy(exc):
                # Excel went away (closed, crashed): nothing left to tell.
                with self._lock:
                    self._rung = False
                return
            # Excel is busy: try again shortly; the changes stay queued.
            with self._lock:
                self.rejected += 1
                delay = RETRY_DELAYS[min(self._retries, len(RETRY_DELAYS) - 1)]
                self._retries += 1
            self._schedule(delay, self._ring)
            return
        with self._lock:
            self._retries = 0


def _timer(delay: float, action: Callable[[], None]) -> Any:
    timer = threading.Timer(delay, action)
    timer.daemon = True
    timer.start()
    return timer
