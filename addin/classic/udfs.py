"""RATES_* worksheet functions: the xlwings UDF module (`UDF Modules = rates_xl.addin.classic.udfs`).

This module is the thin xlwings layer and nothing more: everything a function does lives in
the host-free core, `rates_xl.functions` (the function table `FUNCTIONS`, validation,
messages, the shared client), which the Office.js host and the headless engine read too;
`refresh.py` beside this file holds the classic ribbon's refresh scopes.

Each UDF below has the Excel signature (the VBA wrapper xlwings generates follows it) plus
the reserved trailing `caller` argument, which xlwings fills with the calling Range and
hides from Excel. When the caller falls under a refresh scope, the call runs with that
scope's freshness floor. Outside a refresh, a cell whose answer is not cached answers at
once with a wait marker that the VBA wrapper turns into an RTD subscription and #N/A, and is
recalculated when its answer arrives (rtd.py; only where the RTD server runs). Curves are returned as 2-D lists and spill natively (Excel 365
dynamic arrays); `RATES_XL_LEGACY_ARRAYS=1` switches them to xlwings' `expand="table"`
for Excel versions without dynamic arrays.
"""

from __future__ import annotations

import inspect
import os
from typing import Any

import xlwings as xw

from rates_xl.addin.classic import live_rtd, manual, refresh, rtd, rtd_com, scenario, scope, source
from rates_xl.addin.classic.excel_surface import Range
from rates_xl.addin.classic.refresh import RefreshScope, floor_for, request_refresh
from rates_xl.functions import date_system, errors
from rates_xl.functions.context import CallContext
from rates_xl.functions.core import (
    Arg,
    FunctionSpec,
    evaluate,
    get_client,
    set_client,
    using_client,
)
from rates_xl.functions.messages import PENDING, PREFIX, is_message
from rates_xl.functions.table import FUNCTIONS

CATEGORY = "RATES"
_LEGACY_ARRAYS = os.environ.get("RATES_XL_LEGACY_ARRAYS", "").strip().lower() in ("1", "true", "yes")


def expands(name: str) -> bool:
    """Whether xlwings sizes this function's array formula to its result (`expand="table"`,
    legacy arrays for Excel without dynamic arrays: RATES_XL_LEGACY_ARRAYS=1)."""
    return _LEGACY_ARRAYS and FUNCTIONS[name].result != "number"


def _udf(f):
    """Register `f` with xlwings from its row of the function table (docs, category, spill)."""
    spec = FUNCTIONS[f.__name__]
    params = list(inspect.signature(f).parameters.values())
    names = tuple(p.name for p in params)
    if names != (*spec.arg_names, "caller"):
        raise TypeError(f"{f.__name__}{names} does not match the function table {spec.arg_names}")
    for p, arg in zip(params, spec.args, strict=False):
        if (p.default is inspect.Parameter.empty) != arg.required:
            raise TypeError(f"{f.__name__}: {arg.name} must be {'required' if arg.required else 'optional'}")
    f.__doc__ = spec.description
    for arg in spec.args:
        if arg.name in source.REFERENCE_ARGS.get(spec.name, ()):
            f = xw.arg(arg.name, "range", doc=arg.doc)(f)  # the cell itself (addin/classic/source.py)
            continue
        # err_to_str: an error cell arrives as "#N/A" (not None), so it is reported, not ignored.
        f = xw.arg(arg.name, doc=arg.doc, err_to_str=True)(f)
    if expands(f.__name__):
        f = xw.ret(expand="table")(f)
    # call_in_wizard=True for every function: with False, xlwings' wrapper returns early (an
    # empty value, shown as 0) whenever the Standard command bar is disabled, which Microsoft
    # 365 reports during a recalculation on open (xlwings issue 1574): a plausible wrong
    # number. A half-typed argument already fails validation without a request.
    return xw.func(category=CATEGORY, volatile=spec.volatile, call_in_wizard=True)(f)


