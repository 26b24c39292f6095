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


#: apache/poi's Excel-made NumberFormatTests.xlsx (Tests!A40:A48, A107:A110): `?` pads with a
#: space where `0` writes a zero and `#` nothing, on both sides of the point, and a thousands
#: separator among the padding is a space too; `formulas` wrote the `?` as it is.
QUESTION_MARKS = [(1234567, "?,???", "1,234,567"), (1234567, "?,???????", " 1,234,567"),
                  (1234567, "?,????????", "  1,234,567"), (1234567, "?,?????????", "    1,234,567"),
                  (12, "?,?", "12"), (123, "?,??", "123"), (1.1, "|?.?|", "|1.1|"), (1.1, "|??.?|", "| 1.1|"),
                  (1.1, "|?.??|", "|1.1 |"), (1.1, "|??.??|", "| 1.1 |"), (-1.1, "|??.??|", "-| 1.1 |"),
                  (-1234567, "?,?????????", "-    1,234,567")]


@pytest.mark.parametrize(("value", "code", "expected"), QUESTION_MARKS)
def test_a_question_mark_pads_with_a_space(value, code, expected):
    from rates_xl.calc.xlfuncs import callbacks

    assert callbacks()["TEXT"](float(value), code) == expected


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


#: Numbers shown with more than 15 significant digits: Excel writes their 15 digits and zeros
#: after them (it exposes no more: Apache POI's ExcelArithmetic.toBigDecimal; Microsoft's
#: "Floating-point arithmetic may give inaccurate results in Excel"). formulas wrote the float's
#: binary expansion, and #VALUE! past 28 digits (the decimal module's default precision).
PAST_FIFTEEN = [
    ("TEXT", (2.0 ** 70, "0"), "1180591620717410000000"),  # formulas: ...409992704
    ("TEXT", (2.0 ** 70, "0.00"), "1180591620717410000000.00"),
    ("TEXT", (1234567890123456789.0, "#,##0"), "1,234,567,890,123,460,000"),  # formulas: ...460,096
    ("TEXT", (1e30, "0"), "1" + "0" * 30),  # formulas: #VALUE!
    ("TEXT", (-1e30, "0;(0)"), "(1" + "0" * 30 + ")"),
    ("TEXT", (1.5e25, "$#,##0"), "$15,000,000,000,000,000,000,000,000"),
    ("TEXT", (0.1 + 0.2, "0.00000000000000000000"), "0.30000000000000000000"),  # formulas: 0.2999...8890
    ("TEXT", (1 / 3, "0.000000000000000000"), "0.333333333333333000"),
    ("TEXT", (0.123456789012345678, "0.000000000000000000%"), "12.345678901234600000%"),
    ("TEXT", (2.0 ** 70, "#,##0,,"), "1,180,591,620,717,410"),
    ("TEXT", (2.0 ** 70, '"a"0"b"'), "a1180591620717410000000b"),
    ("FIXED", (0.1 + 0.2, 20.0), "0.30000000000000000000"),  # formulas: 0.2999...8890
    ("FIXED", (1 / 3, 18.0, True), "0.333333333333333000"),
    ("FIXED", (123456789012.345, 5.0), "123,456,789,012.34500"),
    ("DOLLAR", (2.0 ** 70, 0.0), "$1,180,591,620,717,410,000,000"),  # formualizer: ...411,303,424
    ("DOLLAR", (-1e19,), "($10,000,000,000,000,000,000.00)"),  # formualizer: the sign lost past 2^63
    ("DOLLAR", (0.1 + 0.2, 20.0), "$0.30000000000000000000"),  # formualizer: $0.3000...4441
]


@pytest.mark.parametrize(("name", "args", "expected"), PAST_FIFTEEN)
def test_numbers_past_fifteen_digits_are_written_as_excel_shows_them(name, args, expected):
    """Also the `formulas` release textformat.READ_FROM names: on another, `_laid_out` gives way
    to formulas' own TEXT and the digits past 15 go wrong again, here."""
    from rates_xl.calc.xlfuncs import callbacks

    assert callbacks()[name](*args) == expected


def test_dollar_rounds_half_away_from_zero_as_fixed_does():
    """DOLLAR rounds as ROUND and FIXED do (half away from zero on 15 digits): formualizer's
    rounded the binary value, 0.285 (0.28499999999999998) to "$0.28"."""
    from rates_xl.calc.xlfuncs import callbacks

    dollar, fixed = callbacks()["DOLLAR"], callbacks()["FIXED"]
    for amount in (0.285, 1.005, 1.015, 1.025, 2.675, -1.005, 999.995, 1234.5):
        assert dollar(amount, 2.0) == f"${fixed(amount, 2.0).lstrip('-')}" if amount > 0 else \
            dollar(amount, 2.0) == f"(${fixed(amount, 2.0).lstrip('-')})"
    assert dollar(0.285, 2.0) == "$0.29" and dollar(1.005, 2.0) == "$1.01" and dollar(-1.005, 2.0) == "($1.01)"
    assert dollar(-0.001) == "$0.00" and dollar(-0.005) == "($0.01)"  # the rounded amount's sign


