"""Excel's logical functions over arrays (IF, IFS, SWITCH, CHOOSE, IFERROR, IFNA broadcast
element by element; AND, OR, XOR aggregate), one class at a time on a small workbook made
here from one cell of an Excel-made corpus book (`tests/calc/excel_cases.py`): every cell
must be Excel's own value (cached in the corpus book), never a different one without a
word. Each case failed before its fix."""

from __future__ import annotations

import pytest

from tests.calc.excel_cases import assert_array_as_excel, assert_cell_as_excel

#: (class, corpus book, anchor of a legacy array formula): every cell of its range equal.
ARRAY_EQUAL = [
    ("IFERROR of a range entered over a wider range: #N/A past the result, not caught",
     "formulas_test.xlsx", "LOGICAL!AL9"),
    ("IFNA of a range entered over a wider range", "formulas_test.xlsx", "LOGICAL!AL10"),
    ("IFS with ranges as conditions and values", "formulas_test.xlsx", "LOGICAL!AH11"),
    ("IFS with ranges of different widths", "formulas_test.xlsx", "LOGICAL!AJ11"),
    ("IFS with a range of values after a scalar condition", "formulas_test.xlsx", "LOGICAL!AP11"),
    ("IFS over ranges of errors, entered past the result", "formulas_test.xlsx", "LOGICAL!AT11"),
    ("IFS with column ranges over a column", "formulas_test.xlsx", "CORE!D29"),
    ("SWITCH of a range against values of every type", "formulas_test.xlsx", "LOGICAL!AH25"),
    ("SWITCH of a range in one cell: its first element", "formulas_test.xlsx", "LOGICAL!AG25"),
    ("CHOOSE with a range of indexes: the choices broadcast", "formulas_test.xlsx", "LOOKUP!AH5"),
    ("CHOOSE with a range of indexes in one cell", "formulas_test.xlsx", "LOOKUP!AG5"),
    # ... while a function that is not catching errors sees the #N/A past a range.
    ("ISNA of a range entered over a wider range: TRUE past it", "formulas_test.xlsx", "INFORMATION!AH12"),
    ("ISERR of a range entered over a wider range: FALSE past it", "formulas_test.xlsx", "INFORMATION!AH7"),
]


@pytest.mark.parametrize(("case", "book", "address"), ARRAY_EQUAL, ids=[f"{c[0]}:{c[2]}" for c in ARRAY_EQUAL])
def test_array_formula_as_excel(case, book, address, tmp_path):
    assert_array_as_excel(case, book, address, tmp_path)


#: (class, corpus book, cell): an ordinary formula computed equal to Excel's value.
EQUAL = [
    ("AND ignores typed text", "formulas_test.xlsx", "LOGICAL!AT3"),
    ("AND: an error after typed text wins", "formulas_test.xlsx", "LOGICAL!AP3"),
    ("AND: typed text that is not a boolean, then an error", "formulas_test.xlsx", "LOGICAL!AS3"),
    ("OR: typed text, then an error", "formulas_test.xlsx", "LOGICAL!AP21"),
    ("XOR: typed text, then an error", "formulas_test.xlsx", "LOGICAL!AP27"),
    ("SUMPRODUCT of ranges of different sizes: the first error in them", "formulas_test.xlsx", "MATH & TRIG!AE75"),
    ("SUMPRODUCT of ranges of different sizes: an error in the first", "formulas_test.xlsx", "MATH & TRIG!AF75"),
    ("SUMPRODUCT of a number and a two-cell range is #VALUE!", "poi_FormulaEvalTestData_Copy.xlsx",
     "EverythingTests!I1328"),
    ("SUMPRODUCT of ranges of one size stays the engine's", "formulas_test.xlsx", "MATH & TRIG!V75"),
]


@pytest.mark.parametrize(("case", "book", "address"), EQUAL, ids=[f"{c[0]}:{c[2]}" for c in EQUAL])
def test_computed_as_excel(case, book, address, tmp_path):
    assert_cell_as_excel(case, book, address, tmp_path)


@pytest.mark.parametrize(("formula", "engine_copy"), [
    ('=AND(TRUE,"0")', "=AND(TRUE)"),
    ('=OR("x")', "=#VALUE!"),  # no logical value left to read
    ('=IF(AND("true", OR(A1,"b")),"y","n")', '=IF(AND(TRUE, OR(A1)),"y","n")'),
    ('=AND("x",)', '=AND("x",)'),  # only an omitted argument would be left: as written
    ('=SUM(1,"2")', '=SUM(1,"2")'),  # other functions: untouched
])
def test_typed_text_rewritten(formula, engine_copy):
    from rates_xl.calc.formula.passes import one

    assert one("logical_text", formula) == engine_copy


@pytest.mark.parametrize(("formula", "engine_copy"), [
    ("=SUMPRODUCT(P75:Q75,H75:I75,I75:K75)", "=RATESXL.MISSHAPEN(P75:Q75,H75:I75,I75:K75)"),
    ("=SUMPRODUCT(A1:A3,B1:B3)", "=SUMPRODUCT(A1:A3,B1:B3)"),  # one size: the engine's own
    ("=SUMPRODUCT((A1:A3=1)*B1:B3)", "=SUMPRODUCT((A1:A3=1)*B1:B3)"),  # an expression: its size unknown here
    ("=SUMPRODUCT(A:A,B1:B3)", "=SUMPRODUCT(A:A,B1:B3)"),  # a whole column: left to the engine
])
def test_sumproduct_sizes_rewritten(formula, engine_copy):
    from rates_xl.calc.formula.passes import one

    assert one("sumproduct_shapes", formula) == engine_copy


def test_circular_book_with_iteration_off_is_listed_never_wrong():
    """formulas_circular.xlsx (Excel for Mac) saves `calcPr iterateCount="1"` without
    `iterate`: iterative calculation is off, so Excel warned and left 0 or its last values in
    the loop's cells (E2 `=B2+1` holds 0). No engine can reproduce that: every cell of a
    loop Excel reports is listed (a loop, or stale where the engine's 0 differs), none
    silently wrong; the cells in a cycle on paper only are computed (tests/calc/test_paper_loops.py)."""
    import zipfile

    from tests.calc.excel_cases import corpus_book
    from tests.support.excel_corpus import measure_book

    path = corpus_book("formulas_circular.xlsx")
    with zipfile.ZipFile(path) as package:
        settings = package.read("xl/workbook.xml").decode("utf-8")
    assert "<calcPr" in settings and 'iterate="1"' not in settings
    measured = measure_book(path)
    assert measured["wrong"] == 0 and measured["flagged"] > 0, measured
    assert measured["flagged"] + measured["equal"] == measured["formulas"], measured