def _run(name: str, caller: Range | None, values: tuple[Any, ...]) -> Any:
    """One cell: where it is read once (its book, sheet and address: each a COM call in
    Excel) and its context built once (refresh.context_for: a refresh's round and recorder,
    the caller's floor, its book's valuation moment), whichever path computes it."""
    spec = FUNCTIONS[name]
    where = refresh.caller_id(caller)
    context = refresh.context_for(where)
    on_1900 = _dates_on_1900(spec, caller, values)
    if isinstance(on_1900, str):  # the book's date system could not be read
        return _shown(spec, caller, where, values, on_1900, context)
    values = on_1900
    under = scenario.client_for(where)
    if under is not None:
        # A book under a scenario: its own replaying client answers at once from its pack
        # (synchronously: never the RTD server's threads, never the service).
        context = context.replace(client=under)
        answer = refresh.evaluate_cell(spec, values, where, context)
        return _shown(spec, caller, where, values, answer, context)
    if caller is not None and live_rtd.channel.watching:
        # Live mode is on: the live channel learns which requests this cell's value used
        # (the VBA wrapper subscribes the cell to its live topic; live_rtd.py).
        used: set[Any] = set()
        context = context.replace(used=used)
        answer = _answer(spec, caller, where, values, context)
        live_rtd.channel.saw(live_rtd.cell_of(caller), used)
        return _shown(spec, caller, where, values, answer, context)
    return _shown(spec, caller, where, values, _answer(spec, caller, where, values, context), context)


def _dates_on_1900(spec: FunctionSpec, caller: Range | None, values: tuple[Any, ...]) -> tuple[Any, ...] | str:
    """The call's arguments with a date given as a serial read on the caller's book's date
    system (functions/date_system.py). xlwings reads a date cell through Range.Value, a COM
    date (the day itself, whatever the system); a date a formula computes (DATE, EDATE, A1+30)
    comes as a number, the book's serial. So only when a date argument is a number is the
    book asked, once per such call: Workbook.Date1904 (Microsoft's Excel VBA reference,
    Workbook.Date1904 property), through xlwings' Book.api, the workbook's COM object. Not
    cached: File > Options can change it while the book is open, and a call it cannot read
    for answers with the message rather than a date 4 years and a day off."""
    name = date_system.serial_argument(spec, values) if caller is not None else None
    if name is None:
        return values
    try:
        in_1904 = bool(caller.sheet.book.api.Date1904)
    except Exception as exc:  # noqa: BLE001 - a COM failure of any kind: the cell says so
        return (f"{PREFIX} {name}: a date given as a number, and the workbook's date system "
                f"(1900 or 1904) could not be read ({type(exc).__name__}); give the date as a date cell")
    return tuple(date_system.onto_1900(values, date_system.date_arguments(spec))) if in_1904 else values


#: What RATES_ERROR says of a cell waiting for its answer (it fills by itself).
WAITING = "#RATES! no answer yet: the request is being fetched; the cell fills when it arrives"


def _shown(spec: FunctionSpec, caller: Range | None, where: tuple[str, str, str] | None,
           values: tuple[Any, ...], answer: Any, context: CallContext) -> Any:
    """What the cell gets (functions/errors.shown, the one value converter): a failure is the
    marker the VBA wrapper turns into #VALUE! or #N/A, a failed cell of a spill Excel's error
    text (the wrapper's NaCells makes it the error value), the message kept for RATES_ERROR
    and the Explain button."""
    if caller is None:
        # Not a cell (a VBA macro's call, which gets the message itself to read).
        return answer
    if not isinstance(answer, str | list | tuple):  # a number, a date: the warm cell's case
        if where is not None:
            errors.messages.note(*where, None)  # clears a message the cell showed before
        return answer
    if rtd.wait_topic(answer) is not None:
        if where is not None:
            errors.messages.note(*where, WAITING)
            manual.fill.note_wait(caller, where)  # manual mode: RatesFill after this calculation
        return answer
    value = errors.shown(spec, values, answer, context)
    if isinstance(value, list):
        if where is not None:
            errors.messages.note(*where, errors.first_message(value))
        return [[c.text if isinstance(c, errors.ErrorValue) else c for c in row] for row in value]
    if where is not None:
        errors.messages.note(*where, answer if errors.is_message(answer) else None)
    if not isinstance(value, errors.ErrorValue):
        return value
    marker = errors.marker(value.kind)
    if expands(spec.name):  # a legacy array formula: every cell of its block
        area = scope.parse_address(caller.address)[0]
        return errors.block(marker, area.bottom - area.top + 1, area.right - area.left + 1)
    return marker


