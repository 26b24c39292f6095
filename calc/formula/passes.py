"""The engine's copy of a formula, pass by pass: the one ordered list of rewritings that make
formualizer compute a formula as Excel does. Read it top to bottom.

Each pass has a name, a trigger (words the formula must hold and a finer test of its text:
when they say no, the pass is not run and no token is read), the cells it applies to, and a rewriting whose docstring says which
Excel behaviour it reproduces and which cell of the corpus (../shared/corpus) or which test
proves it. Each takes the formula (read once: its tokens and groups, calc/formula/tree.py)
and its `Site` (sheet, row, column, array formula or not, the book's facts) and answers the
new text (the same text: nothing to do); one that finds the formula cannot be held as Excel
reads it raises `NotComputed`, and the cell keeps the file's cached value, listed.

Adding an Excel quirk: write its rewriting (in the module of its kind: arguments, calls,
operators, ranges, tables, lambdas, text), then add one line here, where it must run.

Between the passes for formulas (`EVERY`, `ORDINARY`, `ARRAY`) and those for what each cell
finally holds (`WRITTEN`) comes the fit (calc/formula/fit.py, driven by calc/fast.py):
implicit intersection written out, array formulas lifted cell by cell, helper cells, array
answers cut to their range. `NAMES` passes rewrite defined names' text before any cell.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from rates_xl.calc.formula import (
    arguments,
    calls,
    caught_errors,
    cell_info,
    column_products,
    comparisons,
    criteria_ranges,
    databases,
    defined_names,
    error_ranges,
    formula_text,
    hidden_rows,
    implicit,
    indirect_lists,
    lambdas,
    lookup_references,
    lotus_rules,
    number_arguments,
    offsets,
    operators,
    positions,
    powers,
    ranges,
    reversed_ranges,
    tables,
    terms,
    text,
    text_limit,
    three_d,
    unions,
)
from rates_xl.calc.formula.site import NotComputed, Site
from rates_xl.calc.formula.tree import Formula

#: The cells a pass applies to.
NAMES = "defined names"
EVERY = "every formula"
ORDINARY = "ordinary cells"  # not an array formula's anchor
ARRAY = "array formulas"
WRITTEN = "every formula written, after the fit"


@dataclass(frozen=True)
class Pass:
    """One rewriting. Its trigger is `needs`, words one of which the formula must hold (upper
    case; none: every formula), and `check`, a finer test of the text; no token is read
    unless both say yes."""

    name: str
    rewrite: Callable[[Formula, Site], str]
    needs: tuple[str, ...] = ()
    check: Callable[[Formula, Site], bool] | None = None
    cells: str = EVERY

    @property
    def doc(self) -> str:
        """What the pass reproduces of Excel, and the cell that proves it."""
        return self.rewrite.__doc__ or ""

    def triggered(self, formula: Formula, site: Site) -> bool:
        if self.needs and not any(word in formula.upper for word in self.needs):
            return False
        return self.check is None or self.check(formula, site)


def _text(test: Callable[[str], bool]) -> Callable[[Formula, Site], bool]:
    return lambda formula, _site: test(formula.text)


def _name_operators(formula: Formula, _site: Site) -> str:
    """A defined name's reference operators resolved (calc/formula/operators.py
    `name_operators`: formulas_test.xlsx's name `h`, `CORE!$K$4:$K$6 CORE!$J$5:$L$5`)."""
    return "=" + operators.name_operators(formula.text[1:])


