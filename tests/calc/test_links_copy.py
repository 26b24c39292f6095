"""The engine's copy keeps the file's links to other workbooks only where a formula can read
them (calc/engines/formualizer/links.py): formualizer 0.13's INDIRECT of a computed text is
#REF! in a workbook loaded from a file holding a link."""

from __future__ import annotations

import io
import zipfile

import openpyxl
import pytest
import xlsxwriter

from rates_xl.calc.engines.formualizer import links
from rates_xl.calc.workbook import WorkbookCalculation
from tests.calc.corpus import build

COUNTS = range(2, 8)  # Book!A2:A7 count up from A1's 0 through INDIRECT


def _book(path, *extra_formulas, names=()):
    """A running count `INDIRECT("A"&ROW(Bn)-1)+1` (the shape of the report's 3,798 cells,
    poi_StructuredRefs-lots-with-lookups.xlsx), in a file holding a link to another workbook."""
    wb = xlsxwriter.Workbook(path)
    ws = wb.add_worksheet("Book")
    ws.write_number("A1", 0)
    for r in COUNTS:
        ws.write_formula(f"A{r}", f'=INDIRECT("A"&ROW(B{r})-1)+1', None, 0)
    for i, formula in enumerate(extra_formulas, 1):
        ws.write_formula(f"D{i}", formula, None, 0)
    for name, text in names:
        wb.define_name(name, text)
    wb.close()
    build.add_external_link(path, "market data.xlsx", "Rates", {"B2": 0.0425, "B3": 0.04})


def _computed(path):
    calculation = WorkbookCalculation(path, full=True)
    result = calculation.compute()
    model = calculation.engine.model
    counts = [model.workbook.get_value("Book", r, 1) for r in COUNTS]  # read from the engine
    return calculation, result, counts


def _copy_parts(calculation):
    with zipfile.ZipFile(io.BytesIO(calculation.engine.prepared.data)) as copy:
        return copy.namelist(), copy.read("xl/workbook.xml")


def test_a_running_count_through_indirect_is_right_in_a_book_holding_an_unread_link(tmp_path):
    """No formula reads the link (a name stands for another workbook's cells, none reads it):
    the copy leaves the link and that name out, and the engine's INDIRECT counts at load."""
    path = tmp_path / "count.xlsx"
    _book(path, names=[("year", "=[1]Rates!$B$2:$B$3")])
    calculation, result, counts = _computed(path)
    assert counts == [1, 2, 3, 4, 5, 6]
    assert [result.value("Book", f"A{r}") for r in COUNTS] == [1, 2, 3, 4, 5, 6]
    assert result.stale == [] and result.skipped == []
    parts, workbook = _copy_parts(calculation)
    assert not calculation.engine.prepared.links
    assert not any("externalLink" in part for part in parts) and b"externalReferences" not in workbook
    assert b'name="year"' not in workbook
    out = calculation.freeze(result, tmp_path / "count.values.xlsx")  # the user's copy keeps both
    with zipfile.ZipFile(out) as frozen:
        assert "xl/externalLinks/externalLink1.xml" in frozen.namelist()
    assert openpyxl.load_workbook(out).defined_names["year"].attr_text == "[1]Rates!$B$2:$B$3"


@pytest.mark.parametrize("formula", ["=[1]Rates!B2*100", "=SUM(year)*100", "=twice*50",
                                     '=SUM(INDIRECT("ye"&"ar"))*100'])
def test_a_running_count_through_indirect_is_right_in_a_book_reading_its_link(tmp_path, formula):
    """A formula reads the link (directly, by a name, by a name of a name, by INDIRECT of a
    text that may name one): the copy keeps it, and the INDIRECT formulas set again after
    loading (model.py `_indirect_again`) count; the linked values are the link's cache (Excel's
    INDIRECT of another workbook's cells is #REF! while that workbook is closed: the value
    through INDIRECT is not asserted, only that the link is kept for it)."""
    path = tmp_path / "count.xlsx"
    _book(path, formula, names=[("year", "=[1]Rates!$B$2"), ("twice", "=year*2")])
    calculation, result, counts = _computed(path)
    assert calculation.engine.prepared.links
    assert counts == [1, 2, 3, 4, 5, 6]
    if "INDIRECT" not in formula:
        assert result.value("Book", "D1") == pytest.approx(4.25)
    assert "xl/externalLinks/externalLink1.xml" in _copy_parts(calculation)[0]


def test_indirect_of_a_computed_text_is_right_in_a_book_reading_its_link(tmp_path):
    """formualizer 0.13 answers #REF! for INDIRECT of a computed text in the formulas it reads
    from a file holding a link; the same formulas set again after loading answer right
    (model.py `_indirect_again`). A running count's `INDIRECT("A"&ROW(...)-1)` is written out
    before the engine sees it (calc/formula/ranges.py `row_indirect`): these are not."""
    path = tmp_path / "computed.xlsx"
    _book(path, '=INDIRECT("A"&"1")+1', '=INDIRECT("A"&(D1+1))*2', "=[1]Rates!B2*100")
    calculation, result, _counts = _computed(path)
    assert calculation.engine.prepared.links
    assert [result.value("Book", f"D{r}") for r in (1, 2, 3)] == [1, 2, pytest.approx(4.25)]


