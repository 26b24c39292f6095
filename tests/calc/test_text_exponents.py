"""TEXT of a number in a scientific format (calc/xlfuncs/text/exponents.py). The cases are
Excel's answers in apache/poi's Excel-made NumberFormatApproxTests.xlsx (test-data/spreadsheet,
sheet Tests: the format in B, the value in C, Excel's cached TEXT in A), a few of each rule; the
bridged `formulas` TEXT answered #VALUE! for all but the standard form, and "1.2E+4" for the
engineering form of 12,345 (Excel: "12.3E+3")."""

from __future__ import annotations

import pytest

#: (format, value, Excel's answer)
EXCEL = [
    ("|#,e-#|", 123456.789, "|1e5|"), ("|#,e-#|", 1.23456789e-05, "|1e-5|"), ("|#,e-#|", 0, "|0e0|"),
    ("|#,e-#|", -123456.789, "-|1e5|"), ("|#%e-#|", 123456.789, "|1%e5|"), ("|#e-#%|", 123456.789, "|1e5%|"),
    ("|#|e-|#|", 1.23456789e-05, "|1|e|-5|"), ("|#.#|e-|#|", 0, "|0.|e|0|"),
    ("|####.####|e-|#|", 123456.789, "|12.3457|e|4|"), ("|####.####|e-|#|", 1.23456789e-05, "|1234.5679|e|-8|"),
    ("|####.####|e-|#|", 0, "|0000.|e|0|"), ("|#,######.####|e-|#|", 123456.789, "|123,456.789|e|0|"),
    ("|#,######.####|e-|#|", 0, "|0,000,000.|e|0|"), ("|0000.0000|e-|0|", 123456.789, "|0012.3457|e|4|"),
    ("|0,000000.0000|e-|0|", 1.23456789e-05, "|0,000,123.4568|e|-7|"), ("|?.?|e-|?|", 0, "|0. |e|0|"),
    ("|????.????|e-|?|", 123456.789, "|  12.3457|e|4|"), ("|???????.????|e-|?|", 123456.789, "| 123456.789 |e|0|"),
    ("|?,??????.????|e-|?|", 1.23456789e-05, "|      123.4568|e|-7|"), ("|#,e+#|", 0, "|0e+0|"),
    ("|#|e+|#|", 123456.789, "|1|e|+5|"), ("|#.#|E+|#|", 1.23456789e-05, "|1.2|E|-5|"),
    ("|##.####|e+|#|", 1.23456789e-05, "|12.3457|e|-6|"), ("|###.####|e+|#|", 0.000123456789, "|123.4568|e|-6|"),
    ("|#####.####|e+|#|", 1.23456789e-06, "|12345.6789|e|-10|"), ("|#.#|e+|#####|", 1.2345678e+142, "|1.2|e|+142|"),
    ("|#.#|e+|000|", 0, "|0.|e|+000|"), ("|#.#|e+|0000|", 1.2345678e-142, "|1.2|e|-0142|"),
    ("|#.#|e+|????|", 1.2345678e+142, "|1.2|e|+ 142|"), ("|#.#|e+|???|", 0, "|0.|e|+  0|"),
    ("|#.#|e+|000,00|", 1.2345678e-142, "|1.2|e|-00142|"), ("#,##0.00e+00", 3.14159, "3.14e+00"),
]


@pytest.mark.parametrize(("code", "value", "expected"), EXCEL, ids=[f"{c[0]} {c[1]}" for c in EXCEL])
def test_excel_exponents(code, value, expected):
    from rates_xl.calc.xlfuncs import callbacks

    assert callbacks()["TEXT"](float(value), code) == expected


@pytest.mark.parametrize(("code", "value", "expected"), [
    ("0.00E+00", 1234.5, "1.23E+03"), ("##0.0E+0", 12345, "12.3E+3"), ("##0.0E+0", 999.96, "1.0E+3"),
    ("0.00E+00", 9.999, "1.00E+01"), ("##0.0E+0;(##0.0E+0)", -12345, "(12.3E+3)"),
])
def test_the_forms_a_model_uses(code, value, expected):
    """The standard and engineering forms, a mantissa rounding up to the next power, a
    negative section: the rules above."""
    from rates_xl.calc.xlfuncs import callbacks

    assert callbacks()["TEXT"](float(value), code) == expected


def test_a_point_after_the_e_is_excels_value_error():
    """formulas_test.xlsx EXTRA!A27, Excel's #VALUE!."""
    from rates_xl.calc.xlfuncs import callbacks

    code = "#,##00000,  ,00 , 0##e+8800######    .  # ,0.00.0,00"
    assert callbacks()["TEXT"](1234578.555, code) == {"type": "Error", "kind": "Value"}
