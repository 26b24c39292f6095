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
"""

from __future__ import annotations

import importlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rates_xl.calc.workbook import CalcResult, WorkbookCalculation
from rates_xl.templates import TEMPLATES, template_path
from rates_xl.templates.layout import Book


class BuildError(Exception):
    pass


@dataclass
class Built:
    name: str
    path: Path
    result: CalcResult


def template_module(name: str) -> Any:
    if name not in TEMPLATES:
        raise BuildError(f"unknown template {name!r}; known: {', '.join(TEMPLATES)}")
    return importlib.import_module(f"rates_xl.templates.{name}")


def write(name: str, path: str | os.PathLike[str], shapes: dict[str, int] | None = None,
          cached: dict[tuple[str, str], Any] | None = None) -> Book:
    book = Book(str(path), shapes=dict(shapes or {}), cached=dict(cached or {}))
    template_module(name).build(book)
    book.wb.set_properties({"title": template_module(name).TITLE, "subject": "rates-xl template",
                            "comments": "Built by rates-xl templates build; formulas use the RATES_* add-in functions."})
    book.close()
    return book


def measure(book: Book, result: CalcResult) -> dict[str, int]:
    """The row count of each spill's answer (header included)."""
    from openpyxl.utils.cell import coordinate_from_string

    shapes = {}
    for spill in book.spills:
        col, row = coordinate_from_string(spill.anchor)
        value = result.values.get((spill.sheet, spill.anchor))
        if value is None or (isinstance(value, str) and value.startswith("#")):
            raise BuildError(f"{spill.sheet}!{spill.anchor} ({spill.key}) computed {value!r}; "
                             "is the service reachable and the key set?")
        rows = 1
        while result.values.get((spill.sheet, f"{col}{row + rows}")) is not None:
            rows += 1
        shapes[spill.key] = rows
    return shapes


def compute(path: Path, client: Any) -> CalcResult:
    return WorkbookCalculation(path).compute(client)


def build(name: str, out_dir: str | os.PathLike[str] | None = None, *, client: Any = None) -> Built:
    """Build one template into `out_dir` (default: the package's templates folder)."""
    if client is None:
        from rates_xl.functions import get_client

        client = get_client()
    out = Path(out_dir) if out_dir is not None else template_path(name).parent
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{name}.xlsx"
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
            raise BuildError(f"{name}: {len(final.errors)} error cells ({listed}); "
                             f"unknown functions: {final.unknown_functions or 'none'}")
        shutil.move(staged, target)
    return Built(name, target, final)


def build_all(out_dir: str | os.PathLike[str] | None = None, *, client: Any = None,
              names: list[str] | None = None) -> list[Built]:
    return [build(name, out_dir, client=client) for name in (names or list(TEMPLATES))]
