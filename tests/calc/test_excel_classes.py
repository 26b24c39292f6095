"""One class of Excel's function library at a time, on a small workbook made here from one
cell of an Excel-made corpus book (`tests/calc/excel_cases.py`): the calculator's value must
be Excel's own (cached in the corpus book), or the cell must be listed as not computed;
never a different number without a word. Each case failed before its fix."""

from __future__ import annotations

import pytest

from rates_xl.calc.fidelity import same
from tests.calc.excel_cases import (
    assert_array_as_excel,
    assert_cell_as_excel,
    computed,
    computed_cells,
    excel_value,
    reproduce,
)

#: (class, corpus book, cell): computed equal to Excel's value.
EQUAL = [
    ("CONVERT with a prefixed unit", "formulas_test.xlsx", "EXTRA!AF54"),
    ("CONVERT of volume units", "formulas_test.xlsx", "EXTRA!W116"),
    ("CONVERT of cubic angstroms", "formulas_test.xlsx", "EXTRA!AA104"),
    ("CONVERT of speed", "formulas_test.xlsx", "EXTRA!AE162"),
    ("CHAR in Excel for Mac's code page", "formulas_test.xlsx", "CORE!B159"),
    ("CHAR in Excel for Mac's code page", "formulas_test.xlsx", "CORE!B224"),
    ("CODE back through the code page", "formulas_test.xlsx", "CORE!C172"),
    ("XLOOKUP next larger, binary descending", "ironcalc_XLOOKUP.xlsx", "LargerRows!Q9"),
    ("XLOOKUP next larger, binary ascending", "ironcalc_XLOOKUP.xlsx", "LargerRows!B9"),
    ("XLOOKUP next larger", "ironcalc_XLOOKUP.xlsx", "ReturnLarger!E9"),
    ("XMATCH in a binary search that fails", "formulas_test.xlsx", "EXTRA!L87"),
    ("SUMIFS over an error in the summed cells", "ironcalc_SUMIFS.xlsx", "Sheet1!D4"),
    ("SUMIF over an error", "ironcalc_SUMIFS.xlsx", "Sheet1!E13"),
    ("AVERAGEIFS over an error", "ironcalc_SUMIFS.xlsx", "Sheet1!F5"),
    ("SUMIFS with two criteria", "ironcalc_SUMIFS.xlsx", "Sheet1!E29"),
    ("TEXT format code with spaces and percent", "formulas_test.xlsx", "EXTRA!A12"),
    ("TEXT format code with grouping", "formulas_test.xlsx", "EXTRA!A13"),
    ("FIXED", "formulas_test.xlsx", "EXTRA!N4"),
    ("QUARTILE's argument checks", "formulas_test.xlsx", "COMPATIBILITY!AA32"),
    ("PERCENTILE's argument checks", "formulas_test.xlsx", "COMPATIBILITY!AA29"),
    ("FORECAST", "formulas_test.xlsx", "STATISTICAL!AA37"),
    ("IRR", "formulas_test.xlsx", "FINANCIAL!AA26"),
    ("YEARFRAC over error arguments", "formulas_test.xlsx", "DATE & TIME!AA27"),
    ("CEILING with a negative significance", "formulas_test.xlsx", "COMPATIBILITY!S6"),
    ("TIME as a serial, not text", "poi_FormulaEvalTestData_Copy.xlsx", "EverythingTests!D1384"),
    ("TIME past 24 hours", "poi_FormulaEvalTestData_Copy.xlsx", "EverythingTests!E1384"),
    ("DATE before 1 March 1900", "poi_FormulaEvalTestData_Copy.xlsx", "EverythingTests!D320"),
    ("PMT with a rate below -100 %", "ironcalc_PMT.xlsx", "Sheet1!F8"),
    ("PMT with a rate of -100 %", "ironcalc_PMT.xlsx", "Sheet1!G24"),
    ("PMT of text and boolean arguments", "poi_FormulaEvalTestData_Copy.xlsx", "EverythingTests!E1056"),
    ("SUMPRODUCT of single values, one of them text: #VALUE!", "poi_FormulaEvalTestData_Copy.xlsx",
     "EverythingTests!J1328"),
    ("SUMIF over the array from UNIQUE", "ironcalc_travel_expenses_tracker.xlsx", "Overview!C27"),
    ("INDEX/MATCH over SUMIF of an array", "ironcalc_travel_expenses_tracker.xlsx", "Overview!D28"),
    # Scalar functions computed by the formulas package's implementations (calc/xlfuncs/scalars.py).
    ("NORMDIST reads the text \"TRUE\" as TRUE", "formulas_test.xlsx", "COMPATIBILITY!U26"),
    ("NORMSINV of a probability out of range is #NUM!", "formulas_test.xlsx", "COMPATIBILITY!X28"),
    ("GCD over a range", "formulas_test.xlsx", "MATH & TRIG!AH34"),
    ("DATEDIF given ranges", "formulas_test.xlsx", "DATE & TIME!AG4"),
    ("CUMIPMT with a fractional period count", "formulas_test.xlsx", "FINANCIAL!R13"),
    ("T.TEST over ranges, tails and type given as arrays", "formulas_test.xlsx", "STATISTICAL!AG107"),
    ("PEARSON", "formulas_test.xlsx", "STATISTICAL!AG77"),
    ("Z.TEST", "formulas_test.xlsx", "STATISTICAL!AG121"),
    ("CHISQ.TEST", "formulas_test.xlsx", "STATISTICAL!AG17"),
    ("STEYX", "formulas_test.xlsx", "STATISTICAL!AG101"),
    ("TRIMMEAN given ranges", "formulas_test.xlsx", "STATISTICAL!AG115"),
    ("VARA", "formulas_test.xlsx", "STATISTICAL!AG118"),
    ("MODE.SNGL", "formulas_test.xlsx", "STATISTICAL!AH71"),
    ("PERCENTOF", "formulas_test.xlsx", "MATH & TRIG!AH49"),
    ("IMSUM over a range", "formulas_test.xlsx", "ENGINEERING!AG52"),
    ("IMCOS", "formulas_test.xlsx", "ENGINEERING!W33"),
    ("MMULT", "formulas_test.xlsx", "MATH & TRIG!AG43"),
    ("MINVERSE", "formulas_test.xlsx", "MATH & TRIG!R42"),
    ("MDETERM", "formulas_test.xlsx", "MATH & TRIG!R41"),
    ("ODDFPRICE", "ironcalc_PRICE_YIELD.xlsx", "ODDFPRICE_ODDFYIELD!J10"),
    ("ODDFYIELD", "ironcalc_PRICE_YIELD.xlsx", "ODDFPRICE_ODDFYIELD!K10"),
    ("ODDLPRICE", "ironcalc_PRICE_YIELD.xlsx", "ODDLPRICE_ODDLYIELD!I11"),
    ("IRR with a range of guesses", "formulas_test.xlsx", "FINANCIAL!AG26"),
    ("CONVERT given a range", "formulas_test.xlsx", "ENGINEERING!AG16"),
    ("XIRR given a range of guesses", "formulas_test.xlsx", "FINANCIAL!AG55"),
    # Array shaping (calc/xlfuncs/lookup/arrays.py): each was not computed (routed, or unknown).
    ("VSTACK of ranges of different widths", "formulas_test.xlsx", "LOOKUP!R146"),
    ("HSTACK", "formulas_test.xlsx", "LOOKUP!R47"),
    ("CHOOSECOLS passes an error index on", "formulas_test.xlsx", "LOOKUP!AA6"),
    ("CHOOSEROWS with a date text index", "formulas_test.xlsx", "LOOKUP!X10"),
    ("TAKE of no rows", "formulas_test.xlsx", "LOOKUP!U123"),
    ("DROP of every row", "formulas_test.xlsx", "LOOKUP!U16"),
    ("TOCOL with a date text mode", "formulas_test.xlsx", "LOOKUP!X126"),
    ("TOROW scanning by column", "formulas_test.xlsx", "LOOKUP!W130"),
    ("EXPAND to an empty cell's 0 rows", "formulas_test.xlsx", "LOOKUP!W19"),
    ("EXPAND with padding", "formulas_test.xlsx", "LOOKUP!U19"),
    ("WRAPROWS", "formulas_test.xlsx", "LOOKUP!L155"),
    ("WRAPCOLS", "formulas_test.xlsx", "LOOKUP!F155"),
    ("MUNIT", "formulas_test.xlsx", "CORE!P32"),
    ("TRIMRANGE of blank cells only", "formulas_test.xlsx", "LOOKUP!Z136"),
    ("TRIMRANGE with a fractional mode", "formulas_test.xlsx", "LOOKUP!Z135"),
    ("TRIMRANGE", "formulas_test.xlsx", "LOOKUP!R135"),
    ("TYPE of a range", "formulas_test.xlsx", "INFORMATION!AG24"),
    # Ordering (calc/xlfuncs/lookup/ordering.py).
    ("SORT by a column index below 1", "formulas_test.xlsx", "LOOKUP!AR117"),
    ("SORTBY two keys", "formulas_test.xlsx", "LOOKUP!Y121"),
    ("SORTBY of columns", "formulas_test.xlsx", "LOOKUP!W120"),
    ("UNIQUE exactly once, none", "formulas_test.xlsx", "LOOKUP!R140"),
    ("FILTER keeping nothing", "formulas_test.xlsx", "EXTRA!I20"),
    ("FILTER with an error in include", "formulas_test.xlsx", "LOOKUP!AA22"),
    # Regular expressions (calc/xlfuncs/text/regex.py).
    ("REGEXTEST ignoring case", "formulas_test.xlsx", "TEXT!X33"),
    ("REGEXEXTRACT of a group", "formulas_test.xlsx", "EXTRA!I4"),
    ("REGEXEXTRACT of no match", "formulas_test.xlsx", "EXTRA!I5"),
    ("REGEXREPLACE of a number", "formulas_test.xlsx", "TEXT!S32"),
    # Reference operators (calc/formula/operators.py).
    ("AREAS of a union", "formulas_test.xlsx", "LOOKUP!S4"),
    ("AREAS of a union intersected", "formulas_test.xlsx", "LOOKUP!V4"),
    ("ROW of an empty intersection", "formulas_test.xlsx", "LOOKUP!AG113"),
    ("ROW of an intersection", "formulas_test.xlsx", "LOOKUP!AG114"),
    ("COLUMN of an intersection", "formulas_test.xlsx", "LOOKUP!AG14"),
    ("TRANSPOSE of an intersection", "formulas_test.xlsx", "LOOKUP!T134"),
    # LOOKUP's bisection over mixed types (calc/xlfuncs/lookup/lookups.py).
    ("LOOKUP stepping over text", "formulas_test.xlsx", "LOOKUP!AG57"),
    ("LOOKUP of an unsorted vector", "formulas_test.xlsx", "LOOKUP!S62"),
    ("LOOKUP stepping over booleans", "formulas_test.xlsx", "LOOKUP!T58"),
    ("MATCH -1 over an ascending array", "formulas_test.xlsx", "LOOKUP!S84"),
    ("MATCH -1 over mixed types", "formulas_test.xlsx", "LOOKUP!R90"),
    ("MATCH 1 stepping over booleans", "formulas_test.xlsx", "LOOKUP!T67"),
    ("VLOOKUP of an error", "formulas_test.xlsx", "LOOKUP!AB143"),
    ("HLOOKUP of a boolean over numbers", "formulas_test.xlsx", "LOOKUP!Y45"),
    ("XMATCH next smaller across types", "formulas_test.xlsx", "LOOKUP!X189"),
    ("XMATCH next smaller of an empty cell", "formulas_test.xlsx", "LOOKUP!W190"),
    # Excel's bisection probes the middle of the bounds as they stand (calc/xlfuncs/lookup/lookups.py).
    ("XMATCH binary search over mixed types", "formulas_test.xlsx", "EXTRA!K79"),
    ("XMATCH binary descending over ascending values", "formulas_test.xlsx", "EXTRA!K82"),
    ("XMATCH binary next larger of an empty cell", "formulas_test.xlsx", "LOOKUP!W176"),
    ("XMATCH binary next smaller of an empty cell", "formulas_test.xlsx", "LOOKUP!W185"),
    ("XMATCH binary search of a boolean", "formulas_test.xlsx", "EXTRA!L94"),
    ("XMATCH of an error with wildcards in a binary search", "formulas_test.xlsx", "LOOKUP!AB183"),
    ("XLOOKUP binary search over booleans", "formulas_test.xlsx", "LOOKUP!V168"),
    ("XLOOKUP binary descending: the last of equal values", "ironcalc_XLOOKUP.xlsx", "MultipleElements!M4"),
    # TEXTBEFORE, TEXTAFTER (calc/xlfuncs/text/delimited.py).
    ("TEXTBEFORE the second of several delimiters", "formulas_test.xlsx", "TEXT!T45"),
    ("TEXTBEFORE of an empty instance", "formulas_test.xlsx", "TEXT!W45"),
    ("TEXTAFTER the last of several delimiters", "formulas_test.xlsx", "EXTRA!H33"),
    ("TEXTAFTER with match_end", "formulas_test.xlsx", "EXTRA!H30"),
    # Range arguments (calc/formula/hazards.py).
    ("TEXTSPLIT by arrays of delimiters", "formulas_test.xlsx", "EXTRA!O28"),
    ("ARRAYTOTEXT of a 2-D range", "formulas_test.xlsx", "TEXT!R3"),
    # Empty text (an empty shared string) is text, not a blank cell (calc/fast.py: empty_text).
    ("COUNTA counts empty text", "formulas_test.xlsx", "STATISTICAL!AG23"),
    ("COUNTA counts empty text among other values", "formulas_test.xlsx", "STATISTICAL!AH23"),
    ("COUNTBLANK counts empty text", "formulas_test.xlsx", "STATISTICAL!W23"),
    ("ARRAYTOTEXT quotes empty text", "formulas_test.xlsx", "TEXT!W4"),
    # A range criterion in an ordinary cell: implicit intersection (calc/formula/fit.py).
    ("COUNTIF with a range criterion in an ordinary cell", "poi_FormulaEvalTestData_Copy.xlsx",
     "EverythingTests!F296"),
]

