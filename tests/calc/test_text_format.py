"""TEXT's sections and number formats (calc/xlfuncs/text/textformat.py), checked against LibreOffice
over values and formats a finance book uses: accounting negatives, percentages, thousands and
millions, half-way roundings, a zero section, colours, a text section."""

from __future__ import annotations

import itertools

import pytest

from tests.support import libreoffice

VALUES = ["1234.5", "-1234.5", "0", "0.25", "-0.25", "5", '"abc"', '"5"', "-1234.567", "2.675", "1234567.891",
          "0.12345", "999.5", "-0.5"]
FORMATS = ['"$#,##0.00;($#,##0.00)"', '"0;-0"', '"0;0"', '"0;-0;""zero"""', '"0%;(0%)"', '"0;[Red]0"',
           '"""pos"";""neg"";""zero"""', '"0;0;0;""t:""@"', '"0.00;(0.00)"', '"#,##0;(#,##0);-"', '"[Blue]0.0"',
           '"0;"', '"0;;""z"""', '"#,##0.00"', '"0.0%"', '"#,##0,"', '"0.0,,""M"""', '"#,##0.0,;(#,##0.0,)"',
           '"0.00"', '"#"', '"#.00"', '"$#,##0_);($#,##0)"']


@pytest.mark.parametrize(("value", "code", "expected"), [
    (2.675, "0.00", "2.68"), (1234.5, "#,##0", "1,235"), (1234567.0, "#,##0,", "1,235"),
    (1234567.0, '0.0,,"M"', "1.2M"), (-1234.5, "$#,##0.00;($#,##0.00)", "($1,234.50)"),
    (1234.5, "$#,##0.00;($#,##0.00)", "$1,234.50"), (0.25, "$#,##0.00", "$0.25"), (0.0, '0;-0;"zero"', "zero"),
    ("abc", '0;0;0;"t:"@', "t:abc"), (-5.0, "0;[Red]0", "5"), (5.0, "$#,##0_);($#,##0)", "$5 "),
])
def test_formats_formulas_got_wrong(value, code, expected):
    from rates_xl.calc.xlfuncs import callbacks

    assert callbacks()["TEXT"](value, code) == expected


@libreoffice.needed
def test_text_as_libreoffice_formats_it(tmp_path):
    """Not compared: a negative number that rounds to zero, which LibreOffice writes without its
    sign ("0") where Excel keeps it ("-0", the negative zero Excel's users ask about)."""
    import openpyxl

    cases = [f"TEXT({v},{f})" for v, f in itertools.product(VALUES, FORMATS)]
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for r, formula in enumerate(cases, start=1):
        sheet.cell(row=r, column=1).value = "=" + formula
        sheet.cell(row=r, column=2).value = formula  # (a row of empty text is still a row)
    book.save(tmp_path / "text.xlsx")
    result, theirs = libreoffice.ours_and_theirs(tmp_path / "text.xlsx", tmp_path)
    differ = []
    for r, formula in enumerate(cases, start=1):
        ours, lo = str(result.values[("S", f"A{r}")]), theirs[r - 1][0]
        negative_zero = ours == "-" + lo and not any(digit in lo for digit in "123456789")
        if ours != lo and not negative_zero:
            differ.append((formula, ours, lo))
    assert differ == []


def test_fixed_rounds_half_away_from_zero():
    """As ROUND does in Excel (and LibreOffice): FIXED(2.675,2) is "2.68" (formulas: "2.67")."""
    from rates_xl.calc.xlfuncs import callbacks

    fixed = callbacks()["FIXED"]
    assert fixed(2.675, 2.0) == "2.68" and fixed(1234.5, 0.0) == "1,235" and fixed(-1234.5, 0.0, True) == "-1235"
    assert fixed(1234.5678, -2.0) == "1,200"
