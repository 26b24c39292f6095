"""TEXTBEFORE and TEXTAFTER as Excel computes them: formualizer mishandles several delimiters
(`{"3","4"}`: the n-th occurrence of any of them), a negative instance with several, and
match_end (the end of the text as one more delimiter) (formulas_test.xlsx).

Occurrences are found from the start: at each position the first delimiter (in the order
given) that starts there counts, and the search goes on after it. instance_num 0, or one
past the text's length, is #VALUE!; a negative one counts from the end. An empty delimiter
matches at the start (at the end for a negative instance). Not found: if_not_found, else #N/A.

Excel 16's answers in IronCalc's Excel-made TEXT__TEXTBEFORE_TEXTAFTER.xlsx (MIT or
Apache-2.0, not committed), where the engine gave another: instance_num is rounded down
(-1.6 is the second from the end: G16, I16); match_end other than 0 or 1 (TRUE) is #VALUE!
(G39, G40: 2 and -12); an instance_num given past the places where a delimiter can start
(the text's length less the shortest delimiter's, plus one) is #VALUE!, not "not found"
(G19, G20, K19: "deli" in "del", instance 1; omitted, #N/A: H19); an empty cell as
if_not_found answers an empty text (G25).
"""

from __future__ import annotations

import math

from rates_xl.calc.engines.formualizer.values import is_error
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Factory, elementwise, number, text
from rates_xl.calc.xlfuncs.omitted import OMITTED, reads_omitted
from rates_xl.calc.xlfuncs.types import Answer, EngineValue
from rates_xl.errors import Internal


def _delimiters(value: EngineValue) -> list[str]:
    rows = value if isinstance(value, list) else [[value]]
    found = []
    for row in rows:
        for item in row:
            if is_error(item):
                raise _ErrorValue(item)  # an error among the delimiters is the answer
            found.append(text(item))
    return found


class _ErrorValue(Internal):
    def __init__(self, value: EngineValue) -> None:
        super().__init__("error")
        self.value = value


def _occurrences(subject: str, delimiters: list[str], fold: bool) -> list[tuple[int, int]]:
    haystack = subject.casefold() if fold else subject
    needles = [d.casefold() if fold else d for d in delimiters]
    found, p = [], 0
    while p <= len(haystack):
        hit = next((d for d in needles if haystack.startswith(d, p)), None)
        if hit is None:
            p += 1
            continue
        found.append((p, p + len(hit)))
        p += max(len(hit), 1)
    return found


def _split(subject: str, delimiters: list[str], n: int, mode: int, end: bool) -> tuple[int, int] | None:
    """(start, end) of the n-th delimiter occurrence in `subject`, or None."""
    if any(d == "" for d in delimiters):
        return (0, 0) if n > 0 else (len(subject), len(subject))
    found = _occurrences(subject, delimiters, mode == 1)
    if end:  # the text's end (start, for a negative instance) is one more delimiter
        found = found + [(len(subject), len(subject))] if n > 0 else [(0, 0)] + found
    index = n - 1 if n > 0 else len(found) + n
    return found[index] if 0 <= index < len(found) else None


def _around(before: bool) -> Callback:
    def one(value: EngineValue, delimiters: list[str], instance: EngineValue = OMITTED, match_mode: EngineValue = OMITTED,
            match_end: EngineValue = OMITTED, if_not_found: EngineValue = OMITTED) -> EngineValue:
        # Omitted: the default; an empty cell: 0 (an instance of 0 is #VALUE!).
        subject = text(value)
        n = 1 if instance == OMITTED else math.floor(number(instance))
        mode = 0 if match_mode == OMITTED else int(number(match_mode))
        end = 0 if match_end == OMITTED else math.floor(number(match_end))
        # (an instance past the places a delimiter can start, when one is given: the shortest's)
        places = len(subject) - min(map(len, delimiters), default=0) + 1 if instance != OMITTED else len(subject) + 1
        if n == 0 or abs(n) > max(places, 0) or mode not in (0, 1) or end not in (0, 1):
            raise ExcelError("#VALUE!")
        found = _split(subject, delimiters, n, mode, end == 1)
        if found is None:
            if if_not_found == OMITTED:
                raise ExcelError("#N/A")
            return "" if if_not_found is None else if_not_found
        return subject[:found[0]] if before else subject[found[1]:]

    def call(value: EngineValue, delimiter: EngineValue, *rest: EngineValue) -> Answer:
        try:
            delimiters = _delimiters(delimiter)
        except _ErrorValue as passed:
            return passed.value
        lifted = elementwise(lambda v, *r: one(v, delimiters, *r))
        return lifted(value, *rest)

    call.__name__ = "TEXTBEFORE" if before else "TEXTAFTER"
    reads_omitted(call)
    return call


FUNCTIONS: dict[str, Factory] = {
    "TEXTBEFORE": lambda _facts: _around(True),
    "TEXTAFTER": lambda _facts: _around(False),
}
