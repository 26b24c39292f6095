"""Scenario tests: a book's worth of service answers recorded from the sandbox, and the same
requests asked of a sandbox serving its curves shifted (`start_in_thread(shift=...)`), the
oracle the local model is held to."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from rates_xl.client import RatesClient
from rates_xl.client.pack import Pack
from rates_xl.sandbox import PAID_KEY

#: A business day on every calendar used; a Japanese and Saudi holiday; a Saturday.
MOMENTS = {"business day": "2026-03-10T16:00:00Z", "holiday": "2026-01-02T16:00:00Z",
           "weekend": "2026-01-03T16:00:00Z"}


def every_endpoint(client: RatesClient, moment: str) -> None:
    """Every endpoint that moves with a curve (overnight and term indexes, spot and 0D starts,
    a tenor and a date maturity, two-curve EURIBOR, a cross-currency forward), and the ones
    that do not (FX spot, a government yield, a fixing, history, tenors)."""
    c, v = client, moment
    c.swap_rate("SOFR", "2D", "10Y", "1Y", valuation_time=v)
    c.swap_rate("SOFR", "0D", "7Y", "1Y", valuation_time=v)
    c.swap_rate("SOFR", "2D", "2031-06-30", "6M", "3M", "Actual365Fixed", "Actual360", valuation_time=v)
    c.swap_rate("3M EURIBOR", "2D", "10Y", "1Y", valuation_time=v)
    c.swap_rate("3M EURIBOR", "0D", "5Y", "1Y", valuation_time=v)
    c.swap_rate("6M EURIBOR", "1Y", "5Y", "1Y", "6M", "Thirty360BondBasis", valuation_time=v)
    c.swap_rate("SONIA", "0D", "5Y", "1Y", valuation_time=v)
    c.swap_rate("TONAR", "2D", "20Y", "1Y", valuation_time=v)
    c.swap_curve("SOFR", valuation_time=v)
    c.swap_curve("3M EURIBOR", valuation_time=v)
    c.forward_rate("SOFR", "1Y", "2Y", valuation_time=v)
    c.forward_rate("6M EURIBOR", "6M", "6M", valuation_time=v)
    c.forward_curve("3M EURIBOR", "2D", "5Y", "3M", "3M", valuation_time=v)
    c.forward_curve("SOFR", "1M", "30Y", "1Y", "1Y", valuation_time=v)
    c.discount_factor("SOFR", "10Y", valuation_time=v)
    c.discount_factor("SOFR", "1M", valuation_time=v)
    c.discount_factor("SONIA", "2W", valuation_time=v)
    c.discount_factor("3M EURIBOR", "30Y", valuation_time=v)
    c.discount_curve("ESTR", "0D", "30Y", "6M", valuation_time=v)
    c.fx_forward("EURUSD", "2027-06-30", valuation_time=v)
    c.fx_forward("USDJPY", "2036-03-31", valuation_time=v)
    c.fx_spot("EURUSD", valuation_time=v)
    c.gov_yield("US", "10Y", valuation_time=v)
    c.fixing("SOFR", "2025-12-01")
    c.historical_swap_rates("SOFR", "10Y", "2025-11-03", "2025-11-14")
    c.swap_rate_tenors("SOFR")


def record(base_url: str, moment: str, calls: Callable[[RatesClient, str], None] = every_endpoint) -> Pack:
    """The pack of those answers, recorded as rates-xl calc records one."""
    with RatesClient(base_url, api_key=PAID_KEY, persistent=False) as client, client.recording() as recorder:
        calls(client, moment)
    return recorder.pack()


def asked(base_url: str, pack: Pack) -> dict[tuple[str, tuple], Any]:
    """Each request of the pack asked of the service at `base_url`, answered as JSON."""
    from rates_xl.client.client import RequestKey

    with RatesClient(base_url, api_key=PAID_KEY, persistent=False) as client:
        return {(a.endpoint, a.params): json.loads(client.get_key(RequestKey(a.endpoint, a.params))
                                                   .model_dump_json(by_alias=True))
                for a in pack.answers if a.answer is not None}
