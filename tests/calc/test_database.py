"""Excel's database functions (calc/xlfuncs/database.py) on Excel 16's answers: the grids below
are copies of IronCalc's Excel-made books (ironcalc/IronCalc, MIT or Apache-2.0), each case a
formula of theirs with Excel 16's values, cached in IronCalc's
xlsx/tests/calc_tests/DATABASE/BOOK.xlsx, CELL (the last of each case). formualizer's own D*
functions were off on 69 of those books' 506 cells; a criterion no book shows (a computed
criterion, a criteria range of its labels alone, an error to sum) is listed, never guessed.

The grids hold the books' values; their error cells are formulas giving the same error, and
dates are written as dates (a date-formatted number, as the books store them)."""

from __future__ import annotations

import datetime

import pytest

#: DCOUNT_DCOUNTA_DGET_DPRODUCT.xlsx, sheet DCOUNT_DCOUNTA, A1:Q25.
DCOUNT = [
    ['Region', 'Salesperson', 'Quarter', 'Product', 'Units', 'Revenue', 'Benefits', 'Date', 'Contractor', True, 1, 'true', '=1/3', 'One', 'One', 'City', 'Numbers'],
    ['East', 'Alice', 'Q1', 'Widget', 120, 12000, 12000, datetime.date(2024, 1, 15), True, 'a', None, 'b', 1, 'a', None, 'Berlin', True],
    ['West', 'Bob', 'Q1', 'Gadget', 80, 9600, 9600, datetime.date(2024, 2, 2), False, 'b', 'b', 'b', 1, None, 'a', 'Caracas', False],
    ['East', 'Cara', 'Q2', 'Widget', 200, 20000, None, datetime.date(2024, 4, 10), True, 'A', 'B', 'a', 1, 'a', None, 'Berlin', 7],
    ['South', 'Dan', 'Q1', 'Widget', 150, 15000, None, datetime.date(2024, 3, 18), True, 'A', None, 'a', 1, 'a', None, 'BERLIN', 1],
    ['West', 'Ella', 'Q2', 'Gadget', 50, 6000, None, datetime.date(2024, 5, 22), False, 'a', 'BB', 12, 1, 'aa', None, '=" Berlin"', '=NA()'],
    ['East', 'Frank', 'Q3', 'Gizmo', 300, 30000, None, datetime.date(2024, 7, 8), True, '=NA()', 'balpha', 1, 1, None, 'a', '=" Berlin "'],
    ['North', 'Gina', 'Q3', 'Widget', 100, 11000, 11000, datetime.date(2024, 7, 30), False, 'b', None, '=NA()', 2, None, None, 'Berlino', '42'],
    ['West', 'Hank', 'Q3', 'Widget', 400, 38000, None, datetime.date(2024, 8, 11), False, 23, None, 'b', 1, 'Aa', 'a', 'Valencia'],
    ['East', 'Ivy', 'Q4', 'Gadget', 250, 24000, None, datetime.date(2024, 10, 6), True, 455, 23, 'A', 12, '=" aa"', 'a', 'Montreal', -2],
    ['South', 'Jake', 'Q4', 'Widget', 200, 19800, 19800, datetime.date(2024, 11, 25), True, 2, None, '=1/0', None, 'aaa', None, 'Berlín'],
    [None, None, None, None, None, '=SUM(F2:F11)'],
    [1, 2, None, 3, None, 4, None, 5, None, 6, 7, 8, 9, 10, 11, 12],
    ['Region', 'Region', 'Product', 'Region', 'Quarter', 'Units', None, 'Units', 'Revenue', 'Date', 'Product', 'Revenue', 'Revenue', 'Region', 'Revnu', 'Salesperson'],
    ['East', 'East', 'Widget', 'East', 'Q1', '>100', None, '>100', '<20000', '>=2024-07-01', 'G*', None, 'Text', 'Central', None, '*ank'],
    [None, None, None, 'West', 'Q2'],
    [],
    [13, 14, 15, 16, 17, 18, None, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28],
    ['Contractor', 'Contractor', 'Units', 'Region', None, 'Units', None, 'Date', 'Region', 'REGION', 'Region', '="Region"', None, 'Region', 'Region', '=VALUE("x")', 'Salesperson'],
    [True, 1, '"=200"', 'East', None, 'ABC', None, 'Banana', 'East', 'West', 'WEST', '="East"', '="East"', 'East', '=VALUE("x")', 'East', '*'],
    [],
    [],
    [None, None, None, None, None, None, None, None, None, 29, 30, 31, 32, 33, 34, 35, 36],
    [None, None, None, None, None, None, None, None, None, True, 'true', 1, 'One', 'City', 'Numbers', 'Region', 'Salesperson'],
    [None, None, None, None, None, None, None, None, None, 'a', '<>a', 'b', 'aa', 'Berlin', '>-1', 'East', '>E'],
]
#: DCOUNT_DCOUNTA_DGET_DPRODUCT.xlsx, sheet DGET, A1:P21 (sheet DPRODUCT's where its cases read it).
DGET = [
    ['Region', 'Salesperson', 'Quarter', 'Product', 'Units', 'Revenue', 'Date', 'Contractor', True, 1, 'true', '=1/3', 'One', 'One', 'City', 'Numbers'],
    ['East', 'Alice', 'Q1', 'Widget', 120, 12000, 45306, True, 'a', None, 'b', 1, 'a', None, 'Berlin', True],
    ['West', 'Bob', 'Q1', 'Gadget', 80, 9600, 45324, False, 'b', 'b', 'b', 1, None, 'a', 'Caracas', False],
    ['East', 'Cara', 'Q2', 'Widget', 200, 20000, 45392, True, 'A', 'B', 'a', 1, 'a', None, None, 7],
    ['South', 'Dan', 'Q1', 'Widget', 150, 15000, 45369, True, 'A', None, 'a', 1, 'a', None, 'BERLIN', 1],
    ['West', 'Ella', 'Q2', 'Gadget', 50, 6000, 45434, False, 'a', 'BB', 12, 1, 'aa', None, '=" Berlin"', '=NA()'],
    ['East', 'Frank', 'Q3', 'Gizmo', 300, 30000, 45481, True, '=NA()', 'balpha', 1, 1, None, 'a', '=" Berlin "'],
    ['North', 'Gina', 'Q3', 'Widget', 100, 11000, 45503, False, 'b', None, '=NA()', 2, None, None, 'Berlino', '42'],
    ['West', 'Hank', 'Q3', 'Widget', 400, 38000, 45515, False, 23, None, 'b', 1, 'Aa', 'a', 'Valencia'],
    ['East', 'Ivy', 'Q4', 'Gadget', 250, 24000, 45571, True, 455, 23, 'A', 12, '=" aa"', 'a', 'Montreal', -2],
    ['South', 'Jake', 'Q4', 'Widget', 200, 19800, 45621, True, 2, None, '=1/0', None, 'aaa', None, 'Berlín'],
    [],
    [1, 2, 3, 4, 5, None, 6, None, 7, 8, None, 9, 11, 12, 13, 14],
    ['Region', 'Region', 'Region', 'Rgn', 'Region', 'Product', 'Region', 'Product', 'Units', 'Units', 'Revenue', 'Date', 'Salesperson', 'Revenue', 'Region', 'Revnu'],
    ['North', 'East', 'North-East', 'North-East', 'North', 'Widget', 'North', 'Widget', 100, '>100', '>35000', datetime.date(2024, 7, 1), 'J*', None, 'Central'],
    [None, None, None, None, None, None, 'South', 'Gizmo', None, None, None, 'Date', 'Salesperson'],
    [None, None, None, None, None, None, None, None, None, None, None, '>11/1/2024', '*'],
    [None, None, None, None, None, None, None, None, None, None, None, 10, 12],
    [15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28],
    ['Contractor', 'Contractor', 'Units', 'Units', 'Date', 'REGION', 'Region', '="Region"', None, None, 'Region', 'Region', '=VALUE("x")', 'Salesperson'],
    [True, 1, '"=400"', 'ABC', 'Banana', 'West', 'WEST', '="East"', '="East"', '="East"', 'East', '=VALUE("x")', 'East', '>J'],
]
#: DMIN_DMAX_DAVERAGE_DSUM.xlsx, A1:P25 (DVAR_DVARP_DSTDEV_DSTDEVP.xlsx's grid is the same).
DMIN = [
    ['Region', 'Salesperson', 'Quarter', 'Product', 'Units', 'Revenue', 'Date', 'Contractor', True, 1, 'true', '=1/3', 'One', 'One', 'City', 'Numbers'],
    ['East', 'Alice', 'Q1', 'Widget', 120, 12000, datetime.date(2024, 1, 15), True, 'a', None, 'b', 1, 'a', None, 'Berlin', True],
    ['West', 'Bob', 'Q1', 'Gadget', 80, 9600, datetime.date(2024, 2, 2), False, 'b', 'b', 'b', 1, None, 'a', 'Caracas', False],
    ['East', 'Cara', 'Q2', 'Widget', 200, 20000, datetime.date(2024, 4, 10), True, 'A', 'B', 'a', 1, 'a', None, 'Berlin', 7],
    ['South', 'Dan', 'Q1', 'Widget', 150, 15000, datetime.date(2024, 3, 18), True, 'A', None, 'a', 1, 'a', None, 'BERLIN', 1],
    ['West', 'Ella', 'Q2', 'Gadget', 50, 6000, datetime.date(2024, 5, 22), False, 'a', 'BB', 12, 1, 'aa', None, '=" Berlin"', '=NA()'],
    ['East', 'Frank', 'Q3', 'Gizmo', 300, 30000, datetime.date(2024, 7, 8), True, '=NA()', 'balpha', 1, 1, None, 'a', '=" Berlin "'],
    ['North', 'Gina', 'Q3', 'Widget', 100, 11000, datetime.date(2024, 7, 30), False, 'b', None, '=NA()', 2, None, None, 'Berlino', '42'],
    ['West', 'Hank', 'Q3', 'Widget', 400, 38000, datetime.date(2024, 8, 11), False, 23, None, 'b', 1, 'Aa', 'a', 'Valencia'],
    ['East', 'Ivy', 'Q4', 'Gadget', 250, 24000, datetime.date(2024, 10, 6), True, 455, 23, 'A', 12, '=" aa"', 'a', 'Montreal', -2],
    ['South', 'Jake', 'Q4', 'Widget', 200, 19800, datetime.date(2024, 11, 25), True, 2, None, '=1/0', None, 'aaa', None, 'Berlín'],
    [None, None, None, None, None, '=SUM(F2:F11)'],
    [1, 2, None, 3, None, 4, 5, None, 6, 7, 8, 9, 10, 11, 12],
    ['Region', 'Region', 'Product', 'Region', 'Quarter', 'Units', 'Units', 'Revenue', 'Date', 'Product', 'Revenue', 'Revenue', 'Region', 'Revnu', 'Salesperson'],
    ['East', 'East', 'Widget', 'East', 'Q1', '>100', '>100', '<20000', '>=2024-07-01', 'G*', None, 'Text', 'Central', None, '*ank'],
    [None, None, None, 'West', 'Q2'],
    [],
    [13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28],
    ['Contractor', 'Contractor', 'Units', 'Region', None, 'Units', 'Date', 'Region', 'REGION', 'Region', '="Region"', None, 'Region', 'Region', '=VALUE("x")', 'Salesperson'],
    [True, 1, '"=200"', 'East', None, 'ABC', 'Banana', 'East', 'West', 'WEST', '="East"', '="East"', 'East', '=VALUE("x")', 'East', '*'],
    [],
    [],
    [None, None, None, None, None, None, None, None, 29, 30, 31, 32, 33, 34, 35, 36],
    [None, None, None, None, None, None, None, None, True, 'true', 1, 'One', 'City', 'Numbers', 'Region', 'Salesperson'],
    [None, None, None, None, None, None, None, None, 'a', '<>a', 'b', 'aa', 'Berlin', '>-1', 'East', '>E'],
]

