"""The host-free core of every worksheet function: validate, fetch through the shared
client, shape the answer. No xlwings here: the xlwings UDFs, the headless `formulas`
engine and a future Office.js adapter all call `FunctionSpec.core`.

One call: `spec.core(*cell_values)`
  1. `prepare`: each argument through its coercer (args.py) inside a pydantic model built
     once per function (field problems and cross-argument rules, each naming an argument),
     then the client's normalised `RequestKey`. Memoised on the raw argument values (typed,
     so TRUE and 1 stay apart): a warm cell skips validation entirely.
  2. `get_client().get_key(key, deadline=cell_deadline)`: cache, coalescing, circuit
     breaker, rate limit, retries (the client's job), within a cell's short time budget.
  3. `spec.shape(answer, headers)`: a float, or a 2-D list that spills; a number in it that
     is not finite (NaN, infinity) is a failure (`finite`), whichever host asked: the
     client's models refuse such a number in an answer, and this catches one computed here.
  Any failure becomes one `#RATES!` string (messages.py); nothing escapes.

The shared client is built lazily on first use from the settings (`RATES_BASE_URL`,
`RATES_API_KEY`, the keychain): `set_client(None)` makes the next call build it afresh.
"""

from __future__ import annotations

import contextlib
import functools
import math
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from rates_xl.functions import args as coerce
from rates_xl.functions.context import NOW, CallContext
from rates_xl.functions.messages import ArgumentError, message_for
from rates_xl.functions.values import FunctionValue

if TYPE_CHECKING:
    from pydantic import BaseModel

    from rates_xl.client import RatesClient, RequestKey
    from rates_xl.client.models import Result


# -- the shared client --------------------------------------------------------------------------

_client: RatesClient | None = None
_client_owned = False  # built here (so closed here when replaced), not handed in
_client_lock = threading.Lock()


def get_client() -> RatesClient:
    """The process-wide client, built from the settings on first use (a call's own client,
    a book under a scenario, comes in its context: functions/context.py)."""
    client = _client
    if client is not None:
        return client
    return _build_client()


def _build_client() -> RatesClient:
    global _client, _client_owned
    with _client_lock:
        if _client is None:
            from rates_xl.client import RatesClient  # heavy (requests, tenacity): only when needed

            _client, _client_owned = RatesClient(), True
        return _client


def set_client(client: RatesClient | None) -> None:
    """Use `client` for every function from now on; None: rebuild from the environment next time."""
    global _client, _client_owned
    with _client_lock:
        old, owned = _client, _client_owned
        _client, _client_owned = client, False
    if owned and old is not None and old is not client:
        old.close()


@contextlib.contextmanager
def using_client(client: RatesClient) -> Iterator[RatesClient]:
    """The functions compute with `client` inside this block; afterwards the shared client
    is what it was (not built, if it had not been). Neither client is closed here."""
    global _client, _client_owned
    with _client_lock:
        saved = _client, _client_owned
        _client, _client_owned = client, False
    try:
        yield client
    finally:
        with _client_lock:
            _client, _client_owned = saved


def _secret() -> str | None:
    client = _client
    key = getattr(getattr(client, "settings", None), "api_key", None)
    return key.get_secret_value() if key is not None else None


# -- the function table's row types --------------------------------------------------------------

@dataclass(frozen=True)
class Arg:
    """One argument as a cell passes it."""

    name: str  # the Excel-facing name (also the VBA parameter name)
    kind: str  # a key of args.COERCERS
    doc: str  # Function Wizard text (< 255 characters)
    required: bool = True
    param: str | None = None  # the service's parameter; None: not sent (e.g. headers)
    default: Any = None  # used when the cell is empty (only for optional flags)
    #: Takes a range or an array whole (its coercer reads it; Office.js declares it "matrix"),
    #: where any other argument is one cell.
    many: bool = False


