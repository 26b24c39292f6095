"""The error cells of a calculation (`listed`): every cell whose value is one of Excel's errors
or a #RATES! message, in sheet order, each with what the summary says of it: why a spill's
anchor shows #SPILL!, and the message a failing RATES_ cell's call answered (its value is
#VALUE! or #N/A, as in Excel: issue 28).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from operator import itemgetter
from typing import TYPE_CHECKING

from rates_xl.calc import merged_spills
from rates_xl.calc.results import ErrorCell, listed_error
from rates_xl.functions.messages import PREFIX
from rates_xl.functions.sheet import Area, Key, parse_cell
from rates_xl.functions.values import ERRORS, CellValue, StoredValue

if TYPE_CHECKING:
    from openpyxl import Workbook
    from openpyxl.worksheet.worksheet import Worksheet

    from rates_xl.calc.engines import Engine

#: What a formula calling a RATES_* function holds: the name in either spelling (RATES_SWAP,
#: RATES.SWAP, perhaps after _xludf.) and its "(" (rates_calls reads a call only from a
#: function's token, `name(`; every name of the table and former name is RATES_ and letters
#: or digits). Not bare "RATES": the engine's copy `book` holds the preparation's rewritten
#: formulas, and its own functions are RATESXL.* (RATESXL.CMPROUND around formulas_test's
#: comparisons: 2,579 of its error cells were tokenized for nothing); nor "RATES_" alone: its
#: LET names are _rates_xl_cse ... (207 more of them, 0.005 s).
NAMES_A_SERVICE_CALL = re.compile(r"RATES[._]\w+\(", re.IGNORECASE)

#: Why a cell shows #SPILL! (Microsoft: "#SPILL! error - Spill range isn't blank").
SPILL_BLOCKED = "the table does not fit: a cell in the range it spills into is not empty; clear it"
_ERROR_VALUES = frozenset(ERRORS)
_NEW = object.__new__


def listed(book: Workbook, engine: Engine, spills: Mapping[Key, object],
           values: dict[Key, CellValue]) -> list[ErrorCell]:
    """The error cells among `values` (the engine's answer for `book`; `spills`: the spills the
    file stored), by sheet and place."""
    from rates_xl.functions import errors

    order = {title: i for i, title in enumerate(book.sheetnames)}
    # A message is the one a RATES_* call answered (`_call_message`): when none answered one,
    # no cell has one, and the error cells' formulas are not read (formulas_test: 10,618 error
    # cells, 0.018 of its CPU seconds).
    messages = _Messages(book, engine, values) if len(errors.calls) else None
    found = []
    for (sheet, cell), v in values.items():
        if v.__class__ is str:  # (`listed_error` of a plain str, without its calls: most errors)
            if v not in _ERROR_VALUES and not v.startswith(PREFIX):
                continue
        elif not (isinstance(v, str) and listed_error(v)):  # (most values are numbers)
            continue
        place = parse_cell(cell)
        if v == "#SPILL!" and (sheet, cell) in spills:
            message = spill_message(engine, (sheet, cell))
        else:
            message = messages.of(sheet, cell, place) if messages is not None else ""
        found.append(((order.get(sheet, 0), *place), _error_cell(sheet, cell, str(v), message)))
    found.sort(key=itemgetter(0))  # (by sheet and place; the values' order among equals, as before)
    return [error for _, error in found]


def _error_cell(sheet: str, cell: str, value: str, message: str) -> ErrorCell:
    """`ErrorCell(sheet, cell, value, message)`, its fields set as its frozen `__init__` sets
    them (one `object.__setattr__` each: a third of `listed`'s time on formulas_test's 10,618
    error cells), without the calls; tests/calc/test_error_cells.py holds the two equal."""
    made = _NEW(ErrorCell)
    fields = made.__dict__
    fields["sheet"], fields["cell"], fields["value"], fields["message"] = sheet, cell, value, message
    return made


def spill_message(engine: Engine, key: Key) -> str:
    """Why a spill's anchor shows #SPILL!: merged cells in its way (named), else a cell that is
    not empty (a cell that reads the anchor shows its #SPILL! without being one)."""
    merged = engine.blocked.get(key)
    return merged_spills.message(merged) if merged is not None else SPILL_BLOCKED


class _Messages:
    """The messages of failing RATES_ cells, from their formulas' calls."""

    def __init__(self, book: Workbook, engine: Engine, values: dict[Key, CellValue]) -> None:
        self.book, self.values = book, values
        # By title without openpyxl's `book[title]`, which walks every sheet's title each time.
        self.sheets: dict[str, Worksheet] = {ws.title: ws for ws in book.worksheets}
        # The engine's spills by sheet, in its order: where `of` finds a spilled cell's anchor.
        self.spills: dict[str, list[tuple[Key, Area]]] = {}
        for key, area in engine.extents.items():
            self.spills.setdefault(key[0], []).append((key, area))

    def of(self, sheet: str, cell: str, place: tuple[int, int]) -> str:
        """The message of a failing RATES_ cell (at `place`, its (row, column)): its formula's
        call, its arguments read as the engine passed them, looked up among the calls the
        calculation answered with a message."""
        try:
            ws = self.sheets[sheet]
            # openpyxl's `ws[cell]` without parsing the address again: it adds a cell not there.
            target = ws._cells.get(place)
            formula: object = (target if target is not None else ws.cell(*place)).value
            formula = getattr(formula, "text", formula)  # an array formula's text
            if not (isinstance(formula, str) and formula.startswith("=")):
                # A cell of a spill (a history grid's failed column): its anchor's call.
                row, col = place
                anchor = next((key for key, area in self.spills.get(sheet, ()) if key[1] != cell
                               and area.top <= row <= area.bottom and area.left <= col <= area.right), None)
                if anchor is None:
                    return ""
                return self.of(anchor[0], anchor[1], parse_cell(anchor[1]))
        except (KeyError, ValueError):
            return ""
        if not NAMES_A_SERVICE_CALL.search(formula):
            # No RATES_* call in its text (every name of the table starts so, as do its
            # former names): rates_calls would find none, and tokenizing each error cell's
            # formula cost formulas_test (10,909 error cells) about a tenth of its run.
            return ""
        return self._call_message(sheet, formula)

    def _call_message(self, sheet: str, formula: str) -> str:
        """The message the calculation answered for a call of `formula` (on `sheet`), or ""."""
        from rates_xl.functions import errors
        from rates_xl.functions.link import Unlinked, argument_value, rates_calls

        values = self.values

        def value_of(at: str, ref: str) -> StoredValue:
            return values[(at, ref)] if (at, ref) in values else self.book[at][ref].value

        try:
            for name, texts in rates_calls(formula):
                message = errors.calls.of(name, [argument_value(x, sheet, value_of) for x in texts])
                if message:
                    return errors.without_prefix(message)
        except (Unlinked, KeyError, ValueError):
            return ""
        return ""