#: Class -> (sheet, formula, Excel's value, the book's cell).
CASES: dict[str, list[tuple[str, str, object, str]]] = {
    # The field: a label without regard to case (TRUE as "TRUE", 1 as "1"), a column number
    # truncated, TRUE column 1; #VALUE! outside the database, not found, or a range.
    "fields": [
        ("DCOUNT", 'DCOUNT($A$1:$Q$11,"Numbers",Q19:Q20)', 3, "DCOUNT_DCOUNTA!B63"),
        ("DCOUNT", 'DCOUNTA(A$1:Q$11,"Numbers",Q$19:Q$20)', 7, "DCOUNT_DCOUNTA!C63"),
        ("DCOUNT", "DCOUNT($A$1:$Q$11,1,Q19:Q20)", 0, "DCOUNT_DCOUNTA!B64"),
        ("DCOUNT", 'DCOUNTA(A$1:Q$11,"1",Q$19:Q$20)', 5, "DCOUNT_DCOUNTA!C65"),
        ("DCOUNT", "DCOUNT($A$1:$Q$11,TRUE,Q2:Q19)", 0, "DCOUNT_DCOUNTA!B66"),
        ("DCOUNT", 'DCOUNT($A$1:$Q$11,"true",Q2:Q19)', 3, "DCOUNT_DCOUNTA!B67"),
        ("DCOUNT", "DCOUNT($A$1:$Q$11,1/3,Q2:Q19)", "#VALUE!", "DCOUNT_DCOUNTA!B68"),
        ("DCOUNT", "DCOUNT($A$1:$H$11,6.5,$A$14:$A$15)", 4, "DCOUNT_DCOUNTA!B71"),
        ("DCOUNT", "DCOUNT(A1:I11,0,N19:N20)", "#VALUE!", "DCOUNT_DCOUNTA!B53"),
        ("DCOUNT", "DCOUNTA($A1:$I11,9,$N19:$N20)", 4, "DCOUNT_DCOUNTA!C54"),
        ("DCOUNT", "DCOUNT(A2:I11,F1,I19:I20)", "#VALUE!", "DCOUNT_DCOUNTA!B47"),
        ("DCOUNT", "DCOUNT($A$1:$H$11,$E$1:$F$1,$A$14:$A$15)", "#VALUE!", "DCOUNT_DCOUNTA!B70"),
    ],
    # A condition: a value (equal, of its type), a comparison, a date typed as text, text that
    # begins a value ("Berlin" counts "Berlino"), wildcards; none of it case-sensitive.
    "conditions": [
        ("DCOUNT", "DCOUNT(A1:H11,F1,F14:F15)", 7, "DCOUNT_DCOUNTA!B31"),
        ("DCOUNT", "DCOUNT(A1:H11,F1,H14:I15)", 3, "DCOUNT_DCOUNTA!B32"),
        ("DCOUNT", "DCOUNT(A1:H11,F1,J14:J15)", 5, "DCOUNT_DCOUNTA!B33"),
        ("DCOUNT", "DCOUNT(A1:H11,F1,K14:K15)", 4, "DCOUNT_DCOUNTA!B34"),
        ("DCOUNT", "DCOUNT(A1:H11,F1,P14:P15)", 2, "DCOUNT_DCOUNTA!B39"),
        ("DCOUNT", "DCOUNT(A1:I11,F1,A19:A20)", 6, "DCOUNT_DCOUNTA!B40"),
        ("DCOUNT", "DCOUNT(A1:I11,F1,B19:B20)", 0, "DCOUNT_DCOUNTA!B41"),
        ("DCOUNT", "DCOUNT(A1:I11,F1,C19:C20)", 0, "DCOUNT_DCOUNTA!B42"),
        ("DCOUNT", "DCOUNTA($A1:$I11,$F1,$K19:$K20)", 3, "DCOUNT_DCOUNTA!C49"),
        ("DCOUNT", "DCOUNT(A1:P11,F1,N24:N25)", 4, "DCOUNT_DCOUNTA!B60"),
        ("DCOUNT", "DCOUNT(A1:L11,F1,K24:K25)", 6, "DCOUNT_DCOUNTA!B57"),
        ("DCOUNT", "DCOUNT($A$1:$H$11,$F$1,Q24:Q25)", 6, "DCOUNT_DCOUNTA!B74"),
        ("DCOUNT", "DCOUNT(A1:Q11,Q1,O24:O25)", 2, "DCOUNT_DCOUNTA!B61"),
    ],
    # The criteria range: labels found as fields are (the first of equal labels), rows OR'd,
    # an empty row every record; text under a label the database lacks (or none) meets none.
    "criteria": [
        ("DCOUNT", "DCOUNT($A$1:$H$11,E1,B14:C15)", 2, "DCOUNT_DCOUNTA!B29"),
        ("DCOUNT", "DCOUNT($A$1:$H$11,F1,D14:E16)", 2, "DCOUNT_DCOUNTA!B30"),
        ("DCOUNT", "DCOUNT(A1:H11,F1,L14:L15)", 10, "DCOUNT_DCOUNTA!B35"),
        ("DCOUNT", "DCOUNT(A1:H11,F1,N14:N15)", 0, "DCOUNT_DCOUNTA!B37"),
        ("DCOUNT", "DCOUNT(A1:H11,F1,O14:O15)", 10, "DCOUNT_DCOUNTA!B38"),
        ("DCOUNT", "DCOUNT(A1:I11,F1,M19:M20)", 0, "DCOUNT_DCOUNTA!B51"),
        ("DCOUNT", "DCOUNT(A1:L11,F1,J24:J25)", 4, "DCOUNT_DCOUNTA!B56"),
        ("DCOUNT", "DCOUNT(A1:P11,F1,L24:L25)", 4, "DCOUNT_DCOUNTA!B58"),
        ("DCOUNT", "DCOUNT(A1:P11,F1,M24:M25)", 3, "DCOUNT_DCOUNTA!B59"),
        ("DCOUNT", "DCOUNT($A$1:$H$11,$F$1,$A$14:$A$17)", 10, "DCOUNT_DCOUNTA!B73"),
        ("DCOUNT", "DCOUNTA($A$1:$H$11,$G$1,$A$14:$A$15)", 1, "DCOUNT_DCOUNTA!C75"),
    ],
    # DGET: the one record's field, #VALUE! for none, #NUM! for several; DPRODUCT of none 0.
    "DGET and DPRODUCT": [
        ("DGET", "DGET($A$1:$H$11,$F$1,A14:A15)", 11000, "DGET!B24"),
        ("DGET", "DGET($A$1:$H$11,$F$1,B14:B15)", "#NUM!", "DGET!B25"),
        ("DGET", "DGET($A$1:$H$11,$F$1,C14:C15)", "#VALUE!", "DGET!B26"),
        ("DGET", "DGET($A$1:$H$11,$F$1,D14:D15)", "#VALUE!", "DGET!B27"),
        ("DGET", "DGET($A$1:$H$11,$F$1,G14:H16)", 11000, "DGET!B29"),
        ("DGET", "DGET(A1:G11,F1,J14:K15)", 38000, "DGET!B31"),
        ("DGET", "DGET(A1:G11,F1,M14:M15)", 19800, "DGET!B34"),
        ("DGET", "DGET($A$1:$H$1,$F$1,A14:A15)", "#VALUE!", "DGET!B42"),
        ("DGET", "DGET($A$1:$H$11,$F$1,$N$20:$N$21)", 19800, "DGET!B60"),
        ("DGET", "DPRODUCT($A$1:$H$11,$F$1,B14:B15)", 1.728e17, "DPRODUCT!B25"),
        ("DGET", "DPRODUCT($A$1:$H$11,$F$1,C14:C15)", 0, "DPRODUCT!B26"),
    ],
    # The aggregates of the picked numbers: DMIN and DMAX of none 0, DAVERAGE #DIV/0!, DVAR and
    # DSTDEV of fewer than two #DIV/0!.
    "aggregates": [
        ("DMIN", "DMIN($A$1:$G$11,$F$1,A14:A15)", 12000, "DMIN_DMAX_DAVERAGE_DSUM!B28"),
        ("DMIN", "DMAX($A$1:$G$11,F1,D14:E16)", 12000, "DMIN_DMAX_DAVERAGE_DSUM!C30"),
        ("DMIN", "DSUM(A1:G11,F1,I14:I15)", 122800, "DMIN_DMAX_DAVERAGE_DSUM!E33"),
        ("DMIN", "DMIN(A1:G11,F1,M14:M15)", 0, "DMIN_DMAX_DAVERAGE_DSUM!B37"),
        ("DMIN", "DAVERAGE(A1:G11,F1,L14:L15)", "#DIV/0!", "DMIN_DMAX_DAVERAGE_DSUM!D36"),
        ("DMIN", "DAVERAGE(A1:G11,F1,F14:F15)", 22685.714285714286, "DMIN_DMAX_DAVERAGE_DSUM!D31"),
        ("DMIN", "DSUM(A1:P11,P1,N24:N25)", 8, "DMIN_DMAX_DAVERAGE_DSUM!E61"),
        ("DMIN", "DSUM($A$1:$G$11,6.99,O24:O25)", 86000, "DMIN_DMAX_DAVERAGE_DSUM!E62"),
        ("DMIN", "DVAR($A$1:$G$11,$F$1,A14:A15)", 57000000, "DVAR_DVARP_DSTDEV_DSTDEVP!B28"),
        ("DMIN", "DSTDEV($A$1:$G$11,E1,B14:C15)", 56.568542494923804, "DVAR_DVARP_DSTDEV_DSTDEVP!D29"),
        ("DMIN", "DVARP(A1:K11,F1,I24:I25)", 25687500, "DVAR_DVARP_DSTDEV_DSTDEVP!C56"),
        ("DMIN", "DSTDEVP(A1:K11,F1,I24:I25)", 5068.283733178323, "DVAR_DVARP_DSTDEV_DSTDEVP!E56"),
        ("DMIN", "DSTDEV(A1:H11,F1,F19:F20)", "#DIV/0!", "DVAR_DVARP_DSTDEV_DSTDEVP!D45"),
    ],
}

