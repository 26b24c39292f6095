"""The VBA side of RTD: every RATES_ wrapper hands Python's answer to RatesAnswer, which
subscribes a waiting cell through WorksheetFunction.RTD and shows #N/A (rtd_vba.py)."""

from __future__ import annotations

import pytest

from rates_xl.addin.classic import rtd, rtd_vba, vba
from rates_xl.functions import FUNCTIONS, errors


@pytest.fixture(scope="module")
def modules(built) -> dict[str, str]:
    return {m.name: m.source for m in built.modules}


def test_every_wrapper_routes_its_excel_answer_through_rates_answer(modules):
    wrappers = vba.procedures(modules["xlwings_udfs"])
    assert sorted(wrappers) == sorted(FUNCTIONS)
    for name, (_, body) in wrappers.items():
        calls = [s for s in vba.statements(body) if "XLPy.CallUDF(" in s]
        excel, other = calls  # the #If App = "Microsoft Excel" branch, then the #Else one
        assert excel.startswith(f"{name} = RatesAnswer(XLPy.CallUDF(") and excel.endswith(
            "Application.Caller))"), excel
        assert "RatesAnswer" not in other


def test_rates_answer_is_the_python_rule_with_the_same_constants(modules):
    source = modules[rtd_vba.MODULE_NAME]
    assert f'Private Const RTD_PROGID As String = "{rtd.PROGID}"' in source
    assert f'Private Const WAIT_PREFIX As String = "{rtd.WAIT_PREFIX}"' in source
    body = vba.procedures(source)["RatesAnswer"][1]
    code = vba.statements(body)
    assert "On Error Resume Next" in code  # a failing RTD call still ends in #N/A
    assert any("Application.WorksheetFunction.RTD(RTD_PROGID" in s for s in code)
    # #N/A for a wait and for a failure the user cannot fix; #VALUE! for an argument to fix.
    assert code.count("RatesAnswer = CVErr(xlErrNA)") == 2
    assert code.count("RatesAnswer = CVErr(xlErrValue)") == 1
    assert f'Private Const ERROR_PREFIX As String = "{errors.MARKER}"' in source
    failed = vba.statements(vba.procedures(source)["RatesFailed"][1])
    assert failed == ["RatesLastFailure = description", "RatesFailed = CVErr(xlErrNA)"]
    assert "Option Private Module" in source  # not a worksheet function of its own
    # A spill's cells holding an error's text (a history's Fill=NA, a grid's failed column)
    # become that error in place: NaCells walks the array (1-D and 2-D), CellError maps.
    from rates_xl.functions.messages import NOT_AVAILABLE

    assert errors.CELL_TEXT[errors.NA] == NOT_AVAILABLE
    assert f'Private Const NA_TEXT As String = "{NOT_AVAILABLE}"' in source
    assert f'Private Const VALUE_TEXT As String = "{errors.CELL_TEXT[errors.VALUE]}"' in source
    assert "RatesAnswer = NaCells(answer)" in code
    na_cells = vba.statements(vba.procedures(source)["NaCells"][1])
    assert sum("= CellError(answer(" in s for s in na_cells) == 2  # 1-D and 2-D
    mapping = vba.statements(vba.procedures(source)["CellError"][1])
    assert "CellError = CVErr(xlErrNA)" in mapping and "CellError = CVErr(xlErrValue)" in mapping


