"""The SUMIF family's criteria where Excel's reading is easy to get wrong: nothing after the
operator ("" and "=" differ, "<>" counts a formula's empty text, "<", ">" ... match nothing:
Excel 16's answers), "<>5" counting the text "5" as "=5" does (not its complement). Checked against
LibreOffice (another implementation of Excel's rules, which nobody here wrote), cell by
cell, and against Apache POI's reading of Excel where LibreOffice is absent."""

from __future__ import annotations

from pathlib import Path

from rates_xl.calc.xlfuncs import callbacks
from tests.support import libreoffice

#: A formula's empty text, a blank cell, text, numbers, numeric text, a boolean, an error,
#: white space: one row each, the summed column 10**row, so a sum says which rows matched.
CELLS = ['=""', None, "x", 5, 0, "5", True, "=NA()", "X", " ", "ab"]
CRITERIA = ["<>", "=", "", "<>x", "=x", "x", ">", "<", ">=", "<=", "<>5", "=5", "<>0", "0", ">a", "<>TRUE"]
#: LibreOffice matches a wildcard against a number's text too; Excel against text only (POI's
#: Countif: "NumberEval(4567) does not match '4*7'"), as ours does: not compared here.
WILDCARDS = ["*", "<>*", "?", "<>?"]


def test_nothing_after_the_operator_is_read_as_excel_does():
    """Apache POI's Countif, written from Excel's answers: "criteria '=' behaves differently to
    criteria ''". Ours read "=" as "" and "<>" as skipping empty text, so SUMIFS(B,A,"<>")
    left out every row whose A is a formula's ""."""
    found = callbacks()
    rng, summed = [[""], [None], ["x"], [5.0], ["5"]], [[1.0], [10.0], [100.0], [1000.0], [10000.0]]
    sumifs, countifs = found["SUMIFS"], found["COUNTIFS"]
    assert sumifs(summed, rng, "<>") == 11101.0  # every cell but the blank one
    assert sumifs(summed, rng, "=") == 10.0  # the blank cell only
    assert sumifs(summed, rng, "") == 11.0  # blank or empty text
    # "<", "<=", ">", ">=" with nothing after match no cell: Excel 16's answers, cached in
    # IronCalc's Excel-made STATISTICAL__COUNTIF.xlsx (Columns!J6 ">=" and J10 ">" over 23,
    # "23", TRUE, "hey", blanks and a formula's "" are 0; Rows!I9:L16 the same). LibreOffice and
    # POI read ">" as any text after "" (10100 here), and so did ours.
    assert sumifs(summed, rng, ">") == 0 and sumifs(summed, rng, "<=") == 0
    assert countifs(rng, ">=") == 0 and countifs(rng, "<") == 0
    # An error's name as text matches that error, not that text (Columns!I20, J20, D27)
    errors = [[{"type": "Error", "kind": "Na"}], ["#N/A"], [{"type": "Error", "kind": "Div"}]]
    assert countifs(errors, "#N/A") == 1 and countifs(errors, "=#DIV/0!") == 1
    # "=5" counts the text "5", "<>5" counts it too: not complements (Apache POI's Countif
    # NumberMatcher: "'<>123' matches '123'"; Excel 16, IronCalc's Excel-made COUNTIF.xlsx
    # Columns!B7: "<>23" over 23, "23" and 12 other cells is 13)
    assert countifs(rng, "=5") == 2 and countifs(rng, "<>5") == 4
    assert found["SUMIF"](rng, "<>", summed) == 11101.0


def _book(path: Path) -> None:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    rows = len(CELLS)
    for i, value in enumerate(CELLS, start=1):
        if value is not None:
            sheet.cell(row=i, column=1).value = value
        sheet.cell(row=i, column=2).value = 10 ** (i - 1)
    for j, criterion in enumerate(CRITERIA + WILDCARDS, start=1):
        cell = sheet.cell(row=j, column=4)
        cell.value = criterion
        cell.data_type = "s"  # "=" and "=x" are text here, not formulas
        for col, formula in enumerate((f"SUMIFS($B$1:$B${rows},$A$1:$A${rows},D{j})",
                                       f"COUNTIFS($A$1:$A${rows},D{j})",
                                       f"SUMIF($A$1:$A${rows},D{j},$B$1:$B${rows})",
                                       f"AVERAGEIF($A$1:$A${rows},D{j},$B$1:$B${rows})",
                                       f"COUNTIF($A$1:$A${rows},D{j})"), start=5):
            sheet.cell(row=j, column=col).value = "=" + formula
    book.save(path)


@libreoffice.needed
def test_criteria_as_libreoffice_computes_them(tmp_path):
    _book(tmp_path / "criteria.xlsx")
    result, theirs = libreoffice.ours_and_theirs(tmp_path / "criteria.xlsx", tmp_path)
    ours = result.values
    differ = []
    for j, criterion in enumerate(CRITERIA, start=1):
        if criterion in ("<>5", ">", "<", ">=", "<="):
            continue  # LibreOffice leaves the text "5" out, and reads ">" as text after ""; Excel does not (see above)
        for col, letter in enumerate("EFGHI", start=4):
            mine, lo = ours[("S", f"{letter}{j}")], theirs[j - 1][col]
            same = (isinstance(mine, str) and mine == lo) or \
                (not isinstance(mine, str) and lo not in ("", "#DIV/0!") and abs(float(lo) - mine) < 1e-9)
            if not same:
                differ.append((criterion, letter, mine, lo))
    assert differ == []


def test_white_space_only_text_stays_text(tmp_path):
    """A cell holding a space (typed to 'clear' it, a common habit) was read back by the engine
    as empty text: openpyxl's ElementTree writer gives `<t> </t>` no xml:space="preserve", and
    the reader drops it (LEN gave 0, `A1=" "` FALSE). With lxml installed openpyxl marks it;
    the values-frozen copy keeps it too."""
    import openpyxl

    from rates_xl.calc.package import Package
    from rates_xl.calc.workbook import WorkbookCalculation

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    sheet["A1"], sheet["A2"] = " ", "\t"
    sheet["B1"], sheet["B2"], sheet["C1"] = "=LEN(A1)", "=LEN(A2)", '=COUNTIF(A1:A2,"?")'
    book.save(tmp_path / "space.xlsx")
    calc = WorkbookCalculation(tmp_path / "space.xlsx", full=True)
    result = calc.compute()
    assert [result.values[("S", c)] for c in ("B1", "B2", "C1")] == [1, 1, 2]
    copy, _missing = Package.open(calc.freeze(result, tmp_path / "space.values.xlsx")).cell_values()
    assert (copy[("S", "A1")], copy[("S", "A2")]) == (" ", "\t")
