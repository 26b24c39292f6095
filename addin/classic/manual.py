"""Manual calculation in one F9, chains included (issue 28, point 1).

RTD recalculates its cells only "when Microsoft Excel is in automatic calculation mode" (MS
support, RTD function; modelled in tests/support/serial_excel_rtd.py): in manual mode a
waiting RATES_ cell stayed #N/A after F9 until a second F9, and each link of a chain needed
one more. What is done instead, in manual mode only (automatic mode keeps the never-waiting
RTD path and its figures):

1. The user's F9 (or Shift+F9, or a macro's Range.Calculate) calculates; a RATES_ cell whose
   answer is not cached answers #N/A at once as in automatic mode (its request joins the
   batch fetched at the limiter's pace), and the UDF notes the cell (`note_wait`).
2. The first such cell of a calculation asks Excel to run the add-in's `RatesFill` macro once
   it is Ready: `Application.OnTime Now, "'rates_xl.xlam'!RatesFill"` (Excel "will wait until
   the procedure can be run": MS excel.application.ontime). The call is made from a thread of
   our own through COM, as xlwings' own asynchronous UDFs write back into Excel (xlwings
   0.37.8 udfs.ComRange: the object marshalled to a worker thread, a call Excel rejects as
   busy tried again later), never from inside the cell's calculation, where a UDF must not
   change Excel's environment (KB 170787, "Description of limitations of custom functions").
3. `RatesFill` runs `ribbon_refresh.fill` in the UDF server, on Excel's main thread (RunPython,
   like every button): the noted cells go through the Refresh's plan, fetch, compute loop without a
   freshness floor (their requests are already fetched or in flight: nothing is asked twice),
   `Range.Dirty` then `Application.Calculate` (dirty cells and their dependents: a chain's next
   link misses in that pass and is fetched and computed in the next), with the status bar's
   progress and Esc, until nothing is left pending. Excel's Application.Calculate in manual
   mode is F9's own: cells other than ours that are dirty (edited since, or left by a
   Shift+F9 on another sheet) are calculated too, as the F9 the user pressed would have.

So one F9 gives every value, chains included, at the rate limit's pace.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from typing import Any

log = logging.getLogger("rates_xl.addin")

#: XlCalculation.xlCalculationManual (MS excel.xlcalculation).
XL_MANUAL = -4135
#: The add-in's macro OnTime runs (vba/RatesRibbon.bas); the add-in's workbook name prefixes it.
FILL_MACRO = "RatesFill"
ADDIN_NAME = "rates_xl.xlam"
#: HRESULTs of a call Excel rejected as busy, retried (xlwings udfs.RPC_E_SERVERCALL_RETRYLATER).
BUSY = (-2147418111, -2146777998, -2147417846)
DISP_E_EXCEPTION = -2147352567


class Fill:
    """The cells a manual-mode calculation left waiting, and whether RatesFill is scheduled."""

    def __init__(self) -> None:
        self._cells: dict[tuple[str, str, str], tuple[str, str, str]] = {}
        self._scheduled = False
        self._lock = threading.Lock()
        #: How the macro is scheduled (tests may replace it); default: `schedule_on_time`.
        self.schedule = schedule_on_time

    def note_wait(self, caller: Any, where: tuple[str, str, str]) -> None:
        """A UDF answered the wait marker for the cell `where`. In manual mode the cell is
        kept for RatesFill, which the first one of a calculation schedules."""
        application = _application(caller)
        if application is None or not _manual(application):
            return
        key = (where[0].casefold(), where[1].casefold(), where[2].replace("$", "").upper())
        with self._lock:
            self._cells[key] = where
            first, self._scheduled = not self._scheduled, True
        if first:
            try:
                self.schedule(application)
            except Exception:  # never fail the cell over it: a second F9 still fills it
                log.warning("could not schedule RatesFill", exc_info=True)
                with self._lock:
                    self._scheduled = False

    def take(self) -> list[tuple[str, str, str]]:
        """The waiting cells noted since the last fill (RatesFill is unscheduled)."""
        with self._lock:
            cells, self._cells, self._scheduled = list(self._cells.values()), {}, False
        return cells

    def reset(self) -> None:
        self.take()
        self.schedule = schedule_on_time


def _application(caller: Any) -> Any:
    try:
        return caller.api.Application
    except Exception:  # not a worksheet cell's Range
        return None


def _manual(application: Any) -> bool:
    try:
        return int(application.Calculation) == XL_MANUAL
    except Exception:  # Excel would not say: the RTD path alone, as in automatic mode
        return False


def on_time_procedure() -> str:
    return f"'{ADDIN_NAME}'!{FILL_MACRO}"


def schedule_on_time(application: Any) -> None:
    """Application.OnTime Now, RatesFill: on Windows from a thread of our own with the
    Application marshalled to it and busy rejections retried (xlwings' ComRange pattern);
    elsewhere (the serial-Excel stand-in) called directly."""
    if not sys.platform.startswith("win"):
        application.OnTime(_now(), on_time_procedure())
        return
    import pythoncom

    stream = pythoncom.CoMarshalInterThreadInterfaceInStream(pythoncom.IID_IDispatch, application._oleobj_)
    threading.Thread(target=_on_time_thread, args=(stream,), daemon=True, name="rates-fill").start()


def _on_time_thread(stream: Any) -> None:  # Windows only
    import pythoncom
    import win32com.client

    pythoncom.CoInitialize()
    try:
        application = win32com.client.Dispatch(
            pythoncom.CoGetInterfaceAndReleaseStream(stream, pythoncom.IID_IDispatch))
        delay = 0.01
        for _ in range(600):  # about two minutes of a busy Excel at most
            try:
                application.OnTime(_now(), on_time_procedure())
                return
            except Exception as exc:  # pywintypes.com_error
                hresult = getattr(exc, "hresult", None)
                if hresult not in BUSY and hresult != DISP_E_EXCEPTION:
                    raise
            time.sleep(delay)
            delay = min(delay * 2, 0.5)
    finally:
        pythoncom.CoUninitialize()


def _now() -> Any:
    import datetime

    return datetime.datetime.now()


#: The process's fill (the UDF server's one).
fill = Fill()