@dataclass(frozen=True)
class FanOut:
    """A function that makes one request per value of one argument (RATES_SWAPHISTORY's
    tenors): `shape(answers, args, headers)` gets, in the argument's order, each request's
    answer or the cell message of its failure (functions/messages.py), the checked arguments
    and `headers`, and makes the cell's value."""

    arg: str
    shape: Callable[[list[Any], dict[str, Any], bool], FunctionValue]


@dataclass(frozen=True, eq=False)  # identity hash: specs key the memo, hashing must be cheap
class FunctionSpec:
    """One worksheet function: its Excel name, arguments, endpoint and result shape.

    `core(*values)` takes the arguments exactly as a cell passes them (trailing optional
    ones may be left out) and returns a float, a 2-D list, or a `#RATES!` string.
    """

    name: str  # RATES_SWAP
    description: str  # Function Wizard text: what it returns, and the unit
    args: tuple[Arg, ...]
    endpoint: str | None  # a name in the client's endpoint table; None: no request (STATUS)
    result: str  # "number", "table" (header row first unless headers is FALSE), "column", "rows"
    #: (answer model or client, headers) -> cell value; None for a fan-out (its own shape)
    shape: Callable[[Any, bool], FunctionValue] | None
    columns: tuple[str, ...] = ()  # the header row of a table
    unit: str = ""
    checks: tuple[Callable[[dict[str, Any]], tuple[str, str] | None], ...] = ()
    volatile: bool = False
    #: Argument tuples as a cell would pass them: the reference shows each as a formula and
    #: the tests compute each against the sandbox, so the documented examples stay true.
    examples: tuple[tuple[Any, ...], ...] = ()
    #: Answered here from the client and the checked arguments, with no request (RATES_SOURCE)
    local: Callable[[Any, dict[str, Any]], FunctionValue] | None = None
    #: One request per value of an argument, answered together (see FanOut)
    fan_out: FanOut | None = None
    core: Callable[..., FunctionValue] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        spec = self

        def core(*values: object) -> FunctionValue:
            return evaluate(spec, values)

        core.__name__ = core.__qualname__ = self.name
        core.__doc__ = self.description
        object.__setattr__(self, "core", core)

    @property
    def dotted_name(self) -> str:
        """The Office.js spelling: RATES_SWAP -> RATES.SWAP."""
        return self.name.replace("_", ".", 1)

    @property
    def arg_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.args)

    @property
    def min_args(self) -> int:
        return sum(1 for a in self.args if a.required)


@dataclass(frozen=True)
class Call:
    """An example argument that is itself a call, as a formula nests one:
    RATES_SOURCE(RATES_SWAP("SOFR", "0D", "10Y", "1Y"))."""

    name: str
    args: tuple[Any, ...]

    def value(self) -> FunctionValue:
        from rates_xl.functions.table import FUNCTIONS

        return FUNCTIONS[self.name].core(*self.args)


# -- 1. validation -----------------------------------------------------------------------------

class Prepared(NamedTuple):
    key: RequestKey | None  # None for functions that make no request, or several (keys)
    headers: bool
    args: dict[str, Any] = {}  # the checked arguments by name (for `FunctionSpec.local`)
    keys: tuple[RequestKey, ...] = ()  # a fan-out's requests, in its argument's order

    @property
    def requests(self) -> tuple[RequestKey, ...]:
        """Every request the cell makes."""
        return self.keys or ((self.key,) if self.key is not None else ())


