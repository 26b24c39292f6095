"""UPPER, LOWER, PROPER and TRIM as Excel computes them, each applied to every element of an array.

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

PROPER capitalizes "the first letter in a text string and any other letters in text that
follow any character other than a letter" and lowers the rest (Microsoft's PROPER page):
a digit is no letter, so its example "76BudGet" is "76Budget" and "2nd" is "2Nd". formualizer's
lowered a letter after a digit ("76budget", "2nd"), silently (found by
bench/libreoffice_opinion.py's family `text_functions`).

TRIM removes the space character alone (code 32): "removes all spaces from text except for single
spaces between words" (Microsoft's TRIM page, which adds that it does not remove the
non-breaking space, CHAR(160), of text pasted from the web). formualizer's TRIM collapsed
every kind of white space: a tab became a space, and a CHAR(160) between two words vanished,
silently, so `TRIM(A1)=B1` and a lookup of the trimmed text matched where Excel's do not.
"""

from __future__ import annotations

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import Callback, Facts, elementwise, text

#: Where Python's full mapping gives two characters and Windows' gives one other than the
#: character itself ("İ" lower: "i̇" and "i").
_SIMPLE = {"upper": {}, "lower": {"\u0130": "i"}}


def _cased(value: EngineValue, change: str) -> str:
    """`value`'s text with its case changed a character at a time, each to one character."""
    written = text(value)
    changed = getattr(written, change)()
    if len(changed) == len(written):  # (full mappings only lengthen: none did here)
        return changed
    simple = _SIMPLE[change]
    return "".join(c if len(c := getattr(char, change)()) == 1 else simple.get(char, char) for char in written)


def upper(_facts: Facts) -> Callback:
    @elementwise
    def UPPER(value: EngineValue) -> str:  # noqa: N802
        return _cased(value, "upper")
    return UPPER


def lower(_facts: Facts) -> Callback:
    @elementwise
    def LOWER(value: EngineValue) -> str:  # noqa: N802
        return _cased(value, "lower")
    return LOWER


def proper(_facts: Facts) -> Callback:
    @elementwise
    def PROPER(value: EngineValue) -> str:  # noqa: N802
        out, after_letter = [], False
        for char in text(value):
            cased = char.lower() if after_letter else char.upper()
            out.append(cased if len(cased) == 1 else _SIMPLE["lower" if after_letter else "upper"].get(char, char))
            after_letter = char.isalpha()
        return "".join(out)
    return PROPER


def trim(_facts: Facts) -> Callback:
    @elementwise
    def TRIM(value: EngineValue) -> str:  # noqa: N802
        return " ".join(part for part in text(value).split(" ") if part)
    return TRIM


FUNCTIONS = {"UPPER": upper, "LOWER": lower, "PROPER": proper, "TRIM": trim}
