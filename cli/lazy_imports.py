"""Third-party modules openpyxl imports at its own import that a command may never use, left
for their first use: part of every small book's `rates-xl calc` was their import alone.

- Pillow's PIL.Image (0.011 CPU s): openpyxl's drawing/image.py imports it to read and write a
  book's pictures, and keeps them only when it is there (reader/drawings.py drops them when
  `PILImage` is false). `defer_pillow` puts importlib's LazyLoader in its place: the same
  module, executed at its first attribute read, which only a book with a picture makes
  (`Image(...)` asks `PILImage.Image` and `PILImage.open`). A lazy module is true, so the
  pictures are kept as before.
- numpy (0.07 CPU s): openpyxl's compat/numbers.py imports it, if installed, only to count
  numpy's scalars as numbers when a cell's value is set (`NUMERIC_TYPES`). calc never sets one:
  the values-frozen copy's values go through calc/frozen.set_value, which sets a Python int,
  float or bool itself and makes text of any other object (numpy's float64, a float subclass,
  is a number to openpyxl either way), and the engines answer Python values (the formulas
  engine's `_plain`). `openpyxl_without_numpy` imports openpyxl with numpy reported missing,
  so a book whose functions need no numpy (no SUMIF, nothing bridged to `formulas`) never
  imports it; one that does imports it then. Only the console script does either, for the
  commands in `cli.LAZY_IMPORTS`: another program importing rates_xl keeps openpyxl as it is.
"""

from __future__ import annotations

import importlib.util
import sys

#: The module openpyxl reads numpy in, and the one whose import would bring Pillow's core.
OPENPYXL_NUMBERS, PIL_IMAGE = "openpyxl.compat.numbers", "PIL.Image"


def defer_pillow() -> None:
    """PIL.Image loaded at its first use, not when openpyxl is imported. Nothing is done once
    it (or openpyxl) is imported, or where Pillow is not installed (openpyxl then drops a
    book's pictures, as it always did)."""
    if PIL_IMAGE in sys.modules or "openpyxl" in sys.modules:
        return
    spec = importlib.util.find_spec(PIL_IMAGE)  # (imports the PIL package: its version alone)
    if spec is None or spec.loader is None:
        return
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[PIL_IMAGE] = module
    loader.exec_module(module)  # (lazy: the module's code runs at its first attribute read)
    sys.modules["PIL"].Image = module  # type: ignore[attr-defined]  # what an import sets on the package


def openpyxl_without_numpy() -> None:
    """openpyxl imported now, with numpy's import failing as if it were not installed (see the
    module's docstring for why no value changes). Nothing is done when either is imported."""
    if "numpy" in sys.modules or OPENPYXL_NUMBERS in sys.modules:
        return
    sys.modules["numpy"] = None  # type: ignore[assignment]  # `import numpy` raises ImportError
    try:
        importlib.import_module(OPENPYXL_NUMBERS)  # (openpyxl's package first, all of it)
    finally:
        del sys.modules["numpy"]
