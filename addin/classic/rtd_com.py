"""The RTD server as a COM object, Windows only: the thin layer between Excel and `rtd.py`.

Nothing here runs on Linux (pywin32 is Windows-only); every decision lives in `rtd.py`,
tested on the serial-Excel stand-in. This module only:

- `enable()`: inside the UDF server (the Python process xlwings starts for the add-in, on
  the thread that answers Excel's UDF calls), registers our class object with COM
  (`CoRegisterClassObject`, as xlwings' own `com_server.serve` does for its XLPython), so
  the `RatesXL.RTD` server Excel creates for a waiting cell lives in this process and sees
  its cache; then turns the UDFs' asynchronous path on. Any failure leaves it off: the UDFs
  then fetch synchronously, as before.
- `RatesRtdServer`: the IRtdServer methods, handed to `rtd_server.RtdServer`; the Excel type
  library's IRtdServer / IRTDUpdateEvent interfaces registered as pywin32's demo does
  (com/win32com/demos/excelRTDServer.py: `gencache.EnsureModule` and
  `universal.RegisterInterfaces`, needed for the ByRef parameters).
- `_Callback`: Excel's IRTDUpdateEvent used from one thread of our own. The callback is a
  proxy that belongs to the apartment of the thread Excel called ServerStart on; the fetch
  threads that ring it are other threads, so it is marshalled to a notifier thread once
  (CoMarshalInterThreadInterfaceInStream) and every UpdateNotify is made there; its
  exceptions (Excel busy: RPC_E_CALL_REJECTED) come back to `rtd_server.RtdServer`, which retries.

The registration names no LocalServer32 (rtd_registry.py): COM never starts this module on
its own. `python -m rates_xl.addin.classic.rtd_com` run by hand prints why and exits.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
from typing import Any

from rates_xl.addin.classic import rtd, rtd_server

# Excel's type library (Excel XP, 1.4, the first with RTD), as in pywin32's demo.
EXCEL_TLB = ("{00020813-0000-0000-C000-000000000046}", 0, 1, 4)
IRTDUPDATEEVENT_CLSID = "{A43788C1-D91B-11D3-8F39-00C04F3651B8}"
#: `RATES_XL_ASYNC=0` keeps the UDFs synchronous (the RTD server is never registered).
ENV_SWITCH = "RATES_XL_ASYNC"

_revoke: Any = None


def enable(registry: Any = None) -> bool:
    """Register the RTD class object in this process and turn the asynchronous path on.
    `registry`: this user's (rtd_registry.windows_registry() unless a test gives one)."""
    global _revoke
    if rtd.waits.enabled:
        return True
    if not sys.platform.startswith("win") or os.environ.get(ENV_SWITCH, "").strip() == "0":
        return False
    com_server = sys.modules.get("xlwings.com_server")
    loop = getattr(com_server, "loop", None)
    if loop is None or not loop.is_running():
        # Not the UDF server (a script, the VBA export, a test): xlwings' serve() starts this
        # event loop before it answers Excel's first call (xlwings 0.37.8 com_server.serve).
        return False
    from rates_xl.addin.classic import rtd_registry

    registry = registry if registry is not None else rtd_registry.windows_registry()
    if registry is None or rtd_registry.problems(registry):
        # Excel finds the server by its per-user registration (ProgID -> CLSID): without it
        # RTD() fails and a waiting cell would stay #N/A; synchronous is slow but right.
        return False
    try:
        import pythoncom
        from win32com import universal
        from win32com.client import gencache

        gencache.EnsureModule(*EXCEL_TLB)
        universal.RegisterInterfaces(*EXCEL_TLB, ["IRtdServer", "IRTDUpdateEvent"])
        factory = pythoncom.MakePyFactory(rtd.CLSID)
        _revoke = pythoncom.CoRegisterClassObject(
            rtd.CLSID, factory, pythoncom.CLSCTX_LOCAL_SERVER, pythoncom.REGCLS_MULTIPLEUSE)
    except Exception:  # no pywin32, no Excel type library, no registration: stay synchronous
        return False
    rtd.waits.enabled = True
    return True


class _Callback:
    """Excel's IRTDUpdateEvent, called on a notifier thread that owns the marshalled proxy."""

    def __init__(self, callback: Any) -> None:
        import pythoncom

        stream = pythoncom.CoMarshalInterThreadInterfaceInStream(pythoncom.IID_IDispatch, callback)
        self._calls: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._serve, args=(stream,), daemon=True,
                                        name="rates-rtd-notify")
        self._thread.start()

    def _serve(self, stream: Any) -> None:
        import pythoncom
        import win32com.client

        pythoncom.CoInitializeEx(pythoncom.COINIT_MULTITHREADED)
        try:
            raw = pythoncom.CoGetInterfaceAndReleaseStream(stream, pythoncom.IID_IDispatch)
            event = win32com.client.CLSIDToClass.GetClass(IRTDUPDATEEVENT_CLSID)(raw)
            while True:
                done = self._calls.get()
                if done is None:
                    return
                try:
                    event.UpdateNotify()
                    done.put(None)
                except Exception as exc:  # pywintypes.com_error: rtd_server.is_busy reads its hresult
                    done.put(exc)
        finally:
            pythoncom.CoUninitialize()

    def UpdateNotify(self) -> None:  # noqa: N802 - Excel's name
        done: queue.Queue = queue.Queue(1)
        self._calls.put(done)
        error = done.get(timeout=30)
        if error is not None:
            raise error

    def close(self) -> None:
        self._calls.put(None)


class RatesRtdServer:
    """The COM object Excel creates for `=RTD("RatesXL.RTD", , topic)`."""

    _com_interfaces_ = ["IRtdServer"]
    _public_methods_ = ["ConnectData", "DisconnectData", "Heartbeat", "RefreshData", "ServerStart",
                        "ServerTerminate"]
    _reg_clsid_ = rtd.CLSID
    _reg_progid_ = rtd.PROGID

    def __init__(self) -> None:
        self._logic = rtd_server.RtdServer()
        self._callback: _Callback | None = None

    def ServerStart(self, CallbackObject: Any) -> int:  # noqa: N802,N803 - Excel's names
        if not rtd.waits.enabled or CallbackObject is None:
            return 0  # not inside the UDF server: "zero indicates failure" (Excel shows #N/A)
        self._callback = _Callback(CallbackObject)
        return self._logic.ServerStart(self._callback)

    def ConnectData(self, TopicID: int, Strings: Any, GetNewValues: bool) -> tuple[Any, bool]:  # noqa: N802,N803
        return self._logic.ConnectData(TopicID, Strings, GetNewValues)

    def RefreshData(self, TopicCount: int) -> tuple[tuple[list, list], int]:  # noqa: N802,N803
        # A 2-row array, topic ids then values, and the count ByRef (pywin32's demo).
        return self._logic.RefreshData(TopicCount)

    def DisconnectData(self, TopicID: int) -> None:  # noqa: N802,N803
        self._logic.DisconnectData(TopicID)

    def Heartbeat(self) -> int:  # noqa: N802
        return self._logic.Heartbeat()

    def ServerTerminate(self) -> None:  # noqa: N802
        self._logic.ServerTerminate()
        if self._callback is not None:
            self._callback.close()
            self._callback = None


def main() -> int:
    print("rates-xl: the RTD server runs inside the add-in's UDF server (started by Excel with "
          "the first RATES_ cell); it cannot run on its own", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
