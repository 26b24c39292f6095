"""SUMIF, COUNTIF and their family given INDIRECT over a list of sheet names, within SUMPRODUCT
(the "3-D SUMIF" of consolidation books: Exceljet's `SUMPRODUCT(SUMIF(INDIRECT("'"&sheets&"'!"&
"D5:D16"),E5,INDIRECT("'"&sheets&"'!"&"E5:E16")))`): computed once per sheet and added up
(the pass `indirect_lists`, calc/formula/indirect_lists.py). Before, each such cell was listed,
not computed. LibreOffice agrees on the COUNTIF (6) and cannot compute the SUMIF pairing two
lists (Err:504). N and SUBTOTAL likewise (`SUMPRODUCT(N(INDIRECT(...)))`, a cell of each sheet)."""

from __future__ import annotations

from tests.calc.excel_cases import sheets_computed

#: Over sheets Jan, Feb, Mar, each A1:A3 = x, y, x and B1:B3 = 10 * month + row; their names in
#: S!B1:B3 and in S!F1:H1 (a row); S!B5 names a sheet the book does not have.
CASES = [
    ("D1", '=SUMPRODUCT(SUMIF(INDIRECT("\'"&B1:B3&"\'!A1:A3"),"x",INDIRECT("\'"&B1:B3&"\'!B1:B3")))', 24 + 44 + 64),
    ("D2", '=SUMPRODUCT(COUNTIF(INDIRECT(B1:B3&"!A1:A3"),"x"))', 6),
    ("D3", '=SUMPRODUCT(SUMIF(INDIRECT(B$1:B$3&"!A:A"),"x",INDIRECT(B$1:B$3&"!B:B")))', 132),
    ("D4", '=SUMPRODUCT(SUMIFS(INDIRECT(F1:H1&"!B1:B3"),INDIRECT(F1:H1&"!A1:A3"),"y"))', 12 + 22 + 32),
    ("D5", '=SUMPRODUCT(COUNTIF(INDIRECT(B4:B5&"!A1:A3"),"x"))', "#REF!"),  # B4 empty, B5 no sheet
    ("D6", '=SUMPRODUCT(COUNTIF(INDIRECT(B1:B3&"!A1:A3"),{"x";"y";"x"}))', None),  # an array beside: listed
    ("D7", '=SUMPRODUCT(N(INDIRECT(B1:B3&"!B2")))', 12 + 22 + 32),  # one cell of each sheet
    ("D8", '=SUMPRODUCT(SUBTOTAL(9,INDIRECT(B1:B3&"!B1:B3")))', 36 + 66 + 96),
]


def test_a_conditional_sum_over_a_list_of_sheets_is_computed_sheet_by_sheet(tmp_path):
    sheets = {name: {f"A{r}": "xyx"[r - 1] for r in range(1, 4)} | {f"B{r}": 10 * month + r for r in range(1, 4)}
              for month, name in enumerate(("Jan", "Feb", "Mar"), start=1)}
    summary = {"B1": "Jan", "B2": "Feb", "B3": "Mar", "B5": "NoSheet", "F1": "Jan", "G1": "Feb", "H1": "Mar"}
    computed = sheets_computed(tmp_path / "lists.xlsx", {"S": summary | {cell: f for cell, f, _ in CASES}} | sheets,
                               listing=True)
    listed = {s.cell for s in computed.skipped}
    got = {cell: None if cell in listed else computed.values[("S", cell)] for cell, _, _ in CASES}
    assert got == {cell: excel for cell, _, excel in CASES}
