"""CONVERT's units `formulas`' table lacks, as Excel converts them (calc/xlfuncs/engineering/
units.py): the pond, with the metric prefixes, and GRT; the bridged CONVERT answered #N/A.

Excel 16's values, cached in IronCalc's Excel-made ENGINEERING__CONVERT.xlsx
(ironcalc/IronCalc xlsx/tests/calc_tests, MIT or Apache-2.0), at the cells named; the
neighbouring units of the book beside them, as the bridged CONVERT gave them."""

from __future__ import annotations

import pytest

#: (number, from, to, Excel's value, the book's cell)
CASES = [
    (1, "pond", "N", 0.00980665, "Force!C6"),
    (5, "pond", "N", 0.04903325, "Force!G6"),
    (0.05, "Mpond", "N", 490.3325000000001, "Force!J6"),
    (1, "GRT", "m3", 2.8316846592, "Volume!C39"),
    (1, "lbf", "N", 4.4482216152605005, "Force!C5"),
    (0.05, "Mlbf", "N", "#N/A", "Force!J5"),  # (no prefix on a unit that is not metric)
    (1, "Pica^3", "m3", 4.3903956618655696e-11, "Volume!C38"),
]


@pytest.fixture(scope="module")
def computed(tmp_path_factory):
    from tests.calc.excel_cases import cases_computed

    cells: dict[str, object] = {}
    for row, (number, source, target, _excel, _cell) in enumerate(CASES, start=1):
        cells.update({f"A{row}": number, f"B{row}": source, f"C{row}": target,
                      f"D{row}": f"=CONVERT(A{row},B{row},C{row})"})
    return cases_computed(tmp_path_factory.mktemp("convert") / "convert.xlsx", cells)


@pytest.mark.parametrize("row", range(1, len(CASES) + 1), ids=[c[4] for c in CASES])
def test_as_excel_converts(computed, row):
    from tests.calc.excel_cases import equal

    got, excel = computed.values[("S", f"D{row}")], CASES[row - 1][3]
    assert equal(got, excel), (got, excel)  # (the corpus' measure: lbf's own is Excel's within an ulp)
