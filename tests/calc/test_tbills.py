"""TBILLPRICE, TBILLYIELD and TBILLEQ with Excel's checks (calc/xlfuncs/financial/tbills.py).

`EXCEL_16`: Excel's answers cached in IronCalc's Excel-made TBILLs.xlsx (ironcalc/IronCalc,
xlsx/tests/calc_tests/FINANCIAL/TBILLs.xlsx, MIT or Apache-2.0): a bill of 366 days across a
29 February, a discount that prices the bill below 0, numeric text, logical values.
`PUBLISHED`: Microsoft's examples."""

from __future__ import annotations

import pytest

from tests.calc.financial_book import computed

NUM, VALUE = "#NUM!", "#VALUE!"
EXCEL_16 = {
    "TBILLEQ(14640,14640+366,0.5)": 0.85229613124917,  # one calendar year: 366 days
    "TBILLPRICE(14640,14640+366,0.5)": 49.1666666666667,
    "TBILLYIELD(14640,14640+366,3000)": -0.950819672131147,
    "TBILLEQ(14640,14640+365,0.5)": 0.848275979665248,
    "TBILLPRICE(\"45366\",\"45731\",\"0.5\")": 49.3055555555556,  # numeric text
    "TBILLYIELD(\"45366\",\"45731\",2000)": -0.936986301369863,
    "TBILLEQ(TRUE,45731,0.5)": VALUE,  # a logical value
    "TBILLPRICE(45366,45731,TRUE)": VALUE,
    "TBILLPRICE(45332,45650,7)": NUM,  # priced below 0
    "TBILLPRICE(45332,45650,1.19)": NUM,
    "TBILLEQ(45332,45650,7)": NUM,
    "TBILLEQ(45332,45650,1.19)": NUM,
    "TBILLYIELD(45332,45650,0)": NUM,
}
PUBLISHED = {
    "TBILLPRICE(DATE(2008,3,31),DATE(2008,6,1),0.09)": (98.45, 2),
    "TBILLYIELD(DATE(2008,3,31),DATE(2008,6,1),98.45)": (0.091417, 6),
    "TBILLEQ(DATE(2008,3,31),DATE(2008,6,1),0.0914)": (0.094151, 6),
}


def _computed(tmp_path, formulas):
    values, listed = computed(tmp_path, formulas)
    assert listed == []
    return values


def test_excel_16s_answers(tmp_path):
    for (formula, excel), got in zip(EXCEL_16.items(), _computed(tmp_path, list(EXCEL_16)), strict=True):
        if isinstance(excel, str):
            assert got == excel, formula
        else:
            assert got == pytest.approx(excel, rel=1e-13), formula


def test_microsofts_examples(tmp_path):
    for (formula, (excel, digits)), got in zip(PUBLISHED.items(), _computed(tmp_path, list(PUBLISHED)), strict=True):
        assert round(got, digits) == excel, formula
