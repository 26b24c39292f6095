"""A dynamic array the engine cannot compute keeps the values the file cached over its stored
range, listed; the cells reading it with a spill reference (`A1#`, stored as
`_xlfn.ANCHORARRAY(A1)`) read those values, as Excel reads its spill, on its own sheet and from
another (calc/engines/formualizer/prepare.py: such an anchor spills nowhere in the engine's
copy, where `A1#` was #REF!, unexplained)."""

from __future__ import annotations


def test_a_spill_not_computed_is_read_through_its_spill_reference(tmp_path):
    import xlsxwriter

    from rates_xl.calc.workbook import WorkbookCalculation

    path = tmp_path / "kept.xlsx"
    made = xlsxwriter.Workbook(path)
    sheet, other = made.add_worksheet("S"), made.add_worksheet("Other")
    sheet.write_dynamic_array_formula("A1:A3", "=SEQUENCE(3)+MYFUNC()", None, 1)  # MYFUNC: no function of Excel's
    sheet.write_number("A2", 2)
    sheet.write_number("A3", 3)
    sheet.write_dynamic_array_formula("C1:D2", "=SEQUENCE(2,2)*MYFUNC()", None, 10)
    for cell, value in (("D1", 20), ("C2", 30), ("D2", 40)):
        sheet.write_number(cell, value)
    sheet.write_number("F1", 5)
    sheet.write_formula("B1", "=SUM(A1#)", None, 6)
    sheet.write_formula("B2", "=ROWS(A1#)+F1", None, 8)
    sheet.write_formula("B3", "=SUM(C1#)/COLUMNS(C1#)", None, 50)
    other.write_formula("A1", "=SUM(S!A1#)*2", None, 12)
    made.close()

    result = WorkbookCalculation(path, full=True).compute()
    got = {key: result.values[key] for key in (("S", "B1"), ("S", "B2"), ("S", "B3"), ("Other", "A1"))}
    assert got == {("S", "B1"): 6, ("S", "B2"): 8, ("S", "B3"): 50, ("Other", "A1"): 12}
    listed = {(s.sheet, s.cell) for s in result.skipped}
    assert listed == {("S", c) for c in ("A1", "A2", "A3", "C1", "D1", "C2", "D2")}  # the arrays kept, listed
    assert not result.stale
