"""The bridged conversions between bases (BIN2DEC, DEC2HEX ...) without `formulas`' dispatcher
per call (calc/xlfuncs/engineering/bases.py): the same answers as `formulas`' own functions on
every kind of value, and Excel's on the corpus cells (its cached values, read at test time)."""

from __future__ import annotations

import functools
import re

import pytest

from rates_xl.calc.xlfuncs.engineering import bases
from tests.calc.excel_cases import assert_cell_as_excel, corpus_book, equal

BOOK = "formulas_test.xlsx"
_CALL = re.compile(r"^=(?P<name>\w+2\w+)\((?P<args>.*)\)$")


def _formulas() -> object:
    import formulas

    if formulas.__version__ != bases.READ_FROM:
        pytest.skip(f"formulas {formulas.__version__}: bases.py follows {bases.READ_FROM} (another keeps its dispatcher)")
    return formulas


def _grid() -> tuple[list[object], list[object]]:
    """Every kind of value a conversion may be given, and every kind of `places`."""
    import numpy as np
    import schedula as sh
    from formulas.functions import Error

    values = ["0", "1", "101", "1111111111", "11111111111", "7777777777", "FFFFFFFFFF", "fff", "  101",
              "+101", "-101", "1_0", "", "abc", "12.5", "9", 0, 1, 5, -1, -5, 511, 512, -512, -513, 1.0, 1.5,
              -1.0, 100.0, 1e10, 1e300, float("inf"), float("nan"), True, False, sh.EMPTY,
              Error.errors["#N/A"], Error.errors["#VALUE!"], np.array([["101"]], object),
              np.array([["1", "10"]], object), np.array([[sh.EMPTY]], object)]
    places = [None, sh.EMPTY, 0, 1, 3, 8, 10, 11, -1, 2.5, "4", "x", True, Error.errors["#DIV/0!"],
              np.array([[4]], object)]
    return values, places


def _outcome(function: object, x: object, places: object) -> tuple[str, str, str]:
    import numpy as np

    try:
        answer = function(x) if places is None else function(x, places)  # type: ignore[operator]
    except Exception as exc:  # noqa: BLE001 - compared: both must fail alike
        return ("raised", type(exc).__name__, str(exc))
    shown = repr(answer.tolist()) if isinstance(answer, np.ndarray) else repr(answer)
    return ("answered", type(answer).__name__, shown)


@pytest.mark.parametrize("name", sorted(bases.NAMES))
def test_the_same_answers_as_formulas_own_dispatcher(name):
    _formulas()
    from formulas.functions.eng import FUNCTIONS

    ours, theirs = bases.implementation(name), FUNCTIONS[name]
    assert ours is not None and ours is not theirs
    values, places = _grid()
    differ = [(x, p, _outcome(ours, x, p), _outcome(theirs, x, p)) for x in values for p in places
              if _outcome(ours, x, p) != _outcome(theirs, x, p)]
    assert differ == [], differ[:5]


def test_another_name_or_formulas_release_keeps_the_dispatcher(monkeypatch):
    formulas = _formulas()
    assert bases.implementation("CONVERT") is None
    monkeypatch.setattr(formulas, "__version__", "9.9.9")
    assert bases.implementation("BIN2DEC") is None


@functools.cache
def _sheet(data_only: bool) -> object:
    """The corpus book's ENGINEERING sheet, its formulas or Excel's values (read once: 4 s a load)."""
    import openpyxl

    return openpyxl.load_workbook(corpus_book(BOOK), data_only=data_only)["ENGINEERING"]


def _corpus_calls() -> dict[str, list[tuple[str, str, list[str]]]]:
    """Each conversion's cells in the corpus book: (cell, formula, its arguments' texts)."""
    sheet = _sheet(False)
    found: dict[str, list[tuple[str, str, list[str]]]] = {}
    for row in sheet.iter_rows():  # type: ignore[attr-defined]
        for cell in row:
            match = _CALL.match(cell.value) if isinstance(cell.value, str) else None
            if match and match["name"] in bases.NAMES:
                found.setdefault(match["name"], []).append((cell.coordinate, cell.value, match["args"].split(",")))
    return found


@pytest.mark.parametrize("name", sorted(bases.NAMES))
def test_the_corpus_cells_as_excel(name):
    """Each of the conversion's cells of formulas_test.xlsx (15 each: numbers, text, a logical,
    an empty cell, every error), computed by the callback the engine calls with its arguments
    as the engine hands them over, is Excel's cached value."""
    from rates_xl.calc.engines.formualizer.values import error, plain
    from rates_xl.calc.xlfuncs import bridge

    _formulas()
    formulas_sheet, values = _sheet(False), _sheet(True)

    def argument(text: str) -> object:
        if not re.fullmatch(r"[A-Z]+\d+", text):
            return float(text)
        cell, stored = values[text], formulas_sheet[text].value
        if cell.data_type == "e" or (isinstance(stored, str) and stored.startswith("=#")):
            return error(cell.value)
        return cell.value

    calls = _corpus_calls().get(name, [])
    assert len(calls) == 15
    callback = bridge.bridged(name)
    differ = [(address, formula, plain(callback(*[argument(a) for a in args])), values[address].value)
              for address, formula, args in calls]
    differ = [d for d in differ if not equal(d[2], d[3])]
    assert differ == []


#: (case, cell): through the whole engine, a small book made from the corpus cell.
THROUGH_THE_ENGINE = [
    ("BIN2HEX of a number read as binary digits", "ENGINEERING!S8"),
    ("DEC2BIN of an empty cell, padded to 3 places", "ENGINEERING!W17"),
    ("DEC2HEX of a negative number: two's complement", "ENGINEERING!U18"),
]


@pytest.mark.parametrize(("case", "address"), THROUGH_THE_ENGINE, ids=[c[1] for c in THROUGH_THE_ENGINE])
def test_through_the_engine(case, address, tmp_path):
    _formulas()
    assert_cell_as_excel(case, BOOK, address, tmp_path, strict=True)
