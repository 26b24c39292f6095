"""functions/sheet.py: the one place for A1 cells, sheet-name quoting and RATES calls.

The cases are the ones where the former copies disagreed: calc's two `_quote` helpers
(`'Bob's'` against `'Bob''s'`; `2024` and `A1` left bare by one), and the classic scope's
and respell's call patterns (only respell knew `_xldudf_RATES_SWAP(`).
"""

from __future__ import annotations

import pytest
from openpyxl.utils.cell import get_column_letter

from rates_xl.functions import sheet


@pytest.mark.parametrize(("number", "letters"), [(1, "A"), (26, "Z"), (27, "AA"), (702, "ZZ"),
                                                 (703, "AAA"), (16384, "XFD")])
def test_columns_round_trip(number: int, letters: str) -> None:
    assert sheet.column_letters(number) == letters
    assert sheet.column_number(letters) == number
    assert sheet.column_number(letters.lower()) == number


def test_every_column_round_trips_and_agrees_with_openpyxl() -> None:
    for n in range(1, sheet.MAX_COL + 1):
        letters = sheet.column_letters(n)
        assert letters == get_column_letter(n)
        assert sheet.column_number(letters) == n


@pytest.mark.parametrize("bad", ["", "XFE", "ZZZ", "AAAA", "A1", "1", "$A", " A", "É", None, 3])
def test_bad_column_letters_raise_value_error(bad: object) -> None:
    with pytest.raises(ValueError):
        sheet.column_number(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [0, -1, 16385, True, 1.0, "A", None])
def test_bad_column_numbers_raise_value_error(bad: object) -> None:
    with pytest.raises(ValueError):
        sheet.column_letters(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "cell"), [("B7", (7, 2)), ("$B$7", (7, 2)), ("b7", (7, 2)),
                                            (" $A1 ", (1, 1)), ("XFD1048576", (1048576, 16384))])
def test_parse_cell(text: str, cell: tuple[int, int]) -> None:
    assert sheet.parse_cell(text) == cell
    assert sheet.cell_address(*cell) == text.strip().replace("$", "").upper()


