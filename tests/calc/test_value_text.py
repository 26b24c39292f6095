"""VALUE of a time alone, a date that is none and a percentage (calc/xlfuncs/text/value_text.py).
The bridged `formulas` VALUE put a time on 1 January of the current year (VALUE("14:30") was
46023.604...), rolled "2024-02-30" on to 1 March 2024 and answered #VALUE! for "50%".

Excel's answers: Microsoft's VALUE page (`=VALUE("16:48:00")-VALUE("12:00:00")` is 0.2, the time
16:48 being 0.7 of a day); a date that does not exist and a percentage as formualizer's own VALUE
and Excel's cell entry read them; minutes or seconds past 59 as pycel's Excel-made text.xlsx
shows Excel reading them (TextDates!A30:A48: "23:99" is 1.02708, "24:99" and "0:0:10000" are
left as text). An hour past 23 is not settled: the cell is listed (#NAME?)."""

from __future__ import annotations

import pytest

from tests.calc.financial_book import computed

CASES = {
    'VALUE("16:48:00")-VALUE("12:00:00")': 0.2,
    'VALUE("16:48:00")': 0.7,
    'VALUE("12:00")': 0.5,
    'VALUE("10:30 PM")': 0.9375,
    'VALUE("12:15 AM")': 15 / 1440,
    'VALUE("2024-02-30")': "#VALUE!",
    'VALUE("2023-02-29")': "#VALUE!",
    'VALUE("2024-01-10")': 45301,
    'VALUE("2024-01-10 14:30")': 45301 + 0.6041666666666666,
    'VALUE("50%")': 0.5,
    'VALUE("$1,000")': 1000,
    'VALUE("25:00")': "#NAME?",
    'VALUE("12:60")': 13 / 24,
    'VALUE("23:99")': 1479 / 1440,
    'VALUE("0:59:99")': 3639 / 86400,
    'VALUE("59:9999.0")': 13539 / 86400,
    'VALUE("23:59.")': 1439 / 1440,
    'VALUE("24:99")': "#VALUE!",
    'VALUE("0:0:10000")': "#VALUE!",
    'VALUE("23:59.:0")': "#NAME?",
}


def test_value_of_times_dates_and_percentages(tmp_path):
    values, _listed = computed(tmp_path, list(CASES))
    assert dict(zip(CASES, values, strict=True)) == pytest.approx(CASES)
