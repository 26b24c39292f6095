"""What the client sends, and how it reads every documented answer."""

from datetime import UTC, date, datetime

import pytest

from rates_xl.client import models
from tests.client.conftest import SECRET

CALLS = [
    ("swap_rate", dict(index="SOFR", start_date="0D", maturity_date="5Y", fixed_leg_frequency="1Y",
                       floating_leg_frequency="1Y", fixed_leg_day_count="Actual360",
                       floating_leg_day_count="Actual360",
                       valuation_time=datetime(2026, 4, 1, 16, tzinfo=UTC)),
     "/v1/swap_rate",
     {"index": "SOFR", "start_date": "0D", "maturity_date": "5Y", "fixed_leg_frequency": "1Y",
      "floating_leg_frequency": "1Y", "fixed_leg_day_count": "Actual360",
      "floating_leg_day_count": "Actual360", "valuation_time": "2026-04-01T16:00:00Z"}),
    ("swap_curve", dict(index="6M EURIBOR"), "/v1/get_swap_curve", {"index": "6M EURIBOR"}),
    ("forward_rate", dict(index="SOFR", start_date=date(2026, 7, 1), end_date="3M"),
     "/v1/forward_rate", {"index": "SOFR", "start_date": "2026-07-01", "end_date": "3M"}),
    ("forward_curve", dict(index="SOFR", start_date="2D", end_date="1Y", tenor="3M", frequency="3M",
                           is_end_of_month=False),
     "/v1/forward_curve", {"index": "SOFR", "start_date": "2D", "end_date": "1Y", "tenor": "3M",
                           "frequency": "3M", "is_end_of_month": "false"}),
    ("discount_factor", dict(index="SOFR", date="13M"), "/v1/discount_factor",
     {"index": "SOFR", "date": "13M"}),
    ("discount_curve", dict(index="SOFR", start_date="0D", end_date="1Y", frequency="6M",
                            is_end_of_month=True),
     "/v1/discount_curve", {"index": "SOFR", "start_date": "0D", "end_date": "1Y",
                            "frequency": "6M", "is_end_of_month": "true"}),
    ("fx_spot", dict(currency_pair="EURUSD"), "/v1/fx", {"currency_pair": "EURUSD"}),
    ("fx_forward", dict(currency_pair="EURUSD", date=date(2026, 5, 1)), "/v1/fx_forward",
     {"currency_pair": "EURUSD", "date": "2026-05-01"}),
    ("gov_yield", dict(country_code="US", maturity="10Y", forward_start="1Y"), "/v1/gov_yield",
     {"country_code": "US", "maturity": "10Y", "forward_start": "1Y"}),
    ("fixing", dict(index="SOFR", valuation_date=date(2025, 12, 1)), "/v1/fixing",
     {"index": "SOFR", "valuation_date": "2025-12-01"}),
    ("historical_swap_rates", dict(index="SOFR", tenor="5Y", start_date=date(2026, 3, 2),
                                   end_date=date(2026, 3, 3)),
     "/v1/historical_swap_rates",
     {"index": "SOFR", "tenor": "5Y", "start_date": "2026-03-02", "end_date": "2026-03-03"}),
    ("swap_rate_tenors", dict(index="SOFR"), "/v1/swap_rate_tenors", {"index": "SOFR"}),
]


@pytest.mark.parametrize("method, kwargs, path, query", CALLS, ids=[c[0] for c in CALLS])
def test_each_endpoint_sends_the_service_names_and_the_key(server, make_client, method, kwargs, path, query):
    client = make_client()
    getattr(client, method)(**kwargs)
    (arrival,) = server.arrivals
    assert arrival.path == path
    assert arrival.query == query
    assert arrival.headers["x-api-key"] == SECRET


def test_every_endpoint_is_covered():
    from rates_xl.client.endpoints import ENDPOINTS

    assert {c[0] for c in CALLS} == set(ENDPOINTS)


