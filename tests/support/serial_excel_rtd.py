"""Excel's side of RTD for the serial stand-in: what Excel does with an `IRtdServer`, so a
server written against pywin32 (and the cells that use it) can be tested on Linux.

Only Excel is modelled; the server is whatever object the test registers under a ProgID.
It is called the way pywin32 presents Excel's calls to a Python COM server (ByRef
arguments come back as extra return values): `ServerStart(callback) -> int`,
`ConnectData(TopicID, Strings, GetNewValues) -> (value, GetNewValues)`,
`RefreshData(TopicCount) -> ((ids, values), TopicCount)`, `DisconnectData(TopicID)`,
`Heartbeat() -> int`, `ServerTerminate()` (pywin32 com/win32com/demos/excelRTDServer.py).

Each behaviour names its source. MS = learn.microsoft.com/office/vba/api/, KB = Microsoft
Knowledge Base; the demo = pywin32's excelRTDServer.py, whose docstring lists Excel's order
of calls.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.support.serial_excel import App
    from tests.support.serial_excel_graph import Formula

# Application.RTD.ThrottleInterval: "The default value is 2000 milliseconds" (MS
# excel.rtd.throttleinterval). Seconds here.
DEFAULT_THROTTLE_SECONDS = 2.0
# What a cell shows when its server failed or the topic is unknown: #N/A (KB 277617, "RTD
# formula evaluates to #N/A in Excel": a failed server, Heartbeat returning -1...).
NA = "#N/A"


RPC_E_CALL_REJECTED = -2147418111  # 0x80010001


class ComError(Exception):
    """As pywintypes.com_error: args (hresult, text, excepinfo, argerror)."""

    def __init__(self, hresult: int, text: str) -> None:
        super().__init__(hresult, text, None, None)
        self.hresult = hresult


class UpdateEvent:
    """The IRTDUpdateEvent Excel hands the server in ServerStart (MS excel.irtdupdateevent)."""

    def __init__(self, host: RtdHost) -> None:
        self._host = host
        self.HeartbeatInterval = 0  # a member of the interface; its timing is not modelled

    def UpdateNotify(self) -> None:  # noqa: N802 - Excel's name
        if self._host.reject_calls > 0:
            # Excel busy (a modal dialog, a long calculation) rejects a call from another
            # apartment: RPC_E_CALL_REJECTED, unless the caller retries (Andrew Whitechapel,
            # "Implementing IMessageFilter in an Office add-in", MSDN blog, 2008).
            self._host.reject_calls -= 1
            self._host.rejected += 1
            raise ComError(RPC_E_CALL_REJECTED, "Call was rejected by callee.")
        # "Real-time data servers use UpdateNotify to tell Excel that new data is available"
        # (MS excel.irtdupdateevent.updatenotify). Excel does not pull at once: it calls
        # RefreshData later, when idle and the throttle interval has passed (see idle()).
        self._host.notified = True

    def Disconnect(self) -> None:  # noqa: N802
        # "Instructs the RTD server to disconnect from the specified IRTDUpdateEvent object"
        # (MS excel.irtdupdateevent.disconnect): modelled as the server leaving.
        self._host.terminate()


@dataclass
class Topic:
    id: int
    progid: str
    strings: tuple[str, ...]
    value: Any = NA
    cells: set[Any] = field(default_factory=set)  # Formula objects subscribed to it


class RtdHost:
    """The RTD machinery of one Excel instance (`App.rtd`), for every open workbook."""

    def __init__(self, app: App, servers: dict[str, Callable[[], Any]],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.app = app
        self.factories = {progid.casefold(): make for progid, make in servers.items()}
        self.clock = clock
        self.throttle_interval = DEFAULT_THROTTLE_SECONDS
        self.servers: dict[str, Any] = {}  # progid -> the running server
        self.topics: dict[tuple[str, tuple[str, ...]], Topic] = {}
        self.notified = False
        self.reject_calls = 0  # the next UpdateNotify calls rejected as busy (tests set it)
        self.rejected = 0
        self.last_refresh = float("-inf")
        self.refreshes = 0
        self._ids = itertools.count(1)
        self._seen: dict[Any, set[int]] = {}  # Formula -> topic ids its last calculation used
        self._calc: set[int] | None = None  # topic ids the cell being calculated uses

    # -- what a cell's =RTD(progid, server, topic1, ...) does while it is calculated --
    def call(self, progid: str, _server: Any, *strings: Any) -> Any:
        f = self.app._current
        key = (progid.casefold(), tuple(str(s) for s in strings))
        topic = self.topics.get(key)
        if topic is None:
            server = self._server(key[0])
            if server is None:
                return NA  # an unregistered ProgID: #N/A (KB 277617)
            topic = Topic(next(self._ids), progid, key[1])
            self.topics[key] = topic
            # ConnectData "is called when a file is opened that contains real-time data
            # functions or when a user types in a new formula which contains the RTD
            # function" (MS excel.irtdserver.connectdata): once per topic; a second cell
            # with the same strings shares it.
            value, _ = server.ConnectData(topic.id, list(topic.strings), True)
            topic.value = value
        if f is not None:
            topic.cells.add(f)
            if self._calc is not None:
                self._calc.add(topic.id)
        return topic.value

    def _server(self, progid: str) -> Any:
        if progid in self.servers:
            return self.servers[progid]
        make = self.factories.get(progid)
        if make is None:
            return None
        try:
            server = make()
        except ComError:  # CoCreateInstance failed (no class object running, none startable)
            return None
        # "The ServerStart method is called immediately after a real-time data server is
        # instantiated. Negative value or zero indicates failure" (MS excel.irtdserver.serverstart).
        if server.ServerStart(UpdateEvent(self)) <= 0:
            return None
        self.servers[progid] = server
        return server

    # -- the stand-in's calculation tells us which cells use which topics --
    def begin_cell(self, f: Formula) -> None:
        self._calc = set()

    def end_cell(self, f: Formula) -> None:
        used, self._calc = self._calc or set(), None
        for topic_id in self._seen.get(f, set()) - used:
            self._leave(f, topic_id)
        self._seen[f] = used

    def release(self, f: Formula) -> None:
        """A formula left the sheet (overwritten, deleted, its workbook closed)."""
        for topic_id in self._seen.pop(f, set()):
            self._leave(f, topic_id)

    def _leave(self, f: Formula, topic_id: int) -> None:
        for key, topic in list(self.topics.items()):
            if topic.id != topic_id:
                continue
            topic.cells.discard(f)
            if not topic.cells:
                # DisconnectData "notifies a real-time data (RTD) server application that a
                # topic is no longer in use" (MS excel.irtdserver.disconnectdata).
                del self.topics[key]
                server = self.servers.get(key[0])
                if server is not None:
                    server.DisconnectData(topic_id)
                    if not any(k[0] == key[0] for k in self.topics):
                        # "When there are no more topics left, Excel will call our
                        # ServerTerminate method" (the demo's docstring, step 6).
                        server.ServerTerminate()
                        del self.servers[key[0]]

    # -- Excel idle: the pull --
    def idle(self) -> bool:
        """What Excel does when it is idle: after an UpdateNotify, and at most once per
        throttle interval, call RefreshData, then recalculate the cells of the updated topics
        (and their dependents). True when it pulled."""
        if not self.notified or not self.app.ready:
            # Excel answers only "if it is not busy ... busy whenever it is recalculating but
            # also when the user responds to dialog prompts or enters data into a cell"
            # (Software AG Universal Messaging, "Setting the RTD Throttle Interval").
            return False
        now = self.clock()
        if self.throttle_interval < 0 or now - self.last_refresh < self.throttle_interval:
            # -1: manual mode, no pull until Application.RTD.RefreshData (same page).
            return False
        self.pull(now)
        return True

    def pull(self, now: float | None = None) -> None:
        """RefreshData on every server, the new values into their topics, the subscribed
        cells recalculated (Application.RTD.RefreshData does this on demand, MS
        excel.rtd.refreshdata)."""
        self.notified = False
        self.last_refresh = self.clock() if now is None else now
        self.refreshes += 1
        by_id = {topic.id: topic for topic in self.topics.values()}
        for server in list(self.servers.values()):
            (ids, values), _ = server.RefreshData(0)
            for topic_id, value in zip(ids, values, strict=True):
                topic = by_id.get(topic_id)
                if topic is None:  # a topic Excel no longer has: ignored
                    continue
                if value == topic.value:
                    # An unchanged value recalculates nothing: "It seems Excel no longer updates
                    # if the RefreshData returns the same value" (Excel-DNA ExcelRtdObserver.cs,
                    # 2020-03-02; ExcelRtdServer.cs: Topic.UpdateNotify obsolete, "Excel no
                    # longer updates a cell just because RefreshData contains the topic").
                    continue
                topic.value = value
                for f in topic.cells:
                    f.sheet.dirty.add(f.cell)
        self.recalculate()

    def recalculate(self) -> None:
        """The cells of changed topics (already marked dirty) recalculate in automatic mode
        only: "RTD formulas ... change when Microsoft Excel is in automatic calculation mode"
        (MS support, RTD function). In manual mode they wait, dirty, for the next F9
        (Application.Calculate), as any dirty cell does (MS excel.range.dirty)."""
        if self.app.calculation != "manual":
            self.app.calculate()

    def heartbeat(self) -> None:
        """Excel asks each server whether it is alive; a failed one leaves #N/A (KB 277617)."""
        for progid, server in list(self.servers.items()):
            if server.Heartbeat() <= 0:
                self._fail(progid)

    def terminate(self) -> None:
        for progid in list(self.servers):
            self._fail(progid)

    def _fail(self, progid: str) -> None:
        del self.servers[progid]
        for key, topic in self.topics.items():
            if key[0] == progid:
                topic.value = NA
                for f in topic.cells:
                    f.sheet.dirty.add(f.cell)
        self.recalculate()

    # -- a saved workbook reopened --
    def reconnect(self, saved: list[SavedTopic], book: Any) -> list[SavedTopic]:
        """Excel opening a workbook whose cells used RTD topics (saved in the file, with each
        topic's last value: xl/volatileDependencies.xml). For each topic not saved as #N/A,
        Excel starts the server and calls ConnectData(id, strings, GetNewValues=False): "Excel
        has a cached value, and we are being called from the file open refresh" (Excel-DNA
        ExcelObserverRtdServer.ConnectData); a topic saved as #N/A "is not restarted when
        re-opening the sheet" (ibid.). A server that answers with GetNewValues True and a value
        other than the saved one makes Excel update the topic and recalculate its cells
        (Excel-DNA issue 102); an unchanged value does nothing (see `pull`). A server that
        cannot be created fails at once when its class is neither running nor startable
        (xlwings' DLL relies on CoCreateInstance answering REGDB_E_CLASSNOTREG at once:
        xlwingsdll/config.cpp) and its topics keep the saved value. The topics that could not
        be connected are returned."""
        failed = []
        for item in saved:
            if item.value == NA:
                continue
            cells = [f for f in (book.sheets[s].formulas.get(c) for s, c in item.cells) if f is not None]
            server = self._server(item.progid.casefold())
            if server is None:
                failed.append(item)
                continue
            key = (item.progid.casefold(), item.strings)
            topic = self.topics.get(key)
            if topic is None:
                topic = Topic(next(self._ids), item.progid, item.strings, item.value)
                self.topics[key] = topic
                value, new = server.ConnectData(topic.id, list(item.strings), False)
                if new and value != item.value:
                    topic.value = value
                    for f in cells:
                        f.sheet.dirty.add(f.cell)
            for f in cells:
                topic.cells.add(f)
                self._seen.setdefault(f, set()).add(topic.id)
        self.recalculate()
        return failed