@pytest.mark.parametrize("bad", ["", "B", "7", "B0", "XFE1", "A1048577", "A1:B2", "Sheet1!A1", "R1C1", None])
def test_bad_cells_raise_value_error(bad: object) -> None:
    with pytest.raises(ValueError):
        sheet.parse_cell(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(("row", "col"), [(0, 1), (1048577, 1), (1, 0), (1, 16385)])
def test_cell_address_outside_the_sheet_raises(row: int, col: int) -> None:
    with pytest.raises(ValueError):
        sheet.cell_address(row, col)


def test_ranges_in_either_corner_order() -> None:
    assert sheet.parse_range("A1:C10") == (1, 1, 10, 3)
    assert sheet.parse_range("$C$10:A1") == (1, 1, 10, 3)
    assert sheet.parse_range("B2") == (2, 2, 2, 2)
    for bad in ("A1:B2:C3", "A1:", ":B2", "A:B", ""):
        with pytest.raises(ValueError):
            sheet.parse_range(bad)


@pytest.mark.parametrize(("name", "quoted"), [
    ("Data", "Data"),
    ("Sheet1", "Sheet1"),
    ("_inputs", "_inputs"),
    ("Données", "Données"),  # Unicode letters make a plain name, as in Excel
    ("My Data", "'My Data'"),
    ("Bob's", "'Bob''s'"),  # the apostrophe doubled, as Excel writes it
    ("'", "''''"),
    ("Bob'", "'Bob'''"),  # a trailing apostrophe survives unquoting
    ("2024", "'2024'"),  # digits first
    ("1Q", "'1Q'"),
    ("A1", "'A1'"),  # reads as a cell
    ("xfd1048576", "'xfd1048576'"),
    ("R1C1", "'R1C1'"),  # reads as an R1C1 reference
    ("RC", "'RC'"),
    ("R", "'R'"),
    ("C", "'C'"),
    ("XFE1", "XFE1"),  # past the last column: a name
    ("Q1-2024", "'Q1-2024'"),
    ("a.b", "'a.b'"),
    ("日本", "日本"),
    ("Ünïcode Sheet", "'Ünïcode Sheet'"),
])
def test_quote_sheet_follows_excel(name: str, quoted: str) -> None:
    assert sheet.quote_sheet(name) == quoted
    assert sheet.unquote_sheet(quoted) == name
    assert sheet.address(name, "B7") == f"{quoted}!B7"


def test_cell_like_names() -> None:
    assert sheet.looks_like_cell_reference("XFD1048576")
    assert sheet.looks_like_cell_reference("a1")
    assert not sheet.looks_like_cell_reference("XFE1")
    assert not sheet.looks_like_cell_reference("AB1048577")
    assert not sheet.looks_like_cell_reference("SWAPCURVE")
    assert not sheet.looks_like_cell_reference("A0")


@pytest.mark.parametrize(("formula", "calls"), [
    ("=RATES_SWAP(A1)", ["SWAP"]),
    ("=rates_swap (A1)", ["SWAP"]),  # any case; a space before "(" as Excel allows
    ("=RATES.SWAP(A1)", ["SWAP"]),  # Office.js spelling
    ("=_xludf.RATES_SWAP(A1)", ["SWAP"]),  # an unknown function, as some writers store it
    ("=_xldudf_RATES_SWAP(A1)", ["SWAP"]),  # Office.js stored form (the scope missed this one)
    ("=[1]!RATES_SWAP(A1)", ["SWAP"]),  # through an external link to the add-in
    ("=rates_xl.xlam!RATES_SWAP(A1)", ["SWAP"]),
    ("='C:\\addins\\rates_xl.xlam'!RATES_SWAP(A1)", ["SWAP"]),
    ("=RATES_SWAPCURVE(A1)+RATES.DISCOUNT(B1)", ["SWAPCURVE", "DISCOUNT"]),
    ("=SUM(RATES_SWAP(A1),1)", ["SWAP"]),
    # look-alikes that are not calls
    ("=XRATES_SWAP(A1)", []),
    ("=MY.RATES_SWAP(A1)", []),
    ("=MY_RATES_SWAP(A1)", []),
    ("=_xldudf_XRATES_SWAP(A1)", []),
    ('="RATES_SWAP(A1)"', []),  # in a string literal
    ('=CONCAT("a""RATES_SWAP(", B1)', []),  # an escaped quote inside the literal
    ("='RATES_SWAP(1)'!A1", []),  # a quoted sheet name
    ("=RATES_SWAP", []),  # a name, not a call
    ("=RATES_(A1)", []),
    ("RATES_SWAP(A1)", []),  # text, not a formula
    (None, []),
    (3.5, []),
])
def test_rates_calls(formula: object, calls: list[str]) -> None:
    assert sheet.rates_calls(formula) == calls


def test_rates_names() -> None:
    assert sheet.is_rates_name("RATES_SWAP")
    assert sheet.is_rates_name("rates.swap")
    assert not sheet.is_rates_name("XRATES_SWAP")
    assert not sheet.is_rates_name("RATESWAP")


def test_the_callers_share_the_rules() -> None:
    """Each former copy now answers as the module does (these failed before: calc.book left
    `Bob's`, `2024` and `A1` unquoted or badly quoted; the scope missed `_xldudf_`)."""
    from rates_xl.addin.classic import refresh, scope
    from rates_xl.addin.officejs import metadata
    from rates_xl.calc import book, fast_model

    for name in ("Bob's", "2024", "A1", "My Data", "Data"):
        assert book.address(name, "B7") == f"{sheet.quote_sheet(name)}!B7"
        assert fast_model._quote(name) == sheet.quote_sheet(name)
    assert book.quote("Bob's") == "'Bob''s'"
    assert scope.rates_functions("=_xldudf_RATES_SWAP(A1)") == ["SWAP"]
    assert scope.column_number("XFD") == 16384
    with pytest.raises(ValueError):
        refresh.parse_cell("XFE1")  # past the last column: the former copy accepted it
    assert not metadata.looks_like_cell_reference("XFE1")
