"""A reference of several cells answered where one value is wanted, in an ordinary cell: the
cell implicit intersection picks (the pass `intersected_references`, calc/formula/implicit.py),
and INDEX of several rows and columns given only a row: #REF! wherever it is (the pass `index`,
calc/formula/calls.py). Before, the engine spilled the reference and answered its first cell's
value, silently: `=INDEX(B1:D3,0,2)` in row 10 was 2 where Excel has #VALUE!, `=INDEX(B:B,0)`
in row 20 was 1 where Excel has B20 (empty: 0), `=OFFSET(B1,0,0,3,1)+1` in row 3 was 2 where
Excel has B3+1, `=CHOOSE(2,B1:B3,C1:C3)+0` in row 12 was 3 where Excel has #VALUE!,
`=INDEX(B1:D3,2)+1` was 5 where Excel has #REF! (formulas_test.xlsx
LOOKUP!R53, `INDEX(C52:E53,2)`, is #REF!)."""

from __future__ import annotations

from tests.calc.excel_cases import corpus_workbook, sheets_computed

#: (cell, formula, Excel's value) over B1:D3 = 1..9 row by row. Excel's: Microsoft's "Implicit
#: intersection operator: @" ("If the value is a range, then pick the cell on the same row or
#: column as the formula"), INDEX's page (a row or column of 0: the whole column or row).
CASES = [
    ("F2", "=INDEX(B1:D3,0,2)", 5), ("F10", "=INDEX(B1:D3,0,2)", "#VALUE!"),  # C1:C3 in row 2; none in 10
    ("G2", "=INDEX(B1:D3,2,0)", "#VALUE!"), ("C5", "=INDEX(B1:D3,2,0)", 5),  # B2:D2 in column G: none; C
    ("F3", "=INDEX(B1:D3,E9,2)", 8), ("F11", "=INDEX(B1:D3,E9,2)", "#VALUE!"),  # E9: empty, a row of 0
    ("G3", "=OFFSET(B1,0,0,3,1)+1", 8), ("G12", "=OFFSET(B1,0,0,3,1)+1", "#VALUE!"),
    ("H1", "=IF(TRUE,INDEX(B:B,0),0)", 1), ("H20", "=IF(TRUE,INDEX(B:B,0),0)", 0),  # B20: empty
    ("H2", "=INDEX(B:D,0,3)*10", 60), ("H21", "=INDEX(B:D,0,3)*10", 0),
    ("J3", '=INDIRECT("B1:B3")&"x"', "7x"),
    ("K3", "=CHOOSE(2,B1:B3,C1:C3)+0", 8), ("K12", "=CHOOSE(2,B1:B3,C1:C3)+0", "#VALUE!"),
    ("K2", "=CHOOSE(1,B:B)", 4), ("K22", "=CHOOSE(1,B:B)", 0),
    # Taken as the reference it is: not intersected.
    ("I1", "=SUM(INDEX(B1:D3,0,2))", 15), ("I2", "=SUMPRODUCT(INDEX(B1:D3,0,2)*2)", 30),
    ("I3", "=MATCH(8,INDEX(B1:D3,0,2),0)", 3), ("I7", "=ROWS(INDEX(B1:D3,0,2))", 3),
    ("K1", "=SUM(CHOOSE(2,B1:B3,C1:C3))", 15),
    ("I4", "=INDEX(B1:D3,2,3)", 6),  # one cell
    # Several rows and columns, only a row: #REF! (formulas_test.xlsx LOOKUP!R53).
    ("I5", "=INDEX(B1:D3,2)+1", "#REF!"), ("I6", "=IF(TRUE,INDEX(B:D,2))", "#REF!"),
    ("I8", "=SUM(INDEX(B1:D3,2))", "#REF!"), ("I9", "=INDEX(B1:D3,-1)*2", "#VALUE!"),
]


def test_a_reference_where_one_value_is_wanted_is_intersected(tmp_path):
    cells = {f"{letter}{row}": (row - 1) * 3 + column for row in range(1, 4) for column, letter in enumerate("BCD", start=1)}
    values = sheets_computed(tmp_path / "references.xlsx", {"S": cells | {cell: f for cell, f, _ in CASES}}).values
    assert {cell: values[("S", cell)] for cell, _, _ in CASES} == {cell: excel for cell, _, excel in CASES}


def test_index_of_a_flat_range_given_only_a_row_is_excels_ref_error():
    """The proof of the #REF! cases above, read at test time from the Excel-made book."""
    formulas = corpus_workbook("formulas_test.xlsx")["LOOKUP"]
    values = corpus_workbook("formulas_test.xlsx", data_only=True)["LOOKUP"]
    assert (formulas["R53"].value, values["R53"].value) == ("=INDEX(C52:E53,2)", "#REF!")
