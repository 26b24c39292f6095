"""Does the engine agree with Excel? A computed value against the one the file cached:
numbers within 1e-9 relative or equal at Excel's 15 significant digits, text and booleans
exactly, errors by their code, a blank and empty text alike.
"""

from __future__ import annotations

import math
from datetime import date, datetime, time, timedelta
from typing import Any


def agrees(ours: Any, cached: Any) -> bool:
    ours, cached = normal(ours), normal(cached)
    if isinstance(ours, bool) or isinstance(cached, bool):
        return type(ours) is type(cached) and ours == cached
    if isinstance(ours, int | float) and isinstance(cached, int | float):
        if math.isclose(ours, cached, rel_tol=1e-9, abs_tol=1e-300):
            return True
        return f"{float(ours):.14e}" == f"{float(cached):.14e}" or (abs(ours) < 1e-12 and cached == 0)
    return ours == cached


def normal(value: Any) -> Any:
    """Excel's own type for a value a reader or an engine handed back: dates and times as
    serials, blank for empty text."""
    from openpyxl.utils.datetime import to_excel

    if value is None or value == "":
        return None
    if isinstance(value, datetime | date):
        return to_excel(value)  # Excel's serial, 1900 leap-year quirk included (59 = 1900-02-28)
    if isinstance(value, time):
        return (value.hour * 3600 + value.minute * 60 + value.second + value.microsecond / 1e6) / 86400
    if isinstance(value, timedelta):
        return value.total_seconds() / 86400
    return value


def shown(value: Any) -> str:
    """A value as the summary quotes it."""
    value = normal(value)
    if value is None:
        return "blank"
    if isinstance(value, float):
        return f"{value:.15g}"
    if isinstance(value, str) and not value.startswith("#"):
        return repr(value[:40])
    return str(value)
