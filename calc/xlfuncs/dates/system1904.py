"""The 1904 date system (a book saved with `date1904`, Excel for Mac's former default): its
serial 0 is 1 January 1904, the 1900 system's serial 1462. Before this a 1904 book's YEAR(A1)
of 15 January 2020 was 2016, DATE(2020,1,15) 1,462 days late and TEXT(A1,"yyyy-mm-dd")
"2016-01-14", silently.

formualizer is told the book's system (`date_system`, calc/engines/formualizer/model.py), which
its arithmetic on date text ("2020-01-15"+0) and its YEAR, MONTH, DAY, NETWORKDAYS of a number
follow; its TODAY and NOW, and its date functions given text (YEAR("2020-01-15") was 2024,
WORKDAY("2020-01-15",5) a 1900 serial), do not: in such a book those (`NATIVE`) are computed
here. Every function computed here reads and writes 1900 serials, so in such a book each is
given its date arguments moved onto the 1900 system and its date answer moved back (`DATES`,
one table); a date the engine hands it as a date is its 1904 serial first (`shifted`). VALUE
moves a date it reads out of text (`_DATE_LIKE`); the criteria of COUNTIF and its kin that
read like a date (">1/1/2020") are not computed (#NAME?, listed), never a 1900 serial. The
RATES_* functions (calc/engines/formualizer/model.py `_adapt`) read a date argument given as a
serial on the 1900 system too and write the dates they answer as the book's, as the add-ins do
(functions/date_system.py): a discount factor was asked of a date 4 years and a day later.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import date, datetime, time, timedelta
from typing import cast

from rates_xl.calc.engines.formualizer.values import error
from rates_xl.calc.xlfuncs.text.number_text import NOT_COMPUTED
from rates_xl.calc.xlfuncs.types import Answer, EngineValue
from rates_xl.functions.date_system import SHIFT
from rates_xl.functions.date_system import moved as _moved
from rates_xl.functions.values import EPOCH_1904, to_serial

#: name -> (the positions of its date arguments, whether its answer is a date).
DATES: dict[str, tuple[tuple[int, ...], bool]] = {
    "DATE": ((), True), "EDATE": ((0,), True), "EOMONTH": ((0,), True), "DATEDIF": ((0, 1), False),
    "DAYS360": ((0, 1), False), "YEARFRAC": ((0, 1), False), "WEEKDAY": ((0,), False), "WEEKNUM": ((0,), False),
    "ISOWEEKNUM": ((0,), False),
    "ACCRINT": ((0, 1, 2), False), "ACCRINTM": ((0, 1), False), "AMORDEGRC": ((1, 2), False),
    "AMORLINC": ((1, 2), False), "COUPDAYBS": ((0, 1), False), "COUPDAYS": ((0, 1), False),
    "COUPDAYSNC": ((0, 1), False), "COUPNUM": ((0, 1), False), "COUPNCD": ((0, 1), True), "COUPPCD": ((0, 1), True),
    "DISC": ((0, 1), False), "DURATION": ((0, 1), False), "MDURATION": ((0, 1), False), "INTRATE": ((0, 1), False),
    "ODDFPRICE": ((0, 1, 2, 3), False), "ODDFYIELD": ((0, 1, 2, 3), False), "ODDLPRICE": ((0, 1, 2), False),
    "ODDLYIELD": ((0, 1, 2), False), "PRICE": ((0, 1), False), "YIELD": ((0, 1), False),
    "PRICEDISC": ((0, 1), False), "YIELDDISC": ((0, 1), False), "PRICEMAT": ((0, 1, 2), False),
    "YIELDMAT": ((0, 1, 2), False), "RECEIVED": ((0, 1), False), "TBILLEQ": ((0, 1), False),
    "TBILLPRICE": ((0, 1), False), "TBILLYIELD": ((0, 1), False), "XIRR": ((1,), False), "XNPV": ((2,), False),
    # formualizer's own, computed here in such a book (`NATIVE`): the `formulas` ones (calc/xlfuncs/bridge.py).
    "YEAR": ((0,), False), "MONTH": ((0,), False), "DAY": ((0,), False), "DAYS": ((0, 1), False),
    "WORKDAY": ((0, 2), True), "WORKDAY.INTL": ((0, 3), True), "NETWORKDAYS": ((0, 1, 2), False),
    "NETWORKDAYS.INTL": ((0, 1, 3), False), "DATEVALUE": ((), True),
}
#: formualizer's date functions that do not follow its `date_system` given text: `DATES`' bridged ones.
NATIVE = ("YEAR", "MONTH", "DAY", "DAYS", "WORKDAY", "WORKDAY.INTL", "NETWORKDAYS", "NETWORKDAYS.INTL", "DATEVALUE")

#: Functions that read dates out of text (a criterion: ">1/1/2020"), not computed on such text
#: in a 1904 book: name -> (the first argument read so, the step to the next: a range between).
FROM_TEXT: dict[str, tuple[int, int]] = {
    "COUNTIF": (1, 2), "COUNTIFS": (1, 2), "RATESXL.COUNTIF": (1, 2),
    "RATESXL.COUNTIFS": (1, 2), "SUMIF": (1, 9), "AVERAGEIF": (1, 9), "SUMIFS": (2, 2), "AVERAGEIFS": (2, 2),
    "MAXIFS": (2, 2), "MINIFS": (2, 2),
    **{name: (2, 9) for name in ("DAVERAGE", "DCOUNT", "DCOUNTA", "DGET", "DMAX", "DMIN", "DPRODUCT", "DSTDEV",
                                 "DSTDEVP", "DSUM", "DVAR", "DVARP")},
}
#: Text Excel may read as a date: digits around / or -, or a month's name.
_DATE_LIKE = re.compile(r"\d\s*[/-]\s*\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec", re.IGNORECASE)

Callback = Callable[..., Answer]


def _serial(value: object) -> object:
    """A date or time the engine hands over as one (TODAY's, a date-formatted result), as the
    book's serial; anything else as it is."""
    if isinstance(value, date | time | timedelta):
        return to_serial(value, EPOCH_1904)
    if isinstance(value, list):
        return [_serial(v) for v in value]
    return value


def serials(call: Callback) -> Callback:
    """`call` for a 1904 book, handed the engine's dates as 1904 serials (its coercion makes
    1900 ones)."""

    def in_1904(*args: EngineValue) -> Answer:
        if any(isinstance(a, date | time | timedelta | list) for a in args):
            return call(*(_serial(a) for a in args))
        return call(*args)

    in_1904.__name__ = getattr(call, "__name__", "call")
    return in_1904


def value(call: Callback) -> Callback:
    """VALUE for a 1904 book: a date read out of text moved onto the book's system."""

    def in_1904(*args: EngineValue) -> Answer:
        answer = call(*args)
        if args and isinstance(args[0], str) and _DATE_LIKE.search(args[0]) and \
                isinstance(answer, int | float) and not isinstance(answer, bool) and answer >= 1:
            return error("#NUM!") if answer < SHIFT else answer - SHIFT
        return answer

    in_1904.__name__ = "VALUE"
    return in_1904


def text_serial(text: str, serial: float) -> float:
    """The serial of a date TEXT read out of `text` on the 1900 system, on the 1904 one."""
    return serial - SHIFT if _DATE_LIKE.search(text) and serial >= SHIFT else serial


def today() -> Callback:
    """TODAY for a 1904 book (formualizer's gives the 1900 serial)."""

    def TODAY() -> Answer:  # noqa: N802 - Excel's name
        return to_serial(date.today(), EPOCH_1904)
    return TODAY


def now() -> Callback:
    """NOW for a 1904 book (formualizer's gives the 1900 serial)."""

    def NOW() -> Answer:  # noqa: N802 - Excel's name
        return to_serial(datetime.now(), EPOCH_1904)
    return NOW


def shifted(name: str, call: Callback) -> Callback:
    """`call` (computing on 1900 serials) for a 1904 book, by `DATES`."""
    positions, answers_date = DATES[name]

    def in_1904(*args: EngineValue) -> Answer:
        moved = [_moved(a, SHIFT) if k in positions else a for k, a in enumerate(args)]
        answer = call(*moved)
        if not answers_date:
            return answer
        if isinstance(answer, int | float) and not isinstance(answer, bool) and answer < SHIFT:
            return error("#NUM!")  # a date before 1904: Excel's DATE(1903,12,31) there
        return cast("Answer", _moved(answer, -SHIFT))

    in_1904.__name__ = getattr(call, "__name__", name)
    return in_1904


def _reads_dates(args: Iterable[object]) -> bool:
    for a in args:
        if isinstance(a, str) and _DATE_LIKE.search(a):
            return True
        if isinstance(a, list) and _reads_dates(a):
            return True
    return False


def from_text(name: str, call: Callback) -> Callback:
    """`call` for a 1904 book: not computed where an argument it reads dates from is text that
    reads like one (`FROM_TEXT`)."""
    first, step = FROM_TEXT[name]

    def in_1904(*args: EngineValue) -> Answer:
        if _reads_dates(args[first::step]):
            return error(NOT_COMPUTED)
        return call(*args)

    in_1904.__name__ = name
    return in_1904
