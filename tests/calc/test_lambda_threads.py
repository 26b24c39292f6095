"""formualizer calls RATESXL.LAMBDA from several threads, and every call of one LAMBDA text
shares its compiled formula (schedula's DispatchPipe, which keeps the solution of its last
call on itself: "not thread safe"). Calls made at once from several threads must each get
the answer of their own values, as the same calls made one after the other do."""

from __future__ import annotations

import threading

from rates_xl.calc.xlfuncs.logical.lambdas import call_lambda

SCAN = "=_xlfn.SCAN(RXL_REF_A,RXL_REF_B,_xlfn.LAMBDA(_xlpm.a,_xlpm.b,_xlpm.a+_xlpm.b^2))"
MAP = "=_xlfn.MAP(RXL_REF_A,_xlfn.LAMBDA(_xlpm.x,_xlpm.x*10+1))"


def _calls() -> list[tuple[str, tuple[object, ...]]]:
    calls: list[tuple[str, tuple[object, ...]]] = []
    for k in range(40):
        calls.append((SCAN, (float(k), [[1.0, 2.0, float(k)], [3.0, 4.0, 5.0]])))
        calls.append((MAP, ([[float(k), float(k + 1)], [float(-k), 0.5]],)))
    return calls


def test_each_thread_gets_the_answer_of_its_own_values() -> None:
    calls = _calls()
    expected = [call_lambda(formula, *values) for formula, values in calls]
    assert expected[0] == [[1.0, 5.0, 5.0], [14.0, 30.0, 55.0]]  # SCAN from 0: 0+1, 1+4, 5+0 ...
    assert expected[1] == [[1.0, 11.0], [1.0, 6.0]]

    answers: list[list[object]] = [[] for _ in range(4)]
    start = threading.Barrier(len(answers))

    def worker(n: int) -> None:
        start.wait()
        for formula, values in calls if n % 2 == 0 else reversed(calls):
            answers[n].append(call_lambda(formula, *values))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(len(answers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for n, got in enumerate(answers):
        assert got == (expected if n % 2 == 0 else expected[::-1]), f"thread {n}"
