"""The task pane's Scenario control on the server side (docs/scenarios.md).

The page reads the market-data pack the book carries (its custom XML part, written by
"Record market data") and sends it with a spec: `POST /api/scenario {"pack": "<the pack's
JSON>", "spec": "SOFR+1bp", "buckets": null}`. The server checks the pack (an edited one, or a
scenario's, is refused), puts it under the scenario (scenario/apply.py; what the local curves
need and the pack lacks is fetched once through the server's client, only from the service
that recorded the pack) and keeps a replaying client of the scenario pack under a random id,
for the user who asked. Each batch that carries `"scenario": id` is computed by that client
alone: the book's recorded answers moved by the local model, a request the pack lacks a cell
message, nothing asked of the service; RATES.STATUS and RATES.SOURCE say it is a scenario.
`POST /api/scenario/off {"scenario": id}` forgets it. A server keeps a few per user (the
oldest go first) and none across a restart: a batch naming one it does not hold is refused
(409), and the page says so in its banner.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from rates_xl.errors import InputError

#: Scenarios a server keeps, and per user (each holds a replaying client and its answers).
MAX_SESSIONS = 32
MAX_PER_USER = 4
#: The characters of a spec (its own parser says the rest).
MAX_SPEC = 400


class ScenarioRequestRefused(InputError):
    """A scenario that cannot be applied: the message is the answer's detail (one line)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Session:
    user: str | None
    client: Any
    record: Any


class Sessions:
    def __init__(self) -> None:
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()

    def open(self, payload: Any, client: Any, user: str | None) -> dict[str, Any]:
        """Apply the scenario to the pack the page sent; the answer the page shows. Runs in a
        worker thread (the curves may be fetched and built)."""
        pack, scenario = _read(payload, client)
        try:
            from rates_xl.scenario.apply import ScenarioError, apply, prepare, replaying_client
        except ImportError as exc:  # QuantLib: the [sandbox] extra
            from rates_xl.extras import missing_extra

            raise ScenarioRequestRefused(f"a scenario needs the local curve model: {missing_extra(exc, 'sandbox')}", 501) from None
        from rates_xl.client.pack import public_url

        fetching = client if public_url(client.base_url) == pack.base_url else None
        try:
            under = apply(prepare(pack, fetching), scenario)
        except ScenarioError as exc:
            raise ScenarioRequestRefused(str(exc)) from None
        replaying = replaying_client(under)
        sid = secrets.token_hex(16)
        with self._lock:
            mine = [k for k, s in self._sessions.items() if s.user == user]
            for old in mine[: max(0, len(mine) - MAX_PER_USER + 1)]:
                self._sessions.pop(old).client.close()
            while len(self._sessions) >= MAX_SESSIONS:
                self._sessions.popitem(last=False)[1].client.close()
            self._sessions[sid] = Session(user, replaying, under.scenario)
        record = under.scenario
        return {"scenario": sid, "spec": record.spec, "described": record.described,
                "moved": sum(1 for a in record.answers if a.answer is not None),
                "not_shifted": [[a.request, a.not_shifted] for a in record.answers if a.not_shifted is not None]}

    def client(self, sid: Any, user: str | None) -> Any:
        """The replaying client of the user's scenario `sid`, or None (unknown, or another's)."""
        with self._lock:
            found = self._sessions.get(sid) if isinstance(sid, str) else None
            return found.client if found is not None and found.user == user else None

    def close(self, sid: Any, user: str | None) -> bool:
        with self._lock:
            found = self._sessions.get(sid) if isinstance(sid, str) else None
            if found is None or found.user != user:
                return False
            del self._sessions[sid]
        found.client.close()
        return True


def _read(payload: Any, client: Any) -> tuple[Any, Any]:
    """The pack (checked) and the scenario the page sent, or ScenarioRequestRefused."""
    from rates_xl.client.pack import PackError, loads
    from rates_xl.client.pack_seal import check
    from rates_xl.scenario.spec import SpecError, parse

    if not isinstance(payload, dict) or set(payload) - {"pack", "spec", "buckets"}:
        raise ScenarioRequestRefused('expected {"pack": "<the book\'s market-data pack>", "spec": "SOFR+1bp", "buckets": null}')
    text, spec, buckets = payload.get("pack"), payload.get("spec"), payload.get("buckets")
    if not isinstance(text, str) or not text:
        raise ScenarioRequestRefused("pack: the book carries no market-data pack: tick Record market data and recalculate "
                      "(Ctrl+Alt+F9) first")
    if not isinstance(spec, str) or len(spec) > MAX_SPEC or not (buckets is None or isinstance(buckets, str)):
        raise ScenarioRequestRefused("spec: a scenario such as SOFR+1bp (buckets: null or 1Y,2Y,5Y,10Y,30Y)")
    try:
        pack = loads(text)
        scenario = parse(spec, buckets)
    except (PackError, SpecError) as exc:
        raise ScenarioRequestRefused(str(exc)) from None
    if pack.scenario is not None:
        raise ScenarioRequestRefused(f"the book's pack is a scenario's ({pack.scenario.described}), not market data")
    verdict = check(pack, client.pack_signer)
    if verdict.is_edited:
        raise ScenarioRequestRefused(f"the book's market-data pack was {verdict.headline()}: no scenario is applied to it")
    return pack, scenario


__all__ = ["MAX_PER_USER", "MAX_SESSIONS", "ScenarioRequestRefused", "Session", "Sessions"]
