"""SUMPRODUCT over whole columns over all their 1,048,576 rows, as Excel computes it (the pass
`column_products`, calc/formula/column_products.py). formualizer cut each whole column at its own
last used row: columns of different lengths answered #VALUE! (`SUMPRODUCT((B:B>0)*(C:C>0))`
over a longer B, Excel's count of the rows), and the empty rows past them were left out, silently
(`SUMPRODUCT(--(B:B=""))` 0, Excel's count of the empty cells)."""

from __future__ import annotations

from rates_xl.calc.formula.passes import one
from tests.calc.excel_cases import sheets_computed

#: (formula, Excel's value) over B1:B5 = 30..70, C1:C3 = 1..3, the sheet's last value in D8,
#: and Data!B1:B2 = 1, 2: by the definition of SUMPRODUCT over 1,048,576 rows.
CASES = [('=SUMPRODUCT((B:B>40)*(C:C))', 3), ('=SUMPRODUCT((B:B>0)*(C:C>0))', 3),
         ('=SUMPRODUCT(--(B:B=""))', 1048576 - 5), ('=SUMPRODUCT(--(C:C<>"x"))', 1048576),
         ('=SUMPRODUCT(B:B,C:C)', 30 + 80 + 150), ('=SUMPRODUCT((B:B>25)+(C:C>1))', 7),
         ('=SUMPRODUCT(1/B:B)', "#DIV/0!"), ('=SUMPRODUCT(ISBLANK($B:$B)*1)', 1048576 - 5),
         ('=SUMPRODUCT(--(B:C=""))', 2 * 1048576 - 8), ('=SUMPRODUCT((Data!B:B>1)*(B:B>0))', 1),
         ('=SUMPRODUCT((B:B>40)*(C:C=$C$2))', 0)]


#: B1:B5 = 30..70, C1:C3 = 1..3.
COLUMNS = {**{f"B{row}": row * 10 + 20 for row in range(1, 6)}, **{f"C{row}": row for row in range(1, 4)}}


def test_whole_columns_of_different_lengths_over_all_their_rows(tmp_path):
    formulas = {f"F{row}": formula for row, (formula, _excel) in enumerate(CASES, start=1)}
    values = sheets_computed(tmp_path / "products.xlsx", {"S": {**COLUMNS, "D8": "x", **formulas},
                                                          "Data": {"B1": 1, "B2": 2}}).values
    assert [values[("S", f"F{row}")] for row in range(1, len(CASES) + 1)] == [excel for _, excel in CASES]


#: The same in array formulas (Ctrl+Shift+Enter): SUM, COUNT, COUNTA, MAX, MIN over whole columns.
ARRAYS = [("=SUM((B:B>0)*(C:C>0))", 3), ('=SUM(--(B:B=""))', 1048576 - 5), ('=COUNT(IF(C:C="",1))', 1048576 - 3),
          ("=MAX((B:B>0)*(C:C))", 3), ("=MIN(IF(B:B>0,B:B))", 30), ("=COUNTA(IF(B:B>40,B:B))", 1048576),
          ("=MIN(IF(B:B>100,B:B))", 0), ("=SUM(B:B)", 250)]


def test_array_formulas_over_whole_columns_of_different_lengths(tmp_path):
    from openpyxl.worksheet.formula import ArrayFormula

    formulas = {f"F{row}": ArrayFormula(f"F{row}", formula) for row, (formula, _excel) in enumerate(ARRAYS, start=1)}
    values = sheets_computed(tmp_path / "arrays.xlsx", {"S": {**COLUMNS, **formulas}}).values
    assert [values[("S", f"F{row}")] for row in range(1, len(ARRAYS) + 1)] == [excel for _, excel in ARRAYS]


def test_left_to_the_engine_where_a_value_is_not_read_row_by_row():
    """A whole column inside MAX, a range of some rows beside it, a name: not rewritten."""
    for formula in ("=SUMPRODUCT((B:B=MAX(B:B))*1)", "=SUMPRODUCT((B:B>0)*C1:C10)", "=SUMPRODUCT((B:B>0)*Rates)",
                    "=SUMPRODUCT(B1:B5,C1:C5)"):
        assert one("column_products", formula) == formula
    assert one("column_products", "=1+SUMPRODUCT(B:B,$C:$C)") == \
        "=1+(SUMPRODUCT(B$1:B$1,$C$1:$C$1)+524287.5*SUMPRODUCT(B$2:B$3,$C$2:$C$3))"


