"""What the console script leaves unimported (rates_xl/lazy_imports.py): `rates-xl calc` on a
book needing neither numpy nor a picture imports neither numpy nor Pillow's core, and a book
with a picture and a SUMIF still gets both, its picture kept in the copy and the SUMIF's value
Excel's. Neither imports openpyxl's built-in styles; a program naming one gets the same styles,
and the same file, as with openpyxl imported the ordinary way. Neither imports the client's
answer cache (functions/plan.py: no RATES_* call, no plan loop) nor the `formulas` engine's module
(calc/engines `load_engine`: formualizer reads the book). calc imports with the cyclic
collector held off. Each run is the console script's own (`run`) in a fresh process."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import openpyxl
import pytest

from rates_xl import lazy_imports

#: Run as the console script runs (cli.run), then list which of these modules were imported:
#: the modules are read when the process ends (run's exit runs the atexit functions).
SCRIPT = """
import atexit, json, sys
WATCHED = ("numpy", "PIL._imaging", "scipy", "formulas", "pydantic", "cachetools", "logging",
           "openpyxl.styles.builtins", "numpy.random", "scipy.stats", "_hashlib",
           "rates_xl.client.cache", "rates_xl.calc.engines.formulas.engine", "numpy.ma")
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
    assert {"PIL._imaging", "numpy"} <= imported
    assert not {"scipy", "formulas", "pydantic", "openpyxl.styles.builtins", "numpy.random", "_hashlib",
                "rates_xl.client.cache", "rates_xl.calc.engines.formulas.engine"} & imported
    values = openpyxl.load_workbook(out).active
    assert values["C1"].value == 301 and values["C2"].value == 2
    with zipfile.ZipFile(out) as copy:
        media = [name for name in copy.namelist() if name.startswith("xl/media/")]
        assert len(media) == 1 and copy.read(media[0]) == picture.read_bytes()
    assert len(values._images) == 1 and values._images[0].anchor._from.col == 4


def test_a_bridged_function_imports_formulas_without_scipy_or_numpy_random(tmp_path):
    """CEILING and MROUND are `formulas`' (calc/routing.py BRIDGED), from its math module, which
    is imported without numpy.random (calc/xlfuncs/scipy_deferred.py) and its statistical one
    without scipy.stats (the `scipy` package itself is imported: `from scipy import stats`);
    PERCENTILE, from its comp module, runs np.percentile without numpy.ma."""
    book = tmp_path / "bridged.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["B1"], ws["B2"] = 2.5, "=CEILING(A1,1)", "=MROUND(7,3)"
    ws["A2"], ws["A3"], ws["A4"], ws["B3"] = 1, 3, 4, "=PERCENTILE(A1:A4,0.3)"
    wb.save(book)
    out = tmp_path / "bridged.values.xlsx"

    imported = set(_calc(book, out))
    assert {"numpy", "formulas"} <= imported and not {"scipy.stats", "numpy.random", "pydantic", "numpy.ma"} & imported
    values = openpyxl.load_workbook(out).active
    assert values["B1"].value == 3 and values["B2"].value == 6 and abs(values["B3"].value - 2.35) < 1e-12  # 1, 2.5, 3, 4


#: The console script run with the cyclic collector's collections counted from `run` on.
_COLLECTIONS = """
import gc, json, sys
from rates_xl import cli
counted = [0, 0, 0]
gc.callbacks.append(lambda phase, info: phase == "stop" and counted.__setitem__(info["generation"], counted[info["generation"]] + 1))
__import__("atexit").register(lambda: print(json.dumps({"collections": counted, "enabled": gc.isenabled()})))
sys.argv = ["rates-xl", *sys.argv[1:]]
cli.run()
"""


