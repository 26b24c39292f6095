"""A book linking to a live feed (DDE, OLE: calc/feed_links.py) is computed, not lost whole:
the cells reading the feed keep Excel's values and are listed, the links after it keep their
numbers, and both copies calc writes hold the feed's link as the file did (EPPlus's
Excel-made dde.xlsx: openpyxl failed the whole book, "KeyError: ... externalLink1.xml.rels")."""

from __future__ import annotations

import re
import zipfile

import openpyxl
import pytest
import xlsxwriter

from rates_xl.calc import feed_links, xlsx_writer
from rates_xl.calc.book import Book
from rates_xl.calc.formula import passes
from rates_xl.calc.workbook import WorkbookCalculation
from tests.calc.corpus import build

DDE = build.dde_link("WINROS", "LAST", ["ES #F", "ES #G"])
OLE = build.ole_link("Excel.Sheet.12", "file:///C:\\quotes.xlsx", ["!Quotes!A5"])
BOOK = build.external_book("rates.xlsx", "Rates", {"B2": 0.0425})


def _book(path):
    """Link 1 a DDE feed, 2 an OLE object, 3 another workbook; each read, and read on."""
    wb = xlsxwriter.Workbook(path)
    ws = wb.add_worksheet("Desk")
    ws.write_formula("A1", "=[1]!'ES #F'", None, 4321.5)  # (a quote the feed gave Excel)
    ws.write_formula("A2", "=A1*2", None, 8643)
    ws.write_formula("B1", "=[2]!'!Quotes!A5'", None, 17)
    ws.write_formula("B2", "=B1+1", None, 18)
    ws.write_formula("C1", "=[3]Rates!$B$2", None, 0.0425)
    ws.write_formula("C2", "=C1*100", None, 4.25)
    wb.close()
    build.add_links(path, [DDE, OLE, BOOK])
    return path


def test_a_book_linking_to_feeds_is_computed_each_feed_s_cells_listed(tmp_path):
    path = _book(tmp_path / "desk.xlsx")
    calculation = WorkbookCalculation(path, full=True)
    result = calculation.compute()
    values = {cell: result.values[("Desk", cell)] for cell in ("A1", "A2", "B1", "B2", "C1", "C2")}
    assert values == {"A1": 4321.5, "A2": 8643, "B1": 17, "B2": 18, "C1": 0.0425, "C2": 4.25}
    listed = {s.cell: s.reason for s in result.skipped}
    assert listed.keys() == {"A1", "B1"}
    assert "a live feed ([1], DDE WINROS|LAST), which only Excel can call" in listed["A1"]
    assert "a live feed ([2], OLE Excel.Sheet.12)" in listed["B1"]
    assert not result.stale  # C1 read link 3's cached cell: the feeds before it kept their numbers
    notes = " ".join(result.notes)
    assert "1 link(s) to other workbooks" in notes and "2 link(s) to a live feed" in notes


@pytest.mark.parametrize("engine_copy", [False, True], ids=["values-frozen copy", "engine's copy"])
def test_both_copies_hold_each_feed_s_link_as_the_file_did(tmp_path, engine_copy):
    path = _book(tmp_path / "desk.xlsx")
    book = Book(path)
    assert feed_links.feeds(book.book) == {1: "DDE WINROS|LAST", 2: "OLE Excel.Sheet.12"}
    copy = tmp_path / "copy.xlsx"
    copy.write_bytes(xlsx_writer.to_bytes(book.engine_copy() if engine_copy else book.writable_copy(False)))
    with zipfile.ZipFile(path) as original, zipfile.ZipFile(copy) as written:
        for part in ("xl/externalLinks/externalLink1.xml", "xl/externalLinks/externalLink2.xml",
                     "xl/externalLinks/_rels/externalLink2.xml.rels"):
            assert written.read(part) == original.read(part), part
        assert "xl/externalLinks/_rels/externalLink1.xml.rels" not in written.namelist()
        assert b"externalBook" in written.read("xl/externalLinks/externalLink3.xml")
        types = written.read("[Content_Types].xml").decode()
        assert all(f"/xl/externalLinks/externalLink{n}.xml" in types for n in (1, 2, 3))
    again = Book(copy)  # read back: the same links in the same places
    assert feed_links.feeds(again.book) == {1: "DDE WINROS|LAST", 2: "OLE Excel.Sheet.12"}
    assert again.external_links == 1
    assert openpyxl.load_workbook(copy)["Desk"]["C1"].value == "=[3]Rates!$B$2"


@pytest.mark.parametrize("formula, listed", [
    ("=[2]!'ES #F'", "a live feed ([2], DDE WINROS|LAST)"),
    ("=SUM([2]Sheet1!A1:A3)", "a live feed ([2]Sheet1, DDE WINROS|LAST)"),
    ("=[1]Sheet1!FromF2", "another workbook's name ([1]Sheet1!FromF2)"),  # dde.xlsx F10: #REF!, Excel 111
    ("=[1]!Formula_Name", "another workbook's name ([1]!Formula_Name)"),
    ("=[1]Sheet1!$A$1:$B$3", None),  # the cells link 1 caches
    ("=[1]Sheet1!A:A", None),
])
def test_the_pass_lists_a_feed_and_another_workbook_s_name(formula, listed):
    facts = passes.Site("S", 1, 1).book.__class__(links=frozenset({1}), feeds={2: "DDE WINROS|LAST"})
    site = passes.Site("S", 1, 1, False, facts)
    if listed is None:
        assert passes.one("other_workbooks", formula, site) == formula
    else:
        with pytest.raises(passes.NotComputed, match=re.escape(f"reads {listed}")):
            passes.one("other_workbooks", formula, site)


def test_a_workbook_link_without_its_relationships_is_read_and_kept_as_it_was(tmp_path):
    """openpyxl failed the whole book on a link part without relationships of any kind; a link
    to a workbook is computed from its cache, and written back without relationships rather
    than with an empty target."""
    path = tmp_path / "bare.xlsx"
    wb = xlsxwriter.Workbook(path)
    ws = wb.add_worksheet("Desk")
    ws.write_formula("C1", "=[1]Rates!$B$2", None, 0.0425)
    ws.write_formula("C2", "=C1*100", None, 4.25)
    wb.close()
    build.add_links(path, [(BOOK[0], None)])
    calculation = WorkbookCalculation(path, full=True)
    result = calculation.compute()
    assert (result.values[("Desk", "C1")], result.values[("Desk", "C2")]) == (0.0425, 4.25)
    assert not result.skipped and not result.stale
    copy = calculation.freeze(result, tmp_path / "copy.xlsx")
    with zipfile.ZipFile(path) as original, zipfile.ZipFile(copy) as written:
        assert written.read("xl/externalLinks/externalLink1.xml") == original.read("xl/externalLinks/externalLink1.xml")
        assert "xl/externalLinks/_rels/externalLink1.xml.rels" not in written.namelist()
