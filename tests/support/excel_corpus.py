"""Fidelity on Excel's own answers: every book of `../shared/corpus/excel/` and
`../shared/corpus/models/` (made and last calculated by Excel) computed with `rates-xl calc` in full mode, its values-frozen copy
compared cell by cell with the values Excel cached in the original.

    python -m bench excel_corpus                      the default engine
    python -m bench.excel_corpus --engine formulas    another engine (slow: ~1 min, ~1 GB)
    python -m bench.excel_corpus --wrong 30           also list 30 silently wrong cells

A formula cell (every cell of an array formula's range) is *equal* when the copy holds
Excel's value (numbers within 1e-9 relative, text and booleans exactly, errors by code),
*flagged* when the summary lists it as not computed or stale (its cached value kept, with
the reason), and *silently wrong* otherwise. Volatile cells (NOW, RAND ...) are counted
apart: no recalculation reproduces them. Each book runs in a fresh process, so time
(load + compute + frozen copy) and peak memory (ru_maxrss) are the book's own.
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]  # the repository


def _corpus() -> Path:
    """`../shared/corpus/excel` beside the repository; a git worktree kept in a folder
    beside the main clone (`wt/NAME`) finds the one beside that folder."""
    for base in (ROOT.parent, ROOT.parent.parent):
        if (base / "shared" / "corpus" / "excel").is_dir():
            return base / "shared" / "corpus" / "excel"
    return ROOT.parent / "shared" / "corpus" / "excel"


CORPUS = _corpus()
#: Real models beside the function grids (a loan tracker, a DCF with data tables, a report on
#: structured references: ../shared/corpus/models/SOURCE.md), measured the same way.
MODELS = CORPUS.parent / "models"


def books() -> list[Path]:
    """Every Excel-made book: the function grids, then the real models."""
    return [book for folder in (CORPUS, MODELS) if folder.is_dir() for book in sorted(folder.glob("*.xlsx"))]


def grids(rows: list[dict]) -> list[dict]:
    """The rows of the function grids (../shared/corpus/excel) alone."""
    names = {book.name for book in sorted(CORPUS.glob("*.xlsx"))} if CORPUS.is_dir() else set()
    return [row for row in rows if row["book"] in names]


def functions_of(formula: str) -> tuple[str, list[str]]:
    """(outermost function, every function) a formula calls, Excel's prefixes dropped."""
    from rates_xl.functions.tokens import FormulaError, function_names, tokenize

    names = sorted(function_names(formula))
    try:
        solid = [t for t in tokenize(formula) if not t.is_space]
    except FormulaError:
        solid = []
    if solid and solid[0].kind == "OpPrefix" and solid[0].text in "+-":
        solid = solid[1:]  # one sign, as Excel writes `=-SUM(...)`
    outer = solid[0].name if solid and solid[0].is_call else (names[0] if names else "(no function)")
    return outer, names or ["(no function)"]


def _read_values(path: Path):
    """A book's cached values as calc reads a book (calc/openpyxl_read.py: one whose styles or
    conditional formats openpyxl refuses is still read), openpyxl's own reading in a tree that
    has no such module (the measure is run on older commits too)."""
    try:
        from rates_xl.calc.openpyxl_read import load_workbook
    except ImportError:
        from openpyxl import load_workbook
    return load_workbook(path, data_only=True)


def measure_book(path: Path, engine_name: str = "auto", *, keep: int = 0) -> dict[str, Any]:
    """Compute `path` as `rates-xl calc` does, freeze the copy and compare it with the
    original's cached values. `keep` silently wrong cells are returned as examples."""
    import tempfile

    from rates_xl.calc.fidelity import VOLATILE, same, stored
    from rates_xl.calc.workbook import calculate_many

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        try:  # full mode: every formula recomputed (the only mode before calc-core's modes)
            batch = calculate_many([path], engine_name=engine_name, full=True)
        except TypeError:
            batch = calculate_many([path], engine_name=engine_name)
        if path in batch.failures:
            return {"book": path.name, "failed": batch.failures[path]}
        result, calc = batch.results[path], batch.calculations[path]
        out = Path(tmp) / path.name
        calc.freeze(result, out)
        seconds = time.perf_counter() - started
        copy = _read_values(out)
    original = _read_values(path)
    texts = calc.formula_texts()
    flagged = {(s.sheet, s.cell) for s in result.skipped}
    flagged |= {(s.sheet, s.cell) for s in getattr(result, "stale", [])}
    # Cells of a circular reference are listed as such (Excel's own value there is whatever
    # its last iteration left: not a fidelity case).
    flagged |= {(a.rpartition("!")[0].strip("'").replace("''", "'"), a.rpartition("!")[2])
                for a in result.loops}
    counts = collections.Counter()
    wrong_outer: collections.Counter[str] = collections.Counter()
    wrong_any: collections.Counter[str] = collections.Counter()
    examples = []
    statuses = {}
    # A cell reading a volatile one (`=EDATE(A2,2)`, A2 `=TODAY()`: apache/poi's 56688_4.xlsx)
    # holds the answer of the day Excel computed it: where it differs from ours it is no more
    # comparable than TODAY() itself, and counted with it, not as wrong (where it is the same it
    # counts as equal). (The engine's own check fixes TODAY() at its cached value: calc/recalc.py.)
    volatile = {key for key, formula in texts.items() if set(functions_of(formula)[1]) & VOLATILE}
    after_volatile: set | None = None  # (found at the first cell that differs: most books have none)
    for (sheet, cell), formula in sorted(texts.items()):
        outer, names = functions_of(formula)
        if (sheet, cell) in volatile:
            counts["volatile"] += 1
            continue
        counts["formulas"] += 1
        if (sheet, cell) in flagged:
            counts["flagged"] += 1
            statuses[f"{sheet}!{cell}"] = ["flagged", outer]
            continue
        ours, theirs = stored(copy[sheet][cell]), stored(original[sheet][cell])
        if same(ours, theirs):
            counts["equal"] += 1
            statuses[f"{sheet}!{cell}"] = ["equal", outer]
            continue
        if after_volatile is None:
            after_volatile = calc.scope.downstream(volatile) if volatile else set()
        if (sheet, cell) in after_volatile:
            counts["volatile"] += 1
            counts["formulas"] -= 1
            continue
        counts["wrong"] += 1
        statuses[f"{sheet}!{cell}"] = ["wrong", outer, repr(ours)[:40], repr(theirs)[:40], formula[:80]]
        wrong_outer[outer] += 1
        for name in set(names):
            wrong_any[name] += 1
        if 0 < keep and len(examples) < keep:
            examples.append([f"{sheet}!{cell}", formula[:120], repr(ours)[:60], repr(theirs)[:60]])
    return {"book": path.name, "engine": result.engine, "seconds": round(seconds, 2),
            "formulas": counts["formulas"], "equal": counts["equal"], "flagged": counts["flagged"],
            "wrong": counts["wrong"], "volatile": counts["volatile"],
            "wrong_outer": dict(wrong_outer), "wrong_any": dict(wrong_any), "examples": examples,
            **({"cells": statuses} if keep < 0 else {})}


