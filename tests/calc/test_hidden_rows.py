"""SUBTOTAL over rows a sheet hides (calc/formula/hidden_rows.py): rows filtered out are left out
by every function_num, rows hidden by hand by 101 to 111 alone (Microsoft's SUBTOTAL page). The
figures are apache/poi's Excel-made ConditionalFormattingSamples.xlsx ('Regional sales2' and
'Regional sales3': the same eight regions, filtered, or with one row hidden by hand); the
engine summed every row (9,071,953), silently where no cached value showed it."""

from __future__ import annotations

SALES = [("NorthWest", 1781345), ("West", 534389), ("SouthWest", 1009268), ("South", 899999),
         ("Central", 2345184), ("NorthEast", 900000), ("East", 1567090), ("Territories", 34678)]


def _book(path, hidden, filtered):
    import openpyxl
    from openpyxl.worksheet.filters import AutoFilter, CustomFilter, CustomFilters, FilterColumn
    from openpyxl.worksheet.table import Table

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Sales"
    sheet.append([])
    sheet.append([])
    sheet.append(["Region", "Sales"])
    for row in SALES:
        sheet.append(list(row))
    table = Table(displayName="Regions", ref="A3:B11", autoFilter=AutoFilter(ref="A3:B11"))
    if filtered:
        table.autoFilter.filterColumn = [FilterColumn(colId=1, customFilters=CustomFilters(
            customFilter=[CustomFilter(operator="greaterThan", val="1000000")]))]
    sheet.add_table(table)
    for row in hidden:
        sheet.row_dimensions[row].hidden = True
    sheet["B12"] = "=SUBTOTAL(109,Regions[Sales])"
    sheet["B13"] = "=SUBTOTAL(9, Regions[Sales])"
    sheet["B14"] = "=SUBTOTAL(2,B4:B11)+SUBTOTAL(102,B4:B11)"
    sheet["B15"] = "=SUBTOTAL(9,B:B)"
    sheet["B16"] = "=AGGREGATE(9,5,B4:B11)"
    sheet["B17"] = "=SUM(B4:B11)"
    book.save(path)
    return path


def _computed(path):
    from rates_xl.calc.workbook import WorkbookCalculation

    result = WorkbookCalculation(path, full=True).compute()
    return {cell: result.values.get(("Sales", cell)) for cell in ("B12", "B13", "B14", "B16", "B17")}, \
        sorted(s.cell for s in result.skipped)


def test_a_filtered_table(tmp_path):
    """Rows 5, 7, 9 and 11 filtered out (their sales below 1,000,000, as the filter asks): both
    function_nums leave them out."""
    values, listed = _computed(_book(tmp_path / "filtered.xlsx", [5, 7, 9, 11], filtered=True))
    visible = sum(s for r, (_, s) in enumerate(SALES, start=4) if r not in (5, 7, 9, 11))
    assert values == {"B12": visible, "B13": visible, "B14": 8, "B16": visible, "B17": sum(s for _, s in SALES)}
    assert listed == ["B15"]  # a whole column: not written here


def test_a_row_hidden_by_hand(tmp_path):
    """'Regional sales3': row 7 hidden, no filter on: SUBTOTAL(9) counts it (9,071,953),
    SUBTOTAL(109) does not (8,171,954)."""
    values, _ = _computed(_book(tmp_path / "by_hand.xlsx", [7], filtered=False))
    assert values["B13"] == 9071953 and values["B12"] == values["B16"] == 8171954
    assert values["B14"] == 8 + 7


