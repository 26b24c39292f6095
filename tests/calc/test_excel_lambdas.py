"""The LAMBDA family and GROUPBY/PIVOTBY, one class at a time, on a small workbook made here
from one cell of formulas_test.xlsx (`tests/calc/excel_cases.py`): every cell of the spilled
result must be Excel's own (cached in the corpus book), and a call we do not compute must be
listed with its reason. Before calc/xlfuncs/logical/lambdas.py and groupby.py every one of these
was "not computed" (formualizer answers #NAME? for all of them)."""

from __future__ import annotations

import pytest

from rates_xl.calc.fidelity import same
from tests.calc.excel_cases import excel_value, reproduce

BOOK = "formulas_test.xlsx"

#: (class, cell): the whole spill (its extent as Excel stored it) equal to Excel's values.
EQUAL = [
    ("MAP with a LAMBDA", "LOGICAL!R18"),
    ("MAP over an array constant", "LOGICAL!V18"),
    ("BYROW with a LAMBDA", "LOGICAL!R5"),
    ("BYROW with an eta-reduced SUM", "LOGICAL!S5"),
    ("BYCOL", "LOGICAL!R4"),
    ("SCAN over a range", "LOGICAL!R23"),
    ("SCAN over an array constant", "LOGICAL!X18"),
    ("REDUCE with an omitted initial value", "LOGICAL!R22"),
    ("MAKEARRAY with a range as its row count", "LOGICAL!R14"),
    ("a LAMBDA called in place", "LOGICAL!C12"),
    ("a LAMBDA of no parameter", "LOGICAL!E13"),
    ("LET", "LOGICAL!C13"),
    ("GROUPBY with subtotals and shown headers", "LOOKUP!M25"),
    ("GROUPBY PERCENTOF", "LOOKUP!S25"),
    ("GROUPBY with automatic headers", "LOOKUP!Y25"),
    ("GROUPBY filtered, table layout", "LOOKUP!AE25"),
    ("GROUPBY of mismatched sizes", "LOOKUP!Y34"),
    ("GROUPBY sorted past its columns", "LOOKUP!Z34"),
    ("PIVOTBY of three row and column fields", "LOOKUP!N93"),
    ("PIVOTBY totals first, sorted by value", "LOOKUP!AJ92"),
    ("PIVOTBY sorted by value within parents", "LOOKUP!AR96"),
    ("PIVOTBY with an array of sort orders", "LOOKUP!AJ101"),
    ("PIVOTBY PERCENTOF of column totals", "LOOKUP!AE96"),
    ("PIVOTBY PERCENTOF of row totals", "LOOKUP!AE100"),
    ("PIVOTBY PERCENTOF of the grand total", "LOOKUP!AE104"),
    ("PIVOTBY PERCENTOF of the parent column total", "LOOKUP!AE108"),
    ("PIVOTBY over array constants", "LOOKUP!R105"),
    ("PIVOTBY with shown headers", "EXTRA!BD95"),
    ("PIVOTBY with an error in its filter", "LOOKUP!N105"),
    ("PIVOTBY with a total depth past its fields", "EXTRA!AX3"),
]

#: (class, cell, what the reason names): listed as not computed, never a number of ours.
FLAGGED = [
    ("PIVOTBY given a cell as its function", "EXTRA!L96", "function argument", None),
    ("GROUPBY given a LAMBDA that reads a cell", "LOOKUP!M25", "LAMBDA",
     ("_xleta.SUM", "_xlfn.LAMBDA(_xlpm.x,SUM(_xlpm.x)+$A$1)")),
    ("GROUPBY with generated headers", "LOOKUP!M25", "generated headers", ("_xleta.SUM,3, 3", "_xleta.SUM,2, 3")),
    ("a LAMBDA kept in a LET", "LOGICAL!C13", "LAMBDA",
     ("232+_xlpm.x+_xlpm.y", "_xlfn.LAMBDA(_xlpm.a,_xlpm.a+1)")),
]


def _range(address: str) -> str:
    """The range of the formula's result as Excel stored it (its array formula's range)."""
    from tests.calc.excel_cases import _load

    sheet, cell = address.rsplit("!", 1)
    return getattr(_load(BOOK, False)[sheet][cell].value, "ref", None) or cell


def _cells(ref: str) -> list[str]:
    from openpyxl.utils.cell import get_column_letter, range_boundaries

    c1, r1, c2, r2 = range_boundaries(ref)
    return [f"{get_column_letter(c)}{r}" for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)]


def _as_stored(path, sheet: str, cell: str, ref: str, edit: tuple[str, str] | None = None) -> None:
    """The small book's formula as an array formula over Excel's range, as Excel stored it
    (`reproduce` writes an ordinary cell, whose value would be the first element only);
    `edit` (old, new) changes its text."""
    import openpyxl
    from openpyxl.worksheet.formula import ArrayFormula

    book = openpyxl.load_workbook(path)
    text = book[sheet][cell].value
    if edit is not None:
        assert edit[0] in text
        text = text.replace(*edit)
    book[sheet][cell] = ArrayFormula(ref, text)
    book.save(path)