@functools.cache
def _model_for(spec: FunctionSpec) -> type[BaseModel]:
    """The pydantic model validating one function's arguments (built on first use)."""
    from typing import Annotated

    from pydantic import ConfigDict, Field, PlainValidator, create_model, model_validator
    from pydantic_core import PydanticCustomError

    def field_validator(arg: Arg) -> Callable[[object], object]:
        convert, expected = coerce.COERCERS[arg.kind]

        def validate(value: object) -> object:
            try:
                if arg.many and not _blank(value):
                    return convert(value)  # a range, an array or one cell: the coercer reads it
                value = coerce.scalar(value)
                if value is None:
                    if arg.required:
                        raise coerce.ArgProblem(f"missing; give {expected}")
                    return arg.default
                return convert(value)
            except coerce.ArgProblem as problem:
                raise PydanticCustomError("rates_arg", "{problem}", {"problem": str(problem)}) from None

        return validate

    def cross_checks(model: BaseModel) -> BaseModel:
        values = dict(model)
        for check in spec.checks:
            found = check(values)
            if found is not None:
                argument, problem = found
                raise PydanticCustomError(
                    "rates_cross", "{argument}: {problem}", {"argument": argument, "problem": problem}
                )
        return model

    fields: dict[str, Any] = {
        a.name: (Annotated[Any, PlainValidator(field_validator(a))],
                 Field(default=None, validate_default=True, description=a.doc))
        for a in spec.args
    }
    validators: dict[str, Any] = {"cross_checks": model_validator(mode="after")(cross_checks)}
    return create_model(
        f"{spec.name}Args",
        __config__=ConfigDict(frozen=True, extra="forbid"),
        __validators__=validators,
        **fields,
    )


def _blank(value: object) -> bool:
    return value is None or isinstance(value, str) and not value.strip()


def validate(spec: FunctionSpec, values: tuple[object, ...]) -> dict[str, Any]:
    """Arguments as given -> canonical values by name; raises ArgumentError for the first problem."""
    from pydantic import ValidationError

    if len(values) > len(spec.args):
        raise ArgumentError(
            spec.name, f"takes at most {len(spec.args)} arguments ({', '.join(spec.arg_names)}), got {len(values)}"
        )
    given = dict(zip(spec.arg_names, values, strict=False))
    try:
        return dict(_model_for(spec).model_validate(given))
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        ctx = err.get("ctx") or {}
        if err["type"] == "rates_cross":
            raise ArgumentError(ctx["argument"], ctx["problem"]) from None
        argument = str(err["loc"][0]) if err.get("loc") else spec.name
        raise ArgumentError(argument, ctx.get("problem", err["msg"])) from None


def _prepare(spec: FunctionSpec, *values: object) -> Prepared | ArgumentError:
    try:
        checked = validate(spec, values)
    except ArgumentError as exc:
        return exc  # cached too: the same bad input is answered without validating again
    key: RequestKey | None = None
    keys: tuple[RequestKey, ...] = ()
    if spec.endpoint is not None:
        from rates_xl.client import RatesClient

        fanned = spec.fan_out.arg if spec.fan_out is not None else None
        params: dict[str, Any] = {str(a.param): checked[a.name] for a in spec.args
                                  if a.param and a.name != fanned and checked[a.name] is not None}
        if fanned is None:
            key = RatesClient.request_key(spec.endpoint, **params)
        else:
            param = next(a.param for a in spec.args if a.name == fanned)
            keys = tuple(RatesClient.request_key(spec.endpoint, **params, **{str(param): item})
                         for item in checked[fanned].items)
    return Prepared(key, bool(checked.get("headers", True)), checked, keys)


# Sized for large workbooks: each entry is a few hundred bytes, and a workbook with more
# distinct argument sets than this revalidates on every recalculation (~40 us a call).
_prepare_memo = functools.lru_cache(maxsize=32768, typed=True)(_prepare)


def prepare(spec: FunctionSpec, values: tuple[object, ...]) -> Prepared:
    """Validated request for these cell values (memoised); raises ArgumentError."""
    try:
        hash(values)
    except TypeError:  # a range (a list) was passed: memoised as tuples, or validated afresh
        frozen = tuple(_frozen(v) for v in values)
        try:
            prepared = _prepare_memo(spec, *frozen)
        except TypeError:  # something unhashable inside (a numpy array)
            prepared = _prepare(spec, *values)
    else:
        prepared = _prepare_memo(spec, *values)
    if isinstance(prepared, ArgumentError):
        # A fresh exception each time: re-raising the cached one would grow its traceback.
        raise ArgumentError(prepared.argument, prepared.problem)
    return prepared


