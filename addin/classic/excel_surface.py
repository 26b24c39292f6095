"""The Excel surface the classic add-in touches, as Protocols: one place that names every
member of Excel the ribbon, refresh and UDF code use.

Two layers, because xlwings has two:
- `App`, `Book`, `Sheets`, `Sheet`, `Range`: xlwings' own Python classes (xlwings.App,
  xlwings.Book, xlwings.main.Sheets, xlwings.Sheet, xlwings.Range). tests/addin/
  test_excel_surface.py checks that both these classes and the serial-Excel stand-in
  (tests/support/serial_excel.py) have every member named here.
- `ComApplication`, `ComWorkbooks`, `ComRange`: the COM objects behind `.api`, reached only
  on Windows with Excel running; nothing on Linux can check them. `COM_DOCS` names the
  Microsoft page each member comes from, and the test checks the stand-in has them and
  that every one has its page.

A member the add-in starts using goes here first; the test then says whether the stand-in
and xlwings have it, so a change cannot pass on the stand-in alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

_VBA = "https://learn.microsoft.com/office/vba/api/"

#: (COM protocol, member) -> the Microsoft reference page it is documented on.
COM_DOCS: dict[tuple[str, str], str] = {
    ("ComApplication", "EnableCancelKey"): _VBA + "excel.application.enablecancelkey",
    ("ComApplication", "Workbooks"): _VBA + "excel.application.workbooks",
    ("ComApplication", "InputBox"): _VBA + "excel.application.inputbox",
    ("ComApplication", "Run"): _VBA + "excel.application.run",
    ("ComWorkbooks", "Add"): _VBA + "excel.workbooks.add",
    ("ComApplication", "Ready"): _VBA + "excel.application.ready",
    ("ComApplication", "Windows"): _VBA + "excel.application.windows",
    ("ComWindow", "Visible"): _VBA + "excel.window.visible",
    ("ComWindow", "Parent"): _VBA + "excel.window.parent",
    ("ComWorkbook", "Name"): _VBA + "excel.workbook.name",
    ("ComRange", "Address"): _VBA + "excel.range.address",
    ("ComRange", "Dirty"): _VBA + "excel.range.dirty",
    ("ComRange", "HasSpill"): _VBA + "excel.range.hasspill",
    ("ComRange", "SpillingToRange"): _VBA + "excel.range.spillingtorange",
    ("ComRange", "SpillParent"): _VBA + "excel.range.spillparent",
    ("ComRange", "Formula2"): _VBA + "excel.range.formula2",
}


# -- COM, behind `.api` (Windows only) -----------------------------------------------------------
class ComWorkbooks(Protocol):
    def Add(self, template: str) -> Any: ...  # noqa: N802 - Excel's name


class ComWorkbook(Protocol):
    @property
    def Name(self) -> str: ...  # noqa: N802


class ComWindow(Protocol):
    #: Live mode skips a workbook none of whose windows is visible (classic/live_mode.py).
    Visible: bool

    @property
    def Parent(self) -> ComWorkbook: ...  # noqa: N802


class ComApplication(Protocol):
    #: xlDisabled (0) while a refresh runs, so Esc cannot interrupt the VBA callback.
    EnableCancelKey: int

    #: False while a cell is in edit mode or a dialog is open: Live mode pauses.
    @property
    def Ready(self) -> bool: ...  # noqa: N802

    @property
    def Windows(self) -> Any: ...  # noqa: N802 - iterable of ComWindow

    @property
    def Workbooks(self) -> ComWorkbooks: ...  # noqa: N802

    def InputBox(self, prompt: str, title: str, default: str, Type: int) -> Any: ...  # noqa: N802,N803

    #: The add-in's own macros with arguments (RatesRibbon.RatesShowScenario: the Scenario label).
    def Run(self, Macro: str, *args: Any) -> Any: ...  # noqa: N802,N803


class ComRange(Protocol):
    @property
    def Address(self) -> str: ...  # noqa: N802

    @property
    def HasSpill(self) -> bool: ...  # noqa: N802

    @property
    def SpillingToRange(self) -> ComRange: ...  # noqa: N802

    #: The anchor of the spill this cell is in (RATES_SOURCE of a table's cell).
    @property
    def SpillParent(self) -> ComRange: ...  # noqa: N802

    @property
    def Formula2(self) -> Any: ...  # noqa: N802 - the formula as a dynamic-array Excel shows it

    def Dirty(self) -> None: ...  # noqa: N802


# -- xlwings' Python classes -----------------------------------------------------------------
class Range(Protocol):
    @property
    def sheet(self) -> Sheet: ...

    @property
    def address(self) -> str: ...

    #: A bulk read of a block: a list of rows (one value for one cell).
    formula: Any
    value: Any

    @property
    def api(self) -> ComRange: ...


class Sheet(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def book(self) -> Book: ...

    @property
    def used_range(self) -> Range: ...

    def range(self, cell: Any) -> Range: ...


class Sheets(Protocol):
    @property
    def active(self) -> Sheet: ...

    def __getitem__(self, key: Any) -> Sheet: ...  # by name (RATES_SOURCE reads referenced cells)

    def __iter__(self) -> Iterator[Sheet]: ...


class Book(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def app(self) -> App: ...

    @property
    def sheets(self) -> Sheets: ...

    @property
    def selection(self) -> Range | None: ...


class App(Protocol):
    @property
    def books(self) -> Any: ...  # iterable of Book (xlwings.main.Books)

    @property
    def hwnd(self) -> int: ...

    @property
    def api(self) -> ComApplication: ...

    screen_updating: bool
    #: False gives the status bar back to Excel; a string shows it.
    status_bar: Any

    def calculate(self) -> None: ...

    def alert(self, prompt: str, title: str | None = None) -> Any: ...


#: Protocol -> the xlwings class providing it, "module:attribute" (checked on Linux).
XLWINGS_CLASSES: dict[type, str] = {
    App: "xlwings:App", Book: "xlwings:Book", Sheets: "xlwings.main:Sheets",
    Sheet: "xlwings:Sheet", Range: "xlwings:Range",
}
COM_PROTOCOLS: tuple[type, ...] = (ComApplication, ComWorkbooks, ComRange, ComWindow, ComWorkbook)
