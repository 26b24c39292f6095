"""The reading that decides what the fast engine may compute as written (calc/formula/hazards.py)
and the fit that rewrites the rest as Excel evaluates it (calc/formula/fit.py)."""

from __future__ import annotations

import pytest

from rates_xl.calc.formula.fit import intersect, lift, materialise, qualify_names
from rates_xl.calc.formula.hazards import analyse
from rates_xl.calc.formula.site import Site
from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.sheet import read_area, split_reference

NAMES = {"holidays": 10, "rate": 1}


def size(text):
    area = read_area(split_reference(text)[1], whole_lines=False)
    return NAMES.get(text.lower()) if area is None else area.size


def read(formula):
    return analyse(Formula(formula), size, frozenset({"RATES_DISCOUNTCURVE"}))


@pytest.mark.parametrize("formula", [
    "=SUM(A1:A3)", "=VLOOKUP(B1,A1:C9,2,FALSE)", "=WORKDAY(E6,2,INDEX(holidays,0,1))",
    '=IF(ISNUMBER(G6),RATES_DISCOUNT("SOFR",G6),"")', "=EXP(rate)", "=SUMPRODUCT(A1:A3,B1:B3)",
    "=INDEX(RATES_DISCOUNTCURVE(1,2),2,2)", '=COUNTIF(A1:A9,">0")', "=A1*2+B7",
])
def test_formulas_the_fast_engine_computes_as_written(formula):
    assert read(formula).safe


@pytest.mark.parametrize("formula, hazard", [
    ("=ISNUMBER(A1:A3)", "ISNUMBER given the range A1:A3"),
    ("=SUM(LEN(A1:A3))", "LEN given the range A1:A3"),
    ("=SUMPRODUCT(LEN(A1:A3))", "LEN given the range A1:A3"),
    ("=YEAR(RATES_DISCOUNTCURVE(1,2))", "YEAR given the array from RATES_DISCOUNTCURVE"),
    ("=LEFT(C1#,1)", "LEFT given the spill C1#"),
    ("=EXP({1,2})", "EXP given an array constant"),
    ("=NOSUCH(A1:A3)", "NOSUCH given the range A1:A3"),  # unknown: never guessed
])
def test_scalar_functions_over_arrays_are_found(formula, hazard):
    found = read(formula)
    assert not found.safe and hazard in found.hazards


def test_an_array_formula_is_written_out_per_cell_with_excel_broadcasting():
    found = read('=IF(ISNUMBER(B7:B9),B6:B8*$C$1,"")')
    assert found.liftable
    assert lift(found, 3, 1) == [['=IF(ISNUMBER(B7),B6*$C$1,"")'], ['=IF(ISNUMBER(B8),B7*$C$1,"")'],
                                 ['=IF(ISNUMBER(B9),B8*$C$1,"")']]
    # A row broadcast over rows, a shorter range padded with #N/A, as Excel does.
    assert lift(read("=A1:C1+D1:D2"), 2, 3) == [["=A1+D1", "=B1+D1", "=C1+D1"], ["=A1+D2", "=B1+D2", "=C1+D2"]]
    assert lift(read("=LEN(A1:A2)"), 3, 1)[2] == ["=LEN(NA())"]
    assert lift(read("='Fixed leg'!B5:B6*2"), 2, 1) == [["='Fixed leg'!B5*2"], ["='Fixed leg'!B6*2"]]


def test_what_cannot_be_written_out_is_not():
    assert lift(read("=SUM(LEN(A1:A3))"), 1, 1) is None  # an aggregate over a lifted function
    assert lift(read("=YEAR(RATES_DISCOUNTCURVE(1,2))"), 3, 1) is None  # not a plain range
    assert lift(read("=LEN(A:A)"), 3, 1) is None  # a whole column


def test_an_ordinary_cell_intersects_as_excel_does():
    assert intersect(read("=A1:A5*10"), Site("S", 3, 2)) == "=A3*10"
    assert intersect(read("=A1:A5*10"), Site("S", 9, 2)) == "=#VALUE!*10"
    assert intersect(read("=LEN(B1:D1)"), Site("S", 7, 3)) == "=LEN(C1)"


def test_an_argument_that_takes_a_range_is_computed_into_helper_cells():
    blocks = []

    def place(cells):
        blocks.append(cells)
        return f"$Z$1:$Z${len(cells)}"

    found = read("=SUMPRODUCT(--(YEAR(A1:A3)=2026),B1:B3)")
    assert not found.liftable and found.helpers
    assert materialise(found, place, size) == "=SUMPRODUCT($Z$1:$Z$3,B1:B3)"
    assert blocks == [[["=--(YEAR(A1)=2026)"], ["=--(YEAR(A2)=2026)"], ["=--(YEAR(A3)=2026)"]]]
    assert materialise(read("=SUM(LEN(A:A))"), place, size) is None  # not a plain range
    assert materialise(read("=SUM(LEN(A1:A3))"), lambda cells: None, size) is None  # no room


def test_a_defined_name_is_written_out_through_the_range_it_stands_for():
    names = {"dates": "'Deal data'!$B$2:$B$4"}
    found = analyse(Formula("=YEAR(dates)"), lambda t: 3 if t in names else size(t), frozenset(), names.get)
    assert lift(found, 3, 1) == [["=YEAR('Deal data'!B2)"], ["=YEAR('Deal data'!B3)"], ["=YEAR('Deal data'!B4)"]]


def test_a_sheet_qualified_name_becomes_the_range_it_stands_for():
    found = read("=S2!A1+S1!local_k*'Other sheet'!rate_x")
    assert [name for _, name in found.qualified_names] == ["S1!local_k", "'Other sheet'!rate_x"]
    targets = {"S1!local_k": "S1!$A$1", "'Other sheet'!rate_x": "'Other sheet'!$B$2"}
    assert qualify_names(found, targets.get) == "=S2!A1+S1!$A$1*'Other sheet'!$B$2"
