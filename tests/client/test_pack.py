"""The market-data pack: recording what a calculation used, its file form, and replay."""

from __future__ import annotations

import json
import time

import pytest

from rates_xl.client import RatesClient, errors
from rates_xl.client.pack import Pack, PackError, PackRecorder, loads
from rates_xl.client.pack_replay import NotInPack
from rates_xl.client.tiers import request_text
from tests.client.conftest import SECRET
from tests.support.faultserver import Reply

SWAP = dict(index="SOFR", start_date="0D", maturity_date="10Y", fixed_leg_frequency="1Y")


def test_an_answer_is_recorded_verbatim_with_its_request_and_times(server, make_client):
    body = ('{"index": "SOFR", "start_date": "2026-04-03", "maturity_date": "2036-04-03",'
            ' "valuation_time": "2026-04-01T16:00:00Z", "swap_rate": 3.6100000000000001, "extra": 1}')
    server.responder = lambda arrival: Reply(body=body, headers={"content-type": "application/json"})
    client = make_client()
    before = time.time()
    with client.recording() as recorder:
        live = client.swap_rate(**SWAP)
    pack = recorder.pack()
    assert len(pack.answers) == 1
    answer = pack.answers[0]
    assert answer.answer == body  # byte for byte, unknown fields and float spelling included
    assert answer.verbatim is True
    key = client.request_key("swap_rate", **SWAP)
    assert (answer.endpoint, answer.params) == (key.endpoint, key.params)
    assert answer.request == request_text(key)  # the caches' own key for the request
    assert answer.valuation_time == "2026-04-01T16:00:00Z"
    assert answer.fetched_at >= time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(before - 1))
    assert pack.base_url == server.base_url
    assert live.swap_rate == float("3.6100000000000001")


def test_an_answer_from_the_cache_keeps_its_original_fetch_time(server, make_client):
    client = make_client()
    first = client.fx_spot("EURUSD")
    with client.recording() as recorder:
        time.sleep(0.05)
        again = client.fx_spot("EURUSD")
    assert again == first and server.count() == 1  # a cache hit, not a second request
    (answer,) = recorder.pack().answers
    entry = client.cache.get(client.request_key("fx_spot", currency_pair="EURUSD"))
    from rates_xl.client.pack import utc_text

    assert answer.fetched_at == utc_text(entry.fetched_at)  # the first fetch, not this read
    assert entry.fetched_at < time.time() - 0.04
    assert answer.verbatim is True


def test_coalesced_callers_and_fetch_many_all_record(server, make_client):
    server.responder = lambda arrival: Reply(delay=0.2)
    client = make_client()
    keys = [client.request_key("fx_spot", currency_pair=p) for p in ("EURUSD", "GBPUSD")]
    with client.recording() as recorder:
        client.fetch_many(keys + keys)
    assert len(recorder.pack().answers) == 2


def test_refusals_are_recorded_and_replayed_transient_failures_are_not(server, make_client):
    server.responder = lambda arrival: (Reply(status=404, body={"detail": "fixing not found"})
                                        if arrival.path == "/v1/fixing" else Reply(status=503))
    client = make_client(max_attempts=1)
    with client.recording() as recorder:
        with pytest.raises(errors.NotFound) as live:
            client.fixing("SOFR", "2025-12-01")
        with pytest.raises(errors.ServerError):
            client.fx_spot("EURUSD")
    pack = loads(recorder.pack().dumps())
    assert [a.endpoint for a in pack.answers] == ["fixing"]
    with RatesClient(replay=pack) as replay:
        with pytest.raises(errors.NotFound) as again:
            replay.fixing("SOFR", "2025-12-01")
    assert str(again.value) == str(live.value)


def test_the_file_form_is_compact_sorted_and_deterministic():
    recorder = PackRecorder("http://127.0.0.1:1/")
    from rates_xl.client.client import RequestKey

    for pair in ("GBPUSD", "EURUSD"):
        key = RequestKey("fx_spot", (("currency_pair", pair),))
        recorder.record(key, None, 1_775_000_000.0, raw=f'{{"currency_pair":"{pair}","rate":1.2}}')
    pack = recorder.pack()
    text = pack.dumps()
    assert text == loads(text).dumps()
    assert ": " not in text and ", " not in text.replace('", "', "")  # compact separators
    assert [a.params[0][1] for a in pack.answers] == ["EURUSD", "GBPUSD"]
    assert list(json.loads(text)) == sorted(json.loads(text))
    assert pack.base_url == "http://127.0.0.1:1"


@pytest.mark.parametrize("text, says", [
    ("not json", "not JSON"),
    ('{"kind": "something else"}', "no 'kind'"),
    ('{"kind": "rates-xl market-data pack", "version": 3}', "version 3 is not supported"),
    ('{"kind": "rates-xl market-data pack", "version": 1, "base_url": "x", "created": "y", "spare": 1}',
     "spare"),
    ('{"kind": "rates-xl market-data pack", "version": 1, "base_url": "x", "created": "y",'
     ' "answers": [{"endpoint": "nope", "params": [], "answer": "{}", "fetched_at": "z"}]}',
     "unknown endpoint"),
])
def test_a_pack_that_is_not_valid_is_refused_in_one_line(text, says):
    with pytest.raises(PackError) as refused:
        loads(text)
    assert says in str(refused.value) and "\n" not in str(refused.value)


