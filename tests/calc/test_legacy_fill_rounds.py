"""A legacy array's fill across planning rounds (calc/engines/formualizer/model.py `_fill_legacy`):
a later round keeps the last round's fill in place and sets only what changed, or empties every
fill first where a result changed its extent. Each round's values must be those of a book
computed afresh in the same state: the same inputs held, from a newly loaded engine."""

from __future__ import annotations

import pytest
import xlsxwriter

from rates_xl.calc.book import Book
from rates_xl.calc.engines import load_engine


def _book(path):
    wb = xlsxwriter.Workbook(path)
    ws = wb.add_worksheet("S")
    for row, value in enumerate((1, 2, 3, 4, 5)):
        ws.write(row, 0, value)  # A1:A5
    ws.write("C1", 2)  # how many of A1:A5 the first array reads
    ws.write("C2", 7)  # what the second one shows
    ws.write_array_formula("H1:H5", "{=CHOOSE(C1,A1,A1:A2,A1:A3,A1:A4,A1:A5)*2}")  # #N/A below its result
    ws.write_array_formula("J1:K2", "{=C2}")  # one value: fills the range
    ws.write_array_formula("M1:N1", "{=C2+1}")
    ws.write_formula("D1", "=SUM(H1:H5)")  # #N/A while the result is shorter than the range
    ws.write_formula("D2", "=COUNT(H1:H5)")
    ws.write_formula("D3", "=K2*10")
    ws.write_formula("D4", "=ISNA(H5)")
    ws.write_formula("D5", "=N1+K1")
    wb.close()
    return path


def _engine(path, held):
    engine, _reason = load_engine(Book(path), "fast", threads=1)
    if held:
        engine.hold(held)
    return engine


#: Rounds of held inputs: values changing in place, a result shrinking, one growing over its
#: last fill, an array's anchor held and let go again.
ROUNDS = [
    {},
    {("S", "C2"): 8},
    {("S", "C1"): 1, ("S", "C2"): 8},
    {("S", "C1"): 4, ("S", "C2"): 8},
    {("S", "C1"): 5, ("S", "C2"): "x"},
    {("S", "C1"): 5, ("S", "C2"): 9, ("S", "J1"): 3},
    {("S", "C1"): 3, ("S", "C2"): 9},
]


@pytest.mark.parametrize("order", [ROUNDS, ROUNDS[::-1]], ids=["forward", "backward"])
def test_each_rounds_values_are_those_of_a_fresh_computation(tmp_path, order):
    path = _book(tmp_path / "fill.xlsx")
    kept = _engine(path, {})
    held: dict = {}
    for state in order:
        released = set(held) - set(state)
        if released:
            kept.release(released)
        kept.hold(state)
        held = dict(state)
        fresh = _engine(path, state).evaluate()
        assert kept.evaluate() == fresh, state
