"""TEXT of a number in a format with conditions, and of a logical (calc/xlfuncs/text/textformat.py).
Excel's answers in apache/poi's Excel-made FormatConditionTests.xlsx, FormatChoiceTests.xlsx,
TextFormatTests.xlsx and GeneralFormatTests.xlsx (sheet Tests: format in B, value in C, Excel's
TEXT in A); the bridged `formulas` TEXT answered #VALUE! for a condition not met, and a
logical's text section was not read ("TRUE" for TEXT(TRUE, ';;;"hi"'), Excel's "hi")."""

from __future__ import annotations

import pytest

EXCEL = [
    ('[<10]#" Wow"', 1, "1 Wow"), ('[<10]#" Wow"', 10, "10"), ('[>10]#" Big"', 11, "11 Big"),
    ('[<=10]#" Wow"', 10, "10 Wow"), ('[<=10]#" Wow"', 11, "11"), ('[=10]#" Wow"', 1, "1"),
    ('[<>10]#" Wow"', 10, "10"), ('[<-10]#" Wow"', -11, "-11 Wow"), ('[<-10]#" Wow"', -9, "-9"),
    ('[>=-10]#" Big"', -10, "-10 Big"), ('[<      10]#" Wow"', 1, "1 Wow"), ('[< -10]#" Wow"', -10, "-10"),
    ('[<10]#" Wow"', 1.5, "2 Wow"),
]


@pytest.mark.parametrize(("code", "value", "expected"), EXCEL, ids=[f"{c[0]} {c[1]}" for c in EXCEL])
def test_excel_conditions(code, value, expected):
    from rates_xl.calc.xlfuncs import callbacks

    assert callbacks()["TEXT"](float(value), code) == expected


def test_sections_chosen_by_condition():
    """A format in thousands and millions (the first met condition's section, else the last),
    and what no book shows, not computed (#NAME?, listed)."""
    from rates_xl.calc.xlfuncs import callbacks

    text = callbacks()["TEXT"]
    scaled = '[<1000]0;[<1000000]0.0,"K";0.0,,"M"'
    assert [text(v, scaled) for v in (950.0, 12500.0, 3400000.0)] == ["950", "12.5K", "3.4M"]
    assert text(-5.0, '[>=1000]#,##0,"K";0') == {"type": "Error", "kind": "Name"}
    assert text(5.0, "[>10]0;[>20]0") == {"type": "Error", "kind": "Name"}


@pytest.mark.parametrize(("value", "code", "expected"), [
    (True, ";;;@", "TRUE"), (True, ';;;"hi"', "hi"), (True, ";;;\\@@\\@", "@TRUE@"), (True, ";;;-@-@-", "-TRUE-TRUE-"),
    (False, ";;;-@", "-FALSE"), (True, "General", "TRUE"), (False, "General", "FALSE"),
])
def test_a_logical_is_formatted_as_its_text(value, code, expected):
    from rates_xl.calc.xlfuncs import callbacks

    assert callbacks()["TEXT"](value, code) == expected
