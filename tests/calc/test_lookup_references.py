"""XLOOKUP beside ':', or given where ROW, COLUMN, OFFSET, CELL or ISREF takes a reference,
answers a reference, as in Excel (the pass `lookup_references`, calc/formula/lookup_references.py).
Microsoft's XLOOKUP page, example 6, sums the range between two XLOOKUPs:
`=SUM(XLOOKUP(B3,B6:B10,E6:E10):XLOOKUP(C3,B6:B10,E6:E10))`. Before, the engine's XLOOKUP
answered a value: every such range was #REF!, ROW of it #REF!, ISREF of it FALSE, silently."""

from __future__ import annotations

from tests.calc.excel_cases import sheets_computed

#: Over B6:B10 = 6..10, E6:E10 = 60..100, F6:F10 = 600..1000, H1:K1 = 6..9, H2:K2 = 1..4,
#: B3 = 7, C3 = 9: (formula, Excel's value, worked from the cells the range covers).
CASES = [
    ("=SUM(_xlfn.XLOOKUP(B3,B6:B10,E6:E10):_xlfn.XLOOKUP(C3,B6:B10,E6:E10))", 240),  # E7:E9
    ("=SUM(E7:_xlfn.XLOOKUP(C3,B6:B10,E6:E10))", 240),
    ("=SUM(_xlfn.XLOOKUP(7,H1:K1,H2:K2):K2)", 9),  # across a row: I2:K2
    ("=SUM(_xlfn.XLOOKUP(7,B6:B10,E6:F10):F9)", 2640),  # a row of two columns: E7:F9
    ("=SUM(_xlfn.XLOOKUP(7.5,B6:B10,E6:E10,,-1):E9)", 240),  # exact or next smaller: 7
    ("=SUM(E6:_xlfn.XLOOKUP(7,B6:B10,E6:E10,,,-1))", 130),  # last to first: E6:E7
    ("=SUM(_xlfn.XLOOKUP(12,B6:B10,E6:E10):E9)", "#N/A"),  # nothing found
    ("=ROWS(_xlfn.XLOOKUP(6,B6:B10,E6:E10):_xlfn.XLOOKUP(10,B6:B10,E6:E10))", 5),
    # where a function takes a reference: the cell found (E8; J2 across)
    ("=ROW(_xlfn.XLOOKUP(8,B6:B10,E6:E10))", 8), ("=COLUMN(_xlfn.XLOOKUP(8,H1:K1,H2:K2))", 10),
    ("=OFFSET(_xlfn.XLOOKUP(8,B6:B10,E6:E10),1,0)", 90), ("=SUM(OFFSET(_xlfn.XLOOKUP(8,B6:B10,E6:E10),0,0,2,1))", 170),
    ("=ISREF(_xlfn.XLOOKUP(8,B6:B10,E6:E10))", True), ('=CELL("address",_xlfn.XLOOKUP(8,B6:B10,E6:E10))', "$E$8"),
    ("=ROW(_xlfn.XLOOKUP(12,B6:B10,E6:E10))", "#N/A"),
    # where its value is read: as before
    ("=_xlfn.XLOOKUP(8,B6:B10,E6:E10)", 80), ('=COUNTIF(_xlfn.XLOOKUP(8,B6:B10,E6:F10),">100")', 1),
]


def _cells() -> dict[str, object]:
    cells: dict[str, object] = {"B3": 7, "C3": 9}
    cells |= {f"{letter}{row}": row * scale for row in range(6, 11) for letter, scale in (("B", 1), ("E", 10), ("F", 100))}
    cells |= {f"{column}{row}": value for row, start in ((1, 6), (2, 1))
              for column, value in zip("HIJK", range(start, start + 4), strict=True)}
    return cells


def test_xlookup_beside_a_colon_or_taken_as_a_reference_is_the_reference_it_finds(tmp_path):
    cells = _cells() | {f"M{row}": formula for row, (formula, _) in enumerate(CASES, start=1)}
    values = sheets_computed(tmp_path / "xlookup.xlsx", {"S": cells}).values
    assert [values[("S", f"M{row}")] for row in range(1, len(CASES) + 1)] == [excel for _, excel in CASES]


def test_xlookup_beside_a_colon_that_may_answer_a_value_is_listed(tmp_path):
    """Given if_not_found, XLOOKUP may answer a value where a reference is needed; over a
    lookup array not written as one range its direction is unknown: listed, never a guess."""
    listed = ["=SUM(_xlfn.XLOOKUP(7,B6:B10,E6:E10,0):E9)", "=SUM(_xlfn.XLOOKUP(7,B6:C10,E6:E10):E9)"]
    cells = _cells() | {f"M{row}": formula for row, formula in enumerate(listed, start=1)}
    result = sheets_computed(tmp_path / "listed.xlsx", {"S": cells}, listing=True)
    reasons = {skip.cell: skip.reason for skip in result.skipped}
    assert sorted(reasons) == ["M1", "M2"], reasons
    assert "if_not_found" in reasons["M1"] and "lookup array" in reasons["M2"]


def test_let_switch_iferror_taken_as_a_reference_are_listed(tmp_path):
    """The engine answers LET, SWITCH, IFERROR and IFNA as a value where a reference is taken
    (#REF! beside ':' and in ROW, FALSE in ISREF); what Excel answers there is not known
    here: listed, never that guess. Where their value is read they compute as before."""
    listed = ["=SUM(E6:_xlfn.LET(_xlpm.x,E8,_xlpm.x))", "=ROW(_xlfn.LET(_xlpm.x,E8,_xlpm.x))",
              "=SUM(E6:_xlfn.SWITCH(1,1,E8,E9))", "=ISREF(IFERROR(E8,1))", "=OFFSET(_xlfn.IFNA(E8,1),1,0)",
              "=ROWS(_xlfn.LET(_xlpm.a,E6,_xlpm.a):E8)"]
    computed = [("=_xlfn.LET(_xlpm.x,E8,_xlpm.x+1)", 81), ("=SUM(E6:E7,_xlfn.SWITCH(1,1,E8,E9))", 210),
                ("=ROW(E8)+IFERROR(1/0,2)", 10), ("=ISREF(IF(TRUE,E8))", True)]
    cells = _cells() | {f"M{row}": formula for row, formula in enumerate(listed, start=1)}
    cells |= {f"N{row}": formula for row, (formula, _) in enumerate(computed, start=1)}
    result = sheets_computed(tmp_path / "unknown.xlsx", {"S": cells}, listing=True)
    reasons = {skip.cell: skip.reason for skip in result.skipped}
    assert sorted(reasons) == [f"M{row}" for row in range(1, len(listed) + 1)], reasons
    assert all("taken as a reference" in reason for reason in reasons.values()), reasons
    assert [result.values[("S", f"N{row}")] for row in range(1, len(computed) + 1)] == [v for _, v in computed]
