"""A function call's outcome in a form two implementations of the same function are compared by
(calc/xlfuncs/unvectorized.py against the `formulas` wrapper it short-cuts): its exception's type
and text, or its answer's type and repr, an array's dtype, shape and every element too."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: A call settled: (True, its answer) or (False, the exception it raised).
Settled = tuple[bool, Any]


def settle(function: Callable[..., Any], args: tuple[Any, ...]) -> Settled:
    try:
        return True, function(*args)
    except Exception as exc:  # noqa: BLE001 - compared: both must fail alike
        return False, exc


def described(settled: Settled) -> tuple[object, ...]:
    """A settled call as it is compared."""
    import numpy as np

    answered, answer = settled
    if not answered:
        return ("raised", type(answer).__name__, str(answer))
    if isinstance(answer, np.ndarray):
        return ("array", type(answer).__name__, answer.dtype.str, answer.shape,
                [(type(v).__name__, repr(v)) for v in answer.ravel()])
    return ("answered", type(answer).__name__, repr(answer))


def outcome(function: Callable[..., Any], args: tuple[Any, ...]) -> tuple[object, ...]:
    return described(settle(function, args))
