"""The bridged conversions between bases (BIN2DEC, DEC2HEX ...) without `formulas`' dispatcher
per call (calc/xlfuncs/engineering/bases.py): the same answers as `formulas`' own functions on
every kind of value, but for `places` where Excel reads it otherwise (a negative number's ten
digits, an empty cell, a logical value: `EXCEL_PLACES`), and Excel's on the corpus cells (its
cached values, read at test time)."""

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
              if not _excel_places(name, x, p) and not _excel_first(name, x, p)
              and _outcome(ours, x, p) != _outcome(theirs, x, p)]
    assert differ == [], differ[:5]


def _excel_first(name: str, x: object, places: object) -> bool:
    """Whether Excel answers an error before reading the number as `formulas` does (bases.py
    `_excels_first`, `EXCEL_FIRST` below): `places` past 1 to 10, the empty text as a decimal, a
    minus sign in a binary, octal or hexadecimal text."""
    import math

    from formulas.functions import XlError

    source, target = name.split("2")
    if target != "DEC" and isinstance(places, int | float) and not isinstance(places, bool) and \
            not isinstance(x, XlError) and (not math.isfinite(places) or not 1 <= math.trunc(places) <= 10):
        return True
    return source == "DEC" and isinstance(x, str) and x == "" or \
        source != "DEC" and isinstance(x, str) and "-" in x


#: Excel's answers in xlcalculator's Excel-made BASES.xlsx (sheets non-numeric and places).
EXCEL_FIRST = [("DEC2BIN", ("E", 0.0), "#NUM!"), ("DEC2BIN", ("E", 11.0), "#NUM!"), ("DEC2OCT", ("E", 0.0), "#NUM!"),
               ("DEC2OCT", ("E", 11.0), "#NUM!"), ("DEC2BIN", ("",), "#VALUE!"), ("DEC2OCT", ("",), "#VALUE!"),
               ("DEC2HEX", ("",), "#VALUE!"), ("HEX2DEC", ("-A",), "#NUM!"), ("DEC2BIN", ("E", 3.0), "#VALUE!")]


@pytest.mark.parametrize(("name", "args", "expected"), EXCEL_FIRST, ids=[f"{c[0]}{c[1]}" for c in EXCEL_FIRST])
def test_the_errors_excel_answers_first(name, args, expected):
    from rates_xl.calc.engines.formualizer.values import error_text
    from rates_xl.calc.xlfuncs import callbacks

    assert error_text(callbacks()[name](*args)) == expected


def _excel_places(name: str, x: object, places: object) -> bool:
    """Whether `places` is read as Excel reads it where `formulas` does not (bases.py `_places`):
    a logical value, an empty cell, or any `places` of a conversion to a negative number."""
    import schedula as sh
    from formulas.functions.eng import FUNCTIONS

    if places is None or name.endswith("2DEC"):
        return False
    if isinstance(places, bool) or places is sh.EMPTY:
        return True
    source = name.split("2")[0]
    decimal = FUNCTIONS[f"{source}2DEC"](x) if source != "DEC" else FUNCTIONS["DEC2HEX"](x)
    if source == "DEC":  # (negative when DEC2HEX writes it in ten digits from 8 up)
        return isinstance(decimal, str) and len(decimal) == 10 and decimal[0] in "89ABCDEF"
    return isinstance(decimal, int | float) and not isinstance(decimal, bool) and decimal < 0


@pytest.mark.parametrize("name", sorted(n for n in bases.NAMES if not n.endswith("2DEC")))
def test_a_negative_number_ignores_a_valid_places(name):
    """Over the grid: a conversion to a negative number is its ten digits for any `places` from
    1 to 10 (truncated; text reading as one too), #NUM! for one past them, #VALUE! for text
    that is no number or a logical value; an empty cell is 0 places (#NUM!)."""
    import math

    import schedula as sh

    _formulas()
    ours = bases.implementation(name)
    values, places = _grid()
    seen = 0
    for x in values:
        for p in places:
            if p is None or not _excel_places(name, x, p):
                continue
            got = _outcome(ours, x, p)
            got = (got[0], got[1], str.__str__(got[2]))  # (an XlError's repr is itself: equal to no text)
            alone = _outcome(ours, x, None)
            if alone[1] != "str":  # the number's own error comes first
                assert got[2] == str.__str__(alone[2]), (x, p, got)
                continue
            if p is sh.EMPTY:  # (a str: read first)
                assert got[2] == "#NUM!", (x, p, got)
            elif isinstance(p, bool) or (isinstance(p, str) and not re.fullmatch(r"[0-9.]+", p)):
                assert got[2] == "#VALUE!", (x, p, got)
            elif isinstance(p, str | int | float) and 1 <= math.trunc(float(p)) <= 10:
                assert got[2] == alone[2] and len(got[2]) == 12, (x, p, got)  # (repr's quotes)
                seen += 1
            elif isinstance(p, int | float):
                assert got[2] == "#NUM!", (x, p, got)
    assert seen > 0


