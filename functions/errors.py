"""A failing RATES_ cell as a real Excel error value, its message one step away (issue 28).

A `#RATES!` message is text, and Excel's SUM, AVERAGE and SUMPRODUCT skip text: a portfolio
total over a trade whose input was wrong would silently leave it out. So every host shows a
failing cell as an error value, which SUM, arithmetic and every formula reading the cell
propagate and which IFERROR, ISERROR and ISNA test:

- `#VALUE!` when the formula must change: our validation refused an argument, or the
  service refused the parameters (400, 422);
- `#N/A` for everything the user cannot fix in the formula: no answer yet, no data (404),
  the key (403), the rate limit (429), the service or network down, an answer not understood.

The same rule in both hosts (`kind`): Office.js settles the cell with `CustomFunctions.Error`
(`invalidValue` / `notAvailable`, the message on hover); the classic add-in's VBA wrapper
returns `CVErr(xlErrValue)` / `CVErr(xlErrNA)` for the marker `marker()` writes. The message
stays reachable: `RATES_ERROR(cell)` (the message of the cell's last calculation, kept here per
cell by the classic host), the ribbon's **Explain** button, RATES_STATUS's "Last cell error",
the Office.js hover, and `rates-xl calc`'s summary. The setting `cell_errors = text`
(`RATES_CELL_ERRORS=text`) keeps the `#RATES!` text in the cell, as Bloomberg's add-in shows
its messages, for users who ask for it.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, time, timedelta
from typing import TYPE_CHECKING, TypeAlias

from rates_xl.functions.messages import NOT_AVAILABLE, PREFIX, ArgumentError, is_message
from rates_xl.functions.values import FunctionValue, StoredValue

if TYPE_CHECKING:
    from rates_xl.functions.context import CallContext
    from rates_xl.functions.core import FunctionSpec

__all__ = ["NA", "VALUE", "MARKER", "Messages", "messages", "kind", "as_values", "marker",
           "marker_kind", "block", "is_message", "without_prefix", "CELL_TEXT", "ErrorValue", "shown",
           "first_message", "EXPLAINERS"]

VALUE = "value"  # #VALUE!: the formula must change
NA = "na"  # #N/A: no answer (yet), or one the user cannot fix in the formula
#: What a classic UDF answers the VBA wrapper for a failing cell: the marker, then "V" or "N".
#: Never shown: the wrapper turns it into the error value (rtd_vba.py; rtd.excel_answer).
MARKER = "#RATES-ERR "
_CODE = {VALUE: "V", NA: "N"}
_STATUS = re.compile(r"^#RATES! (\d{3}) ")
_INPUT_REFUSED = {"400", "422"}  # the service refused the parameters: the formula must change
#: Cells whose last message is kept (the newest win); a workbook rarely has more failing cells.
MAX_CELLS = 20_000


def kind(spec: object, args: tuple, message: str) -> str:
    """VALUE when the formula must change, NA otherwise (both hosts use this rule)."""
    from rates_xl.functions.core import FunctionSpec, prepare

    status = _STATUS.match(message)
    if status:
        return VALUE if status[1] in _INPUT_REFUSED else NA
    if not isinstance(spec, FunctionSpec):  # not one of the table's (calc's RATES_SOURCE_OF)
        return NA
    try:
        prepare(spec, args)  # memoised: the core validated these very values a moment ago
    except ArgumentError:
        return VALUE
    return NA


def as_values(context: CallContext | None = None) -> bool:
    """Whether failing cells show error values (the default) or the message as text: the
    call context's setting (functions/context.py), else the shared client's."""
    from rates_xl.functions.context import NOW

    return (context or NOW).error_values()


def marker(error_kind: str) -> str:
    return MARKER + _CODE[error_kind]


def marker_kind(value: object) -> str | None:
    """The kind a UDF's answer (or the first cell of a block of them) stands for, else None."""
    first = value
    while isinstance(first, list | tuple) and first:
        first = first[0]
    if isinstance(first, str) and first.startswith(MARKER):
        return {code: k for k, code in _CODE.items()}.get(first[len(MARKER):len(MARKER) + 1])
    return None


