"""OFFSET given a negative height or width (the pass `negative_sizes`, calc/formula/offsets.py):
the range reaches up or left from the cell the offset lands on, as Excel answers it (Exceljet's
OFFSET page, IronCalc's and Apache POI's OFFSET: see the module). The engine answered #REF!, so
`=SUM(OFFSET(T5,0,0,-3,1))`, the three cells to T5, was #REF! where Excel has 180."""

from __future__ import annotations

from tests.calc.excel_cases import sheets_computed

#: (cell, formula, Excel's value) over T1:W5 = row * 10 + column (T is column 20: T1 30, W5 73).
CASES = [
    ("A1", "=SUM(OFFSET(T5,0,0,-3,1))", 180),  # T3:T5
    ("A2", "=SUM(OFFSET(T5,0,0,-3,-2))", 180),  # S3:T5, S empty
    ("A3", "=SUM(OFFSET(W5,-1,0,2,-2))", 62 + 63 + 72 + 73),  # V4:W5
    ("A4", "=SUM(OFFSET(T5,,,-3))", 180),  # rows and columns left empty
    ("A5", "=SUM(OFFSET(T5,0,0,-2.7,1))", 130),  # truncated toward 0: T4:T5
    ("A6", "=SUM(OFFSET(T5,0,0,1-T1/10,1))", 130),  # computed: -2, T4:T5
    ("A7", "=SUM(OFFSET(T5,0.5,0,1-T1/10,1))", 130),  # and the offset truncated first
    ("A8", "=SUM(OFFSET(T5,0,0,COUNTA(T1:T5)-1,1))", 70),  # computed, positive: T5:T8
    ("A9", "=SUM(OFFSET(OFFSET(W5,0,0,-2,-2),0,0,-1,-1))", 62),  # V4:W5, then V4
    ("B1", "=ROWS(OFFSET(T5,0,0,-3))", 3),
    ("B2", "=OFFSET(T5,0,0,-1,1)", 70),
    ("B4", "=OFFSET(T5,0,0,-3,1)*2", 120),  # T3:T5 intersected in row 4: T4
    ("B3", "=SUM(OFFSET(T2,0,0,-3,1))", "#REF!"),  # rows 0 to 2: past the sheet's top
    ("B5", "=SUM(OFFSET(T5,0,0,0,1))", "#REF!"),
    ("B8", "=SUM(OFFSET(T1,0,0,2,0.9))", 30 + 40),  # a size below 1 is one cell (ROW_COLUM.xlsx OFFSET!K48)
    ("B9", "=SUM(OFFSET(T1,0,0,2,T1/100))", 30 + 40),  # computed: 0.3
    ("C1", "=SUM(OFFSET(T5,0,0,-0.5,1))", "#REF!"),  # truncated to 0
    ("B6", "=SUM(OFFSET(T5,0,0,T9,1))", "#REF!"),  # T9 empty: a height of 0
    ("B7", "=SUM(OFFSET(T5,0,0,NA(),1))", "#N/A"),
]


def test_offset_with_a_negative_height_or_width_reaches_up_or_left(tmp_path):
    cells = {f"{letter}{row}": row * 10 + column for row in range(1, 6)
             for column, letter in enumerate("TUVW", start=20)}
    values = sheets_computed(tmp_path / "offsets.xlsx", {"S": cells | {cell: f for cell, f, _ in CASES}}).values
    assert {cell: values[("S", cell)] for cell, _, _ in CASES} == {cell: excel for cell, _, excel in CASES}
