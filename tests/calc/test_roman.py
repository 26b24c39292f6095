"""ROMAN's form given as a logical value (calc/xlfuncs/math_trig/roman.py): FALSE is form 4,
TRUE form 0, as Excel reads them; the bridged `formulas` ROMAN read FALSE as 0.

Excel 16's values, cached in IronCalc's Excel-made MATH_AND_TRIGONOMETRY__ARABIC_ROMAN.xlsx
(ironcalc/IronCalc xlsx/tests/calc_tests, MIT or Apache-2.0), at the cells named."""

from __future__ import annotations

import pytest

#: (number, form, Excel's value, the book's cell)
CASES = [
    (99, False, "IC", "ROMAN!M6"),
    (469, False, "LDXIX", "ROMAN!M8"),
    (499, False, "ID", "ROMAN!M9"),
    (2596, False, "MMDVCI", "ROMAN!M13"),
    (3999, False, "MMMIM", "ROMAN!M14"),
    (3999.9999999, False, "MMMIM", "ROMAN!M15"),
    (499, True, "CDXCIX", "ROMAN!L9"),
    (499, 0, "CDXCIX", "ROMAN!J9"),
    (499, "2", "XDIX", "ROMAN!O9"),
    (499, 3, "VDIV", "ROMAN!E9"),
    (499, 5, "#VALUE!", "ROMAN!K9"),
    (4000, False, "#VALUE!", "ROMAN!M16"),
]


@pytest.fixture(scope="module")
def computed(tmp_path_factory):
    from tests.calc.excel_cases import cases_computed

    cells: dict[str, object] = {}
    for row, (number, form, _excel, _cell) in enumerate(CASES, start=1):
        cells.update({f"A{row}": number, f"B{row}": form, f"C{row}": f"=ROMAN(A{row},B{row})"})
    return cases_computed(tmp_path_factory.mktemp("roman") / "roman.xlsx", cells)


@pytest.mark.parametrize("row", range(1, len(CASES) + 1), ids=[c[3] for c in CASES])
def test_as_excel_answers(computed, row):
    assert computed.values[("S", f"C{row}")] == CASES[row - 1][2]
