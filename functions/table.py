"""The function table: every RATES_* worksheet function, in one place.

`FUNCTIONS` maps the Excel name to a `FunctionSpec`: its arguments (name, kind, Function
Wizard text, whether required, the service parameter it feeds), the endpoint it calls,
the result kind and how the answer is shaped into a cell value. The xlwings UDFs, the
headless `formulas` engine (which also registers `spec.dotted_name`, RATES.SWAP) and an
Office.js adapter all read this table; none of them repeats it.

Units stay the service's: swap, forward, fixing and historical rates in percent (2.6 is
2.6 %), government yields as decimals (0.0347 is 3.47 %), discount factors as plain
numbers, FX as quote currency per one unit of base.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import TYPE_CHECKING, TypeVar

from rates_xl.functions import history, source
from rates_xl.functions.core import Arg, Call, FanOut, FunctionSpec
from rates_xl.functions.values import StoredValue

if TYPE_CHECKING:
    from rates_xl.client import RatesClient
    from rates_xl.client.models import HistoricalSwapRates

T = TypeVar("T")

#: What each unit in the table means, for the reference pages and the Function Wizard's readers.
UNITS: dict[str, str] = {
    "percent": "percent: 2.6 means 2.6 %",
    "decimal": "a decimal: 0.0347 means 3.47 %",
    "plain number": "a plain number, e.g. a discount factor of 0.96",
    "quote per base": "units of the quote currency per one unit of the base currency (EURUSD 1.177)",
}

# -- argument rows shared by several functions ---------------------------------------------------

_INDEX = Arg("index", "index", "Rate index, e.g. SOFR, ESTR, SONIA, 3M EURIBOR (names as the service spells them).", param="index")
_VALUATION = Arg(
    "valuation_time", "timestamp",
    "Optional. Value as of this moment (UTC): a date-time cell or 2026-01-01T16:00:00Z. "
    "Empty: now. Trial keys must leave it empty.",
    required=False, param="valuation_time",
)
_HEADERS = Arg("headers", "bool", "Optional. FALSE to leave out the header row. Default TRUE.",
               required=False, default=True)
_EOM = Arg("end_of_month", "bool", "Optional. TRUE to roll periods to month ends. Default: the service's.",
           required=False, param="is_end_of_month")


def _start(param: str = "start_date") -> Arg:
    return Arg("start", "date_or_tenor",
               "Start: a date, or a tenor from the valuation date: 0D is the valuation date itself, 2D two "
               "business days later (spot for SOFR and ESTR: their swap curves start there), 1Y a year later.",
               param=param)


def _end(param: str = "end_date") -> Arg:
    return Arg("end_date", "date_or_tenor", "End: a date, or a tenor like 10Y.", param=param)


# -- cross-argument rules ------------------------------------------------------------------------

def _after(later: str, earlier: str):
    """When both are dates, `later` must come after `earlier` (tenors are the service's to judge)."""

    def check(values: dict[str, object]) -> tuple[str, str] | None:
        a, b = values.get(later), values.get(earlier)
        if isinstance(a, date) and isinstance(b, date) and a <= b:
            return later, f"{a.isoformat()} is not after {earlier} {b.isoformat()}"
        return None

    return check


def _not_before(later: str, earlier: str):
    def check(values: dict[str, object]) -> tuple[str, str] | None:
        a, b = values.get(later), values.get(earlier)
        if isinstance(a, date) and isinstance(b, date) and a < b:
            return later, f"{a.isoformat()} is before {earlier} {b.isoformat()}"
        return None

    return check


# -- shaping answers -----------------------------------------------------------------------------

def _number(attribute: str):
    def shape(answer: object, headers: bool) -> float:
        return float(getattr(answer, attribute))

    return shape


def _table(columns: tuple[str, ...], rows_of):
    """A spill: header row first unless headers is FALSE; an empty answer is a message."""

    def shape(answer: object, headers: bool) -> list[list[StoredValue]] | str:
        rows: list[list[StoredValue]] = [list(r) for r in rows_of(answer)]
        if not rows:
            from rates_xl.functions.messages import PREFIX

            return f"{PREFIX} no data: the service returned no points for this request"
        header: list[list[StoredValue]] = [list(columns)] if headers and columns else []
        return header + rows

    return shape


def _status(client: RatesClient, headers: bool) -> list[list[StoredValue]]:
    stats = client.stats()
    return [
        ["Base URL", client.base_url],
        ["API key", "set" if client.has_key else "not set"],
        ["Requests sent", stats["requests_sent"]],
        ["Cache hits", stats["cache_hits"]],
        ["Cached answers", stats["cached_answers"]],
        ["Throttled waits", stats["throttled_waits"]],
        ["Retries", stats["retries"]],
        ["Last error", stats["last_error"] or "none"],
        # The last message a RATES_* cell answered (shown in the cell as #VALUE! or #N/A).
        ["Last cell error", _last_cell_error()],
        # The circuit breaker (client/breaker.py): closed, or open with its cause and retry time.
        ["Network", stats.get("breaker", "closed")],
        # The tiers below memory (client/tiers.py): answers read back from disk, and the team.
        ["Persistent hits", stats.get("persistent_hits", 0)],
        ["Persistent cache", stats.get("persistent", "off")],
        ["Team", stats.get("team", "off")],
        ["Team hits", stats.get("team_hits", 0) + stats.get("team_waits", 0)],
        # One valuation moment per book (docs/market-data-pack.md): pinned, every answer says
        # the same; a trial key cannot pin, and this shows the spread of the answers held.
        ["Answers valued", _valued(client)],
        # A scenario's answers are never mistakable for the market's (docs/scenarios.md).
        ["Scenario", _scenario(client)],
    ]


def _scenario(client: object) -> str:
    record = getattr(client, "scenario", None)
    if record is None:
        return "none: market data"
    moved = sum(1 for a in record.answers if a.answer is not None)
    kept = sum(1 for a in record.answers if a.not_shifted is not None)
    return (f"{record.described}: NOT market data: the pack's answers moved by the local model "
            f"({moved} moved, {kept} not shifted)")


def _last_cell_error() -> str:
    from rates_xl.functions.errors import messages, without_prefix

    return without_prefix(messages.last) if messages.last else "none"


def _valued(client: object) -> str:
    from rates_xl.client.pack import valuation_spread, valued_at

    answers = client.answers() if hasattr(client, "answers") else []
    spread = valuation_spread(valued_at(key, entry.value) for key, entry in answers if entry.error is None)
    return spread or "no answer held yet"


def _history_grid(answers: Sequence[HistoricalSwapRates | str], args: Mapping[str, object],
                  headers: bool) -> list[list[StoredValue]] | str:
    """RATES_SWAPHISTORY's spill: one column per tenor on the index calendar (history.py).
    `answers`: per tenor, its history or the cell message of its failure (`FanOut`)."""
    from rates_xl.client.calendars import calendar, index_calendar
    from rates_xl.functions.messages import NOT_AVAILABLE

    options = _arg(args, "options", history.HistoryOptions)
    cal = calendar(options.cdr) if options.cdr else index_calendar(_arg(args, "index", str))
    business_day = None if cal is None else (lambda day: cal.covers(day) and cal.is_business_day(day))
    columns = [a if isinstance(a, str) else [(p.date, float(p.rate)) for p in a.swap_rates] for a in answers]
    return history.grid(columns, _arg(args, "tenor", history.Tenors), options, _arg(args, "start", date),
                        _arg(args, "end_date", date), business_day, headers, NOT_AVAILABLE)


def _arg(args: Mapping[str, object], name: str, kind: type[T]) -> T:
    """A checked argument (`core.validate`'s answer), of the type its coercer makes."""
    value = args[name]
    if not isinstance(value, kind):
        raise TypeError(f"argument {name} is a {type(value).__name__}, not a {kind.__name__}")
    return value


_SWAPCURVE_COLS = ("Tenor", "Rate")
_FWDCURVE_COLS = ("Start", "End", "Forward")
_DFCURVE_COLS = ("Date", "DF")
_HISTORY_COLS = ("Date", "Rate")

_SPECS = [
    FunctionSpec(
        "RATES_SWAP",
        "Par swap rate in percent (2.6 = 2.6 %) for the given terms. /v1/swap_rate",
        (
            _INDEX,
            _start(),
            Arg("maturity", "date_or_tenor", "Maturity: a date, or a tenor from start like 10Y.", param="maturity_date"),
            Arg("fixed_freq", "frequency", "Fixed-leg payment frequency: 1M, 3M, 6M, 12M or 1Y.", param="fixed_leg_frequency"),
            Arg("float_freq", "frequency", "Optional. Floating-leg frequency. Default: the service's for the index.",
                required=False, param="floating_leg_frequency"),
            Arg("fixed_day_count", "day_count", "Optional. Fixed-leg day count, e.g. Actual360, Thirty360BondBasis.",
                required=False, param="fixed_leg_day_count"),
            Arg("float_day_count", "day_count", "Optional. Floating-leg day count, e.g. Actual360.",
                required=False, param="floating_leg_day_count"),
            _VALUATION,
        ),
        "swap_rate", "number", _number("swap_rate"), unit="percent",
        checks=(_after("maturity", "start"),),
        examples=(("SOFR", "2D", "10Y", "1Y"), ("SOFR", "0D", "10Y", "1Y"),
                  ("6M EURIBOR", "2D", "5Y", "1Y", "6M", "Thirty360BondBasis")),
    ),
    FunctionSpec(
        "RATES_SWAPCURVE",
        "Swap curve of an index: spills Tenor, Rate (percent), with the index's own conventions. /v1/get_swap_curve",
        (_INDEX, _VALUATION, _HEADERS),
        "swap_curve", "table",
        _table(_SWAPCURVE_COLS, lambda a: ([p.tenor, float(p.swap_rate)] for p in a.swap_rates)),
        columns=_SWAPCURVE_COLS, unit="percent", examples=(("SOFR",), ("ESTR", "", False)),
    ),
    FunctionSpec(
        "RATES_FORWARD",
        "Forward rate in percent between two dates or tenors. /v1/forward_rate",
        (_INDEX, _start(), _end(), _VALUATION),
        "forward_rate", "number", _number("forward_rate"), unit="percent",
        checks=(_after("end_date", "start"),), examples=(("SOFR", "1Y", "1Y"), ("SONIA", "6M", "2027-12-31")),
    ),
    FunctionSpec(
        "RATES_FORWARDCURVE",
        "Forward curve: spills Start, End, Forward (percent) for periods of `tenor` every `frequency`. /v1/forward_curve",
        (
            _INDEX, _start(), _end(),
            Arg("tenor", "tenor", "Length of each forward period, e.g. 3M.", param="tenor"),
            Arg("frequency", "frequency", "Spacing between period starts, e.g. 3M.", param="frequency"),
            _EOM, _VALUATION, _HEADERS,
        ),
        "forward_curve", "table",
        _table(_FWDCURVE_COLS, lambda a: ([p.start_date, p.end_date, float(p.forward_rate)] for p in a.curve)),
        columns=_FWDCURVE_COLS, unit="percent", checks=(_after("end_date", "start"),),
        examples=(("SOFR", "2D", "5Y", "3M", "3M"),),
    ),
    FunctionSpec(
        "RATES_DISCOUNT",
        "Discount factor (a plain number like 0.96) to a date or tenor. /v1/discount_factor",
        (_INDEX, Arg("pay_date", "date_or_tenor", "Payment date, or a tenor from the valuation date like 5Y.", param="date"), _VALUATION),
        "discount_factor", "number", _number("discount_factor"), unit="plain number",
        examples=(("SOFR", "5Y"), ("ESTR", "2030-06-28")),
    ),
    FunctionSpec(
        "RATES_DISCOUNTCURVE",
        "Discount curve: spills Date, DF (plain numbers) on a schedule from start to end. /v1/discount_curve",
        (
            _INDEX, _start(), _end(),
            Arg("frequency", "frequency", "Spacing of the schedule, e.g. 3M or 6M.", param="frequency"),
            _EOM, _VALUATION, _HEADERS,
        ),
        "discount_curve", "table",
        _table(_DFCURVE_COLS, lambda a: ([p.date, float(p.discount_factor)] for p in a.curve)),
        columns=_DFCURVE_COLS, unit="plain number", checks=(_after("end_date", "start"),),
        examples=(("ESTR", "0D", "10Y", "6M"),),
    ),
    FunctionSpec(
        "RATES_FXSPOT",
        "FX spot rate: quote currency per one unit of base (EURUSD 1.177). /v1/fx",
        (Arg("pair", "currency_pair", "Currency pair, base then quote: EURUSD (EUR/USD works too).", param="currency_pair"),
         _VALUATION),
        "fx_spot", "number", _number("rate"), unit="quote per base", examples=(("EURUSD",), ("USD/JPY",)),
    ),
    FunctionSpec(
        "RATES_FXFORWARD",
        "FX forward rate for a date: quote currency per one unit of base. /v1/fx_forward",
        (Arg("pair", "currency_pair", "Currency pair, base then quote: EURUSD.", param="currency_pair"),
         Arg("value_date", "date", "Optional. Forward value date (a date, not a tenor). Empty: today.", required=False, param="date"),
         _VALUATION),
        "fx_forward", "number", _number("rate"), unit="quote per base",
        examples=(("EURUSD", "2027-06-30"), ("GBPUSD",)),
    ),
    FunctionSpec(
        "RATES_GOVYIELD",
        "Government zero-coupon yield as a DECIMAL (0.0347 = 3.47 %), semi-annual compounding. /v1/gov_yield",
        (Arg("country", "country", "Country code: US, UK, DE, FR, IT, ES, JP, CA, AU.", param="country_code"),
         Arg("maturity", "date_or_tenor", "Maturity: a date, or a tenor like 10Y.", param="maturity"),
         Arg("forward_start", "date_or_tenor", "Optional. Forward start: a date or a tenor. Empty: spot.",
             required=False, param="forward_start"),
         _VALUATION),
        "gov_yield", "number", _number("yield_"), unit="decimal", examples=(("US", "10Y"), ("DE", "5Y", "1Y")),
    ),
    FunctionSpec(
        "RATES_FIXING",
        "Published fixing of an index in percent, for a date (empty: the latest). /v1/fixing",
        (_INDEX, Arg("fixing_date", "date", "Optional. Fixing date. Empty: latest. Trial keys must leave it empty.",
                     required=False, param="valuation_date")),
        "fixing", "number", _number("fixing_rate"), unit="percent", examples=(("SOFR",), ("ESTR", "2025-06-02")),
    ),
    FunctionSpec(
        "RATES_SWAPHISTORY",
        "Historical swap rates (percent) of an index: spills Date, Rate for one tenor, or Date, 2Y, 5Y, "
        "... for several, on the index's business days; BDH-style options (Per=M, Fill=P, ...). "
        "/v1/historical_swap_rates",
        (_INDEX,
         Arg("tenor", "tenors", "Swap tenor, e.g. 10Y; or several: a range or array of tenors, or a list "
             "like 2Y,5Y,10Y (one column each, one request each).", param="tenor", many=True),
         Arg("start", "date", "First date of the history.", param="start_date"),
         Arg("end_date", "date", "Last date of the history.", param="end_date"),
         _HEADERS,
         Arg("options", "history_options",
             'Optional. As BDH: "Per=D|W|M|Q|S|Y Fill=P|B|NA Days=T|W|A Sort=A|D Dts=S|H Dir=V|H '
             'Quote=C|A CDR=calendar", e.g. "Per=M". Empty: daily closes, the index\'s business days.',
             required=False, default=history.HistoryOptions(), many=True)),
        "historical_swap_rates", "table", None,
        columns=_HISTORY_COLS, unit="percent", checks=(_not_before("end_date", "start"),),
        fan_out=FanOut("tenor", _history_grid),
        examples=(("SOFR", "10Y", "2025-01-02", "2025-03-31"),
                  ("SOFR", "2Y,5Y,10Y,30Y", "2021-01-01", "2025-12-31", None, "Per=M"),
                  ("ESTR", "5Y", "2025-01-01", "2025-06-30", False, "Per=W Quote=A Sort=D")),
    ),
    FunctionSpec(
        "RATES_TENORS",
        "Swap tenors the service has for an index: spills one column, no header. /v1/swap_rate_tenors",
        (_INDEX,),
        "swap_rate_tenors", "column",
        _table((), lambda a: ([t] for t in a.tenors)), examples=(("SOFR",),),
    ),
    FunctionSpec(
        "RATES_SOURCE",
        "Where a RATES_* number came from: spills Request, Valued at, Fetched at and Service "
        "for the request the cell's formula made. Makes no request.",
        (Arg("cell", "number", "A RATES_* cell (or a cell of its table), or a RATES_* formula."),),
        None, "rows", lambda answer, headers: answer, local=source.explain,
        examples=((Call("RATES_SWAP", ("SOFR", "0D", "10Y", "1Y")),),),
    ),
    FunctionSpec(
        "RATES_ERROR",
        "The message of a failing RATES_* cell (shown there as #VALUE! or #N/A): what is wrong and "
        "what to do; empty when the cell has an answer. Makes no request.",
        (Arg("cell", "number", "A RATES_* cell, e.g. B7."),),
        None, "number", lambda answer, headers: answer, local=source.error_of_value,
        examples=((Call("RATES_SWAP", ("SOFR", "0D", "10X", "1Y")),),),
    ),
    FunctionSpec(
        "RATES_STATUS",
        "Connection status: base URL, key set or not (never the key), requests, cache hits, waits, last error.",
        (), None, "rows", _status, volatile=True, examples=((),),
    ),
]

#: Excel name -> FunctionSpec. The one table every host reads.
FUNCTIONS: dict[str, FunctionSpec] = {spec.name: spec for spec in _SPECS}

#: Names these functions had before the Office.js host (which needs at least three characters
#: after the namespace): workbooks written with them still compute in the headless engine,
#: and `rates-xl respell` rewrites them to the current names.
FORMER_NAMES: dict[str, str] = {
    "RATES_DF": "RATES_DISCOUNT",
    "RATES_DFCURVE": "RATES_DISCOUNTCURVE",
    "RATES_FX": "RATES_FXSPOT",
}


def service_parameters() -> list[tuple[str, str, str, str]]:
    """Each function's arguments beside the service parameters they feed: rows of
    (function, Excel argument, endpoint, service parameter), in the table's order. The
    worksheet names are short (`pair`, `country`, `pay_date`); the service's are its own
    (`currency_pair`, `country_code`, `date`). The docs' reference prints this table."""
    return [(spec.name, arg.name, spec.endpoint, arg.param)
            for spec in _SPECS if spec.endpoint
            for arg in spec.args if arg.param]


def argument_aliases(endpoint: str) -> dict[str, str]:
    """The Excel argument names that feed `endpoint` -> its parameters, where they differ
    (what `rates-xl call` accepts besides the service's own names)."""
    return {arg: param for _, arg, ep, param in service_parameters()
            if ep == endpoint and arg != param}
