"""Excel tables' structured references computed as Excel does (issue 22: a real report built
on tables answered #NAME? in every such cell): the fast engine reads no table from a file,
so the pass structured (calc/formula/tables.py) writes each reference as the range it
stands for."""

from __future__ import annotations

import openpyxl
import pytest
from openpyxl.worksheet.table import Table, TableStyleInfo

from rates_xl.calc.formula import tables as structured
from rates_xl.calc.formula.passes import one
from rates_xl.calc.formula.site import BookFacts, Site
from rates_xl.calc.workbook import WorkbookCalculation
from tests.support import models


@pytest.fixture
def table_book(tmp_path):
    """Sales (A1:C5 with a totals row) on sheet "Data log", formulas as Excel stores them
    (`[#This Row]` in the file for the `@` it shows)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data log"
    ws.append(["Region", "Amount", "Double"])
    for region, amount in [("N", 10), ("S", 20), ("N", 30)]:
        row = ws.max_row + 1
        ws.append([region, amount, "=Sales[[#This Row],[Amount]]*2"])
        assert ws.cell(row=row, column=3).value.startswith("=Sales")
    ws.append(["Total", "=SUBTOTAL(109,Sales[Amount])", None])
    table = Table(displayName="Sales", ref="A1:C5", totalsRowCount=1)
    table.tableStyleInfo = TableStyleInfo(name="TableStyleMedium2")
    ws.add_table(table)
    other = wb.create_sheet("Report")
    other["A1"] = "=SUM(Sales[Amount])"
    other["A2"] = "=ROWS(Sales[#All])"
    other["A3"] = '=SUMIF(Sales[Region],"N",Sales[Amount])'
    other["A4"] = "=COUNTA(Sales[#Headers])"
    other["A5"] = "=SUM(Sales[[#Data],[Amount]:[Double]])"
    other["A6"] = "=Sales[[#Totals],[Amount]]"
    other["A7"] = "=ROWS(Sales)"
    other["A8"] = "=SUM(Sales[Price])"  # no such column: listed, not guessed
    path = tmp_path / "tables.xlsx"
    wb.save(path)
    return path


def test_structured_references_are_computed(table_book):
    result = WorkbookCalculation(table_book).compute()
    assert [result.value("Data log", f"C{r}") for r in (2, 3, 4)] == [20, 40, 60]  # [#This Row]: was #CIRC!/#NAME?
    assert result.value("Data log", "B5") == 60
    assert [result.value("Report", f"A{r}") for r in range(1, 8)] == [60, 5, 40, 3, 180, 60, 3]
    assert [(c.address, c.reason) for c in result.skipped] == [
        ("Report!A8", "not computed (a structured reference it cannot resolve: table Sales has no column "
                      "'Price'): the file's cached value is kept")]
    assert result.errors == [] and result.loops == []


def test_the_rewriting_follows_excels_grammar():
    sales = {"SALES": structured.Table("Sales", "Data log", 1, 1, 5, 3, ("Region", "Amount", "Double"), True, True)}
    cases = {
        "=Sales[Amount]": "='Data log'!$B$2:$B$4",
        "=Sales[@Amount]*2": "='Data log'!$B$3*2",
        "=sales[@[Amount]]": "='Data log'!$B$3",
        "=Sales[[#Headers],[Region]:[Amount]]": "='Data log'!$A$1:$B$1",
        "=Sales[[#Data],[#Totals],[Double]]": "='Data log'!$C$2:$C$5",
        "=Sales[#All]": "='Data log'!$A$1:$C$5",
        '=COUNTIF(Sales[Region],"Sales[x]")&"Sales"': "=COUNTIF('Data log'!$A$2:$A$4,\"Sales[x]\")&\"Sales\"",
        "=[1]Other!A1+SalesTax": "=[1]Other!A1+SalesTax",
    }
    def rewrite(formula, row):
        return one("structured", formula, Site("Report", row, 1, False, BookFacts(tables=sales)))

    for formula, expected in cases.items():
        assert rewrite(formula, 3) == expected, formula
    with pytest.raises(structured.UnknownReference, match="outside the table's rows"):
        rewrite("=Sales[@Amount]", 9)


def test_a_reference_without_the_tables_name_reads_the_table_the_cell_is_in(tmp_path):
    """Excel writes a totals row's formula without the table's name: pycel's
    tests/fixtures/excelcompiler.xlsx (github.com/dgorissen/pycel, made by Excel), sheet sref:
    Table1 (D1:F4, a totals row) holds `SUBTOTAL(109,[col3])` in F4, 9; `SUM(Table1[#All])` is 30
    and `SUM(Table1[#Totals])` 9 (all three were #NAME?, listed). The same book is made here;
    (`[@x]` in a table stopped the whole calculation: "This-row structured reference used
    outside a table");
    `[@col1]` typed in a table reads its row; such a reference outside any table is listed."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "sref"
    for row in (["col1", "col2", "col3"], [1, 2, 3], [4, 5, 6]):
        ws.append([None, None, None, *row])
    ws["D4"], ws["F4"] = "Total", "=SUBTOTAL(109,[col3])"
    ws["I1"], ws["J1"], ws["I2"], ws["I3"] = "x", "y", 1, 4  # a second table, T2 (I1:J3)
    ws["J2"], ws["J3"] = "=[@x]*10", "=[@x]*10"
    ws["B1"], ws["B4"], ws["B5"], ws["B7"] = "=SUM(Table1[])", "=SUM(Table1[#All])", "=SUM(Table1[#Data])", \
        "=SUM(Table1[#Totals])"
    ws["B9"] = "=SUM([col3])"  # outside the table: no table to read
    table = Table(displayName="Table1", ref="D1:F4", totalsRowCount=1)
    table.tableStyleInfo = TableStyleInfo(name="TableStyleLight1")
    ws.add_table(table)
    second = Table(displayName="T2", ref="I1:J3")
    second.tableStyleInfo = TableStyleInfo(name="TableStyleLight1")
    ws.add_table(second)
    path = tmp_path / "sref.xlsx"
    wb.save(path)
    result = WorkbookCalculation(path).compute()
    assert [result.value("sref", c) for c in ("F4", "B1", "B4", "B5", "B7")] == [9, 21, 30, 21, 9]
    assert [result.value("sref", c) for c in ("J2", "J3")] == [10, 40]
    assert [c.address for c in result.skipped] == ["sref!B9"]
    assert "outside any table" in result.skipped[0].reason


def test_a_defined_name_over_a_tables_column(tmp_path):
    """A name defined as a formula over a table (`total` = `SUM(Table1[c])`: apache/poi's
    Excel-made simple-table-named-range.xlsx, 9; simple-monthly-budget.xlsx's
    TotalMonthlyExpenses = `SUM(tblExpenses[Amount])`) read by a cell: #NAME? before, the names'
    own text now has its structured references written as ranges too; and a 3-D reference."""
    from openpyxl.workbook.defined_name import DefinedName

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for row in (["a", "b", "c"], [1, 2, 3], [4, 5, 6]):
        ws.append(row)
    ws.add_table(Table(displayName="Table1", ref="A1:C3"))
    wb.create_sheet("T")["A1"] = 10
    wb.defined_names["total"] = DefinedName("total", attr_text="SUM(Table1[c])")
    wb.defined_names["both"] = DefinedName("both", attr_text="SUM(S:T!$A$1)")
    ws["E1"], ws["E2"], ws["E3"] = "=total", "=total*2", "=both"
    path = tmp_path / "named.xlsx"
    wb.save(path)
    result = WorkbookCalculation(path).compute()
    assert [result.value("S", c) for c in ("E1", "E2", "E3")] == [9, 18, 10]  # S!A1 is the text "a"
    assert not result.skipped


POI = "poi_StructuredRefs-lots-with-lookups.xlsx"


@models.needed
def test_a_running_count_through_indirect_in_a_table_as_in_the_report(tmp_path):
    """The report's query table counts its rows for the state chosen on List!B3 with
    `IF(T[[#This Row],[valueA]]=List!$B$3, INDIRECT("A"&ROW(T[[#This Row],[data_year]])-1)+1, 0)`
    (Query!A2:A3799): 3,798 cells were listed (`IF given the array from INDIRECT`), and once
    computed the link to another workbook the file holds made formualizer's INDIRECT #REF!.
    The model cut to its first rows (the table, its formulas, List!B3 and the link kept) is
    computed; each cell equals Excel's value read from the model."""
    wb = openpyxl.load_workbook(models.path(POI), keep_links=True)
    for title in ("Profile", "dropdowns", "query2"):
        del wb[title]
    listing = wb["List"]
    for key in [k for k in listing._cells if k != (3, 2)]:
        del listing._cells[key]
    query = wb["Query"]
    rows = 12
    for key in [k for k in query._cells if k[0] > rows]:
        del query._cells[key]
    table = query.tables["Table_Query_from_RDS24"]
    table.ref = table.autoFilter.ref = f"A1:G{rows}"
    table.sortState = None
    assert wb._external_links and "INDIRECT(" in query["A5"].value
    wb.save(tmp_path / "report.xlsx")
    result = WorkbookCalculation(tmp_path / "report.xlsx", full=True).compute()
    assert result.skipped == [] and result.stale == []
    counts = [result.value("Query", f"A{r}") for r in range(2, rows + 1)]
    assert counts == [models.excel(POI, "Query", f"A{r}") for r in range(2, rows + 1)]
    assert counts[:3] == [1, 2, 3]


def test_indirect_of_a_column_and_a_row_number_is_one_cell():
    """What makes `INDIRECT("A"&n)` one cell (calc/formula/hazards.py `one_cell_indirect`)."""
    from rates_xl.calc.formula.hazards import analyse
    from rates_xl.calc.formula.tree import Formula

    def hazards(text: str) -> list[str]:
        return analyse(Formula(text), lambda ref: 3 if ":" in ref else 1).hazards

    assert hazards('=IF(A1=1,INDIRECT("A"&ROW(B10)-1)+1,0)') == []
    assert hazards('=IF(A1=1,INDIRECT("$B$4")+1,0)') == []
    for text in ('=IF(A1=1,INDIRECT("A"&B1)+1,0)',  # B1 may hold "1:A9"
                 '=IF(A1=1,INDIRECT("A1:A3")+1,0)', '=IF(A1=1,INDIRECT("A"&ROW(B10)-1&":A9"),0)',
                 '=IF(A1=1,INDIRECT("R"&ROW()&"C1",FALSE),0)'):
        assert hazards(text) == ["IF given the array from INDIRECT"], text


def test_a_column_named_with_a_space_at_its_end():
    """apache/poi's Excel-made table-sample.xlsx names a column "Field 4 " (its space kept) and
    reads it `Tabelle1[[#This Row],[Field 4 ]]`; 63934.xlsx "Gender ": each such cell was listed
    ("has no column 'Field 4'"). A name matches as written, then with the spaces around it ignored."""
    table = structured.Table("Tabelle1", "S", 4, 3, 9, 7, ("Field 1", "Field 2", "Field 3", "Field 4 ", "Field 5"),
                             True, True)
    site = Site("S", 6, 7, False, BookFacts(tables={"TABELLE1": table}))
    assert one("structured", "=Tabelle1[[#This Row],[Field 4 ]]/Tabelle1[[#Totals],[Field 4 ]]", site) == \
        "=S!$F$6/S!$F$9"
    assert one("structured", "=SUBTOTAL(109,Tabelle1[[Field 4 ]])", site) == "=SUBTOTAL(109,S!$F$5:$F$8)"
    assert one("structured", "=SUM(Tabelle1[Field 4])", site) == "=SUM(S!$F$5:$F$8)"
    with pytest.raises(structured.UnknownReference, match="no column 'Field 6'"):
        one("structured", "=SUM(Tabelle1[Field 6])", site)
