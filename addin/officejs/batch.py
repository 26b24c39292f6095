"""One batched POST from the script -> one outcome per call, computed by the host-free core.

The script sends every call Excel made in one recalculation burst. We check each call's
shape (known function, no more arguments than it declares, scalar arguments of bounded
size), then compute them all with the loop `rates-xl calc` uses
(`functions.plan.plan_and_evaluate`): a first pass records the distinct service requests
without sending any, `fetch_many` sends them concurrently under the shared client's rate
limiter, a second pass computes every cell from the cache. A batch of 1,000 cells therefore
costs its distinct requests once, at the rate-limit bound, never one latency per cell.

Each call is computed by the core under the batch's one call context (functions/context.py:
the book's pinned moment, the recorder, the client), exactly as `spec.core(*args)` would be;
its answer goes through the one value converter every host uses (functions/errors.shown),
and only its form changes for Office.js:
- a number stays a number; a spill stays a 2-D array, dates as Excel serial numbers (what
  a date cell holds) on the book's date system, empty as "", a cell with no value by design
  (`NOT_AVAILABLE`, a history's Fill=NA) as an error object the script makes Excel's #N/A in
  that cell;
- a `#RATES!` message becomes an error: `invalidValue` (#VALUE!) when the input is wrong
  (our validation, or the service's 400/422 refusal of the parameters), `notAvailable`
  (#N/A) for everything the user cannot fix in the formula (404 no data, 403 key, 429,
  5xx, unreachable, a malformed answer). The message is the core's, without the prefix:
  Excel shows it on hover.

A date reaches a custom function as its serial number, which in a book counting dates from
1904 is 1,462 lower than the function table reads (functions/date_system.py). The script
reads the book's system with each batch (`date1904`: true, false, or why it could not be
read); a date argument given as a number, the pinned moment, and the dates an answer holds
are moved onto and back from the 1900 system here. Where the system could not be read, a call
that gives a date as a number, or whose answer holds dates, says so instead of guessing.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from datetime import date
from typing import Any

from rates_xl.addin.officejs.metadata import officejs_name
from rates_xl.functions import date_system, errors
from rates_xl.functions.context import NOW, CallContext
from rates_xl.functions.core import FunctionSpec, evaluate
from rates_xl.functions.messages import PREFIX

log = logging.getLogger("rates_xl.addin.officejs")

#: Calls in one POST (the script sends at most this many at a time).
MAX_BATCH = 2000
#: Characters in one text argument (a cell holds up to 32,767; nothing we take is near 100).
MAX_TEXT = 1000
#: Arguments of one call: the widest function declares 8.
MAX_ARGS = 32
#: Cells in one range argument (`Arg.many`: a history's tenors or options; it takes 30 tenors).
MAX_CELLS = 1000


def functions_by_id() -> dict[str, FunctionSpec]:
    from rates_xl.functions import FUNCTIONS

    return {officejs_name(spec): spec for spec in FUNCTIONS.values()}


@dataclass
class BatchReport:
    calls: int
    distinct_requests: int
    requests_sent: int
    rounds: int
    seconds: float
    #: with `record`: the batch's market-data pack (client/pack.py), as JSON data
    pack: dict[str, Any] | None = None


def invalid(message: str) -> dict[str, str]:
    return {"error": "invalidValue", "message": message}


def unavailable(message: str) -> dict[str, str]:
    return {"error": "notAvailable", "message": message}


def book_dates(value: Any) -> bool | str:
    """The book's date system as the script read it (a batch's `date1904`): True when it
    counts dates from 1904; False from 1900, and when the script says nothing (a runtime
    without the Excel API); else why it could not be read."""
    if value is None or isinstance(value, bool):
        return bool(value)
    return str(value)[:200] or "no reason given"


def _unread(dates: str) -> str:
    return f"the workbook's date system (1900 or 1904) could not be read: {dates}"


def check_call(call: Any, table: dict[str, FunctionSpec],
               dates: bool | str = False) -> tuple[FunctionSpec, tuple] | dict:
    """(spec, args) for a call we can compute, or the error outcome that answers it. In a book
    counting dates from 1904 (`dates`, `book_dates`), a date given as a number is moved onto
    the 1900 system the function table reads."""
    found = _checked(call, table)
    if isinstance(found, dict) or dates is False:
        return found
    spec, args = found
    name = date_system.serial_argument(spec, args)
    if name is None:
        return found
    if dates is True:
        return spec, tuple(date_system.onto_1900(args, date_system.date_arguments(spec)))
    return unavailable(f"{name}: a date given as a number, and {_unread(dates)}; give it as text (2028-09-01)")


def _checked(call: Any, table: dict[str, FunctionSpec]) -> tuple[FunctionSpec, tuple] | dict:
    if not isinstance(call, dict):
        return invalid("a call must be an object with fn and args")
    fn, args = call.get("fn"), call.get("args", [])
    spec = table.get(fn) if isinstance(fn, str) else None
    if spec is None:
        return invalid(f"unknown function {str(fn)[:40]!r}; update the add-in (restart Excel)")
    if not isinstance(args, list) or len(args) > MAX_ARGS:
        return invalid(f"{spec.dotted_name}: too many arguments")
    checked = []
    for position, value in enumerate(args, 1):
        arg = spec.args[position - 1] if position <= len(spec.args) else None
        name = arg.name if arg is not None else f"argument {position}"
        if arg is not None and arg.many and isinstance(value, list):
            # A range taken whole ("matrix" in functions.json): rows of cell values.
            if not all(isinstance(row, list) for row in value) or sum(len(r) for r in value) > MAX_CELLS:
                return invalid(f"{name}: a range of at most {MAX_CELLS} cells, as rows of values")
            problem = next((p for row in value for cell in row if (p := _cell_problem(name, cell))), None)
            if problem is not None:
                return problem
            checked.append([[_number(cell) for cell in row] for row in value])
            continue
        if isinstance(value, (list, dict)):
            return invalid(f"{name}: give one cell, not a range or an array")
        problem = _cell_problem(name, value)
        if problem is not None:
            return problem
        checked.append(_number(value))
    return spec, tuple(checked)


def _cell_problem(name: str, value: Any) -> dict[str, str] | None:
    """The error outcome for a value no cell can hold, or None."""
    if isinstance(value, str) and len(value) > MAX_TEXT:
        return invalid(f"{name}: text longer than {MAX_TEXT} characters")
    if value is not None and not isinstance(value, (str, int, float, bool)):
        return invalid(f"{name}: not a cell value")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and not _finite(value):
        # NaN, Infinity, or a number of hundreds of digits
        return invalid(f"{name}: not a number a cell can hold")
    return None


def _number(value: Any) -> Any:
    # JSON has no int/float distinction that Excel would make: numbers are floats, as xlwings passes them.
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


def book_moment(value: Any, dates: bool | str = False) -> Any:
    """The book's pinned moment as the script reads RATES_VALUATION_TIME (`="2026-01-02T16:00:00Z"`
    or the text itself, or a cell's serial on the book's date system `dates`), for the batch's
    call context; None when the book pins none. The moment goes into each call as its own
    argument would (functions/context.pin): its validation answers a bad one, and a serial
    whose date system could not be read."""
    if isinstance(value, str):
        value = value.strip().removeprefix("=").strip().strip('"')
    if isinstance(value, int | float) and not isinstance(value, bool) and dates is not False:
        return value + date_system.SHIFT if dates is True else f"{value}, a serial, and {_unread(dates)}"
    return None if value is None or value == "" else value


def _is_source(spec: FunctionSpec, call: Any) -> bool:
    from rates_xl.functions.source import REFERENCE_ARGS

    return spec.name in REFERENCE_ARGS and isinstance(call, dict) and isinstance(call.get("source"), dict)


def _source(client: Any, source: dict[str, Any], pinned: Any, name: str = "RATES_SOURCE",
            date1904: bool = False) -> Any:
    """RATES.SOURCE (and RATES.ERROR) from what the script read of the referenced cell: its
    formula and the values of the cells the formula references (functions/source.py:
    explain_formula; error_of_formula, the message the cell's call answers now)."""
    from rates_xl.functions.source import error_of_formula, explain_formula

    where, formula, sheet = (str(source.get(k) or "")[:MAX_TEXT] for k in ("where", "formula", "sheet"))
    if source.get("error"):
        return f"{PREFIX} cell: {where}: {str(source['error'])[:200]}"
    if not formula:
        return f"{PREFIX} cell: {where} holds no formula: RATES_SOURCE explains a RATES_* cell"
    raw = source.get("values") if isinstance(source.get("values"), dict) else {}
    values = {str(k).casefold(): v for k, v in list(raw.items())[:MAX_ARGS * 8]
              if v is None or isinstance(v, (str, int, float, bool))}

    def value_of(at: str, cell: str) -> Any:
        value = values.get(f"{at}!{cell}".casefold())
        return None if value == "" else value  # an empty cell, as Excel passes it

    if name == "RATES_ERROR":
        return error_of_formula(where, formula, sheet, value_of, pinned, date1904)
    return explain_formula(client, where, formula, sheet, value_of, pinned, date1904)


def _finite(number: int | float) -> bool:
    try:
        return math.isfinite(number)  # converts an int to float: too many digits overflow
    except OverflowError:
        return False


def _cell(value: Any, date1904: bool = False) -> Any:
    """One cell of an answer (functions/errors.shown's) as Office.js takes it: an error as
    its error object, a date as its serial number (what a date cell holds) on the book's
    date system, empty as ""."""
    if isinstance(value, errors.ErrorValue):
        return _error(value)
    if isinstance(value, date):
        return date_system.serial(value, date1904)
    if value is None:
        return ""
    return value


def _error(value: errors.ErrorValue) -> dict[str, str]:
    message = errors.without_prefix(value.message) if value.message else "no value for this date (Fill=NA)"
    return {"error": "invalidValue" if value.kind == errors.VALUE else "notAvailable", "message": message}


def outcome(spec: FunctionSpec, args: tuple, value: Any, context: CallContext = NOW,
            dates: bool | str = False) -> dict[str, Any]:
    """The core's answer as the script settles it (functions/errors.shown, the classic host's
    and the engines' converter too): a failure as an error, or its text with the
    `cell_errors = text` setting; its dates as serials on the book's date system `dates`."""
    shown = errors.shown(spec, args, value, context)
    if isinstance(shown, errors.ErrorValue):
        return _error(shown)
    if isinstance(dates, str):  # the book's system unread: an answer holding dates cannot be written
        cells = [v for row in shown for v in row] if isinstance(shown, list) else [shown]
        if any(isinstance(v, date) for v in cells):
            return unavailable(f"the answer holds dates, and {_unread(dates)}")
    if isinstance(shown, list):
        return {"value": [[_cell(v, dates is True) for v in row] for row in shown]}
    return {"value": _cell(shown, dates is True)}


def run_batch(calls: list[Any], client: Any, record: bool = False) -> tuple[list[dict[str, Any]], BatchReport]:
    """Every call's outcome, in order, computed by `client` (the server's, or a scenario's
    replaying one: scenarios.py) under the batch's one call context: the book's pinned moment
    (`calls.pinned`, RATES_VALUATION_TIME), its date system (`calls.date1904`) and, with `record`, a recorder whose answers the
    report carries (the task pane writes them into the book as its market-data pack)."""
    from rates_xl.functions.plan import plan_and_evaluate

    started = time.perf_counter()
    table = functions_by_id()
    dates = book_dates(getattr(calls, "date1904", None))
    checked = [check_call(call, table, dates) for call in calls]
    todo = [(i, c[0], c[1]) for i, c in enumerate(checked) if isinstance(c, tuple)]

    pinned = book_moment(getattr(calls, "pinned", None), dates)
    recorder = client.pack_recorder() if record else None
    base = CallContext(valuation_time=pinned, recorder=recorder, client=client)

    def compute(context: CallContext) -> list[Any]:
        return [_source(client, calls[i].get("source"), pinned, spec.name, dates is True) if _is_source(spec, calls[i])
                else evaluate(spec, args, context) for i, spec, args in todo]

    values, report = plan_and_evaluate(compute, client, context=base) if todo else ([], None)
    outcomes: list[dict[str, Any]] = [c if isinstance(c, dict) else {} for c in checked]
    for (i, spec, args), value in zip(todo, values, strict=True):
        outcomes[i] = outcome(spec, args, value, base, dates)
    summary = BatchReport(
        calls=len(calls),
        distinct_requests=report.distinct_requests if report else 0,
        requests_sent=report.requests_sent if report else 0,
        rounds=report.rounds if report else 0,
        seconds=time.perf_counter() - started,
        pack=recorder.pack().model_dump(mode="json") if recorder is not None else None,
    )
    log.info("batch: %d calls, %d distinct requests, %d sent, %d rounds, %.2f s", summary.calls,
             summary.distinct_requests, summary.requests_sent, summary.rounds, summary.seconds)
    return outcomes, summary
