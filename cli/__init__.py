"""rates-xl: interest-rate market data in Excel worksheet formulas."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("rates-xl")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"
