"""The exact (`formulas`) engine's shortcuts give the answers of the long way round:
WORKDAY's holidays read once per list (calc/engines/formulas/functions.py
`_holidays_read_once`), a computed range's values converted once per element
(calc/engines/formulas/engine.py `_grid`: a history table's range is a million cells of padding),
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
    grid = engine._grid(computed, rng)
    expected = {(3 + i, 2 + j): engine._plain(computed[i % 2, j % 3]) for i in range(4) for j in range(6)}
    assert grid == expected and list(grid) == list(expected)
    assert grid[(3, 3)] == "#N/A" and grid[(4, 2)] is None and grid[(4, 3)] is True
    assert type(grid[(4, 4)]) is float
    assert engine._grid(np.empty((0, 0), dtype=object), rng) == dict.fromkeys(expected)


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
