"""Whether two trees of this repository write the same values-frozen copies: each book computed
with `rates-xl calc` by each tree's own installation (its .venv), in default mode and with
--full, and the two copies compared part by part, byte for byte (docProps/core.xml without its
created/modified timestamps, the only part that differs from one run to the next).

    python -m bench.frozen_identity --base /work/wt/base [--out DIR] [--templates] [--engine E] [BOOK ...]

Without BOOK: every book of ../shared/corpus/excel and ../shared/corpus/models, the books of
tests/calc/corpus (source and reference), tests/calc/corpus/build.py's `features` book (.xlsx, and .xlsm with a
VBA project when xlwings' quickstart.xlsm is installed), and each template of templates/
replayed from a market-data pack (`--replay`, with and without `--scenario`): the pack is
recorded once, by the base tree against its sandbox at a fixed valuation time, so both trees
compute from the same answers. A change meant to leave the copies alone (calc reading a book
once instead of twice) shows here as any part that differs; the script exits 1 then.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
#: What changes from one run to the next: the copy's document properties' timestamps; in the
#: market-data pack a copy carries (customXml/, client/pack_workbook.py), the time the pack was
#: written, its seal (a digest over that time too) and the part's random item id. The pack's
#: answers and their digest ("values") are compared.
_STAMPS = re.compile(rb"<dcterms:(created|modified)[^>]*>[^<]*</dcterms:\1>")
_PACK_STAMPS = re.compile(rb'"created":"[^"]*"|"seal":\{[^}]*\}|ds:itemID="\{[^}]*\}"')
VALUATION_TIME = "2026-01-02T16:00:00Z"


def _python(tree: Path) -> str:
    return str(tree / ".venv" / "bin" / "python")


def _calc(tree: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    # The console script's own way in (rates_xl.cli's `run`: what it imports lazily included).
    command = [_python(tree), "-m", "rates_xl.cli", "calc", *args, "--force", "--no-progress"]
    return subprocess.run(command, capture_output=True, text=True, cwd=tree, timeout=1800)


def parts(path: Path) -> dict[str, bytes]:
    """Every part of a copy, core.xml without its timestamps."""
    with zipfile.ZipFile(path) as package:
        found = {name: package.read(name) for name in package.namelist()}
    if "docProps/core.xml" in found:
        found["docProps/core.xml"] = _STAMPS.sub(b"", found["docProps/core.xml"])
    for name in found:
        if name.startswith("customXml/"):
            found[name] = _PACK_STAMPS.sub(b"", found[name])
    return found


def differences(a: Path, b: Path) -> list[str]:
    """The parts in which two copies differ (empty: the same)."""
    left, right = parts(a), parts(b)
    found = [f"only in one: {name}" for name in sorted(left.keys() ^ right.keys())]
    found += [name for name in sorted(left.keys() & right.keys()) if left[name] != right[name]]
    if list(left) != list(right) and not found:
        found.append("the parts' order")
    return found


def _extra_books(base: Path, folder: Path) -> list[Path]:
    """The test corpus's books and the features book, made by the base tree's builder."""
    corpus = ROOT / "tests" / "calc" / "corpus"
    books = sorted(corpus.glob("source/*.xlsx")) + sorted(corpus.glob("reference/*.xlsx"))  # (reference: pivots)
    script = (
        "import sys, zipfile, pathlib\n"
        "from tests.calc.corpus import build\n"
        "out = pathlib.Path(sys.argv[1])\n"
        "build.features(out / 'features.xlsx')\n"
        "try:\n"
        "    import xlwings\n"
        "    source = pathlib.Path(xlwings.__file__).parent / 'quickstart.xlsm'\n"
        "    (out / 'vbaProject.bin').write_bytes(zipfile.ZipFile(source).read('xl/vbaProject.bin'))\n"
        "    build.features(out / 'macro.xlsm', vba_project=out / 'vbaProject.bin')\n"
        "except (ImportError, OSError, KeyError):\n"
        "    pass\n")
    subprocess.run([_python(base), "-c", script, str(folder)], check=True, cwd=base)
    return books + sorted(folder.glob("*.xls[xm]"))


def _book_jobs(book: Path) -> list[tuple[str, list[str], str]]:
    """(label, calc arguments, the copy's suffix): the book in default mode and with --full."""
    name = f"{book.parent.name}/{book.name}"
    return [(f"{name} default", [str(book)], book.suffix), (f"{name} --full", [str(book), "--full"], book.suffix)]


def _template_jobs(base: Path, work: Path) -> list[tuple[str, list[str], str]]:
    """Each template replayed from the pack the base tree recorded for it, with and without a
    scenario (the replay and scenario paths write their copies through the same freeze)."""
    jobs = []
    for template in sorted((ROOT / "templates").glob("*.xlsx")):
        pack = work / "packs" / f"{template.stem}.values.xlsx"
        pack.parent.mkdir(parents=True, exist_ok=True)
        seeded = _calc(base, [str(template), "--sandbox", "--valuation-time", VALUATION_TIME, "-o", str(pack)])
        if not pack.exists():
            print(f"{template.name}: no pack recorded (exit {seeded.returncode}): {seeded.stdout[-300:]}")
            continue
        replay = [str(template), "--replay", str(pack)]
        jobs += [(f"{template.name} --replay", replay, ".xlsx"),
                 (f"{template.name} --replay --full", [*replay, "--full"], ".xlsx"),
                 (f"{template.name} --replay --scenario", [*replay, "--scenario", "SOFR+1bp"], ".xlsx")]
    return jobs


def _default_books() -> list[Path]:
    return sorted(p for folder in ("excel", "models") for p in (CORPUS / folder).glob("*.xls[xm]"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="the other tree (with its own .venv)")
    parser.add_argument("--out", type=Path, help="where the copies go (default: a temporary folder)")
    parser.add_argument("--templates", action="store_true", help="with BOOK: the templates' replays too")
    parser.add_argument("--engine", help="passed to every calc (auto, fast, formulas)")
    parser.add_argument("books", nargs="*", type=Path)
    args = parser.parse_args(argv)
    base, ours = args.base.resolve(), ROOT
    with tempfile.TemporaryDirectory() as scratch:
        work = args.out or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        if args.books:
            jobs = [job for book in args.books for job in _book_jobs(book.resolve())]
            jobs += _template_jobs(base, work) if args.templates else []
        else:
            extra = work / "extra"
            extra.mkdir(exist_ok=True)
            books = _default_books() + _extra_books(base, extra)
            jobs = [job for book in books for job in _book_jobs(book)] + _template_jobs(base, work)
        failed = 0
        for i, (label, calc_args, suffix) in enumerate(jobs):
            copies = []
            codes = []
            for name, tree in (("base", base), ("ours", ours)):
                out = work / name / f"{i:03d}{suffix}"
                out.parent.mkdir(parents=True, exist_ok=True)
                out.unlink(missing_ok=True)
                engine = ["--engine", args.engine] if args.engine else []
                codes.append(_calc(tree, [*calc_args, *engine, "-o", str(out)]).returncode)
                copies.append(out)
            if not all(c.exists() for c in copies):
                same = copies[0].exists() == copies[1].exists()
                print(f"{'same' if same else 'DIFFERS'}: {label}: no copy (exit {codes})")
                failed += not same
                continue
            found = differences(*copies)
            if codes[0] != codes[1]:
                found.append(f"exit codes {codes}")
            print(f"{'DIFFERS' if found else 'same'}: {label}{': ' + ', '.join(found) if found else ''}")
            failed += bool(found)
        print(f"{len(jobs) - failed} of {len(jobs)} copies the same")
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