def test_results_parse_with_documented_names_units_and_types(make_client):
    client = make_client()
    swap = client.swap_rate("SOFR", "0D", "5Y", "1Y")
    assert isinstance(swap, models.SwapRate)
    assert swap.swap_rate == pytest.approx(3.6412)  # percent, as the service sends it
    assert swap.maturity_date == date(2031, 4, 3)
    assert swap.valuation_time == datetime(2026, 4, 1, 16, tzinfo=UTC)
    assert swap.valuation_time.tzinfo is not None

    curve = client.swap_curve("6M EURIBOR")
    assert [(p.tenor, p.swap_rate) for p in curve.swap_rates][:2] == [("1Y", 2.21), ("2Y", 2.30)]
    assert curve.fixed_leg_day_count == "Thirty360BondBasis"

    assert client.forward_rate("SOFR", "3M", "6M").forward_rate == pytest.approx(3.512)
    assert client.discount_factor("SOFR", "13M").discount_factor == pytest.approx(0.960977)
    assert client.fx_spot("EURUSD").rate == pytest.approx(1.17732)
    fwd = client.fx_forward("EURUSD", "2026-05-01")
    assert (fwd.rate, fwd.spot_rate, fwd.date) == (1.178947, 1.17732, date(2026, 5, 1))
    gov = client.gov_yield("US", "10Y")
    assert gov.yield_ == pytest.approx(0.0419)  # decimal, unlike swap rates
    assert gov.maturity == date(2036, 4, 1)
    fc = client.forward_curve("SOFR", "2D", "1Y", "3M", "3M")
    assert fc.curve[1].end_date == date(2026, 10, 5) and fc.is_end_of_month is False
    dc = client.discount_curve("SOFR", "0D", "1Y", "6M")
    assert [p.discount_factor for p in dc.curve] == [0.9998, 0.9823]
    fixing = client.fixing("SOFR", "2025-12-01")
    assert (fixing.fixing_rate, fixing.fixing_date) == (4.35, date(2025, 12, 1))
    hist = client.historical_swap_rates("SOFR", "5Y", "2026-03-02", "2026-03-03")
    assert [(h.date, h.rate) for h in hist.swap_rates] == [(date(2026, 3, 2), 3.61), (date(2026, 3, 3), 3.64)]
    assert client.swap_rate_tenors("SOFR").tenors == ["1Y", "2Y", "5Y", "10Y", "30Y"]


def test_spellings_of_one_request_share_one_cache_entry(server, make_client):
    client = make_client()
    client.swap_rate("SOFR", "0D", "10Y", "1Y", valuation_time=datetime(2026, 4, 1))
    client.swap_rate(" SOFR ", "0d", " 10y ", "1y", valuation_time="2026-04-01T00:00:00Z")
    client.get("swap_rate", fixed_leg_frequency="1Y", maturity_date="10Y", start_date="0D",
               index="SOFR", valuation_time=datetime(2026, 4, 1, tzinfo=UTC))
    client.discount_factor("SOFR", datetime(2027, 5, 3))
    client.discount_factor("SOFR", date(2027, 5, 3))
    client.discount_factor("SOFR", " 2027-05-03")
    client.fx_spot("eur/usd")
    client.fx_spot("EURUSD")
    client.swap_rate("SOFR", "0D", "10Y", "1Y", fixed_leg_day_count="actual360")
    client.swap_rate("SOFR", "0D", "10Y", "1Y", fixed_leg_day_count="Actual360")
    assert server.count() == 4
    assert client.stats()["cache_hits"] == 6


def test_unknown_and_missing_parameters_are_refused_before_sending(server, make_client):
    client = make_client()
    with pytest.raises(TypeError, match="tenor"):
        client.get("discount_factor", index="SOFR", tenor="1Y")
    with pytest.raises(TypeError, match="maturity_date"):
        client.get("swap_rate", index="SOFR", start_date="0D", fixed_leg_frequency="1Y")
    assert server.count() == 0


def test_a_shape_the_service_does_not_document_is_an_invalid_response(server, make_client):
    from rates_xl.client import InvalidResponse
    from tests.support.faultserver import Reply

    server.responder = lambda a: Reply(body={"index": "SOFR", "rate": "n/a"})
    with pytest.raises(InvalidResponse, match="documented shape"):
        make_client().swap_rate("SOFR", "0D", "5Y", "1Y")
