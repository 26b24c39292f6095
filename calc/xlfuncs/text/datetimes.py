"""TEXT's date and time sections, as Excel writes them ("d mmm yyyy", "m/d/yy", "h:mm AM/PM",
"[h]:mm:ss.00" ...). The bridged `formulas` TEXT wrote a one-letter day, month, hour, minute or
second without its zeros at either end ("d" of the 30th was "3", of the 10th "1"; "h" of
midnight nothing, so TEXT(41557,"h:m") was ":"), the 24-hour clock beside AM/PM ("18:00 PM"),
fractions of a second truncated, and [h] (elapsed hours) as #VALUE!.

Excel's rules (Microsoft's "Number format codes" page): y and yy are the year's two digits,
yyy and more its four; m, mm, mmm, mmmm and mmmmm the month as 1, 01, Jan, January, J (six m or
more: January, formulas_test.xlsx EXTRA!A37), but m
and mm are minutes right after an hour code or right before a seconds code; d, dd, ddd and
dddd (or more) the day as 1, 01, Wed, Wednesday; h and hh the hour, 1 to 12 where the section
has AM/PM or A/P; [h], [m], [s] the hours, minutes or seconds elapsed (and a plain code of the
same unit beside one, "[h] ... h"; a negative duration with its minus sign); s.0, s.00, s.000 and
[s].000 fractions of a second; m right after s is minutes too (apache/poi's Excel-made
ElapsedFormatTests.xlsx). The time is rounded to the smallest unit shown (whole seconds when no
fraction is), then each unit written whole. Day 0 is 0 January 1900 and day 60 Excel's
29 February 1900. Checked against Excel's answers in IronCalc's Excel-made TEXT workbook
(tests/calc/test_text_dates.py) and the corpus' TEXT cells.

`formatted` answers None for a section it does not read (no date or time code; a digit
placeholder, an era or a fill beside one): the caller's other paths take it.
"""

from __future__ import annotations

import math
import re

from rates_xl.calc.engines.formualizer.values import error
from rates_xl.calc.xlfuncs.dates.daycount import day
from rates_xl.calc.xlfuncs.types import EngineValue

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")
_DAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
_LAST_SERIAL = 2958465  # 31 December 9999
#: One code of a section, longest first: elapsed units, AM/PM markers, runs of one letter, a
#: fraction of a second (read as one only right after seconds: `_tokens`).
_CODE = re.compile(r"\[(h+|m+|s+)\]|(am/pm|a/p)|(y+|m+|d+|h+|s+)|(\.0+)", re.IGNORECASE)
_UNREAD = set("0#?eEbBgG*@%")  # beside a date code: left to the other paths


