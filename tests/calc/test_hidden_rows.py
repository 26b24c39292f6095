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
    return {cell: result.values.get(("Sales", cell)) for cell in ("B12", "B13", "B14", "B17")}, \
        sorted(s.cell for s in result.skipped)


def test_a_filtered_table(tmp_path):
    """Rows 5, 7, 9 and 11 filtered out (their sales below 1,000,000, as the filter asks): both
    function_nums leave them out."""
    values, listed = _computed(_book(tmp_path / "filtered.xlsx", [5, 7, 9, 11], filtered=True))
    visible = sum(s for r, (_, s) in enumerate(SALES, start=4) if r not in (5, 7, 9, 11))
    assert values == {"B12": visible, "B13": visible, "B14": 8, "B17": sum(s for _, s in SALES)}
    assert listed == ["B15", "B16"]  # a whole column, AGGREGATE: not written here


def test_a_row_hidden_by_hand(tmp_path):
    """'Regional sales3': row 7 hidden, no filter on: SUBTOTAL(9) counts it (9,071,953),
    SUBTOTAL(109) does not (8,171,954)."""
    values, _ = _computed(_book(tmp_path / "by_hand.xlsx", [7], filtered=False))
    assert values["B13"] == 9071953 and values["B12"] == 8171954
    assert values["B14"] == 8 + 7
