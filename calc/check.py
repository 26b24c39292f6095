"""Does the engine agree with Excel? A computed value against the one the file cached:
numbers within 1e-9 relative or equal at Excel's 15 significant digits, text and booleans
exactly, errors by their code (text that reads "#N/A" is not the error), a blank and empty
text alike.
"""

from __future__ import annotations

import math
from datetime import date, time, timedelta

from rates_xl.functions.values import CellValue, ErrorLikeText, StoredValue, to_serial

#: The pairs of classes whose values agree whenever they are equal, though not of one class
#: (a float computed where the file cached an int: 8,809 of formulas_test's cells): a caller
#: may take those as agreeing without asking `agrees` (recalc.compare does).
ALIKE = frozenset({(int, float), (float, int)})


def agrees(ours: StoredValue, cached: StoredValue) -> bool:
    if type(ours) is type(cached) and ours == cached:
        return True  # (most cells: the rules below all agree then; asked of every cell checked)
    ours, cached = normal(ours), normal(cached)
    if isinstance(ours, bool) or isinstance(cached, bool):
        return type(ours) is type(cached) and ours == cached
    if isinstance(ours, int | float) and isinstance(cached, int | float):
        if math.isclose(ours, cached, rel_tol=1e-9, abs_tol=1e-300):
            return True
        return f"{float(ours):.14e}" == f"{float(cached):.14e}" or (abs(ours) < 1e-12 and cached == 0)
    return ours == cached and isinstance(ours, ErrorLikeText) == isinstance(cached, ErrorLikeText)


def normal(value: StoredValue) -> CellValue:
    """Excel's own type for a value a reader or an engine handed back: dates, times and
    durations as serials (functions/values.py), blank for empty text."""
    if value is None or value == "":
        return None
    if isinstance(value, date | time | timedelta):
        return to_serial(value)
    return value


def shown(value: StoredValue) -> str:
    """A value as the summary quotes it."""
    value = normal(value)
    if value is None:
        return "blank"
    if isinstance(value, float):
        return f"{value:.15g}"
    if isinstance(value, str) and (not value.startswith("#") or isinstance(value, ErrorLikeText)):
        return repr(str(value[:40]))
    return str(value)
