"""What a light caller may know of the settings without loading pydantic (client/settings.py
costs 0.1 CPU s and 14 MB to import): the environment variables' prefix, whether any is set,
and the defaults `Settings` gives the fields such a caller reads (its fields read them here).

calc's budget (calc/budget.py) is the caller: a book that calls no RATES_* function needs no
other setting, and with no RATES_* variable set the settings are these defaults.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

#: Every setting `x` is the environment variable PREFIX + `X` (any case, as pydantic-settings reads them).
PREFIX = "RATES_"
#: `calc_cells`, `calc_seconds` and `calc_threads`: one book's cells read, seconds and the engine's
#: threads (client/settings.py describes them).
CALC_CELLS = 50_000_000
CALC_SECONDS = 600.0
CALC_THREADS = 1


def any_set(names: Iterable[str] | None = None) -> bool:
    """Whether an environment variable (of `names`, else this process's) may be a setting: its
    name starts with RATES_ in any case (RATES_XL_CONF and the like too: the answer may say
    yes where no setting is, never no where one is)."""
    return any(name.upper().startswith(PREFIX) for name in (os.environ if names is None else names))
