"""functions/link.py: a RATES_* formula read into the requests its calls make (no service)."""

from __future__ import annotations

import pytest

from rates_xl.client.tiers import request_text
from rates_xl.functions.link import Unlinked, rates_calls, requests_of

CELLS = {("Rates", "B1"): "SOFR", ("Rates", "B2"): "10Y", ("Other Sheet", "C1"): "5Y"}


def _value_of(sheet, cell):
    return CELLS.get((sheet, cell))


def test_literals_references_other_sheets_and_the_pinned_moment():
    (key,) = requests_of('=ROUND(RATES_SWAP(B1,"0D",\'Other Sheet\'!$C$1,"1Y"),4)', "Rates", _value_of,
                         "2026-01-02T16:00:00Z")
    assert request_text(key) == ("swap_rate?fixed_leg_frequency=1Y&index=SOFR&maturity_date=5Y&start_date=0D"
                                 "&valuation_time=2026-01-02T16:00:00Z")
    # A moment the call gives itself wins over the pinned one; a former name reads the same.
    (key,) = requests_of('=RATES_FXSPOT("EURUSD","2026-01-05T00:00:00Z")', "Rates", _value_of, "2026-01-02")
    assert request_text(key).endswith("valuation_time=2026-01-05T00:00:00Z")


def test_what_cannot_be_read_is_said_never_guessed():
    with pytest.raises(Unlinked, match=r'its argument VLOOKUP\(B2, A1:A9, 1\) uses VLOOKUP'):
        requests_of('=RATES_SWAP(B1,"0D",VLOOKUP(B2,A1:A9,1),"1Y")', "Rates", _value_of)
    with pytest.raises(Unlinked, match="uses the name tenor"):  # this host reads no names
        requests_of('=RATES_SWAP(B1,"0D",tenor,"1Y")', "Rates", _value_of)
    with pytest.raises(Unlinked, match="depends on MATCH"):
        requests_of('=IF(MATCH(B1,A1:A3,0)>1,RATES_SWAP(B1,"0D","5Y","1Y"),0)', "Rates", _value_of)
    with pytest.raises(Unlinked, match="uses the answer of RATES_SWAP"):
        requests_of('=RATES_SWAP(B1,"0D",RATES_SWAP(B1,"0D","5Y","1Y")&"Y","1Y")', "Rates", _value_of)
    with pytest.raises(Unlinked, match="calls no RATES_"):
        requests_of("=A1*2", "Rates", _value_of)
    with pytest.raises(Unlinked, match="bad argument"):
        requests_of('=RATES_SWAP("SOFR","0D","10Y",TRUE)', "Rates", _value_of)
    assert rates_calls("=RATES_STATUS()") == []  # no request: nothing to link


def _texts(formula, cells, names=None, sheet="Rates"):
    def value_of(at, cell):
        return cells.get((at, cell))

    def name_value(at, name):
        return cells[names[name.lower()]]

    return [request_text(k) for k in requests_of(formula, sheet, value_of, name_value=name_value if names else None)]


def test_only_the_branch_an_if_takes_makes_its_request():
    # The swap pricer's floating leg: an overnight index asks RATES_FORWARD, a term index the
    # fixing (or nothing after the cut-off); the branch not taken asks nothing.
    cutoff = "IF(ISNUMBER(Swap!$C$25),Swap!$C$25,0)"
    formula = (f'=IF(ISNUMBER(E6),IF(Swap!$C$23="overnight",RATES_FORWARD(Swap!$C$5,B6,'
               f'IF(Swap!$C$23="overnight",E6,"n/a"),Swap!$C$17),IF(O6<{cutoff},RATES_FIXING(Swap!$C$5,'
               f'IF(O6<{cutoff},O6,"future")),D6)),"")')
    cells = {("Swap", "C5"): "SOFR", ("Swap", "C23"): "overnight", ("Swap", "C25"): 46356.0,
             ("Floating leg", "B6"): 46358.0, ("Floating leg", "E6"): 46723.0, ("Floating leg", "O6"): 46300.0}
    assert _texts(formula, cells, sheet="Floating leg") == [
        "forward_rate?end_date=2027-12-02&index=SOFR&start_date=2026-12-02"]
    term = {**cells, ("Swap", "C5"): "3M EURIBOR", ("Swap", "C23"): "ibor"}
    assert _texts(formula, term, sheet="Floating leg") == ["fixing?index=3M EURIBOR&valuation_date=2026-10-05"]
    later = {**term, ("Floating leg", "O6"): 46400.0}  # fixes after the cut-off: the forward, no request
    assert _texts(formula, later, sheet="Floating leg") == []
    assert _texts(formula, {**cells, ("Floating leg", "E6"): ""}, sheet="Floating leg") == []


def test_names_expressions_and_the_other_branching_functions():
    cells = {("Rates", "B1"): "sofr", ("Rates", "B2"): 10, ("Inputs", "A1"): "1Y", ("Rates", "B3"): None}
    names = {"index": ("Rates", "B1"), "freq": ("Inputs", "A1")}
    ten = "swap_rate?fixed_leg_frequency=1Y&index=SOFR&maturity_date=10Y&start_date=0D"
    assert _texts('=RATES_SWAP(index,"0D",B2&"Y",freq)', cells, names) == [ten]
    assert _texts('=RATES_SWAP(UPPER(index),"0D",(B2/2+5)&"Y",freq)', cells, names) == [ten]
    assert _texts('=IFERROR(RATES_SWAP(index,"0D",B2&"Y",freq),0)', cells, names) == [ten]
    assert _texts('=CHOOSE(2,RATES_FXSPOT("EURUSD"),RATES_SWAP(index,"0D","10Y",freq))', cells, names) == [ten]
    assert _texts('=IFS(B3="",RATES_SWAP(index,"0D","10Y",freq),TRUE,RATES_FXSPOT("EURUSD"))', cells, names) == [ten]
    assert _texts('=SWITCH(B2,5,RATES_FXSPOT("EURUSD"),10,RATES_SWAP(index,"0D","10Y",freq))', cells, names) == [ten]
    # An error in the condition: IF returns it and evaluates neither branch.
    assert _texts('=IF(1/0>0,RATES_SWAP(index,"0D","10Y",freq),RATES_FXSPOT("EURUSD"))', cells, names) == []
    # Excel's order: text ranks above any number; text compares without case.
    assert _texts('=IF(AND(B1>99,B1="SOFR"),RATES_SWAP(index,"0D","10Y",freq),0)', cells, names) == [ten]
    # IFERROR's fallback makes its request when the first argument is an error.
    assert _texts('=IFERROR(1/0,RATES_SWAP(index,"0D","10Y",freq))', cells, names) == [ten]


def test_arguments_after_text_beyond_ascii_are_read_whole():
    """The tokenizer counts UTF-8 bytes: with "ß" before them, the arguments were cut a
    character late (functions/tokens.py counts characters)."""
    assert rates_calls('=IF("ß"="ß",RATES_SWAP("SOFR","0D",B1,"1Y"),0)') == [
        ("RATES_SWAP", ['"SOFR"', '"0D"', "B1", '"1Y"'])]
