"""The worksheet functions' argument names beside the service's parameters: one table
(functions/table.py) that `rates-xl call` and the docs' reference read."""

from __future__ import annotations

from rates_xl.client.endpoints import ENDPOINTS
from rates_xl.functions.table import FUNCTIONS, argument_aliases, service_parameters


def test_the_names_that_differ_are_in_the_table():
    rows = set(service_parameters())
    assert ("RATES_FXSPOT", "pair", "fx_spot", "currency_pair") in rows
    assert ("RATES_GOVYIELD", "country", "gov_yield", "country_code") in rows
    assert ("RATES_DISCOUNT", "pay_date", "discount_factor", "date") in rows


def test_every_row_names_a_real_argument_and_parameter():
    for function, argument, endpoint, parameter in service_parameters():
        assert argument in FUNCTIONS[function].arg_names
        assert FUNCTIONS[function].endpoint == endpoint
        assert parameter in ENDPOINTS[endpoint].params, (function, argument, parameter)


def test_an_alias_never_shadows_a_service_name():
    """`rates-xl call` reads a name as the service's first: an alias equal to another
    parameter of the same endpoint would be ambiguous."""
    for endpoint, spec in ENDPOINTS.items():
        aliases = argument_aliases(endpoint)
        assert not set(aliases) & set(spec.params), endpoint
