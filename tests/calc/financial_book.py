"""A book of one formula per row computed as `rates-xl calc --full` computes it: for the tests
that compare each answer with Excel's (the financial functions, FLOOR and kin, XIRR)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def computed(tmp_path: Path, formulas: list[str]) -> tuple[list[Any], list[str]]:
    """(each formula's answer, the cells listed as not computed) of a fresh book."""
    import openpyxl

    from rates_xl.calc.workbook import WorkbookCalculation

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for row, formula in enumerate(formulas, start=1):
        sheet.cell(row=row, column=1).value = "=" + formula
    book.save(tmp_path / "cases.xlsx")
    result = WorkbookCalculation(tmp_path / "cases.xlsx", full=True).compute()
    return [result.values.get(("S", f"A{row}")) for row in range(1, len(formulas) + 1)], sorted(
        s.cell for s in result.skipped)
