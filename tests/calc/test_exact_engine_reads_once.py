"""The exact (`formulas`) engine's shortcuts give the answers of the long way round:
WORKDAY's holidays read once per list (calc/engines/formulas/functions.py
`_holidays_read_once`), a computed range's values converted once per element
(calc/engines/formulas/engine.py `_rows`, `_trim_spill`: a history table's range is a million cells of
padding),
a RATES_* table's range grown right over the empty columns in one walk over the sheet's
cells (`_widened`), and a checked book loaded with its stored inputs held (`load_engine`'s
`held`: each hold of this engine loads the book again)."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest

pytest.importorskip("formulas")

from formulas.functions import Error, FoundError  # noqa: E402
from formulas.functions import date as fdate  # noqa: E402

from rates_xl.calc.engines.formulas import engine  # noqa: E402
from rates_xl.calc.engines.formulas.functions import _holidays_read_once  # noqa: E402
from rates_xl.functions.values import to_serial  # noqa: E402


def _counting():
    read = []

    def parse(*args):
        read.append(args[3])
        return fdate.args_xworkday_intl(*args)

    return parse, read


def _holidays(*values):
    return np.array([list(values)], dtype=object)


def test_a_list_of_holidays_is_read_once_and_answers_as_read_each_time():
    parse, read = _counting()
    once = _holidays_read_once(parse)
    holidays = _holidays(float(to_serial(date(2026, 12, 25))), float(to_serial(date(2027, 1, 1))))
    first = once(46000.0, 3.0, 1, holidays)
    again = once(46010.0, -2.0, 11, holidays.copy())  # the same values in another array
    assert first == fdate.args_xworkday_intl(46000.0, 3.0, 1, holidays)
    assert again == fdate.args_xworkday_intl(46010.0, -2.0, 11, holidays)
    assert sum(1 for h in read if isinstance(h, np.ndarray)) == 1  # the dates converted once
    assert set(first[3]) == {date(2026, 12, 25), date(2027, 1, 1)}


def test_true_is_refused_where_1_was_a_date_and_a_refused_list_is_refused_each_time():
    once = _holidays_read_once(fdate.args_xworkday_intl)
    assert once(46000.0, 1.0, 1, _holidays(1))[3] == (date(1900, 1, 1),)
    for _ in range(2):
        with pytest.raises(FoundError):
            once(46000.0, 1.0, 1, _holidays(True))
        with pytest.raises(FoundError):
            once(46000.0, 1.0, 1, _holidays(Error.errors["#N/A"]), True)


def test_a_list_that_is_no_array_is_read_as_before():
    once = _holidays_read_once(fdate.args_xworkday_intl)
    assert once(46000.0, 1.0) == fdate.args_xworkday_intl(46000.0, 1.0)
    assert once(46000.0, 1.0, 1, 46001.0) == fdate.args_xworkday_intl(46000.0, 1.0, 1, 46001.0)


def test_a_range_is_each_element_plain_over_the_range_and_a_smaller_result_repeats():
    import schedula as sh

    na = Error.errors["#N/A"]
    computed = np.array([[1.0, na, "x"], [sh.EMPTY, True, np.float64(2.5)]], dtype=object)
    rng = {"r1": 3, "n1": 2, "r2": 6, "n2": 7}  # four rows, six columns: the result repeats
    rows = engine._rows(computed, rng)
    assert rows == [[engine._plain(computed[i % 2, j % 3]) for j in range(6)] for i in range(4)]
    assert rows[0][1] == "#N/A" and rows[1][0] is None and rows[1][1] is True
    assert type(rows[1][2]) is float
    assert engine._rows(np.empty((0, 0), dtype=object), rng) == [[None] * 6 for _ in range(4)]


def _trimmed_cell_by_cell(self, sheet, rng, grid):
    """`_trim_spill` as it was written first: a dict of every cell, each row and column of
    padding asked cell by cell."""
    r1, c1 = int(rng["r1"]), int(rng["n1"])
    anchor_key = (sheet, engine.cell_address(r1, c1))
    if anchor_key not in self.book.spills or anchor_key in self.book.legacy_arrays or len(grid) == 1:
        return grid
    anchor = grid.get((r1, c1))
    if engine.listed_error(anchor):
        return {pos: (anchor if pos == (r1, c1) else None) for pos in grid}
    r2, c2 = int(rng["r2"]), int(rng["n2"])
    while r2 > r1 and all(engine._is_padding(grid.get((r2, c))) for c in range(c1, c2 + 1)):
        r2 -= 1
    while c2 > c1 and all(engine._is_padding(grid.get((r, c2))) for r in range(r1, r2 + 1)):
        c2 -= 1
    self._spilled[anchor_key] = engine.Area(r1, c1, r2, c2)
    if anchor_key in self._widened:
        self.extents[anchor_key] = engine.Area(r1, c1, r2, c2)
    if anchor_key in self._widened and c2 == int(rng["n2"]) and c2 - c1 + 1 > 1:
        self.cut[anchor_key] = "cut"
    return {(r, c): (v if r <= r2 and c <= c2 else None) for (r, c), v in grid.items()}


def test_a_spill_is_trimmed_as_cell_by_cell_over_its_rows():
    """A spill's trailing rows and columns of padding (the engine's #N/A, an empty cell) are
    blank, an error in its anchor blanks the rest, a legacy array keeps its #N/A: the rows
    trimmed as the cell-by-cell dict was, over random results of every shape and kind."""
    import random
    from types import SimpleNamespace

    import schedula as sh

    pick = random.Random(30)
    na, text_na = Error.errors["#N/A"], "#N/A"  # the error, and text that only reads like it
    kinds = [na, na, na, sh.EMPTY, 1.5, "x", text_na, Error.errors["#VALUE!"], True, 0.0]
    for round_ in range(400):
        height, width = pick.randint(1, 7), pick.randint(1, 6)
        filled_h, filled_w = pick.randint(0, height), pick.randint(0, width)
        computed = np.array([[pick.choice(kinds) if i < filled_h and j < filled_w else pick.choice([na, sh.EMPTY])
                              for j in range(width)] for i in range(height)], dtype=object)
        rng = {"r1": 2, "n1": 3, "r2": 1 + height + pick.randint(0, 2), "n2": 2 + width + pick.randint(0, 2)}
        key = ("S", "C2")
        kind = pick.choice(["spill", "widened", "legacy", "none"])
        book = SimpleNamespace(spills={key: None} if kind != "none" else {},
                               legacy_arrays={key} if kind == "legacy" else set())
        outcomes = []
        for trim in (engine.FormulasEngine._trim_spill, _trimmed_cell_by_cell):
            self = SimpleNamespace(book=book, _spilled={}, extents={}, cut={},
                                   _widened={key: None} if kind == "widened" else {})
            rows = engine._rows(computed, rng)
            if trim is _trimmed_cell_by_cell:
                r1, c1 = rng["r1"], rng["n1"]
                grid = {(r1 + i, c1 + j): v for i, row in enumerate(rows) for j, v in enumerate(row)}
                got = list(trim(self, "S", rng, grid).values())
            else:
                got = [v for row in trim(self, "S", rng, rows) for v in row]
            outcomes.append((got, self._spilled, self.extents, set(self.cut)))
        assert outcomes[0] == outcomes[1], (round_, computed, rng, kind)


def _widened_column_by_column(ws, area):
    """`_widened` as it was written first: each column right of the range asked of each row."""
    from rates_xl.calc.book import empty_cell

    r1, c1, r2, c2 = area
    while c2 - c1 + 1 < engine.MAX_SPILL_COLUMNS and all(empty_cell(ws, r, c2 + 1) for r in range(r1, r2 + 1)):
        c2 += 1
    return engine.Area(r1, c1, r2, c2)


def test_a_table_grows_right_to_the_first_column_holding_something_in_its_rows():
    import random

    import openpyxl

    pick = random.Random(7)
    for _ in range(60):
        ws = openpyxl.Workbook().active
        for _ in range(pick.randrange(0, 12)):  # values, cells emptied again (a cell whose value is None)
            cell = ws.cell(row=pick.randrange(1, 30), column=pick.randrange(1, 300))
            cell.value = pick.choice([1, "x", None, 0, ""])
        r1, c1 = pick.randrange(1, 20), pick.randrange(1, 40)
        area = engine.Area(r1, c1, r1 + pick.randrange(0, 10), c1 + pick.choice([0, 1, 3, 255, 300]))
        assert engine._widened(ws, area) == _widened_column_by_column(ws, area), area
    ws = openpyxl.Workbook().active
    ws["F3"] = "held"  # in the table's rows: it stops before column F
    ws["Z1"] = "above"  # not in its rows
    assert engine._widened(ws, engine.Area(2, 2, 5, 2)) == engine.Area(2, 2, 5, 5)
    assert engine._widened(ws, engine.Area(6, 2, 9, 2)) == engine.Area(6, 2, 9, 1 + engine.MAX_SPILL_COLUMNS)


def test_a_checked_book_is_loaded_with_its_stored_inputs_held_and_answers_as_held_after(monkeypatch, sandbox):
    """The check at the stored inputs holds the RATES_* cells at Excel's values: loaded with them
    held, the book is loaded twice to compute (the check, then the round), not three times (a
    load, the same book again with them held, then the round); the answers are the same."""
    from rates_xl.calc.workbook import WorkbookCalculation
    from rates_xl.client import RatesClient
    from rates_xl.sandbox import PAID_KEY
    from rates_xl.templates import template_path

    loads = []
    load = engine.FormulasEngine._load
    monkeypatch.setattr(engine.FormulasEngine, "_load", lambda self, held: loads.append(1) or load(self, held))
    pinned = "2026-11-20T16:00:00Z"
    with RatesClient(sandbox.base_url, api_key=PAID_KEY, rate_limit=1000, burst=1000) as client:
        calc = WorkbookCalculation(template_path("fx_hedging"), engine_name="formulas")
        assert calc.checked > 0 and len(loads) == 1  # the check ran, on the load
        now = calc.compute(client, valuation_time=pinned)
        assert len(loads) == 2
        # The long way round: loaded, then held (`hold` loads again), as before.
        loads.clear()
        hold = engine.FormulasEngine.__init__

        def held_after(self, book, *, constants, held=None):
            hold(self, book, constants=constants)
            if held:
                self.hold(held)

        monkeypatch.setattr(engine.FormulasEngine, "__init__", held_after)
        before = WorkbookCalculation(template_path("fx_hedging"), engine_name="formulas")
        assert before.checked == calc.checked and before.stale == calc.stale
        then = before.compute(client, valuation_time=pinned)
        assert len(loads) == 3
    assert now.values == then.values and now.errors == then.errors == []
