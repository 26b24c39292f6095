"""IF's condition typed as the text "TRUE" or "FALSE" (any case) is that logical value, as Excel
reads it (the pass `condition_text`, calc/formula/arguments.py); formualizer answered #VALUE!.
Excel's value is the corpus cell's, read at test time."""

from __future__ import annotations

from rates_xl.calc.formula import passes
from tests.calc.excel_cases import assert_cell_as_excel


def test_the_corpus_cell_as_excel(tmp_path):
    assert_cell_as_excel('IF("tRue", "A", "B")', "poi_FormulaEvalTestData_Copy.xlsx", "EverythingTests!M732", tmp_path)


def test_only_a_typed_true_or_false_condition_is_read():
    assert passes.one("condition_text", '=IF( "false" ,1,2)') == "=IF( FALSE ,1,2)"
    for left in ('=IF("x",1,2)', '=IF(A1="TRUE",1)', '=COUNTIF(A1:A3,"true")', '=IF(1,"true")'):
        assert passes.one("condition_text", left) == left
