"""The formulas RATESXL.LAMBDA computes (calc/xlfuncs/logical/lambdas.py), run without schedula's
dispatch per call.

`formulas` compiles a formula, and each LAMBDA's body in it, into a schedula `DispatchPipe`:
the nodes to evaluate, in order, fixed at compile time. Each call of one still builds a new
solution, a workflow graph with an edge per value, and walks the pipe through schedula's
general machinery (executors, filters, domains, sub-dispatchers): two thirds of a LAMBDA's
call (formulas_test.xlsx's 71 calls: 32 ms, 11 ms planned; a body is called once per element).
`Direct` is the same pipe, computing its plan directly: each data node's value (the argument,
the compiled constant, or its one function's answer, through the node's filters), each function
node called on its inputs' values in the pipe's order, the output node's value the answer.

Only a pipe of the plain kind `formulas` 1.3.4 builds with schedula 1.6.15 is planned (data
nodes with filters at most, function nodes of a plain function, one output); anything else,
and any call whose arguments or answers are unusual (a missing or extra argument, an exception
anywhere, a value schedula drops), is computed again by schedula's own pipe, which says what it
makes of it: these formulas are pure, so computing again changes nothing (a RAND's first
draw was never shown).
tests/calc/test_lambda_pipes.py compares the two on every LAMBDA formula of the corpus.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from typing import Any

from formulas.errors import BaseError
from schedula.utils.dsp import DispatchPipe

from rates_xl.errors import Internal

#: The releases whose pipes this reads (any other keeps schedula's dispatch).
READ_FROM = {"formulas": "1.3.4", "schedula": "1.6.15"}

_DATA_KEYS = frozenset({"type", "wait_inputs", "index", "filters"})
_FUNCTION_KEYS = frozenset({"type", "inputs", "outputs", "wait_inputs", "index", "function"})

#: A step of a plan: ("input", node, position, filters), ("value", node, constant, filters),
#: ("made", node, None, filters) or ("call", function, inputs, outputs).
Step = tuple[str, Any, Any, Any]


def speed_up(compiled: Any) -> None:
    """Make `compiled` (a formula `formulas` compiled) and every LAMBDA body inside it `Direct`
    pipes; nothing under other releases."""
    if not _read():
        return
    for pipe in _pipes(compiled, set()):
        if type(pipe) is DispatchPipe:
            pipe.__class__ = Direct  # the same object, its calls planned (the class adds only its plan)


@functools.cache
def _read() -> bool:
    import formulas
    import schedula

    return formulas.__version__ == READ_FROM["formulas"] and schedula.__version__ == READ_FROM["schedula"]


class Direct(DispatchPipe):
    """A DispatchPipe computing its plan directly where it can (the module's docstring)."""

    def __call__(self, *args: Any, **kw: Any) -> Any:
        stop = getattr(STOPPING, "event", None)
        if stop is not None and stop.is_set():  # the book is out of time: end the loop calling this
            raise _OutOfTime
        plan = self.__dict__.get("_rates_xl_plan", _UNPLANNED)
        if plan is _UNPLANNED:
            plan = self.__dict__["_rates_xl_plan"] = _plan(self)
        if plan is not None and not kw and len(args) == plan[1]:
            try:
                answer = _run(plan[0], args)
            except Exception:  # noqa: BLE001 - computed again by schedula, which says what it makes of it
                answer = _UNPLANNED
            if answer is not _UNPLANNED:
                return answer
        return super().__call__(*args, **kw)

    def __getstate__(self) -> Any:  # copied or pickled as schedula's own, the plan made again
        state = dict(super().__getstate__())
        state.pop("_rates_xl_plan", None)
        return state


_UNPLANNED: Any = object()

#: The event that ends the LAMBDA calls of this thread's RATESXL.LAMBDA call (`event`: the
#: book's `Deadline.out_of_time`, set by calc/budget.py when its time runs out; None: never).
#: MAKEARRAY(100000,1000,...) calls its LAMBDA 10^8 times in one cell, about 40 minutes that
#: the engine's cancel, which stops between cells, cannot end.
STOPPING = threading.local()


class _OutOfTime(Internal, BaseError):
    """Raised by a LAMBDA call once the book is out of time. `formulas` answers #VALUE! for
    any other exception in a LAMBDA's body, element by element, and the loop of MAKEARRAY, MAP,
    REDUCE ... would go on; its own BaseError it lets through (functions/__init__.py
    `wrap_func`), so this ends the loop. RATESXL.LAMBDA's callback answers an error, and the
    budget's line names the cell."""


def _pipes(value: Any, seen: set[int]) -> Iterator[Any]:
    """The DispatchPipes reachable from `value`: itself, the LAMBDA values among its constants
    and functions (`LambdaFunction`, a partial of formulas' wrappers of a pipe), theirs in turn."""
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, DispatchPipe):
        yield value
        for node in value.dsp.nodes.values():
            if node.get("type") == "function":
                yield from _pipes(node.get("function"), seen)
        for default in value.dsp.default_values.values():
            yield from _pipes(default.get("value"), seen)
    elif isinstance(value, functools.partial):
        yield from _pipes(value.func, seen)
        for argument in value.args:
            yield from _pipes(argument, seen)
    elif _code(value) in _wrapper_codes():  # wrap_func's and wrap_ranges_func's wrappers: what they wrap
        cells = value.__closure__ or ()
        for name, cell in zip(value.__code__.co_freevars, cells, strict=True):
            if name == "func":
                yield from _pipes(cell.cell_contents, seen)


