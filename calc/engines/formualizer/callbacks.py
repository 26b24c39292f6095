"""Our Python functions as formualizer calls them: from its own worker thread, one call per
formula that calls one (18,600 calls in formulas_test.xlsx's first evaluation).

Each such call takes the GIL through CPython's `PyGILState_Ensure` (pyo3's GIL guard). A thread
Python did not start has no Python thread state of its own, so every call made one and threw it
away on return, with the frame stack CPython allocates for it (an mmap and a munmap per call):
0.17 of formulas_test's 0.45 CPU s of evaluation, a third of it in the kernel. `pinned` keeps
the calling thread's state from its first call on (one more `PyGILState_Ensure`, never released),
so later calls find it, as they would on a thread Python started. The engine starts its worker
with the workbook and ends it when the workbook is dropped; the state of an ended worker stays
allocated until the interpreter exits (a few KB per workbook loaded).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from rates_xl.calc.engines.formualizer.values import EngineValue

if TYPE_CHECKING:
    from formualizer import Workbook

#: One of our functions as the engine calls it: its arguments' values in, a value out.
Function = Callable[..., EngineValue]


class _Here(threading.local):
    # A thread's own attributes live in its Python thread state: a thread whose state is
    # thrown away after each call reads the class's default again on the next one.
    pinned = False


_here = _Here()


def pinned(call: Function) -> Function:
    """`call`, keeping the Python state of the thread that calls it from one call to the next."""

    def keeping(*args: EngineValue) -> EngineValue:
        if not _here.pinned:
            _pin()
        return call(*args)

    keeping.__name__ = getattr(call, "__name__", keeping.__name__)
    return keeping


def _pin() -> None:
    import ctypes

    # pythonapi calls hold the GIL, which this thread holds already: the count of its
    # `PyGILState_Ensure` calls goes up by one, so pyo3's release after each call no longer
    # drops it to 0 (which deletes the state); the GIL itself is still released after each call.
    ctypes.pythonapi.PyGILState_Ensure()
    _here.pinned = True


class Registrar:
    """A formualizer workbook's `register_function`, each function `pinned`: what the
    registering modules (calc/xlfuncs, lookups.py) are handed instead of the workbook."""

    def __init__(self, workbook: Workbook) -> None:
        self._workbook = workbook

    def register_function(self, name: str, callback: Function, *, min_args: int = 0, max_args: int | None = None,
                          volatile: bool = False, deterministic: bool = True,
                          allow_override_builtin: bool = False) -> None:
        self._workbook.register_function(name, pinned(callback), min_args=min_args, max_args=max_args,
                                         volatile=volatile, deterministic=deterministic,
                                         allow_override_builtin=allow_override_builtin)
