"""The refresh scoping rules, pure Python: which cells hold RATES formulas, which a scope covers."""

from __future__ import annotations

import pytest

from rates_xl.addin.classic import scope
from rates_xl.functions.sheet import Area, cell_address


@pytest.mark.parametrize("formula, names", [
    ("=RATES_SWAP(\"SOFR\",\"0D\",\"10Y\",\"1Y\")", ["SWAP"]),
    ("=rates_swap(A1,B1,C1,D1)", ["SWAP"]),
    ("=RATES.SWAPCURVE(\"SOFR\")", ["SWAPCURVE"]),  # the Office.js spelling
    ("=_xludf.RATES_FXSPOT(\"EURUSD\")", ["FXSPOT"]),  # as Excel stores an unknown function
    ("=rates_xl.xlam!RATES_DISCOUNT(A1,B1)", ["DISCOUNT"]),
    ("='C:\\Users\\me\\rates_xl.xlam'!RATES_TENORS(\"SOFR\")", ["TENORS"]),
    ("=1+RATES_SWAP(A1,B1,C1,D1)*RATES_FIXING(\"SOFR\")", ["SWAP", "FIXING"]),
    ("=IFERROR(RATES_GOVYIELD( \"US\", \"10Y\" ), 0)", ["GOVYIELD"]),
    ("=RATES_SWAP (A1,B1,C1,D1)", ["SWAP"]),
    ("=LET(x,RATES_FXSPOT(A1),x*2)", ["FXSPOT"]),
])
def test_rates_formulas_are_found(formula, names):
    assert scope.rates_functions(formula) == names
    assert scope.is_rates_formula(formula)


@pytest.mark.parametrize("formula", [
    "RATES_SWAP(A1)",  # a text cell, not a formula
    "=\"RATES_SWAP(A1)\"",  # inside a string literal
    "=\"say \"\"RATES_SWAP(\"\" here\"&A1",  # escaped quotes in a literal
    "='RATES_SWAP(x'!A1",  # a sheet named like a call
    "=MYRATES_SWAP(A1)",  # another function that merely contains the name
    "=X.RATES_SWAP(A1)",
    "=RATES_TABLE+1",  # a defined name, not a call
    "=SUM(A1:A3)",
    "",
    None,
    3.5,
])
def test_other_cells_are_not_rates_formulas(formula):
    assert not scope.is_rates_formula(formula)


def test_spilling_functions_match_the_function_table():
    from rates_xl.functions.table import FUNCTIONS

    spilling = {name.removeprefix("RATES_") for name, spec in FUNCTIONS.items() if spec.result != "number"}
    assert scope.SPILLING_FUNCTIONS == spilling
    assert scope.spills("=RATES_SWAPCURVE(\"SOFR\")")
    assert not scope.spills("=RATES_SWAP(A1,B1,C1,D1)")


@pytest.mark.parametrize("address, rects", [
    ("$A$1", [Area(1, 1, 1, 1)]),
    ("B3", [Area(3, 2, 3, 2)]),
    ("$B$2:$D$10", [Area(2, 2, 10, 4)]),
    ("D10:B2", [Area(2, 2, 10, 4)]),
    ("$A$1:$B$2,$D$4", [Area(1, 1, 2, 2), Area(4, 4, 4, 4)]),
    ("Sheet1!$C$3", [Area(3, 3, 3, 3)]),
    ("'My Sheet'!A1:A2", [Area(1, 1, 2, 1)]),
    ("$B:$C", [Area(1, 2, 1_048_576, 3)]),
    ("$2:$3", [Area(2, 1, 3, 16_384)]),
    ("AA10", [Area(10, 27, 10, 27)]),
    ("$XFD$1048576", [Area(1_048_576, 16_384, 1_048_576, 16_384)]),
])
def test_parse_address(address, rects):
    assert scope.parse_address(address) == rects


@pytest.mark.parametrize("address", ["", "A0", "1A", "A1:", "XFE1", "A1048577", "A1,,B2"])
def test_parse_address_rejects_nonsense(address):
    with pytest.raises(ValueError):
        scope.parse_address(address)


@pytest.mark.parametrize("row, col, text", [(1, 1, "A1"), (3, 26, "Z3"), (7, 27, "AA7"),
                                            (1, 702, "ZZ1"), (1, 703, "AAA1"), (5, 16_384, "XFD5")])
def test_cell_address_round_trips(row, col, text):
    assert cell_address(row, col) == text
    assert scope.parse_address(text) == [Area(row, col, row, col)]


def test_formula_cells_reads_every_shape_com_returns():
    block = Area(2, 2, 3, 3)
    grid = (("=RATES_FXSPOT(\"EURUSD\")", ""), ("", "=RATES_SWAP(A1,B1,C1,D1)"))
    assert scope.rates_cells(grid, block) == {(2, 2): grid[0][0], (3, 3): grid[1][1]}
    assert scope.rates_cells("=RATES_FXSPOT(\"EURUSD\")", Area(5, 5, 5, 5)) == {(5, 5): "=RATES_FXSPOT(\"EURUSD\")"}
    row = ("=RATES_FXSPOT(A1)", "x", "=RATES_DISCOUNT(A1,B1)")
    assert set(scope.rates_cells(row, Area(1, 1, 1, 3))) == {(1, 1), (1, 3)}
    column = ["=RATES_FXSPOT(A1)", 4.0, "=RATES_DISCOUNT(A1,B1)"]
    assert set(scope.rates_cells(column, Area(1, 1, 3, 1))) == {(1, 1), (3, 1)}
    assert scope.rates_cells(None, Area(1, 1, 1, 1)) == {}


def test_selection_covers_its_cells_and_curves_spilling_into_it():
    cells = {
        (1, 1): "=RATES_SWAP(A9,B9,C9,D9)",  # inside the selection
        (1, 5): "=RATES_SWAPCURVE(\"SOFR\")",  # spills E1:F12, selection touches F10
        (20, 1): "=RATES_DISCOUNTCURVE(\"SOFR\",A1,B1,\"3M\")",  # spills elsewhere
        (30, 30): "=RATES_FXSPOT(\"EURUSD\")",  # outside, not spilling
    }
    extents = {(1, 5): Area(1, 5, 12, 6), (20, 1): Area(20, 1, 40, 2)}
    asked = []

    def extent(cell):
        asked.append(cell)
        return extents.get(cell)

    selection = scope.parse_address("$A$1:$B$2,$F$10")
    assert scope.cells_in_selection(cells, selection, extent) == [(1, 1), (1, 5)]
    # Only spilling anchors outside the selection cost a spill lookup.
    assert sorted(asked) == [(1, 5), (20, 1)]


def test_selection_without_spill_information_uses_anchors_only():
    cells = {(1, 5): "=RATES_SWAPCURVE(\"SOFR\")"}
    assert scope.cells_in_selection(cells, [Area(3, 5, 3, 5)]) == []
    assert scope.cells_in_selection(cells, [Area(1, 5, 1, 5)]) == [(1, 5)]


def test_address_chunks_cover_every_cell_within_excels_limit():
    cells = [(row, col) for row in range(1, 200) for col in (1, 3, 30)]
    chunks = scope.address_chunks(cells)
    assert all(len(chunk) <= scope.MAX_ADDRESS_CHARS for chunk in chunks)
    listed = [a for chunk in chunks for a in chunk.split(",")]
    assert sorted(listed) == sorted(cell_address(r, c) for r, c in cells)
    assert len(listed) == len(set(listed))
    assert scope.address_chunks([]) == []
    assert scope.address_chunks([(2, 2), (2, 2), (1, 1)]) == ["A1,B2"]
