"""The statistical family as Excel computes it (calc/formula/arguments.py, calc/xlfuncs/statistical/stats.py), one
class at a time on a small workbook made from one cell of an Excel-made corpus book
(`tests/calc/excel_cases.py`): the calculator's value is Excel's own (cached in the corpus
book, read at test time), and the cell is not listed. Each case failed before its fix."""

from __future__ import annotations

import pytest

from tests.calc.excel_cases import assert_array_as_excel, assert_cell_as_excel

_F, _P = "formulas_test.xlsx", "poi_FormulaEvalTestData_Copy.xlsx"

#: (class, corpus book, cell): computed equal to Excel's value.
EQUAL = [
    # Literal arguments (the pass typed_literals).
    ('STDEV of a literal "" is #VALUE!', _F, "COMPATIBILITY!S34"),
    ('STDEV reads a literal date text as its serial', _F, "COMPATIBILITY!T34"),
    ('AVERAGE reads a literal date text as its serial', _F, "STATISTICAL!T4"),
    ('AVERAGEA of a literal "" is #VALUE!', _F, "STATISTICAL!S5"),
    ('AVERAGEA of a literal "TRUE" is #VALUE!', _P, "misc!A13"),
    ('MAXA reads a literal date text', _F, "STATISTICAL!T63"),
    ("COUNT counts a literal date text", _F, "STATISTICAL!R21"),
    ("COUNT ignores literal errors and text", _P, "EverythingTests!F284"),
    ("LARGE of a literal TRUE", _P, "EverythingTests!G816"),
    ('LARGE of a literal "2.3"', _P, "EverythingTests!H816"),
    ('MODE refuses a literal "1"', _P, "EverythingTests!H936"),
    ('MODE.SNGL ignores a literal ""', _F, "STATISTICAL!S71"),
    # calc/xlfuncs/statistical/stats.py.
    ("SKEW.P of symmetric data: Excel's last bits", _F, "STATISTICAL!R93"),
    ("SKEW.P of symmetric data over text and booleans", _F, "STATISTICAL!AH93"),
    ("MODE.MULT with an omitted argument is #VALUE!", _F, "STATISTICAL!AG69"),
    ("STDEVPA of an empty cell is #DIV/0!", _F, "STATISTICAL!U100"),
    ("STDEVPA reads a cell's date text as 0", _F, "STATISTICAL!X100"),
    ("VARA reads a cell's date text as 0", _F, "STATISTICAL!X118"),
    # COUNTIF (calc/xlfuncs/statistical/conditional.py).
    ("COUNTIF of an error criterion counts that error", _F, "STATISTICAL!AB24"),
    ("COUNTIF of #N/A", _F, "STATISTICAL!AC24"),
    ("COUNTIF of a computed error criterion", _P, "EverythingTests!E296"),
    ("COUNTIF of an array constant in one cell", _F, "STATISTICAL!AG24"),
]

#: (class, corpus book, cell): a legacy array formula, every cell of its range Excel's.
ARRAY_EQUAL = [
    ("MODE.MULT of several ranges, two modes in order of appearance", _F, "STATISTICAL!T69"),
    ("MODE.MULT of several ranges", _F, "STATISTICAL!R69"),
    ("COUNTIF of an array of criteria, #N/A past them", _F, "STATISTICAL!AH24"),
]


@pytest.mark.parametrize(("case", "book", "address"), EQUAL, ids=[f"{c[0]}:{c[2]}" for c in EQUAL])
def test_computed_as_excel_does(case, book, address, tmp_path):
    assert_cell_as_excel(case, book, address, tmp_path, strict=True)


@pytest.mark.parametrize(("case", "book", "address"), ARRAY_EQUAL, ids=[f"{c[0]}:{c[2]}" for c in ARRAY_EQUAL])
def test_array_formula_computed_as_excel_does(case, book, address, tmp_path):
    assert_array_as_excel(case, book, address, tmp_path, strict=True)


@pytest.mark.parametrize(("formula", "engine_copy"), [
    ('=AVERAGE(A1:B2,"29/02/1900")', "=AVERAGE(A1:B2,60.0)"),
    ('=STDEV(A1:B2,"")', "=STDEV(A1:B2,#VALUE!)"),
    ('=_xlfn.VAR.S(A1,TRUE,"-2")', "=_xlfn.VAR.S(A1,1,(-2.0))"),
    ('=MAX(1,"1e400")', "=MAX(1,#VALUE!)"),  # no finite number: not written as inf
    ('=COUNT(2,"A","26/08",#REF!,TRUE)', None),  # checked below: the date counted, the rest not
    ('=MODE(B8,"1",2)', "=MODE(B8,#VALUE!,2)"),
    # Untouched: text inside an array constant, inside another call, or in another function.
    ('=AVERAGE({1,"a"},IF(A1,"x","2"))', '=AVERAGE({1,"a"},IF(A1,"x","2"))'),
    ('=N("1")', '=N("1")'),
    ('=SUM("1",A1)', "=SUM(1.0,A1)"),  # SUM too reads typed text: Microsoft's SUM, "text values that can't be translated into numbers" are the errors
    ('=_xlfn.MODE.SNGL(A1:B2,"")', '=_xlfn.MODE.SNGL(A1:B2,"")'),
])
def test_literal_arguments_written_as_excel_reads_them(formula, engine_copy):
    from rates_xl.calc.formula.passes import one

    written = one("typed_literals", formula)
    if engine_copy is None:
        assert written.startswith('=COUNT(2,"",') and written.endswith(',"",TRUE)'), written
        assert float(written.split(",")[2]) > 40000, written  # 26 August of this year
    else:
        assert written == engine_copy


