"""Build the pricing templates (`rates-xl templates build`).

A template is Python (one module per workbook, laid out with `layout.py`). Building it
takes three passes against a service (the sandbox by default), because an .xlsx file
must store what only a calculation knows:

1. write it with generous spill ranges and compute it: the real row count of every
   RATES_* spill (a stored spill range must match the answer's shape);
2. write it with those shapes and compute it: the value of every formula cell;
3. write it with those shapes and those values cached in the cells, so the file opens
   showing numbers before Excel recalculates; then compute the final file once more and
   refuse it if any cell is an error.

The drafts of passes 1 and 2 hold placeholders ("") in their formula cells, not answers, and
say so (`fullCalcOnLoad`, `layout.Book.draft`): the headless calculator then recomputes every
cell and trusts none. Without it, it took the placeholders for Excel's values, kept them
where nothing upstream changed (the swap pricer's "Discount curve used", an IF over a VLOOKUP
of the inputs, stayed "") and the fixed leg asked for a curve with no index (issue 31).

The built file goes to the folder given, by default the current one: never over a shipped
template unless that folder is named (`--out templates`), and never over any file without
`force`.
"""

from __future__ import annotations

import importlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rates_xl.calc.results import CalcResult
from rates_xl.calc.workbook import WorkbookCalculation
from rates_xl.errors import TaskError
from rates_xl.templates import TEMPLATES, template_path
from rates_xl.templates.layout import Book


class TemplateBuildError(TaskError):
    """A template that cannot be built; the message says why."""


@dataclass
class Built:
    name: str
    path: Path
    result: CalcResult


def template_module(name: str) -> Any:
    if name not in TEMPLATES:
        raise TemplateBuildError(f"unknown template {name!r}; known: {', '.join(TEMPLATES)}")
    return importlib.import_module(f"rates_xl.templates.{name}")


def write(name: str, path: str | os.PathLike[str], shapes: dict[str, int] | None = None,
          cached: dict[tuple[str, str], Any] | None = None) -> Book:
    book = Book(str(path), shapes=dict(shapes or {}), cached=dict(cached or {}), draft=cached is None)
    template_module(name).build(book)
    book.wb.set_properties({"title": template_module(name).TITLE, "subject": "rates-xl template",
                            "comments": "Built by rates-xl templates build; formulas use the RATES_* add-in functions."})
    book.close()
    return book


def measure(book: Book, result: CalcResult) -> dict[str, int]:
    """The row count of each spill's answer (header included)."""
    from rates_xl.functions.sheet import column_letters, parse_cell

    shapes = {}
    for spill in book.spills:
        row, number = parse_cell(spill.anchor)
        col = column_letters(number)
        value = result.values.get((spill.sheet, spill.anchor))
        if value is None or (isinstance(value, str) and value.startswith("#")):
            raise TemplateBuildError(f"{spill.sheet}!{spill.anchor} ({spill.key}) computed {value!r}: its spill has "
                             "no rows to measure")
        rows = 1
        while result.values.get((spill.sheet, f"{col}{row + rows}")) is not None:
            rows += 1
        shapes[spill.key] = rows
    return shapes


def compute(path: Path, client: Any) -> CalcResult:
    return WorkbookCalculation(path).compute(client)


def target(name: str, out_dir: str | os.PathLike[str] | None = None, *, force: bool = False) -> Path:
    """Where `build` writes a template: `out_dir` (default: the current folder)/NAME.xlsx;
    TemplateBuildError when a file is there and `force` is not given."""
    template_module(name)
    path = Path(out_dir if out_dir is not None else ".") / f"{name}.xlsx"
    shipped = path.exists() and path.resolve() == template_path(name).resolve()
    if shipped and out_dir is None:  # run in the templates folder: never by default, even forced
        raise TemplateBuildError(f"{path} is the shipped template: to replace it, name its folder (--out "
                         f"{path.parent.resolve()} --force); or build elsewhere with --out DIR")
    if path.exists() and not force:
        raise TemplateBuildError(f"{path} exists{' (the shipped template)' if shipped else ''}; pass --force to "
                         "replace it, or --out DIR to build elsewhere")
    return path


def build(name: str, out_dir: str | os.PathLike[str] | None = None, *, client: Any = None,
          force: bool = False) -> Built:
    """Build one template into `out_dir` (default: the current folder)."""
    if client is None:
        from rates_xl.functions import get_client

        client = get_client()
    target_path = target(name, out_dir, force=force)
    target_path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rates-xl-build-") as tmp:
        draft = Path(tmp) / f"{name}.xlsx"
        book = write(name, draft)
        shapes = measure(book, compute(draft, client))
        book = write(name, draft, shapes)
        cached = compute(draft, client)
        staged = Path(tmp) / f"{name}.final.xlsx"
        write(name, staged, shapes, cached.values)
        final = compute(staged, client)
        if final.errors or final.unknown_functions:
            listed = ", ".join(f"{e.address}={e.value}" for e in final.errors[:8])
            raise TemplateBuildError(f"{name}: {len(final.errors)} error cells ({listed}); "
                             f"unknown functions: {final.unknown_functions or 'none'}")
        from rates_xl import atomic

        with atomic.replacing(target_path) as tmp_target:
            shutil.copyfile(staged, tmp_target)
    return Built(name, target_path, final)