#: (class, corpus book, cell): a legacy array formula (Ctrl+Shift+Enter over a range),
#: reproduced as one, computed equal to Excel's value.
ARRAY_EQUAL = [
    ("EDATE given a multi-cell reference is #VALUE!", "formulas_test.xlsx", "DATE & TIME!AH9"),
    ("ISODD given a multi-cell reference is #VALUE!", "formulas_test.xlsx", "INFORMATION!AH15"),
    ("MROUND given a multi-cell reference is #VALUE!", "formulas_test.xlsx", "MATH & TRIG!AH45"),
    ("XIRR given a range of guesses is #VALUE!", "formulas_test.xlsx", "FINANCIAL!AH55"),
    ("PMT given a range where one value is wanted", "formulas_test.xlsx", "FINANCIAL!AG39"),
    ("PV given a range where one value is wanted", "formulas_test.xlsx", "FINANCIAL!AG44"),
    ("SEARCH given an array constant", "formulas_test.xlsx", "TEXT!AG39"),
    ("IMDIV given ranges", "formulas_test.xlsx", "ENGINEERING!AH38"),
    ("N of a multi-cell reference reads its first cell", "formulas_test.xlsx", "INFORMATION!AH19"),
    ("T of a multi-cell reference reads its first cell", "formulas_test.xlsx", "TEXT!AH42"),
    ("MDETERM of one cell: a 1x1 matrix", "poi_MatrixFormulaEvalTestData.xlsx", "Sheet1!H50"),
    ("MINVERSE of one cell fills its array range", "poi_MatrixFormulaEvalTestData.xlsx", "Sheet1!H54"),
    # Array formulas of one cell over a range: reproduced as an ordinary formula, Excel intersects
    # the range with the formula's row (calc/formula/hazards.py BRIDGED_SCALARS).
    ("NORMDIST given a range: applied to each element", "formulas_test.xlsx", "COMPATIBILITY!AG26"),
    ("BINOM.DIST given a range", "formulas_test.xlsx", "STATISTICAL!AG10"),
    ("NPER given a range", "formulas_test.xlsx", "FINANCIAL!AG32"),
    ("PERMUTATIONA given a range", "formulas_test.xlsx", "STATISTICAL!AG83"),
]