#: Calls whose answer no book shows: not computed (`test_unknown_cases_not_computed`).
LISTED = [
    "DSUM($A$1:$G$11,$F$1,R1:R2)",  # a computed criterion (a formula under a label not in the database)
    "DSUM($A$1:$G$11,$F$1,A14:B14)",  # a criteria range of its labels alone
    "DSUM($A$1:$G$11,$F$1,N19:N20)",  # an error as a condition
    'DSUM(A1:P11,"Numbers",N14:N15)',  # an error (P6) among the summed values
]

#: Whole columns (calc/formula/databases.py), which the engine cuts to their used rows and no book
#: holds: as Microsoft's rules read them on the bounded range Excel reads (an empty criteria row
#: picks every record: DCOUNT_DCOUNTA!B73; the records past the used rows are empty).
LINES = [["Tree", "Yield", None, "Tree", "Tree"], ["Apple", 14, None, "Apple", "<>Apple"], ["Pear", 10],
         ["Apple", 6]]
WHOLE_COLUMNS = {
    "DSUM(A:B,2,D1:D2)": 20,  # the used rows: as DSUM(A1:B4,2,D1:D2)
    "DSUM(A1:B4,2,D:D)": 30,  # D3 on is empty: every record, as DSUM(A1:B4,2,D1:D3)
    "DCOUNT(A:B,,D1:D3)": 1048575,  # without a field, every record: rows 2 to 1,048,576
    "DGET(A:B,2,E1:E2)": "#NUM!",  # "<>Apple": Pear and every empty record
    "DGET(A:B,2,D1:D2)": "#NUM!",
}

