"""TEXTBEFORE and TEXTAFTER's arguments as Excel reads them (calc/xlfuncs/text/delimited.py):
instance_num rounded down, match_end other than 0 or 1 #VALUE!, an instance_num given past the
places a delimiter can start #VALUE!, an empty cell as if_not_found an empty text. Before, the
engine truncated instance_num (-1.6 was the last occurrence), read any match_end but 0 as 1,
answered if_not_found for "deli" in "del", and 0 for the empty cell.

Excel 16's values, cached in IronCalc's Excel-made TEXT__TEXTBEFORE_TEXTAFTER.xlsx
(ironcalc/IronCalc xlsx/tests/calc_tests, MIT or Apache-2.0) at the rows named."""

from __future__ import annotations

import pytest

#: row -> (text, delimiter, instance_num, match_mode, match_end, if_not_found), as the book's A:F
ROWS = {
    14: ("123 the 456 the 891", "the", 1.6, 1, 0, "Not found"),
    16: ("123 the 456 the 891", "the", -1.6, 1, 0, "Not found"),
    17: ("123 the 456 the 891", "the", -1.2, 1, 0, "Not found"),
    19: ("del", "deli", 1, 1, 0, "qwerty"),
    20: ("hi", "Hello Good Morning", 1, 1, 0, "@"),
    25: (True, "r", 1, 0, 0, None),
    39: ("123 the 456 the 891", "Hello", -1, 1, 2, "Failed"),
    40: ("123 the 456 the 891", "Hello", -1, 1, -12, "Failed"),
    41: ("123 the 456 the 891", "Hello", -1, 1, True, "Failed"),
}

#: formula -> Excel's value
EXCEL = {
    "_xlfn.TEXTAFTER(A14,B14,C14,D14,E14,F14)": " 456 the 891",
    "_xlfn.TEXTBEFORE(A14,B14,C14,D14,E14,F14)": "123 ",
    "_xlfn.TEXTAFTER(A16,B16,C16,D16,E16,F16)": " 456 the 891",  # G16
    "_xlfn.TEXTBEFORE(A16,B16,C16,D16,E16,F16)": "123 ",  # I16
    "_xlfn.TEXTAFTER(A17,B17,C17,D17,E17,F17)": " 456 the 891",  # G17
    "_xlfn.TEXTAFTER(A19,B19,C19,D19,E19,F19)": "#VALUE!",  # G19
    "_xlfn.TEXTBEFORE(A19,B19,C19,D19,E19,F19)": "#VALUE!",  # I19
    "_xlfn.TEXTAFTER(A19,B19)": "#N/A",  # H19: instance_num omitted
    "_xlfn.TEXTAFTER(A19,B19,C19)": "#VALUE!",  # K19
    "_xlfn.TEXTAFTER(A20,B20,C20,D20,E20,F20)": "#VALUE!",  # G20
    "_xlfn.TEXTAFTER(A25,B25,C25,D25,E25,F25)": "",  # G25: F25 empty
    "_xlfn.TEXTBEFORE(A25,B25,C25,D25,E25,F25)": "",  # I25
    "_xlfn.TEXTAFTER(A39,B39,C39,D39,E39,F39)": "#VALUE!",  # G39: match_end 2
    "_xlfn.TEXTBEFORE(A39,B39,C39,D39,E39,F39)": "#VALUE!",  # I39
    "_xlfn.TEXTAFTER(A40,B40,C40,D40,E40,F40)": "#VALUE!",  # G40: match_end -12
    "_xlfn.TEXTAFTER(A41,B41,C41,D41,E41,F41)": "123 the 456 the 891",  # G41: match_end TRUE
}


@pytest.fixture(scope="module")
def computed(tmp_path_factory):
    from tests.calc.excel_cases import cases_computed

    cells = {f"{'ABCDEF'[col]}{row}": value for row, values in ROWS.items() for col, value in enumerate(values)}
    cells.update({f"T{row}": "=" + formula for row, formula in enumerate(EXCEL, start=1)})
    result = cases_computed(tmp_path_factory.mktemp("delimited") / "cases.xlsx", cells)
    return {formula: result.values.get(("S", f"T{row}")) for row, formula in enumerate(EXCEL, start=1)}


@pytest.mark.parametrize("formula", list(EXCEL))
def test_as_excel_answers(computed, formula):
    assert computed[formula] == EXCEL[formula]


def test_textsplit_with_no_delimiter_given_is_value(tmp_path):
    """`TEXTSPLIT(A26,)` and `TEXTSPLIT(A26,,)`: neither delimiter given, Excel's #VALUE! (IronCalc's
    Excel-made TEXT__TEXTSPLIT.xlsx B26 and L26, MIT or Apache-2.0); it answered the text whole."""
    from tests.calc.excel_cases import cases_computed

    result = cases_computed(tmp_path / "split.xlsx", {"A1": "Hola sin split", "B1": "=_xlfn.TEXTSPLIT(A1,)",
                                                    "C1": "=_xlfn.TEXTSPLIT(A1,,)", "D1": '=_xlfn.TEXTSPLIT(A1," ")'})
    assert [result.values[("S", cell)] for cell in ("B1", "C1", "D1")] == ["#VALUE!", "#VALUE!", "Hola"]
