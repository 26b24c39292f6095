"""Whether two trees' formula tokenizers (functions/tokens.py) read every formula alike: each
distinct formula of every book of ../shared/corpus/excel, ../shared/corpus/models, templates/
and tests/ (the text stored in each sheet, each cell's formula as openpyxl gives it, a shared
formula's copies translated, and each defined name's) tokenized by both, every field of every
token compared, and the functions each calls; then both timed over them, alternated.

    python -m bench.tokens_identity --base /work/wt/base [--runs 3]

A change meant to make `tokenize` faster without changing what it reads shows here as any
formula read differently; the script exits 1 then.
"""

from __future__ import annotations

import argparse
import html
import importlib.util
import re
import sys
import time
import warnings
import zipfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
_STORED = re.compile(rb"<(?:\w+:)?f\b[^>]*?(?:/>|>(.*?)</(?:\w+:)?f>)", re.S)
#: What no book holds but a tokenizer must read alike: dead references (their sheet is left out
#: of the tokens), text beyond ASCII (offsets in characters), formulas it refuses.
HOSTILE = ("='Model'!#REF!+1", "=SUM('Feuille ß'!#REF!,'x'!#REF!)", "=\"ß€\"&'Käse €'!A1", "=-'€'!A1%",
           "=SUM(", "=\"unterminated", "=((", "=)", "", "=", "A1+1", "=  A1 ", "=A1 :B2", "=A1#", "=@Tbl[Col]")


def books() -> list[Path]:
    folders = [CORPUS / "excel", CORPUS / "models", ROOT / "templates", ROOT / "tests"]
    return sorted(book for folder in folders for pattern in ("*.xlsx", "*.xlsm") for book in folder.rglob(pattern))


def formulas(book: Path) -> set[str]:
    import openpyxl

    found = set()
    with zipfile.ZipFile(book) as archive:
        for part in archive.namelist():
            if part.startswith("xl/worksheets/") and part.endswith(".xml"):
                found.update("=" + html.unescape(m.group(1).decode()) for m in _STORED.finditer(archive.read(part))
                             if m.group(1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        workbook = openpyxl.load_workbook(book)
    for sheet in workbook.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                text = getattr(cell.value, "text", cell.value)  # an array formula's text
                if isinstance(text, str) and (text.startswith("=") or text is not cell.value):
                    found.add(text if text.startswith("=") else "=" + text)
        found.update("=" + name.attr_text for name in sheet.defined_names.values() if name.attr_text)
    found.update("=" + name.attr_text for name in workbook.defined_names.values() if name.attr_text)
    return found


def _tokens_of(tree: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"tokens_{abs(hash(tree))}", tree / "functions" / "tokens.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _read(module: ModuleType, formula: str) -> object:
    try:
        return [(type(t).__name__, tuple(t), tuple(map(type, t))) for t in module.tokenize.__wrapped__(formula)]
    except module.FormulaError as exc:
        return ("refused", str(exc))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="the other tree")
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each (default 3)")
    args = parser.parse_args(argv)
    every = sorted(set().union(*(formulas(book) for book in books()), HOSTILE))
    base, ours = _tokens_of(args.base.resolve()), _tokens_of(ROOT)
    differ = [f for f in every if _read(base, f) != _read(ours, f) or base._calls.__wrapped__(f) != ours._calls.__wrapped__(f)]
    tokens = sum(len(r) for f in every if isinstance(r := _read(ours, f), list))
    print(f"{len(books())} books, {len(every)} distinct formulas, {tokens} tokens: {len(every) - len(differ)} read alike")
    for formula in differ[:20]:
        print(f"  differs: {formula!r}")
    for run in range(args.runs):
        times = []
        for module in (base, ours):
            started = time.process_time()
            for formula in every:
                try:
                    module.tokenize.__wrapped__(formula)
                except module.FormulaError:
                    pass
            times.append(time.process_time() - started)
        print(f"run {run + 1}: tokenize CPU s, base {times[0]:.3f}, this tree {times[1]:.3f}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
