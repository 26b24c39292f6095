"""rates-xl: interest-rate market data in Excel worksheet formulas.

The project's folders are the subpackages of this one namespace (pyproject's package-dir),
lowest layer first; docs/architecture.md draws which may import which (tests/test_layers.py
checks every import against it):

- this folder, cli/ (the package root, `rates_xl`): the base every part may import and
  the command line on top of everything:
  - `__init__.py`: the version (read at its first use); this map;
  - `errors.py`: `RatesXlError`, the root of every exception rates-xl raises, and its tree;
  - `atomic.py`: a file written in one rename (no half file after an interrupt);
  - `lazy_imports.py`: what openpyxl imports that a command may never use (Pillow, numpy), left
    for its first use;
  - `extras.py`: the optional parts (pyproject's extras) and how to install one;
  - `cli.py`: the `rates-xl` console script and the rule every command follows;
  - `docgen.py`: the docs site's generated pages, written from the code they describe;
- `client/`: `RatesClient`, the one way to the service (cache tiers, limiter, retries);
- `functions/`: the worksheet functions, host-free (the function table, its core);
- `sandbox/`: a local reference service (FastAPI + QuantLib);
- `calc/`: workbooks computed without Excel (`rates-xl calc`, `diff`);
- `scenario/`: a book under a stated move of the curves (`calc --scenario`, `risk`);
- `templates/`: the pricing workbooks and `rates-xl demo`;
- `addin/`: the Excel hosts (classic: xlwings UDFs; officejs: Office.js).
"""

from __future__ import annotations


def __getattr__(name: str) -> str:
    """`__version__`, read from the installed distribution at its first use (PEP 562): importing
    importlib.metadata costs 0.03 CPU s, a tenth of a small book's `calc`, which never asks."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("rates-xl")
    except PackageNotFoundError:  # running from a source tree that was never installed
        found = "0+unknown"
    globals()["__version__"] = found
    return found