GRIDS = {"DCOUNT": DCOUNT, "DGET": DGET, "DMIN": DMIN, "LINES": LINES}


@pytest.fixture(scope="module")
def computed(tmp_path_factory):
    """Each case's answer, and the cells listed, of one book holding the three grids."""
    import openpyxl

    from rates_xl.calc.workbook import WorkbookCalculation

    book = openpyxl.Workbook()
    book.remove(book.active)
    rows: dict[str, int] = {}
    for name, grid in GRIDS.items():
        sheet = book.create_sheet(name)
        for r, values in enumerate(grid, start=1):
            for c, value in enumerate(values, start=1):
                sheet.cell(row=r, column=c).value = value
        rows[name] = 40  # the cases' formulas below the grid
    book["DMIN"]["R1"], book["DMIN"]["R2"] = "Big", "=F2>10000"
    cells = {}
    for cases in CASES.values():
        for name, formula, _excel, _cell in cases:
            rows[name] += 1
            book[name].cell(row=rows[name], column=1).value = "=" + formula
            cells[formula] = (name, f"A{rows[name]}")
    for formula in LISTED:
        rows["DMIN"] += 1
        book["DMIN"].cell(row=rows["DMIN"], column=1).value = "=" + formula
        cells[formula] = ("DMIN", f"A{rows['DMIN']}")
    for row, formula in enumerate([*WHOLE_COLUMNS, "DSUM(1:4,2,D1:D2)"], start=1):
        book["LINES"].cell(row=row, column=8).value = "=" + formula
        cells[formula] = ("LINES", f"H{row}")
    path = tmp_path_factory.mktemp("database") / "database.xlsx"
    book.save(path)
    result = WorkbookCalculation(path, full=True).compute()
    listed = {(s.sheet, s.cell) for s in result.skipped}
    return {formula: (result.values.get(where), where in listed) for formula, where in cells.items()}


