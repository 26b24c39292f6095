"""calc/openpyxl_read.py reads a package whose parts are named otherwise than its content types
declare them (Open XML matches part names case-blind: ECMA-376 Part 2, M1.12; zipfile does not)."""

from __future__ import annotations

import openpyxl
import xlsxwriter

from rates_xl.calc import openpyxl_read
from rates_xl.calc.workbook import WorkbookCalculation
from tests.calc.corpus import build


def _renamed(path, old, new, declare=()):
    def rename(parts):
        parts[new] = parts.pop(old)
        for part in declare:  # (content types declared for parts the package does not hold)
            parts["[Content_Types].xml"] = parts["[Content_Types].xml"].replace(
                b"</Types>", f'<Override PartName="/{part}" ContentType="application/xml"/></Types>'.encode())
    build.edit_parts(path, rename)


def test_a_part_named_in_another_case_is_read(tmp_path):
    """excelize's test_CalcChain.xlsx holds xl/SharedStrings.xml and declares
    xl/sharedStrings.xml: openpyxl failed the book ("KeyError: There is no item named
    'xl/sharedStrings.xml'")."""
    path = tmp_path / "case.xlsx"
    wb = xlsxwriter.Workbook(path)
    ws = wb.add_worksheet("S")
    ws.write_string("A1", "rate")
    ws.write_formula("A2", '=A1&"s"', None, "rates")
    wb.close()
    _renamed(path, "xl/sharedStrings.xml", "xl/SharedStrings.xml", declare=["xl/calcChain.xml"])
    book = openpyxl_read.load_workbook(path)
    assert book["S"]["A1"].value == "rate" and openpyxl_read.read_losses(book) is None
    result = WorkbookCalculation(path, full=True).compute()
    assert result.values[("S", "A2")] == "rates" and not result.skipped and not result.stale


def test_a_conditional_format_openpyxl_refuses_costs_the_copy_that_alone(tmp_path):
    """LibreOffice wrote `<cfRule type="expression" operator="expression">` (ClosedXML's
    TryToLoad LO_xlsx_formats.xlsx), which openpyxl refuses ("Value must be one of ..."): the
    book is read without its conditional formats, its styles whole, and the summary says so."""
    path = tmp_path / "lo.xlsx"
    wb = xlsxwriter.Workbook(path)
    ws = wb.add_worksheet("S")
    ws.write_number("A1", 2, wb.add_format({"bold": True}))
    ws.write_formula("A2", "=A1*3", None, 6)
    ws.conditional_format("A1:A2", {"type": "formula", "criteria": "=A1>1", "format": wb.add_format({"italic": True})})
    wb.close()
    sheet = "xl/worksheets/sheet1.xml"

    def refused(parts):
        assert b'type="expression"' in parts[sheet]
        parts[sheet] = parts[sheet].replace(b'type="expression"', b'type="expression" operator="expression"')
    build.edit_parts(path, refused)
    calculation = WorkbookCalculation(path, full=True)
    result = calculation.compute()
    assert result.values[("S", "A2")] == 6 and not result.skipped and not result.stale
    notes = " ".join(result.notes)
    assert "the copy lacks the book's conditional formats, which openpyxl could not read (ValueError: Value must " \
           "be one of" in notes
    copy = openpyxl.load_workbook(calculation.freeze(result, tmp_path / "copy.xlsx"))["S"]
    assert copy["A1"].font.b and len(copy.conditional_formatting) == 0  # (its styles whole)
