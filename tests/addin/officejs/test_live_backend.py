"""The Live endpoints of `rates-xl serve` (addin/officejs/live_hub.py) keep the batch endpoint's
rules: own origin only, JSON only, a session id of letters and digits, bounded lists; a
subscription of a cell valued as of a past time is answered `live: false` and watched by
nothing; a cancelled cell leaves the scheduler."""

from __future__ import annotations

import pytest

from rates_xl.client import RatesClient
from rates_xl.sandbox import PAID_KEY

SESSION = "a1b2c3d4e5f6a7b8"
NOW = {"id": 1, "fn": "SWAP", "args": ["SOFR", "0D", "5Y", "1Y"]}
PAST = {"id": 2, "fn": "SWAP", "args": ["SOFR", "0D", "5Y", "1Y", None, None, None, "2026-11-20T16:00:00Z"]}


@pytest.fixture
def served(serve, sandbox):
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, persistent=False, ttl_live=60)
    yield serve(client=client, live_tick=0.05)
    client.close()


def post(served, path, body, **headers):
    return served.http.post(served.url + path, json=body, timeout=30,
                            headers={"Origin": served.url, **headers})


def test_subscribe_watches_cells_valued_as_of_now_and_cancel_forgets_them(served):
    answer = post(served, "/api/live/subscribe", {"session": SESSION, "subs": [NOW, PAST, {"id": 3, "fn": "NOPE"}]})
    assert answer.status_code == 200
    subs = answer.json()["subs"]
    assert subs[0] == {"id": 1, "live": True} and subs[1] == {"id": 2, "live": False}
    assert subs[2]["id"] == 3 and subs[2]["error"] == "invalidValue"
    hub = served.app.state.live
    assert hub.scheduler.status().cells == 1
    assert post(served, "/api/live/cancel", {"session": SESSION, "ids": [1]}).json() == {"cancelled": 1}
    assert hub.scheduler.status().cells == 0


def test_a_pinned_books_cells_are_valued_at_its_moment_and_never_watched(served):
    """The page sends the book's RATES_VALUATION_TIME with its subscriptions, as with a batch:
    a cell that leaves valuation_time empty is valued at that moment, so it is answered
    `live: false` and never refetched as of now (it was watched, and so moved off its moment)."""
    pinned = "2026-11-20T16:00:00Z"
    answer = post(served, "/api/live/subscribe", {"session": SESSION, "subs": [NOW], "valuation_time": pinned})
    assert answer.status_code == 200
    assert answer.json()["subs"] == [{"id": 1, "live": False}]
    hub = served.app.state.live
    assert hub.scheduler.status().cells == 0
    # The same cell from an unpinned book is watched.
    answer = post(served, "/api/live/subscribe", {"session": SESSION, "subs": [{**NOW, "id": 2}]})
    assert answer.json()["subs"] == [{"id": 2, "live": True}] and hub.scheduler.status().cells == 1


def test_a_poll_answers_with_nothing_when_nothing_is_new(served, monkeypatch):
    from rates_xl.addin.officejs import live_hub

    post(served, "/api/live/subscribe", {"session": SESSION, "subs": [NOW]})
    monkeypatch.setattr(live_hub, "POLL_SECONDS", 0.2)
    body = post(served, "/api/live/poll", {"session": SESSION}).json()
    assert body["subscribed"] == 1 and "Live" in body["status"]["text"]


@pytest.mark.parametrize("path", ["/api/live/subscribe", "/api/live/poll", "/api/live/cancel"])
def test_the_live_endpoints_refuse_what_the_batch_refuses(served, path):
    body = {"session": SESSION, "subs": [NOW], "ids": [1]}
    assert post(served, path, body, Origin="https://evil.example").status_code == 403
    assert served.http.post(served.url + path, data="x", timeout=30,
                            headers={"Origin": served.url, "Content-Type": "text/plain"}).status_code == 415
    assert post(served, path, {**body, "session": "short"}).status_code == 400
    assert post(served, path, {**body, "session": "not/letters-or-digits"}).status_code == 400
    assert served.app.state.live is None or served.app.state.live.scheduler.status().cells == 0


def test_a_1904_books_live_cells_read_and_write_its_serials(served):
    """The page sends its book's date system with its subscriptions, as with a batch
    (functions/date_system.py): a date given as a number is read on it, and each refetched
    answer's dates are written on it."""
    from rates_xl.functions.date_system import SHIFT, serial

    curve = {"id": 1, "fn": "DISCOUNTCURVE", "args": ["SOFR", "0D", "1Y", "6M"]}
    dated = {"id": 2, "fn": "DISCOUNT", "args": ["SOFR", 46_997.0 - SHIFT]}
    answer = post(served, "/api/live/subscribe", {"session": SESSION, "subs": [curve, dated], "date1904": True})
    assert answer.json()["subs"] == [{"id": 1, "live": True}, {"id": 2, "live": True}]
    hub = served.app.state.live
    assert hub._sessions[SESSION].subs[2][1][1] == 46_997.0  # 1 September 2028 on the 1900 system
    hub._notify(frozenset({(SESSION, 1), (SESSION, 2)}))
    shown = hub._sessions[SESSION].outbox[1]["value"]
    spec, args = hub._sessions[SESSION].subs[1]
    from rates_xl.functions.core import evaluate

    rows = evaluate(spec, args)
    assert [row[0] for row in shown[1:]] == [serial(row[0]) - SHIFT for row in rows[1:]]
    assert isinstance(hub._sessions[SESSION].outbox[2]["value"], float)
