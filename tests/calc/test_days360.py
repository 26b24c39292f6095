"""DAYS360 as Excel computes it (calc/xlfuncs/dates/days360.py): Excel's day 0, dates rounded to
the second, the US method's end of February, the method read from a logical, a number or the
text "TRUE". formualizer answered DAYS360(10, 0) -9 (Excel -10), DAYS360(TRUE, 0) 0 (-1),
DAYS360(45992.000001, 46000.999999) 8 (9), and #VALUE! for the method "TRUE".

Excel 16's values, cached in IronCalc's Excel-made DATE_AND_TIME__DAYS_DAYS360.xlsx
(ironcalc/IronCalc xlsx/tests/calc_tests, MIT or Apache-2.0), column D and H, rows named."""

from __future__ import annotations

import datetime

import pytest

D = datetime.datetime
#: row: (end, start, Excel's DAYS360(start, end)) as the book's A, B and D
DATES = {
    2: (D(2025, 1, 10), D(2025, 1, 1), 9),
    3: (D(2026, 1, 1), D(2025, 1, 1), 360),
    5: (D(9990, 5, 12), D(1990, 5, 12), 2880000),
    6: (D(2025, 1, 1), D(2025, 1, 10), -9),
    12: (D(2024, 3, 1), D(2024, 2, 28), 3),
    13: (D(2024, 3, 1), D(2024, 2, 1), 30),
    14: (D(2025, 2, 28), D(2024, 2, 29), 358),  # the end's last day of February stays
    15: (D(2025, 3, 1), D(2025, 2, 28), 1),
    16: (D(2025, 7, 31), D(2025, 6, 30), 30),
    17: (D(2025, 7, 31), D(2025, 7, 30), 0),
    18: (D(2024, 2, 28), D(2024, 1, 31), 28),
    20: (D(2025, 1, 10, 23, 59), D(2025, 1, 10, 0, 1), 0),
    21: (D(2025, 1, 14, 0, 1), D(2025, 1, 13, 23, 59), 1),
    22: (9, 6, 3),
    24: (46000.999999, 45992.000001, 9),  # to the second: day 46001
    25: (-5, -10, "#NUM!"),
    26: (1, 0, 1),
    28: (10, None, 10),
    29: (None, 10, -10),  # day 0 is January 0, 1900
    36: ("abc", "def", "#VALUE!"),
    37: (True, False, 1),
    40: (None, True, -1),
    41: (None, False, 0),
    44: (0.00625, 1, -1),
}
#: row: (method as the book's I, Excel's DAYS360(1 Jan 2025, 31 Jan 2025, method): H)
METHODS = {2: (True, 29), 3: (False, 30), 4: (18, 29), 5: ("abc", "#VALUE!"), 6: (-2, 29), 7: (0, 30),
           9: (None, 30), 10: (0.9999, 29), 11: (0.0001, 29), 12: ("TRUE", 29), 13: ('"TRUE"', "#VALUE!"),
           14: ('" TRUE"', "#VALUE!")}


@pytest.fixture(scope="module")
def computed(tmp_path_factory):
    from tests.calc.excel_cases import cases_computed

    cells: dict[str, object] = {}
    for row, (end, start, _excel) in DATES.items():
        cells.update({f"A{row}": end, f"B{row}": start, f"D{row}": f"=DAYS360(B{row},A{row})"})
    for row, (method, _excel) in METHODS.items():
        cells.update({f"I{row}": method, f"H{row}": f"=DAYS360(DATE(2025,1,1),DATE(2025,1,31),I{row})"})
    return cases_computed(tmp_path_factory.mktemp("days360") / "cases.xlsx", cells)


@pytest.mark.parametrize("row", list(DATES))
def test_dates_as_excel_counts_them(computed, row):
    assert computed.values[("S", f"D{row}")] == DATES[row][2]


@pytest.mark.parametrize("row", list(METHODS))
def test_the_method_as_excel_reads_it(computed, row):
    assert computed.values[("S", f"H{row}")] == METHODS[row][1]
