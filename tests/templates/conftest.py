"""Fixtures for the templates and headless-calculation tests: one client on the session
sandbox, installed as the worksheet functions' shared client, and every template computed
once (as `rates-xl demo` does) for the tests that only read results. Package-scoped: the
shared client is restored when this folder's tests end, before any other folder's run."""

from __future__ import annotations

import pytest

from rates_xl.client import RatesClient
from rates_xl.functions import get_client, set_client


@pytest.fixture(scope="package")
def rates_client(sandbox):
    from rates_xl.sandbox import PAID_KEY

    client = RatesClient(sandbox.base_url, api_key=PAID_KEY, rate_limit=1000, burst=1000)
    previous = get_client()
    set_client(client)
    yield client
    set_client(previous)
    client.close()


@pytest.fixture(scope="package")
def demo_run(rates_client, tmp_path_factory):
    """Every template computed against the sandbox and frozen into a folder."""
    from rates_xl.templates.demo import run_demo

    return run_demo(tmp_path_factory.mktemp("demo"), client=rates_client)


@pytest.fixture(scope="package")
def swap_pricer(rates_client):
    """The swap pricer loaded once (loading it is the slow part) and computed."""
    from rates_xl.calc.workbook import WorkbookCalculation
    from rates_xl.templates import template_path

    calc = WorkbookCalculation(template_path("swap_pricer"))
    return calc, calc.compute(rates_client)


def named(calc, result, name):
    return calc.named(result, name)