@pytest.mark.parametrize(("formula", "excel"), [
    pytest.param(formula, excel, id=f"{cls}: {cell}")
    for cls, cases in CASES.items() for _sheet, formula, excel, cell in cases])
def test_as_excel_answers(computed, formula, excel):
    value, listed = computed[formula]
    assert not listed
    assert value == (pytest.approx(excel, rel=1e-15) if isinstance(excel, float) else excel)


@pytest.mark.parametrize("formula", LISTED)
def test_unknown_cases_not_computed(computed, formula):
    """#NAME?, an answer no valid call gives: where the file holds Excel's value, the check
    against it lists the cell and keeps that value (a fresh book here holds none)."""
    assert computed[formula][0] == "#NAME?"



@pytest.mark.parametrize("formula", list(WHOLE_COLUMNS))
def test_whole_columns(computed, formula):
    assert computed[formula] == (WHOLE_COLUMNS[formula], False)


def test_a_database_of_whole_rows_is_listed(computed):
    """Its columns past the used ones would be cut (a field number there unread)."""
    assert computed["DSUM(1:4,2,D1:D2)"] == (None, True)


def test_a_time_typed_in_a_condition_is_that_time_of_day(tmp_path):
    """A condition "<12:00" compares with the time 12:00, 0.5 of a day (Microsoft's VALUE page:
    "16:48:00" is 0.7): the bridged `formulas` VALUE read it on 1 January of this year, so every
    time of day was "before" it (3 here, where the rule gives 2)."""
    import openpyxl

    from rates_xl.calc.workbook import WorkbookCalculation

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for row, values in enumerate([["Start", "Start"], [0.375, "<12:00"], [13 / 24], [11.5 / 24]], start=1):
        for col, value in enumerate(values, start=1):
            sheet.cell(row=row, column=col).value = value
    sheet["D1"] = "=DCOUNT(A1:A4,1,B1:B2)"
    book.save(tmp_path / "times.xlsx")
    result = WorkbookCalculation(tmp_path / "times.xlsx", full=True).compute()
    assert result.values[("S", "D1")] == 2 and not result.skipped
