"""The corpus measure itself (tests/support/excel_corpus.py `measure_book`): what it counts as
wrong. A cell reading a volatile one holds the answer of the day Excel computed it (apache/poi's
Excel-made 56688_4.xlsx: `=EDATE(DATE_CELL,INCREMENT)` over `=TODAY()`, cached in 2014), so
where it differs from ours it is counted with TODAY() itself, not as wrong; one whose value is
the same is equal, and one the engine's check lists (`=1+1` cached 3) is still counted listed."""

from __future__ import annotations

from tests.calc.test_recalc import excel_saved
from tests.support.excel_corpus import measure_book


def test_a_cell_reading_today_is_not_wrong(tmp_path):
    cells = {"A2": "=TODAY()", "B2": "=EDATE(A2,2)", "C2": "=A2*0+5", "D2": "=1+1"}
    book = excel_saved(tmp_path / "today.xlsx", cells, {"A2": 41823, "B2": 41885, "C2": 5, "D2": 3})
    row = measure_book(book, keep=-1)
    assert row["cells"]["S!C2"][0] == "equal" and row["cells"]["S!D2"][0] == "flagged"
    assert "S!B2" not in row["cells"] and row["volatile"] == 2
    assert (row["formulas"], row["equal"], row["flagged"], row["wrong"]) == (2, 1, 1, 0)
