"""Workbooks that test a calc's budget (issue 27, point 5), made on demand: the issue's 5 KB
book that reads a whole sheet over one far cell, and a long chain of formulas."""

from __future__ import annotations

from pathlib import Path


def far_book(path: Path) -> Path:
    """`=SUM(Sheet2!A:XFD)` in Sheet1!A1 over a sheet holding A1 (5) and XFD1048576 (7)."""
    import openpyxl

    wb = openpyxl.Workbook()
    wb.active.title = "Sheet1"
    wb.active["A1"] = "=SUM(Sheet2!A:XFD)"
    far = wb.create_sheet("Sheet2")
    far["A1"], far["XFD1048576"] = 5, 7
    wb.save(path)
    return path


def chain_book(path: Path, cells: int) -> Path:
    """Sheet1!A1 = 1 and A2..A`cells` = the cell above + 1."""
    import openpyxl

    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("Sheet1")
    ws.append([1])
    for i in range(2, cells + 1):
        ws.append([f"=A{i - 1}+1"])
    wb.save(path)
    return path
