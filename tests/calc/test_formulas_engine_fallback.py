"""The `formulas` engine, which computes a book the fast engine cannot read (a first sheet named
"sheet1" in another case than formualizer's own: test_robustness.py) and any book under
`--engine formulas`: what it lacks keeps Excel's value, listed, and never costs the book."""

from __future__ import annotations

import openpyxl
import pytest
import xlsxwriter

from rates_xl.cli import main
from tests.calc.corpus.build import edit_parts


def _book(path, numbers, formulas):
    """Sheet S with these numbers and formulas ({cell: (text, the value Excel cached)})."""
    made = xlsxwriter.Workbook(path)
    sheet = made.add_worksheet("S")
    for cell, number in numbers.items():
        sheet.write_number(cell, number)
    for cell, (text, cached) in formulas.items():
        sheet.write_formula(cell, text, None, cached)
    made.close()
    return path


def _calc(path, capsys, *args):
    out = path.with_name("out.xlsx")
    code = main(["calc", str(path), "--full", "--engine", "formulas", "-o", str(out), "--no-progress", *args])
    return code, capsys.readouterr().out, openpyxl.load_workbook(out)["S"]


def test_a_function_the_engine_lacks_keeps_excel_s_value_and_what_reads_it_computes(tmp_path, capsys):
    """`formulas` knows neither OFFSET nor INDIRECT of a computed text: `=OFFSET(A1,1,0)` was
    #NAME? where Excel has 7, and what read it #NAME? too; `=INDIRECT("A"&1)+1` failed the whole
    book ("could not read it: Failed DISPATCHING LET ...", exit 1, no copy). Each now keeps
    Excel's value, listed; what reads it computes from that value; an unknown RATES_ name is
    #NAME?, as in Excel."""
    path = _book(tmp_path / "lacks.xlsx", {"A1": 5, "A2": 7}, {
        "B1": ("=OFFSET(A1,1,0)", 7),
        "B2": ("=B1*2", 0),  # (a stale cached value: computed, it is 14)
        "B3": ('=INDIRECT("A"&1)+1', 6),
        "B4": ("=SUM(B1:B3)", 0),
        "B5": ("=RATES_NOSUCH(1)", "#NAME?")})
    code, printed, values = _calc(path, capsys)
    assert [values[f"B{row}"].value for row in range(1, 6)] == [7, 14, 6, 27, "#NAME?"]
    assert "S!B1: not computed (calls OFFSET, which the formulas engine does not know)" in printed
    assert "S!B3: not computed (calls INDIRECT" in printed
    assert "S!B2: not computed" not in printed and "S!B4: not computed" not in printed
    assert "unknown function OFFSET" not in printed and "unknown function INDIRECT" not in printed
    assert "unknown function RATES_NOSUCH (becomes #NAME?): S!B5" in printed
    assert code == 3


def test_let_is_computed_and_not_named_as_unknown(tmp_path, capsys):
    """The engine's parser computes LET itself (it has no entry in its function table): the
    summary said "unknown function LET (becomes #NAME?)" of cells it computed right."""
    path = _book(tmp_path / "let.xlsx", {"A1": 5}, {"B1": ("=_xlfn.LET(_xlpm.x,A1,_xlpm.x*2)", 0)})
    code, printed, values = _calc(path, capsys)
    assert values["B1"].value == 10
    assert "LET" not in printed and "not computed" not in printed and code == 0


def test_an_error_value_held_as_a_value_is_no_error_cell(tmp_path, capsys):
    """A #N/A typed or pasted as a value is no formula: the engine reads it as one of its own,
    and the summary named it among the error cells, which the fast engine does not."""
    path = _book(tmp_path / "pasted.xlsx", {}, {"B1": ("=ISNA(A1)*1", 1)})

    def pasted(parts):
        parts["xl/worksheets/sheet1.xml"] = parts["xl/worksheets/sheet1.xml"].replace(
            b'<c r="B1"', b'<c r="A1" t="e"><v>#N/A</v></c><c r="B1"')

    edit_parts(path, pasted)
    code, printed, values = _calc(path, capsys)
    assert values["B1"].value == 1 and values["A1"].value == "#N/A"
    assert "No error cells." in printed and code == 0


def test_a_formula_the_engine_cannot_parse_costs_that_cell_not_the_book(tmp_path, capsys):
    """`=1000%%` (apache/poi's Excel-made FormulaEvalTestData) and `=#VALUE! #VALUE!`
    (formulas_test) are Excel's formulas this engine's parser cannot read: the whole book was
    lost ("could not read it: Not a valid formula", exit 1, no copy). The cell keeps Excel's
    value, listed; what reads it computes from that value; the rest is computed."""
    path = _book(tmp_path / "parse.xlsx", {"A1": 5}, {"B1": ("=1000%%", 0.1), "B2": ("=B1*2", 0), "B3": ("=A1+1", 0)})
    code, printed, values = _calc(path, capsys)
    assert [values[f"B{row}"].value for row in range(1, 4)] == [0.1, 0.2, 6]
    assert "S!B1: not computed (the formulas engine cannot read its formula)" in printed
    assert "S!B2: not computed" not in printed and code == 3


