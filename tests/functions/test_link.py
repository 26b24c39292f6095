"""functions/link.py: a RATES_* formula read into the requests its calls make (no service)."""

from __future__ import annotations

import pytest

from rates_xl.client.tiers import request_text
from rates_xl.functions.link import Unlinked, rates_calls, requests_of

CELLS = {("Rates", "B1"): "SOFR", ("Rates", "B2"): "10Y", ("Other Sheet", "C1"): "5Y"}


def _value_of(sheet, cell):
    return CELLS.get((sheet, cell))


def test_literals_references_other_sheets_and_the_pinned_moment():
    (key,) = requests_of('=ROUND(RATES_SWAP(B1,"0D",\'Other Sheet\'!$C$1,"1Y"),4)', "Rates", _value_of,
                         "2026-01-02T16:00:00Z")
    assert request_text(key) == ("swap_rate?fixed_leg_frequency=1Y&index=SOFR&maturity_date=5Y&start_date=0D"
                                 "&valuation_time=2026-01-02T16:00:00Z")
    # A moment the call gives itself wins over the pinned one; a former name reads the same.
    (key,) = requests_of('=RATES_FXSPOT("EURUSD","2026-01-05T00:00:00Z")', "Rates", _value_of, "2026-01-02")
    assert request_text(key).endswith("valuation_time=2026-01-05T00:00:00Z")


def test_what_cannot_be_read_is_said_never_guessed():
    with pytest.raises(Unlinked, match=r'B2&"Y"'):
        requests_of('=RATES_SWAP(B1,"0D",B2&"Y","1Y")', "Rates", _value_of)
    with pytest.raises(Unlinked, match="calls no RATES_"):
        requests_of("=A1*2", "Rates", _value_of)
    with pytest.raises(Unlinked, match="bad argument"):
        requests_of('=RATES_SWAP("SOFR","0D","10Y",TRUE)', "Rates", _value_of)
    assert rates_calls("=RATES_STATUS()") == []  # no request: nothing to link