def _needed(formulas, names=(), sheets=("Book",)):
    wb = openpyxl.Workbook()
    wb.active.title = sheets[0]
    for title in sheets[1:]:
        wb.create_sheet(title)
    for name, text in names:
        wb.defined_names[name] = openpyxl.workbook.defined_name.DefinedName(name, attr_text=text)
    return links.needed(wb, formulas)


def test_which_formulas_can_read_a_link():
    year = [("year", "[1]Rates!$B$2:$B$3")]
    assert not _needed(['=INDIRECT("A"&ROW(B2)-1)+1', "=SUM(Book!A1:A3)", '="[1]"&A1'])
    assert not _needed(['=INDIRECT("[1]Rates!B2")'])  # #REF! with the link or without
    assert not _needed(['=INDIRECT("A"&ROW(B2)-1)+1', '="year"'], year)  # `year` unread
    assert _needed(["=[1]Rates!B2"]) and _needed(["='[1]Rates'!B2:B3"])
    assert _needed(["=SUM(year)"], year) and _needed(["=Book!year"], year)
    assert _needed(["=2*twice"], [*year, ("twice", "year*2")])  # a name of a name
    assert _needed(["=2*twice"], [*year, ("twice", 'SUM(INDIRECT("y"&"ear"))')])
    for text in ['=INDIRECT(B1)', '=INDIRECT("ye"&"ar")', '=INDIRECT("Y"&B1)', '=INDIRECT("year")',
                 '=INDIRECT(" "&B1)', '=INDIRECT(""&B1)', '=INDIRECT(IF(A1,"A1","year"))']:
        assert _needed([text], year), text  # INDIRECT's text may be `year`
    assert _needed(['=INDIRECT("B"&B1)'], year, ("Book", "Bonds"))  # "Bonds!year"
    assert _needed(['=INDIRECT("\'B"&B1)'], year, ("Book", "Bonds"))  # "'Bonds'!year"
    assert not _needed(['=INDIRECT("A"&B1)', '=INDIRECT("C"&B1)'], year, ("Book", "Bonds"))


#: Characters that continue a name, a reference or a call's name on either side of a linked
#: name's letters (`_mentions` finds no name next to them), and some that end one.
_CONTINUING = "AZaz09_.\\ÄéßΩ"
_ENDING = " +-*/^&=<>,;%@!\t"


def test_the_tokenizer_reads_no_name_inside_a_longer_word():
    """What `links._mentions` relies on: no Range operand naming `M` starts right after a
    character that continues a word, nor ends right before one (or a call's "(")."""
    from rates_xl.functions.sheet import split_reference
    from rates_xl.functions.tokens import FormulaError, tokenize

    def names_m(formula):
        try:
            return any(t.is_range and split_reference(t.text)[1].upper() == "M" for t in tokenize(formula))
        except FormulaError:
            return False

    for c in _CONTINUING:
        for formula in (f"=SUM({c}M)", f"=1+{c}M", f"=SUM(M{c})", f"=M{c}+1"):
            assert not names_m(formula), formula
    assert not names_m("=M(1)")
    for c in _ENDING:  # (the check itself: these do leave `M` a name of its own)
        assert names_m(f"=SUM(1{c}M)") or names_m(f"=SUM(M{c}1)") or c == "!", c


@pytest.mark.parametrize("formula", [
    "=SUM(M)", "=MATCH(1,M,0)", "=m*2", "=Sheet1!M", "='My Sheet'!M+1", "=SUM(A1, M )", "=-M%",
    "=M#", "=INDEX(M,1)", '="M"&1', "=SUM(A1:A3)+MATCH(1,B:B,0)", "=M1+SUMM(2)", "=_M+M_+M.X+ÄM",
    "=SUM(A1)", "=M(1)", "=year.1*2", "=YEAR.1X"])
def test_a_linked_name_is_looked_for_wherever_a_token_names_it(formula):
    """`_mentions` (the cheap test before a formula's tokens are read) finds a linked name in
    every formula a Range operand of which names it, and in none holding it only inside a
    longer word (formulas_test.xlsx's `M` in each SUM)."""
    from rates_xl.functions.sheet import split_reference
    from rates_xl.functions.tokens import tokenize

    names = {"M", "YEAR.1"}
    named = any(t.is_range and split_reference(t.text)[1].upper() in names for t in tokenize(formula))
    found = links._mentions(names).search(formula.upper()) is not None
    assert found == (named or '"M"' in formula)  # (text in quotes: read token by token, as before)
