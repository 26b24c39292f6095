"""RATES_SOURCE in `rates-xl calc`: the engine passes the referenced cell's own call.

A worksheet function receives a cell's value, and a value may be held by several answers.
Before the fast engine reads the book, each `RATES_SOURCE(B7)` is rewritten (the pass
`rates_source`, calc/formula/calls.py) into
`RATES_SOURCE_OF(B7, "Rates!B7", 4, "RATES_SWAP", Rates!A1, "0D", Rates!A2, "1Y")`: B7's
RATES_* calls (the anchor's, when B7 is inside a spill), each as its argument count, name
and argument expressions with their references qualified by B7's sheet. The engine then
evaluates those arguments exactly as B7's call did, and `source_of` checks them into the
request (`functions/link.requests_for`, the cell's own validation, at the book's pinned
moment) and explains the answer held for that request (`functions/source.py`).

`RATES_SOURCE_OF` is registered only in the engines (`calc/engines/rates.function_table`); B7 stays
its first argument, so the engine computes B7 (and fetches its answer) first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rates_xl.functions.messages import PREFIX
from rates_xl.functions.sheet import Area, Key, cell_reference, parse_cell
from rates_xl.functions.values import FunctionValue

NAME = "RATES_SOURCE_OF"


@dataclass(frozen=True)
class InternalFunction:
    """A calc-only function the engines register beside the function table's."""

    name: str
    core: Callable[..., FunctionValue] = field(repr=False)
    result: str = "rows"
    arg_names: tuple[str, ...] = ()
    #: It takes `date1904=True` in a book counting dates from 1904 (its arguments' serials are
    #: that system's: functions/date_system.py).
    reads_dates: bool = False


def source_of(value: object, where: object = None, *calls_made: object,
              date1904: bool = False) -> str | list[list[str]]:
    """RATES_SOURCE_OF's value: the answer held for each request the referenced cell made.

    The arguments as the engine hands a UDF any (calc/engines/rates.py): `value`, the
    referenced cell's, is not read (it is the first argument so that the engine computes the
    cell first); `where` and `calls_made` are as `encoded` wrote them, a date given as a number
    the book's serial (`date1904`: counted from 1904), as the cell's own call read it."""
    from rates_xl.calc.engines import rates
    from rates_xl.functions import get_client
    from rates_xl.functions.link import Unlinked, requests_for
    from rates_xl.functions.source import explain_requests

    calls, items = [], list(calls_made)
    if items and isinstance(items[0], str):  # no call: the reason, as the rewrite wrote it
        return f"{PREFIX} cell: {where}: {items[0]}"[:254]
    try:
        while items:
            if not isinstance(items[0], int | float | str):  # empty, or an array: not a count
                raise TypeError(items[0])
            count, name = int(items[0]), str(items[1])
            calls += requests_for(name, items[2:2 + count], rates.context().valuation_time, date1904)
            items = items[2 + count:]
    except Unlinked as exc:
        return f"{PREFIX} cell: {where}: {exc}"[:254]
    except (IndexError, TypeError, ValueError):
        return f"{PREFIX} cell: {where}: RATES_SOURCE_OF is written by rates-xl calc, not by hand"
    return explain_requests(rates.context().client or get_client(), str(where), calls)


FUNCTION = InternalFunction(NAME, source_of, reads_dates=True)


def encoded(argument: str, sheet: str, target: Targets) -> str:
    """The arguments after the cell: where, then each call's count, name and arguments."""
    from rates_xl.calc.formula.calls import qualify
    from rates_xl.calc.formula.tree import Formula
    from rates_xl.functions.link import Unlinked, rates_calls
    from rates_xl.functions.sheet import address

    found = cell_reference(argument)
    if found is not None:
        at, cell = found[0] or sheet, found[1]
        key = target.anchor(at, cell)
        where = address(target.title(at), cell)
        if key is None:
            return f"{_text(where)}, {_text('holds no formula: RATES_SOURCE explains a RATES_* cell')}"
        original = target.formula(key)
        formula = qualify(Formula(original), key[0])
    elif rates_calls(argument if argument.startswith("=") else "=" + argument):
        where, formula = "its argument", "=" + argument.lstrip("=")
        original = formula
    else:
        return f"{_text(argument)}, {_text('is not a cell: RATES_SOURCE explains a RATES_* cell, e.g. =RATES_SOURCE(B7)')}"
    try:
        calls = rates_calls(formula)
    except Unlinked as exc:
        return f"{_text(where)}, {_text(str(exc))}"
    if not calls:
        shown = original if len(original) <= 120 else original[:117] + "..."
        return f"{_text(where)}, {_text(f'{shown} calls no RATES_* function that asks the service')}"
    parts = [_text(where)]
    for name, texts in calls:
        parts += [str(len(texts)), _text(name), *(t if t else '""' for t in texts)]
    return ", ".join(parts)


def _text(value: str) -> str:
    return '"' + value.replace('"', '""') + '"'


class Targets:
    """Which formula a referenced cell shows: its own, or the spill anchor's covering it."""

    def __init__(self, cells: dict[Key, tuple[str, Area]], titles: dict[str, str]) -> None:
        self.cells, self.titles = cells, titles
        self._areas = [(key, area) for key, (_text, area) in cells.items() if area[0] != area[2] or area[1] != area[3]]

    def title(self, sheet: str) -> str:
        return self.titles.get(sheet.upper(), sheet)

    def anchor(self, sheet: str, cell: str) -> Key | None:
        key = (self.title(sheet), cell)
        if key in self.cells:
            return key
        row, col = parse_cell(cell)
        for (at, anchor), (r1, c1, r2, c2) in self._areas:
            if at == key[0] and r1 <= row <= r2 and c1 <= col <= c2:
                return at, anchor
        return None

    def formula(self, key: Key) -> str:
        return self.cells[key][0]
