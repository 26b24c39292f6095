"""Live mode's side of the RTD server, for the serial-Excel stand-in: an `IRtdServer` (as
pywin32 presents one, like tests/support/serial_excel_rtd.py expects) that implements
`rates_xl.addin.classic.live.Topics`, so the classic Live glue can be tested on Linux
through the stand-in's model of Excel's RTD (ConnectData, UpdateNotify, RefreshData when
Excel is ready and the throttle interval has passed, DisconnectData when a formula leaves).

The add-in's real RTD server (addin/classic/rtd*.py) plays this part in Excel; it is built
beside Live, and the two meet in `ClassicLive.watch / forget` and `Topics.update`.

A RATES_ cell is linked to its topic by a doorbell formula, the pattern the add-in uses:
the value comes from the UDF, the RTD topic only changes when the answer is new, which
makes Excel recalculate the cell (RTD cannot return an array, KB 286258):

    =RATES_SWAP("SOFR","0D","5Y","1Y")+0*RTD("RatesXL.Live",,"Book1.xlsx","S","A1","RATES_SWAP","SOFR","0D","5Y","1Y")

The topic strings name the cell (book, sheet, address) and its call, so ConnectData can
compute it once under `client.requests_used()` to learn the requests it depends on.
"""

from __future__ import annotations

from typing import Any

from rates_xl.addin.classic.live import CellRef, ClassicLive

PROGID = "RatesXL.Live"


def doorbell(call: str, book: str, sheet: str, address: str) -> str:
    """The formula of a live RATES_ cell: `call` like 'RATES_SWAP("SOFR","0D","5Y","1Y")'."""
    name, _, rest = call.partition("(")
    args = rest.rstrip(")")
    return (f'={call}+0*RTD("{PROGID}",,"{book}","{sheet}","{address}","{name}"'
            + (f",{args}" if args else "") + ")")


class LiveTopics:
    """One RTD server per Excel; `live` is set once the ClassicLive around it exists."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.live: ClassicLive | None = None
        self.callback: Any = None
        self.cells: dict[int, CellRef] = {}  # topic id -> cell
        self.topics: dict[CellRef, int] = {}
        self.rings: dict[int, int] = {}  # topic id -> how many times its answer was new
        self.changed: set[int] = set()
        self.disconnected: list[CellRef] = []

    # -- Topics (what Live calls) ------------------------------------------------------------
    def update(self, cells: frozenset[Any]) -> None:
        for cell in cells:
            topic = self.topics.get(cell)
            if topic is not None:
                self.rings[topic] += 1
                self.changed.add(topic)
        if self.changed and self.callback is not None:
            self.callback.UpdateNotify()  # Excel pulls when it is idle (serial_excel_rtd)

    # -- IRtdServer (what Excel calls) --------------------------------------------------------
    def ServerStart(self, callback: Any) -> int:  # noqa: N802 - Excel's names
        self.callback = callback
        return 1

    def ConnectData(self, topic_id: int, strings: list[str], get_new_values: bool) -> tuple[Any, bool]:  # noqa: N802
        from rates_xl.functions import FUNCTIONS

        book, sheet, address, name, *args = strings
        cell = CellRef(book, sheet, address)
        self.cells[topic_id], self.topics[cell] = cell, topic_id
        self.rings[topic_id] = 0
        with self.client.requests_used() as used:
            FUNCTIONS[name].core(*args)
        if self.live is not None:
            self.live.watch(cell, used)
        return 0, True

    def RefreshData(self, topic_count: int) -> tuple[tuple[list[int], list[Any]], int]:  # noqa: N802
        ids = sorted(self.changed)
        self.changed.clear()
        return (ids, [self.rings[i] for i in ids]), len(ids)

    def DisconnectData(self, topic_id: int) -> None:  # noqa: N802
        cell = self.cells.pop(topic_id, None)
        if cell is not None:
            self.topics.pop(cell, None)
            self.disconnected.append(cell)
            if self.live is not None:
                self.live.forget(cell)

    def Heartbeat(self) -> int:  # noqa: N802
        return 1

    def ServerTerminate(self) -> None:  # noqa: N802
        self.callback = None
