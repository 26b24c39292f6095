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


# AGGREGATE's options (calc/formula/hidden_rows.py `_aggregate`): Excel's answers in the Excel-made
# functions-excel-2010.xlsx of LibreOffice's tests (ClosedXML's copy, Tests/Resource/TryToLoad/LO),
# Sheet2: C1:C9 numbers with row 6 hidden by hand, C10 and C11 a nested AGGREGATE and SUBTOTAL over
# D1:D11; row 18 + n gives option n. Each function 1-12 over C1:C11 (its O column reads F):
_COLUMN_C = [15, 77, 30, 28, 31, 96, 77, 53, 34]
_COLUMN_D = [8, 65, 60, 63, 53, 71, 55, 83, -500, 91, 89]
_EXCEL_AGGREGATE = {
    0: [49, 9, 9, 96, 15, 400626533260800, 28.062430400804562, 26.457513110645905, 441, 787.5, 700, 34],
    1: [43.125, 8, 8, 77, 15, 4173193054800, 23.344852598745252, 21.837110042311, 345, 544.9821428571429,
        476.859375, 32.5],
    4: [49.50413223140495, 11, 11, 96, 12.545454545454545, 4.573698186081024e+17, 30.643332458992404,
        29.217271109464395, 544.5454545454545, 939.0138241923374, 853.6489310839429, 34],
    5: [44.85454545454546, 10, 10, 91, 12.545454545454545, 4764268943834400, 27.9127329575057, 26.48034355972978,
        448.54545454545456, 779.1206611570249, 701.2085950413224, 32.5],
}
# The array form (14 LARGE, 15 SMALL, 16 PERCENTILE.INC, 17 QUARTILE.INC, 18 PERCENTILE.EXC,
# 19 QUARTILE.EXC) with its k, for the options that count hidden rows (P18:U18, P22:U22):
_EXCEL_ARRAY_FORM = {0: [(14, 2, 77), (15, 2, 28), (16, 0.4, 31.6), (17, 1, 30), (18, 0.8, 77), (19, 1, 29)],
                     4: [(14, 2, 91), (15, 2, 15), (16, 0.4, 31), (17, 1, 29), (18, 0.8, 85.40000000000002),
                         (19, 1, 28)]}


def _aggregate_book(path):
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Sheet2"
    for row, value in enumerate(_COLUMN_C, start=1):
        sheet.cell(row, 3, value)
    for row, value in enumerate(_COLUMN_D, start=1):
        sheet.cell(row, 4, value)
    sheet["C10"] = "=_xlfn.AGGREGATE(1,4,D1:D11)"
    sheet["C11"] = "=SUBTOTAL(4,D1:D11)"
    sheet.row_dimensions[6].hidden = True
    cells, unlisted = {}, {}
    for option, answers in _EXCEL_AGGREGATE.items():
        for function_num, answer in enumerate(answers, start=1):
            for also in (option, option + 2):  # (2 and 3, 6 and 7 ignore errors too: C holds none)
                at = sheet.cell(20 + also, 4 + function_num, f"=_xlfn.AGGREGATE({function_num},{also},C1:C11)")
                (cells if function_num < 12 else unlisted)[at.coordinate] = answer
    for option, rows in _EXCEL_ARRAY_FORM.items():
        for column, (function_num, k, answer) in enumerate(rows, start=20):
            at = sheet.cell(20 + option, column, f"=_xlfn.AGGREGATE({function_num},{option},C1:C11,{k})")
            unlisted[at.coordinate] = answer
    sheet["A40"] = 5
    sheet["B40"] = "=_xlfn.AGGREGATE(9,A40,C1:C9)"  # options in a cell: not known when rewritten
    sheet["B41"] = "=_xlfn.AGGREGATE(14,5,C1:C9,2)"  # the array form ignoring hidden rows: one range
    sheet["B42"] = "=_xlfn.AGGREGATE(9,6,C1:C5)"  # no hidden row in its range
    cells["B42"] = sum(_COLUMN_C[:5])
    book.save(path)
    return path, cells, unlisted


def test_aggregate_over_a_row_hidden_by_hand_as_its_options_say(tmp_path):
    """Options 1, 3, 5 and 7 leave row 6 out, the others count it (and 0 to 3 leave out the nested
    AGGREGATE and SUBTOTAL): every function's answer Excel's. The options argument is not a
    reference: "AGGREGATE given 2 on a sheet that hides rows" listed them all before, and the
    engine counted row 6 whatever the options where they were in a cell (stale, or wrong)."""
    from rates_xl.calc.workbook import WorkbookCalculation

    path, cells, not_computed = _aggregate_book(tmp_path / "aggregate.xlsx")
    result = WorkbookCalculation(path, full=True).compute()
    listed = {s.cell: s.reason for s in result.skipped}
    differ = {cell: (result.values.get(("Sheet2", cell)), answer) for cell, answer in cells.items()
              if not isinstance(result.values.get(("Sheet2", cell)), int | float)
              or abs(result.values[("Sheet2", cell)] - answer) > 1e-12 * max(1.0, abs(answer))}
    assert differ == {}, (differ, listed)
    # Functions 12 (MEDIAN) to 19 (QUARTILE.EXC): formualizer's #VALUE!, listed instead
    assert sorted(listed) == sorted(["B40", "B41", *not_computed]), listed
    assert "options (A40)" in listed["B40"] and "AGGREGATE of function 14" in listed["B41"]
    assert all("12 (MEDIAN) to 19 (QUARTILE.EXC)" in listed[cell] for cell in not_computed)


def test_aggregate_of_functions_the_engine_does_not_compute_is_listed(tmp_path):
    """No row hidden: AGGREGATE(15,6,array,k), SMALL ignoring errors, was the engine's #VALUE!
    (unlisted where no cached value showed it); 1 to 11 are computed."""
    import openpyxl

    from rates_xl.calc.workbook import WorkbookCalculation

    book = openpyxl.Workbook()
    sheet = book.active
    for row, value in enumerate(_COLUMN_C[:5], start=1):
        sheet.cell(row, 1, value)
    sheet["B1"] = "=_xlfn.AGGREGATE(15,6,A1:A5/(A1:A5>20),2)"
    sheet["B2"] = "=_xlfn.AGGREGATE(12,4,A1:A5)"
    sheet["B3"] = "=_xlfn.AGGREGATE(9,6,A1:A5)"
    sheet["B4"] = "=_xlfn.AGGREGATE(A1,6,A1:A5)"
    book.save(tmp_path / "book.xlsx")
    result = WorkbookCalculation(tmp_path / "book.xlsx", full=True).compute()
    assert sorted(s.cell for s in result.skipped) == ["B1", "B2", "B4"]
    assert result.values[("Sheet", "B3")] == sum(_COLUMN_C[:5])
