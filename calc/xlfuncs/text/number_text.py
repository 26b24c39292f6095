"""Text where a function wants a number, read as Excel reads it, for the rewriting of
calc/formula/number_arguments.py: which text the engine's own reading gets right (`reading`),
and RATESXL.NUMBER, the reading of a text a formula answers at the calculation.

What is read: a number (spaces around it, a percentage), a date written year-month-day from
1900 on, a time (hours 0-23, or 1-12 with AM/PM), or that date and time; text with no number
in it is #VALUE!, as in Excel; a number in parentheses and a whole number with a fraction
("(5)" -5, "1 1/2" 1.5) as calc/xlfuncs/text/value_text.py reads them, which the engine's own
arithmetic does not. What is not settled here is UNSURE (RATESXL.NUMBER: #NAME?,
which the check against Excel's cached values lists): "1,000" and "$5", numbers in an
English Excel; "25:00"; a day before 1900 or Excel's 29 February 1900; "1/2/2024" and "10 Jan",
read as the locale of the Excel that computed the book has it; spaces around a date
(IronCalc's Excel-made MROUND_TRUNC_INT.xlsx: `INT(" 2024-01-10 ")` is #VALUE! in INT!B28,
where `--" 2024-01-10 "` is 45301 in formualizer).
"""

from __future__ import annotations

import datetime
import math
import re
from functools import lru_cache

from rates_xl.calc.engines.formualizer.values import EngineValue, error
from rates_xl.calc.xlfuncs.coercion import Callback, Facts
from rates_xl.calc.xlfuncs.omitted import reads_omitted
from rates_xl.calc.xlfuncs.text import value_text
from rates_xl.calc.xlfuncs.types import Answer
from rates_xl.functions.values import to_serial

NAME = "RATESXL.NUMBER"
#: `reading`'s answers: read alike by the engine's arithmetic and by Excel (a time alone among
#: them: TIME; no number in it: NO_NUMBER, #VALUE! in both), or not known to be (UNSURE).
PLAIN, TIME, NO_NUMBER, UNSURE = "plain", "time", "no number", "unsure"
#: Of a cell (calc/formula/site.py `BookFacts.text_reading`): a constant that is no text, or a
#: formula that answers none.
NO_TEXT = "no text"
NOT_COMPUTED = "#NAME?"

_PLAIN = re.compile(r" *([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?) *(% *)?")
_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?: (.*))?")
_TIME = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?(?: ?([AaPp][Mm]))?")
_DIGIT = re.compile(r"\d")
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
          r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_NUMBER = r"(?:\d+(?:,\d{3})*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
#: Forms some locale's Excel reads as a number, a date or a time, not settled here: thousands
#: separators, a currency sign before or after ("€100" and "100€" are 100 in IronCalc's
#: EXP_SIGN.xlsx), a negative in parentheses, a fraction, dates with slashes or with the
#: month's name, other times. Other text ("E8", "--8", "Item 7") is #VALUE! in both
#: (IronCalc's FLOOR_CEILING.xlsx: CEILING("--8",1) is #VALUE!, CEILING!B23).
_UNSURE = re.compile(
    rf" *(?:[+-]? *[$€£¥]? *{_NUMBER} *[$€£¥]? *%?|\( *[$€£¥]? *{_NUMBER} *\)|[+-]?\d+ +\d+/\d+"
    rf"|(?:\d{{1,4}}[/.-]\d{{1,2}}(?:[/.-]\d{{1,4}})?|\d{{1,2}}[ -]?{_MONTH}\.?(?:[ ,-]+\d{{1,4}})?"
    rf"|{_MONTH}\.?[ -]?\d{{1,2}}(?:(?:st|nd|rd|th)?[ ,-]+\d{{1,4}})?|{_MONTH}[ -]\d{{4}})"
    rf"(?: +\d+:\d+(?::\d+(?:\.\d+)?)? *(?:[AaPp][Mm])?)?"
    rf"|\d+:\d+(?::\d+(?:\.\d+)?|\.\d*)? *(?:[AaPp][Mm])?) *",
    re.IGNORECASE)


