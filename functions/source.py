"""RATES_SOURCE(cell): where a RATES_* number came from (docs/market-data-pack.md).

Excel hands a worksheet function the cell's value, not its formula (the headless engines
and Office.js do the same), so the answer is found by value: among the answers rates-xl
holds now (the client's memory: what this book, or a replay of its pack, used), those whose
shaped value (`FunctionSpec.shape`, as the cell shows it, to the 15 significant digits a
worksheet keeps) holds the number. One answer: its request, valuation time, fetch time and
service. Several (a swap rate also on a curve): each is listed, never one picked. None: a
`#RATES!` line, never a guess.

Why a function rather than a cell note: a note is written once and goes stale when the cell
recalculates; the function recalculates with the cell, works the same in every host (the
classic add-in, Office.js, `rates-xl calc`), and its rows can be copied into an audit trail.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from rates_xl.functions.messages import PREFIX

#: How many matching answers are listed before "and N more".
MAX_LISTED = 5


def digits(value: Any) -> float:
    """A number to the 15 significant digits a worksheet keeps (an answer of
    3.4231945075208996 shows as 3.4231945075209)."""
    return float(f"{float(value):.15g}")


def shaped_numbers(spec: Any, answer: Any) -> set[float]:
    """The numbers a function shows for an answer (its one number, or every number of its table)."""
    shaped = spec.shape(answer, True)
    rows = shaped if isinstance(shaped, list) else [[shaped]]
    return {digits(v) for row in rows for v in row
            if isinstance(v, int | float) and not isinstance(v, bool)}


def explain(client: Any, args: dict[str, Any]) -> Any:
    """RATES_SOURCE's value: label and value rows for each answer holding the number."""
    from rates_xl.client.tiers import request_text
    from rates_xl.functions.table import FUNCTIONS

    value = digits(args["cell"])
    by_endpoint: dict[str, list[Any]] = {}
    for spec in FUNCTIONS.values():
        if spec.endpoint is not None:
            by_endpoint.setdefault(spec.endpoint, []).append(spec)
    found = []
    for key, entry in client.answers():
        if entry.error is not None:
            continue
        for spec in by_endpoint.get(key.endpoint, ()):
            try:
                held = shaped_numbers(spec, entry.value)
            except Exception:  # noqa: BLE001 - an answer this function cannot shape holds nothing
                continue
            if value in held:
                found.append((request_text(key), key, entry))
                break
    if not found:
        return (f"{PREFIX} cell: no answer rates-xl holds has the value {args['cell']:.15g}; "
                "RATES_SOURCE explains a number a RATES_* function returned (or a number of its table)")
    found.sort(key=lambda item: item[0])
    rows: list[list[Any]] = []
    if len(found) > 1:
        rows.append(["Answers holding it", f"{len(found)} (each listed: the value alone cannot tell them apart)"])
    for request, key, entry in found[:MAX_LISTED]:
        from rates_xl.client.pack import valued_at

        valued = valued_at(key, entry.value)
        rows += [["Request", request],
                 ["Valued at", _shown(valued) if valued else "not stated by the service"],
                 ["Fetched at", datetime.fromtimestamp(entry.fetched_at, UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
                  + " UTC"],
                 ["Service", client.base_url]]
    if len(found) > MAX_LISTED:
        rows.append(["...", f"and {len(found) - MAX_LISTED} more"])
    return rows


def _shown(moment: str) -> str:
    return moment.replace("T", " ").replace("Z", " UTC")