# AGGREGATE's options (calc/formula/hidden_rows.py `_aggregate`, `aggregate_functions`): Excel's
# answers in the Excel-made functions-excel-2010.xlsx of LibreOffice's tests (ClosedXML's copy,
# Tests/Resource/TryToLoad/LO), Sheet2. C1:F11 as that sheet holds them (row 6 hidden by hand, a
# nested AGGREGATE and SUBTOTAL in rows 10 and 11, an error in E5); row 18 + n gives option n, each
# column a function (its options written where the sheet reads them from A18:A25, the same number).
_SHEET = {
    "C": [15, 77, "=K3", 28, 31, 96, 77, 53, 34, "=_xlfn.AGGREGATE(1,4,D1:D11)", "=SUBTOTAL(4,D1:D11)"],
    "D": [8, 65, 60, 63, 53, 71, 55, 83, -500, 91, 89],
    "E": [15, 77, "=K3", 28, "=1/0", 12, 77, 53, 34, "=_xlfn.AGGREGATE(1,4,D2:D11)", "=SUBTOTAL(4,D1:D11)"],
    "F": [15, 77, "=L3", 28, "=2.8/0.1", 28, 77, 53, 34, "=_xlfn.AGGREGATE(1,4,D2:D11)", "=SUBTOTAL(4,D1:D11)"],
}
# Functions 1 to 12 over C1:C11 (C18:N25 where they read C): options 0, 1, 4 and 5; 2, 3, 6 and 7
# answer the same over C, which holds no error.
_EXCEL_AGGREGATE = {
    0: [49, 9, 9, 96, 15, 400626533260800, 28.062430400804562, 26.457513110645905, 441, 787.5, 700, 34],
    1: [43.125, 8, 8, 77, 15, 4173193054800, 23.344852598745252, 21.837110042311, 345, 544.9821428571429,
        476.859375, 32.5],
    4: [49.50413223140495, 11, 11, 96, 12.545454545454545, 4.573698186081024e+17, 30.643332458992404,
        29.217271109464395, 544.5454545454545, 939.0138241923374, 853.6489310839429, 34],
    5: [44.85454545454546, 10, 10, 91, 12.545454545454545, 4764268943834400, 27.9127329575057, 26.48034355972978,
        448.54545454545456, 779.1206611570249, 701.2085950413224, 32.5],
}
# N18:U25 as written, each (function, range, k, Excel's answer): 12 MEDIAN, 13 MODE.SNGL, 14 LARGE,
# 15 SMALL, 16 PERCENTILE.INC, 17 QUARTILE.INC, 18 PERCENTILE.EXC, 19 QUARTILE.EXC.
_EXCEL_12_TO_19 = {
    0: [(12, "C", None, 34), (13, "F", None, 77), (14, "C", 2, 77), (15, "C", 2, 28), (16, "C", 0.4, 31.6),
        (17, "C", 1, 30), (18, "C", 0.8, 77), (19, "C", 1, 29)],
    1: [(12, "C", None, 32.5), (13, "F", None, 77), (14, "C", 2, 77), (15, "C", 2, 28), (16, "C", 0.4, 30.8),
        (17, "C", 2, 32.5), (18, "C", 0.3, 29.4), (19, "C", 2, 32.5)],
    2: [(12, "E", None, 32), (13, "F", None, 77), (14, "D", 1, 91), (15, "D", 2, 8), (16, "D", 0.4, 60),
        (17, "D", 2, 63), (18, "D", 0.3, 54.2), (19, "D", 2, 63)],
    3: [(12, "C", None, 32.5), (13, "F", None, 77), (14, "C", 2, 77), (15, "C", 2, 28), (16, "C", 0.4, 30.8),
        (17, "C", 2, 32.5), (18, "C", 0.3, 29.4), (19, "C", 2, 32.5)],
    4: [(12, "C", None, 34), (13, "F", None, 77), (14, "C", 2, 91), (15, "C", 2, 15), (16, "C", 0.4, 31),
        (17, "C", 1, 29), (18, "C", 0.8, 85.40000000000002), (19, "C", 1, 28)],
    5: [(12, "C", None, 32.5), (13, "F", None, 77), (14, "C", 1, 91), (15, "C", 2, 15), (16, "C", 0.4, 30.6),
        (17, "C", 2, 32.5), (18, "C", 0.3, 28.6), (19, "C", 2, 32.5)],
    6: [(12, "E", None, 32), (13, "F", None, 77), (14, "D", 1, 91), (15, "D", 2, 8), (16, "D", 0.4, 60),
        (17, "D", 2, 63), (18, "D", 0.3, 54.2), (19, "D", 2, 63)],
    7: [(12, "C", None, 32.5), (13, "F", None, 77), (14, "D", 1, 91), (15, "D", 2, 8), (16, "D", 0.4, 58),
        (17, "D", 2, 61.5), (18, "D", 0.3, 53.6), (19, "D", 2, 61.5)],
}


