"""Live mode on a team server is one of its user's batches (issue 27, point 2): a Live
subscription waits in its user's own queue, takes one batch worker, fetches as a batch
fetches, is refused past the user's queue, and is counted in the user's `/api/me`; a Live
session belongs to the user who created it.

Before, `/api/live/subscribe` computed every uncached cell one request after another on a
worker of everyone's pool, outside any queue: one user's 8 subscriptions of 100 distinct
calls held all 8 batch workers, another user's one-cell batch waited 35.3 s for a worker,
and the flooding user's `/api/me` showed 0 requests. Another user holding the session id
could poll and cancel the first user's cells.
"""

from __future__ import annotations

import threading
import time

import requests

from rates_xl.addin.officejs.auth import Authenticator
from rates_xl.addin.officejs.fairness import FairShare
from rates_xl.addin.officejs.team import Team
from rates_xl.addin.officejs.users import UserStore
from rates_xl.client import RatesClient
from rates_xl.sandbox import PAID_KEY
from tests.support.cells import distinct_cells
from tests.support.officejs_calls import calls_for

#: The issue's flood was 8 subscriptions of 100 cells (800 requests, 40 s at 20/s); 25 cells
#: each keep the test to about 10 s and still hold every batch worker of the code before.
SUBSCRIPTIONS, CELLS = 8, 25
#: A batch fetches on at most `max_workers` (16) threads, each holding one place in the
#: limiter's queue: bob's request waits behind at most those of alice's one running batch,
#: and the few she takes while his batch is planned. 3 x 16 is that, with room to spare.
AHEAD_BOUND = 3 * 16


def start_team(serve, sandbox_factory, tmp_path, fair: FairShare):
    sandbox = sandbox_factory(rate_limit=20, burst=50)
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, rate_limit=20, burst=50, persistent=False,
                         breaker_failures=3, breaker_cooldown=600)
    store = UserStore(tmp_path / "users.json")
    tokens = {name: store.add(name) for name in ("alice", "bob")}
    served = serve(client=client, team=Team(Authenticator(users=store), fair=fair), live_tick=0.05)
    return sandbox, served, tokens


def post(served, path: str, body: dict, token: str, timeout: float = 120) -> requests.Response:
    return served.http.post(served.url + path, json=body, timeout=timeout,
                            headers={"Origin": served.url, "Authorization": f"Bearer {token}"})


def live_cells(count: int, offset: int = 0) -> list[dict]:
    """`count` distinct calls valued as of now (what Live watches), as subscriptions."""
    cells = [(name, (*args[:-1], None)) for name, args in distinct_cells(count, offset)]
    return [{"id": i, **call} for i, call in enumerate(calls_for(cells))]


def test_a_live_flood_does_not_hold_another_users_batch_and_is_counted(serve, sandbox_factory, tmp_path):
    sandbox, served, tokens = start_team(serve, sandbox_factory, tmp_path, FairShare())
    alice, bob = tokens["alice"], tokens["bob"]
    answers: list[requests.Response | None] = [None] * SUBSCRIPTIONS
    subs = live_cells(SUBSCRIPTIONS * CELLS)

    def subscribe(i: int) -> None:
        try:
            answers[i] = post(served, "/api/live/subscribe",
                              {"session": f"alicepage{i:04d}", "subs": subs[i * CELLS:(i + 1) * CELLS]}, alice)
        except requests.RequestException:
            pass  # the sandbox is stopped under the last ones

    flood = [threading.Thread(target=subscribe, args=(i,), daemon=True) for i in range(SUBSCRIPTIONS)]
    for thread in flood:
        thread.start()
    ends = time.monotonic() + 30
    while len(sandbox.arrivals) < 55 and time.monotonic() < ends:  # her flood is under way (past the burst)
        time.sleep(0.02)

    # alice's subscriptions wait in her own queue: one computes, the rest leave the pool's
    # workers to everyone else.
    assert served.app.state.batches.in_flight == 1

    asked = time.time()
    answer = post(served, "/api/batch", {"calls": calls_for(distinct_cells(1, offset=400))}, bob, timeout=30)
    assert answer.status_code == 200 and isinstance(answer.json()["results"][0]["value"], float), answer.text
    arrived = list(sandbox.arrivals)
    his = next(i for i, a in enumerate(arrived) if "401M" in a.query)
    ahead = sum(1 for a in arrived[:his] if a.at >= asked)
    assert ahead <= AHEAD_BOUND, f"bob's request reached the service after {ahead} of alice's"

    # The flood is counted for alice: each subscription a batch, each request sent.
    for thread in flood:
        thread.join(120)  # her 200 requests at 20/s
    assert all(a is not None and a.status_code == 200 for a in answers)
    assert all(s["live"] for a in answers for s in a.json()["subs"])
    # Her requests: each distinct one. Live refetches each watched answer ahead of its expiry,
    # paced so that all of them are in time (client/live_scheduler.py `_due`), the process's
    # scheduler for every user's cells, counted for none: on a quiet machine 19 such repeats
    # reached the service before this count (219 arrivals, 200 distinct).
    hers = len({a.query for a in sandbox.arrivals if "401M" not in a.query})
    me = requests_of(served, alice)
    assert me["user"] == "alice" and me["use"]["batches"] == SUBSCRIPTIONS
    assert me["use"]["requests_sent"] >= hers == SUBSCRIPTIONS * CELLS, (me, hers)
    assert me["use"]["cells"] == SUBSCRIPTIONS * CELLS
    bob_use = requests_of(served, bob)["use"]
    # His one request, as many times as it reached the service: a retry after an answer slower
    # than the client waits (beside `stress --cpu 2` it reached it twice, and was counted twice).
    his_sends = sum(1 for a in sandbox.arrivals if "401M" in a.query)
    assert bob_use["batches"] == 1 and bob_use["requests_sent"] == his_sends >= 1, (bob_use, his_sends)


