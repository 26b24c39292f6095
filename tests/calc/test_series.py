"""MULTINOMIAL and SERIESSUM over ranges and arrays (calc/xlfuncs/math_trig/series.py), and the
compatibility names CHITEST, FTEST, PERCENTRANK, TTEST and ZTEST given a range
(calc/xlfuncs/scalars.py: `formulas`' aliases of CHISQ.TEST, F.TEST, PERCENTRANK.INC, T.TEST,
Z.TEST). Before, a range or an array given to any of them made the cell listed (not computed),
and `MULTINOMIAL(TRUE,1,2)` was a number.

Excel 16's values, cached in IronCalc's Excel-made MATH_AND_TRIGONOMETRY__MULTINOMIAL.xlsx and
__SERIESSUM.xlsx (ironcalc/IronCalc xlsx/tests/calc_tests, MIT or Apache-2.0) at the cells
named; the compatibility names' from Microsoft's pages for them."""

from __future__ import annotations

import math

import pytest

#: The inputs of the IronCalc books' cells, as there (column A; G6 TRUE; D9:D14 the series').
INPUTS = {"A3": 1, "A4": 2, "A5": 4, "A12": 1, "A13": 2, "A14": -3, "A16": 1, "A18": 5, "F19": True,
          "A22": 1.7, "A23": 1.2, "A24": 3.4, "A25": 2.3, "A27": True, "A28": 2, "G6": True,
          "H7": 1, "I7": 0, "J7": 1, "D9": 1, "D10": 1, "D11": "=1/2", "D12": "=1/6", "D13": "=1/FACT(4)",
          "D14": "=1/FACT(5)",
          # Microsoft's examples for the compatibility names
          "K1": 13, "K2": 12, "K3": 11, "K4": 8, "K5": 4, "K6": 3, "K7": 2, "K8": 1, "K9": 1, "K10": 1,
          "L1": 3, "L2": 4, "L3": 5, "L4": 8, "L5": 9, "L6": 1, "L7": 2, "L8": 4, "L9": 5,
          "M1": 6, "M2": 19, "M3": 3, "M4": 2, "M5": 14, "M6": 4, "M7": 5, "M8": 17, "M9": 1,
          "N1": 6, "N2": 7, "N3": 9, "N4": 15, "N5": 21, "O1": 20, "O2": 28, "O3": 31, "O4": 38, "O5": 40,
          "P1": 58, "P2": 35, "Q1": 11, "Q2": 25, "R1": 10, "R2": 23,
          "S1": 45.35, "S2": 47.65, "T1": 17.56, "T2": 18.44, "U1": 16.09, "U2": 16.91,
          "V1": 3, "V2": 6, "V3": 7, "V4": 8, "V5": 6, "V6": 5, "V7": 4, "V8": 2, "V9": 1, "V10": 9}

#: formula -> Excel's value
EXCEL = {
    "MULTINOMIAL(1,2,3)": 59.99999999999993,  # A1
    "MULTINOMIAL(A3:A5,3)": 12599.999999999995,  # B3
    "MULTINOMIAL(0,2,3)": 9.999999999999998,  # A8
    "MULTINOMIAL(-1,2,3)": "#NUM!",  # A10
    "MULTINOMIAL(A12:A14)": "#NUM!",  # B12: -3 in the range
    "MULTINOMIAL({2,5,7})": 72071.99999999993,  # D12
    "MULTINOMIAL({1,0,3})": 4,  # D14
    "MULTINOMIAL(A16:A18)": 5.99999999999999,  # B16: A17 empty
    "MULTINOMIAL(F19,2)": "#VALUE!",  # F20: TRUE in a cell
    "MULTINOMIAL({TRUE,1,2})": "#VALUE!",  # H20
    "MULTINOMIAL(A22:A25)": 419.9999999999996,  # B22: truncated
    "MULTINOMIAL(TRUE,1,2)": "#VALUE!",  # H22
    "MULTINOMIAL(A27:A28)": "#VALUE!",  # B27: TRUE in the range
    "SERIESSUM(2,0,1,{1,2,3})": 17,  # A1
    "SERIESSUM(0,0,2,{1,2,3})": "#NUM!",  # C1
    "SERIESSUM(0.5,1,2,{2,2,2})": 1.3125,  # A2
    "SERIESSUM(H7,I7,J7,D9:D14)": 2.7166666666666663,  # E7 (its A7:C7 here in H7:J7)
    "SERIESSUM(TRUE,I7,J7,D9:D14)": "#VALUE!",  # F7
    "SERIESSUM(G6,I7,J7,D9:D14)": "#VALUE!",  # G7
    "SERIESSUM(0,I7,J7,D9:D14)": "#NUM!",  # H7
    "SERIESSUM(-1,0,2, {1,2,3})": 6,  # I7
    # Microsoft's pages: PERCENTRANK, TTEST, FTEST, CHITEST, ZTEST
    "PERCENTRANK(K1:K10,2)": 0.333,
    "PERCENTRANK(K1:K10,4)": 0.555,
    "PERCENTRANK(K1:K10,8)": 0.666,
    "PERCENTRANK(K1:K10,5)": 0.583,
    "TTEST(L1:L9,M1:M9,2,1)": 0.196016,
    "FTEST(N1:N5,O1:O5)": 0.648318,
    "CHITEST(P1:R2,S1:U2)": 0.0003082,
    "ZTEST(V1:V10,4)": 0.090574,
    "ZTEST(V1:V10,6)": 0.863043,
}


@pytest.fixture(scope="module")
def computed(tmp_path_factory):
    from tests.calc.excel_cases import cases_computed

    formulas = {f"AD{row}": "=" + formula for row, formula in enumerate(EXCEL, start=1)}
    result = cases_computed(tmp_path_factory.mktemp("series") / "cases.xlsx", {**INPUTS, **formulas})
    return {formula: result.values.get(("S", f"AD{row}")) for row, formula in enumerate(EXCEL, start=1)}


@pytest.mark.parametrize("formula", list(EXCEL))
def test_as_excel_answers(computed, formula):
    excel, ours = EXCEL[formula], computed[formula]
    if isinstance(excel, str):
        assert ours == excel
    elif formula.startswith(("MULTINOMIAL", "SERIESSUM")):
        assert math.isclose(ours, excel, rel_tol=1e-13)  # (Excel's own noise on the exact count)
    else:
        assert round(ours, len(str(excel).split(".")[1])) == excel  # (the page's digits)


@pytest.mark.parametrize(("old", "new", "arguments"), [
    ("PERCENTRANK", "PERCENTRANK.INC", "K1:K10,2.5,2"), ("TTEST", "T.TEST", "L1:L9,M1:M9,1,3"),
    ("FTEST", "F.TEST", "N1:N5,M1:M9"), ("CHITEST", "CHISQ.TEST", "P1:R2,S1:U2"), ("ZTEST", "Z.TEST", "V1:V10,4,2")])
def test_a_compatibility_name_is_its_function(tmp_path, old, new, arguments):
    """Microsoft: each compatibility function is its 2010 counterpart under the old name."""
    from tests.calc.excel_cases import cases_computed

    result = cases_computed(tmp_path / "names.xlsx", {**INPUTS, "AD1": f"={old}({arguments})",
                                                      "AD2": f"=_xlfn.{new}({arguments})"})
    assert isinstance(result.values[("S", "AD1")], float)
    assert result.values[("S", "AD1")] == result.values[("S", "AD2")]
