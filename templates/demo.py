"""`rates-xl demo`: every template computed against an in-process sandbox, no key, no network.

The sandbox starts on a free loopback port with its built-in paid key; the worksheet
functions' shared client is pointed at it for the run and restored afterwards.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rates_xl.calc.results import CalcResult
from rates_xl.calc.workbook import WorkbookCalculation
from rates_xl.templates import TEMPLATES, template_path

#: The headline numbers: (label, template, defined name, unit, format).
HEADLINES = [
    ("10Y SOFR swap rate", "curve_dashboard", "sofr_10y", "%", "{:.4f}"),
    ("Swap pricer NPV (10Y SOFR, pay 3.5 % on 10m)", "swap_pricer", "npv", "USD", "{:,.2f}"),
    ("Swap pricer par rate", "swap_pricer", "par_rate", "%", "{:.6f}"),
    ("RATES_SWAP for the same swap", "swap_pricer", "swap_rate_check", "%", "{:.6f}"),
    ("EURUSD 1Y forward", "fx_hedging", "forward_1y", "USD per EUR", "{:.5f}"),
    ("US 10Y swap spread (SOFR - Treasury zero)", "swap_spreads", "us_10y_spread", "bp", "{:.2f}"),
]


@dataclass
class DemoRun:
    out_dir: Path
    results: dict[str, CalcResult]
    files: dict[str, Path]
    headlines: list[tuple[str, Any, str, str]]  # label, value, unit, format
    seconds: float
    stats: dict[str, Any]


@contextlib.contextmanager
def sandbox_client(**knobs: Any) -> Iterator[Any]:
    """A sandbox on a free loopback port and a client on it with the paid key, installed as
    the worksheet functions' shared client for the duration."""
    from rates_xl.client import RatesClient
    from rates_xl.functions import using_client
    from rates_xl.sandbox import PAID_KEY
    from rates_xl.sandbox.server import start_in_thread

    with (start_in_thread(host="127.0.0.1", port=0, **knobs) as running,
          RatesClient(running.base_url, api_key=PAID_KEY, persistent=False) as client,
          using_client(client)):
        yield client


def run_demo(out_dir: str | os.PathLike[str] = "rates-demo", *, client: Any = None,
             on_template: Callable[[str], Any] | None = None,
             on_fetch: Callable[..., Any] | None = None) -> DemoRun:
    """Compute every template into `out_dir` (its files are replaced); with `client` None a
    sandbox is started for the run."""
    if client is None:
        with sandbox_client() as sandbox:
            return run_demo(out_dir, client=sandbox, on_template=on_template, on_fetch=on_fetch)
    started = time.perf_counter()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results, files, calcs = {}, {}, {}
    for name in TEMPLATES:
        if on_template is not None:
            on_template(name)
        calc = WorkbookCalculation(template_path(name))
        result = calc.compute(client, on_fetch=on_fetch)
        files[name] = calc.freeze(result, out / f"{name}.xlsx", force=True)
        results[name], calcs[name] = result, calc
    headlines = []
    for label, name, defined, unit, fmt in HEADLINES:
        headlines.append((label, calcs[name].named(results[name], defined), unit, fmt))
    return DemoRun(out, results, files, headlines, time.perf_counter() - started, client.stats())