def _child(book: str, engine_name: str, keep: int) -> None:
    import resource

    found = measure_book(Path(book), engine_name, keep=keep)
    found["peak_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    print(json.dumps(found))


def run_books(engine_name: str = "auto", keep: int = 0, only: list[str] | None = None,
              timeout: int = 300) -> list[dict]:
    rows = []
    for path in books():
        if only and not any(o in path.name for o in only):
            continue
        try:
            proc = subprocess.run([sys.executable, "-m", "bench.excel_corpus", "--child", str(path),
                               "--engine", engine_name, "--wrong", str(keep)],
                              capture_output=True, text=True, cwd=ROOT, timeout=timeout)
        except subprocess.TimeoutExpired:
            rows.append({"book": path.name, "failed": f"no answer in {timeout} s"})
            continue
        try:
            rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        except (IndexError, json.JSONDecodeError):
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            rows.append({"book": path.name, "failed": tail[:200]})
    return rows


def pooled(rows: list[dict]) -> dict[str, Any]:
    total = collections.Counter()
    outer: collections.Counter[str] = collections.Counter()
    for row in rows:
        if "failed" in row:
            continue
        for key in ("formulas", "equal", "flagged", "wrong", "volatile"):
            total[key] += row[key]
        outer.update(row["wrong_outer"])
    n = total["formulas"] or 1
    return {**total, "equal_share": total["equal"] / n, "wrong_share": total["wrong"] / n,
            "flagged_share": total["flagged"] / n, "wrong_outer": dict(outer)}


def table(rows: list[dict]) -> str:
    lines = ["| book | formula cells | equal | flagged | silently wrong | equal share | time s | peak MB |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        if "failed" in row:
            lines.append(f"| {row['book']} | failed: {row['failed']} | | | | | | |")
            continue
        share = row["equal"] / row["formulas"] if row["formulas"] else 1.0
        lines.append(f"| {row['book']} | {row['formulas']} | {row['equal']} | {row['flagged']} | "
                     f"{row['wrong']} | {share:.4f} | {row['seconds']} | {row['peak_mb']} |")
    p = pooled(rows)
    lines.append(f"| **pooled** | {p['formulas']} | {p['equal']} | {p['flagged']} | {p['wrong']} | "
                 f"**{p['equal_share']:.4f}** (wrong {p['wrong_share']:.4%}) | | |")
    return "\n".join(lines)


def function_table(rows: list[dict], top: int = 40) -> str:
    outer: collections.Counter[str] = collections.Counter()
    anyf: collections.Counter[str] = collections.Counter()
    for row in rows:
        outer.update(row.get("wrong_outer", {}))
        anyf.update(row.get("wrong_any", {}))
    lines = ["| function | wrong cells (outermost) | wrong cells (anywhere in the formula) |",
             "|---|---|---|"]
    for name, _ in (outer + anyf).most_common(top):
        lines.append(f"| {name} | {outer.get(name, 0)} | {anyf.get(name, 0)} |")
    return "\n".join(lines)


def run(runs: int = 1) -> dict:
    """`python -m bench excel_corpus`: one run (fidelity does not vary; time is indicative)."""
    rows = run_books()
    return {"name": "excel_corpus", "rows": rows, "pooled": pooled(rows),
            "skipped": None if books() else f"{CORPUS} is absent"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default="auto")
    parser.add_argument("--wrong", type=int, default=0, help="list this many silently wrong cells per book (-1: every cell's status in --json)")
    parser.add_argument("--only", nargs="*", help="books whose name contains one of these")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--json", help="also write the rows here")
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child, args.engine, args.wrong)
        return 0
    if not books():
        print(f"skipped: {CORPUS} is absent")
        return 0
    rows = run_books(args.engine, args.wrong, args.only)
    print(table(rows))
    print()
    print(function_table(rows))
    for row in rows:
        for example in row.get("examples", []):
            print(row["book"], *example, sep=" | ")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
