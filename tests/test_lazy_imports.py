"""What the console script leaves unimported (rates_xl/lazy_imports.py): `rates-xl calc` on a
book needing neither numpy nor a picture imports neither numpy nor Pillow's core, and a book
with a picture and a SUMIF still gets both, its picture kept in the copy and the SUMIF's value
Excel's. Each run is the console script's own (`run`) in a fresh process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import openpyxl

#: Run as the console script runs (cli.run), then list which of these modules were imported:
#: the modules are read when the process ends (run's exit runs the atexit functions).
SCRIPT = """
import atexit, json, sys
WATCHED = ("numpy", "PIL._imaging", "scipy", "formulas", "pydantic", "cachetools", "logging")
atexit.register(lambda: print(json.dumps(sorted(m for m in WATCHED if m in sys.modules))))
sys.argv = ["rates-xl", *sys.argv[1:]]
from rates_xl import cli
cli.run()
"""


def _imported(*args: str, cwd: Path) -> list[str]:
    # No RATES_* variable, as on a user's machine (one set has calc read the client's settings: pydantic).
    env = {name: value for name, value in os.environ.items() if not name.startswith("RATES_")}
    done = subprocess.run([sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True,
                          timeout=300, env=env, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _calc(book: Path, out: Path) -> list[str]:
    return _imported("calc", str(book), "--full", "--no-progress", "-o", str(out), cwd=book.parent)


def test_a_plain_book_imports_neither_numpy_nor_pillow(tmp_path):
    book = tmp_path / "plain.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["A2"], ws["A3"] = 0.05, 360, 250000
    ws["B1"] = "=PMT(A1/12,A2,A3)"
    ws["B2"] = "=ROUND(B1,2)*2"
    wb.save(book)
    out = tmp_path / "plain.values.xlsx"

    assert _calc(book, out) == []
    values = openpyxl.load_workbook(out).active
    rate = 0.05 / 12
    assert abs(values["B1"].value - -250000 * rate / (1 - (1 + rate) ** -360)) < 1e-9
    assert values["B2"].value == -2684.1


def test_a_picture_and_a_sumif_still_get_pillow_and_numpy(tmp_path):
    from PIL import Image

    picture = tmp_path / "dot.png"
    Image.new("RGB", (3, 2), (200, 10, 10)).save(picture)
    book = tmp_path / "picture.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    for row, (name, amount) in enumerate([("a", 1), ("b", 20), ("a", 300), (None, 4000)], start=1):
        ws.cell(row=row, column=1, value=name)
        ws.cell(row=row, column=2, value=amount)
    ws["C1"] = '=SUMIF(A1:A4,"a",B1:B4)'
    ws["C2"] = '=COUNTIF(A1:A4,"<>a")'
    ws.add_image(openpyxl.drawing.image.Image(str(picture)), "E2")
    wb.save(book)
    out = tmp_path / "picture.values.xlsx"

    imported = set(_calc(book, out))  # (Pillow imports logging)
    assert {"PIL._imaging", "numpy"} <= imported and not {"scipy", "formulas", "pydantic"} & imported
    values = openpyxl.load_workbook(out).active
    assert values["C1"].value == 301 and values["C2"].value == 2
    with zipfile.ZipFile(out) as copy:
        media = [name for name in copy.namelist() if name.startswith("xl/media/")]
        assert len(media) == 1 and copy.read(media[0]) == picture.read_bytes()
    assert len(values._images) == 1 and values._images[0].anchor._from.col == 4


def test_the_help_imports_neither_numpy_nor_pillow(tmp_path):
    """`rates-xl --help` imports every command's module (calc/diff.py's openpyxl among them)."""
    imported = _imported("--help", cwd=tmp_path)
    assert "numpy" not in imported and "PIL._imaging" not in imported
