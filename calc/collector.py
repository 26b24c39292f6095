"""The cyclic garbage collector held off while calc builds what lives as long as a book.

A calculation allocates millions of objects that stay alive together until the book is done
(openpyxl's cells, the formulas read, their tokens, the values by cell) and makes almost no
cyclic garbage while doing so. CPython's collector, seeing the number of live objects grow,
runs a full collection each time the survivors grow by a quarter (CPython 3.11,
Modules/gcmodule.c: `long_lived_pending < long_lived_total / 4`), and each walks every live
object again: 44 full collections on a 200,000-cell chain, 7 of its 23.6 CPU seconds
(bench/calc_budget.py; gc.callbacks timed them). Inside `paused()` none runs; reference
counting still frees everything that is not a cycle, and the collector takes up its normal
work once the outermost pause ends.

Pauses nest and may come from several threads: the collector runs again when the last one
ends, never earlier.

What a pause allocates stays in the collector's youngest generation, so the first collection
after it walks all of it once (formulas_test.xlsx: 0.1 CPU s). A command that ends the process
soon after its last book (`rates-xl calc`) skips that walk too (`until_exit`).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def paused() -> Iterator[None]:
    """No automatic cyclic collection inside (nested pauses: until the outermost ends)."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()


@contextmanager
def until_exit() -> Iterator[None]:
    """`paused`, for a command whose process ends soon after: what lives at the end is moved
    out of the collector's reach (gc.freeze, a list splice) instead of walked by the next
    collection. Never for a process that lives on: cycles among those objects, made garbage
    later, would not be freed."""
    with paused():
        yield
        gc.freeze()