#: (class, corpus book, cell): not computed (listed, naming the function) rather than wrong.
FLAGGED = [
    ("MYFUNCTION", "formulas_test.xlsx", "CORE!N23"),  # defined nowhere in the book: #NAME? in Excel
]


@pytest.mark.parametrize(("case", "book", "address"), EQUAL, ids=[f"{c[0]}:{c[2]}" for c in EQUAL])
def test_computed_as_excel_does(case, book, address, tmp_path):
    assert_cell_as_excel(case, book, address, tmp_path)


@pytest.mark.parametrize(("case", "book", "address"), ARRAY_EQUAL, ids=[f"{c[0]}:{c[2]}" for c in ARRAY_EQUAL])
def test_array_formula_computed_as_excel_does(case, book, address, tmp_path):
    assert_array_as_excel(case, book, address, tmp_path)


@pytest.mark.parametrize(("case", "book", "address"), FLAGGED, ids=[f"{c[0]}:{c[2]}" for c in FLAGGED])
def test_listed_when_not_computed(case, book, address, tmp_path):
    path, sheet, cell = reproduce(book, address, tmp_path)
    ours, flagged = computed(path, sheet, cell, reasons=True)
    assert flagged and case in flagged, f"{case}: {address} gave {ours!r}, not listed ({flagged})"


