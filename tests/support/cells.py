"""Cells for tests and benchmarks: lists of cells, each `(function name, arguments)` exactly
as Excel would pass them to `FUNCTIONS[name].core(*arguments)`, formulas as a user types
them, and one good cell per function.

Every request is pinned to one past valuation time (a paid key may ask for it), so the
answers are the same in every run and every process.
"""

from __future__ import annotations

import random
from datetime import datetime

# A past business day: answers pinned to it are the same in every run and every process.
VALUATION_TIME = "2026-11-20T16:00:00Z"

Cell = tuple[str, tuple]

INDICES = ("SOFR", "ESTR", "SONIA", "3M EURIBOR", "6M EURIBOR")
_PINNED = datetime.fromisoformat(VALUATION_TIME.replace("Z", ""))  # a date-time cell (naive = UTC)


def distinct_cells(n: int, offset: int = 0) -> list[Cell]:
    """n cells that are n distinct service requests: swap rates, discount factors and
    forwards on five indices, one canonical spelling each (`offset` months on, another n)."""
    cells: list[Cell] = []
    month = offset
    while len(cells) < n:
        month += 1
        for index in INDICES:
            cells.append(("RATES_SWAP", (index, "0D", f"{month}M", "1Y", None, None, None, VALUATION_TIME)))
            cells.append(("RATES_DISCOUNT", (index, f"{month}M", VALUATION_TIME)))
            cells.append(("RATES_FORWARD", (index, f"{month}M", f"{month + 3}M", VALUATION_TIME)))
    return cells[:n]


def respell(cell: Cell, variant: int) -> Cell:
    """The same request as a person might type it differently in another cell: case, stray
    spaces, a date-time cell instead of ISO text. The client must see one request."""
    name, args = cell
    if variant == 0:
        return cell
    out = list(args)
    out[0] = [args[0].lower(), f" {args[0]} ", args[0].upper(), f"{args[0].lower()} "][variant % 4]
    for i, value in enumerate(args[1:], start=1):
        if isinstance(value, str) and value == VALUATION_TIME:
            out[i] = _PINNED if variant % 2 else f" {VALUATION_TIME} "
        elif isinstance(value, str) and value[:-1].isdigit():
            out[i] = [value.lower(), f" {value} ", value, f"{value.lower()} "][variant % 4]
    return name, tuple(out)


def duplicated(distinct: list[Cell], copies: int, seed: int = 7) -> list[Cell]:
    """Every request `copies` times, each copy spelled differently, in shuffled order."""
    cells = [respell(cell, v) for cell in distinct for v in range(copies)]
    random.Random(seed).shuffle(cells)
    return cells


def evaluate(cells: list[Cell], threads: int = 1) -> list:
    """Compute every cell through the worksheet functions (the shared client must be set)."""
    from rates_xl.functions import FUNCTIONS

    cores = {name: spec.core for name, spec in FUNCTIONS.items()}
    if threads <= 1:
        return [cores[name](*args) for name, args in cells]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(lambda cell: cores[cell[0]](*cell[1]), cells))


def is_message(value) -> bool:
    return isinstance(value, str) and value.startswith("#RATES!")


def distinct_formulas(n: int, valuation: str = VALUATION_TIME) -> list[str]:
    """n formulas that are n distinct requests: swap rates, discount factors and forwards."""
    out: list[str] = []
    month = 0
    while len(out) < n:
        month += 1
        for index in INDICES:
            out.append(f'=RATES_SWAP("{index}","2D","{month}M","1Y",,,,"{valuation}")')
            out.append(f'=RATES_DISCOUNT("{index}","{month}M","{valuation}")')
            out.append(f'=RATES_FORWARD("{index}","{month}M","{month + 3}M","{valuation}")')
    return out[:n]


# One good cell per function that calls the service (the reliability tests share it).
GOOD_CELLS: dict[str, tuple] = {
    "RATES_SWAP": ("SOFR", "0D", "5Y", "1Y"),
    "RATES_SWAPCURVE": ("6M EURIBOR",),
    "RATES_FORWARD": ("SOFR", "3M", "6M"),
    "RATES_FORWARDCURVE": ("SOFR", "0D", "1Y", "3M", "3M"),
    "RATES_DISCOUNT": ("SOFR", "1Y"),
    "RATES_DISCOUNTCURVE": ("SOFR", "0D", "1Y", "6M"),
    "RATES_FXSPOT": ("EURUSD",),
    "RATES_FXFORWARD": ("EURUSD",),
    "RATES_GOVYIELD": ("US", "10Y"),
    "RATES_FIXING": ("SOFR", "2026-11-20"),
    "RATES_SWAPHISTORY": ("SOFR", "5Y", "2026-11-16", "2026-11-20"),
    "RATES_TENORS": ("SOFR",),
}
