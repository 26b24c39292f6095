"""A dynamic array the engine cannot compute, or holds at Excel's values (default mode), keeps
the values the file cached over its stored range; the cells reading it with a spill reference
(`A1#`, stored as `_xlfn.ANCHORARRAY(A1)`) read those values, as Excel reads its spill, on its
own sheet and from another (calc/engines/formualizer/prepare.py: such an anchor spills nowhere
in the engine's copy, where `A1#` was #REF!, unexplained)."""

from __future__ import annotations


def as_excel_saves(raw, path):
    """XlsxWriter's book as Excel saves one: no fullCalcOnLoad (its cached values are answers)."""
    import re
    import zipfile

    with zipfile.ZipFile(raw) as src, zipfile.ZipFile(path, "w") as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            dst.writestr(item, re.sub(rb'\s*fullCalcOnLoad="1"', b"", data) if item.filename == "xl/workbook.xml" else data)
    return path


def _column_spilled(folder, formula, values, readers):
    """A book Excel saved: S!A1:A3 spilling `formula` (its cached `values`), and `readers`
    (cell -> (formula, Excel's value))."""
    import xlsxwriter

    made = xlsxwriter.Workbook(folder / "raw.xlsx")
    sheet = made.add_worksheet("S")
    sheet.write_dynamic_array_formula("A1:A3", formula, None, values[0])
    for row, value in enumerate(values[1:], 2):
        sheet.write_number(f"A{row}", value)
    for cell, (text, cached) in readers.items():
        sheet.write_formula(cell, text, None, cached)
    made.close()
    return as_excel_saves(folder / "raw.xlsx", folder / "spilled.xlsx")


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


def test_a_spill_held_at_excel_s_values_is_read_through_its_spill_reference(tmp_path):
    """Default mode holds a dynamic array nothing new reaches at Excel's values; a cell NOW()
    makes recomputed reads it through `A1#` (#REF! against Excel's 6, kept stale by the check)."""
    from rates_xl.calc.workbook import WorkbookCalculation

    path = _column_spilled(tmp_path, "=SEQUENCE(3)", [1, 2, 3], {"B1": ("=NOW()", 46000), "C1": ("=SUM(A1#)+B1*0", 6)})
    calc = WorkbookCalculation(path)
    result = calc.compute()
    assert ("S", "C1") in calc.scope.recompute and ("S", "A1") not in calc.scope.recompute
    assert result.values[("S", "C1")] == 6
    assert not result.stale and not result.skipped


def test_a_spill_held_for_the_check_is_read_through_its_spill_reference(tmp_path):
    """The check holds a volatile spill (RANDARRAY here; a RATES_* curve in
    tests/calc/test_calc.py) at Excel's values; held cell by cell it spilled nowhere, its
    readers through `A1#` were #REF!, and the check kept them stale at Excel's values beside
    the array's new ones (SUM 0.6 beside three new random numbers)."""
    from rates_xl.calc.workbook import WorkbookCalculation

    path = _column_spilled(tmp_path, "=RANDARRAY(3)", [0.1, 0.2, 0.3], {"B1": ("=SUM(A1#)", 0.6), "C1": ("=ROWS(A1#)", 3)})
    for full in (False, True):
        result = WorkbookCalculation(path, full=full).compute()
        drawn = [result.values[("S", f"A{row}")] for row in (1, 2, 3)]
        assert result.values[("S", "B1")] == sum(drawn) and result.values[("S", "C1")] == 3
        assert drawn != [0.1, 0.2, 0.3] and not result.stale, full


def test_held_values_are_written_as_literals_that_read_back_the_same():
    """A held spill's values as an array constant, each read back by the engine as held: every
    digit of a number, a text that reads as an error kept a text, an error the engine reads;
    none where a literal cannot hold one (nothing, a long text, #SPILL!): the cells are then
    held one by one, as before."""
    import formualizer

    from rates_xl.calc.engines.formualizer.cells import literal, spill_literal
    from rates_xl.functions.values import ErrorLikeText

    rows = [[-0.39999999999999947, 5e-324, True], ["a \"quoted\" text", ErrorLikeText("#N/A"), "#DIV/0!"]]
    formula = spill_literal(rows)
    book = formualizer.Workbook()
    book.add_sheet("S")
    book.set_formula("S", 1, 1, formula)
    book.evaluate_all()
    read = [[book.get_value("S", r, c) for c in (1, 2, 3)] for r in (1, 2)]
    assert read[0] == [-0.39999999999999947, 5e-324, True]
    assert read[1][:2] == ['a "quoted" text', "#N/A"] and read[1][2] == {"type": "Error", "kind": "Div"}
    assert [literal(v) for v in (None, "x" * 256, "#SPILL!", "#CALC!", float("nan"))] == [None] * 5
    assert spill_literal([[1, None]]) is None and spill_literal([]) is None