@dataclass
class SavedTopic:
    """One RTD topic as a saved workbook keeps it: server, strings, last value, cells."""

    progid: str
    strings: tuple[str, ...]
    value: Any
    cells: list[tuple[str, tuple[int, int]]]


@dataclass
class SavedBook:
    name: str
    sheets: dict[str, dict[tuple[int, int], Any]]  # typed contents, per sheet
    shown: dict[str, dict[tuple[int, int], Any]]  # what each cell showed when saved
    topics: list[SavedTopic]


def save(app: App, book: Any) -> SavedBook:
    """Workbook.Save: contents, the values shown (a waiting cell's #N/A included) and the RTD
    topics its cells use, each with its current value."""
    topics = []
    if app.rtd is not None:
        for topic in app.rtd.topics.values():
            cells = [(f.sheet.name, f.cell) for f in topic.cells if f.sheet.book is book]
            if cells:
                topics.append(SavedTopic(topic.progid, topic.strings, topic.value, sorted(cells)))
    return SavedBook(book.name, {s.name: dict(s.contents) for s in book.sheets},
                     {s.name: dict(s.values) for s in book.sheets}, topics)


def reopen(app: App, saved: SavedBook) -> tuple[Any, list[SavedTopic]]:
    """Workbooks.Open of a saved book in `app` (another Excel session, perhaps): the saved
    values show, nothing is calculated (the file asks for no recalculation on load), then
    Excel reconnects its RTD topics (`RtdHost.reconnect`). The book and the topics that
    could not be connected."""
    from rates_xl.functions.sheet import Area
    from tests.support.serial_excel_book import Book

    book = Book(app, saved.name)
    for name, contents in saved.sheets.items():
        sheet = book.add_sheet(name)
        for (r, c), content in contents.items():
            sheet.put(Area.cell(r, c), content)
        for cell, value in saved.shown[name].items():
            sheet.show(cell, value)
    book.compile()
    app.books.append(book)
    app._graph = None
    failed = app.rtd.reconnect(saved.topics, book) if app.rtd is not None else list(saved.topics)
    return book, failed
