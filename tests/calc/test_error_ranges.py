"""A range given as an error to COUNTIF, SUMIF, their family, MATCH, XMATCH, LOOKUP or XLOOKUP
answers it, as Excel passes an argument's error on (the pass `error_ranges`,
calc/formula/error_ranges.py). Before, COUNTIF(INDIRECT("NoSheet!B:B"),">2") was 0 and
IFNA(MATCH(2,INDIRECT("NoSheet!B:B"),0),-1) was -1, silently, where Excel has #REF!."""

from __future__ import annotations

from tests.calc.excel_cases import sheets_computed

#: (formula, Excel's value) over B1:B5 = 1..5, C1:C5 = 10..50 and the error cell E1 (#N/A).
ERRORS = [('=COUNTIF(INDIRECT("NoSheet!B:B"),">2")', "#REF!"),  # a sheet the book does not have
          ('=SUMIF(B1:B5,">2",OFFSET(C1,-3,0,5,1))', "#REF!"),  # past the sheet's top
          ('=SUMIFS(C1:C5,INDIRECT("hola"),">2")', "#REF!"),
          ('=COUNTIFS(B1:B5,">2",(OFFSET(B1,0,-5,5,1)),">0")', "#REF!"),
          ('=COUNTIF(#REF!,">2")', "#REF!"),  # what a deleted sheet leaves
          ('=IFERROR(COUNTIF(INDIRECT("NoSheet!B:B"),1),-1)', -1),
          # references: as before
          ('=COUNTIF(INDIRECT("B1:B5"),">2")', 3), ('=SUMIF(B1:B5,">2",OFFSET(C1,0,0,5,1))', 120),
          ('=COUNTIF(OFFSET(E1,0,0),"#N/A")', 1),  # one cell holding an error: counted, not answered
          ('=COUNTIFS(OFFSET(B1,0,0,5,1),">2",C1:C5,">30")', 2),
          ('=IFNA(MATCH(2,INDIRECT("NoSheet!B:B"),0),-1)', "#REF!"), ('=MATCH(2,OFFSET(B1,-3,0,5,1),0)', "#REF!"),
          ('=_xlfn.XMATCH(2,INDIRECT("hola"))', "#REF!"), ('=LOOKUP(2,INDIRECT("NoSheet!B:B"),C1:C5)', "#REF!"),
          ('=LOOKUP(2,B1:B5,INDIRECT("hola"))', "#REF!"), ('=_xlfn.XLOOKUP(2,INDIRECT("hola"),C1:C5)', "#REF!"),
          ('=MATCH(2,INDIRECT("B1:B5"),0)', 2), ('=LOOKUP(2,OFFSET(B1,0,0,5,1),C1:C5)', 20),
          ('=_xlfn.XLOOKUP(3,B1:B5,OFFSET(C1,0,0,5,1))', 30)]


def test_a_range_given_as_an_error_answers_it(tmp_path):
    cells = {f"{letter}{row}": row * scale for row in range(1, 6) for letter, scale in (("B", 1), ("C", 10))}
    cells |= {"E1": "=NA()"} | {f"G{row}": formula for row, (formula, _) in enumerate(ERRORS, start=1)}
    values = sheets_computed(tmp_path / "errors.xlsx", {"S": cells}).values
    assert [values[("S", f"G{row}")] for row in range(1, len(ERRORS) + 1)] == [excel for _, excel in ERRORS]
