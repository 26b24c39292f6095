"""The formulas RATESXL.LAMBDA computes, run as planned pipes (calc/xlfuncs/logical/pipes.py)
and by schedula's own dispatch: the same outcome (answer's type, dtype, shape, each element's
type and repr, or the same exception) for every LAMBDA formula formulas_test.xlsx computes and
more shapes of formula (a LAMBDA reading an outer name, nested ones, LET, one called in place,
the wrong number of parameters), over every kind of value the engine hands over; and every
pipe of those formulas planned under the releases pipes.py reads (a change in `formulas` or
schedula that alters their shape fails here, not silently in the engine)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from rates_xl.calc.xlfuncs.logical import lambdas, pipes
from tests.support.outcomes import outcome

#: formulas_test.xlsx's (bench/excel_corpus.py), then shapes of our own.
FORMULAS = [
    "=_xlfn.MAKEARRAY(RXL_REF_A,RXL_REF_B,_xlfn.LAMBDA(_xlpm.x,_xlpm.y,_xlpm.x+1+_xlpm.y))",
    "=_xlfn.SCAN(RXL_REF_A,RXL_REF_B,_xlfn.LAMBDA(_xlpm.a,_xlpm.b,_xlpm.a+_xlpm.b^2))",
    "=_xlfn.REDUCE(RXL_REF_A,RXL_REF_B,_xlfn.LAMBDA(_xlpm.a,_xlpm.b,_xlpm.a+_xlpm.b^2))",
    "=_xlfn.BYROW(RXL_REF_A,_xleta.SUM)",
    "=_xlfn.BYCOL(RXL_REF_A,_xlfn.LAMBDA(_xlpm.x,SUM(_xlpm.x)))",
    "=_xlfn.REDUCE(,RXL_REF_A,_xlfn.LAMBDA(_xlpm.a,_xlpm.b,_xlpm.a+_xlpm.b^2))",
    "=_xlfn.SCAN(RXL_REF_A,RXL_REF_B,_xlfn.LAMBDA(_xlpm.a,_xlpm.b,SUM(_xlpm.a)+_xlpm.b^2))",
    "=_xlfn.MAP(RXL_REF_A,_xlfn.LAMBDA(_xlpm.a,_xlpm.a+1),_xlfn.LAMBDA(_xlpm.b,_xlpm.b+3))",
    "=_xlfn.MAP(RXL_REF_A,_xlfn.LAMBDA(_xlpm.a,_xlpm.a^2))",
    "=_xlfn.BYROW(RXL_REF_A,_xlfn.LAMBDA(_xlpm.x,SUM(_xlpm.x)))",
    "=_xlfn.MAP(RXL_REF_A,RXL_REF_B,_xlfn.LAMBDA(_xlpm.a,_xlpm.b,_xlpm.a*RXL_REF_B+_xlpm.b))",
    "=_xlfn.MAP(RXL_REF_A,_xlfn.LAMBDA(_xlpm.a,_xlfn.MAP(RXL_REF_B,_xlfn.LAMBDA(_xlpm.b,_xlpm.a+_xlpm.b))))",
    "=_xlfn.MAP(RXL_REF_A,_xlfn.LAMBDA(_xlpm.a,_xlfn.LET(_xlpm.t,_xlpm.a*2,_xlpm.t+1)))",
    "=_xlfn.MAP(RXL_REF_A,_xlfn.LAMBDA(_xlpm.a,_xlfn.LAMBDA(_xlpm.q,_xlpm.q&\"!\")(_xlpm.a)))",
    "=_xlfn.MAP(RXL_REF_A,_xlfn.LAMBDA(_xlpm.a,_xlpm.b,_xlpm.a+_xlpm.b))",
    "=_xlfn.SCAN(\"\",RXL_REF_A,_xlfn.LAMBDA(_xlpm.a,_xlpm.b,_xlpm.a&_xlpm.b))",
    "=_xlfn.MAKEARRAY(RXL_REF_A,RXL_REF_B,_xlfn.LAMBDA(_xlpm.r,_xlpm.c,IF(_xlpm.r>_xlpm.c,1/0,_xlpm.r*_xlpm.c)))",
    "=_xlfn.BYCOL(RXL_REF_A,_xleta.MAX)",
    "=_xlfn.REDUCE(0,RXL_REF_A,_xlfn.LAMBDA(_xlpm.a,_xlpm.b,IF(ISNUMBER(_xlpm.b),_xlpm.a+_xlpm.b,_xlpm.a)))",
]

#: The engine's values (calc/engines/formualizer/values.py), scalars and arrays.
VALUES: list[Any] = [
    2.0, 0.0, -1.0, 2.3, "1", "ciao", "", True, None, {"type": "Error", "kind": "Div"},
    [[1.0, 2.0, 3.0]], [[1.0], [3.0]], [[0.0, 1.0, 2.3], [1.0, 2.0, 3.0]],
    [[1.0, "a", None], [True, {"type": "Error", "kind": "Na"}, -2.5]],
]


def _read() -> None:
    if not pipes._read():
        import formulas
        import schedula

        pytest.skip(f"formulas {formulas.__version__}, schedula {schedula.__version__}: pipes.py reads "
                    f"{pipes.READ_FROM} (another keeps schedula's dispatch)")


def _plain(formula: str) -> Any:
    """`formula` compiled as lambdas.py compiles it, without the planned pipes."""
    import formulas

    lambdas._compiled(formula)  # (formulas' MAP and SCAN replaced first, as for the sped one)
    return formulas.Parser().ast(formula)[1].compile()


@pytest.mark.parametrize("formula", FORMULAS)
def test_planned_pipes_answer_as_schedula(formula: str) -> None:
    _read()
    from rates_xl.calc.xlfuncs.bridge import to_formulas

    sped, plain = lambdas._compiled(formula), _plain(formula)
    found = list(pipes._pipes(sped, set()))
    assert found and all(type(p) is pipes.Direct for p in found)
    inputs = list(plain.inputs)
    assert list(sped.inputs) == inputs
    compared = 0
    for values in itertools.product(VALUES, repeat=len(inputs)):
        args = tuple(to_formulas(v) for v in values)
        assert outcome(sped, args) == outcome(plain, args), (formula, values)
        compared += 1
    assert compared == len(VALUES) ** len(inputs)


@pytest.mark.parametrize("formula", FORMULAS[:10])
def test_the_corpus_formulas_are_planned(formula: str) -> None:
    _read()
    found = list(pipes._pipes(lambdas._compiled(formula), set()))
    assert len(found) >= 2 if "LAMBDA(" in formula else len(found) >= 1
    assert all(pipes._plan(p) is not None for p in found), formula


def test_a_call_schedula_refuses_is_schedula_s() -> None:
    """A missing or an extra argument is not planned: schedula's own TypeError."""
    _read()
    sped = lambdas._compiled(FORMULAS[8])
    plain = _plain(FORMULAS[8])
    assert outcome(sped, ()) == outcome(plain, ()) and outcome(sped, ())[0] == "raised"
    assert outcome(sped, (1.0, 2.0)) == outcome(plain, (1.0, 2.0)) and outcome(sped, (1.0, 2.0))[0] == "raised"