def _frozen(value: object) -> object:
    """Lists (a range as xlwings or Office.js passes it) as tuples, so a memo can key them."""
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value


# -- 2. and 3. fetch and shape -------------------------------------------------------------------

def evaluate(spec: FunctionSpec, values: tuple[object, ...], context: CallContext = NOW) -> FunctionValue:
    """One worksheet call: its value, its spill, or its `#RATES!` message. Never raises.

    `context`: what the host knows of the call besides its arguments (functions/context.py:
    the book's valuation moment, a refresh's floor, the planning round, the pack recording
    it, the client answering it); the one way a setting reaches a call.
    """
    try:
        prepared = prepare(spec, values if context.valuation_time is None else context.pin(spec, values))
        client = context.client or get_client()
        # Excel waits on its main thread for every cell: the short budget, not the
        # headless `deadline` (fetch_many, which the calc and refresh use, keeps that).
        budget = client.settings.cell_deadline
        if not context.scoped:  # the common case: no scope to enter
            return _computed(spec, prepared, client, budget)
        with context.applied(client):
            return _computed(spec, prepared, client, budget)
    except Exception as exc:  # every failure is a cell message, never a traceback
        message = message_for(exc, _secret())
        from rates_xl.functions.errors import messages

        messages.noted(message)  # RATES_STATUS's "Last cell error"
        return message


def _computed(spec: FunctionSpec, prepared: Prepared, client: RatesClient, budget: float) -> FunctionValue:
    """The call's value from the client's answers (under the call's scopes)."""
    if spec.local is not None:
        return finite(spec.local(client, prepared.args))
    if spec.fan_out is not None:
        answers = _answers(client, prepared.keys, budget)
        return finite(spec.fan_out.shape(answers, prepared.args, prepared.headers))
    if spec.shape is None:  # (the table gives every function but a fan-out its shape)
        raise TypeError(f"{spec.name} has no shape")
    answer = client if prepared.key is None else client.get_key(prepared.key, deadline=budget)
    return finite(spec.shape(answer, prepared.headers))


T = TypeVar("T")


def finite(value: T) -> T:
    """`value` when every number in it is finite; else `NonFiniteNumber` (the cell's message).
    The one place a cell's value is checked, so no host shows `nan` or `inf`."""
    if isinstance(value, float) and math.isfinite(value):
        return value  # the warm cell's case, decided at once
    for row in value if isinstance(value, list) else ((value,),):
        for item in row if isinstance(row, list | tuple) else (row,):
            if isinstance(item, float) and not math.isfinite(item):
                from rates_xl.client.errors import NonFiniteNumber

                raise NonFiniteNumber(f"the value computed from the service's answer is {item}, not a finite number")
    return value


def _answers(client: RatesClient, keys: tuple[RequestKey, ...], budget: float) -> list[Result | str]:
    """A fan-out's answers, in order: each the answer, or the cell message of its failure.

    The requests are asked together (`fetch_many`: concurrently, each once, through the
    cache and the coalescing; its threads inherit the call's scopes), so a planning round
    records every one of them at once; any one not fetched yet makes the whole cell PENDING,
    never a grid with a hole."""
    from rates_xl.client.errors import NotFetched, RatesError

    outcomes: list[Result | RatesError]
    if len(keys) == 1:  # one tenor: no pool of threads for it
        try:
            outcomes = [client.get_key(keys[0], deadline=budget)]
        except RatesError as exc:
            outcomes = [exc]
    else:
        results = client.fetch_many(keys, deadline=budget)
        outcomes = [results[key] for key in keys]
    for outcome in outcomes:
        if isinstance(outcome, NotFetched):
            raise outcome
    secret = _secret()
    return [message_for(o, secret) if isinstance(o, BaseException) else o for o in outcomes]
