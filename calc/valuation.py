"""One valuation moment per book: the defined name `RATES_VALUATION_TIME`.

A workbook pins the moment its RATES_* calls value at with a workbook-level defined name,
either pointing at a cell (`=Inputs!$B$2`, holding a date-time, an Excel serial or text
such as 2026-01-02T16:00:00Z) or holding the moment itself (`="2026-01-02T16:00:00Z"`,
what the classic ribbon's Valuation Time button writes). Every RATES_* call that leaves
`valuation_time` empty then values at that moment: `rates-xl calc` reads the name here,
the add-in reads the same name (addin/classic/valuation.py). An empty name or cell means
"now" (the key's default); `--valuation-time` overrides the name for one run.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING

from rates_xl.calc.book import Book, CalcError
from rates_xl.functions.values import EPOCH_1900

if TYPE_CHECKING:
    from openpyxl import Workbook

NAME = "RATES_VALUATION_TIME"
_EXCEL_EPOCH = EPOCH_1900.replace(tzinfo=UTC)


def parse_moment(value: object, where: str = NAME) -> datetime | None:
    """A moment (aware, UTC) from what a cell or a name holds; None when empty; a
    `ValueError` naming `where` for anything else."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if isinstance(value, bool):
        raise ValueError(f"{where}: expected a date-time, got {value}")
    if isinstance(value, int | float):  # an Excel serial date-time (days since 1899-12-30)
        if not 1 <= value < 2958466:
            raise ValueError(f"{where}: {value} is not an Excel date-time")
        return _EXCEL_EPOCH + timedelta(days=float(value))
    text = str(value).strip().strip('"')
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{where}: expected a date-time such as 2026-01-02T16:00:00Z, got {text!r}") from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def book_moment(book: Book) -> datetime | None:
    """The moment the book pins with `RATES_VALUATION_TIME`, or None; `CalcError` (one line)
    when the name holds something that is not a moment."""
    where = f"{book.path.name}: the defined name {NAME}"
    try:
        cell = book.names.get(NAME.lower())
        if cell is not None:
            sheet, ref = cell
            return parse_moment(book.book[sheet][ref].value, f"{where} ({sheet}!{ref})")
        defined = _constant(book.book)
        if defined is None:
            return None
        try:
            return parse_moment(float(defined), where)  # a serial: =46024.6666
        except ValueError:
            return parse_moment(defined, where)
    except ValueError as exc:
        raise CalcError(str(exc)) from None


def _constant(workbook: Workbook) -> str | None:
    """The text of a workbook-level name holding a constant (`="2026-01-02T16:00:00Z"`)."""
    for name, defined in workbook.defined_names.items():
        if name.upper() == NAME:
            text = (defined.attr_text or "").strip().lstrip("=")
            return text or None
    return None