def _aggregate_book(path):
    """The sheet above, each AGGREGATE with Excel's answer (`cells`), and those whose one range
    its hidden rows split (options 1, 3, 5 and 7 of functions 14 to 19: listed)."""
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Sheet2"
    for column, values in _SHEET.items():
        for row, value in enumerate(values, start=1):
            sheet[f"{column}{row}"] = value
    sheet["K3"] = 30
    sheet.row_dimensions[6].hidden = True
    cells, split = {}, []
    for option, answers in _EXCEL_AGGREGATE.items():
        for function_num, answer in enumerate(answers[:11], start=1):
            for also in (option, option + 2):
                at = sheet.cell(20 + also, 4 + function_num, f"=_xlfn.AGGREGATE({function_num},{also},C1:C11)")
                cells[at.coordinate] = answer
    for option, row in _EXCEL_12_TO_19.items():
        for column, (function_num, data, k, answer) in enumerate(row, start=20):
            more = "" if k is None else f",{k}"
            at = sheet.cell(20 + option, column, f"=_xlfn.AGGREGATE({function_num},{option},{data}1:{data}11{more})")
            if function_num >= 14 and option % 2:
                split.append(at.coordinate)
            else:
                cells[at.coordinate] = answer
    sheet["A40"] = 5
    sheet["B40"] = "=_xlfn.AGGREGATE(9,A40,C1:C9)"  # options in a cell: not known when rewritten
    sheet["B42"] = "=_xlfn.AGGREGATE(9,6,C1:C5)"  # no hidden row in its range
    cells["B42"] = sum(_SHEET["C"][i] for i in (0, 1, 3, 4)) + 30
    sheet["B43"] = "=_xlfn.AGGREGATE(14,6,C1:C5,2)"  # one range, no hidden row: written as LARGE
    cells["B43"] = 31
    book.save(path)
    return path, cells, split


def test_aggregate_over_a_row_hidden_by_hand_as_its_options_say(tmp_path):
    """Options 1, 3, 5 and 7 leave row 6 out, the others count it (and 0 to 3 leave out the nested
    AGGREGATE and SUBTOTAL, 2, 3, 6 and 7 the errors): every function's answer Excel's. The
    options argument is not a reference: "AGGREGATE given 2 on a sheet that hides rows" listed
    them all before, the engine counted row 6 whatever options were read from a cell, and
    answered #VALUE! for functions 12 to 19."""
    from rates_xl.calc.workbook import WorkbookCalculation

    path, cells, split = _aggregate_book(tmp_path / "aggregate.xlsx")
    result = WorkbookCalculation(path, full=True).compute()
    listed = {s.cell: s.reason for s in result.skipped}
    differ = {cell: (result.values.get(("Sheet2", cell)), answer) for cell, answer in cells.items()
              if not isinstance(result.values.get(("Sheet2", cell)), int | float)
              or abs(result.values[("Sheet2", cell)] - answer) > 1e-12 * max(1.0, abs(answer))}
    assert differ == {}, (differ, listed)
    assert len(cells) == 88 + 40 + 2 and len(split) == 24
    # What is not written: options in a cell, one range its hidden rows split
    assert sorted(listed) == sorted(["B40", *split]), listed
    assert "options (A40)" in listed["B40"]
    assert all("takes one range" in listed[cell] for cell in split)