def test_replay_gives_the_live_answers_bit_for_bit_and_sends_nothing(server, make_client):
    client = make_client()
    calls = [("swap_rate", SWAP), ("swap_curve", dict(index="SOFR")),
             ("discount_curve", dict(index="SOFR", start_date="0D", end_date="1Y", frequency="6M")),
             ("gov_yield", dict(country_code="US", maturity="10Y"))]
    with client.recording() as recorder:
        live = [client.get(name, **params) for name, params in calls]
    text = recorder.pack().dumps()
    sent = server.count()
    with RatesClient(replay=loads(text)) as replay:
        replayed = [replay.get(name, **params) for name, params in calls]
        assert replay.stats()["requests_sent"] == len(calls)  # answered by the pack transport
    assert replayed == live
    assert [r.model_dump_json() for r in replayed] == [r.model_dump_json() for r in live]
    assert server.count() == sent  # not one request reached the service


def test_a_request_the_pack_does_not_hold_is_a_clear_error_never_a_live_request(server, make_client):
    client = make_client()
    with client.recording() as recorder:
        client.swap_rate(**SWAP)
    pack = recorder.pack()
    sent = server.count()
    # Pointed at the very server that recorded it, with the key: still no request goes out.
    with RatesClient(base_url=server.base_url, api_key=SECRET, replay=pack) as replay:
        with pytest.raises(NotInPack) as missing:
            replay.swap_rate("SOFR", "0D", "5Y", "1Y")
    message = str(missing.value)
    assert message.startswith("not in the market-data pack: swap_rate ")
    assert "swap_rate SOFR 0D 5Y 1Y (recorded" in message  # the values in the function's order
    assert f"(recorded {pack.created[:19]}Z): replay cannot ask the service" in message
    assert missing.value.retryable is False
    assert server.count() == sent


def test_replay_needs_no_key_and_reads_no_other_cache(server, make_client, monkeypatch):
    monkeypatch.delenv("RATES_API_KEY", raising=False)
    client = make_client(persistent=True)
    past = dict(index="SOFR", valuation_date="2025-12-01")
    with client.recording() as recorder:
        client.fixing(**past)  # immutable: also written to the disk tier
    pack = recorder.pack()
    edited = pack.model_copy(update={"answers": ()})
    with RatesClient(replay=edited) as replay:
        with pytest.raises(NotInPack):  # the disk tier holds it, but replay answers from the pack only
            replay.fixing(**past)
    assert isinstance(pack, Pack)


def test_a_cell_shows_the_missing_request_as_one_rates_line(server, make_client):
    from rates_xl.functions.messages import MAX_LENGTH, message_for

    pack = Pack(base_url=server.base_url, created="2026-04-01T16:00:05.000000Z")
    long = dict(SWAP, floating_leg_frequency="6M", fixed_leg_day_count="Actual360",
                floating_leg_day_count="Actual360", valuation_time="2026-04-01T16:00:00Z")
    with RatesClient(replay=pack) as replay:
        with pytest.raises(NotInPack) as missing:
            replay.swap_rate(**long)
    text = message_for(missing.value)
    assert text == ("#RATES! not in the market-data pack: swap_rate SOFR 0D 10Y 1Y 6M Actual360 Actual360 "
                    "2026-04-01T16:00:00Z (recorded 2026-04-01T16:00:05Z): replay cannot ask the service")
    assert len(text) <= MAX_LENGTH
    assert server.count() == 0


def test_an_answer_from_the_disk_tier_is_recorded_verbatim_with_its_first_fetch_time(server, make_client):
    past = dict(index="SOFR", valuation_date="2025-12-01")  # immutable: kept on disk
    first = make_client(persistent=True)
    with first.recording() as recorder:
        first.fixing(**past)
    (original,) = recorder.pack().answers
    first.close()
    second = make_client(persistent=True)  # a new process, as far as caches go: empty memory
    with second.recording() as recorder:
        time.sleep(0.02)
        second.fixing(**past)
    assert server.count() == 1 and second.stats()["persistent_hits"] == 1
    (again,) = recorder.pack().answers
    assert again == original  # same text as sent, same first fetch time
    assert again.verbatim is True


def test_a_cache_entry_written_before_texts_were_kept_is_recorded_as_not_verbatim():
    from rates_xl.client.client import RequestKey
    from rates_xl.client.tiers import decode_entry

    key = RequestKey("fx_spot", (("currency_pair", "EURUSD"),))
    old = '{"k":"fx_spot?currency_pair=EURUSD","t":1775059200.5,"ttl":60,"v":{"currency_pair":"EURUSD","rate":1.1}}'
    entry = decode_entry(key, old)
    assert entry is not None and entry.raw is None
    recorder = PackRecorder("http://127.0.0.1:1")
    recorder.record(key, entry.value, entry.fetched_at, raw=entry.raw)
    (answer,) = recorder.pack().answers
    assert answer.verbatim is False
    assert json.loads(answer.answer)["rate"] == 1.1
    assert answer.fetched_at == "2026-04-01T16:00:00.500000Z"