#: A cell of a spill that failed on its own (a history grid's column for a tenor the service
#: lacks): Excel's own error text, which each host writes as that error value in the cell
#: (the classic VBA wrapper's NaCells, Office.js, both calc engines). `#N/A` is also a
#: history's Fill=NA (messages.NOT_AVAILABLE).
CELL_TEXT = {VALUE: "#VALUE!", NA: NOT_AVAILABLE}
#: Functions that explain another cell: their refusals stay text in every host (they are read,
#: not summed).
EXPLAINERS = frozenset({"RATES_SOURCE", "RATES_SOURCE_OF", "RATES_ERROR"})


@dataclass(frozen=True)
class ErrorValue:
    """A cell that shows one of Excel's error values, `text` ("#VALUE!" or "#N/A"), and the
    `#RATES!` message behind it (None: no value by design, a history's Fill=NA)."""

    text: str
    message: str | None = None

    @property
    def kind(self) -> str:
        return VALUE if self.text == CELL_TEXT[VALUE] else NA


#: A spill's cell with no value by design (a history's Fill=NA): #N/A in every host.
NO_VALUE = ErrorValue(NOT_AVAILABLE)

#: A cell as `shown` makes it: a value, or an error value with its message.
ShownCell: TypeAlias = StoredValue | ErrorValue
#: What `shown` makes of a function's value: one cell, or a spill's rows.
Shown: TypeAlias = ShownCell | list[list[ShownCell] | ShownCell]


def shown(spec: FunctionSpec | str, args: tuple[object, ...], value: FunctionValue,
          context: CallContext | None = None) -> Shown:
    """The core's answer as every host shows it: the one value converter (the classic UDFs,
    the Office.js batch, calc's two engines), so no host decides a cell on its own.

    A failure (`#RATES!`) is an `ErrorValue` of its kind (`kind`: #VALUE! when the formula
    must change, else #N/A), alone or inside a spill (a history grid's failed column); no
    value by design (Fill=NA) is #N/A; with the text setting (`error_values` False) a failure
    stays its line, and an explainer's refusal (RATES_SOURCE, RATES_ERROR) stays text in every
    host. Numbers, text, dates and None pass: each host writes those its own way (a date as
    its serial for Office.js and the engines, as a date for xlwings). A number is finite
    already (`functions.core.finite`, the one decision on NaN and infinity).

    `context` is the call's (functions/context.py): its text setting, and its pinned moment,
    which the kind is judged with (a bad pinned moment is the formula's to fix: #VALUE!)."""
    if value is None or isinstance(value, float | int | date | time | timedelta):
        return value  # a number, a date, a bool, None: what a warm cell is, decided at once
    from rates_xl.functions.context import NOW

    context = context or NOW
    name = (spec if isinstance(spec, str) else spec.name).upper().replace(".", "_", 1)
    fails = context.error_values() and name not in EXPLAINERS
    if fails and not isinstance(spec, str):
        args = context.pin(spec, tuple(args))

    def cell(item: StoredValue) -> ShownCell:
        if isinstance(item, str):
            if item == NOT_AVAILABLE:
                return NO_VALUE
            if fails and is_message(item):
                return ErrorValue(CELL_TEXT[kind(spec, args, item)], item)
        return item

    def cells(row: Sequence[StoredValue] | StoredValue) -> list[ShownCell] | ShownCell:
        return cell(row) if isinstance(row, str) or not isinstance(row, Sequence) else [cell(c) for c in row]

    return cell(value) if isinstance(value, str) else [cells(row) for row in value]


def first_message(value: object) -> str | None:
    """The message of the first failed cell of what `shown` made (None: none failed)."""
    cells = [c for row in value for c in (row if isinstance(row, list) else [row])] \
        if isinstance(value, list) else [value]
    return next((c.message for c in cells if isinstance(c, ErrorValue) and c.message), None)


def block(text: str, rows: int, cols: int) -> str | list[list[str]]:
    """`text` for a caller of rows x cols cells (a legacy array formula is filled whole)."""
    return text if rows <= 1 and cols <= 1 else [[text] * cols for _ in range(rows)]


