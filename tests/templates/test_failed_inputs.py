"""A template whose RATES_ inputs fail shows errors, never a plausible number (issue 28): with
the service unreachable, the swap pricer's legs, NPV and risk are #N/A (before, the failed
schedules left empty rows whose SUM made an NPV of 0.0)."""

from __future__ import annotations

import socket

from rates_xl.calc.workbook import WorkbookCalculation
from rates_xl.client import RatesClient
from rates_xl.functions import using_client
from rates_xl.templates import template_path


def test_the_swap_pricer_with_the_service_down_shows_errors_not_zero():
    with socket.socket() as s:  # a loopback port with nobody listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    down = RatesClient(base_url=f"http://127.0.0.1:{port}", api_key="rk-template-down-1234", max_attempts=1,
                       persistent=False)
    try:
        with using_client(down):
            calc = WorkbookCalculation(template_path("swap_pricer"), full=True)
            result = calc.compute(down)
    finally:
        down.close()
    for name in ("fixed_leg_pv", "float_leg_pv", "npv", "fixed_leg_pv01", "swap_dv01", "par_rate"):
        assert str(calc.named(result, name)) == "#N/A", name
    assert any("cannot reach" in e.message for e in result.errors)  # the summary says why