def _code(value: Any) -> object:
    return getattr(value, "__code__", None)


@functools.cache
def _wrapper_codes() -> frozenset[object]:
    import types

    from formulas import functions

    def inner(outer: Callable[..., object]) -> object:
        (code,) = (c for c in outer.__code__.co_consts if isinstance(c, types.CodeType) and c.co_name == "wrapper")
        return code

    return frozenset({inner(functions.wrap_func), inner(functions.wrap_ranges_func)})


def _plan(pipe: Any) -> tuple[list[Step], int] | None:
    """(the steps, the number of arguments) of `pipe`, or None where it is not of the plain kind."""
    from schedula.dispatcher import Dispatcher
    from schedula.utils.cst import NONE
    from schedula.utils.dsp import SubDispatch, parent_func, run_model

    def plain(function: Any) -> bool:
        parent = parent_func(function)
        return callable(function) and not isinstance(parent, SubDispatch | Dispatcher) and not (
            isinstance(parent, type) and issubclass(parent, run_model))

    if (pipe.output_type != "values" or pipe.output_type_kw or pipe.first_arg_as_kw or pipe.var_keyword
            or len(pipe.outputs or ()) != 1):
        return None
    dsp, solution = pipe.dsp, pipe._sol
    inputs = list(pipe.inputs or ())
    defaults = dsp.default_values
    predecessors = dsp.dmap.pred
    steps: list[Step] = []
    called: set[str] = set()
    valued: set[str] = set()
    for task, next_nodes, next_dispatchers in pipe.pipe:
        node_id, owner = task[-1]
        if owner is not solution or next_dispatchers:
            return None
        node = dsp.nodes.get(node_id)
        if node is None:
            return None
        if node["type"] == "data":
            filters = tuple(node.get("filters", ()))
            if set(node) - _DATA_KEYS or node["wait_inputs"] or not all(plain(f) for f in filters):
                return None
            made_by = list(predecessors[node_id])
            if node_id in inputs:
                if made_by or node_id in defaults:  # a default stands in for a missing argument: schedula's
                    return None
                steps.append(("input", node_id, inputs.index(node_id), filters))
            elif node_id in defaults:
                constant = defaults[node_id]["value"]
                if made_by or constant is NONE:
                    return None
                steps.append(("value", node_id, constant, filters))
            elif len(made_by) == 1 and made_by[0] in called:
                steps.append(("made", node_id, None, filters))
            else:
                return None
            valued.add(node_id)
        elif node["type"] == "function":
            if set(node) - _FUNCTION_KEYS or not plain(node["function"]) or not all(k in valued for k in node["inputs"]):
                return None
            if not next_nodes:  # schedula drops a function that feeds nothing, and the pipe fails
                return None
            steps.append(("call", node["function"], tuple(node["inputs"]), tuple(node["outputs"])))
            called.add(node_id)
        else:
            return None
    if pipe.outputs[0] not in valued or len(set(inputs)) != len(inputs):
        return None
    steps.append(("answer", pipe.outputs[0], None, None))
    return steps, len(inputs)


def _run(steps: list[Step], args: tuple[Any, ...]) -> Any:
    """The plan's answer, or _UNPLANNED where schedula would have dropped a value (NONE)."""
    from schedula.utils.cst import NONE

    values: dict[str, Any] = {}
    made: dict[str, Any] = {}
    for kind, first, second, third in steps:
        if kind == "call":
            answer = first(*[values[k] for k in second])
            for output, value in zip(third, answer if len(third) > 1 else (answer,), strict=False):  # (as schedula)
                if value is not NONE:
                    made[output] = value
            continue
        if kind == "answer":
            return values[first]
        if kind == "input":
            value = args[second]
        elif kind == "value":
            value = second
        elif first in made:
            value = made[first]
        else:
            return _UNPLANNED  # its function's answer was NONE: schedula's pipe fails
        if value is NONE:
            return _UNPLANNED
        for apply in third:
            value = apply(value)
        if value is NONE:
            return _UNPLANNED
        values[first] = value
    return _UNPLANNED
