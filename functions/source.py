"""RATES_SOURCE(cell): where a RATES_* number came from (docs/market-data-pack.md).

The answer is found from the cell's own request, never from its value (a value may be held
by several answers: a swap rate also on a curve). The host hands over the cell's formula
and a way to read the cells it references; `functions/link.py` reads the request each
RATES_* call of it makes, through the same validation the cell uses, and the answer held
for exactly that request is explained: its request, valuation time, fetch time and service.

- the classic add-in passes the argument as a Range (addin/classic/udfs.py);
- `rates-xl calc` rewrites `RATES_SOURCE(B7)` so the engine passes B7's call and its
  evaluated arguments (calc/sources.py);
- Office.js: Excel passes the argument's address (`requiresParameterAddresses`), the
  script reads that cell's formula and the cells it references (Excel JS API) and sends
  them with the call (addin/officejs/batch.py);
- a host that passes only the value (the `formulas` fallback engine, an Office.js runtime
  without the Excel API) gets a `#RATES!` line saying so: never a guess.

Why a function rather than a cell note: a note is written once and goes stale when the cell
recalculates; the function recalculates with the cell, and its rows can be copied into an
audit trail.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from rates_xl.functions.messages import PREFIX

if TYPE_CHECKING:
    from rates_xl.client import RatesClient
    from rates_xl.client.client import RequestKey

#: Reads a referenced cell: (sheet, "B7") -> its value.
ValueOf = Callable[[str, str], object]

#: Arguments a host hands over as the cell itself (a Range in xlwings, an address in Office.js).
REFERENCE_ARGS = {"RATES_SOURCE": ("cell",), "RATES_ERROR": ("cell",)}

#: RATES_SOURCE given only a value (the function table's entry, which every host reaches
#: when it cannot pass the cell itself).
NEEDS_CELL = (f"{PREFIX} cell: RATES_SOURCE needs the cell itself (its formula), which this host passes "
              "as a value only, and a value alone may be several answers: use it in the classic add-in "
              "or rates-xl calc")


#: RATES_ERROR given only a value: an error value carries no message a host can read back.
ERROR_NEEDS_CELL = (f"{PREFIX} cell: RATES_ERROR needs the cell itself, which this host passes as a value "
                    "only: see the cell's message where it shows (the hover in Office.js, rates-xl calc's summary)")


def error_of_value(client: object, args: Mapping[str, object]) -> str:
    """RATES_ERROR with only the cell's value (a host that cannot pass the cell)."""
    return ERROR_NEEDS_CELL


def error_of_formula(where: str, formula: str, sheet: str, value_of: ValueOf,
                     pinned: datetime | str | None = None, date1904: bool = False) -> str:
    """RATES_ERROR for the cell `where` holding `formula`: the message its RATES_* call answers
    now (computed again: from the cache, or the same refusal), "" when it answers a value
    (`date1904`: its book counts dates from 1904, functions/date_system.py)."""
    from rates_xl.functions import date_system
    from rates_xl.functions.context import CallContext
    from rates_xl.functions.core import evaluate
    from rates_xl.functions.errors import without_prefix
    from rates_xl.functions.link import Unlinked, argument_value, rates_calls
    from rates_xl.functions.messages import is_message
    from rates_xl.functions.table import FUNCTIONS

    try:
        calls = rates_calls(formula)
        if not calls:
            return ""
        for name, texts in calls:
            values = [argument_value(t, sheet, value_of) for t in texts]
            if date1904:
                values = date_system.onto_1900(values, date_system.date_arguments(FUNCTIONS[name]))
            result = evaluate(FUNCTIONS[name], tuple(values), CallContext(valuation_time=pinned))
            if is_message(result):
                return without_prefix(result)
    except Unlinked as exc:
        return f"{where}: {exc}"[:254]
    return ""


def explain(client: object, args: Mapping[str, object]) -> str:
    """RATES_SOURCE with only the cell's value: a `#RATES!` line, never a guess by value."""
    return NEEDS_CELL


def explain_formula(client: RatesClient, where: str, formula: str, sheet: str, value_of: ValueOf,
                    pinned: datetime | str | None = None, date1904: bool = False) -> str | list[list[str]]:
    """RATES_SOURCE for the cell `where` holding `formula` (on `sheet`): its requests read
    by `functions/link.py` (`value_of(sheet, "B7")` reads a referenced cell; `date1904`: its
    book counts dates from 1904), then explained."""
    from rates_xl.functions.link import Unlinked, requests_of

    try:
        keys = requests_of(formula, sheet, value_of, pinned, date1904=date1904)
    except Unlinked as exc:
        return f"{PREFIX} cell: {where}: {exc}"[:254]
    return explain_requests(client, where, keys)


def explain_requests(client: RatesClient, where: str, keys: list[RequestKey]) -> str | list[list[str]]:
    """Label and value rows for the answer held for each request (exactly that request)."""
    from rates_xl.client.pack import valued_at
    from rates_xl.client.tiers import request_text

    held = {request_text(key): (key, entry) for key, entry in client.answers()}
    rows: list[list[str]] = []
    if len(keys) > 1:
        rows.append(["Requests", f"{len(keys)}: {where} calls the service {len(keys)} times"])
    for asked in keys:
        request = request_text(asked)
        if request not in held:
            return (f"{PREFIX} cell: {where} asks {request}, an answer rates-xl does not hold now "
                    "(calculate the cell first)")[:254]
        key, entry = held[request]
        if entry.error is not None:
            return f"{PREFIX} cell: {where} asks {request}, which the service refused"[:254]
        valued = valued_at(key, entry.value)
        rows += [["Request", request],
                 ["Valued at", _shown(valued) if valued else "not stated by the service"],
                 ["Fetched at", datetime.fromtimestamp(entry.fetched_at, UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
                  + " UTC"],
                 ["Service", client.base_url]]
        scenario = client.scenario_line(key) if hasattr(client, "scenario_line") else None
        if scenario is not None:
            rows.append(["Scenario", scenario])
    return rows


def _shown(moment: str) -> str:
    return moment.replace("T", " ").replace("Z", " UTC")
