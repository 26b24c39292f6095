"""SUMIF and AVERAGEIF read their sum range at the criteria range's size from its top-left cell,
and the IFS functions given ranges of different sizes are #VALUE!, as Microsoft's SUMIF,
AVERAGEIF and SUMIFS pages say (calc/formula/criteria_ranges.py). `SUMIF(B1:B5,">2",C1)` was C1
alone, silently, where Excel adds C3:C5."""

from __future__ import annotations

from tests.calc.excel_cases import sheets_computed

#: Each formula beside the one Excel computes (its sum range at the criteria range's size),
#: over B1:B5 = 1..5, C1:D5 = 10..50 and 100..500, and Data!A1:A5 = 1000..5000.
PAIRS = [('=SUMIF(B1:B5,">2",C1)', '=SUMIF(B1:B5,">2",C1:C5)'),
         ('=SUMIF(B1:B5,">2",C1:C2)', '=SUMIF(B1:B5,">2",C1:C5)'),
         ('=SUMIF(B1:B5,">2",$C$1:$D$1)', '=SUMIF(B1:B5,">2",C1:C5)'),
         ('=SUMIF(B1:B5,">2",Data!A1)', '=SUMIF(B1:B5,">2",Data!A1:A5)'),
         ('=AVERAGEIF(B1:B5,"<3",D1)', '=AVERAGEIF(B1:B5,"<3",D1:D5)'),
         ('=SUMIF(B:B,">2",C1)', '=SUMIF(B:B,">2",C:C)'),
         ('=SUMIF(B1:C5,">2",D1)', '=SUMIF(B1:C5,">2",D1:E5)'),
         ('=SUMIFS(C1:C2,B1:B5,">2")', "=#VALUE!"), ('=COUNTIFS(B1:B5,">2",C1:C4,">0")', "=#VALUE!"),
         ('=_xlfn.MAXIFS(D1:D5,B1:B5,">2",C1:D5,">0")', "=#VALUE!"),
         ('=AVERAGEIFS(C:C,B:B,">2")', '=AVERAGEIFS(C1:C5,B1:B5,">2")')]


def test_sum_ranges_at_the_criteria_ranges_size(tmp_path):
    cells = {f"{letter}{row}": row * scale for row in range(1, 6) for letter, scale in (("B", 1), ("C", 10), ("D", 100))}
    cells |= {f"{column}{row}": pair[i] for row, pair in enumerate(PAIRS, start=1) for i, column in enumerate("GH")}
    data = {f"A{row}": row * 1000 for row in range(1, 6)}
    values = sheets_computed(tmp_path / "sumif.xlsx", {"S": cells, "Data": data}).values
    got = [values[("S", f"G{row}")] for row in range(1, len(PAIRS) + 1)]
    assert got == [values[("S", f"H{row}")] for row in range(1, len(PAIRS) + 1)]
    assert got[:5] == [120, 120, 120, 12000, 150]

