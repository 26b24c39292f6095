"""One class of Excel's function library at a time, on a small workbook made here from one
cell of an Excel-made corpus book (`tests/calc/excel_cases.py`): the calculator's value must
be Excel's own (cached in the corpus book), or the cell must be listed as not computed;
never a different number without a word. Each case failed before its fix."""

from __future__ import annotations

import pytest

from rates_xl.calc.fidelity import same
from tests.calc.excel_cases import array_range, computed, computed_cells, excel_value, reproduce

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
    ("SUMIF over the array from UNIQUE", "ironcalc_travel_expenses_tracker.xlsx", "Overview!C27"),
    ("INDEX/MATCH over SUMIF of an array", "ironcalc_travel_expenses_tracker.xlsx", "Overview!D28"),
    # Scalar functions computed by the formulas package's implementations (calc/xlfuncs/scalars.py).
    ("NORMDIST reads the text \"TRUE\" as TRUE", "formulas_test.xlsx", "COMPATIBILITY!U26"),
    ("NORMSINV of a probability out of range is #NUM!", "formulas_test.xlsx", "COMPATIBILITY!X28"),
    ("NORMDIST given a range: applied to each element", "formulas_test.xlsx", "COMPATIBILITY!AG26"),
    ("BINOM.DIST given a range", "formulas_test.xlsx", "STATISTICAL!AG10"),
    ("GCD over a range", "formulas_test.xlsx", "MATH & TRIG!AH34"),
    ("DATEDIF given ranges", "formulas_test.xlsx", "DATE & TIME!AG4"),
    ("NPER given a range", "formulas_test.xlsx", "FINANCIAL!AG32"),
    ("CUMIPMT with a fractional period count", "formulas_test.xlsx", "FINANCIAL!R13"),
    ("T.TEST over ranges, tails and type given as arrays", "formulas_test.xlsx", "STATISTICAL!AG107"),
    ("PEARSON", "formulas_test.xlsx", "STATISTICAL!AG77"),
    ("Z.TEST", "formulas_test.xlsx", "STATISTICAL!AG121"),
    ("CHISQ.TEST", "formulas_test.xlsx", "STATISTICAL!AG17"),
    ("STEYX", "formulas_test.xlsx", "STATISTICAL!AG101"),
    ("TRIMMEAN given ranges", "formulas_test.xlsx", "STATISTICAL!AG115"),
    ("VARA", "formulas_test.xlsx", "STATISTICAL!AG118"),
    ("MODE.SNGL", "formulas_test.xlsx", "STATISTICAL!AH71"),
    ("PERMUTATIONA", "formulas_test.xlsx", "STATISTICAL!AG83"),
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
]

#: (class, corpus book, cell): not computed (listed, naming the function) rather than wrong.
FLAGGED = [
    ("VSTACK", "formulas_test.xlsx", "LOOKUP!R146"),
    ("CHOOSECOLS", "formulas_test.xlsx", "LOOKUP!AI6"),
]


@pytest.mark.parametrize(("case", "book", "address"), EQUAL, ids=[f"{c[0]}:{c[2]}" for c in EQUAL])
def test_computed_as_excel_does(case, book, address, tmp_path):
    path, sheet, cell = reproduce(book, address, tmp_path)
    ours, flagged = computed(path, sheet, cell)
    theirs = excel_value(book, address)
    assert not flagged and same(ours, theirs), f"{case}: {address} gave {ours!r}, Excel {theirs!r}"


@pytest.mark.parametrize(("case", "book", "address"), ARRAY_EQUAL, ids=[f"{c[0]}:{c[2]}" for c in ARRAY_EQUAL])
def test_array_formula_computed_as_excel_does(case, book, address, tmp_path):
    path, sheet, _cell = reproduce(book, address, tmp_path, as_array=True)
    cells = array_range(book, address)
    ours, flagged = computed_cells(path, sheet, cells)
    theirs = {cell: excel_value(book, f"{sheet}!{cell}") for cell in cells}
    differ = {cell: (ours[cell], theirs[cell]) for cell in cells if not same(ours[cell], theirs[cell])}
    assert not flagged and not differ, f"{case}: {address} (ours, Excel's): {differ}"


@pytest.mark.parametrize(("case", "book", "address"), FLAGGED, ids=[f"{c[0]}:{c[2]}" for c in FLAGGED])
def test_listed_when_not_computed(case, book, address, tmp_path):
    path, sheet, cell = reproduce(book, address, tmp_path)
    ours, flagged = computed(path, sheet, cell, reasons=True)
    assert flagged and case in flagged, f"{case}: {address} gave {ours!r}, not listed ({flagged})"
