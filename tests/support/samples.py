"""One valid call per worksheet function, as a cell would make it, and the same request
made directly through the client (method, keyword arguments): the tests compare the two."""

from __future__ import annotations

from datetime import date, datetime

# Excel-style values: serial numbers, date cells (datetime), loose text.
HIST_START, HIST_END = 45901.0, datetime(2025, 9, 30)  # 2025-09-01 as a serial, a date cell

SAMPLES: dict[str, tuple] = {
    "RATES_SWAP": ("sofr", "0d", " 10y ", "1Y", None, "act/360", "", None),
    "RATES_SWAPCURVE": ("3m euribor",),
    "RATES_FORWARD": ("SOFR", "1Y", "2Y"),
    "RATES_FORWARDCURVE": ("SOFR", "1Y", "3Y", "3M", "quarterly", False),
    "RATES_DISCOUNT": ("SOFR", "5Y"),
    "RATES_DISCOUNTCURVE": ("ESTR", "0D", "2Y", "6M"),
    "RATES_FXSPOT": ("eur/usd",),
    "RATES_FXFORWARD": ("EURUSD", 47000.0),
    "RATES_GOVYIELD": ("us", "10Y", None),
    "RATES_FIXING": ("SOFR",),
    "RATES_SWAPHISTORY": ("SOFR", "10Y", HIST_START, HIST_END, 1.0),
    "RATES_TENORS": ("SONIA",),
    "RATES_SOURCE": (3.61,),  # a number no answer holds: a #RATES! line naming `cell`
    "RATES_ERROR": (3.61,),  # a value alone: a #RATES! line naming `cell` (it needs the cell)
    "RATES_STATUS": (),
}

DIRECT: dict[str, tuple[str, dict]] = {
    "RATES_SWAP": ("swap_rate", dict(index="SOFR", start_date="0D", maturity_date="10Y",
                                     fixed_leg_frequency="1Y", fixed_leg_day_count="Actual360")),
    "RATES_SWAPCURVE": ("swap_curve", dict(index="3M EURIBOR")),
    "RATES_FORWARD": ("forward_rate", dict(index="SOFR", start_date="1Y", end_date="2Y")),
    "RATES_FORWARDCURVE": ("forward_curve", dict(index="SOFR", start_date="1Y", end_date="3Y", tenor="3M",
                                                 frequency="3M", is_end_of_month=False)),
    "RATES_DISCOUNT": ("discount_factor", dict(index="SOFR", date="5Y")),
    "RATES_DISCOUNTCURVE": ("discount_curve", dict(index="ESTR", start_date="0D", end_date="2Y", frequency="6M")),
    "RATES_FXSPOT": ("fx_spot", dict(currency_pair="EURUSD")),
    "RATES_FXFORWARD": ("fx_forward", dict(currency_pair="EURUSD", date=date(2028, 9, 4))),
    "RATES_GOVYIELD": ("gov_yield", dict(country_code="US", maturity="10Y")),
    "RATES_FIXING": ("fixing", dict(index="SOFR")),
    "RATES_SWAPHISTORY": ("historical_swap_rates", dict(index="SOFR", tenor="10Y", start_date=date(2025, 9, 1),
                                                        end_date=date(2025, 9, 30))),
    "RATES_TENORS": ("swap_rate_tenors", dict(index="SONIA")),
}
