"""A range written with its corners the other way round (`A3:A1`, `F1:D22`, `C:A`, `5:1`), as
Excel reads it: the range between them (`A1:A3`, `D1:F22`; functions/sheet.py
`ordered_reference`). Excel writes a range top-left first whatever was typed, so its own books
hold none; a book written by a program may (openpyxl writes a formula as given). formualizer
0.13 raised #REF! out of the whole evaluation for one such range anywhere in a book, so the book
was lost ("calculation failed: ExcelEvaluationError: #REF!"): bench/libreoffice_opinion.py's
family `regression` wrote `CORREL(F1:F22,F1:D22)`. Each corner keeps its `$` with its row or
column. A text INDIRECT reads is put in order as it is computed (calc/xlfuncs/lookup/
reference_text.py): formualizer answered #REF! for `INDIRECT("D"&5&":D1")`, Excel reads D1:D5.
"""

from __future__ import annotations

from rates_xl.calc.formula.site import Site
from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.sheet import may_hold_reversed_range, ordered_reference


def may_reverse(formula: Formula, _site: object = None) -> bool:
    """Whether the text holds a pair of corners that may be the other way round."""
    return may_hold_reversed_range(formula.text)


def reversed_ranges(formula: Formula, _site: Site | None = None) -> str:
    """A range whose corners are the other way round is the range between them, as Excel reads
    it (`SUM(A3:A1)` is SUM(A1:A3)); formualizer raised #REF! out of the whole book's
    evaluation for one. tests/calc/test_reversed_ranges.py."""
    tokens = formula.tokens
    swaps = {index: ordered_reference(token.text) for index, token in enumerate(tokens) if token.is_range}
    return formula.swapped({index: text for index, text in swaps.items() if text != tokens[index].text})
