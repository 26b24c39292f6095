"""One class of Excel's function library at a time, on a small workbook made here from one
cell of an Excel-made corpus book (`tests/calc/excel_cases.py`): the calculator's value must
be Excel's own (cached in the corpus book), or the cell must be listed as not computed;
never a different number without a word. Each case failed before its fix."""

from __future__ import annotations

import pytest

from rates_xl.calc.fidelity import same
from tests.calc.excel_cases import computed, excel_value, reproduce

#: (class, corpus book, cell): computed equal to Excel's value.
EQUAL = [
    ("CONVERT with a prefixed unit", "formulas_test.xlsx", "EXTRA!AF54"),
    ("CONVERT of volume units", "formulas_test.xlsx", "EXTRA!W116"),
    ("CONVERT of cubic angstroms", "formulas_test.xlsx", "EXTRA!AA104"),
    ("CONVERT of speed", "formulas_test.xlsx", "EXTRA!AE162"),
    ("CHAR in Excel for Mac's code page", "formulas_test.xlsx", "CORE!B159"),
    ("CHAR in Excel for Mac's code page", "formulas_test.xlsx", "CORE!B224"),
    ("CODE back through the code page", "formulas_test.xlsx", "CORE!C172"),
]

#: (class, corpus book, cell): not computed (listed) rather than wrong.
FLAGGED: list[tuple[str, str, str]] = []


@pytest.mark.parametrize(("case", "book", "address"), EQUAL, ids=[f"{c[0]}:{c[2]}" for c in EQUAL])
def test_computed_as_excel_does(case, book, address, tmp_path):
    path, sheet, cell = reproduce(book, address, tmp_path)
    ours, flagged = computed(path, sheet, cell)
    theirs = excel_value(book, address)
    assert not flagged and same(ours, theirs), f"{case}: {address} gave {ours!r}, Excel {theirs!r}"


@pytest.mark.parametrize(("case", "book", "address"), FLAGGED, ids=[f"{c[0]}:{c[2]}" for c in FLAGGED])
def test_listed_when_not_computed(case, book, address, tmp_path):
    path, sheet, cell = reproduce(book, address, tmp_path)
    ours, flagged = computed(path, sheet, cell)
    theirs = excel_value(book, address)
    assert flagged and same(ours, theirs), f"{case}: {address} gave {ours!r} (listed: {flagged})"