def test_aggregate_of_functions_12_to_19_in_a_book_hiding_nothing(tmp_path):
    """AGGREGATE(15,6,array,k), SMALL ignoring errors (the common way to find the k-th match), was
    the engine's #VALUE! (unlisted where no cached value showed it); now SMALL of the array
    without its errors. A function number read from a cell is listed."""
    import openpyxl

    from rates_xl.calc.workbook import WorkbookCalculation

    book = openpyxl.Workbook()
    sheet = book.active
    for row, value in enumerate([15, 77, 30, 28, 31], start=1):
        sheet.cell(row, 1, value)
    sheet["A7"] = 14
    sheet["B1"] = "=_xlfn.AGGREGATE(15,6,A1:A5/(A1:A5>20),2)"  # 77, 30, 28, 31 and an error
    sheet["B2"] = "=_xlfn.AGGREGATE(12,4,A1:A5)"
    sheet["B3"] = "=_xlfn.AGGREGATE(9,6,A1:A5)"
    sheet["B4"] = "=_xlfn.AGGREGATE(A7,6,A1:A5,1)"
    sheet["B5"] = "=_xlfn.AGGREGATE(14,6,A1:A6,1)+_xlfn.AGGREGATE(13,6,A1:A6)"  # an empty A6; no mode: #N/A
    # Options 0 to 3 leave out the SUBTOTAL and AGGREGATE cells read: over what a function answers
    # (a reference) or a name, which those are is not read here. Option 6 leaves none out, and is
    # written as LARGE(IF(ISERROR(X),"",...)), which the analysis lists over OFFSET's array.
    sheet["B6"] = "=_xlfn.AGGREGATE(14,0,OFFSET(A1,0,0,5),1)"
    sheet["B7"] = "=_xlfn.AGGREGATE(14,6,OFFSET(A1,0,0,5),1)"
    sheet["B8"] = "=_xlfn.AGGREGATE(14,0,Five,1)"
    book.defined_names["Five"] = openpyxl.workbook.defined_name.DefinedName("Five", attr_text="Sheet!$A$1:$A$5")
    book.save(tmp_path / "book.xlsx")
    result = WorkbookCalculation(tmp_path / "book.xlsx", full=True).compute()
    assert [s.cell for s in result.skipped] == ["B4", "B6", "B7", "B8"]
    assert [result.values[("Sheet", f"B{row}")] for row in (1, 2, 3, 5)] == [30, 30, 181, "#N/A"]


def _nested_book(path):
    """Excel's book as it saves one: SUBTOTALs over ranges holding a subtotal the engine cannot
    compute (it also calls MYFUNC, no function of Excel's), each cell with Excel's value."""
    import xlsxwriter

    made = xlsxwriter.Workbook(path)
    sheet = made.add_worksheet("S")
    for row, (number, text) in enumerate([(1, "x"), (2, "y"), (3, "z")]):
        sheet.write_number(row, 0, number)
        sheet.write_string(row, 2, text)
    sheet.write_formula("A4", "=SUBTOTAL(9,A1:A3)+MYFUNC()", None, 6)
    sheet.write_formula("A5", "=SUBTOTAL(9,A1:A4)", None, 6)  # the nested A4 left out
    sheet.write_formula("A6", "=A4*2", None, 12)
    sheet.write_formula("C4", '=IF(MYFUNC(),SUBTOTAL(3,C1:C3),"none")', None, "none")
    sheet.write_formula("C5", "=SUBTOTAL(3,C1:C4)", None, 3)
    sheet.write_formula("C6", "=C4", None, "none")
    made.close()
    return path


def test_a_subtotal_not_computed_is_still_left_out_by_a_subtotal_reading_it(tmp_path):
    """SUBTOTAL leaves out the subtotals inside its ranges ("nested subtotals are ignored to avoid
    double counting", Microsoft's SUBTOTAL page). A subtotal the engine cannot compute keeps the
    value the file cached, listed; written into the engine's copy as that plain value, it was
    counted: `SUBTOTAL(9,A1:A4)` 12 where Excel has 6, silently (calc/engines/formualizer/cells.py
    `kept_subtotal`). The cell reading it as a value reads Excel's value."""
    from rates_xl.calc.workbook import WorkbookCalculation

    result = WorkbookCalculation(_nested_book(tmp_path / "nested.xlsx"), full=True).compute()
    listed = {s.cell for s in result.skipped}
    got = {cell: result.values[("S", cell)] for cell in ("A4", "A5", "A6", "C4", "C5", "C6")}
    assert got == {"A4": 6, "A5": 6, "A6": 12, "C4": "none", "C5": 3, "C6": "none"}
    assert listed == {"A4", "C4"}
    assert not result.stale


