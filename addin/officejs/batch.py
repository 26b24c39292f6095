"""One batched POST from the script -> one outcome per call, computed by the host-free core.

The script sends every call Excel made in one recalculation burst. We check each call's
shape (known function, no more arguments than it declares, scalar arguments of bounded
size), then compute them all with the loop `rates-xl calc` uses
(`functions.plan.plan_and_evaluate`): a first pass records the distinct service requests
without sending any, `fetch_many` sends them concurrently under the shared client's rate
limiter, a second pass computes every cell from the cache. A batch of 1,000 cells therefore
costs its distinct requests once, at the rate-limit bound, never one latency per cell.

Each answer is exactly `spec.core(*args)`; only its form changes for Office.js:
- a number stays a number; a spill stays a 2-D array, dates as Excel serial numbers (what
  a date cell holds), empty as "", a cell with no value by design (`NOT_AVAILABLE`, a
  history's Fill=NA) as an error object the script makes Excel's #N/A in that cell;
- a `#RATES!` message becomes an error: `invalidValue` (#VALUE!) when the input is wrong
  (our validation, or the service's 400/422 refusal of the parameters), `notAvailable`
  (#N/A) for everything the user cannot fix in the formula (404 no data, 403 key, 429,
  5xx, unreachable, a malformed answer). The message is the core's, without the prefix:
  Excel shows it on hover.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from rates_xl.addin.officejs.metadata import officejs_name
from rates_xl.functions import errors
from rates_xl.functions.core import FunctionSpec
from rates_xl.functions.messages import NOT_AVAILABLE, PREFIX, is_message

log = logging.getLogger("rates_xl.addin.officejs")

#: Calls in one POST (the script sends at most this many at a time).
MAX_BATCH = 2000
#: Characters in one text argument (a cell holds up to 32,767; nothing we take is near 100).
MAX_TEXT = 1000
#: Arguments of one call: the widest function declares 8.
MAX_ARGS = 32
#: Cells in one range argument (`Arg.many`: a history's tenors or options; it takes 30 tenors).
MAX_CELLS = 1000
EXCEL_EPOCH = date(1899, 12, 30)


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


def check_call(call: Any, table: dict[str, FunctionSpec]) -> tuple[FunctionSpec, tuple] | dict:
    """(spec, args) for a call we can compute, or the error outcome that answers it."""
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


def pin(calls: list[Any], moment: Any) -> list[Any]:
    """The calls with `valuation_time` set to the book's pinned moment (what the script read
    from RATES_VALUATION_TIME) wherever a call leaves it empty, as the other hosts do. The
    moment goes in as the cell's own argument would: its validation answers a bad one."""
    if moment is None or moment == "":
        return calls
    if isinstance(moment, str):
        moment = moment.strip().removeprefix("=").strip().strip('"')  # ="2026-01-02T16:00:00Z"
    table = functions_by_id()
    out = []
    for call in calls:
        spec = table.get(call.get("fn")) if isinstance(call, dict) else None
        args = call.get("args") if isinstance(call, dict) else None
        if spec is None or not isinstance(args, list) or "valuation_time" not in spec.arg_names:
            out.append(call)
            continue
        at = spec.arg_names.index("valuation_time")
        args = list(args) + [None] * (at + 1 - len(args))
        if args[at] is None or args[at] == "":
            args[at] = moment
        out.append({**call, "args": args})
    return out


def _is_source(spec: FunctionSpec, call: Any) -> bool:
    from rates_xl.functions.source import REFERENCE_ARGS

    return spec.name in REFERENCE_ARGS and isinstance(call, dict) and isinstance(call.get("source"), dict)


def _source(client: Any, source: dict[str, Any], pinned: Any, name: str = "RATES_SOURCE") -> Any:
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

    if isinstance(pinned, str):
        pinned = pinned.strip().removeprefix("=").strip().strip('"') or None
    if name == "RATES_ERROR":
        return error_of_formula(where, formula, sheet, value_of, pinned)
    return explain_formula(client, where, formula, sheet, value_of, pinned)


def _finite(number: int | float) -> bool:
    try:
        return math.isfinite(number)  # converts an int to float: too many digits overflow
    except OverflowError:
        return False


def _cell(value: Any) -> Any:
    if value == NOT_AVAILABLE:  # a spill's cell with no value by design: Excel's #N/A there
        return {"error": "notAvailable", "message": "no value for this date (Fill=NA)"}
    if isinstance(value, datetime):
        delta = value.replace(tzinfo=None) - datetime(1899, 12, 30)
        return delta.days + delta.seconds / 86400
    if isinstance(value, date):
        return float((value - EXCEL_EPOCH).days)
    if value is None:
        return ""
    if isinstance(value, float) and not math.isfinite(value):
        return ""
    return value


def outcome(spec: FunctionSpec, args: tuple, value: Any) -> dict[str, Any]:
    """The core's answer as the script settles it: a failure as an error (functions/errors.py,
    the classic host's rule too), or its text with the `cell_errors = text` setting."""
    if is_message(value):
        if not errors.as_values():
            return {"value": value}
        text = value[len(PREFIX):].strip()
        return {"error": kind_of(spec, args, value), "message": text}
    if isinstance(value, list):
        failed = {}
        if errors.as_values():  # a cell that failed on its own (a grid's column): its error there
            failed = {v: {"error": kind_of(spec, args, v), "message": v[len(PREFIX):].strip()}
                      for row in value for v in row if is_message(v)}
        return {"value": [[failed[v] if v in failed else _cell(v) for v in row] for row in value]}
    if isinstance(value, float) and not math.isfinite(value):
        return unavailable("the service's answer was not a finite number")
    return {"value": _cell(value)}


def kind_of(spec: FunctionSpec, args: tuple, message: str) -> str:
    """invalidValue (#VALUE!) when the formula must change, notAvailable (#N/A) otherwise: the
    one rule both hosts use (functions/errors.kind)."""
    return "invalidValue" if errors.kind(spec, args, message) == errors.VALUE else "notAvailable"


def run_batch(calls: list[Any], client: Any, record: bool = False) -> tuple[list[dict[str, Any]], BatchReport]:
    """Every call's outcome, in order. `client` must be the client the core uses. With
    `record`, the report carries the answers the batch used (the task pane writes them into
    the book as its market-data pack)."""
    import contextlib

    from rates_xl.functions.plan import plan_and_evaluate

    started = time.perf_counter()
    table = functions_by_id()
    checked = [check_call(call, table) for call in calls]
    todo = [(i, c[0], c[1]) for i, c in enumerate(checked) if isinstance(c, tuple)]

    pinned = getattr(calls, "pinned", None)

    def evaluate() -> list[Any]:
        return [_source(client, calls[i].get("source"), pinned, spec.name) if _is_source(spec, calls[i]) else spec.core(*args)
                for i, spec, args in todo]

    from rates_xl.functions.core import client_here

    # The core computes with `client` (the server's, or a scenario's replaying one: scenarios.py).
    with client.recording() if record else contextlib.nullcontext() as recorder, client_here(client):
        values, report = plan_and_evaluate(evaluate, client) if todo else ([], None)
    outcomes: list[dict[str, Any]] = [c if isinstance(c, dict) else {} for c in checked]
    for (i, spec, args), value in zip(todo, values, strict=True):
        outcomes[i] = outcome(spec, args, value)
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
