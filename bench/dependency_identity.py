"""Whether two trees decide alike what the formulas read and what a calculation recomputes and
checks: for every book of ../shared/corpus/excel, ../shared/corpus/models and tests/calc/corpus
(source and reference), each tree's own installation (its .venv) writes down

- `references`: the rectangles each formula cell reads (calc/dependencies.py);
- `graph`: the anchors whose references are not all known, and each anchor's direct dependents;
- `read_by_any`: whether any formula reads each sheet's first formula cell, and every cell;
- `scope`: in default mode and with --full, the anchors recomputed, the inputs, the uncached
  and the changing ones (calc/recalc.py);
- `measure`: the cells the budget counts (calc/budget.py), and the largest read;
- `check`: the book loaded for calculation in both modes, every `compare` (the cells checked,
  unchecked and found wrong, with the reason) and every `roots` (the wrong cells held) it made,
  and the cells kept stale;

and the two are compared section by section.

    python -m bench.dependency_identity --base /work/wt/base [BOOK ...]

A change meant to make these readers cheaper without changing what they decide shows here as
any section that differs; the script exits 1 then.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
SECTIONS = ("references", "graph", "read_by_any", "scope", "measure", "check")


def books() -> list[Path]:
    corpus = ROOT / "tests" / "calc" / "corpus"
    found = [p for folder in ("excel", "models") for p in sorted((CORPUS / folder).glob("*.xls[xm]"))]
    return found + sorted(corpus.glob("source/*.xlsx")) + sorted(corpus.glob("reference/*.xlsx"))


def _keys(keys: Any) -> list[list[str]]:
    return sorted([list(key) for key in keys])


def _places(places: Any) -> Any:
    return None if places is None else [[sheet, list(area)] for sheet, area in places]


def dump(path: Path) -> dict[str, Any]:
    """What this tree decides of the book at `path` (run by each tree's own Python)."""
    from rates_xl.calc import recalc
    from rates_xl.calc.book import Book
    from rates_xl.calc.budget import measure
    from rates_xl.calc.dependencies import Graph, read_by_any, references
    from rates_xl.calc.workbook import WorkbookCalculation

    out: dict[str, Any] = {}
    book = Book(path)
    out["references"] = {f"{s}!{a}": _places(references(formula, s, book))
                         for (s, a), (formula, _area) in book.cells.items()}
    graph = Graph(book)
    out["graph"] = {"unknown": _keys(graph.unknown),
                    "dependents": {f"{s}!{a}": _keys(graph.dependents_of((s, a))) for s, a in book.cells}}
    firsts: dict[str, tuple[str, str]] = {}
    for key in book.cells:
        firsts.setdefault(key[0], key)
    out["read_by_any"] = {"first of each sheet": [read_by_any(Book(path), {k}, {}) for k in firsts.values()],
                          "all": read_by_any(Book(path), set(book.cells), {}) if book.cells else None}
    scopes = {}
    for full in (False, True):
        found = recalc.scope(Book(path), full)
        scopes[str(full)] = {"recompute": _keys(found.recompute), "inputs": _keys(found.inputs),
                             "uncached": _keys(found.uncached), "changing": _keys(found.changing())}
    out["scope"] = scopes
    reads = measure(Book(path))
    out["measure"] = [reads.total, reads.largest, reads.where and list(reads.where), reads.formula,
                      reads.place and [reads.place[0], list(reads.place[1])]]
    calls: list[Any] = []
    compare, roots = recalc.compare, recalc.roots

    def recorded_compare(*args: Any) -> Any:
        outcome = compare(*args)
        calls.append(["compare", outcome.checked, outcome.unchecked, sorted([list(k), why] for k, why in outcome.wrong.items())])
        return outcome

    def recorded_roots(*args: Any) -> Any:
        found = roots(*args)
        calls.append(["roots", _keys(found)])
        return found

    recalc.compare, recalc.roots = recorded_compare, recorded_roots  # type: ignore[assignment]
    try:
        checks = {}
        for full in (False, True):
            calls.clear()
            try:
                loaded = WorkbookCalculation(path, full=full)
                checks[str(full)] = [list(calls), sorted([list(k), why] for k, why in loaded.stale.items())]
            except Exception as exc:  # noqa: BLE001 - the same refusal in both trees is the same decision
                checks[str(full)] = [list(calls), f"{type(exc).__name__}: {exc}"]
    finally:
        recalc.compare, recalc.roots = compare, roots  # type: ignore[assignment]
    out["check"] = checks
    return out


def _run(tree: Path, book: Path, target: Path) -> dict[str, Any]:
    python = tree / ".venv" / "bin" / "python"
    script = "import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')"
    done = subprocess.run([str(python), "-c", script, str(Path(__file__).resolve()), "--dump", str(book), str(target)],
                          cwd=tree, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        return {"failed": done.stderr[-2000:]}
    loaded: dict[str, Any] = json.loads(target.read_text())
    return loaded


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:12]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, help="the other tree (with its own .venv)")
    parser.add_argument("--dump", nargs=2, type=Path, metavar=("BOOK", "OUT"), help=argparse.SUPPRESS)
    parser.add_argument("books", nargs="*", type=Path)
    args = parser.parse_args(argv)
    if args.dump:
        book, target = args.dump
        target.write_text(json.dumps(dump(book)))
        return 0
    if args.base is None:
        parser.error("--base is required")
    base = args.base.resolve()
    differ = same = 0
    with tempfile.TemporaryDirectory() as scratch:
        for book in [b.resolve() for b in args.books] or books():
            theirs = _run(base, book, Path(scratch) / "base.json")
            ours = _run(ROOT, book, Path(scratch) / "ours.json")
            label = f"{book.parent.name}/{book.name}"
            if "failed" in theirs or "failed" in ours:
                print(f"{label}: failed\n{theirs.get('failed', '')}{ours.get('failed', '')}")
                differ += 1
                continue
            bad = [section for section in SECTIONS if theirs[section] != ours[section]]
            anchors = len(ours["references"])
            compares = sum(1 for full in ours["check"].values() for call in full[0] if call[0] == "compare")
            rooted = sum(1 for full in ours["check"].values() for call in full[0] if call[0] == "roots")
            print(f"{label}: {'DIFFERS in ' + ', '.join(bad) if bad else 'same'} ({anchors} anchors, "
                  f"{compares} compares, {rooted} roots; {_digest(ours)})", flush=True)
            differ, same = differ + bool(bad), same + (not bad)
    print(f"{same} books the same, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