#: (formula over A and B, A, B, Excel's value, the cell of IronCalc's Excel-made
#: ENGINEERING__NUMBER_SYSTEMS.xlsx, ironcalc/IronCalc xlsx/tests/calc_tests, MIT or Apache-2.0)
EXCEL_PLACES = [
    ("BIN2HEX(A,B)", "1110111011", 4, "FFFFFFFFBB", "Binary!D3"),
    ("BIN2OCT(A,B)", "1110111011", 4, "7777777673", "Binary!F3"),
    ("BIN2HEX(A,B)", 1000000000, 4, "FFFFFFFE00", "Binary!D11"),
    ("BIN2HEX(A,B)", 1100011011, 1, "FFFFFFFF1B", "Binary!D15"),
    ("BIN2OCT(A,B)", 1100011011, 2.3, "7777777433", "Binary!F19"),
    ("BIN2HEX(A,B)", 1100011011, True, "#VALUE!", "Binary!D20"),
    ("BIN2HEX(A,B)", 1100011011, 0, "#NUM!", "Binary!D14"),
    ("BIN2HEX(A,B)", 1100011011, -2, "#NUM!", "Binary!D13"),
    ("BIN2OCT(A,B)", 1100011011, 11, "#NUM!", "Binary!F18"),
    ("BIN2HEX(A,B)", 1100011011, 10, "FFFFFFFF1B", "Binary!D17"),
    ("BIN2HEX(A,B)", 111111111, 4, "01FF", "Binary!D10"),
    ("DEC2BIN(A,B)", -511, 4, "1000000001", "Decimal!D14"),
    ("DEC2OCT(A,B)", -1213, 1, "7777775503", "Decimal!F7"),
    ("DEC2BIN(A,B)", -512.8, 1, "1000000000", "Decimal!D17"),
    ("DEC2OCT(A,B)", -513, 2, "7777776777", "Decimal!F16"),
    ("DEC2BIN(A,B)", -513, 2, "#NUM!", "Decimal!D16"),
    ("DEC2BIN(A,B)", 2.7, None, "#NUM!", "Decimal!D10"),
    ("DEC2OCT(A,B)", "12", None, "#NUM!", "Decimal!F24"),
    ("DEC2BIN(A,B)", 511.2, 9, "111111111", "Decimal!D12"),
    ("DEC2BIN(A,B)", 511.9, 0, "#NUM!", "Decimal!D13"),
    ("DEC2BIN(A,B)", 123, 11, "#NUM!", "Decimal!D20"),
    ("OCT2HEX(A,B)", 4000000000, 2, "FFE0000000", "OCT!F20"),
    ("OCT2HEX(A,B)", 7000000000, 2, "FFF8000000", "OCT!F22"),
    ("OCT2BIN(A,B)", 7777777777, 10, "1111111111", "OCT!C26"),
    ("OCT2HEX(A,B)", 777, -2, "#NUM!", "OCT!F3"),
    ("HEX2BIN(A,B)", "FE", 3, "#NUM!", "HEX!C2"),
    ("HEX2OCT(A,B)", "FEFE", 9, "000177376", "HEX!F11"),
]


@pytest.fixture(scope="module")
def places_computed(tmp_path_factory):
    _formulas()
    from tests.calc.excel_cases import rows_computed

    return rows_computed(tmp_path_factory.mktemp("places") / "places.xlsx", EXCEL_PLACES)  # (B None: empty)


@pytest.mark.parametrize("row", range(1, len(EXCEL_PLACES) + 1), ids=[f"{c[0]}:{c[4]}" for c in EXCEL_PLACES])
def test_places_as_excel_reads_them(places_computed, row):
    """Through the whole engine, a book of A, B and the formula per row: Excel's values."""
    formula, a, b, excel, cell = EXCEL_PLACES[row - 1]
    got = places_computed.values[("S", f"C{row}")]
    assert equal(got, excel), (formula, a, b, got, excel, cell)


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
