"""The statistical family as Excel computes it (calc/xlfuncs/literals.py, stats.py), one
class at a time on a small workbook made from one cell of an Excel-made corpus book
(`tests/calc/excel_cases.py`): the calculator's value is Excel's own (cached in the corpus
book, read at test time), and the cell is not listed. Each case failed before its fix."""

from __future__ import annotations

import pytest

from rates_xl.calc.fidelity import same
from tests.calc.excel_cases import computed, excel_value, reproduce

_F, _P = "formulas_test.xlsx", "poi_FormulaEvalTestData_Copy.xlsx"

#: (class, corpus book, cell): computed equal to Excel's value.
EQUAL = [
    # Literal arguments (literals.py).
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
]


@pytest.mark.parametrize(("case", "book", "address"), EQUAL, ids=[f"{c[0]}:{c[2]}" for c in EQUAL])
def test_computed_as_excel_does(case, book, address, tmp_path):
    path, sheet, cell = reproduce(book, address, tmp_path)
    ours, flagged = computed(path, sheet, cell)
    theirs = excel_value(book, address)
    assert not flagged and same(ours, theirs), f"{case}: {address} gave {ours!r}, Excel {theirs!r}"