def test_a_users_live_subscriptions_are_refused_past_her_queue(serve, sandbox_factory, tmp_path):
    """The batch's limit holds for Live: with one running and none waiting, a second
    subscription while the first computes is a 503 with Retry-After, for her only."""
    sandbox = sandbox_factory(latency_ms=1500)
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, persistent=False)
    store = UserStore(tmp_path / "users.json")
    alice, bob = store.add("alice"), store.add("bob")
    served = serve(client=client, team=Team(Authenticator(users=store), fair=FairShare(running=1, waiting=0)))
    first = threading.Thread(target=post, args=(served, "/api/live/subscribe",
                                                {"session": "alicepage0001", "subs": live_cells(1)}, alice),
                             daemon=True)
    first.start()
    ends = time.monotonic() + 30
    while served.app.state.batches.in_flight == 0 and time.monotonic() < ends:  # her first one computes
        time.sleep(0.01)
    second = post(served, "/api/live/subscribe", {"session": "alicepage0002", "subs": live_cells(1, 10)}, alice)
    assert second.status_code == 503 and second.headers["retry-after"]
    assert "your earlier batches" in second.json()["detail"]
    assert post(served, "/api/live/subscribe", {"session": "bobpage00001", "subs": live_cells(1, 20)},
                bob).status_code == 200
    first.join(30)
    assert requests_of(served, alice)["use"]["batches"] == 2  # the refusal is counted too


def requests_of(served, token: str) -> dict:
    return served.http.get(served.url + "/api/me", timeout=30,
                           headers={"Authorization": f"Bearer {token}"}).json()


def test_a_live_session_belongs_to_the_user_who_created_it(serve, sandbox_factory, tmp_path, monkeypatch):
    from rates_xl.addin.officejs import live_hub

    monkeypatch.setattr(live_hub, "POLL_SECONDS", 0.2)
    _, served, tokens = start_team(serve, sandbox_factory, tmp_path, FairShare())
    alice, bob = tokens["alice"], tokens["bob"]
    session = "a1b2c3d4e5f6a7b8"
    answer = post(served, "/api/live/subscribe", {"session": session, "subs": live_cells(2)}, alice)
    assert answer.status_code == 200 and [s["live"] for s in answer.json()["subs"]] == [True, True]
    hub = served.app.state.live
    for path, body in [("/api/live/poll", {"session": session}),
                       ("/api/live/cancel", {"session": session, "ids": [0, 1]}),
                       ("/api/live/subscribe", {"session": session, "subs": live_cells(1, offset=50)})]:
        refused = post(served, path, body, bob)
        assert refused.status_code == 404, (path, refused.text)
        assert refused.json() == {"detail": "no such live session"}
    assert hub.scheduler.status().cells == 2  # bob's cancel cancelled nothing
    assert post(served, "/api/live/poll", {"session": session}, alice).json()["subscribed"] == 2
    assert post(served, "/api/live/cancel", {"session": session, "ids": [0]}, alice).json() == {"cancelled": 1}
    # A user's pages are bounded too: one more than MAX_SESSIONS is refused.
    for i in range(live_hub.MAX_SESSIONS - 1):
        assert post(served, "/api/live/poll", {"session": f"bobpage{i:05d}"}, bob).status_code == 200
    assert post(served, "/api/live/poll", {"session": "bobpage99999"}, bob).status_code == 200
    too_many = post(served, "/api/live/poll", {"session": "bobpage88888"}, bob)
    assert too_many.status_code == 404 and "live pages" in too_many.json()["detail"]
