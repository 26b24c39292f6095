"""The headless calculator's tests share the templates' client fixture (one client on the
session sandbox, installed as the worksheet functions' shared client for this package)."""

from tests.templates.conftest import rates_client  # noqa: F401  (a fixture, used by name)
