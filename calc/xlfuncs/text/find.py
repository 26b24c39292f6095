"""FIND and SEARCH as Excel computes them. formualizer reads the first element of an array
given to FIND (`FIND({"a","b"},{"ciao","bau"})` answered 3 in every cell; Excel: 3, 1, #N/A
over its range), and its SEARCH matches `?` against a byte, not a character
(`SEARCH("J?rgen","Jürgen")` was #VALUE!; Excel: 1) and writes a number with 17 digits
(SEARCH(1,1E-05) was #VALUE!, in "1e-05"; Excel: 7, in "0.00001": poi_FormulaEvalTestData
EverythingTests!H1216). Both are ours, applied to each element (`values.elementwise`).

FIND is case-sensitive, without wildcards; SEARCH ignores case and reads `?`, `*` and `~` as
MATCH does, but for a `~` before any other character (`_tildes`). start_num below 1 or past the text's length is #VALUE!, as is a find_text not
found; an empty find_text is found at start_num."""

from __future__ import annotations

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Facts, elementwise, number, text
from rates_xl.calc.xlfuncs.lookup.lookups import _wildcard
from rates_xl.calc.xlfuncs.omitted import OMITTED, reads_omitted


def _start(needle: str, haystack: str, start_num: EngineValue) -> int:
    start = 1 if start_num == OMITTED else int(number(start_num))
    if start < 1 or (start > len(haystack) and not (needle == "" and start == len(haystack) + 1 == 1)):
        raise ExcelError("#VALUE!")
    return start


def _find(find_text: EngineValue, within_text: EngineValue, start_num: EngineValue = OMITTED) -> int:
    needle, haystack = text(find_text), text(within_text)
    start = _start(needle, haystack, start_num)
    found = haystack.find(needle, start - 1)
    if found < 0:
        raise ExcelError("#VALUE!")
    return found + 1


def _search(find_text: EngineValue, within_text: EngineValue, start_num: EngineValue = OMITTED) -> int:
    needle, haystack = text(find_text), text(within_text)
    start = _start(needle, haystack, start_num)
    # MATCH's pattern, searched for: its leftmost match starts where Excel's SEARCH answers.
    found = _wildcard(_tildes(needle)).search(haystack, start - 1)
    if found is None:
        raise ExcelError("#VALUE!")
    return found.start() + 1


def _tildes(needle: str) -> str:
    """SEARCH's `~` before any character but a wildcard or a tilde escapes it into that character
    (`~d` is "d"), and a last `~` escapes nothing (IronCalc's Excel-made TEXT__FIND_SEARCH.xlsx:
    SEARCH("~d","My dear") is 4, SEARCH("~","Hello") 1, SEARCH("~","Hi ~Bang!") 1; read as a
    tilde, they were #VALUE!, #VALUE! and 4). `~*`, `~?` and `~~` stay as MATCH reads them."""
    out, i = [], 0
    while i < len(needle):
        if needle[i] == "~" and (i + 1 == len(needle) or needle[i + 1] not in "*?~"):
            i += 1  # (the escaped character, if any, is taken as it is next)
            continue
        if needle[i] == "~":
            out.append(needle[i:i + 2])
            i += 2
            continue
        out.append(needle[i])
        i += 1
    return "".join(out)


def find(_facts: Facts) -> Callback:
    call = elementwise(_find)
    call.__name__ = "FIND"
    reads_omitted(call)
    return call


def search(_facts: Facts) -> Callback:
    call = elementwise(_search)
    call.__name__ = "SEARCH"
    reads_omitted(call)
    return call