# -- the messages, one step away ---------------------------------------------------------------
class Messages:
    """The message of each cell's last calculation (book, sheet, cell -> text), bounded, and
    the last one of all: what RATES_ERROR, the Explain button and RATES_STATUS read."""

    def __init__(self, max_cells: int = MAX_CELLS) -> None:
        self.max_cells = max_cells
        self._cells: OrderedDict[tuple[str, str, str], str] = OrderedDict()
        self.last: str | None = None
        self._lock = threading.Lock()

    @staticmethod
    def _key(book: str, sheet: str, address: str) -> tuple[str, str, str]:
        return (book.strip().casefold(), sheet.strip().casefold(),
                address.split(":")[0].replace("$", "").upper())

    def note(self, book: str, sheet: str, address: str, result: str | None) -> None:
        """A cell's latest answer (a message, or None for a value): its message is kept, an
        answer clears the one before."""
        failed = result if result is not None and is_message(result) else None
        if failed is None and not self._cells:
            return  # an answer, and no cell's message kept to clear: the warm cell's case
        key = self._key(book, sheet, address)
        with self._lock:
            if failed is not None:
                self._cells.pop(key, None)
                self._cells[key] = failed
                self.last = failed
                while len(self._cells) > self.max_cells:
                    self._cells.popitem(last=False)
            else:
                self._cells.pop(key, None)

    def noted(self, message: str) -> None:
        """A message answered without a calling cell (VBA, the Function Wizard, calc)."""
        with self._lock:
            self.last = message

    def of(self, book: str, sheet: str, address: str) -> str | None:
        with self._lock:
            return self._cells.get(self._key(book, sheet, address))

    def clear(self) -> None:
        with self._lock:
            self._cells.clear()
            self.last = None


#: The process's messages (the UDF server's one).
messages = Messages()


def without_prefix(message: str) -> str:
    return message[len(PREFIX):].strip() if message.startswith(PREFIX) else message


# -- rates-xl calc: an engine's RATES_ cell fails as an error too ---------------------------------
class CallMessages:
    """The message each RATES_* call answered in a headless calculation, by its function and
    arguments (an engine passes a function its values, not its cell): the summary finds a
    failing cell's message from its formula's call (calc/workbook.py)."""

    def __init__(self, max_calls: int = MAX_CELLS) -> None:
        self.max_calls = max_calls
        self._calls: OrderedDict[tuple[str, str], str] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def _key(name: str, args: Sequence[object]) -> tuple[str, str]:
        trimmed = list(args)
        while trimmed and trimmed[-1] in (None, ""):
            trimmed.pop()  # an omitted argument and an empty one are the same call
        return (name.upper(), repr(trimmed))

    def note(self, name: str, args: Sequence[object], message: str) -> None:
        with self._lock:
            self._calls[self._key(name, args)] = message
            while len(self._calls) > self.max_calls:
                self._calls.popitem(last=False)

    def forget(self, name: str, args: Sequence[object]) -> None:
        """The call answered: a message an earlier round noted (PENDING) no longer applies."""
        if self._calls:
            with self._lock:
                self._calls.pop(self._key(name, args), None)

    def of(self, name: str, args: Sequence[object]) -> str | None:
        with self._lock:
            return self._calls.get(self._key(name, args))

    def __len__(self) -> int:
        """How many calls answered a message (none: no cell of the calculation shows one)."""
        return len(self._calls)


calls = CallMessages()

def engine_value(name: str, args: Sequence[object], result: FunctionValue,
                 context: CallContext | None = None) -> FunctionValue:
    """A headless engine's value for a RATES_* call's result (`shown`), with each failure's
    Excel error text ("#VALUE!", "#N/A") for the engine to turn into its own error value; the
    message noted for the summary. The text setting keeps the message."""
    from rates_xl.functions.table import FUNCTIONS

    key = name.upper().replace(".", "_", 1)
    spec = FUNCTIONS.get(key, key)
    value = shown(spec, tuple(args), result, context)
    if is_message(result) and key not in EXPLAINERS:
        calls.note(name, args, result)
    elif (message := first_message(value)) is not None:
        calls.note(name, args, message)
    else:
        calls.forget(name, args)  # answered: an earlier round's PENDING no longer applies
    if isinstance(value, list):
        return [[_as_text(c) for c in row] if isinstance(row, list) else _as_text(row) for row in value]
    return _as_text(value)


def _as_text(cell: ShownCell) -> StoredValue:
    """An error value as its Excel text ("#VALUE!", "#N/A"), for an engine; a value as it is."""
    return cell.text if isinstance(cell, ErrorValue) else cell