def _calculate(path):
    from rates_xl.calc.workbook import WorkbookCalculation

    return WorkbookCalculation(path).compute()


_SUM = ("_xleta.SUM", "_xlfn.LAMBDA(_xlpm.x,SUM(_xlpm.x))")

#: (class, cell, edit of its formula): a LAMBDA as the function argument, the same
#: aggregation as the eta-reduced one Excel computed, so Excel's cached values are the answer.
EQUAL_EDITED = [
    ("GROUPBY given a LAMBDA", "LOOKUP!M25", _SUM),
    ("PIVOTBY given a LAMBDA", "LOOKUP!N93", _SUM),
    ("PIVOTBY given a LAMBDA, sorted by its values", "LOOKUP!AJ92", _SUM),
]


@pytest.mark.parametrize(("case", "address", "edit"), [(c, a, None) for c, a in EQUAL] + EQUAL_EDITED,
                         ids=[f"{c[0]}:{c[1]}" for c in EQUAL + EQUAL_EDITED])
def test_computed_as_excel_does(case, address, edit, tmp_path):
    path, sheet, anchor = reproduce(BOOK, address, tmp_path)
    ref = _range(address)
    _as_stored(path, sheet, anchor, ref, edit)
    result = _calculate(path)
    listed = {(s.sheet, s.cell): s.reason for s in result.skipped}
    differ = []
    for cell in _cells(ref):
        ours, theirs = result.values.get((sheet, cell)), excel_value(BOOK, f"{sheet}!{cell}")
        if (sheet, cell) in listed or not same(ours, theirs):
            differ.append((cell, ours, theirs, listed.get((sheet, cell))))
    assert not differ, f"{case}: {address}: (cell, ours, Excel's, listed) {differ[:5]}"


@pytest.mark.parametrize(("case", "address", "reason", "edit"), FLAGGED, ids=[f"{c[0]}:{c[1]}" for c in FLAGGED])
def test_listed_when_not_computed(case, address, reason, edit, tmp_path):
    path, sheet, cell = reproduce(BOOK, address, tmp_path)
    _as_stored(path, sheet, cell, _range(address), edit)
    result = _calculate(path)
    listed = [s.reason for s in result.skipped if (s.sheet, s.cell) == (sheet, cell)]
    assert listed and reason in listed[0], f"{case}: {address} gave {result.values.get((sheet, cell))!r}, not listed"


def test_a_rates_table_given_to_the_lambda_family_is_the_engines_to_compute(tmp_path, rates_client):
    """`MAP(RATES_DISCOUNTCURVE(...), LAMBDA(x, x))` is the curve itself: the engine calls the
    service for the argument and hands the table to the callback (it is no text for the
    `formulas` package, which knows no RATES_* function), and BYROW sums each row."""
    import xlsxwriter

    from tests.calc.test_array_kinds import CURVE

    wb = xlsxwriter.Workbook(tmp_path / "lambda_rates.xlsx")
    ws = wb.add_worksheet("Curve")
    ws.write_dynamic_array_formula("A1", "=" + CURVE)
    ws.write_dynamic_array_formula("D1", f"=_xlfn.MAP({CURVE},_xlfn.LAMBDA(_xlpm.x,_xlpm.x))")
    ws.write_dynamic_array_formula("G1", f"=_xlfn.BYROW({CURVE},_xlfn.LAMBDA(_xlpm.r,SUM(_xlpm.r)))")
    wb.close()
    result = _calculate_with(tmp_path / "lambda_rates.xlsx", rates_client)
    assert not result.skipped, [(s.cell, s.reason) for s in result.skipped]
    rows = [r for r in range(1, 60) if result.values.get(("Curve", f"A{r}")) not in (None, "")]
    assert len(rows) > 3
    for r in rows:
        assert [result.value("Curve", f"{c}{r}") for c in "DE"] == [result.value("Curve", f"{c}{r}") for c in "AB"]
        a, b = result.value("Curve", f"A{r}"), result.value("Curve", f"B{r}")
        numbers = [v for v in (a, b) if isinstance(v, float)]  # the header row is text: SUM 0
        assert same(result.value("Curve", f"G{r}"), sum(numbers)), (r, a, b)


def _calculate_with(path, client):
    from rates_xl.calc.workbook import WorkbookCalculation

    return WorkbookCalculation(path).compute(client)


def test_a_let_of_a_range_in_an_ordinary_cell_is_listed_not_its_first_element(tmp_path):
    """An ordinary cell's `=LET(x, A1:A3, x*2)` is Excel's implicit intersection (A2*2 in row
    2), which the engine cannot write out for a LET name: listed, never the array's first
    element (2). A LET of single values is computed."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r in (1, 2, 3):
        ws.cell(r, 1, r)
    ws["C2"] = "=_xlfn.LET(_xlpm.x,A1:A3,_xlpm.x*2)"
    ws["D2"] = "=_xlfn.LET(_xlpm.x,A2,_xlpm.y,_xlpm.x+1,_xlpm.y*2)"
    wb.save(tmp_path / "let.xlsx")
    result = _calculate(tmp_path / "let.xlsx")
    assert [s.cell for s in result.skipped] == ["C2"]
    assert result.value("S", "D2") == 6
