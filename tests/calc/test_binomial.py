"""BINOM.DIST.RANGE, and the probability checks of BINOM.INV and NEGBINOM.DIST
(calc/xlfuncs/statistical/binomial.py). The bridged `formulas` implementations answered a number
where Excel answers #NUM!: BINOM.DIST.RANGE(10,0.3,5,3) was -0.2, BINOM.INV(10,1,0.8) 10,
NEGBINOM.DIST(2,10,1,TRUE) 1.

Excel 16's values, cached in IronCalc's Excel-made STATISTICAL__BINOM.xlsx (ironcalc/IronCalc
xlsx/tests/calc_tests, MIT or Apache-2.0) at the cells named, and in formulas_test.xlsx
(../shared/corpus/excel), read from the corpus."""

from __future__ import annotations

import pytest

from tests.calc.excel_cases import assert_array_as_excel, assert_cell_as_excel

#: formula -> Excel's value (BINOM.DIST.RANGE!, BINOM.INV!, NEGBINOM.DIST! of the IronCalc book)
EXCEL = {
    "_xlfn.BINOM.DIST.RANGE(8,0.7,7,8)": 0.2552983299999998,  # E2
    "_xlfn.BINOM.DIST.RANGE(10.7,0.1,1.2,5.5)": 0.6511746573,  # E4: truncated
    "_xlfn.BINOM.DIST.RANGE(10,0.5,2.99,6)": 0.8173828125,  # E6
    "_xlfn.BINOM.DIST.RANGE(3000,0.5,2,3)": 0,  # E9: a coefficient past a float's range
    "_xlfn.BINOM.DIST.RANGE(3000,0.0001,1,1)": 0.2222643587611419,  # E10
    "_xlfn.BINOM.DIST.RANGE(2,0.1,2,B9)": "#NUM!",  # E12: number_s2 an empty cell, 0, below number_s
    "_xlfn.BINOM.DIST.RANGE(10,0.7,10,10)": 0.02824752489999998,  # E13
    "_xlfn.BINOM.DIST.RANGE(0,0,0,0)": 1,  # E14
    "_xlfn.BINOM.DIST.RANGE(10,0.3,5)": 0.10291934520000003,  # E17: number_s2 omitted
    "_xlfn.BINOM.DIST.RANGE(10,0.3,5,3)": "#NUM!",  # E19
    "_xlfn.BINOM.DIST.RANGE(10,0.3,5,12)": "#NUM!",  # E20
    "_xlfn.BINOM.DIST.RANGE(10,-1E-10,2,3)": "#NUM!",  # E22
    "_xlfn.BINOM.DIST.RANGE(10,0.999999,2,3)": 1.1999968502442456e-40,  # E23
    "_xlfn.BINOM.INV(10,1,0.8)": "#NUM!",  # D25
    "_xlfn.BINOM.INV(10,TRUE,0.8)": "#NUM!",  # D44: TRUE read as 1
    "_xlfn.BINOM.INV(TRUE,0.5,0.8)": 1,  # D43
    "_xlfn.NEGBINOM.DIST(2,10,1,TRUE)": "#NUM!",  # E33
    "_xlfn.NEGBINOM.DIST(2,10,0,TRUE)": "#NUM!",  # E32
}


@pytest.fixture(scope="module")
def computed(tmp_path_factory):
    from tests.calc.excel_cases import cases_computed

    cells = {f"A{row}": "=" + formula for row, formula in enumerate(EXCEL, start=1)}
    result = cases_computed(tmp_path_factory.mktemp("binomial") / "cases.xlsx", cells)
    return {formula: result.values.get(("S", f"A{row}")) for row, formula in enumerate(EXCEL, start=1)}


@pytest.mark.parametrize("formula", list(EXCEL))
def test_as_excel_answers(computed, formula):
    excel = EXCEL[formula]
    assert computed[formula] == (pytest.approx(excel, rel=1e-12, abs=1e-300) if isinstance(excel, float) else excel)


@pytest.mark.parametrize("address", ["STATISTICAL!R11", "STATISTICAL!X11", "STATISTICAL!Y11", "STATISTICAL!S11"])
def test_corpus_cells(tmp_path, address):
    """Omitted arguments are 0 (`BINOM.DIST.RANGE(C11,,,)` is 1), "29/02/1900" is read as 60."""
    assert_cell_as_excel("BINOM.DIST.RANGE", "formulas_test.xlsx", address, tmp_path, strict=True)


def test_corpus_array(tmp_path):
    assert_array_as_excel("BINOM.DIST.RANGE over a range", "formulas_test.xlsx", "STATISTICAL!AH11", tmp_path, strict=True)
