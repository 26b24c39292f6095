"""The xlwings UDF layer's tests use the worksheet functions' fixtures (a fresh client on the
session sandbox as the shared one; isolation of the shared client and refresh scopes)."""

from tests.functions.conftest import _isolated_functions, client, offline_client  # noqa: F401  (fixtures)
