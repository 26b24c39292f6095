"""INDEX of whole columns or rows picks any of their cells, as Excel does (the pass
`index_whole_lines`, calc/formula/ranges.py). formualizer cuts a whole column to its last used row
and answered #REF! past it, silently: `INDEX(B:B,COUNTA(B:B)+1)`, the cell after a list, is the
empty cell in Excel (0; ISBLANK's TRUE), a row past the sheet's last #REF!."""

from __future__ import annotations

from tests.calc.excel_cases import sheets_computed

#: (formula, Excel's value) over B1:D3 = 1..9 row by row, on the sheet S and the sheet Data.
CASES = [("=INDEX(B:B,COUNTA(B:B)+1)", 0), ("=ISBLANK(INDEX(B:B,200))", True), ("=INDEX($B:$D,200,2)", 0),
         ("=INDEX(B:B,2)", 4), ("=INDEX(Data!C:C,3)", 8), ("=INDEX(2:2,1,3)", 5), ("=INDEX(5:5,1,200)", 0),
         ("=SUM(INDEX(B:B,2):INDEX(B:B,500))", 11), ("=INDEX(B:B,1048576)", 0), ("=INDEX(B:B,1048577)", "#REF!"),
         ("=SUM(INDEX(B:D,0,2))", 15), ("=INDEX(B:B,MATCH(7,B:B,0))", 7)]


def test_index_reads_any_cell_of_whole_lines(tmp_path):
    cells = {f"{letter}{row}": (row - 1) * 3 + column for row in range(1, 4) for column, letter in enumerate("BCD", start=1)}
    formulas = {f"F{row}": formula for row, (formula, _excel) in enumerate(CASES, start=1)}
    values = sheets_computed(tmp_path / "index.xlsx", {"S": cells | formulas, "Data": cells}).values
    assert [values[("S", f"F{row}")] for row in range(1, len(CASES) + 1)] == [excel for _, excel in CASES]
