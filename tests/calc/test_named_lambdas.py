"""A call of a defined name standing for a LAMBDA (Name Manager's own functions) computed as
that LAMBDA called in place (calc/formula/lambdas.py `named_lambdas`); it was listed, "calls
TEMPERATURE, which the engine does not know".

Excel 16's values, cached in IronCalc's Excel-made LOGICAL__LAMBDA.xlsx (ironcalc/IronCalc
xlsx/tests/calc_tests, MIT or Apache-2.0): its two names and the cells calling them."""

from __future__ import annotations

import pytest

NAMES = {
    "Temperature": "_xlfn.LAMBDA(_xlpm.temp, (5/9) * (_xlpm.temp-32))",
    "CountWords": '_xlfn.LAMBDA(_xlpm.text, LEN(TRIM(_xlpm.text)) - LEN(SUBSTITUTE(TRIM(_xlpm.text), " ", "")) + 1)',
    "Twice": "_xlfn.LAMBDA(_xlpm.x, Temperature(_xlpm.x) * 2)",  # a name in a name
    "Fact": "_xlfn.LAMBDA(_xlpm.n, IF(_xlpm.n <= 1, 1, _xlpm.n * Fact(_xlpm.n - 1)))",  # recursive
}
#: cell -> (its input, its formula, Excel's value, the book's cell)
CASES = {
    "B5": (0, "=Temperature(A5)", -17.77777777777778, "Sheet1!B5"),
    "B6": (100, "=Temperature(A6)", 37.77777777777778, "Sheet1!B6"),
    "B7": (50, "=Temperature(A7)", 10, "Sheet1!B7"),
    "B8": (-10, "=Temperature(A8)", -23.333333333333336, "Sheet1!B8"),
    "B9": ("Because it's in the Impossible that you find reality", "=CountWords(A9)", 9, "Sheet1!F2"),
}


@pytest.fixture(scope="module")
def computed(tmp_path_factory):
    import openpyxl
    from openpyxl.workbook.defined_name import DefinedName

    from rates_xl.calc.workbook import WorkbookCalculation

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for name, text in NAMES.items():
        book.defined_names[name] = DefinedName(name, attr_text=text)
    for cell, (value, formula, _excel, _where) in CASES.items():
        sheet["A" + cell[1:]] = value
        sheet[cell] = formula
    sheet["B10"] = "=Twice(A6)"
    sheet["B11"] = "=Fact(A7)"
    path = tmp_path_factory.mktemp("named") / "named.xlsx"
    book.save(path)
    return WorkbookCalculation(path, full=True).compute()


@pytest.mark.parametrize("cell", sorted(CASES))
def test_a_named_lambda_as_excel_computes_it(computed, cell):
    assert computed.values[("S", cell)] == pytest.approx(CASES[cell][2], rel=1e-15), CASES[cell]


def test_a_name_inside_the_lambda_is_written_out_too(computed):
    assert computed.values[("S", "B10")] == pytest.approx(2 * 37.77777777777778, rel=1e-15)


def test_a_recursive_lambda_is_listed_never_a_silent_name_error(computed):
    assert [(s.cell, "recursive LAMBDA" in s.reason) for s in computed.skipped] == [("B11", True)]
    assert computed.unknown_functions == {}