def test_dollar_writes_what_formualizers_did_wherever_it_rounded_right():
    """Everything but the rounding is formualizer's: its arguments' reading, its bounds, the
    currency format. Compared with formualizer's own DOLLAR (a bare workbook, none of our
    functions registered) on amounts whose binary value is not within a hair of a half-way
    point, where both round alike."""
    import random
    from decimal import Decimal

    import formualizer

    from rates_xl.calc.engines.formualizer.values import is_error
    from rates_xl.calc.xlfuncs import callbacks

    dollar = callbacks()["DOLLAR"]
    rng = random.Random(20261130)
    drawn = [(f"{rng.uniform(-1, 1) * 10 ** rng.randint(-3, 12):.6g}", rng.randint(-6, 12)) for _ in range(400)]
    # (Not a half-way case, which formualizer rounded on the binary value: 0.285 to 0.28, nor
    # one shown past 15 significant digits, which it wrote from the float: `PAST_FIFTEEN`.)
    cases = [(amount, str(places)) for amount, places in drawn
             if (Decimal(amount).scaleb(places) % 1).copy_abs() != Decimal("0.5")
             and len(Decimal(amount).quantize(Decimal(1).scaleb(-places)).as_tuple().digits) <= 15]
    cases += [(a, d) for a in ('"12"', '" 12 "', '"1e3"', '"abc"', '"$1,000"', "TRUE", "FALSE", "0", "-0")
              for d in ("2", "0", '"2"', "TRUE", "-2")]
    cases += [("12", d) for d in ("127", "127.9", "128", "-127", "-128", "-400", "2.9", "-2.9")]
    book = formualizer.Workbook()
    book.add_sheet("S")
    for row, (amount, places) in enumerate(cases, start=1):
        book.set_formula("S", row, 1, f"=DOLLAR({amount},{places})")
    book.evaluate_all()

    def read(text):
        if text in ("TRUE", "FALSE"):
            return text == "TRUE"
        return text[1:-1] if text.startswith('"') else float(text)

    differ = []
    for row, (amount, places) in enumerate(cases, start=1):
        theirs, ours = book.get_value("S", row, 1), dollar(read(amount), read(places))
        if isinstance(theirs, dict):  # formualizer's error: ours is an error of the same kind
            same = is_error(ours) and theirs["kind"].upper()[:3] in str(ours).upper().replace("#", "")
        else:
            same = ours == theirs
        if not same:
            differ.append((amount, places, theirs, ours))
    assert differ == []


@pytest.mark.parametrize(("value", "code", "expected"), [
    ("12:00", "0.00", "0.50"), ("0:59:99", "#.#####", ".04212"), ("23:99", "#.#####", "1.02708"),
    ("60:99", "#.#####", "60:99"), ("59:9999.012345", "0.########", "0.15670153"), ("23:59.", "#.###########", ".99930555556"),
])
def test_a_time_given_as_text(value, code, expected):
    """Read as VALUE reads it (calc/xlfuncs/text/value_text.py): pycel's Excel-made text.xlsx,
    TextDates!C30:C48. The bridged `formulas` VALUE that TEXT read it with put each time on 1 January
    of this year ("46023.50" for "12:00")."""
    from rates_xl.calc.xlfuncs import callbacks

    assert callbacks()["TEXT"](value, code) == expected


@pytest.mark.parametrize(("value", "code", "expected"), [
    (-1.0, "w;x;z@", "x"), (0.0, "w;x;z@", "w"), (0.0, "w;x;z", "z"), (-1.0, "w;x@", "-w"), (1.0, "w;x@", "w"),
    (890123.456789, ".#", "890123.5"), (1234.56, ".##0", "1234.560"), (0.5, ".#", ".5"),
    (1234.56, "$x*y#,##0* ", "$x1,235"), (1234567.0, "#,.#,", "1.2"), (-1234567.0, "#,.#,", "-1.2"),
])
def test_text_sections_points_and_fills(value, code, expected):
    """pycel's Excel-made text.xlsx, TextNumbers!C7:C66: the last of two or three sections
    holding @ is the text's (the one number section then writes a minus sign); a point with no
    digit placeholder before it shows the integer's digits; a fill (`*` and its character) is
    left out; a comma between the last integer placeholder and the point scales by 1,000 as a
    trailing one does (apache/poi's Excel-made NumberFormatTests.xlsx, Tests!A93 and A97).
    formulas wrote "x@" and "z@", ".5", #VALUE! and "1234.6"."""
    from rates_xl.calc.xlfuncs import callbacks

    assert callbacks()["TEXT"](value, code) == expected
