"""UPPER, LOWER and TRIM as Excel computes them, each applied to every element of an array.

formualizer's UPPER and LOWER answer the first element alone for an array (`LOWER(A1#)` over a
six-word spill was "hi" and nothing spilled), so such a formula was listed as not computed
(IronCalc's Excel-made TEXT__UPPER_LOWER.xlsx, MIT or Apache-2.0, not committed: A2:F3, 50
cells). These read each value as Excel writes it where text is wanted (a number to 15
significant digits, TRUE and FALSE, an error passed on: calc/xlfuncs/coercion.py `text`).

The case is changed a character at a time, one character for one, as Windows maps case:
"straße" is "STRAßE" (Python's and formualizer's full Unicode mapping made it "STRASSE", a
character longer, so `LEN(UPPER(A1))` and a lookup of the upper-cased name moved), "İ" lower
is "i". Every character with a one-character counterpart maps as before
(tests/calc/test_case_lifted.py).

TRIM removes the space character alone (code 32): "removes all spaces from text except for single
spaces between words" (Microsoft's TRIM page, which adds that it does not remove the
non-breaking space, CHAR(160), of text pasted from the web). formualizer's TRIM collapsed
every kind of white space: a tab became a space, and a CHAR(160) between two words vanished,
silently, so `TRIM(A1)=B1` and a lookup of the trimmed text matched where Excel's do not.
"""

from __future__ import annotations

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import Callback, Facts, elementwise, text

#: The one-character lower case Windows gives where Python's full mapping gives two ("İ": "i̇").
_SIMPLE_LOWER = {"\u0130": "i"}


def _one_for_one(value: str, change: str) -> str:
    """`value` with each character's case changed where it becomes one character."""
    out = []
    for char in value:
        changed = getattr(char, change)()
        out.append(changed if len(changed) == 1 else _SIMPLE_LOWER.get(char, char) if change == "lower" else char)
    return "".join(out)


def upper(_facts: Facts) -> Callback:
    @elementwise
    def UPPER(value: EngineValue) -> str:  # noqa: N802
        written = text(value)
        changed = written.upper()
        return changed if len(changed) == len(written) else _one_for_one(written, "upper")
    return UPPER


def lower(_facts: Facts) -> Callback:
    @elementwise
    def LOWER(value: EngineValue) -> str:  # noqa: N802
        written = text(value)
        changed = written.lower()
        return changed if len(changed) == len(written) else _one_for_one(written, "lower")
    return LOWER


def trim(_facts: Facts) -> Callback:
    @elementwise
    def TRIM(value: EngineValue) -> str:  # noqa: N802
        return " ".join(part for part in text(value).split(" ") if part)
    return TRIM


FUNCTIONS = {"UPPER": upper, "LOWER": lower, "TRIM": trim}
