"""RATES_SOURCE in the classic add-in: the cell itself, not its value.

xlwings hands RATES_SOURCE's argument over as a Range (`@xw.arg("cell", "range")`, set in
udfs.py from `REFERENCE_ARGS`), so the cell's formula is read and its RATES_* calls are
followed to the exact requests they made (`functions/link.py`, with the referenced cells
read from the workbook and the book's pinned valuation moment), never matched by value.
"""

from __future__ import annotations

from typing import Any

from rates_xl.addin.classic import valuation
from rates_xl.functions.messages import PREFIX
from rates_xl.functions.source import (
    REFERENCE_ARGS as REFERENCE_ARGS,  # xlwings passes these as a Range
)


def explain(cell: Any, client: Any = None) -> Any:
    """RATES_SOURCE of `cell` (a Range), from `client`'s answers (a book under a scenario:
    its replaying client; None: the shared one)."""
    from rates_xl.functions.core import get_client
    from rates_xl.functions.source import explain_formula

    if not hasattr(cell, "formula") or not hasattr(cell, "sheet"):
        # A value (RATES_SOURCE(RATES_SWAP(...)) or a constant): no formula to follow.
        return (f"{PREFIX} cell: RATES_SOURCE needs a cell holding a RATES_* formula, "
                "e.g. =RATES_SOURCE(B7)")
    try:
        sheet = cell.sheet
        book = sheet.book
        formula = cell.formula
        formula = formula[0] if isinstance(formula, list) else formula  # the first cell of a block
        formula = formula[0] if isinstance(formula, list) else formula
        where = f"{sheet.name}!{str(cell.address).split(':')[0].replace('$', '')}"
        if not (isinstance(formula, str) and formula.startswith("=")):
            formula = _spill_parent_formula(cell)
        if not (isinstance(formula, str) and formula.startswith("=")):
            return f"{PREFIX} cell: {where} holds no formula: RATES_SOURCE explains a RATES_* cell"[:254]
        pinned = valuation.pinned(book.name) or valuation.read_name(book)

        def value_of(sheet_name: str, ref: str) -> Any:
            return book.sheets[sheet_name].range(ref).value

        # A referenced cell's date comes as the day itself (a date cell: Range.Value) or as the
        # book's serial (functions/date_system.py): Workbook.Date1904 says which system.
        date1904 = bool(book.api.Date1904)
        return explain_formula(client or get_client(), where, formula, sheet.name, value_of, pinned, date1904)
    except Exception as exc:  # noqa: BLE001 - a cell message, never a traceback
        return f"{PREFIX} cell: cannot read the cell ({type(exc).__name__})"


def _spill_parent_formula(cell: Any) -> Any:
    """The formula of the spill a cell of a table is in (Range.SpillParent), else None."""
    try:
        return cell.api.SpillParent.Formula2
    except Exception:  # not in a spill (Excel raises), or an Excel without dynamic arrays
        return None


def error_of(cell: Any) -> Any:
    """RATES_ERROR in the classic add-in: the message of the cell's last calculation, kept by
    the UDFs per cell (functions/errors.py); "" when the cell answered a value."""
    from rates_xl.functions.errors import messages, without_prefix

    if not hasattr(cell, "sheet"):
        return f"{PREFIX} cell: RATES_ERROR needs a cell holding a RATES_* formula, e.g. =RATES_ERROR(B7)"
    try:
        sheet = cell.sheet
        address = str(cell.address).split(":")[0]
        message = messages.of(sheet.book.name, sheet.name, address)
        if message is None:
            parent = _spill_parent_address(cell)  # a cell of a spilled table: its anchor's
            message = messages.of(sheet.book.name, sheet.name, parent) if parent else None
        return without_prefix(message) if message else ""
    except Exception as exc:  # noqa: BLE001 - a cell value, never a traceback
        return f"cannot read the cell ({type(exc).__name__})"


def _spill_parent_address(cell: Any) -> str | None:
    try:
        return str(cell.api.SpillParent.Address)
    except Exception:
        return None
