"""Excel's `@` (implicit intersection, `_xlfn.SINGLE` in the file) in ordinary cells: the
fast engine does not know SINGLE, so such cells were all listed as not computed (about
1,000 in the issue's loan tracker); the pass at_sign (calc/formula/ranges.py) writes the intersected cell out."""

from __future__ import annotations

import openpyxl

from rates_xl.calc.workbook import WorkbookCalculation


def test_implicit_intersection_is_computed_and_the_rest_listed(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Loans"
    for row, amount in [(2, 100), (3, 250), (4, 400)]:
        ws.cell(row=row, column=2, value=amount)
    ws["E3"] = "=_xlfn.SINGLE(B2:B4)*2"  # @B2:B4 in row 3: B3
    ws["E4"] = "=_xlfn.SINGLE(Loans!$B:$B)+1"  # a whole column, sheet-qualified: B4
    ws["E9"] = "=_xlfn.SINGLE(B2:B4)"  # no cell of the range in row 9: #VALUE!
    ws["F3"] = "=SUM(_xlfn.SINGLE(B2:B4))"  # @ inside a range argument: still one cell
    ws["G2"] = "=_xlfn.SINGLE(INDEX(B2:B4,2))"  # @ over a function's result: not guessed
    wb.save(tmp_path / "loans.xlsx")
    result = WorkbookCalculation(tmp_path / "loans.xlsx").compute()
    assert result.value("Loans", "E3") == 500 and result.value("Loans", "E4") == 401
    assert result.value("Loans", "E9") == "#VALUE!" and result.value("Loans", "F3") == 250
    assert [c.address for c in result.skipped] == ["Loans!G2"]
    assert result.unknown_functions == {"SINGLE": ["Loans!G2"]}


def test_text_outside_ascii_before_the_at_does_not_move_the_rewrite():
    """formualizer counts token offsets in UTF-8 bytes: with "ß€" before the `@`, the cut fell
    three characters late and the formula came out mangled."""
    from rates_xl.calc.formula.calls import qualify
    from rates_xl.calc.formula.passes import Site, one
    from rates_xl.calc.formula.tree import Formula

    assert one("at_sign", '=IF("ß€"="x",0,_xlfn.SINGLE(A1:A10))', Site("S", 3, 2)) == '=IF("ß€"="x",0,A3)'
    assert qualify(Formula('=IF("ß€"=B1,A1,C2)'), "Data") == '=IF("ß€"=Data!B1,Data!A1,Data!C2)'
