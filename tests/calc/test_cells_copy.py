"""The engine's copy sets each rewritten formula without openpyxl's setter where that gives the
same cell (calc/engines/formualizer/cells.py `set_formula`): compared here with the setter on
every kind of text it may be given, for the openpyxl installed."""

from __future__ import annotations

import openpyxl
import pytest
from openpyxl.cell.cell import MergedCell
from openpyxl.utils.exceptions import IllegalCharacterError

from rates_xl.calc.engines.formualizer import cells

TEXTS = [
    "=A1+1",
    "=SUM(B2:B9)*2",
    '=IF(A1>0,"a b","")&TEXT(B1,"0.00")',
    "=RATESXL.NUMTEXT(A1)&\"€ ß\"",  # beyond ASCII, printable
    "=\"a\tb\"",  # a tab: kept by the setter
    "=\"a\nb\"",  # a newline: kept
    "=1" + "+1" * 20000,  # past 32,767 characters: cut by the setter
    "=",  # no formula: text
    "plain",
    "#N/A",  # an error's text: an error
    "=\"\u00a0\"",  # a no-break space: not printable to Python, set by the setter
]


def _set(text: str, fast: bool) -> tuple[object, str]:
    ws = openpyxl.Workbook().active
    cell = ws["B2"]
    cell.value = 5
    if fast:
        cells.set_formula(cell, text)
    else:
        cell.value = text
    return cell._value, cell.data_type


@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_a_formula_set_is_the_cell_openpyxls_setter_makes(text):
    assert _set(text, True) == _set(text, False)


def test_a_refused_character_is_refused_as_the_setter_does():
    for fast in (True, False):
        with pytest.raises(IllegalCharacterError):
            _set("=\"a\x01b\"", fast)


def test_a_merged_cell_goes_through_its_own_setter():
    ws = openpyxl.Workbook().active
    ws.merge_cells("A1:B2")
    assert isinstance(ws["B2"], MergedCell)
    with pytest.raises(AttributeError):  # read-only, as its own setter says
        cells.set_formula(ws["B2"], "=1")


def test_the_installed_openpyxl_is_one_set_formula_was_checked_against():
    assert openpyxl.__version__ in cells.SETTER_CHECKED, (
        f"openpyxl {openpyxl.__version__} is installed; calc/engines/formualizer/cells.py's set_formula was "
        f"checked against {cells.SETTER_CHECKED}: with this one it goes through openpyxl's setter (slower). If the "
        "tests above pass, add the version to SETTER_CHECKED; if not, update set_formula")
