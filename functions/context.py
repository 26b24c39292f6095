"""What one worksheet call is computed under, besides its arguments: `CallContext`.

A host knows things about a cell that its arguments do not say: its book pins a valuation
moment, a Refresh covers it, a planning round is open, the answers it uses go into the
book's market-data pack, its book is under a scenario, its user wants failures as text. The
host puts them in one `CallContext` and hands it with the arguments to
`functions.core.evaluate(spec, values, context)`: the one way a setting reaches a call, in
every host (the classic UDFs and their RTD path, the Office.js batch, calc's two engines).

| field            | set by                                              | what the call does with it |
|------------------|-----------------------------------------------------|----------------------------|
| `valuation_time` | the book's RATES_VALUATION_TIME (classic: `valuation.pinned`; Office.js: the batch's; calc: `--valuation-time` or the pack's moment) | a call that leaves `valuation_time` empty values at it (`pin`, the one place that writes it) |
| `fresh_since`    | a ribbon Refresh's floor                            | answers cached before it count as expired, once |
| `planning`       | a planning round (`Round`: plan_and_evaluate, an RTD wait) | a miss is recorded in the round, not sent (the cell reads PENDING) |
| `recorder`       | a Refresh, Office.js' Record, `rates-xl calc`       | every answer used is written into the pack |
| `held`           | the plan loop (functions/plan.py), for all its rounds | every answer used is held until the loop ends: the cache dropping one (its TTL) does not fetch it again |
| `used`           | Live mode                                           | every request the cell asks for is added to the set |
| `client`         | a book under a scenario (its replaying client)      | the client that answers; None: the shared one |
| `cell_errors`    | `RATES_CELL_ERRORS` (None: the client's setting)    | "values": a failure is Excel's error value; "text": the `#RATES!` line |

The client keeps its own scopes (`fresh_since()`, `planning()`, `recording()`, `holding()`,
`requests_used()`: context variables, so they follow a call into `fetch_many`'s threads);
`applied` enters them for one call, and nothing else in a host does.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, TypedDict, Unpack

if TYPE_CHECKING:
    from rates_xl.client import RatesClient, RequestKey
    from rates_xl.client.cache import HeldAnswers
    from rates_xl.client.pack import PackRecorder
    from rates_xl.functions.core import FunctionSpec


class Round:
    """The requests one planning round recorded, from whichever thread computed a cell (Excel
    calls the UDFs on threads of its own; formualizer on its own pool)."""

    def __init__(self) -> None:
        self.keys: set[RequestKey] = set()
        self._lock = threading.Lock()

    def record(self, keys: set[RequestKey]) -> None:
        if keys:
            with self._lock:
                self.keys.update(keys)


class Changes(TypedDict, total=False):
    """`CallContext.replace`'s arguments: any of its fields, by name."""

    valuation_time: datetime | str | None
    fresh_since: float | None
    planning: Round | None
    recorder: PackRecorder | None
    held: HeldAnswers | None
    used: set[RequestKey] | None
    client: RatesClient | None
    cell_errors: str | None


@dataclass(frozen=True)
class CallContext:
    """Everything one call is computed under besides its arguments (the table above)."""

    valuation_time: datetime | str | None = None
    fresh_since: float | None = None
    planning: Round | None = None
    recorder: PackRecorder | None = None
    held: HeldAnswers | None = None
    used: set[RequestKey] | None = None
    client: RatesClient | None = None
    cell_errors: str | None = None
    #: Whether the call runs under any of the client's scopes (`applied`): decided once, so
    #: a call under none (the common case) enters nothing.
    scoped: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "scoped", self._scoped())

    def _scoped(self) -> bool:
        return not (self.fresh_since is None and self.recorder is None and self.planning is None
                    and self.used is None and self.held is None)

    def replace(self, **changes: Unpack[Changes]) -> CallContext:
        """This context with `changes`. A copy of the fields as they are, not
        `dataclasses.replace` (which runs `__init__` over every field): a cell in a refresh
        scope builds one per call, and the warm call costs a few microseconds in all."""
        unknown = changes.keys() - _FIELDS
        if unknown:
            raise TypeError(f"CallContext has no field {sorted(unknown)[0]!r}")
        copy = object.__new__(CallContext)
        copy.__dict__.update(self.__dict__)
        copy.__dict__.update(changes)
        copy.__dict__["scoped"] = copy._scoped()
        return copy

    def pin(self, spec: FunctionSpec, values: tuple[object, ...]) -> tuple[object, ...]:
        """The call's arguments with `valuation_time` given this context's moment where the
        call leaves it empty."""
        return pin(spec, values, self.valuation_time)

    def error_values(self, client: RatesClient | None = None) -> bool:
        """Whether a failure shows as Excel's error value (the default) or its text."""
        if self.cell_errors is not None:
            return self.cell_errors != "text"
        try:
            if client is None:
                from rates_xl.functions.core import get_client

                client = self.client or get_client()
            return getattr(client.settings, "cell_errors", "values") != "text"
        except Exception:  # noqa: BLE001 - no client can be built (bad settings): error values
            return True

    def applied(self, client: RatesClient) -> contextlib.AbstractContextManager[object]:
        """The client's scopes this call runs under: its floor, the pack recording it, the
        answers its calculation holds, the round planning it, the set of requests it used. The common cases cost no stack: no
        scope (a shared do-nothing manager) and one (the client's own manager)."""
        scopes: list[contextlib.AbstractContextManager[object]] = []
        if self.fresh_since is not None:
            scopes.append(client.fresh_since(self.fresh_since))
        if self.recorder is not None:
            scopes.append(client.recording(self.recorder))
        if self.held is not None:
            scopes.append(client.holding(self.held))
        if self.used is not None:
            scopes.append(client.requests_used(self.used))
        if self.planning is not None:
            return self._planned(client, scopes)
        if not scopes:
            return _NOTHING
        if len(scopes) == 1:
            return scopes[0]
        return _stacked(scopes)

    @contextlib.contextmanager
    def _planned(self, client: RatesClient, scopes: list[contextlib.AbstractContextManager[object]]) -> Iterator[None]:
        """`scopes`, then the client's planning: what it recorded goes into the round."""
        assert self.planning is not None
        with _stacked(scopes), client.planning() as recorded:
            try:
                yield
            finally:
                self.planning.record(recorded)


_FIELDS = frozenset(f.name for f in dataclasses.fields(CallContext) if f.init)
#: What `applied` answers for a call under no scope (a nullcontext holds no state: shared).
_NOTHING = contextlib.nullcontext()


@contextlib.contextmanager
def _stacked(scopes: list[contextlib.AbstractContextManager[object]]) -> Iterator[None]:
    with contextlib.ExitStack() as stack:
        for scope in scopes:
            stack.enter_context(scope)
        yield


#: The context of a call no host says anything about: now, the cache as it is, no plan.
NOW = CallContext()


def pin(spec: FunctionSpec, values: tuple[object, ...], moment: datetime | str | None) -> tuple[object, ...]:
    """`values` with `valuation_time` set to `moment` where the call leaves it empty (omitted,
    None or ""): a book's pinned moment, the one place it is written into a call. The moment
    goes in as the cell's own argument would, so its validation answers a bad one."""
    if moment is None or moment == "":
        return values
    names = spec.arg_names
    if "valuation_time" not in names:
        return values
    at = names.index("valuation_time")
    if at < len(values) and values[at] is not None and values[at] != "":
        return values
    out = list(values) + [None] * (at + 1 - len(values))
    out[at] = moment
    return tuple(out)