#: (class, corpus book, array formula range): every cell of a multi-cell array formula's range.
ARRAYS = [
    ("ROW of a two-row range, entered over 3 x 3", "formulas_test.xlsx", "LOOKUP!AK112:AM114"),
    ("COLUMN of a two-column range, entered over 3 x 3", "formulas_test.xlsx", "LOOKUP!AN12:AP14"),
    ("SORT of a row with every type", "formulas_test.xlsx", "LOOKUP!U118:AI118"),
    ("XLOOKUP of a row of values over rows of match and search modes", "formulas_test.xlsx",
     "LOOKUP!AH162:AW170"),
    ("XMATCH over a row of match modes", "formulas_test.xlsx", "EXTRA!H76:P76"),
    ("HLOOKUP of a row of values with an array of row numbers", "formulas_test.xlsx", "LOOKUP!AH44:AW44"),
    ("XMATCH of a sharp s over a row of match modes", "formulas_test.xlsx", "EXTRA!L73:M73"),
]


@pytest.mark.parametrize(("case", "book", "area"), ARRAYS, ids=[f"{c[0]}:{c[2]}" for c in ARRAYS])
def test_array_range_as_excel(case, book, area, tmp_path):
    """The array formula entered over the same range in a book made here (every cell it reads
    at Excel's cached value): each cell of the range is Excel's."""
    import openpyxl
    from openpyxl.utils.cell import get_column_letter, range_boundaries
    from openpyxl.worksheet.formula import ArrayFormula

    from tests.calc.excel_cases import corpus_workbook

    sheet, ref = area.split("!")
    c1, r1, c2, r2 = range_boundaries(ref)
    anchor = f"{get_column_letter(c1)}{r1}"
    path, _, _ = reproduce(book, f"{sheet}!{anchor}", tmp_path)
    made = openpyxl.load_workbook(path)
    text = corpus_workbook(book)[sheet][anchor].value.text
    made[sheet][anchor] = ArrayFormula(ref, text)
    made.save(path)
    from rates_xl.calc.workbook import WorkbookCalculation

    result = WorkbookCalculation(path).compute()
    assert not [s for s in result.skipped if s.sheet == sheet], result.skipped
    for r in range(r1, r2 + 1):
        for c in range(c1, c2 + 1):
            cell = f"{get_column_letter(c)}{r}"
            ours, theirs = result.values.get((sheet, cell)), excel_value(book, f"{sheet}!{cell}")
            assert same(ours, theirs), f"{case}: {sheet}!{cell} gave {ours!r}, Excel {theirs!r}"


