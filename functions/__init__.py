"""RATES_* worksheet functions: the host-free core every Excel host and the headless engine read.

- `table.FUNCTIONS`: the function table, one row per Excel name -> `FunctionSpec` with
    .name          "RATES_SWAP"; .dotted_name "RATES.SWAP" (Office.js, the headless engine)
    .args          tuple of `Arg(name, kind, doc, required, param, default)`, in Excel order
    .description   Function Wizard text, with the unit
    .endpoint      the client endpoint it calls (None for RATES_STATUS)
    .result        "number" | "table" (header row first unless headers is FALSE) |
                   "column" (one column, no header) | "rows" (label, value pairs)
    .columns       the header row of a table, e.g. ("Tenor", "Rate")
    .unit          "percent", "decimal", "plain number", "quote per base" (`table.UNITS` says each)
    .examples      argument tuples the reference shows as formulas (tested against the sandbox)
    .core(*values) the function itself: arguments exactly as a cell passes them (trailing
                   optional ones may be left out) -> float | 2-D list | "#RATES! ..." string.
                   It never raises.
- `core.py`: validation (pydantic over the coercers of `args.py`), the shared client
  (`get_client()`, `set_client(client_or_None)`, `using_client(client)`), fetching and
  shaping;
- `context.py`: `CallContext`, what one call is computed under besides its arguments (the
  book's valuation moment, a refresh's floor, the planning round, the pack recorder, the
  client): the one way a host's settings reach `core.evaluate(spec, values, context)`;
- `table.py`: the function table; `history.py`: RATES_SWAPHISTORY's options and grid;
- `args.py`: what a cell passes -> what the client expects (the coercers);
- `sheet.py`: cells, areas, A1 references, sheet-name quoting, RATES calls;
- `values.py`: Excel's cell values (error values, serial dates, booleans); `date_system.py`:
  dates given and answered as serials in a book counting from 1904, moved for every host;
- `tokens.py`: a formula's tokens, the one tokenizer;
- `messages.py`: the one error -> `#RATES!` text mapping (`PENDING` while a plan runs);
- `errors.py`: a failing cell as Excel's error value, its message one step away; `shown`,
  the one value converter every host uses;
- `plan.py`: the plan / fetch / compute loop (`plan_and_evaluate`) that the hosts and
  `rates-xl calc` share;
- `formula_walk.py`, `link.py`, `source.py`: which requests a RATES_* cell made, from its
  formula (RATES_SOURCE, `rates-xl diff`);
- `catalogue.py`: every `#RATES!` message a function can give, produced by running the code
  that writes it, with cause and what to do; `reference.py`: each function's reference page
  (Markdown for the docs site, HTML for the Office.js help pages);
- `cli.py`: `rates-xl call`, one service answer as a table, checked as a cell checks it.

The hosts live in `rates_xl.addin`: `addin/classic` (xlwings UDFs, Windows desktop Excel)
and `addin/officejs` (Office.js custom functions). Nothing here imports xlwings.
"""

from __future__ import annotations

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

__all__ = [
    "FUNCTIONS", "FunctionSpec", "Arg", "get_client", "set_client", "using_client", "evaluate",
    "PREFIX", "PENDING", "is_message",
]