def test_skew_p_needs_three_values_and_a_spread():
    """Microsoft's documentation of SKEW.P: fewer than three data points, or a standard
    deviation of zero, is #DIV/0!; an error among the values is passed on."""
    from rates_xl.calc.engines.formualizer.values import error
    from rates_xl.calc.xlfuncs.statistical.stats import skew_p

    call = skew_p({})
    assert call([[1.0, 2.0, "text", True, None]]) == error("#DIV/0!")
    assert call(2.0, 2.0, 2.0) == error("#DIV/0!")
    assert call([[1.0, error("#N/A"), 3.0]]) == error("#N/A")
    assert call(1.0, 2.0, 4.0) > 0


def test_countif_is_ours_as_the_rest_of_its_family(tmp_path):
    """COUNTIF went to formualizer's own for a literal or one-cell criterion, which matches `?`
    against a byte when the range holds a number, and (like MATCH in Excel, unlike our SUMIF
    then) tells "ß" from "ss": every COUNTIF is now ours, as COUNTIFS and SUMIF are."""
    import openpyxl

    from rates_xl.calc.workbook import WorkbookCalculation

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for row, value in enumerate(["Jürgen", 1, "straße", "strasse"], start=1):
        sheet.cell(row=row, column=1).value = value
        sheet.cell(row=row, column=2).value = 10 ** row
    sheet["C1"], sheet["C2"] = '=COUNTIF(A1:A4,"J?rgen")', '=COUNTIF(A1:A4,"stra?e")'
    sheet["C3"], sheet["C4"] = '=COUNTIF(A1:A4,"STRASSE")', '=SUMIF(A1:A4,"STRASSE",B1:B4)'
    book.save(tmp_path / "countif.xlsx")
    values = WorkbookCalculation(tmp_path / "countif.xlsx", full=True).compute().values
    assert [values[("S", f"C{r}")] for r in range(1, 5)] == [1, 1, 1, 10000]


def test_text_among_a_statistical_functions_values_is_left_out_whatever_it_says(tmp_path):
    """Excel leaves text in a reference out of KURT's and MODE's data set, "10" as "abc"
    (formulas_test.xlsx STATISTICAL!X56: KURT(I56,G56) over the text "29/02/1900" and 5 is
    #DIV/0!, one value; IronCalc's Excel-made MEADIAN_KURT_SKEW_HARMEAN.xlsx F2, KURT over the
    texts "6/6/2018" and "13" among numbers, -1.2129835263391704, is now that). The bridged `formulas` ones read a "10": KURT was #VALUE!, and MODE's
    choice between equally frequent values moved (Excel's is the first to appear: 3 here,
    LibreOffice too; it was 0). Each is checked against the same data without the text."""
    import openpyxl

    from rates_xl.calc.workbook import WorkbookCalculation

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for row, value in enumerate([3, 0, "10", 3, 0, 5, "2024-01-10", 7], start=1):
        sheet.cell(row=row, column=1).value = value
        sheet.cell(row=row, column=2).value = None if isinstance(value, str) else value
    calls = ["KURT", "MODE.SNGL", "MODE", "SKEW", "STDEV.S", "AVEDEV", "DEVSQ", "PERCENTILE.INC"]
    for row, name in enumerate(calls, start=1):
        extra = ",0.3" if name == "PERCENTILE.INC" else ""
        sheet.cell(row=row, column=3).value = f"={name}(A1:A8{extra})"
        sheet.cell(row=row, column=4).value = f"={name}(B1:B8{extra})"
    sheet["E1"], sheet["E2"] = "=AVERAGEA(A1:A8)", "=SUM(B1:B8)/8"  # text counts as 0 in AVERAGEA
    book.save(tmp_path / "texts.xlsx")
    values = WorkbookCalculation(tmp_path / "texts.xlsx", full=True).compute().values
    for row, name in enumerate(calls, start=1):
        got, without = values[("S", f"C{row}")], values[("S", f"D{row}")]
        assert isinstance(got, float) and got == pytest.approx(without, rel=1e-12), name
    assert values[("S", "C2")] == 3
    assert values[("S", "E1")] == pytest.approx(values[("S", "E2")])