PASSES: tuple[Pass, ...] = (
    Pass("reversed_names", reversed_ranges.reversed_ranges, (":",), reversed_ranges.may_reverse, cells=NAMES),
    Pass("name_operators", _name_operators, (" ",), cells=NAMES),
    Pass("other_workbook_names", ranges.other_workbook_names, ("]",), cells=NAMES),
    Pass("table_names", tables.structured, ("[",), lambda f, s: tables.may_name_a_table(f.upper, s.book.tables),
         cells=NAMES),
    Pass("three_d_names", three_d.sheets_written_out, ("!",), _text(three_d.may_read_sheets), cells=NAMES),
    Pass("own_book_names", defined_names.own_book_names, ("[0]",)),
    Pass("lotus_evaluation", lotus_rules.lotus_evaluation, (), lotus_rules.on_lotus_sheet),
    Pass("names_calling_unknown", defined_names.calling_unknown, (), defined_names.may_call_unknown),
    Pass("defined_names", defined_names.defined_names, (), defined_names.may_use),
    Pass("other_workbooks", ranges.other_workbooks, (), ranges.may_read_other_workbooks),
    Pass("literal_indirect", ranges.literal_indirect, ("INDIRECT(",)),
    Pass("negative_sizes", offsets.negative_sizes, ("OFFSET(",)),
    Pass("reversed_ranges", reversed_ranges.reversed_ranges, (":",), reversed_ranges.may_reverse),
    Pass("three_d", three_d.sheets_written_out, ("!",), _text(three_d.may_read_sheets)),
    Pass("reference_sizes", positions.sizes, ("ROWS(", "COLUMNS(")),
    Pass("rates_source", calls.source, ("SOURCE",)),
    Pass("isformula", calls.isformula, ("ISFORMULA",)),
    Pass("cell_info", cell_info.cell_info, ("CELL(",)),
    Pass("formula_text", formula_text.formula_text, ("FORMULATEXT(",)),
    Pass("rates_omitted", arguments.rates_omitted, ("RATES",)),
    Pass("logical_text", arguments.logical_text, ('"',), _text(arguments.may_type_logical_text)),
    Pass("condition_text", arguments.condition_text, ("IF(",), _text(lambda text: '"' in text)),
    Pass("column_products", column_products.column_products, column_products.NEEDS, column_products.may_read_columns),
    Pass("whole_line_positions", column_products.whole_line_positions, ("ROW(", "COLUMN("), _text(lambda text: ":" in text)),
    Pass("filters", column_products.filters, ("FILTER(",), _text(lambda text: ":" in text)),
    Pass("whole_line_arrays", column_products.whole_line_arrays, ("SORT", "UNIQUE("), _text(lambda text: ":" in text)),
    Pass("sumproduct_shapes", calls.sumproduct_shapes, ("SUMPRODUCT(",)),
    Pass("sumproduct_logicals", calls.sumproduct_logicals, ("SUMPRODUCT(",)),
    Pass("criteria_ranges", criteria_ranges.criteria_ranges, criteria_ranges.NEEDS),
    Pass("whole_line_counts", calls.whole_line_counts, ("COUNTIF",), _text(calls.may_count_whole_lines)),
    Pass("database_lines", databases.database_lines, databases.NEEDS),
    Pass("index", calls.index, ("INDEX(",), _text(calls.may_index)),
    Pass("index_signs", calls.index_signs, ("INDEX(",)),
    Pass("switch_errors", calls.switch_errors, ("SWITCH(",)),
    Pass("shape_of_an_error", calls.shape_of_an_error, ("ROWS(", "COLUMNS("), cells=ORDINARY),
    Pass("choose_logical", arguments.choose_logical, ("CHOOSE",), _text(arguments.may_choose)),
    Pass("type_of", calls.type_of, ("_XLETA", "#GETTING_DATA")),
    Pass("named_range_operands", operators.named_range_operands, (":",), operators.may_join_names),
    Pass("reference_operators", operators.reference_operators, (),
         lambda f, s: operators.may_operate(f.text, s.array, f.upper)),
    Pass("unions", unions.unions, (",",), _text(unions.may_unite)),
    Pass("named_lambdas", lambdas.named_lambdas, ("(",), lambdas.may_call_named_lambda),
    Pass("lambdas", lambdas.lambdas, lambdas.TAKING_WORDS, _text(lambdas.may_take_lambda)),
    Pass("grouping_function", lambdas.grouping_function, ("GROUPBY(", "PIVOTBY(")),
    Pass("typed_unsure_text", number_arguments.typed_unsure_text, ('"',),
         _text(number_arguments.may_type_unsure_text)),
    Pass("count_errors", arguments.count_errors, ("COUNT(",)),
    Pass("typed_literals", arguments.typed_literals, ('"', "#", "TRUE", "FALSE"), _text(arguments.may_type_literals)),
    Pass("lookup_constants", arguments.lookup_constants, ("LOOKUP(", "MATCH(")),
    Pass("ours_omitted", arguments.ours_omitted, (",",), _text(arguments.may_omit_ours)),
    Pass("omitted_defaults", arguments.omitted_defaults, arguments.DEFAULTED, _text(arguments.may_leave_empty)),
    Pass("structured", tables.structured, (), lambda f, s: tables.may_name_a_table(f.upper, s.book.tables)),
    Pass("hidden_rows", hidden_rows.subtotals, ("SUBTOTAL(", "AGGREGATE("), hidden_rows.may_hide),
    Pass("aggregate_functions", hidden_rows.aggregate_functions, ("AGGREGATE(",)),
    Pass("at_sign", implicit.at_sign, ("SINGLE(",), cells=ORDINARY),
    Pass("row_indirect", ranges.row_indirect, ("INDIRECT(",), cells=ORDINARY),
    Pass("intersected_references", implicit.intersected_references, ("INDIRECT(", "OFFSET(", "INDEX(", "CHOOSE("),
         cells=ORDINARY),
    Pass("indirect_lists", indirect_lists.indirect_lists, ("INDIRECT(",), indirect_lists.may_list),
    Pass("indirect_text", ranges.indirect_text, ("INDIRECT(",)),
    Pass("error_ranges", error_ranges.error_ranges, error_ranges.NEEDS, _text(error_ranges.may_fail)),
    Pass("index_whole_lines", ranges.index_whole_lines, ("INDEX(",), _text(lambda text: ":" in text)),
    Pass("whole_columns", ranges.whole_columns, (":",), _text(ranges.may_even)),
    Pass("lookup_references", lookup_references.lookup_references, lookup_references.NEEDS,
         _text(lookup_references.may_build)),
    Pass("built_ranges", ranges.built_ranges, ("INDEX(", "OFFSET("), _text(ranges.may_build)),
    # -- the fit (calc/formula/fit.py) ------------------------------------------------------
    Pass("spills_of_lifted", operators.spills_of_lifted, ("#",), lambda f, s: bool(s.book.lifted), cells=WRITTEN),
    Pass("numbers_as_text", text.numbers_as_text, (), lambda f, _s: text.may_join(f.text, f.upper), cells=WRITTEN),
    Pass("excel_powers", powers.excel_powers, ("^",), powers.may_raise, cells=WRITTEN),
    Pass("excel_comparisons", comparisons.excel_comparisons, (), comparisons.may_compare, cells=WRITTEN),
    Pass("near_zero", terms.near_zero, ("+", "-"), terms.may_sum, cells=WRITTEN),
    Pass("text_limit", text_limit.text_limit, ("&", "CONCATENATE("), cells=WRITTEN),
    Pass("caught_errors", caught_errors.caught_errors, caught_errors.NEEDS,
         lambda f, _s: caught_errors.may_read(f.upper), cells=WRITTEN),
    Pass("text_as_numbers", number_arguments.text_as_numbers, ("(",), number_arguments.may_want_numbers, cells=WRITTEN),
    Pass("unsure_arithmetic", number_arguments.unsure_arithmetic, (), number_arguments.may_compute_unsure, cells=WRITTEN),
)