def reading(text: str) -> str:
    """PLAIN (TIME for a time alone) where the text is read as the module says, NO_NUMBER
    where it has no number in it, UNSURE for any other text."""
    return _read(text)[0]


def plain_number(text: str) -> bool:
    """Whether `text` is a number as written, a percentage perhaps ("12", " -0.5E-2 ", "10%")."""
    return _PLAIN.fullmatch(text) is not None


def number(text: str) -> float | str:
    """The number Excel reads in `text`, "#VALUE!" where it reads none, NOT_COMPUTED where it
    is not settled here."""
    return _read(text)[1]


@lru_cache(maxsize=8192)
def _read(text: str) -> tuple[str, float | str]:
    if (plain := _PLAIN.fullmatch(text)) is not None:
        value = float(plain.group(1)) / (100 if plain.group(2) else 1)
        return PLAIN, value if math.isfinite(value) else "#VALUE!"
    if _DIGIT.search(text) is None or not _UNSURE.fullmatch(text):
        return NO_NUMBER, "#VALUE!"
    if (signed := value_text.signed_form(text)) is not None:  # "(5)", "1 1/2": Excel's, not the engine's
        return UNSURE, signed
    if text != text.strip() and _DATE.fullmatch(text.strip()):
        # Excel: #VALUE! (INT!B28, CEILING!B33, MROUND!C32 of IronCalc's books); the engine's
        # arithmetic reads the date: a cell's constant is listed, a formula's answer #VALUE!
        return UNSURE, "#VALUE!"
    serial, alone = 0.0, True
    if (date := _DATE.fullmatch(text)) is not None:
        year, month, day, clock = date.groups()
        if int(year) < 1900 or (int(year), int(month), int(day)) == (1900, 2, 29):
            return UNSURE, NOT_COMPUTED
        try:
            serial = to_serial(datetime.date(int(year), int(month), int(day)))
        except ValueError:
            return PLAIN, "#VALUE!"  # 2024-02-30: no such day, in either
        if clock is None:
            return PLAIN, serial
        text, alone = clock, False
    if (time := _TIME.fullmatch(text)) is None:
        return UNSURE, _carried(text) if alone else NOT_COMPUTED  # slashes, a month's name ...: `_UNSURE`'s other forms
    hour, minute, second, half = time.groups()
    hours = range(1, 13) if half else range(24)
    if int(hour) not in hours or int(minute) > 59 or float(second or 0) >= 60:
        return UNSURE, _carried(text) if alone else NOT_COMPUTED
    hour_of_day = int(hour) % 12 + (12 if half and half.lower() == "pm" else 0) if half else int(hour)
    fraction = (hour_of_day * 3600 + int(minute) * 60 + float(second or 0)) / 86400
    return (TIME if alone else PLAIN), serial + fraction


def _carried(text: str) -> float | str:
    """A time alone of a form the engine does not read as Excel does ("0:75", minutes carried:
    1:15; "12:30.5", minutes and seconds): VALUE's reading (value_text.py, from pycel's
    Excel-made text.xlsx), its #VALUE!, or NOT_COMPUTED where it is not settled ("25:00")."""
    if not value_text.time_alone(text):
        return NOT_COMPUTED
    read = value_text.read(text)
    return NOT_COMPUTED if read is None else read


def number_of(_facts: Facts) -> Callback:
    """RATESXL.NUMBER(value): a text as the number Excel reads in it (`number`); text with no
    number in it, and any other value (a number, a logical, nothing, an error), as it is."""

    def call(value: EngineValue = None) -> Answer:
        if not isinstance(value, str):
            return value
        kind, read = _read(value)
        if kind == NO_NUMBER:
            return value  # the function reads it as before ("TRUE" is a logical to some)
        return error(read) if isinstance(read, str) else read

    call.__name__ = "NUMBER"
    reads_omitted(call)  # always given one argument (the pass writes it): no unwrapping
    return call
