"""TEXT of a number in a fraction format (calc/xlfuncs/text/fractions.py). The cases are Excel's
answers in apache/poi's Excel-made NumberFormatTests.xlsx (test-data/spreadsheet, sheet Tests:
the row, the format in B, the value in C, Excel's cached TEXT in A), a few of each rule; the
bridged `formulas` TEXT wrote the placeholders as they are ("|:2/4|" for 23.75)."""

from __future__ import annotations

import pytest

from tests.calc.financial_book import computed

#: (row of NumberFormatTests.xlsx, format, value, Excel's answer)
EXCEL = [
    (120, "|#\\:#/#|", 23.75, "|23:3/4|"), (121, "|#\\:#/#|", -23.75, "-|23:3/4|"),
    (122, "|#\\:#/#|", 0.75, "|3/4|"), (124, "|#\\:#/#|", 0, "|0|"), (125, "|#\\:#/#|", 1, "|1|"),
    (127, "|#-#-#\\:#/#|", 23.75, "|-2-3:3/4|"), (129, "|#-#-#\\:#/#|", 0.75, "|--3/4|"),
    (131, "|#-#-#\\:#/#|", 0, "|--0|"),
    (141, "|#\\:#=/=?|", 0, "|0      |"), (142, "|#\\:#=/=?|", 1, "|1      |"),
    (146, "|#\\:#=/=0|", 0, "|0|"),
    (149, "|#\\:? ?=/=#|", 23.75, "|2:3 3=/=4|"), (151, "|#\\:? ?=/=#|", 0, "|:0      |"),
    (159, "|#\\:? ?#/#|", 23.75, "|2:3  3/4|"), (160, "|#\\:? ?0#/000", 23.75, "|2:3  03/004"),
    (161, "|?\\:?0=/=#|", 0.75, "|   3=/=4|"), (162, "|#\\:? ?0#/000", 0, "|:0  00/001"),
    (165, "|#_#/#|", 3.75, "|15 /4|"), (169, "|#_#/#|", 0, "|0 /1|"), (177, "|#_#=/=?|", 3.75, "|15 =/=4|"),
    (204, "|#\\:0=/=#|", 0, "|0=/=1|"), (213, "|?\\:0=/=#|", 0, "|0:0=/=1|"), (222, "|0\\:0=/=#|", 0, "|0:0=/=1|"),
    (225, "|#\\:#=/=#|", 0.75, "|3=/=4|"), (228, "|#\\:?=/=#|", 0.75, "| 3=/=4|"),
    (234, "|?\\:#=/=#|", 0.75, "|  3=/=4|"), (243, "|0\\:#=/=#|", 0.75, "|0:3=/=4|"),
    (258, "|#\\:0=/=#|", 1, "|1:0=/=1|"), (282, "|#\\:?=/=#|", -0.75, "-| 3=/=4|"),
]


@pytest.mark.parametrize(("row", "code", "value", "expected"), EXCEL, ids=[f"A{c[0]}" for c in EXCEL])
def test_excel_fractions(row, code, value, expected):
    from rates_xl.calc.xlfuncs import callbacks

    assert callbacks()["TEXT"](float(value), code) == expected


def test_a_bond_price_in_32nds_through_the_engine(tmp_path):
    """A price in 32nds, an approximated fraction and a whole number, as a book computes them
    (the fixed denominator is kept: 16/32, not 1/2; the closest fraction within the
    placeholders' digits: 355/113 is past ??/??), and a fraction format these rules do not
    cover not computed (#NAME?, an error cell the summary lists), not formulas' text ("100
    ??/32" was the answer before, silently)."""
    values, listed = computed(tmp_path, ['TEXT(99.5,"# ??/32")', 'TEXT(99.515625,"# ??/32")',
                                         'TEXT(3.14159,"# ??/??")', 'TEXT(2,"# ?/?")', 'TEXT(0.75,"# ?/?")',
                                         'TEXT(1.5,"# ?/?.0")'])
    assert values == ["99 16/32", "99 17/32", "3 14/99", "2    ", " 3/4", "#NAME?"]
    assert listed == []
