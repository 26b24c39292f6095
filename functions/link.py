"""Which requests a RATES_* cell made, from its formula: the link RATES_SOURCE and
`rates-xl diff` follow (docs/market-data-pack.md).

A cell's value alone cannot tell which answer it came from (a swap rate may also sit on a
curve), so the link is made from the formula: each RATES_* call in it, its arguments read
as the cell reads them (a literal, or the value of the cell a reference points at), checked
by the same validation a cell uses (`core.prepare`) into the request the caches key it by.
An argument may be an expression over cells and defined names, and only the branch of an
IF that the cell takes makes its calls (`formula_walk.py`); what cannot be evaluated there
(a lookup, a range) is said (`Unlinked`), never a guess.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rates_xl.errors import InputError
from rates_xl.functions.sheet import cell_reference

if TYPE_CHECKING:
    from rates_xl.client.client import RequestKey


class Unlinked(InputError):
    """A call whose request cannot be read from the formula: the message says why."""


def rates_calls(formula: str) -> list[tuple[str, list[str]]]:
    """Each RATES_* call that makes a request in `formula`: (its name, its argument texts)."""
    from rates_xl.functions.table import FORMER_NAMES, FUNCTIONS
    from rates_xl.functions.tokens import FormulaError, tokenize

    text = formula if formula.startswith("=") else "=" + formula
    try:
        tokens = tokenize(text)  # offsets in characters (the one tokenizer, functions/tokens.py)
    except FormulaError as exc:  # the tokenizer's own error: one line, never a traceback
        raise Unlinked(f"cannot read the formula {formula}: {exc}") from None
    frames: list[list[Any]] = []  # [name, start of the current argument, argument texts]
    found = []
    for token in tokens:
        kind, sub = token.kind, token.sub
        if sub == "Open" and kind in ("Func", "Paren"):
            name = token.text[:-1].upper().removeprefix("_XLFN.").removeprefix("_XLUDF.")
            name = FORMER_NAMES.get(name, name.replace(".", "_", 1))
            frames.append([name if kind == "Func" else None, token.end, []])
        elif kind == "Sep" and sub == "Arg" and frames:
            frames[-1][2].append(text[frames[-1][1]:token.start].strip())
            frames[-1][1] = token.end
        elif sub == "Close" and kind in ("Func", "Paren") and frames:
            name, start, args = frames.pop()
            last = text[start:token.start].strip()
            if args or last:
                args.append(last)
            if name in FUNCTIONS and FUNCTIONS[name].endpoint is not None:
                found.append((name, args))
    return found


def argument_value(text: str, sheet: str, value_of: Callable[[str, str], object]) -> object:
    """What a cell passes for one argument text: a literal, or the referenced cell's value."""
    if text == "":
        return None
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1].replace('""', '"')
    if text.upper() in ("TRUE", "FALSE"):
        return text.upper() == "TRUE"
    try:
        return float(text)
    except ValueError:
        pass
    found = cell_reference(text)
    if found is None:
        raise Unlinked(f"its argument {text} is an expression or a name, not read here")
    where, cell = found
    return value_of(where or sheet, cell)


def requests_of(formula: str, sheet: str, value_of: Callable[[str, str], object],
                pinned: datetime | str | None = None,
                name_value: Callable[[str, str], object] | None = None,
                date1904: bool = False) -> list[RequestKey]:
    """The RequestKeys the RATES_* calls of `formula` (on `sheet`) make, reading referenced
    cells with `value_of(sheet, "B7")` and defined names with `name_value(sheet, name)` (none:
    a name is not read); `pinned`: the book's valuation moment, given where a call leaves
    valuation_time empty (as the hosts do); `date1904`: the book counts dates from 1904, so a
    date given as a number is its serial there. `Unlinked` when one cannot be read.

    The formula is evaluated as Excel would to the extent the calls need it
    (`functions/formula_walk.py`): only the branch of an IF (IFS, IFERROR, IFNA, CHOOSE) that
    is taken makes its calls, and an argument may be an expression over cells and names."""
    from rates_xl.functions.formula_walk import calls_made

    calls = calls_made(formula, sheet, value_of, name_value)
    if calls is None:
        raise Unlinked(f"{formula} calls no RATES_* function that asks the service")
    keys = []
    for name, values in calls:
        keys += requests_for(name, values, pinned, date1904)
    return keys


def requests_for(name: str, values: list[object], pinned: datetime | str | None = None,
                 date1904: bool = False) -> list[RequestKey]:
    """The RequestKeys of one call with these argument values (one, or one per tenor of a
    history grid), `valuation_time` given the pinned moment where the call leaves it empty
    (as every host does for the cell); in a book counting dates from 1904 (`date1904`), a date
    given as a number moved onto the 1900 system, as the cell's own call was
    (functions/date_system.py)."""
    from rates_xl.functions import date_system
    from rates_xl.functions.context import pin
    from rates_xl.functions.core import prepare
    from rates_xl.functions.messages import ArgumentError
    from rates_xl.functions.table import FUNCTIONS

    spec = FUNCTIONS[name]
    if date1904:
        values = date_system.onto_1900(values, date_system.date_arguments(spec))
    try:
        return list(prepare(spec, pin(spec, tuple(values), pinned)).requests)
    except ArgumentError as exc:
        raise Unlinked(f"its call {name} has a bad argument ({exc})") from None


__all__ = ["Unlinked", "rates_calls", "argument_value", "requests_of", "requests_for"]
