"""The range operator over defined names (`SUM(FirstMonth:LastMonth)`, a model's usual way to
sum between two named cells): the smallest range holding every part, as over plain ranges
(Microsoft's "Calculation operators": `:` makes one reference to all the cells between two
references). The engine read `Start:Finish` as #VALUE!, `A1:Block` as a circular reference,
and `ROWS(Start:Finish)` as 1, silently (calc/formula/operators.py `named_range_operands`)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("engine", ["fast", "formulas"])
def test_a_range_between_named_cells_is_every_cell_between_them(tmp_path, engine):
    import xlsxwriter

    from rates_xl.calc.workbook import WorkbookCalculation

    path = tmp_path / "names.xlsx"
    made = xlsxwriter.Workbook(path)
    sheet, other = made.add_worksheet("S"), made.add_worksheet("Other")
    for row in range(1, 6):
        sheet.write_number(f"A{row}", row)
        other.write_number(f"C{row}", 10 * row)
    made.define_name("Start", "=S!$A$2")
    made.define_name("Finish", "=S!$A$4")
    made.define_name("Block", "=S!$A$3:$A$5")
    made.define_name("Far", "=Other!$C$2")
    made.define_name("FarEnd", "=Other!$C$3")
    cases = {"B1": "=SUM(Start:Finish)", "B2": "=SUM(A1:Block)", "B3": "=SUM(Start:A5)", "B4": "=ROWS(Start:Finish)",
             "B5": "=SUM(Finish:Start)", "B6": "=SUM(Far:FarEnd)", "B7": "=SUM(A1:B1:Start)", "B8": "=SUM(Start:Far)"}
    for cell, formula in cases.items():
        sheet.write_formula(cell, formula)
    made.close()
    result = WorkbookCalculation(path, full=True, engine_name=engine).compute()
    got = {cell: result.values[("S", cell)] for cell in cases}
    assert got == {"B1": 9, "B2": 15, "B3": 14, "B4": 3, "B5": 9, "B6": 50,
                   "B7": 1 + 2 + 9 + 15,  # A1:B1:Start is A1:B2
                   "B8": "#VALUE!"}  # two sheets: no range (Excel's #VALUE!)
    assert not result.skipped
