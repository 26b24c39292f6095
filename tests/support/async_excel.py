"""The serial-Excel stand-in with the add-in's RTD server started as Excel starts it, and
Excel's idle loop: what the asynchronous RATES_ cells need (tests/addin/test_rtd_excel.py,
bench/excel_async.py).

`async_app()` gives an App whose Excel knows the ProgID `rtd.PROGID` (its server is the
add-in's host-free `rtd_server.RtdServer`, as COM would create it in the UDF server) and turns the
UDFs' asynchronous path on. `settle()` plays Excel while the user does nothing: it lets the
RTD host pull when Excel would (after an UpdateNotify, once per throttle interval, only
while Ready) until no request is in flight and nothing is left to pull.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rates_xl.addin.classic import live_rtd, rtd, rtd_server
from tests.support import serial_excel, serial_excel_legacy


def async_app(throttle: float | None = None, clock: Callable[[], float] | None = None,
              **app_options: Any) -> serial_excel.App:
    rtd.waits.reset()
    live_rtd.channel.reset()
    rtd.waits.enabled = True
    app = serial_excel.App(**app_options)
    host = app.use_rtd({rtd.PROGID: rtd_server.RtdServer}, clock=clock)
    if throttle is not None:
        host.throttle_interval = throttle
    return app


def stop_async() -> None:
    rtd.waits.reset()
    live_rtd.channel.reset()
    rtd.waits.enabled = False


def settle(app: serial_excel.App, timeout: float = 30.0, poll: float = 0.005,
           on_pull: Callable[[float], Any] | None = None) -> int:
    """Excel idle until every request is answered and pulled; the number of pulls.
    `on_pull(seconds)` is told how long each pull's recalculation held Excel."""
    host = app.rtd
    ends = time.monotonic() + timeout
    pulls = 0
    while time.monotonic() < ends:
        if serial_excel_legacy.run_resizes(app):  # xlwings' event loop (legacy arrays)
            continue
        started = time.perf_counter()
        if host.idle():
            pulls += 1
            if on_pull is not None:
                on_pull(time.perf_counter() - started)
            continue
        if rtd.waits.pending() == 0 and not host.notified and not _rejected_pending(host):
            return pulls
        time.sleep(poll)
    raise TimeoutError(f"not settled within {timeout} s: {rtd.waits.pending()} requests in flight")


def _rejected_pending(host: Any) -> bool:
    """A server whose UpdateNotify was rejected and is waiting to try again, or that has a ring
    from ConnectData still to make (rtd_server.RtdServer.rings_due)."""
    return any((getattr(s, "_rung", False) and not host.notified) or getattr(s, "rings_due", 0)
               for s in host.servers.values())


def cell_values(book: Any) -> dict[tuple[str, str], Any]:
    from rates_xl.functions.sheet import cell_address

    return {(sheet.name, cell_address(*cell)): value
            for sheet in book.sheets for cell, value in sheet.values.items()}
