"""INDIRECT of column letters joined to a row from ROW of a cell is that cell
(calc/formula/ranges.py `row_indirect`): each shape rewritten computes Excel's value, the
others are left to INDIRECT."""

from __future__ import annotations

import openpyxl
import pytest

from rates_xl.calc.formula.ranges import row_indirect
from rates_xl.calc.formula.site import BookFacts, Site
from rates_xl.calc.formula.tree import Formula
from rates_xl.calc.workbook import WorkbookCalculation

#: Shape -> (formula in C{row}, what it is written as, Excel's value: A1:A5 hold 10..50).
SHAPES = {
    "minus": (2, '=INDIRECT("A"&ROW(B2)-1)', "=$A1", 10),
    "parenthesised plus, absolute row": (3, '=INDIRECT("a"&(ROW($B$3)+2))', "=$A5", 50),
    "no shift, $ in the text": (4, '=INDIRECT("$A"&ROW(B4))', "=$A4", 40),
    "own sheet named, A1 style given": (5, '=INDIRECT("A"&ROW(S!B5)-1,TRUE)+1', "=$A4+1", 41),
    "in an IF, as in the report": (6, '=IF(A1=10,INDIRECT("A"&ROW(B6)-1)+1,0)', "=IF(A1=10,$A5+1,0)", 51),
    "a corner of a range": (7, '=SUM(INDIRECT("A"&ROW(B7)-6):A3)', "=SUM($A1:A3)", 60),
    "an empty cell": (8, '=INDIRECT("D"&ROW(B8))', "=$D8", 0),
}
#: Left to INDIRECT (the text is not one cell of this sheet whatever the book holds, or may not be).
LEFT = ['=INDIRECT("A"&ROW(B1)-1)', '=INDIRECT("A"&ROW(Other!B3)-1)', '=INDIRECT("A"&ROW(B2:B3)-1)',
        '=INDIRECT("A"&ROW(B2)-1,FALSE)', '=INDIRECT("A"&ROW(B2)-1.5)', '=INDIRECT("XFE"&ROW(B2))',
        '=INDIRECT("A"&ROW(B2)*2)', '=INDIRECT("A"&ROW(B2)-1&":A9")', '=INDIRECT("A"&ROW())',
        '=INDIRECT("A1"&ROW(B2))', '=INDIRECT("A"&ROW(B1048576)+1)', '=INDIRECT("A"&B2)',
        '=INDIRECT("A"&ROW(name)-1)', '=INDIRECT("S!A"&ROW(B2))']


def test_which_shapes_are_written_as_the_cell():
    site = Site("S", 9, 3, False, BookFacts())
    for _name, (_row, formula, written, _value) in SHAPES.items():
        assert row_indirect(Formula(formula), site) == written, formula
    for formula in LEFT:
        assert row_indirect(Formula(formula), site) == formula, formula


@pytest.fixture(scope="module")
def computed(tmp_path_factory):
    path = tmp_path_factory.mktemp("row_indirect") / "rows.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r in range(1, 6):
        ws[f"A{r}"] = 10 * r
    for row, formula, _written, _value in SHAPES.values():
        ws[f"C{row}"] = formula
    ws["E1"] = 0
    for r in range(2, 12):  # a running count down a column: one shape, rewritten once and moved
        ws[f"E{r}"] = f'=INDIRECT("E"&ROW(F{r})-1)+1'
    for r in range(1, 4):  # the same shape from row 1, where the text names no cell
        ws[f"G{r}"] = f'=INDIRECT("A"&ROW(H{r})-1)'
    ws["I1"] = 0
    for r in range(2, 12):  # each copy's own row written absolute, as a table's [#This Row] is
        ws[f"I{r}"] = f'=INDIRECT("I"&ROW($F${r})-1)+1'
    for r in range(1, 5):  # one fixed row in every copy: the same cell
        ws[f"K{r}"] = '=INDIRECT("A"&ROW($B$3))'
    wb.save(path)
    calculation = WorkbookCalculation(path, full=True)
    return calculation, calculation.compute()


@pytest.mark.parametrize("shape", SHAPES)
def test_each_shape_written_as_the_cell_computes_excels_value(computed, shape):
    calculation, result = computed
    row, _formula, written, value = SHAPES[shape]
    assert calculation.engine.prepared.written[("S", row, 3)] == written
    assert calculation.engine.model.workbook.get_value("S", row, 3) == value  # read from the engine
    assert result.value("S", f"C{row}") == value


def test_copies_down_a_column_and_a_row_past_the_sheet(computed):
    """Copies of one shape, whose answers the shape memo moves from copy to copy where they
    move with the cell (calc/formula/memo.py)."""
    calculation, result = computed
    written = calculation.engine.prepared.written
    assert [written[("S", r, 5)] for r in (2, 11)] == ["=$E1+1", "=$E10+1"]
    assert [result.value("S", f"E{r}") for r in range(2, 12)] == list(range(1, 11))
    assert "INDIRECT" in written[("S", 1, 7)] and written[("S", 2, 7)] == "=$A1"
    assert [result.value("S", f"G{r}") for r in (2, 3)] == [10, 20]
    assert str(result.value("S", "G1")) == "#REF!"  # INDIRECT("A0"), as in Excel
    assert [result.value("S", f"I{r}") for r in range(2, 12)] == list(range(1, 11))
    assert [written[("S", r, 9)] for r in (2, 11)] == ["=$I1+1", "=$I10+1"]
    assert [result.value("S", f"K{r}") for r in range(1, 5)] == [30] * 4
    assert {written[("S", r, 11)] for r in range(1, 5)} == {"=$A3"}
