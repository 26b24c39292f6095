"""What every benchmark shares: the machine, medians over runs, a printed table, a JSON file.

The interface between `python -m bench` and each benchmark module is one function,
`run(runs: int) -> dict`, returning a result made by `result(...)`: a title, a list of
figures (each the values of every run, their median, a unit and an optional target) and
notes. `report(...)` prints it as a table and writes it to bench/results/<name>.json.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

RESULTS_DIR = Path(__file__).resolve().parent / "results"


def machine() -> dict[str, Any]:
    """CPU model, cores, Python and platform: quoted beside every figure."""
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cpu": cpu,
        "cores": cores,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(terse=True),
    }


def figure(metric: str, values: Sequence[float], unit: str = "", *, target: float | None = None,
           better: str = "lower", digits: int = 3) -> dict[str, Any]:
    """One measured quantity: every run's value and their median, against an optional target.

    `better` is "lower" (target is a ceiling), "higher" (a floor) or "equal".
    """
    values = [float(v) for v in values]
    median = statistics.median(values) if values else float("nan")
    met = None
    if target is not None and values:
        if better == "lower":
            met = median <= target
        elif better == "higher":
            met = median >= target
        else:
            met = abs(median - target) < 1e-9
    return {
        "metric": metric, "unit": unit, "median": round(median, digits),
        "values": [round(v, digits) for v in values], "min": round(min(values), digits) if values else None,
        "max": round(max(values), digits) if values else None, "target": target,
        "better": better, "met": met,
    }


def result(name: str, title: str, figures: list[dict[str, Any]], *, runs: int,
           setup: dict[str, Any] | None = None, notes: Sequence[str] = ()) -> dict[str, Any]:
    return {
        "name": name, "title": title, "runs": runs, "figures": figures,
        "setup": setup or {}, "notes": list(notes),
    }


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    value = fn()
    return time.perf_counter() - started, value


def write_json(res: dict[str, Any], directory: Path = RESULTS_DIR) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    payload = {**res, "machine": machine(), "when": datetime.now(UTC).isoformat(timespec="seconds")}
    path = directory / f"{res['name']}.json"
    path.write_text(json.dumps(payload, indent=2, default=str) + "\n")
    return path


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:,.3f}".rstrip("0").rstrip(".") if abs(value) < 1e6 else f"{value:,.0f}"
    return str(value)


def print_table(res: dict[str, Any]) -> None:
    """The result as a rich table: metric, median, range over runs, target, met."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{res['title']}  (median of {res['runs']} runs)", title_justify="left")
    for column, justify in (("metric", "left"), ("median", "right"), ("runs min..max", "right"),
                            ("unit", "left"), ("target", "right"), ("met", "center")):
        table.add_column(column, justify=justify)
    for fig in res["figures"]:
        met = {True: "[green]yes[/]", False: "[red]NO[/]", None: ""}[fig.get("met")]
        sign = {"lower": "<= ", "higher": ">= ", "equal": "= "}.get(fig.get("better", "lower"), "")
        target = "" if fig.get("target") is None else sign + _fmt(fig["target"])
        spread = "" if fig.get("min") is None else f"{_fmt(fig['min'])}..{_fmt(fig['max'])}"
        table.add_row(fig["metric"], _fmt(fig.get("median")), spread, fig.get("unit", ""),
                      target, met)
    console = Console()
    if not console.is_terminal:  # piped to a file: do not wrap at 80 columns
        console = Console(width=130)
    console.print(table)
    for note in res.get("notes", []):
        console.print(f"  note: {note}", highlight=False)


def report(res: dict[str, Any]) -> Path:
    print_table(res)
    path = write_json(res)
    print(f"  wrote {path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path}")
    return path


def main_for(run: Callable[[int], dict[str, Any]], default_runs: int) -> None:
    """`python -m bench.<name> [runs]`: one benchmark on its own."""
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else default_runs
    report(run(runs))
