"""The real models of `../shared/corpus/models/` (Excel-made, never copied into the project) as
the class tests read them: a corpus cell's formula and Excel's cached value, read at test time,
and a skip with the reason where the folder is absent."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.support.excel_corpus import MODELS

#: Marks a test that reads a model of the corpus.
needed = pytest.mark.skipif(not MODELS.is_dir(), reason=f"{MODELS} is absent (Excel-made real models)")


@cache
def _book(name: str, values: bool) -> Any:
    import openpyxl

    return openpyxl.load_workbook(MODELS / name, data_only=values)


def excel(name: str, sheet: str, cell: str) -> Any:
    """The value Excel cached in `cell` of the model `name` (its answer when it saved the book)."""
    return _book(name, True)[sheet][cell].value


def formula(name: str, sheet: str, cell: str) -> Any:
    """What the model holds in `cell` (its formula's text, or its constant)."""
    return _book(name, False)[sheet][cell].value


def path(name: str) -> Path:
    return MODELS / name
