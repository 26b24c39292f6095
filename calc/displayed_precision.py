"""Excel's "Set precision as displayed" (`<calcPr fullPrecision="0"/>`): the decimal places a
cell's number format shows, to which Excel rounds the number the cell holds.

What Excel does, in Microsoft's words (KB Q47577, "Precision As Displayed Command Rounds
Numbers"): it "rounds any value that has been formatted to contain a fixed number of decimal
places. The values, which are stored internally, then match those showing on the screen, and
all worksheet calculations use the rounded values. Values formatted as General are not
affected"; KB 182197: a General number shown rounded by a narrow column is still computed at its
stored value, "even if the Precision As Displayed option is selected". So a formula's number is
rounded to its cell's decimal places before anything reads it, and a General cell is left.

`decimals` answers a format's decimal places (a percentage two more: 0.0% shows 0.125 as 12.5%),
None where Excel leaves the number (General), or why calc cannot tell what Excel keeps (a date
or time, a fraction, scientific notation, thousands scaled away, conditions, positive and
negative parts showing different decimals, a text format): such a cell is listed, never
computed at a precision Excel would not hold. Constants need nothing: Excel rounded each one
when the option was set and rounds each entered since, so the file holds them rounded.
"""

from __future__ import annotations

#: The reason a cell is listed when its format's displayed precision is not known here.
UNKNOWN = "the book is set to precision as displayed, and calc cannot tell the precision its format ({}) shows"

_DATE_TIME = set("yYmMdDhHsS")  # (outside quotes and brackets: a date or time; "E" is scientific)


def applies(workbook: object) -> bool:
    """Whether an openpyxl workbook is set to precision as displayed (`calcPr fullPrecision`
    off; Excel's default, and openpyxl's absent value, is full precision)."""
    return getattr(getattr(workbook, "calculation", None), "fullPrecision", None) is False


def decimals(code: str | None) -> int | None | str:
    """The decimal places `code` shows a number to (int), None for General, or the reason
    calc cannot tell (str, `UNKNOWN` filled in)."""
    if code is None or code.strip().lower() in ("", "general"):
        return None
    sections = _sections(code)
    # The third part is for zero (an exact 0 is the same rounded), the fourth for text.
    found: set[int | None] = set()
    for section in sections[:2]:
        if "general" in _unquoted(section).lower():  # (`[Red]General`: General, coloured)
            found.add(None)
            continue
        shown = _section(section)
        if shown is None:
            return UNKNOWN.format(code)
        found.add(shown)
    if len(found) != 1:
        return UNKNOWN.format(code)
    return found.pop()


def _unquoted(section: str) -> str:
    return "".join(section.split('"')[::2])


def _sections(code: str) -> list[str]:
    """The format's parts between ";" (not a ";" in quotes or after a backslash)."""
    parts, current, quoted, i = [], [], False, 0
    while i < len(code):
        char = code[i]
        if char == '"':
            quoted = not quoted
        elif char == "\\" and not quoted and i + 1 < len(code):
            current.append(code[i:i + 2])
            i += 2
            continue
        elif char == ";" and not quoted:
            parts.append("".join(current))
            current = []
            i += 1
            continue
        current.append(char)
        i += 1
    parts.append("".join(current))
    return parts


def _section(section: str) -> int | None:
    """One part's decimal places, or None when its precision is not a fixed count of decimals."""
    digits = after_point = percents = 0
    seen_point = comma_last = False
    i = 0
    while i < len(section):
        char = section[i]
        if char == '"':  # a literal text
            end = section.find('"', i + 1)
            i = len(section) if end < 0 else end + 1
            continue
        if char in "\\_*":  # an escaped character, a space as wide as one, a fill
            i += 2
            continue
        if char == "[":  # a colour or a locale ([$-409], [$€-2]) is no part of the number
            end = section.find("]", i)
            inside = section[i + 1:end if end >= 0 else len(section)]
            if not inside or inside[0] in "<>=" or inside.lower() in ("h", "hh", "m", "mm", "s", "ss"):
                return None  # a condition, or elapsed time
            i = len(section) if end < 0 else end + 1
            continue
        if char in "0#?":
            digits += 1
            if seen_point:
                after_point += 1
            comma_last = False
        elif char == ".":
            if seen_point:
                return None
            seen_point = True
            comma_last = False
        elif char == ",":
            comma_last = digits > 0  # (between digits: grouping; after the last: scaling)
        elif char == "%":
            percents += 1
        elif char in _DATE_TIME or char in "eE/@":
            return None  # a date or time, scientific notation, a fraction, text
        i += 1
    if digits == 0 or comma_last:
        return None  # no number shown, or thousands scaled away
    return after_point + 2 * percents
