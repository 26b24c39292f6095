"""A function call's outcome in a form two implementations of the same function are compared by
(calc/xlfuncs/unvectorized.py against the `formulas` wrapper it short-cuts): its exception's type
and text, or its answer's type and repr, an array's dtype, shape and every element too."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def outcome(function: Callable[..., Any], args: tuple[Any, ...]) -> tuple[object, ...]:
    import numpy as np

    try:
        answer = function(*args)
    except Exception as exc:  # noqa: BLE001 - compared: both must fail alike
        return ("raised", type(exc).__name__, str(exc))
    if isinstance(answer, np.ndarray):
        return ("array", type(answer).__name__, answer.dtype.str, answer.shape,
                [(type(v).__name__, repr(v)) for v in answer.ravel()])
    return ("answered", type(answer).__name__, repr(answer))