def test_whole_columns_a_lookup_or_a_sum_reads_are_read_to_the_last_used_row(tmp_path, capsys):
    """This engine reads a whole column as all 1,048,576 rows: 100 `VLOOKUP(..., Query!$A:$N,
    ...)` over 500 rows took 99 s and 8.7 GB (1.8 s and 122 MB read to the last used row).
    What lies below the last used row is empty, and a lookup, a sum, a count or SUMIF reads an
    empty cell as nothing; COUNTIF, which counts empty cells for "", reads the whole column."""
    from rates_xl.calc.formula.ranges import used_rows_only
    from rates_xl.calc.formula.site import BookFacts, Site
    from rates_xl.calc.formula.tree import Formula

    rows = {"Query": 5, "Other": 9, "List": 1}
    site = Site("List", 1, 1, book=BookFacts(last_row=lambda own, sheet: rows[sheet or own], sheets=tuple(rows)))
    assert used_rows_only(Formula("=VLOOKUP(2,Query!$A:$N,4,FALSE)"), site) == \
        "=VLOOKUP(2,Query!$A$1:$N$5,4,FALSE)"
    assert used_rows_only(Formula("=XLOOKUP(1,Query!A:A,Other!B:B)"), site) == \
        "=XLOOKUP(1,Query!A1:A9,Other!B1:B9)"  # (read side by side: one shape)
    for kept in ('=COUNTIF(Query!A:A,"")', "=INDEX(Query!A:A,9)", "=ROWS(Query!A:A)", "=SUM(Query!A:A*2)"):
        assert used_rows_only(Formula(kept), site) == kept

    path = tmp_path / "columns.xlsx"
    made = xlsxwriter.Workbook(path)
    query, sheet = made.add_worksheet("Query"), made.add_worksheet("S")
    for row in range(5):
        query.write_row(row, 0, [row + 1, *((row + 1) * 100 + column for column in range(1, 14))])
    formulas = ["=VLOOKUP(2,Query!$A:$N,4,FALSE)", "=MATCH(3,Query!A:A,0)", '=SUMIF(Query!A:A,">2",Query!D:D)',
                "=SUM(Query!D:D)", '=COUNTIF(Query!A:A,"")']
    for row, formula in enumerate(formulas):
        sheet.write_formula(row, 1, formula, None, 0)
    made.close()
    code, printed, values = _calc(path, capsys)
    assert [values[f"B{row}"].value for row in range(1, 6)] == [203, 3, 1209, 1515, 1048571]
    assert code == 0, printed


def test_a_cell_the_engine_finds_no_answer_for_keeps_excel_s_value(tmp_path, capsys):
    """A circular reference (`=B3+1` in B3), or one this engine takes for one (`=ISREF(B1)` in
    B1): its dispatcher never reaches the cell, and the cell answered the text "#VALUE!",
    unlisted, where Excel shows 0 and warns, or TRUE. Each keeps the file's value, listed, and
    so does what reads it (it finds no answer either)."""
    path = _book(tmp_path / "unsolved.xlsx", {"A1": 5}, {
        "B1": ("=ISREF(B1)", True), "B3": ("=B3+1", 0), "C3": ("=B3*2", 0), "D1": ("=A1*2", 0)})
    code, printed, values = _calc(path, capsys)
    assert [values["B1"].value, values["B3"].value, values["C3"].value, values["D1"].value] == [True, 0, 0, 10]
    for cell in ("B1", "B3", "C3"):
        assert f"S!{cell}: not computed (the formulas engine found no answer for it" in printed, cell
    assert code == 3


def test_a_formula_reading_another_workbook_keeps_the_value_the_link_caches(tmp_path):
    """This engine opens a linked workbook from disk instead of reading the values the file
    caches for the link: with the linked file absent, `=[1]Rates!B2*100` (and a name standing
    for it) was #REF!, its "Error in loading" warning on the terminal, the summary saying the
    link's cached values were used; with it present, its values as they are now. Each keeps
    Excel's value, listed; what reads it computes from that value. (Run as a user runs it:
    the terminal is what is read.)"""
    from rates_xl.calc.cli_summary import EXIT_ERROR_CELLS
    from tests.calc.corpus import build
    from tests.support.commands import fresh_env, rates_xl

    build.external_link(tmp_path / "linked.xlsx")
    done = rates_xl("calc", "linked.xlsx", "--full", "--engine", "formulas", "--no-progress", "-o", "out.xlsx",
                    cwd=tmp_path, env=fresh_env(tmp_path / "home"))
    values = openpyxl.load_workbook(tmp_path / "out.xlsx")["Book"]
    assert [values[f"A{row}"].value for row in range(1, 5)] == pytest.approx([4.25, 5.25, 0.0825, 0.085])
    for cell in ("A1", "A3", "A4"):
        assert f"Book!{cell}: not computed (it reads another workbook" in done.stdout, cell
    assert "Book!A2: not computed" not in done.stdout and done.returncode == EXIT_ERROR_CELLS
    assert "Error in loading" not in done.stderr + done.stdout