def _tokens(section: str) -> list[tuple[str, str]] | None:
    """(kind, text) of each part: "lit" text as written, "elapsed" [h] [m] [s], "ampm", "code"
    a run of y m d h s, "frac" a fraction of a second; None where the section is not read here."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(section):
        ch = section[i]
        if ch == '"':
            end = section.find('"', i + 1)
            end = len(section) if end < 0 else end
            out.append(("lit", section[i + 1:end]))
            i = end + 1
            continue
        if ch == "\\" and i + 1 < len(section):
            out.append(("lit", section[i + 1]))
            i += 2
            continue
        if ch == "_" and i + 1 < len(section):
            out.append(("lit", " "))  # a space as wide as the next character
            i += 2
            continue
        match = _CODE.match(section, i)
        if match is not None and not (match.group(4) and not (out and out[-1][0] in ("code", "elapsed")
                                                                and out[-1][1][0] in "sS")):
            elapsed, marker, code, fraction = match.groups()
            if elapsed:
                out.append(("elapsed", elapsed.lower()))
            elif marker:
                out.append(("ampm", marker))
            elif code:
                out.append(("code", code))
            else:
                out.append(("frac", fraction))
            i = match.end()
            continue
        if ch == "[":
            end = section.find("]", i)
            if end < 0:
                return None
            inner = section[i + 1:end]
            if inner.startswith("$"):  # [$-409] a locale: nothing; [$€-x] a currency: its symbol
                out.append(("lit", inner[1:].split("-", 1)[0]))
            # (any other bracket, a colour, was taken out before)
            i = end + 1
            continue
        if ch in _UNREAD:
            return None
        out.append(("lit", ch))
        i += 1
    if not any(kind in ("code", "elapsed") for kind, _ in out):
        return None
    return out


def _minutes(tokens: list[tuple[str, str]]) -> set[int]:
    """Positions of the m and mm codes that are minutes: right after an hour code or right before a
    seconds code (other text between them does not count)."""
    codes = [i for i, (kind, _) in enumerate(tokens) if kind in ("code", "elapsed")]
    found = set()
    for n, i in enumerate(codes):
        text = tokens[i][1].lower()
        if tokens[i][0] != "code" or text[0] != "m" or len(text) > 2:
            continue
        before = tokens[codes[n - 1]][1].lower() if n else ""
        after = tokens[codes[n + 1]][1].lower() if n + 1 < len(codes) else ""
        if before[:1] in ("h", "s") or after[:1] == "s":  # ("s:m" too: apache/poi's ElapsedFormatTests.xlsx)
            found.add(i)
    return found


def formatted(serial: float, section: str, epoch: int = 0) -> EngineValue | None:
    """`serial` written in the date and time `section` (a colour already taken out), or None
    where the section is not a date or time one this reads. `epoch`: the 1900 system's serial
    of the book's day 0 (1462 in a 1904 book: dates/system1904.py); elapsed time counts from 0."""
    tokens = _tokens(section)
    if tokens is None:
        return None
    elapsed = {text[0] for kind, text in tokens if kind == "elapsed"}
    codes = [kind for kind, _ in tokens if kind in ("code", "elapsed", "frac", "ampm")]
    if serial < 0 and math.isfinite(serial) and (elapsed and epoch or codes == ["elapsed"]):
        # A negative duration, its minus sign before it: in a 1904 book (the system Excel shows
        # negative times in: apache/poi's ElapsedFormatTests.xlsx), or one elapsed code alone
        # (pycel's Excel-made text.xlsx: TEXT(-1,"[h]") is "-24", TEXT(-1,"[h]:m") #VALUE!).
        shown = formatted(-serial, section, epoch)
        return f"-{shown}" if isinstance(shown, str) else shown
    dates = any(kind == "code" for kind, _ in tokens)  # (elapsed time alone has no last day)
    if serial < 0 or not math.isfinite(serial) or dates and serial >= _LAST_SERIAL + 1:
        return error("#VALUE!")
    digits = max((len(text) - 1 for kind, text in tokens if kind == "frac"), default=0)
    digits = min(digits, 3)
    scale = 10 ** digits
    units = round(serial * 86400 * scale)  # the time rounded to the smallest unit shown
    whole_days, rest = divmod(units, 86400 * scale)
    if whole_days > _LAST_SERIAL and dates:
        return error("#VALUE!")
    seconds_total = units / scale  # (for the elapsed codes)
    second, fraction = divmod(rest, scale)
    hour, second = divmod(second, 3600)
    minute, second = divmod(second, 60)
    calendar_day = whole_days + epoch
    year, month, dom = (1900, 1, 0) if calendar_day == 0 or not dates else day(calendar_day)
    twelve = any(kind == "ampm" for kind, _ in tokens)
    minutes = _minutes(tokens)
    out = []
    for i, (kind, text) in enumerate(tokens):
        lower = text.lower()
        if kind == "lit":
            out.append(text)
        elif kind == "elapsed" or kind == "code" and lower[0] in elapsed and (lower[0] != "m" or i in minutes):
            # (a unit's plain code in a section showing it elapsed shows the elapsed total too:
            # "[h] ... h" is 75 and 75 of 3.14159 days: apache/poi's ElapsedFormatTests.xlsx)
            total = {"h": seconds_total // 3600, "m": seconds_total // 60, "s": seconds_total}[lower[0]]
            out.append(str(int(total)).zfill(min(len(lower), 2) if kind == "code" else len(lower)))
        elif kind == "ampm":
            afternoon = hour >= 12
            if lower == "am/pm":
                out.append("PM" if afternoon else "AM")
            else:  # A/P as written: a/p gives a or p
                out.append(text[2] if afternoon else text[0])
        elif kind == "frac":
            out.append("." + str(fraction).zfill(digits)[:len(text) - 1])
        elif lower[0] == "y":
            out.append(f"{year % 100:02d}" if len(lower) <= 2 else f"{year:04d}")
        elif lower[0] == "m" and i in minutes:
            out.append(f"{minute:0{len(lower)}d}")
        elif lower[0] == "m":
            name = _MONTHS[month - 1]
            out.append(str(month).zfill(len(lower)) if len(lower) <= 2 else
                       name[:3] if len(lower) == 3 else name[0] if len(lower) == 5 else name)
        elif lower[0] == "d":
            weekday = _DAYS[(calendar_day + 6) % 7]  # serial 1 a Sunday, Excel's 1900 leap day kept
            out.append(str(dom).zfill(len(lower)) if len(lower) <= 2 else weekday[:3] if len(lower) == 3 else weekday)
        elif lower[0] == "h":
            shown = (hour % 12 or 12) if twelve else hour
            out.append(str(shown).zfill(min(len(lower), 2)))
        else:  # seconds
            out.append(str(second).zfill(min(len(lower), 2)))
    return "".join(out)
