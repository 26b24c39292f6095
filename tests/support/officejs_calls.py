"""What the Office.js script sends for cells: the JSON a batch carries (tests and benches)."""

from __future__ import annotations

from datetime import date, datetime

from rates_xl.addin.officejs.metadata import officejs_name
from rates_xl.functions import FUNCTIONS


def sent(value):
    """A cell value as JSON carries it from the script (Excel passes dates as serials)."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return (value - date(1899, 12, 30)).days
    return value


def calls_for(cells) -> list[dict]:
    """One batch's calls for (function name, args) cells."""
    return [{"fn": officejs_name(FUNCTIONS[name]), "args": [sent(a) for a in args]} for name, args in cells]