def test_the_python_rule(monkeypatch):
    calls = []
    na = object()
    assert rtd.excel_answer(rtd.WAIT_PREFIX + "r1", lambda *a: calls.append(a), na) is na
    assert calls == [(rtd.PROGID, "", "r1")]

    def failing(*_):
        raise RuntimeError("1004")

    assert rtd.excel_answer(rtd.WAIT_PREFIX + "r2", failing, na) is na
    for other in (1.5, "#RATES! x", [[1, 2]], None, [], [["a", rtd.WAIT_PREFIX + "r"]], "#N/A"):
        assert rtd.excel_answer(other, failing, na) == other
    # A spill's Fill=NA cells become #N/A there (2-D, and 1-D for one row); the rest passes.
    assert rtd.excel_answer([["Date", "2Y"], [45842, "#N/A"]], failing, na) == [["Date", "2Y"], [45842, na]]
    assert rtd.excel_answer([45842, "#N/A", 3.5], failing, na) == [45842, na, 3.5]
    value = object()
    assert rtd.excel_answer([["Date", "2Y"], [45842, "#VALUE!"]], failing, na, value_error=value) == [
        ["Date", "2Y"], [45842, value]]
    # A legacy array formula waits with a block of markers (2-D; 1-D for one row, as
    # xlwings' CallUDF hands VBA a single row), one subscription, #N/A in every cell.
    for block in (rtd.wait_block(rtd.WAIT_PREFIX + "r3", 3, 2), [rtd.WAIT_PREFIX + "r3"] * 2):
        calls.clear()
        assert rtd.excel_answer(block, lambda *a: calls.append(a), na) is na
        assert calls == [(rtd.PROGID, "", "r3")]
    assert rtd.wait_block("m", 1, 1) == "m" and rtd.wait_block("m", 2, 3) == [["m"] * 3] * 2
    # While the Live toggle is on, an answered cell also subscribes to its live topic.
    calls.clear()
    cell = ("Book1.xlsx", "S", "$A$1")
    assert rtd.excel_answer(1.5, lambda *a: calls.append(a), na, live_cell=cell) == 1.5
    assert calls == [(rtd.PROGID, "", rtd.LIVE_CHANNEL, *cell)]
    assert rtd.excel_answer(1.5, failing, na, live_cell=cell) == 1.5
    calls.clear()
    assert rtd.excel_answer(rtd.WAIT_PREFIX + "r4", lambda *a: calls.append(a), na, live_cell=cell) is na
    assert calls == [(rtd.PROGID, "", "r4")]  # a waiting cell waits first


def test_rates_answer_reads_the_first_element_of_an_array_answer(modules):
    """The VBA side of the block rule: RatesAnswer looks at the first element of an array."""
    procedures = vba.procedures(modules[rtd_vba.MODULE_NAME])
    code = vba.statements(procedures["RatesAnswer"][1])
    assert "first = FirstOf(answer)" in code and any("Left$(first" in s for s in code)
    first_of = vba.statements(procedures["FirstOf"][1])
    assert "If Not IsArray(answer) Then" in first_of
    assert "FirstOf = answer(LBound(answer, 1))" in first_of  # one row: a 1-D array
    assert "FirstOf = answer(LBound(answer, 1), second)" in first_of
    source = modules[rtd_vba.MODULE_NAME]
    assert f'Private Const LIVE_CHANNEL As String = "{rtd.LIVE_CHANNEL}"' in source
    assert "Public RatesLiveOn As Boolean" in source
    assert "If RatesLiveOn Then" in code and any("RTD(RTD_PROGID, \"\", LIVE_CHANNEL" in s for s in code)


def test_a_changed_generator_stops_the_build():
    text = ('Function RATES_SWAP(a)\n    RATES_SWAP = XLPy.CallUDF("m", "RATES_SWAP", Array(a), ActiveWorkbook, '
            'Application.Caller)\n    Exit Function\nfailed:\n    RATES_SWAP = Err.Description\nEnd Function\n')
    wrapped = rtd_vba.wrap_udfs(text, ["RATES_SWAP"])
    assert "RatesAnswer(XLPy" in wrapped
    # The failure branch: #N/A, never the description as text (issue 28).
    assert "RATES_SWAP = RatesFailed(Err.Description)" in wrapped and "= Err.Description" not in wrapped
    with pytest.raises(rtd_vba.WrapError, match="RATES_FXSPOT"):
        rtd_vba.wrap_udfs(text, ["RATES_SWAP", "RATES_FXSPOT"])


def test_a_call_without_a_calling_cell_never_gets_the_marker(sandbox, sandbox_key):
    """VBA or the Function Wizard (no caller): the synchronous path, even with RTD on."""
    from rates_xl.addin.classic import udfs
    from rates_xl.client import RatesClient

    rtd.waits.reset()
    rtd.waits.enabled = True
    try:
        with RatesClient(base_url=sandbox.base_url, api_key=sandbox_key) as client:
            udfs.set_client(client)
            value = udfs.RATES_SWAP("SOFR", "0D", "3Y", "1Y")
        assert isinstance(value, float)
        assert rtd.waits.submitted == 0
    finally:
        udfs.set_client(None)
        rtd.waits.reset()
        rtd.waits.enabled = False