def _answer(spec: FunctionSpec, caller: Range | None, where: tuple[str, str, str] | None,
            values: tuple[Any, ...], context: CallContext) -> Any:
    if caller is not None and rtd.waits.enabled and refresh.current_pass() is None:
        # A miss never blocks Excel: answered at once with a wait marker that the VBA wrapper
        # turns into an RTD subscription and #N/A (rates_xl.addin.classic.rtd), under the
        # cell's context (its book's valuation moment, its floor) as on every path.
        answer = rtd.waits.answer(spec, values, context)
        if expands(spec.name) and rtd.wait_topic(answer) is not None:
            # A legacy array formula waits at its own size, never cut (rtd.wait_block).
            area = scope.parse_address(caller.address)[0]
            return rtd.wait_block(answer, area.bottom - area.top + 1, area.right - area.left + 1)
        return answer
    # Through the refresh module: a Refresh in progress sees which cells answered PENDING
    # (see rates_xl.addin.classic.refresh.evaluate_cell).
    return refresh.evaluate_cell(spec, values, where, context)


@_udf
def RATES_SWAP(index, start, maturity, fixed_freq, float_freq=None, fixed_day_count=None,
               float_day_count=None, valuation_time=None, caller=None):
    return _run("RATES_SWAP", caller, (index, start, maturity, fixed_freq, float_freq,
                                       fixed_day_count, float_day_count, valuation_time))


@_udf
def RATES_SWAPCURVE(index, valuation_time=None, headers=None, caller=None):
    return _run("RATES_SWAPCURVE", caller, (index, valuation_time, headers))


@_udf
def RATES_FORWARD(index, start, end_date, valuation_time=None, caller=None):
    return _run("RATES_FORWARD", caller, (index, start, end_date, valuation_time))


@_udf
def RATES_FORWARDCURVE(index, start, end_date, tenor, frequency, end_of_month=None, valuation_time=None,
                       headers=None, caller=None):
    return _run("RATES_FORWARDCURVE", caller, (index, start, end_date, tenor, frequency, end_of_month,
                                               valuation_time, headers))


@_udf
def RATES_DISCOUNT(index, pay_date, valuation_time=None, caller=None):
    return _run("RATES_DISCOUNT", caller, (index, pay_date, valuation_time))


@_udf
def RATES_DISCOUNTCURVE(index, start, end_date, frequency, end_of_month=None, valuation_time=None, headers=None,
                  caller=None):
    return _run("RATES_DISCOUNTCURVE", caller, (index, start, end_date, frequency, end_of_month, valuation_time,
                                          headers))


@_udf
def RATES_FXSPOT(pair, valuation_time=None, caller=None):
    return _run("RATES_FXSPOT", caller, (pair, valuation_time))


@_udf
def RATES_FXFORWARD(pair, value_date=None, valuation_time=None, caller=None):
    return _run("RATES_FXFORWARD", caller, (pair, value_date, valuation_time))


@_udf
def RATES_GOVYIELD(country, maturity, forward_start=None, valuation_time=None, caller=None):
    return _run("RATES_GOVYIELD", caller, (country, maturity, forward_start, valuation_time))


@_udf
def RATES_FIXING(index, fixing_date=None, caller=None):
    return _run("RATES_FIXING", caller, (index, fixing_date))


@_udf
def RATES_SWAPHISTORY(index, tenor, start, end_date, headers=None, options=None, caller=None):
    # tenor and options may be ranges: xlwings passes a range's values as a list (Arg.many).
    return _run("RATES_SWAPHISTORY", caller, (index, tenor, start, end_date, headers, options))


@_udf
def RATES_TENORS(index, caller=None):
    return _run("RATES_TENORS", caller, (index,))


@_udf
def RATES_SOURCE(cell, caller=None):
    # `cell` is a Range: its formula is followed, not its value; a book under a scenario: its
    # client's answers, and the Scenario line.
    return source.explain(cell, scenario.client_for(refresh.caller_id(caller)))


@_udf
def RATES_ERROR(cell, caller=None):
    return source.error_of(cell)  # `cell` is a Range: its last message, kept per cell


@_udf
def RATES_STATUS(caller=None):
    return _run("RATES_STATUS", caller, ())


# In the UDF server on Windows: the RTD server's class object, and misses stop blocking Excel
# (a no-op anywhere else; see rtd_com.enable).
rtd_com.enable()

#: The UDFs by Excel name (the objects xlwings registers).
UDFS = {name: globals()[name] for name in FUNCTIONS}

__all__ = [
    "FUNCTIONS", "UDFS", "FunctionSpec", "Arg", "get_client", "set_client", "using_client", "evaluate",
    "RefreshScope", "request_refresh", "floor_for", "PREFIX", "PENDING", "is_message",
    "CATEGORY", *FUNCTIONS,
]
