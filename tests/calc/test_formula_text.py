"""FORMULATEXT as Excel answers it (calc/formula/formula_text.py): the formula as typed, its
spaces kept, without the prefixes the file stores (`_xlfn.`, `_xlpm.`), #N/A for a cell holding
no formula; formualizer wrote its own parse of the formula (`=1 + 1`, `=_XLFN.FORMULATEXT(A13)`).

Excel 16's values, cached in IronCalc's Excel-made INFORMATION__FORMULATEXT.xlsx
(ironcalc/IronCalc xlsx/tests/calc_tests, MIT or Apache-2.0), at the cells named: the book's
own cells, written again by openpyxl and computed through the whole engine."""

from __future__ import annotations

import pytest

from rates_xl.calc.formula.formula_text import LONGEST, shown_text

#: The book's Sheet1, as the file holds it (formulas with the stored prefixes).
CELLS = {
    "E1": '=CONCATENATE(_xlfn.FORMULATEXT(F1)," NOT CIRCULAR!")', "F1": "=E1",
    "A2": 1, "B2": "=_xlfn.FORMULATEXT(A2)",
    "A3": True, "B3": "=_xlfn.FORMULATEXT(A3)",
    "A4": "Hello", "B4": "=_xlfn.FORMULATEXT(A4)",
    "A5": "=1", "B5": "=_xlfn.FORMULATEXT(A5)",
    "A6": "=1/0", "B6": "=_xlfn.FORMULATEXT(A6)",
    "A7": "=B7", "B7": "=_xlfn.FORMULATEXT(A7)",
    "A8": "=SIN(1/16)", "B8": "=_xlfn.FORMULATEXT(A8)",
    "A10": "=1+1", "B10": "=_xlfn.FORMULATEXT(A10)",
    "A11": "=A1", "B11": "=_xlfn.FORMULATEXT(A11)",
    "A12": "=E1-6+3", "B12": "=_xlfn.FORMULATEXT(A12)",
    "A13": "=_xlfn.FORMULATEXT(A13)", "B13": "=_xlfn.FORMULATEXT(A13)",
    "B15": "=_xlfn.FORMULATEXT(A15)",
}

#: cell -> Excel's value (the formualizer answers these replaced in the comments).
EXCEL = {
    "E1": "=E1 NOT CIRCULAR!", "F1": "=E1 NOT CIRCULAR!",
    "B2": "#N/A", "B3": "#N/A", "B4": "#N/A", "B5": "=1",
    "B6": "=1/0",  # formualizer: "=1 / 0"
    "B7": "=B7", "A7": "=B7",
    "B8": "=SIN(1/16)",  # "=SIN(1 / 16)"
    "B10": "=1+1",  # "=1 + 1"
    "B11": "=A1",
    "B12": "=E1-6+3",  # "=E1 - 6 + 3"
    "A13": "=FORMULATEXT(A13)",  # "=_XLFN.FORMULATEXT(A13)"
    "B13": "=FORMULATEXT(A13)",  # #N/A
    "B15": "#N/A",
}


@pytest.fixture(scope="module")
def computed(tmp_path_factory):
    from tests.calc.excel_cases import cases_computed

    return cases_computed(tmp_path_factory.mktemp("formulatext") / "formulatext.xlsx", CELLS)


@pytest.mark.parametrize("cell", sorted(EXCEL))
def test_formula_text_as_excel_answers(computed, cell):
    assert computed.values[("S", cell)] == EXCEL[cell]


@pytest.mark.parametrize(("stored", "shown"), [
    ("=_xlfn.LAMBDA(_xlpm.x, _xlpm.x+1)(2)", "=LAMBDA(x, x+1)(2)"),
    ("=_xlfn._xlws.SORT(A1:A3)", "=SORT(A1:A3)"),
    ('=CONCATENATE(_xlfn.FORMULATEXT(F1),"_xlfn. kept in a text")', '=CONCATENATE(FORMULATEXT(F1),"_xlfn. kept in a text")'),
    ("=_xlfn.SINGLE(A1:A3)", None),  # shown as =@A1:A3: left to the engine
    ("=_xlfn.ANCHORARRAY(A1)", None),  # =A1#
    ("=SUM(Table1[[#This Row],[x]])", None),  # =SUM(Table1[@x])
])
def test_the_text_the_formula_bar_shows(stored, shown):
    assert shown_text(stored) == shown


def test_a_long_formula_is_joined_and_one_past_excels_longest_is_na(tmp_path):
    from tests.calc.excel_cases import cases_computed

    long = "=" + "+".join(["1"] * 200)  # 399 characters: past a typed text's 255
    longest = "=" + "+".join(["1"] * (LONGEST // 2 + 1))  # 8,194 characters: past 8,192
    result = cases_computed(tmp_path / "long.xlsx", {"A1": long, "B1": "=_xlfn.FORMULATEXT(A1)",
                                                     "A2": longest, "B2": "=_xlfn.FORMULATEXT(A2)"})
    assert result.values[("S", "B1")] == long
    assert result.values[("S", "B2")] == "#N/A"


def test_formulatext_and_isformula_of_a_computed_reference_are_listed(tmp_path):
    """`FORMULATEXT(INDEX(B1:C2,2,2))`: which cell is read is known only once computed, and
    the engine answers its own text of a formula (`=40 + 1` where Excel shows `=40+1`) and
    FALSE to ISFORMULA for every cell: listed, not guessed. A plain reference is answered."""
    from tests.calc.excel_cases import sheets_computed

    cells = {"B1": 1, "C1": 2, "B2": 3, "C2": "=40+1", "E1": "=FORMULATEXT(INDEX(B1:C2,2,2))",
             "E2": "=ISFORMULA(OFFSET(B1,1,1))", "E3": "=FORMULATEXT(C2)", "E4": "=ISFORMULA(C2)"}
    result = sheets_computed(tmp_path / "text.xlsx", {"S": cells}, listing=True)
    assert sorted(s.cell for s in result.skipped) == ["E1", "E2"]
    assert (result.value("S", "E3"), result.value("S", "E4")) == ("=40+1", True)
