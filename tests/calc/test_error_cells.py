"""calc/error_cells.py's `listed` lists exactly the values `results.listed_error` calls error
cells (its plain-str path reads them without the call), and the ErrorCell it makes without the
dataclass's frozen __init__ is the one that __init__ makes: equal, hashed, shown and frozen alike."""

from __future__ import annotations

import dataclasses

import pytest

from rates_xl.calc import error_cells
from rates_xl.calc.engines import Settled
from rates_xl.calc.results import ErrorCell, listed_error
from rates_xl.functions.messages import PREFIX
from rates_xl.functions.values import ERRORS, ErrorLikeText


class _Text(str):
    """Text of another str class (the engines hand back str subclasses too)."""


def test_an_error_cell_made_without_its_init_is_the_one_its_init_makes():
    made = error_cells._error_cell("S", "B7", "#N/A", "why")
    init = ErrorCell("S", "B7", "#N/A", "why")
    assert made == init and hash(made) == hash(init) and repr(made) == repr(init)
    assert dataclasses.asdict(made) == dataclasses.asdict(init) and made.address == init.address == "S!B7"
    assert [f.name for f in dataclasses.fields(ErrorCell)] == list(vars(made))  # every field, in order
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.value = "#VALUE!"  # type: ignore[misc]


def test_listed_takes_the_values_listed_error_takes_in_sheet_and_place_order():
    from openpyxl import Workbook

    book = Workbook()
    book.active.title = "A"
    book.create_sheet("B")
    candidates: list[object] = [*ERRORS, f"{PREFIX} swap: no such tenor", "#RATES", "#N/A ", "", "text", 1.5, 2,
                                True, None, ErrorLikeText("#N/A"), _Text("#DIV/0!"), _Text(f"{PREFIX} x"), _Text("#x")]
    values = {}
    for i, value in enumerate(candidates):
        values[("B" if i % 2 else "A", f"C{len(candidates) - i}")] = value
    engine = Settled("none", values)
    found = error_cells.listed(book, engine, {}, values)
    expected = sorted(((0 if sheet == "A" else 1, int(cell[1:])), sheet, cell, str(v))
                      for (sheet, cell), v in values.items() if listed_error(v))
    assert [(e.sheet, e.cell, e.value, e.message) for e in found] == [(s, c, v, "") for _, s, c, v in expected]
    assert all(type(e.value) is str for e in found)
    assert len(found) == len(ERRORS) + 3
