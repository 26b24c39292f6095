"""LibreOffice as a second opinion: a workbook made by a test, computed by LibreOffice headless
(another implementation of Excel's rules, which nobody here wrote) and read back as the text of
each cell of its first sheet: its value, not as its format shows it (a currency-formatted PMT
is -536.821623012139, not -$536.82)."""

from __future__ import annotations

import csv
import shutil
import subprocess
from pathlib import Path

import pytest

SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")

#: For a test that needs it: skipped, with the reason, where LibreOffice is absent.
needed = pytest.mark.skipif(SOFFICE is None, reason="LibreOffice (soffice, Debian's libreoffice-calc) is not installed")


def computed_rows(book: Path, tmp: Path) -> list[list[str]]:
    """The first sheet of `book` as LibreOffice computes it: one list of cell texts per row."""
    out = tmp / "libreoffice"
    subprocess.run([SOFFICE, f"-env:UserInstallation=file://{tmp / 'libreoffice-profile'}", "--headless",
                    "--norestore", "--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false",
                    "--outdir", str(out), str(book)],
                   check=True, capture_output=True, timeout=180)
    with (out / f"{book.stem}.csv").open(encoding="utf-8", newline="") as rows:
        return list(csv.reader(rows))


def ours_and_theirs(book: Path, tmp: Path) -> tuple[object, list[list[str]]]:
    """`book` computed by rates-xl calc (every formula) and by LibreOffice: (our result, its rows)."""
    from rates_xl.calc.workbook import WorkbookCalculation

    return WorkbookCalculation(book, full=True).compute(), computed_rows(book, tmp)
