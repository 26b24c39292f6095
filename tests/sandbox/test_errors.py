"""Every refusal the service makes, with a status and a detail a person can act on."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
import requests

from rates_xl.sandbox import EXPIRED_KEY, PAID_KEY, TRIAL_KEY

SWAP = {"index": "SOFR", "start_date": "2D", "maturity_date": "5Y", "fixed_leg_frequency": "1Y"}


def test_missing_and_unknown_keys_are_403_saying_which(api):
    missing = api.get("swap_rate", key=None, **SWAP)
    assert missing.status_code == 403 and "Missing API key" in missing.json()["detail"]
    unknown = api.get("swap_rate", key="not-a-key", **SWAP)
    assert unknown.status_code == 403 and "Invalid API key" in unknown.json()["detail"]
    assert "not-a-key" not in unknown.text  # the key is never echoed


def test_expired_trial_key(api):
    response = api.get("swap_rate", key=EXPIRED_KEY, **SWAP)
    assert response.status_code == 403 and "expired" in response.json()["detail"].lower()


def test_trial_key_gets_live_data_but_no_past(api):
    assert api.get("swap_rate", key=TRIAL_KEY, **SWAP).status_code == 200
    past = api.get("swap_rate", key=TRIAL_KEY, valuation_time="2026-03-10T16:00:00Z", **SWAP)
    assert past.status_code == 403
    assert "Trial keys cannot ask for past data" in past.json()["detail"]
    assert "valuation_time" in past.json()["detail"]
    fixing = api.get("fixing", key=TRIAL_KEY, index="SOFR", valuation_date="2026-03-10")
    assert fixing.status_code == 403 and "valuation_date" in fixing.json()["detail"]
    assert api.get("fixing", key=TRIAL_KEY, index="SOFR").status_code == 200


def test_unknown_index_is_422(api):
    for path, params in [("swap_rate", {**SWAP, "index": "LIBOR"}), ("get_swap_curve", {"index": "LIBOR"}),
                         ("discount_factor", {"index": "sofr", "date": "1Y"}), ("fixing", {"index": "LIBOR"})]:
        response = api.get(path, **params)
        assert response.status_code == 422, path
        assert "Unknown index" in response.json()["detail"] and "SOFR" in response.json()["detail"]


def test_unknown_pair_and_country_are_422(api):
    assert api.get("fx", currency_pair="EURXYZ").status_code == 422
    response = api.get("gov_yield", country_code="ZZ", maturity="10Y")
    assert response.status_code == 422 and "US" in response.json()["detail"]


def test_validation_errors_are_400_with_a_list(api):
    response = api.get("swap_rate", **{**SWAP, "maturity_date": "5X", "fixed_leg_frequency": "7M"})
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert isinstance(detail, list) and {tuple(e["loc"]) for e in detail} == {
        ("query", "maturity_date"), ("query", "fixed_leg_frequency")}
    assert all(set(e) == {"loc", "msg", "type"} for e in detail)
    missing = api.get("swap_rate", index="SOFR")
    assert missing.status_code == 400
    assert {e["loc"][-1] for e in missing.json()["detail"]} == {"start_date", "maturity_date", "fixed_leg_frequency"}
    bad_date = api.get("discount_factor", index="SOFR", date="2026-02-30")
    assert bad_date.status_code == 400 and bad_date.json()["detail"][0]["loc"] == ["query", "date"]
    bad_time = api.get("discount_factor", index="SOFR", date="1Y", valuation_time="yesterday")
    assert bad_time.status_code == 400 and "YYYY-MM-DDThh:mm:ssZ" in bad_time.json()["detail"][0]["msg"]
    too_long = api.get("discount_factor", index="SOFR", date="9999Y")
    assert too_long.status_code == 400 and "100 years" in too_long.json()["detail"][0]["msg"]


def test_date_and_tenor_together_is_400(api):
    response = api.session.get(f"{api.base_url}/v1/swap_rate", headers={"x-api-key": PAID_KEY},
                               params=[("index", "SOFR"), ("start_date", "2026-12-01"), ("start_date", "2D"),
                                       ("maturity_date", "5Y"), ("fixed_leg_frequency", "1Y")])
    assert response.status_code == 400
    assert "start_date was given 2 times" in response.json()["detail"]
    assert "never both" in response.json()["detail"]


def test_maturity_must_follow_start(api):
    response = api.get("swap_rate", **{**SWAP, "start_date": "2027-06-01", "maturity_date": "2027-01-04"})
    assert response.status_code == 400
    assert response.json()["detail"] == "maturity_date 2027-01-04 must be later than start_date 2027-06-01"
    zero = api.get("swap_rate", **{**SWAP, "maturity_date": "0D"})
    assert zero.status_code == 400 and "positive tenor" in zero.json()["detail"][0]["msg"]


def test_forward_start_must_follow_valuation(api):
    response = api.get("forward_rate", index="SOFR", start_date="0D", end_date="3M",
                       valuation_time="2026-03-10T16:00:00Z")
    assert response.status_code == 400
    assert response.json()["detail"] == "start_date 2026-03-10 must be later than the valuation date 2026-03-10"
    past = api.get("forward_curve", index="SOFR", start_date="2026-01-05", end_date="1Y", tenor="3M",
                   frequency="3M", valuation_time="2026-03-10T16:00:00Z")
    assert past.status_code == 400 and "later than the valuation date" in past.json()["detail"]
    gov = api.get("gov_yield", country_code="US", maturity="5Y", forward_start="0D",
                  valuation_time="2026-03-10T16:00:00Z")
    assert gov.status_code == 400 and "forward_start" in gov.json()["detail"]


def test_future_valuation_time_is_400_and_before_2000_is_404(api):
    future = (datetime.now(UTC) + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    response = api.get("get_swap_curve", index="SOFR", valuation_time=future)
    assert response.status_code == 400 and "in the future" in response.json()["detail"][0]["msg"]
    early = api.get("get_swap_curve", index="SOFR", valuation_time="1999-06-01T00:00:00Z")
    assert early.status_code == 404 and "2000-01-01" in early.json()["detail"]


def test_ibor_floating_frequency_other_than_tenor_is_refused(api):
    response = api.get("swap_rate", index="3M EURIBOR", start_date="2D", maturity_date="5Y",
                       fixed_leg_frequency="1Y", floating_leg_frequency="6M")
    assert response.status_code == 400 and "3M EURIBOR tenor (3M)" in response.json()["detail"]
    # omitted, it pays at the index tenor; an overnight index takes any frequency
    assert api.ok("swap_rate", index="3M EURIBOR", start_date="2D", maturity_date="5Y",
                  fixed_leg_frequency="1Y")["floating_leg_frequency"] == "3M"
    assert api.ok("swap_rate", index="SOFR", start_date="2D", maturity_date="5Y", fixed_leg_frequency="1Y",
                  floating_leg_frequency="3M")["floating_leg_frequency"] == "3M"


def test_no_data_is_404(api):
    assert api.get("fixing", index="SOFR", valuation_date="2026-12-25").status_code == 404  # future
    holiday = api.get("fixing", index="3M EURIBOR", valuation_date="2025-12-25")
    assert holiday.status_code == 404 and "not a business day" in holiday.json()["detail"]
    saibor = api.get("fixing", index="3M SAIBOR")
    assert saibor.status_code == 404 and "not published" in saibor.json()["detail"]
    history = api.get("historical_swap_rates", index="SOFR", tenor="11Y", start_date="2026-01-05",
                      end_date="2026-01-09")
    assert history.status_code == 404 and "10Y" in history.json()["detail"]
    weekend = api.get("historical_swap_rates", index="SOFR", tenor="5Y", start_date="2026-01-10",
                      end_date="2026-01-11")
    assert weekend.status_code == 404


def test_rate_limit_429_with_retry_after(sandbox_factory):
    running = sandbox_factory(rate_limit=5, burst=3)
    session = requests.Session()
    url = f"{running.base_url}/v1/swap_rate_tenors"

    def get(key=PAID_KEY):
        return session.get(url, params={"index": "SOFR"}, headers={"x-api-key": key}, timeout=10)

    statuses = [get().status_code for _ in range(6)]
    assert statuses[:3] == [200, 200, 200] and 429 in statuses[3:]
    limited = get()
    assert limited.status_code == 429 and limited.headers["Retry-After"] == "1"
    assert "Rate limit exceeded" in limited.json()["detail"]
    assert get(TRIAL_KEY).status_code == 200  # the limit is per key
    time.sleep(0.25)  # 5 per second: a token is back after 0.2 s
    assert get().status_code == 200


def test_default_limits_are_the_services(sandbox_factory):
    running = sandbox_factory()  # 20/s, burst 50
    session = requests.Session()
    # Sent until the first refusal: on a loaded machine 60 requests in a row can take longer
    # than the bucket needs to refill, so the count of answers is bounded by the time taken
    # (50 + 20 per second), not by a fixed 60.
    statuses, started = [], time.monotonic()
    while 429 not in statuses and len(statuses) < 1000:
        statuses.append(session.get(f"{running.base_url}/v1/swap_rate_tenors", params={"index": "SOFR"},
                                    headers={"x-api-key": PAID_KEY}, timeout=10).status_code)
    elapsed = time.monotonic() - started
    answered = statuses.count(200)
    assert statuses[-1] == 429 and set(statuses) == {200, 429}
    assert 50 <= answered <= 50 + 20 * elapsed + 1, (answered, elapsed)


def test_storm_latency_failures_and_extra_keys(sandbox_factory):
    storm = sandbox_factory(storm_seconds=0.6)
    url = f"{storm.base_url}/v1/swap_rate_tenors"
    first = requests.get(url, params={"index": "SOFR"}, headers={"x-api-key": PAID_KEY}, timeout=10)
    assert first.status_code == 429 and int(first.headers["Retry-After"]) >= 1
    time.sleep(0.7)
    assert requests.get(url, params={"index": "SOFR"}, headers={"x-api-key": PAID_KEY}, timeout=10).status_code == 200

    slow = sandbox_factory(latency_ms=150, extra_keys={"team-key": "paid", "old-key": "expired"})
    t = time.perf_counter()
    response = requests.get(f"{slow.base_url}/v1/swap_rate_tenors", params={"index": "SOFR"},
                            headers={"x-api-key": "team-key"}, timeout=10)
    assert response.status_code == 200 and time.perf_counter() - t >= 0.15
    assert requests.get(f"{slow.base_url}/v1/swap_rate_tenors", params={"index": "SOFR"},
                        headers={"x-api-key": "old-key"}, timeout=10).status_code == 403

    failing = sandbox_factory(fail_rate=0.5, seed=7)
    statuses = [requests.get(f"{failing.base_url}/v1/swap_rate_tenors", params={"index": "SOFR"},
                             headers={"x-api-key": PAID_KEY}, timeout=10).status_code for _ in range(40)]
    assert set(statuses) == {200, 503} and 8 <= statuses.count(503) <= 32

    always = sandbox_factory(fail_rate=1.0)
    response = requests.get(f"{always.base_url}/v1/fx", params={"currency_pair": "EURUSD"},
                            headers={"x-api-key": PAID_KEY}, timeout=10)
    assert response.status_code == 503 and "retry" in response.json()["detail"]
    assert requests.get(f"{always.base_url}/openapi.json", timeout=10).status_code == 200  # only /v1 fails


def test_sandboxes_in_one_process_are_independent(sandbox_factory, api):
    strict = sandbox_factory(rate_limit=1, burst=1)
    session = requests.Session()
    url = f"{strict.base_url}/v1/swap_rate_tenors"
    assert session.get(url, params={"index": "SOFR"}, headers={"x-api-key": PAID_KEY}).status_code == 200
    assert session.get(url, params={"index": "SOFR"}, headers={"x-api-key": PAID_KEY}).status_code == 429
    # the session sandbox, same key, is untouched
    assert api.get("swap_rate_tenors", index="SOFR").status_code == 200


@pytest.mark.parametrize("bad", [{"rate_limit": 0}, {"fail_rate": 1.5}, {"extra_keys": {"k": "gold"}}])
def test_bad_knobs_are_refused(bad):
    from rates_xl.sandbox.app import create_app

    with pytest.raises(ValueError):
        create_app(**bad)


@pytest.mark.parametrize("path,params", [
    ("swap_rate", {**SWAP, "start_date": "100Y", "maturity_date": "100Y"}),
    ("swap_rate", {**SWAP, "start_date": "2199-12-30", "maturity_date": "2199-12-31"}),
    ("forward_curve", {"index": "3M EURIBOR", "start_date": "2150-12-01", "end_date": "2150-12-31",
                       "tenor": "100Y", "frequency": "1M"}),
    ("gov_yield", {"country_code": "US", "maturity": "100Y", "forward_start": "100Y"}),
    ("fx_forward", {"currency_pair": "EURUSD", "date": "2199-12-31"}),
    ("discount_factor", {"index": "SOFR", "date": "2199-12-31"}),
])
def test_dates_past_the_horizon_are_400_not_500(api, path, params):
    response = api.get(path, **params)
    assert response.status_code == 400, response.text
    assert "beyond the dates the sandbox prices" in response.json()["detail"][0]["msg"]


@pytest.mark.parametrize("path", ["/v1/forward_curve", "/v1/discount_curve"])
@pytest.mark.parametrize("frequency", ["9999Y", "100Y"])
def test_a_schedule_step_past_the_last_priced_date_is_a_400_not_a_500(sandbox, path, frequency):
    params = {"index": "SOFR", "start_date": "2150-01-02", "end_date": "2150-06-01",
              "frequency": frequency, "tenor": "3M"}
    if path.endswith("discount_curve"):
        params.pop("tenor")
    answer = requests.get(sandbox.base_url + path, params=params, headers={"x-api-key": PAID_KEY}, timeout=10)
    assert answer.status_code == 400, answer.text
    assert "frequency" in answer.text
