"""calc/frozen.py's `set_value`: a number, a boolean, a blank or a text goes into an openpyxl
cell as openpyxl's own `cell.value = ...` puts it (set_value writes those without openpyxl's
calls), a text then typed as the copy wants it."""

from __future__ import annotations

import pytest
from openpyxl import Workbook
from openpyxl.cell.cell import ERROR_CODES, ILLEGAL_CHARACTERS_RE

from rates_xl.calc.frozen import _BOUND, set_value
from rates_xl.calc.package import escaped
from rates_xl.functions.values import ERRORS, ErrorLikeText

SAMPLES = [0, 1, -7, 2**53 + 1, 10**400, 0.0, -0.0, 1.5, 1e308, 5e-324, True, False, None]


@pytest.mark.parametrize("value", SAMPLES, ids=repr)
def test_a_number_is_bound_as_openpyxl_binds_it(value: object) -> None:
    ws = Workbook().active
    ours, theirs = ws.cell(row=1, column=1, value="=A2"), ws.cell(row=1, column=2, value="=A2")
    set_value(ours, value)
    theirs.value = value
    assert (ours._value, ours.data_type) == (theirs._value, theirs.data_type)
    assert type(ours._value) is type(value)


def test_the_table_is_openpyxls() -> None:
    ws = Workbook().active
    for cls, kind in _BOUND.items():
        cell = ws.cell(row=1, column=1, value="=A2")
        cell.value = cls()  # 0, 0.0, False, None
        assert cell.data_type == kind, cls


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")], ids=repr)
def test_a_number_a_file_cannot_hold_is_num_error(value: float) -> None:
    cell = Workbook().active.cell(row=1, column=1, value="=A2")
    set_value(cell, value)
    assert (cell.value, cell.data_type) == ("#NUM!", "e")


TEXTS = ["", "=", "a", "=A1+1", *ERRORS, "#n/a", " #N/A", "#N/A ", "_x0041_ text",
         "line\nbreak\ttab", "carriage\rreturn", "bell\x07 and \x1f", "é ∑ 𝄞", "x" * 40000,
         ErrorLikeText("#N/A"), ErrorLikeText("#VALUE!"), ErrorLikeText("plain")]


@pytest.mark.parametrize("value", TEXTS, ids=lambda v: repr(v)[:30])
def test_text_is_bound_as_openpyxl_binds_it_then_typed(value: str) -> None:
    """openpyxl's own `cell.value = ...` of the escaped text, then the type set_value wants:
    text for text that reads as an error or a formula, an error for every error value."""
    ws = Workbook().active
    ours, theirs = ws.cell(row=1, column=1, value="=A2"), ws.cell(row=1, column=2, value="=A2")
    set_value(ours, value)
    text = escaped(value)[:32767]
    theirs.value = text
    if text.startswith("=") or isinstance(value, ErrorLikeText):
        theirs.data_type = "s"
    elif text in ERRORS:
        theirs.data_type = "e"
    assert (ours._value, ours.data_type) == (theirs._value, theirs.data_type)
    assert type(ours._value) is str


def test_escaped_text_holds_no_character_openpyxl_refuses() -> None:
    refused = [chr(n) for n in range(0x110000) if ILLEGAL_CHARACTERS_RE.match(chr(n))]
    assert refused and all(ILLEGAL_CHARACTERS_RE.search(escaped(char)) is None for char in refused)
    assert set(ERROR_CODES) <= set(ERRORS)  # (openpyxl's error values are errors to set_value)
