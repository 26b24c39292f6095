from pathlib import Path

from rates_xl.client.settings import Settings


def test_readme_lists_every_client_setting():
    readme = (Path(__file__).parents[2] / "docs" / "client.md").read_text()
    for name in Settings.model_fields:
        assert f"`{name}` | `RATES_{name.upper()}`" in readme, name
