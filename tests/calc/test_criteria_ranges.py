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


#: (formula, Excel's value) over B1:B5 = 1..5, C1:C5 = 10..50 and the error cell E1 (#N/A). A range
#: given as an error answers it (`erroneous_ranges`); before, each was 0 or a sum, silently.
ERRORS = [('=COUNTIF(INDIRECT("NoSheet!B:B"),">2")', "#REF!"),  # a sheet the book does not have
          ('=SUMIF(B1:B5,">2",OFFSET(C1,-3,0,5,1))', "#REF!"),  # past the sheet's top
          ('=SUMIFS(C1:C5,INDIRECT("hola"),">2")', "#REF!"),
          ('=COUNTIFS(B1:B5,">2",(OFFSET(B1,0,-5,5,1)),">0")', "#REF!"),
          ('=COUNTIF(#REF!,">2")', "#REF!"),  # what a deleted sheet leaves
          ('=IFERROR(COUNTIF(INDIRECT("NoSheet!B:B"),1),-1)', -1),
          # references: as before
          ('=COUNTIF(INDIRECT("B1:B5"),">2")', 3), ('=SUMIF(B1:B5,">2",OFFSET(C1,0,0,5,1))', 120),
          ('=COUNTIF(OFFSET(E1,0,0),"#N/A")', 1),  # one cell holding an error: counted, not answered
          ('=COUNTIFS(OFFSET(B1,0,0,5,1),">2",C1:C5,">30")', 2)]


def test_a_range_given_as_an_error_answers_it(tmp_path):
    cells = {f"{letter}{row}": row * scale for row in range(1, 6) for letter, scale in (("B", 1), ("C", 10))}
    cells |= {"E1": "=NA()"} | {f"G{row}": formula for row, (formula, _) in enumerate(ERRORS, start=1)}
    values = sheets_computed(tmp_path / "errors.xlsx", {"S": cells}).values
    assert [values[("S", f"G{row}")] for row in range(1, len(ERRORS) + 1)] == [excel for _, excel in ERRORS]