def test_the_exact_engine_prints_no_traceback_for_a_formula_it_cannot_compute(tmp_path):
    """The `formulas` engine's dispatcher logged the nested book's unreadable formula with its
    traceback (60 lines on the terminal); the summary names the unknown function instead (its cell
    kept at the file's value, listed)."""
    from tests.support.commands import fresh_env, rates_xl

    _nested_book(tmp_path / "nested.xlsx")
    done = rates_xl("calc", "nested.xlsx", "--full", "--engine", "formulas", "--no-progress", "-o", "out.xlsx",
                    cwd=tmp_path, env=fresh_env(tmp_path / "home"))
    from rates_xl.calc.cli_summary import EXIT_ERROR_CELLS

    assert done.returncode == EXIT_ERROR_CELLS, done.stderr  # (cells not computed: listed)
    assert "Traceback" not in done.stderr + done.stdout and "Failed DISPATCHING" not in done.stderr
    assert "calls MYFUNC, SUBTOTAL, which the formulas engine does not know" in done.stdout  # kept at the file's value


def test_a_subtotal_kept_at_its_value_is_left_out_by_a_subtotal_recomputed(tmp_path):
    """Default mode recomputes what a new answer (NOW here) reaches and holds every other
    formula at Excel's value: A4, a subtotal, held as a plain value, was counted by the
    recomputed A5, 12 against Excel's 6, kept stale by the check (silently in a book whose
    values cannot be checked, a manual-mode one Excel did not recalculate)."""
    from rates_xl.calc.workbook import WorkbookCalculation
    from tests.calc.test_recalc import excel_saved

    path = excel_saved(tmp_path / "kept.xlsx",
                       {"A1": 1, "A2": 2, "A3": 3, "A4": "=SUBTOTAL(9,A1:A3)", "B1": "=NOW()",
                        "A5": "=SUBTOTAL(9,A1:A4)+B1*0", "C1": "=SUBTOTAL(9,A1:A3)*1",
                        "C2": "=SUBTOTAL(9,C1,A1:A3)+B1*0"},
                       {"A4": 6, "B1": 46000, "A5": 6, "C1": 6, "C2": 6})
    calc = WorkbookCalculation(path)
    result = calc.compute()
    assert {("S", "A5"), ("S", "C2")} <= calc.scope.recompute and ("S", "A4") not in calc.scope.recompute
    assert (result.values[("S", "A5")], result.values[("S", "C2")]) == (6, 6)
    assert not result.stale and not result.skipped


def test_a_subtotal_held_for_the_check_is_left_out_by_a_subtotal_reading_it(tmp_path):
    """The check holds a volatile subtotal (it calls NOW) at Excel's value; held as a plain
    value, the SUBTOTAL reading it counted it, 12 against Excel's 6, and was kept stale."""
    from rates_xl.calc.workbook import WorkbookCalculation
    from tests.calc.test_recalc import excel_saved

    path = excel_saved(tmp_path / "held.xlsx",
                       {"A1": 1, "A2": 2, "A3": 3, "A4": "=SUBTOTAL(9,A1:A3)+NOW()*0", "A5": "=SUBTOTAL(9,A1:A4)",
                        "B1": "=A4*2"},
                       {"A4": 6, "A5": 6, "B1": 12})
    for full in (False, True):
        result = WorkbookCalculation(path, full=full).compute()
        assert (result.values[("S", "A5")], result.values[("S", "B1")]) == (6, 12)
        assert not result.stale and not result.skipped, full