#: (class, corpus book, row of ordinary formulas, the cells they read): side by side, as in
#: the corpus book, so an answer that spilled would be blocked by its neighbour (#SPILL!).
SIDE_BY_SIDE = [
    ("VLOOKUP of an array of column numbers in ordinary cells", "formulas_test.xlsx",
     "LOOKUP!R145:AF145", "C145:Q145"),
    ("HLOOKUP of an array of row numbers beside ordinary HLOOKUPs", "formulas_test.xlsx",
     "LOOKUP!R46:AF46", "C46:Q46"),
]


@pytest.mark.parametrize(("case", "book", "area", "inputs"), SIDE_BY_SIDE, ids=[c[2] for c in SIDE_BY_SIDE])
def test_ordinary_cells_side_by_side(case, book, area, inputs, tmp_path):
    """Each ordinary cell shows its answer's top-left value, as a legacy cell does in Excel."""
    import openpyxl
    from openpyxl.utils.cell import get_column_letter, range_boundaries

    from tests.calc.excel_cases import corpus_workbook

    sheet, ref = area.split("!")
    formulas = corpus_workbook(book)[sheet]
    made = openpyxl.Workbook()
    made.active.title = sheet
    c1, r1, c2, r2 = range_boundaries(inputs)
    for r in range(r1, r2 + 1):
        for c in range(c1, c2 + 1):
            value = excel_value(book, f"{sheet}!{get_column_letter(c)}{r}")
            made[sheet].cell(row=r, column=c).value = value
            if isinstance(value, str) and value.startswith("#"):
                made[sheet].cell(row=r, column=c).data_type = "e"
    c1, r1, c2, r2 = range_boundaries(ref)
    cells = [f"{get_column_letter(c)}{r}" for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)]
    for cell in cells:
        made[sheet][cell] = formulas[cell].value
    path = tmp_path / "side_by_side.xlsx"
    made.save(path)
    ours, flagged = computed_cells(path, sheet, cells)
    differ = {cell: (ours[cell], excel_value(book, f"{sheet}!{cell}")) for cell in cells
              if not same(ours[cell], excel_value(book, f"{sheet}!{cell}"))}
    assert not flagged and not differ, f"{case}: (ours, Excel's): {differ}"