def test_row_of_a_whole_column_read_as_an_array_is_listed(tmp_path):
    """`LOOKUP(2,1/(B:B<>""),ROW(B:B))`, the last used row: the engine answered #N/A, and
    `SUMPRODUCT(MAX((B:B>0)*ROW(B:B)))` 1 where Excel has 5, silently. ROW of a range of some
    rows, and of a whole column as one value, stay computed."""
    listed = ['=LOOKUP(2,1/(B:B<>""),ROW(B:B))', "=SUMPRODUCT(MAX((B:B>0)*ROW(B:B)))", "=MATCH(3,ROW(B:B),0)",
              "=INDEX(ROW(B:B),3)", "=MATCH(3,COLUMN(3:3),0)"]
    cells = {**{f"B{row}": row for row in range(1, 6)}, **{f"D{row}": f for row, f in enumerate(listed, start=1)},
             "E1": "=SUMPRODUCT(ROW(B1:B5)*(B1:B5>2))", "E2": "=ROW(B:B)"}
    result = sheets_computed(tmp_path / "rows.xlsx", {"S": cells}, listing=True)
    reasons = {s.cell: s.reason for s in result.skipped}
    assert sorted(reasons) == [f"D{row}" for row in range(1, len(listed) + 1)]
    assert "read as an array: all the sheet's rows" in reasons["D1"]
    assert (result.values[("S", "E1")], result.values[("S", "E2")]) == (12, 1)


def test_sort_and_unique_of_a_whole_column_are_listed(tmp_path):
    """`UNIQUE(B:B)` ends with the 0 of the column's empty cells in Excel and `SORT(B:B)` spills
    all its rows: listed. Filtered first, or of a range of some rows, computed."""
    cells = {**{f"B{row}": 6 - row for row in range(1, 6)}, "D1": "=_xlfn.UNIQUE(B:B)", "D2": "=_xlfn._xlws.SORT(B:B)",
             "D3": "=_xlfn.SORTBY(B:B,B:B,-1)", "E1": '=SUM(_xlfn.UNIQUE(_xlfn._xlws.FILTER(B:B,B:B<>"")))',
             "E2": "=_xlfn._xlws.SORT(B1:B5)"}
    result = sheets_computed(tmp_path / "sorted.xlsx", {"S": cells}, listing=True)
    assert {s.cell: "all of whose cells Excel reads" in s.reason for s in result.skipped} == dict.fromkeys(
        ["D1", "D2", "D3"], True)
    assert (result.values[("S", "E1")], result.values[("S", "E2")]) == (15, 1)


def test_filter_of_whole_columns_of_different_lengths(tmp_path):
    """`FILTER(B:B,C:C>0)` over a longer B was #VALUE! (the engine cut each column at its own last
    used row); Excel filters every row. Where the include argument keeps the empty rows past the
    used ones (`C:C=""`), Excel's answer is as long as the sheet: #NAME?, calc's not computed."""
    # (each in a column of its own: an array answer has room below it)
    cells = {**COLUMNS, "F1": "=_xlfn._xlws.FILTER(B:B,C:C>0)", "G1": "=ROWS(_xlfn._xlws.FILTER(B:B,C:C>0))",
             "H1": "=SUM(_xlfn._xlws.FILTER(B:B,B:B>40))", "I1": '=_xlfn._xlws.FILTER(B:B,C:C>5,"none")',
             "J1": "=COLUMNS(_xlfn._xlws.FILTER(B:C,B:B>40))", "K1": '=_xlfn._xlws.FILTER(B:B,C:C="")'}
    values = sheets_computed(tmp_path / "filters.xlsx", {"S": cells}).values
    assert [values[("S", f"{column}1")] for column in "FGHIJK"] == [30, 3, 180, "none", 2, "#NAME?"]
