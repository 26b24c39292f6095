"""Excel's `@` (implicit intersection, `_xlfn.SINGLE` in the file) in ordinary cells: the
fast engine does not know SINGLE, so such cells were all listed as not computed (about
1,000 in the issue's loan tracker); the pass at_sign (calc/formula/implicit.py) writes the intersected cell out."""

from __future__ import annotations

import openpyxl
from openpyxl.workbook.defined_name import DefinedName

from rates_xl.calc.fidelity import same
from rates_xl.calc.workbook import WorkbookCalculation
from tests.support import models


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
    ws["G2"] = "=_xlfn.SINGLE(INDEX(B2:B4,2))"  # @ over INDEX's one cell: B3
    ws["G4"] = "=_xlfn.SINGLE(INDEX(B2:B4,0))"  # @ over INDEX's whole column, in row 4: B4
    ws["G9"] = "=_xlfn.SINGLE(INDEX(B2:B4,0))"  # no cell of it in row 9: #VALUE!
    ws["H2"] = "=_xlfn.SINGLE(B2:B4*2)"  # @ over an array: not guessed
    wb.save(tmp_path / "loans.xlsx")
    result = WorkbookCalculation(tmp_path / "loans.xlsx").compute()
    assert result.value("Loans", "E3") == 500 and result.value("Loans", "E4") == 401
    assert result.value("Loans", "E9") == "#VALUE!" and result.value("Loans", "F3") == 250
    assert [result.value("Loans", cell) for cell in ("G2", "G4", "G9")] == [250, 400, "#VALUE!"]
    assert [c.address for c in result.skipped] == ["Loans!H2"]
    assert result.unknown_functions == {"SINGLE": ["Loans!H2"]}


def test_text_outside_ascii_before_the_at_does_not_move_the_rewrite():
    """formualizer counts token offsets in UTF-8 bytes: with "ß€" before the `@`, the cut fell
    three characters late and the formula came out mangled."""
    from rates_xl.calc.formula.calls import qualify
    from rates_xl.calc.formula.passes import Site, one
    from rates_xl.calc.formula.tree import Formula

    assert one("at_sign", '=IF("ß€"="x",0,_xlfn.SINGLE(A1:A10))', Site("S", 3, 2)) == '=IF("ß€"="x",0,A3)'
    assert qualify(Formula('=IF("ß€"=B1,A1,C2)'), "Data") == '=IF("ß€"=Data!B1,Data!A1,Data!C2)'


LOANS = "dataresearchlabs_MyLoanTracker_v010009_FREE.xlsx"
SCHEDULE = "Amortization Schedule"


@models.needed
def test_at_over_defined_names_as_in_the_loan_tracker(tmp_path):
    """The loan tracker's extra-payment and scheduled-payment columns ('Amortization
    Schedule'!E18:E537, I18:I537: `@` over names standing for whole columns of the schedule,
    and `@` around an IF of single values) were 1,040 cells not computed. Its last three rows
    are rebuilt from the model's own formulas and inputs; each cell equals Excel's value."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = SCHEDULE
    for cell in ("D13", "D14"):  # Optional_Extra_Payments, Scheduled_Payment_Amt
        ws[cell] = models.excel(LOANS, SCHEDULE, cell)
    names = {"Pmt_Nbr": "B", "Beginning_Bal": "D", "Early_Pmt": "E", "Sched_Pmt": "I"}
    for name, column in names.items():
        wb.defined_names[name] = DefinedName(name, attr_text=f"'{SCHEDULE}'!${column}$18:${column}$537")
    wb.defined_names["Optional_Extra_Payments"] = DefinedName("Optional_Extra_Payments", attr_text=f"'{SCHEDULE}'!$D$13")
    wb.defined_names["Scheduled_Payment_Amt"] = DefinedName("Scheduled_Payment_Amt", attr_text=f"'{SCHEDULE}'!$D$14")
    rows = range(376, 379)  # the last two payments, and the blank row after them
    for row in rows:
        for column in "BD":
            ws[f"{column}{row}"] = models.excel(LOANS, SCHEDULE, f"{column}{row}")
        for column in "EI":
            text = models.formula(LOANS, SCHEDULE, f"{column}{row}")
            assert "_xlfn.SINGLE(" in text
            ws[f"{column}{row}"] = text
    wb.save(tmp_path / "loans.xlsx")
    result = WorkbookCalculation(tmp_path / "loans.xlsx").compute()
    assert result.skipped == [] and result.unknown_functions == {}
    for row in rows:
        for column in "EI":
            ours, excel = result.value(SCHEDULE, f"{column}{row}"), models.excel(LOANS, SCHEDULE, f"{column}{row}")
            assert same(ours, excel), (column, row, ours, excel)
    assert result.value(SCHEDULE, "E378") == ""  # no payment: Excel's empty text
    # The last payment is the balance left (IF's other branch), not the scheduled amount.
    assert models.excel(LOANS, SCHEDULE, "I377") < models.excel(LOANS, SCHEDULE, "D14")


def test_at_over_a_name_that_is_not_one_range_or_around_an_array_is_listed(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for row in range(1, 4):
        ws[f"A{row}"] = row * 10
    wb.defined_names["Two"] = DefinedName("Two", attr_text="S!$A$1:$A$2,S!$A$3")
    wb.defined_names["Col"] = DefinedName("Col", attr_text="S!$A$1:$A$3")
    ws["B2"] = "=_xlfn.SINGLE(Col)+1"  # A2
    ws["B3"] = "=_xlfn.SINGLE(Two)"  # two areas: not guessed
    ws["C2"] = "=_xlfn.SINGLE(A1+_xlfn.SINGLE(Col))"  # single values: 10 + A2
    ws["D2"] = "=_xlfn.SINGLE(A1:A3*2)"  # an array: not guessed
    ws["E2"] = "=_xlfn.SINGLE(OFFSET(A1,0,0,3,1))"  # OFFSET's range, in row 2: A2
    wb.save(tmp_path / "names.xlsx")
    result = WorkbookCalculation(tmp_path / "names.xlsx").compute()
    assert result.value("S", "B2") == 21 and result.value("S", "C2") == 30 and result.value("S", "E2") == 20
    assert sorted(c.address for c in result.skipped) == ["S!B3", "S!D2"]
