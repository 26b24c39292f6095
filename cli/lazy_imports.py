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
- openpyxl's styles/builtins.py (0.006 CPU s): Excel's 48 built-in cell styles, parsed from
  XML at import (`NamedStyle.from_tree` each) into the dict `styles`, which openpyxl reads only
  when a cell is given a built-in style by name (`cell.style = "Good"`: styles/styleable.py
  `NamedStyleDescriptor`) and when it reads a book whose stylesheet names no style (it adds
  "Normal": styles/stylesheet.py `apply_stylesheet`). calc names no style. `openpyxl_without_numpy` imports openpyxl with a stand-in module in its place whose
  `styles` is the same dict, filled from the real module at its first read
  (`_BuiltinStyles`): the same style objects, parsed only for a book that names one. Only
  under the openpyxl release this was read from (`BUILTINS_READ_FROM`; tests/test_lazy_imports.py
  reads the installed release's source for the modules importing `styles` and what they do
  with it).
- hashlib (0.003 CPU s: OpenSSL's initialisation): openpyxl's chartsheet/protection.py imports
  it and never reads it (the hashing is worksheet/protection.py's, with base64 and its own
  loop). `openpyxl_without_numpy` imports openpyxl with a stand-in in its place, which leaves
  sys.modules after it: a later `import hashlib` is the real one. (Not LazyLoader's module: a
  plain `import` reads the module's `__spec__`, which runs it.) Under the same release (the
  test reads openpyxl's importers of hashlib).
"""

from __future__ import annotations

import importlib.util
import sys
import threading
import types
from typing import Any

#: The module openpyxl reads numpy in, and the one whose import would bring Pillow's core.
OPENPYXL_NUMBERS, PIL_IMAGE = "openpyxl.compat.numbers", "PIL.Image"
#: openpyxl's built-in cell styles, and the openpyxl release whose readers of them were read.
OPENPYXL_BUILTINS, BUILTINS_READ_FROM = "openpyxl.styles.builtins", "3.1.5"
#: What openpyxl imports and never reads (that release): left to its first reader.
HASHLIB = "hashlib"


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
    stand_ins = _stand_ins() if _openpyxl_read() else []
    try:
        importlib.import_module(OPENPYXL_NUMBERS)  # (openpyxl's package first, all of it)
    finally:
        del sys.modules["numpy"]
        for stand_in in stand_ins:  # (a name read of one imports the real module)
            if sys.modules.get(stand_in.__name__) is stand_in:
                del sys.modules[stand_in.__name__]


class _BuiltinStyles(dict[str, Any]):
    """openpyxl's built-in styles by name (`openpyxl.styles.builtins.styles`), read from the real
    module at the first question asked of it."""

    _lock = threading.Lock()
    _filled = False

    def _fill(self) -> None:
        with self._lock:
            if not self._filled:
                dict.update(self, importlib.import_module(OPENPYXL_BUILTINS).styles)
                self._filled = True


def _reading(name: str) -> Any:
    read = getattr(dict, name)

    def method(self: _BuiltinStyles, *args: Any) -> Any:
        self._fill()
        return read(self, *args)

    method.__name__ = name
    return method


for _name in ("__contains__", "__getitem__", "__iter__", "__len__", "__repr__", "__eq__", "__ne__",
              "__or__", "__reversed__", "get", "keys", "values", "items", "copy"):
    setattr(_BuiltinStyles, _name, _reading(_name))


class _StandIn(types.ModuleType):
    """A module's place in sys.modules while openpyxl imports: a name not set on it is the
    real module's, imported then."""

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):  # the import system's questions
            raise AttributeError(attr)
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), attr)


def _openpyxl_read() -> bool:
    """Whether the openpyxl installed is the release read (BUILTINS_READ_FROM), from its
    `_constants.py`, without importing it (importlib.metadata's import alone costs 0.02 s)."""
    import os

    spec = importlib.util.find_spec("openpyxl")
    if spec is None or not spec.submodule_search_locations:
        return False
    try:
        with open(os.path.join(spec.submodule_search_locations[0], "_constants.py"), encoding="utf-8") as constants:
            return f'__version__ = "{BUILTINS_READ_FROM}"' in constants.read()
    except OSError:
        return False


def _stand_ins() -> list[types.ModuleType]:
    """The stand-ins for openpyxl.styles.builtins (its `styles` a `_BuiltinStyles`) and hashlib,
    put in sys.modules (those not imported already)."""
    made = []
    for name in (OPENPYXL_BUILTINS, HASHLIB):
        if name not in sys.modules:
            stand_in = _StandIn(name)
            if name == OPENPYXL_BUILTINS:
                stand_in.styles = _BuiltinStyles()  # type: ignore[attr-defined]
            sys.modules[name] = stand_in
            made.append(stand_in)
    return made