#: The passes of each stage, in order (a formula's: EVERY, ORDINARY and ARRAY together).
_STAGES = {
    (EVERY, False): tuple(p for p in PASSES if p.cells in (EVERY, ORDINARY)),
    (EVERY, True): tuple(p for p in PASSES if p.cells in (EVERY, ARRAY)),
    **{(stage, array): tuple(p for p in PASSES if p.cells == stage)
       for stage in (WRITTEN, NAMES) for array in (False, True)},
}


#: Every trigger word of each stage's passes, as one search (most formulas hold none of a stage's).
_WORDS = {stage: re.compile("|".join(sorted({re.escape(word) for array in (False, True)
                                                 for p in _STAGES[(stage, array)] for word in p.needs},
                                                key=lambda word: (-len(word), word))) or "(?!)")
          for stage in (EVERY, WRITTEN, NAMES)}


#: Each stage's passes as `rewrite` reads them: (its first trigger word or None, a search for
#: the others or None, check, rewriting). (Asked of every formula, a pass at a time: plain
#: tuples, and one search in place of a test per word.)
_STEPS = {key: tuple((p.needs[0] if p.needs else None,
                      re.compile("|".join(re.escape(word) for word in p.needs[1:])) if len(p.needs) > 1 else None,
                      p.check, p.rewrite) for p in stage)
          for key, stage in _STAGES.items()}


def rewrite(formula: str | Formula, site: Site, stage: str = EVERY) -> Formula:
    """`formula` through the passes of one stage: EVERY (the formula passes, before the fit:
    EVERY, ORDINARY or ARRAY as the site is), WRITTEN or NAMES. Raises NotComputed. (A
    formula already read may be given: its tokens are not read again.)"""
    read = formula if isinstance(formula, Formula) else Formula(formula)
    upper = read.upper
    words = _WORDS[stage]
    worded = words.search(upper) is not None  # a word of some pass's trigger: else none of those runs
    for first, others, check, pass_rewrite in _STEPS[(stage, site.array)]:
        if first is not None and not (worded and (first in upper or (others is not None
                                                                      and others.search(upper) is not None))):
            continue  # (the common case, tested inline: it is asked of every formula)
        if check is None or check(read, site):
            changed = pass_rewrite(read, site)
            if changed != read.text:
                read = Formula(changed)
                upper = read.upper
                worded = words.search(upper) is not None
    return read


def one(name: str, formula: str, site: Site | None = None) -> str:
    """`formula` through the pass called `name` alone (its trigger first): a pass tried on its
    own, as the tests do."""
    site = site or Site("Sheet1", 1, 1)
    found = next(p for p in PASSES if p.name == name)
    read = Formula(formula)
    return found.rewrite(read, site) if found.triggered(read, site) else formula


__all__ = ["ARRAY", "EVERY", "NAMES", "ORDINARY", "PASSES", "WRITTEN", "NotComputed", "Pass", "Site", "one", "rewrite"]
