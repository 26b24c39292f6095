"""COMPLEX, IMARGUMENT and IMCSC where the bridged `formulas` answered otherwise than Excel
(calc/xlfuncs/engineering/complex.py): a suffix left empty is "i" (#VALUE!), the argument of a
number on an axis is its angle (#DIV/0! wherever the real part was near 0), and 1 / sin of a
real number reads as a number ("1.86+-0.0i": #NUM! in IMREAL).

Excel 16's values, cached in IronCalc's Excel-made ENGINEERING__COMPLEXs.xlsx
(ironcalc/IronCalc xlsx/tests/calc_tests, MIT or Apache-2.0), at the cells named."""

from __future__ import annotations

import pytest

from tests.calc.excel_cases import equal

#: (formula over A, B and C, A, B, C (None: an empty cell), Excel's value, the book's cell)
CASES = [
    ("COMPLEX(A,B,C)", 1.23, 9.5121, None, "1.23+9.5121i", "Sheet1!D7"),
    ("COMPLEX(A,B,C)", -12, 0, None, "-12", "Sheet1!D12"),
    ("COMPLEX(A,B,C)", 7, -12.6, None, "7-12.6i", "Sheet1!D15"),
    ("COMPLEX(A,B,C)", "=1/0", 12, None, "#DIV/0!", "Sheet1!D24"),
    ("COMPLEX(A,B,C)", 1, -2, "j", "1-2j", "Sheet1!D3"),
    ("COMPLEX(A,B,C)", 1, 2, 0, "#VALUE!", "Sheet1!D9"),
    ("IMARGUMENT(A)", "5i", None, None, 1.5707963267948966, "Sheet1!H5"),
    ("IMARGUMENT(A)", "1.2E-45-3i", None, None, -1.5707963267948966, "Sheet1!H13"),
    ("IMARGUMENT(A)", "0.0000000000000001", None, None, 0, "Sheet1!H16"),
    ("IMARGUMENT(A)", "-12", None, None, 3.141592653589793, "Sheet1!H12"),
    ("IMARGUMENT(A)", "0", None, None, "#DIV/0!", "Sheet1!H22"),
    ("IMARGUMENT(A)", "j", None, None, 1.5707963267948966, "Sheet1!H27"),
    ("IMREAL(_xlfn.IMCSC(A))", "-12", None, None, 1.86367959778244, "Sheet1!V12"),
    ("IMAGINARY(_xlfn.IMCSC(A))", "-12", None, None, 0, "Sheet1!W12"),
    ("IMREAL(_xlfn.IMCSC(A))", "1E-20", None, None, 1e20, "Sheet1!V19"),
    ("IMREAL(_xlfn.IMCSC(A))", "5", None, None, -1.04283521277141, "Sheet1!V6"),
    ("IMAGINARY(_xlfn.IMCSC(A))", "5i", None, None, -0.0134765058305891, "Sheet1!W5"),
    ("IMREAL(_xlfn.IMCSC(A))", "0", None, None, "#NUM!", "Sheet1!V22"),
]


@pytest.fixture(scope="module")
def computed(tmp_path_factory):
    from tests.calc.excel_cases import rows_computed

    return rows_computed(tmp_path_factory.mktemp("complex") / "complex.xlsx", CASES, arguments="ABC")


@pytest.mark.parametrize("row", range(1, len(CASES) + 1), ids=[f"{c[0]}:{c[5]}" for c in CASES])
def test_as_excel_answers(computed, row):
    got, excel = computed.values[("S", f"D{row}")], CASES[row - 1][4]
    assert equal(got, excel), (CASES[row - 1], got)
