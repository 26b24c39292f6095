"""UPPER, LOWER, PROPER and TRIM apply themselves to each element of an array, a spill's included, as Excel's
do (calc/xlfuncs/text/case.py; formualizer answered the first element alone, and `LOWER(A1#)`
was listed as not computed); so do DATE (calc/xlfuncs/dates/calendar.py) and TEXT, and a formula
nesting them over a computed array is computed whole (calc/formula/hazards.py LIFTS_ITSELF).

Excel 16's values, cached in IronCalc's Excel-made TEXT__UPPER_LOWER.xlsx (ironcalc/IronCalc
xlsx/tests/calc_tests, MIT or Apache-2.0), at the ranges named: dynamic arrays, written by
XlsxWriter as Excel writes them."""

from __future__ import annotations

import pytest

WORDS = "Hi, that's, AWSEOME,come, With, mE"
#: (the formula's cell here, the formula, Excel's values by row, the book's range)
CASES = [
    ("A1", f'=TEXTSPLIT("{WORDS}", ",")', [["Hi", " that's", " AWSEOME", "come", " With", " mE"]], "Sheet1!A1:F1"),
    ("A2", "=LOWER(A1#)", [["hi", " that's", " awseome", "come", " with", " me"]], "Sheet1!A2:F2"),
    ("A3", "=UPPER(A1#)", [["HI", " THAT'S", " AWSEOME", "COME", " WITH", " ME"]], "Sheet1!A3:F3"),
    ("A5", '=LOWER({"Hi","MAN";"YOU","Rock"})', [["hi", "man"], ["you", "rock"]], "Sheet1!A5:B6"),
    ("D5", '=UPPER({"sdfgs","gusfgsf";"jsdbfdsDSDS","njsdfbs"})', [["SDFGS", "GUSFGSF"], ["JSDBFDSDSDS", "NJSDFBS"]],
     "Sheet1!D5:E6"),
    ("A8", "=UPPER({1.5,TRUE})", [["1.5", "TRUE"]], "a number and a logical value written as text"),
    ("H1", '=UPPER(TEXT(DATE(1996, 1, SEQUENCE(10)), "ddd"))',
     [[d] for d in ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN", "MON", "TUE", "WED"]], "Sheet1!A9:A18"),
    ("I1", '=LOWER(UPPER(TEXT(DATE(1996, 1, SEQUENCE(10)), "ddd")))',
     [[d] for d in ["mon", "tue", "wed", "thu", "fri", "sat", "sun", "mon", "tue", "wed"]], "Sheet1!D9:D18"),
    ("J1", '=TEXT(DATE(1996, 1, SEQUENCE(10)), "ddd")',
     [[d] for d in ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]], "Sheet1!F9:F18"),
    ("K1", "=DATE(1900, 1, SEQUENCE(1, 3, 59))", [[59, 60, 61]], "Excel's 29 February 1900 in an array too"),
    ("K3", "=DATE(9999, 13, -1)", [["#NUM!"]], "DATE_AND_TIME__DATE Sheet1!D5: the month runs the year past 9999"),
    # Windows' case mapping, one character for one (case.py): formualizer's "STRASSE", "i̇x"
    ("P1", '=UPPER("straße")', [["STRAßE"]], "ß has no one-character capital"),
    ("P2", '=LOWER("İX")', [["ix"]], "the dotted capital I lowered to i"),
    # Microsoft's TRIM: the space (32) alone; formualizer's made the tab a space and dropped CHAR(160)
    ("P3", '=TRIM("tab"&CHAR(9)&"here  x ")', [["tab\there x"]], "TRIM leaves a tab"),
    ("P4", '=TRIM(" a "&CHAR(160)&" b ")', [["a \xa0 b"]], "TRIM leaves the non-breaking space"),
    ("P5", '=TRIM({" a  b ","c "})', [["a b", "c"]], "TRIM over an array"),
    # Microsoft's PROPER page: a letter after any character other than a letter, a digit too,
    # is capitalized ("76BudGet" is "76Budget"); formualizer's lowered it ("76budget")
    ("P6", '=PROPER({"76BudGet","2-way street","this is a TITLE","2nd o\'neil"})',
     [["76Budget", "2-Way Street", "This Is A Title", "2Nd O'Neil"]], "PROPER after a digit"),
]


@pytest.fixture(scope="module")
def computed(tmp_path_factory):
    from tests.calc.excel_cases import dynamic_arrays_computed

    return dynamic_arrays_computed(tmp_path_factory.mktemp("case") / "case.xlsx", CASES)


@pytest.mark.parametrize(("cell", "formula", "excel", "where"), CASES, ids=[c[3] for c in CASES])
def test_as_excel_spills(computed, cell, formula, excel, where):
    from tests.calc.excel_cases import spilled

    got = spilled(computed, cell, excel)
    assert got == excel, (formula, where)
