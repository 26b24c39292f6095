"""Lookups given a constant where they take an array (the pass `lookup_constants`,
calc/formula/arguments.py): a column of such lookups, each its own constant, answers each its
own (formualizer evaluated the copies with the first one's constant: `MATCH(A2,2,0)` was #N/A);
VLOOKUP's and HLOOKUP's table given a text is #VALUE! in Excel (the engine searched a one-cell
table and answered #N/A), a number or logical is searched.

Excel 16's values, cached in IronCalc's Excel-made HVLOOKUP.xlsx (ironcalc/IronCalc
xlsx/tests/calc_tests, MIT or Apache-2.0), at the cells named: M12:M14 hold "Aranda"."""

from __future__ import annotations

import pytest

from rates_xl.calc.formula import passes
from tests.calc.excel_cases import cases_computed

#: (the function, its table as written, Excel's value, the book's cell)
CASES = [
    ("VLOOKUP", "3", "#N/A", "VLOOKUP!N12"),
    ("VLOOKUP", '"Nothing"', "#VALUE!", "VLOOKUP!N13"),
    ("VLOOKUP", "TRUE", "#N/A", "VLOOKUP!N14"),
    ("HLOOKUP", "3", "#N/A", "HLOOKUP!N12"),
    ("HLOOKUP", '"Nothing"', "#VALUE!", "HLOOKUP!N13"),
    ("HLOOKUP", "TRUE", "#N/A", "HLOOKUP!N14"),
]


@pytest.fixture(scope="module")
def computed(tmp_path_factory):
    """The book's rows as it holds them: each function's three lookups down one column."""
    cells: dict[str, object] = {}
    for row, (name, table, _excel, _cell) in enumerate(CASES, start=1):
        cells.update({f"M{row}": "Aranda", f"N{row}": f"={name}(M{row},{table}, 1)"})
    return cases_computed(tmp_path_factory.mktemp("lookup_constants") / "lookups.xlsx", cells)


@pytest.mark.parametrize("row", range(1, len(CASES) + 1), ids=[c[3] for c in CASES])
def test_as_excel_answers(computed, row):
    assert computed.values[("S", f"N{row}")] == CASES[row - 1][2]


def test_a_column_of_constant_tables_answers_each_its_own(tmp_path):
    """Copies differing only in their table's constant: each answers as it would alone (4 in {3}
    answers 3 by the approximate match, 4 in {5} is not found; an error given is passed on)."""
    column = ["=VLOOKUP(A{r},3,1)", "=VLOOKUP(A{r},5,1)", '=VLOOKUP(A{r},"x",1)', "=VLOOKUP(A{r},#REF!,1)",
              "=HLOOKUP(A{r},3,1)", "=HLOOKUP(A{r},5,1)", "=MATCH(A{r},3,0)", "=MATCH(A{r},4,0)",
              "=_xlfn.XMATCH(A{r},4)", "=_xlfn.XLOOKUP(A{r},3,1)", '=_xlfn.XLOOKUP(A{r},4,"four")',
              '=MATCH(A{r},"4",0)']
    cells: dict[str, object] = {}
    for row, formula in enumerate(column, start=1):
        cells.update({f"A{row}": 4, f"B{row}": formula.format(r=row)})
    together = cases_computed(tmp_path / "column.xlsx", cells)
    alone = [cases_computed(tmp_path / f"alone{row}.xlsx", {"A1": 4, "B1": formula.format(r=1)}).values[("S", "B1")]
             for row, formula in enumerate(column, start=1)]
    assert [together.values[("S", f"B{row}")] for row in range(1, len(column) + 1)] == alone
    assert alone == [3, "#N/A", "#VALUE!", "#REF!", 3, "#N/A", "#N/A", 1, 1, "#N/A", "four", "#N/A"]


def test_only_a_constant_table_is_rewritten():
    assert passes.one("lookup_constants", '=VLOOKUP(A1,"t",2)') == "=VLOOKUP(A1,IF(TRUE,#VALUE!),2)"
    assert passes.one("lookup_constants", "=VLOOKUP(A1,#N/A,2)") == "=VLOOKUP(A1,IF(TRUE,#N/A),2)"
    assert passes.one("lookup_constants", "=HLOOKUP(A1,2.5,1)+VLOOKUP(A1,FALSE,1)") == \
        "=HLOOKUP(A1,{2.5},1)+VLOOKUP(A1,{FALSE},1)"
    assert passes.one("lookup_constants", '=MATCH(A1,"t",0)+_xlfn.XLOOKUP(A1,1,2,3)') == \
        '=MATCH(A1,{"t"},0)+_xlfn.XLOOKUP(A1,{1},{2},3)'
    for left in ('=VLOOKUP(A1,B1:C9,2)', '=VLOOKUP("t",B1:C9,2)', "=VLOOKUP(A1,-3,1)", "=VLOOKUP(A1,{1,2},1)",
                 '=XLOOKUP("t",B1:B3,C1:C3)', "=MATCH(2,B1:B3,0)", "=VLOOKUP(A1)", "=SUMIF(A1:A3,1)"):
        assert passes.one("lookup_constants", left) == left
