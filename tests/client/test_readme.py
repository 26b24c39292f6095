"""The settings page of the documentation is generated from the settings model: every setting,
its environment variable, default and description."""

from rates_xl.client.settings import Settings
from rates_xl.docgen import settings_page


def test_the_settings_page_lists_every_client_setting_with_its_variable_and_meaning():
    page = settings_page()
    for name, field in Settings.model_fields.items():
        assert field.description, f"{name} has no description (the settings page's text)"
        assert f"| `{name}` | `RATES_{name.upper()}` |" in page, name
        assert field.description in page, name


def test_the_settings_page_shows_what_an_empty_default_means():
    page = settings_page()
    assert "| `api_key` | `RATES_API_KEY` | the OS keychain (service `rates-xl`) |" in page
    assert "| `timeout` | `RATES_TIMEOUT` | `10` |" in page
    assert "| `persistent` | `RATES_PERSISTENT` | `true` |" in page
