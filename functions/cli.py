"""`rates-xl call ENDPOINT key=value ...`: one service answer as a table, its parameters
checked as a cell checks its arguments (the function table's coercers and names)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from rates_xl.client.endpoints import ENDPOINTS
from rates_xl.errors import CommandError, UsageError

if TYPE_CHECKING:
    from rates_xl.client.json_types import JSON
    from rates_xl.functions.core import FunctionSpec


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "call",
        help="call one endpoint and print its answer as a table",
        description="Call one service endpoint with the client (cache, limiter, retries) and "
        "print the answer. Endpoints: " + ", ".join(ENDPOINTS) + ". "
        "A NAME is the service's parameter or the worksheet function's argument (currency_pair "
        "or pair, country_code or country); values are checked as a cell checks them. "
        "historical_swap_rates also takes what RATES_SWAPHISTORY takes: several tenors "
        "(tenor=2Y,5Y,10Y), options=\"Per=M Fill=P\" (BDH's) and headers=FALSE, and then prints "
        "the grid the cell spills (waiting as a script does, RATES_DEADLINE, not a cell's "
        "RATES_CELL_DEADLINE). "
        "Example: rates-xl call swap_rate index=SOFR start_date=0D maturity_date=10Y "
        "fixed_leg_frequency=1Y",
    )
    parser.add_argument("endpoint", choices=sorted(ENDPOINTS), metavar="ENDPOINT")
    parser.add_argument("params", nargs="*", metavar="NAME=VALUE")
    parser.add_argument("--base-url", help="service root (default: RATES_BASE_URL or the public service)")
    parser.set_defaults(handler=run_call)


def parse_pairs(pairs: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"expected NAME=VALUE, got {pair!r}")
        params[name.strip()] = value
    return params


def request_params(endpoint: str, pairs: list[str]) -> dict[str, object]:
    """NAME=VALUE pairs -> the endpoint's parameters, checked as a cell checks its arguments.

    A name may be the service's (`currency_pair`) or the worksheet function's (`pair`); each
    value goes through the same coercer a cell's does (functions/args.py), so a bad value
    gets the message a cell would show, named as typed. Raises UsageError (exit 2).
    """
    from rates_xl.functions import args as coerce
    from rates_xl.functions.table import argument_aliases

    spec = ENDPOINTS[endpoint]
    aliases = argument_aliases(endpoint)
    given = parse_pairs(pairs)
    params: dict[str, object] = {}
    for name, text in given.items():
        param = name if name in spec.params else aliases.get(name)
        if param is None:
            also = f" (or {', '.join(aliases)})" if aliases else ""
            raise UsageError(f"{endpoint} takes {', '.join(spec.params)}{also}; not {name}")
        if param in params:
            raise UsageError(f"{name} and another spelling of it are both given")
        convert, _ = coerce.COERCERS[spec.params[param].value]
        try:
            params[param] = convert(coerce.scalar(text))
        except coerce.ArgProblem as problem:
            raise UsageError(f"{name}: {problem}") from None
    missing = [p for p in spec.required if p not in params]
    if missing:
        raise UsageError(f"{endpoint} needs {', '.join(missing)}")
    return params


def function_call(endpoint: str, pairs: list[str]) -> tuple[FunctionSpec, tuple[str | None, ...]] | None:
    """(the worksheet function, its cell values) when the pairs ask for what only the function
    does (a history's options or several tenors: `FunctionSpec.fan_out`), else None. Names may
    be the function's arguments or the service's parameters; values go in as a cell's would,
    and the function's own validation names a bad one (CommandError, one line)."""
    from rates_xl.functions.table import FUNCTIONS

    spec = next((s for s in FUNCTIONS.values() if s.endpoint == endpoint and s.fan_out is not None), None)
    if spec is None or spec.fan_out is None:
        return None
    given = parse_pairs(pairs)
    by_param = {a.param: a.name for a in spec.args if a.param}
    fan_arg = spec.fan_out.arg
    fan_param = next(a.param for a in spec.args if a.name == fan_arg)
    fanned = given.get(fan_arg) or (given.get(fan_param) if fan_param else None) or ""
    local = {a.name for a in spec.args if a.param is None}
    if not (local & set(given)) and not any(sep in fanned for sep in ",;"):
        return None  # one request, as the service answers it
    values: dict[str, str] = {}
    for name, text in given.items():
        arg = name if name in spec.arg_names else by_param.get(name)
        if arg is None:
            raise UsageError(f"{endpoint} takes {', '.join(spec.arg_names)} (or {', '.join(by_param)}); not {name}")
        if arg in values:
            raise UsageError(f"{name} and another spelling of it are both given")
        values[arg] = text
    return spec, tuple(values.get(name) for name in spec.arg_names)


def run_grid(spec: FunctionSpec, values: tuple[object, ...], base_url: str | None) -> int:
    """The function's answer, computed as a cell computes it, printed as its spill."""
    from datetime import date

    from rich.console import Console
    from rich.table import Table

    from rates_xl.client import RatesClient
    from rates_xl.client.settings import load_settings
    from rates_xl.functions import using_client
    from rates_xl.functions.core import prepare
    from rates_xl.functions.messages import PREFIX, ArgumentError, is_message

    try:
        prepare(spec, values)  # bad input is the user's to fix, before any client or request
    except ArgumentError as exc:
        raise UsageError(f"{exc.argument}: {exc.problem}") from None
    # The cell's own code, with the command line's budget: a cell's `cell_deadline` (4 s) is
    # Excel's main thread's, and a command waits as a script does (`deadline`), so a slow
    # service prints the grid late rather than a grid of "no answer" messages.
    deadline = load_settings(base_url=base_url).deadline
    with RatesClient(base_url=base_url, cell_deadline=deadline) as client, using_client(client):
        answer = spec.core(*values)
    if is_message(answer):
        raise CommandError(answer.removeprefix(PREFIX).strip())
    if not isinstance(answer, list) or not answer:
        raise CommandError(f"{spec.name} gave no table")

    def text(value: object) -> str:
        return value.isoformat() if isinstance(value, date) else "" if value is None else str(value)

    from rates_xl.functions.args import boolean

    headers = values[spec.arg_names.index("headers")] if "headers" in spec.arg_names else None
    shown = headers is None or boolean(headers)  # the core checked it: a message otherwise
    table = Table(title=spec.name, show_header=shown)
    for i, name in enumerate(answer[0] if shown else range(len(answer[0]))):
        table.add_column(text(name) if shown else f"{i + 1}")
    for row in answer[1:] if shown else answer:
        table.add_row(*(text(v) for v in row))
    Console().print(table)
    return 0


def run_call(args: argparse.Namespace) -> int:
    import time

    from rich.console import Console
    from rich.table import Table

    from rates_xl.client import RatesClient
    from rates_xl.client.errors import NetworkDown, ServiceUnavailable
    from rates_xl.client.settings import base_url_problem

    if args.base_url is not None and (problem := base_url_problem(args.base_url)):
        raise UsageError(f"--base-url: {problem}")
    grid = function_call(args.endpoint, args.params)
    if grid is not None:
        return run_grid(*grid, args.base_url)
    params = request_params(args.endpoint, args.params)
    with RatesClient(base_url=args.base_url) as client:
        started = time.monotonic()
        try:
            result = client.get(args.endpoint, **params)
        except ServiceUnavailable as exc:
            if isinstance(exc, NetworkDown) or exc.status is not None:
                raise
            # The client's message names the last attempt's timeout; the user waited for
            # every attempt: say how long in all, and which setting bounds it.
            waited = time.monotonic() - started
            sent = client.stats()["requests_sent"]
            raise CommandError(
                f"{exc}; gave up after {waited:.1f} s and {sent} attempt{'s' if sent != 1 else ''} "
                f"(RATES_DEADLINE={client.settings.deadline:g} s bounds the wait, RATES_TIMEOUT="
                f"{client.settings.timeout:g} s each attempt)") from None
    data: JSON = result.model_dump(mode="json", by_alias=True)
    console = Console()
    scalars = Table(title=f"{args.endpoint}", show_header=True)
    scalars.add_column("field")
    scalars.add_column("value")
    rows: list[JSON] = []
    for name, value in data.items():
        if isinstance(value, list):
            rows = [v if isinstance(v, dict) else {name: v} for v in value]
        else:
            scalars.add_row(name, "" if value is None else str(value))
    console.print(scalars)
    if rows:
        table = Table(show_header=True)
        columns = list(rows[0])
        for column in columns:
            table.add_column(column)
        for row in rows:
            table.add_row(*(str(row.get(c, "")) for c in columns))
        console.print(table)
    return 0
