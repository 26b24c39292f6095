"""A workbook's date system, as the RATES_* functions read and write dates in it.

Excel counts dates from 30 December 1899 (the 1900 system) or, in a book saved with the 1904
system (Excel for Mac's default before 2011, still found in old Mac books), from 1 January
1904: the same date is a serial 1,462 lower there. A date cell reaches a function as a date
in the classic add-in (xlwings reads Range.Value, a COM date: the day itself) and as its serial
in Office.js; a date a formula computes (DATE, EDATE, A1+30) is a serial in both. The function
table reads a serial on the 1900 system (functions/args.py), so in a 1904 book each such
serial is moved onto it first (`onto_1900`), and a date an answer holds is written as the
book's serial (`serial`): otherwise a discount factor is asked of a date 4 years and a day
later, silently. Every host and `rates-xl calc` read a book's system their own way (the
classic add-in Workbook.Date1904, Office.js DATE(1904,1,1), calc the file's `date1904`) and
move dates here, in one place.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import date, datetime
from typing import TypeVar, cast

from rates_xl.functions.values import EPOCH_1900, EPOCH_1904, to_serial

#: Days from the 1900 system's serial 0 to the 1904 system's (1 January 1904).
SHIFT = 1462

#: The function table's argument kinds that read a number as a date's serial (functions/args.py).
_DATE_KINDS = frozenset({"date", "date_or_tenor", "timestamp"})

T = TypeVar("T")


@functools.cache  # asked on every call from Excel (the classic add-in's per-cell path): once per function
def date_arguments(spec: object) -> tuple[int, ...]:
    """The positions of a RATES_* function's arguments that read a serial as a date."""
    return tuple(k for k, arg in enumerate(getattr(spec, "args", ())) if getattr(arg, "kind", "") in _DATE_KINDS)


def moved(value: object, days: int) -> object:
    """A date argument or answer moved by `days`: numbers (in lists, a range's, too); anything
    else as it is (text is read as a calendar date by the function itself, errors pass)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return value + days
    if isinstance(value, list):
        return [moved(v, days) for v in value]
    return value


def _number_in(value: object) -> bool:
    if isinstance(value, list):
        return any(_number_in(v) for v in value)
    return isinstance(value, int | float) and not isinstance(value, bool)


def has_serial(args: Sequence[object], positions: tuple[int, ...]) -> bool:
    """Whether a date argument is given as a number (a serial, in a range too): only then does
    the book's date system matter to the call's arguments."""
    return any(_number_in(args[k]) for k in positions if k < len(args))


def serial_argument(spec: object, args: Sequence[object]) -> str | None:
    """The name of the first of a call's date arguments given as a number (a serial), or
    None: only such a call needs its book's date system."""
    for k in date_arguments(spec):
        if k < len(args) and _number_in(args[k]):
            return str(getattr(getattr(spec, "args", ())[k], "name", f"argument {k + 1}"))
    return None


def onto_1900(args: Sequence[T], positions: tuple[int, ...]) -> list[T]:
    """A RATES_* call's arguments with each date given as a 1904 serial moved onto the 1900
    system the function table reads (a date cell's date, text and tenors as they are)."""
    return [cast("T", moved(a, SHIFT)) if k in positions else a for k, a in enumerate(args)]


def serial(value: date, date1904: bool = False) -> float:
    """A date an answer holds as the book's serial number."""
    return to_serial(value, EPOCH_1904 if date1904 else EPOCH_1900)


def dates_as_serials(value: object) -> object:
    """A RATES_* answer with each date in it as a 1904 book's serial (a host's own conversion
    writes 1900 ones)."""
    if isinstance(value, date | datetime):
        return serial(value, True)
    if isinstance(value, list):
        return [dates_as_serials(v) for v in value]
    return value


__all__ = ["SHIFT", "date_arguments", "dates_as_serials", "has_serial", "moved", "onto_1900", "serial",
           "serial_argument"]
