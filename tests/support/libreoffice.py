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

#: A profile's registrymodifications.xcu with LibreOffice's setting "Recalculation on file load,
#: Excel 2007 and newer: Always recalculate" (OOXMLRecalcMode 0; ODF's too). Without it a book
#: Excel saved is shown with its cached values, never recomputed.
RECALCULATING_PROFILE = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""


def recalculating_profile(where: Path, settings: str = RECALCULATING_PROFILE) -> Path:
    """A LibreOffice user profile folder in `where` holding `settings`, for -env:UserInstallation."""
    (where / "user").mkdir(parents=True, exist_ok=True)
    (where / "user" / "registrymodifications.xcu").write_text(settings)
    return where


def to_xlsx(profile: Path, book: Path, out: Path) -> list[str]:
    """The command that opens `book` headless under `profile` and saves it as out/BOOK.xlsx."""
    return [SOFFICE or "soffice", f"-env:UserInstallation={profile.as_uri()}", "--headless", "--norestore",
            "--convert-to", "xlsx:Calc MS Excel 2007 XML", "--outdir", str(out), str(book)]


def recalculates_on_load(profile: Path, where: Path) -> bool:
    """Whether LibreOffice under `profile` recomputes a formula whose cached value is wrong
    (`=1+1` cached as 5, in a book that does not ask for a recalculation on load)."""
    import zipfile

    import openpyxl

    where.mkdir(parents=True, exist_ok=True)
    plain, stale = where / "stale_plain.xlsx", where / "stale.xlsx"
    wb = openpyxl.Workbook()
    wb.active["A1"] = "=1+1"
    wb.save(plain)
    with zipfile.ZipFile(plain) as src, zipfile.ZipFile(stale, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = data.replace(b"<f>1+1</f><v></v>", b"<f>1+1</f><v>5</v>")
            elif item.filename == "xl/workbook.xml":  # as Excel saves it: no recalculation asked
                data = data.replace(b' fullCalcOnLoad="1"', b"")
            dst.writestr(item, data)
    out = where / "converted"
    subprocess.run(to_xlsx(profile, stale, out), check=True, capture_output=True, timeout=300)
    return openpyxl.load_workbook(out / "stale.xlsx", data_only=True).active["A1"].value == 2


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