def test_calc_runs_no_cyclic_collection_while_it_imports(tmp_path):
    """The objects of the modules calc imports live to the end: the console script holds the
    collector off from its start for a command that ends the process at once (cli.LEAVE_AT_ONCE),
    not only from the first book on (calc/collector.py). Another command collects as ever."""
    book = tmp_path / "plain.xlsx"
    wb = openpyxl.Workbook()
    wb.active["A1"], wb.active["B1"] = 2, "=A1*3"
    wb.save(book)
    env = {name: value for name, value in os.environ.items() if not name.startswith("RATES_")}
    got = {}
    for command in (["calc", str(book), "--full", "--no-progress", "-o", str(tmp_path / "out.xlsx")], ["--help"]):
        done = subprocess.run([sys.executable, "-c", _COLLECTIONS, *command], capture_output=True, text=True,
                              timeout=300, env=env, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        got[command[0]] = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["calc"] == {"collections": [0, 0, 0], "enabled": False}
    assert got["--help"]["enabled"] is True and sum(got["--help"]["collections"]) > 0
    assert openpyxl.load_workbook(tmp_path / "out.xlsx").active["B1"].value == 6


def test_the_help_imports_neither_numpy_nor_pillow(tmp_path):
    """`rates-xl --help` imports every command's module (calc/diff.py's openpyxl among them)."""
    imported = _imported("--help", cwd=tmp_path)
    assert "numpy" not in imported and "PIL._imaging" not in imported


#: A book whose cells are given built-in styles by name, saved: with openpyxl imported as the
#: console script imports it (`lazy`), or the ordinary way. Prints the cells' style names,
#: whether the built-in styles' module was imported before the first was named, and a hash
#: through hashlib imported after openpyxl and through openpyxl's own name for it.
_NAMED_STYLES = """
import hashlib, json, sys, zipfile
if sys.argv[1] == "lazy":
    from rates_xl import lazy_imports
    lazy_imports.openpyxl_without_numpy()
import openpyxl
before = "openpyxl.styles.builtins" in sys.modules
book = openpyxl.Workbook()
sheet = book.active
for row, name in enumerate(["Good", "Bad", "Currency", "Headline 1", "Normal", "Pandas"], start=1):
    sheet.cell(row=row, column=1, value=row).style = name
book.save(sys.argv[2])
with zipfile.ZipFile(sys.argv[2]) as saved:
    parts = {n: hashlib.sha256(saved.read(n)).hexdigest() for n in saved.namelist() if n != "docProps/core.xml"}
from openpyxl.chartsheet import protection  # (imports hashlib, never reads it)
import hashlib
hashed = [hashlib.sha256(b"rates").hexdigest(), protection.hashlib.sha256(b"rates").hexdigest(),
          type(sys.modules["hashlib"]).__name__]
print(json.dumps({"before": before, "styles": [c.style for c in sheet["A"]], "parts": parts, "hashed": hashed}))
"""


def test_a_built_in_style_named_gives_the_same_book_as_openpyxl_imported_the_ordinary_way(tmp_path):
    got = {}
    for how in ("lazy", "ordinary"):
        done = subprocess.run([sys.executable, "-c", _NAMED_STYLES, how, str(tmp_path / f"{how}.xlsx")],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        got[how] = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["lazy"]["before"] is False and got["ordinary"]["before"] is True
    assert got["lazy"]["styles"] == got["ordinary"]["styles"] == ["Good", "Bad", "Currency", "Headline 1", "Normal", "Pandas"]
    assert got["lazy"]["parts"] == got["ordinary"]["parts"]
    assert got["lazy"]["hashed"] == got["ordinary"]["hashed"]  # hashlib, and openpyxl's name for it, as ever


def _readers_of_builtin_styles(package: Path) -> dict[str, list[str]]:
    """Each module of openpyxl importing from styles/builtins.py -> what it does with what it
    imports: the names imported, then each read of them as `in X`, `X[...]` or a bare read."""
    found: dict[str, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                 and (node.module or "").split(".")[-1] == "builtins" and (node.level or "openpyxl" in (node.module or ""))
                 for alias in node.names]
        if not names:
            continue
        uses = [f"import {n}" for n in names]
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare) and any(isinstance(c, ast.Name) and c.id in names for c in node.comparators):
                uses.append("in")
            elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in names:
                uses.append("[]")
        reads = sum(isinstance(node, ast.Name) and node.id in names for node in ast.walk(tree))
        found[path.relative_to(package).as_posix()] = uses + [f"{reads} reads"]
    return found


def test_openpyxl_reads_its_built_in_styles_as_the_stand_in_expects():
    """What the stand-in `styles` (`_BuiltinStyles`) relies on, in the installed openpyxl: two modules import
    `styles` from styles/builtins.py and read it only with `in` and `[]`
    (both `_BuiltinStyles` answers from the real dict). Fails on another release: read it again,
    then move BUILTINS_READ_FROM."""
    spec = importlib.util.find_spec("openpyxl")
    assert spec is not None and spec.submodule_search_locations
    if openpyxl.__version__ != lazy_imports.BUILTINS_READ_FROM:
        pytest.fail(f"openpyxl {openpyxl.__version__}: read its readers of styles/builtins.py, then set "
                    f"BUILTINS_READ_FROM (now {lazy_imports.BUILTINS_READ_FROM})")
    assert _readers_of_builtin_styles(Path(spec.submodule_search_locations[0])) == {
        "styles/styleable.py": ["import styles", "in", "[]", "2 reads"],
        "styles/stylesheet.py": ["import styles", "[]", "1 reads"],
    }


def test_the_readers_check_sees_an_import_and_its_reads(tmp_path):
    (tmp_path / "a.py").write_text("from .builtins import styles\nX = 'a' in styles and styles['a']\n")
    (tmp_path / "b.py").write_text("from openpyxl.styles.builtins import normal\nY = normal\n")
    (tmp_path / "c.py").write_text("import builtins\n")
    assert _readers_of_builtin_styles(tmp_path) == {"a.py": ["import styles", "in", "[]", "2 reads"],
                                                    "b.py": ["import normal", "1 reads"]}


def _readers_of_hashlib(package: Path) -> dict[str, int]:
    """Each module of openpyxl importing hashlib -> how many times it reads the name."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imports = [alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                   for alias in node.names if alias.name == "hashlib"]
        imports += ["from"] * sum(isinstance(node, ast.ImportFrom) and node.module == "hashlib" for node in ast.walk(tree))
        if imports:
            found[path.relative_to(package).as_posix()] = sum(
                isinstance(node, ast.Name) and node.id in imports for node in ast.walk(tree)) + imports.count("from")
    return found


def test_openpyxl_imports_hashlib_without_reading_it():
    """What deferring hashlib relies on to pay, in the installed openpyxl (the release read):
    one module imports it and none reads it. (A reader would only run it: LazyLoader's module.)"""
    spec = importlib.util.find_spec("openpyxl")
    assert spec is not None and spec.submodule_search_locations
    if openpyxl.__version__ != lazy_imports.BUILTINS_READ_FROM:
        pytest.fail(f"openpyxl {openpyxl.__version__}: read its importers of hashlib, then set BUILTINS_READ_FROM")
    assert _readers_of_hashlib(Path(spec.submodule_search_locations[0])) == {"chartsheet/protection.py": 0}


def test_the_hashlib_check_counts_reads_and_from_imports(tmp_path):
    (tmp_path / "a.py").write_text("import hashlib\n")
    (tmp_path / "b.py").write_text("import hashlib\nX = hashlib.sha256\n")
    (tmp_path / "c.py").write_text("from hashlib import sha512\n")
    assert _readers_of_hashlib(tmp_path) == {"a.py": 0, "b.py": 1, "c.py": 1}
