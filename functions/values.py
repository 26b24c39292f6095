"""Excel's cell values, in one place: its error values, its serial dates and its booleans.

- Error values are text here (`"#N/A"`), as openpyxl reads an error cell and as calc reports
  one; `ERRORS` lists every one Excel shows, ERROR.TYPE's numbered ones first (Microsoft's
  ERROR.TYPE: #NULL! 1 ... #N/A 7, #GETTING_DATA 8), then those of dynamic arrays and data
  types. Text that reads as one of them (`is_error_text`) is how a cell's error reaches a
  reader or a UDF as text. COM hands a UDF an error as the HRESULT of CVErr(xlErr...)
  (`COM_ERRORS`, xlwings without err_to_str). Each engine's own error objects are its
  adapter's (calc/engines/*/values).
- A date is a serial number of days: the 1900 system counts from 30 December 1899, with
  Excel's leap-year quirk (serial 60 is 29 February 1900, a day that never was, so a date
  before 1 March 1900 is one less); the 1904 system (Excel for Mac's former default) from
  1 January 1904. A time of day is the fraction of a day, a duration its days. openpyxl's
  conversions are Excel's; the zone of an aware date-time is dropped (its wall clock kept).
- Booleans are TRUE and FALSE, as a formula writes them.

The types: `CellValue`, one cell's value as calc reports it and the hosts pass it (a number,
text, an error value as its text, a boolean, empty); `StoredValue`, what a file's cell holds
as openpyxl reads it (a date too); `Grid`, a range or an array, rows of cell values.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from typing import TypeAlias

#: One cell's value: a number, text (an error value is its text, "#N/A"; text that only reads
#: like one is `ErrorLikeText`), a boolean, or None for an empty cell. (bool is an int in
#: Python; it is named for the reader.)
CellValue: TypeAlias = float | int | bool | str | None
#: A cell's value as a file stores it and openpyxl reads it: a date-formatted number as its
#: date, time or duration (`to_serial` gives Excel's number).
StoredValue: TypeAlias = CellValue | datetime | date | time | timedelta
#: A range's values or an array's: rows of cell values.
Grid: TypeAlias = list[list[CellValue]]
#: What a worksheet function answers (functions.core.evaluate): one value (a date as a date:
#: each host writes it its own way), or a spill: its rows, each a list of values (or one value).
FunctionValue: TypeAlias = StoredValue | Sequence[Sequence[StoredValue] | StoredValue]

#: The characters a cell holds (Microsoft, "Excel specifications and limits": 32,767); a formula
#: answering a longer text is #VALUE! (Microsoft's REPT and CONCAT pages).
TEXT_LIMIT = 32_767

#: The error values of every Excel, in ERROR.TYPE's order (its number is the position + 1).
CLASSIC_ERRORS = ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A")
#: Every error value Excel shows.
ERRORS = (*CLASSIC_ERRORS, "#GETTING_DATA", "#SPILL!", "#CALC!", "#FIELD!", "#BLOCKED!", "#CONNECT!",
          "#BUSY!", "#UNKNOWN!")
#: Excel's enumeration of its error values: ERROR.TYPE is the position + 1, and the files Excel
#: writes keep the position as an error's rich value's `errorType` (calc/rich_values.py;
#: calc/xlfuncs/information/errors.py says how each past the first eight is known).
ERROR_ENUMERATION = (*CLASSIC_ERRORS, "#GETTING_DATA", "#SPILL!", "#CONNECT!", "#BLOCKED!", "#UNKNOWN!", "#FIELD!",
                     "#CALC!", "#BUSY!")
#: ERROR.TYPE's answer for each error value it numbers (Microsoft's documentation of ERROR.TYPE).
ERROR_TYPE = {text: number for number, text in enumerate(ERROR_ENUMERATION[:8], start=1)}
#: Excel's error values as COM passes them to a UDF (the HRESULTs of CVErr(xlErr...)).
COM_ERRORS = {
    -2146826281: "#DIV/0!", -2146826246: "#N/A", -2146826259: "#NAME?", -2146826288: "#NULL!",
    -2146826252: "#NUM!", -2146826265: "#REF!", -2146826273: "#VALUE!",
}
_ERRORS = frozenset(ERRORS)

#: The 1900 date system's day 0 (openpyxl's WINDOWS_EPOCH) and the 1904 system's.
EPOCH_1900 = datetime(1899, 12, 30)
EPOCH_1904 = datetime(1904, 1, 1)

BOOLEANS = {"TRUE": True, "FALSE": False}


class ErrorLikeText(str):
    """Text that reads as one of Excel's error values, and is text: `VALUETOTEXT(#N/A)`'s
    answer "#N/A", a string cell typed so, a formula's `="#N/A"` (ISTEXT is TRUE of it, ISERROR
    FALSE; the file stores it as a string, `t="str"` or `t="s"`, never `t="e"`). A plain str
    that reads so is the error; `text_value` wraps text that is not."""

    __slots__ = ()


def text_value(value: str) -> str:
    """Text known to be text (a string cell, an engine's text answer): wrapped as
    `ErrorLikeText` when it reads as an error value, so nothing downstream takes it for one."""
    return ErrorLikeText(value) if value in _ERRORS and not isinstance(value, ErrorLikeText) else value


def is_error_text(value: object) -> bool:
    """One of Excel's error values (`"#N/A"`), as a reader hands an error cell (text that only
    reads like one, `ErrorLikeText`, is not)."""
    return isinstance(value, str) and value in _ERRORS and not isinstance(value, ErrorLikeText)


def to_serial(value: date | datetime | time | timedelta, epoch: datetime = EPOCH_1900) -> float:
    """Excel's serial number of a date or date-time (on `epoch`'s date system), a time of day
    (a fraction of a day) or a duration (days)."""
    from openpyxl.utils.datetime import to_excel

    if isinstance(value, datetime) and value.tzinfo is not None:
        value = value.replace(tzinfo=None)
    return to_excel(value, epoch)


def from_serial(serial: float, epoch: datetime = EPOCH_1900) -> datetime | time:
    """A serial number as the date-time it stands for (a time of day below 1)."""
    from openpyxl.utils.datetime import from_excel

    return from_excel(serial, epoch)


def boolean_text(value: bool) -> str:
    """TRUE or FALSE, as a formula writes it."""
    return "TRUE" if value else "FALSE"
