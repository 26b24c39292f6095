"""Text where FLOOR, CEILING and their kin, GCD and LCM want a number, read as Excel reads it.

IronCalc's Excel-made FLOOR_CEILING.xlsx, GCD_LCM.xlsx and LCM_GCD.xlsx give these functions a
cell holding text (a formula's answer: `="8"`): a number, spaces around it allowed (" 10 " is 10,
"7.0e0" is 7), and a date written alone as year-month-day ("2024-01-10" is 45301: CEILING!AD175,
GCD_LCM.xlsx Sheet1!D31) are read; "--8", "@", "" and the same date with spaces around it
(" 2024-01-10 ") are #VALUE! (CEILING!AD33 ..., GCD_LCM.xlsx D32).

Only those, the date counted here: the bridged `formulas` VALUE reads more than Excel ("1,000"
and "8 8" as dates, "2024-02-30" as 1 March, a time "14:30" on today's date where Excel reads
the time alone), and no Excel-made book here says what these functions make of other dates or
times, so such text stays #VALUE!, as the underlying implementations answered before.
"""

from __future__ import annotations

import datetime
import math
import re

from rates_xl.functions.values import to_serial

# A number as typed: Python's float() also reads "nan", "inf" and "1_000", which Excel does not.
_PLAIN = re.compile(r" *[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)? *")
_ISO_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")


def read(text: str) -> float | None:
    """`text` as the number Excel reads there, or None (#VALUE!)."""
    if _PLAIN.fullmatch(text):
        number = float(text)
        return number if math.isfinite(number) else None
    if (date := _ISO_DATE.fullmatch(text)) is None:
        return None
    year, month, day = (int(part) for part in date.groups())
    if (year, month, day) == (1900, 2, 29):
        return 60.0  # the day Excel's 1900 calendar has and no other (Microsoft's "Excel incorrectly assumes 1900 is a leap year")
    if year < 1900:
        return None
    try:
        return to_serial(datetime.date(year, month, day))
    except ValueError:
        return None  # 2024-02-30: no such day (the bridged VALUE rolled it on to 1 March)
