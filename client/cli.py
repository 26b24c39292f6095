"""`rates-xl call ENDPOINT key=value ...`: one service answer as a table."""

from __future__ import annotations

import argparse
from typing import Any

from rates_xl.client.endpoints import ENDPOINTS


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "call",
        help="call one endpoint and print its answer as a table",
        description="Call one service endpoint with the client (cache, limiter, retries) and "
        "print the answer. Endpoints: " + ", ".join(ENDPOINTS) + ". "
        "Example: rates-xl call swap_rate index=SOFR start_date=0D maturity_date=10Y "
        "fixed_leg_frequency=1Y",
    )
    parser.add_argument("endpoint", choices=sorted(ENDPOINTS), metavar="ENDPOINT")
    parser.add_argument("params", nargs="*", metavar="NAME=VALUE")
    parser.add_argument("--base-url", help="service root (default: RATES_BASE_URL or the public service)")
    parser.set_defaults(handler=run_call)


def parse_pairs(pairs: list[str]) -> dict[str, str]:
    from rates_xl.cli import CommandError

    params: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise CommandError(f"expected NAME=VALUE, got {pair!r}")
        params[name.strip()] = value
    return params


def run_call(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from rates_xl.cli import CommandError
    from rates_xl.client import RatesClient

    params = parse_pairs(args.params)
    spec = ENDPOINTS[args.endpoint]
    unknown = sorted(set(params) - set(spec.params))
    if unknown:
        raise CommandError(
            f"{args.endpoint} takes {', '.join(spec.params)}; not {', '.join(unknown)}"
        )
    missing = [p for p in spec.required if p not in params]
    if missing:
        raise CommandError(f"{args.endpoint} needs {', '.join(missing)}")
    with RatesClient(base_url=args.base_url) as client:
        result = client.get(args.endpoint, **params)
    data = result.model_dump(mode="json", by_alias=True)
    console = Console()
    scalars = Table(title=f"{args.endpoint}", show_header=True)
    scalars.add_column("field")
    scalars.add_column("value")
    rows: list[dict[str, Any]] = []
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
