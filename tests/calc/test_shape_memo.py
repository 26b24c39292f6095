"""A formula's copies down a column take its shape's rewriting (calc/formula/memo.py) only when
that rewriting moves with the cell: the engine's copy is the one each cell's own rewriting
gives, formula for formula, with rewritings that do not move (a row folded into a number, a
reference the rewriting made of a name or a whole column, `[#This Row]`, implicit
intersection, a sum noted by its cell) beside ones that do."""

from __future__ import annotations

import openpyxl
import pytest
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.table import Table

from rates_xl.calc.formula import memo, shapes
from rates_xl.calc.workbook import WorkbookCalculation

ROWS = range(2, 31)


def _book(path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r in range(1, 41):
        ws[f"A{r}"] = r * 3 % 11 + 0.5
    ws["H1"], ws["I1"] = "Key", "Val"
    for r in ROWS:
        ws[f"H{r}"], ws[f"I{r}"] = r, r * 10
        ws[f"B{r}"] = f"=(A{r}+$A$1)*2"  # moves with the cell
        ws[f"C{r}"] = f"=ROW(A{r})+1"  # the row's number
        ws[f"D{r}"] = f'=SUMIF(A:A,">"&A{r},A:A)'  # whole columns bounded to rows of the sheet's
        ws[f"E{r}"] = "=_xlfn.SINGLE(one)*1"  # `@` over a one-cell name: a reference made of it
        ws[f"F{r}"] = "=IF(col>3,1,0)"  # implicit intersection with the cell's row
        ws[f"G{r}"] = f"=A{r}-A{r + 1}"  # a sum noted by its cell (Excel's zero)
        ws[f"J{r}"] = "=T[@Val]*2"  # the table's row of the cell
        ws[f"K{r}"] = f"=ROUND(A{r}/$A$2,2)"  # moves with the cell
        ws[f"L{r}"] = f"=SUM($A$1:A{r})"  # a range that grows: its size is asked of each copy
        ws[f"M{r}"] = f"=SUM(A{r}:A{r + 2})/COUNT($A$1:$A$3,A{r})"  # the same sizes in every copy
        # a join of a constant: text joined as it is, a number written as Excel writes it
        ws[f"P{r}"] = 0.1 + 0.2 if r == 15 else "=1/3" if r == 20 else f"u{r}"
        ws[f"N{r}"] = f'="k"&P{r}'
    for r in (31, 32):  # past the table's rows: not computed, as each cell's own rewriting says
        ws[f"J{r}"] = "=T[@Val]*2"
        ws[f"F{r + 10}"] = "=IF(col>3,1,0)"  # past the name's rows: #VALUE!
    ws.add_table(Table(displayName="T", ref="H1:I30"))
    wb.defined_names["one"] = DefinedName("one", attr_text="S!$A$5")
    wb.defined_names["col"] = DefinedName("col", attr_text="S!$A$1:$A$40")
    wb.save(path)
    return path


def _prepared(path, monkeypatch, shared: bool):
    found = []
    find = memo.Memo.find

    def counted(self, *args):
        key, answer = find(self, *args) if shared else (None, None)
        found.append(answer is not None)
        return key, answer

    monkeypatch.setattr(memo.Memo, "find", counted)
    calculation = WorkbookCalculation(path, full=True)
    monkeypatch.undo()
    return calculation, sum(found)


def test_copies_share_only_rewritings_that_move_with_the_cell(tmp_path, monkeypatch):
    path = _book(tmp_path / "copies.xlsx")
    calculation, shared = _prepared(path, monkeypatch, shared=True)
    alone, none = _prepared(path, monkeypatch, shared=False)
    # B, K, J ([#This Row]) and F (an intersection) at least, but their first copies
    assert none == 0 and shared >= 4 * (len(ROWS) - 2)
    mine, theirs = calculation.engine.prepared, alone.engine.prepared
    assert mine.written == theirs.written
    assert mine.unsupported == theirs.unsupported and mine.rewritten == theirs.rewritten
    assert mine.sums == theirs.sums
    written = mine.written
    assert {written[("S", r, 5)] for r in ROWS} == {"=S!A5*1"}
    # (no RATESXL.TEXTLIMIT: A2 holds a constant number, whose text cannot pass a cell's
    # 32,767 characters, calc/formula/text_limit.py)
    assert [written[("S", r, 4)] for r in (2, 30)] == ['=SUMIF(A1:A42,">"&RATESXL.NUMTEXT(A2),A1:A42)',
                                                      '=SUMIF(A1:A42,">"&RATESXL.NUMTEXT(A30),A1:A42)']
    # a constant text is joined as it is; a number and a formula's answer written as Excel does
    assert [written[("S", r, 14)] for r in (2, 15, 20)] == [
        '="k"&P2', '="k"&RATESXL.NUMTEXT(P15)', '=RATESXL.TEXTLIMIT("k"&RATESXL.NUMTEXT(P20))']
    assert written[("S", 30, 10)] == "=S!$I$30*2"
    assert ("S", "J31") in mine.unsupported and ("S", "J32") in mine.unsupported
    assert written[("S", 42, 6)] == "=IF(#VALUE!>3,1,0)"
    values = calculation.compute()
    for r in ROWS:
        assert values.value("S", f"C{r}") == r + 1
        assert values.value("S", f"J{r}") == r * 20
        assert values.value("S", f"F{r}") == (1 if (r * 3 % 11 + 0.5) > 3 else 0)
        assert values.value("S", f"N{r}") == ("k0.3" if r == 15 else "k0.333333333333333" if r == 20 else f"ku{r}")


@pytest.mark.parametrize("text", ["=A1+$B$2*C$3-$D4", "=SUM(A:A,$B:C,1:1,$2:$3)", "=Sheet2!A1:B2+'My sheet'!$C$9",
                                  '=INDIRECT("A1")&name1&T[@Val]&[1]S!A1', "=A1#+XFD1048575"])
def test_a_shape_writes_its_formula_back_as_written_and_moves_each_relative_part(text):
    found = shapes.shape(text, 5, 4)
    assert found is not None and shapes.text_at(found, 5, 4) == text
    moved = shapes.moved(text, (5, 4), (6, 4))
    assert moved is not None and ("$B$2" in moved) == ("$B$2" in text)
    if text.startswith("=A1+"):
        assert moved == "=A2+$B$2*C$3-$D5"
        assert shapes.moved(text, (5, 4), (5, 5)) == "=B1+$B$2*D$3-$D4"
        assert shapes.moved(text, (5, 4), (4, 4)) is None  # A0: off the sheet


@pytest.mark.parametrize("text", ["=a1+1", "=A01+1", "=XFE1+1", "=A1:B+1"])
def test_a_reference_not_written_as_excel_writes_one_leaves_the_formula_without_a_shape(text):
    assert shapes.shape(text, 5, 4) is None


@pytest.mark.parametrize("text", ["=A1+$B$2*C$3-$D4", "=SUM(A:A,$B:C,1:1,$2:$3)", "=A:B:C+1:2:3+$4:$5:$6",
                                  "=Z9+$Z9+Z$9&\"A1\"&'A1 B2'!Y99", "=Sheet2!A1:B2+'My sheet'!$C$9",
                                  "=LOG10(A9)+T[[#This Row],[A1]]+[1]S!A9", "=SUM(A9 B9:C9,(D9,E9))",
                                  '=IF(A9="",Y9,XFD9)+name9'])
def test_a_text_a_scanned_shape_writes_in_another_cell_scans_back_to_that_shape(text):
    """A copy's shape is read as the last one scanned in its column or row when that shape
    writes the copy's text there (shapes.py `Scanner`): the text scans to it."""
    found = shapes.scanned(text, 9, 25)
    assert found is not None and shapes.text_at(found, 9, 25) == text
    for row, col in ((10, 25), (99, 25), (1000, 25), (9, 26), (9, 2), (100, 700)):
        moved = shapes.text_at(found, row, col)
        if moved is not None:
            assert shapes.scanned(moved, row, col) == found, moved


def _corners():
    """Corners a range's size may be asked of: relative or absolute, at and past the sheet's
    edges (XFD, row 1048576), column letters that are also words (TRUE, LOG, R, RC)."""
    for letters in ("A", "Z", "AB", "R", "RC", "LOG", "TRU", "XFD", "XFE", "ZZZ"):
        for digits in ("1", "9", "10", "1048576", "1048577", "9999999"):
            for c, r in (("", ""), ("$", ""), ("", "$"), ("$", "$")):
                yield f"{c}{letters}{r}{digits}"


@pytest.mark.parametrize("row, col", [(1, 1), (5, 4), (1048576, 16384)])
def test_a_references_shape_read_without_its_tokens_is_the_one_its_tokens_give(row, col):
    """`reference_shape` (the memo's reading of each range whose size a rewriting asks)
    answers `shape` of "=" and the text for every reference, plain ones read without tokens:
    a corner past the sheet's edge (which the tokenizer splits off) and any other text are
    read from the tokens."""
    corners = list(_corners())
    texts = corners + [f"{a}:{b}" for a in corners[::7] for b in corners[::5]]
    texts += ["a1", "A01", "A:A", "$1:$3", "Sheet2!A1:B2", "'My sheet'!$C$9", "name1", "T[Val]", "A1#", "#REF!"]
    plain = 0
    for text in texts:
        assert shapes.reference_shape(text, row, col) == shapes.shape("=" + text, row, col), text
        plain += shapes._PLAIN.fullmatch(text) is not None and shapes.shape("=" + text, row, col) is not None
    assert plain > 500  # (most of them take the way without tokens)


def test_a_shape_noted_once_is_rewritten_unwatched_and_one_noted_twice_is_watched():
    """`Memo.note` counts each shape before any formula is found: the only formula of its shape
    has nothing to share (no handle for `learn`), each copy of a shape noted twice has one."""
    from rates_xl.calc.formula.site import BookFacts

    book = memo.Memo(BookFacts())
    cells = [(2, "=A2*2"), (3, "=A3*2"), (4, "=SUM($A$1:A4)")]
    noted = [book.note("S", text, row, 3) for row, text in cells]
    keys = [book.find("S", text, row, 3, shape)[0] for (row, text), shape in zip(cells, noted, strict=True)]
    assert keys[0] is not None and keys[1] == keys[0]  # (the second found before the first learnt)
    assert keys[2] is None
    # Not noted: found as before (its shape read and asked about).
    assert memo.Memo(BookFacts()).find("S", "=SUM($A$1:A4)", 4, 3)[0] is not None


def _lifted_book(path):
    """Legacy arrays written out cell by cell (calc/formula/fit.py `lift`) whose elements' last
    passes read each cell's kind: a join of a number, a text or a formula's answer
    (numbers_as_text), a comparison with a text (excel_comparisons)."""
    from openpyxl.worksheet.formula import ArrayFormula

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    kinds = [0.1 + 0.2, "u", "=1/3", 7, "=B1&\"\"", "", True]
    for r in ROWS:
        ws[f"A{r}"] = kinds[r % len(kinds)]
        ws[f"B{r}"] = r
    ws["C2"] = ArrayFormula(f"C2:C{ROWS[-1]}", f'=IF(ISNUMBER(B2:B{ROWS[-1]}),A2:A{ROWS[-1]}&"x","")')
    ws["D2"] = ArrayFormula(f"D2:D{ROWS[-1]}", f'=IF(ISNUMBER(B2:B{ROWS[-1]}),A2:A{ROWS[-1]}>"m","")')
    wb.save(path)
    return path


def test_an_arrays_elements_share_their_last_passes_only_where_each_cell_reads_the_same(tmp_path, monkeypatch):
    """The elements of a lifted array go through the WRITTEN passes (prepare.py
    `_written_passes`) by shape too: the swap pricer's 1,696 are 14 shapes. Where a pass reads
    the cell an element reads (a number joined as Excel writes it, a text as it is), each copy
    is asked again, and the engine's copy is the one each element's own rewriting gives."""
    path = _lifted_book(tmp_path / "lifted.xlsx")
    calculation, shared = _prepared(path, monkeypatch, shared=True)
    alone, none = _prepared(path, monkeypatch, shared=False)
    mine, theirs = calculation.engine.prepared, alone.engine.prepared
    assert mine.rewritten[("S", "C2")] == "lifted" and mine.rewritten[("S", "D2")] == "lifted"
    assert none == 0 and shared > len(ROWS)  # (some copies, not every one: the kinds differ)
    assert mine.written == theirs.written and mine.unsupported == theirs.unsupported
    written = mine.written
    assert written[("S", 8, 3)] == '=IF(ISNUMBER(B8),A8&"x","")'  # a text, joined as it is
    assert written[("S", 7, 3)] == '=IF(ISNUMBER(B7),RATESXL.NUMTEXT(A7)&"x","")'  # a number as Excel writes it
    values, theirs_values = calculation.compute(), alone.compute()
    for r in ROWS:
        for column in "CD":
            assert values.value("S", f"{column}{r}") == theirs_values.value("S", f"{column}{r}")
    assert [values.value("S", f"C{r}") for r in (7, 8, 9)] == ["0.3x", "ux", "0.333333333333333x"]
    assert [values.value("S", f"D{r}") for r in (7, 8, 10)] == [False, True, False]  # any text > any number
