"""A replay: the `Transport` (client/transport.py) that answers a client's requests from a
market-data pack (pack.py) and never from the network, a scenario pack's moved answers in
place of the market's; `NotInPack` for a request the pack does not hold.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from rates_xl.client import errors
from rates_xl.client.endpoints import ENDPOINTS
from rates_xl.client.pack import RECORDED_ERRORS, Pack
from rates_xl.client.transport import Answer

if TYPE_CHECKING:
    from rates_xl.client.endpoints import RequestKey


class NotInPack(errors.RatesError):
    """Replay was asked a request its pack does not hold: never sent to the service."""

    retryable = False


class PackTransport:
    """The `Transport` (client/transport.py) of a replay: answers only from the pack, never
    the network."""

    trust_store = "none (replay)"

    def __init__(self, pack: Pack) -> None:
        self.pack = pack
        self.base_url = pack.base_url
        self._index = pack.index()
        #: a scenario pack's answers under the scenario, served instead of the market's
        self._scenario = pack.scenario.index() if pack.scenario is not None else {}
        self.served = 0

    def fetch(self, endpoint: str, path: str, params: dict[str, str], timeout: float, *,
              before_redirect: Callable[[str], None] | None = None) -> Answer:
        found = self._index.get((endpoint, tuple(sorted(params.items()))))
        if found is None:
            order = list(ENDPOINTS[endpoint].params)  # the function's own argument order
            shown = " ".join(v for _, v in sorted(params.items(), key=lambda kv: order.index(kv[0])))
            raise NotInPack(
                f"not in the market-data pack: {endpoint} {shown} (recorded {self.pack.created[:19]}Z): "
                "replay cannot ask the service", endpoint=endpoint)
        self.served += 1
        if found.error is not None:
            raise RECORDED_ERRORS[found.error["type"]](found.error["message"], endpoint=endpoint)
        moved = self._scenario.get((endpoint, found.params))
        text = moved.answer if moved is not None and moved.answer is not None else found.answer
        if text is None:  # (an answer without text is a recorded error, raised above)
            raise NotInPack(f"the market-data pack holds no answer for {endpoint}", endpoint=endpoint)
        return Answer(json.loads(text), text)

    def scenario_line(self, key: RequestKey) -> str | None:
        """What the scenario did to the answer of `key` (None: a market pack)."""
        record = self.pack.scenario
        if record is None:
            return None
        moved = self._scenario.get((key.endpoint, tuple(key.params)))
        if moved is None:
            return f"{record.spec}: unchanged (the scenario moves none of the curves it is computed from)"
        if moved.not_shifted is not None:
            return f"{record.spec}: NOT shifted, the recorded answer kept ({moved.not_shifted})"
        return (f"{record.spec}: the recorded answer moved by the local model's change (shifted minus base): "
                "a scenario, not market data")

    def recorded_at(self, key: RequestKey) -> float | None:
        """When the pack's answer to `key` was fetched (time.time() seconds), if it holds one."""
        found = self._index.get((key.endpoint, tuple(key.params)))
        if found is None:
            return None
        return datetime.fromisoformat(found.fetched_at.replace("Z", "+00:00")).timestamp()

    def close(self) -> None:
        pass
