"""A sheet set to evaluate by Lotus 1-2-3's rules (Excel's "Transition formula evaluation",
`sheetPr transitionEvaluation="1"`) reads text as 0 and logical values as 0 or 1 (Microsoft KB
141764): `=A1+1` over a text A1 is 1 there. The engine computes Excel's own rules, so every
formula of such a sheet keeps the value Excel saved and is listed (calc/formula/lotus_rules.py);
what reads it elsewhere is computed from that. Before, `=A1+1` was #VALUE!, silently where the
check could not compare (a cell recomputed for NOW, in the default mode)."""

from __future__ import annotations

import re

import openpyxl
import pytest
from openpyxl.worksheet.formula import DataTableFormula

from rates_xl.calc.formula.lotus_rules import REASON
from rates_xl.cli import main
from tests.calc.corpus.build import edit_parts, saved_by_excel

#: sheet -> cell -> (formula, the value Excel saved)
CELLS = {
    "Lotus": {"B1": ("=A1+1", 1), "B2": ("=ROUND(NOW(),0)*0+A1+2", 2)},  # text as 0; B2 recomputed always
    "Plain": {"C1": ("=Lotus!B1*10", 10), "C2": ("=Lotus!B2*10+A1", 20)},  # Excel's rules: read from them
}


def _book(path):
    book = openpyxl.Workbook()
    lotus = book.active
    lotus.title = "Lotus"
    lotus.sheet_properties.transitionEvaluation = True
    lotus["A1"] = "abc"
    plain = book.create_sheet("Plain")
    plain["A1"] = 0
    for title, cells in CELLS.items():
        for address, (formula, _value) in cells.items():
            book[title][address] = formula
    book.save(path)

    def excel_saved_it(parts):
        for number, cells in enumerate(CELLS.values(), start=1):
            saved_by_excel(parts, number, {address: value for address, (_formula, value) in cells.items()})

    edit_parts(path, excel_saved_it)
    return path


@pytest.mark.parametrize("full", [True, False])
def test_a_lotus_sheet_s_formulas_keep_excel_s_values_and_are_listed(tmp_path, capsys, full):
    book, out = _book(tmp_path / "lotus.xlsx"), tmp_path / "out.xlsx"
    code = main(["calc", str(book), *(["--full"] if full else []), "-o", str(out), "--no-progress"])
    printed = capsys.readouterr().out
    values = openpyxl.load_workbook(out)
    for title, cells in CELLS.items():
        for address, (_formula, value) in cells.items():
            assert values[title][address].value == value, (title, address)
    listed = [f"Lotus!{address}: not computed ({REASON})" for address in (["B1", "B2"] if full else ["B2"])]
    assert all(line in printed for line in listed), printed
    assert not re.search(r"Plain!C\d: not computed", printed)  # (computed from the values kept)
    assert code == 3 and "0 stale" in printed


def test_a_data_table_on_such_a_sheet_is_listed(tmp_path):
    from rates_xl.calc.workbook import WorkbookCalculation

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.sheet_properties.transitionEvaluation = True
    sheet["B1"], sheet["B3"], sheet["E4"], sheet["D5"] = 1, "=B1*2", "=B3", 5
    sheet["E5"] = DataTableFormula(ref="E5:E5", dt2D="0", dtr="0", r1="B1")
    book.save(tmp_path / "table.xlsx")
    listed = {c.address: c.reason for c in WorkbookCalculation(tmp_path / "table.xlsx", full=True).compute().skipped}
    assert sorted(listed) == ["Sheet!B3", "Sheet!E4", "Sheet!E5"] and all(REASON in r for r in listed.values())


def test_the_formulas_engine_refuses_such_a_book_in_one_line(tmp_path, capsys):
    book = _book(tmp_path / "lotus.xlsx")
    assert main(["calc", str(book), "--full", "--engine", "formulas", "-o", str(tmp_path / "f.xlsx"),
                 "--no-progress"]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [
        f"rates-xl calc: {book}: the formula engine cannot compute a sheet set to Lotus 1-2-3's rules "
        "(Transition formula evaluation): it is computed by the fast engine only"]
