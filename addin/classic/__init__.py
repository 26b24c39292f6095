"""The classic Excel host: xlwings UDFs (`RATES_SWAP`) on Windows desktop Excel.

One cell: Excel calls a UDF in `udfs.py`, which hands its arguments to the host-free core
(`rates_xl.functions.core.evaluate`) under its book's valuation time and a refresh's floor;
a miss waits through RTD (`rtd.py`) instead of blocking Excel.

- `udfs.py`: the UDF module xlwings imports (`UDF Modules = rates_xl.addin.classic.udfs`);
- `refresh.py`: the ribbon's refresh scopes, their freshness floors, the refresh in progress;
- `scope.py`: which cells a refresh touches (pure Python);
- `valuation.py`: one valuation moment per book, and the book's market-data pack;
- `manual.py`: manual calculation in one F9, chains included;
- `rtd.py`: a miss never blocks Excel: cells wait through Excel's RTD (host-free logic);
- `rtd_server.py`: the IRtdServer Excel talks to, host-free, over `rtd.py`'s waits;
- `rtd_com.py`: the RTD server as a COM object (Windows only), over `rtd_server.py`;
- `rtd_registry.py`: the RTD server's per-user registration;
- `rtd_vba.py`: the VBA side of RTD: the `RatesRtd` module and the wrappers routed through it;
- `live_mode.py`: Live mode's ribbon toggle, Excel's state and the status bar;
- `live_rtd.py`: Live mode through the one RTD server (the `live` channel);
- `scenario.py`: the Scenario control: a book's cells from its pack under a shift, and back;
- `source.py`: RATES_SOURCE and RATES_ERROR: the cell itself, not its value;
- `ribbon.py` (+ `ribbon/customUI14.xml`, `vba/RatesRibbon.bas`): the Rates tab: each button's
  handler (one dispatch table) and the one message box a failure becomes;
- `ribbon_context.py`: what a handler works in (the calling book, the dialogs, Esc);
- `ribbon_refresh.py`: Refresh Selection / Sheet / Workbook as plan, fetch, compute through
  Excel's calculation; the add-in's start and manual mode's fill;
- `ribbon_buttons.py`: the other buttons (cache, key, status, explain, templates, help,
  valuation time, Live, Scenario);
- `excel_surface.py`: every member of Excel this host touches, as Protocols;
- `vba.py`: the add-in's VBA as source (xlwings' module, the ribbon callback, the wrappers);
- `vbaprune.py`: xlwings' module cut down to what the add-in calls;
- `vbaproject.py`: `xl/vbaProject.bin` written from module sources, without Excel;
- `build.py`: `rates-xl addin build`: rates_xl.xlam from source, on any OS;
- `build_sources.py`: the ribbon, its callbacks, handlers and start checked before a build;
- `build_package.py`: the .xlam's Open XML package written, and read back and checked;
- `install.py`: `rates-xl addin install / uninstall`: the settings file and XLSTART.
"""
