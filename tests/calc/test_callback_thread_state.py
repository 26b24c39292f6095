"""formualizer calls our Python functions from its own worker thread, which Python did not
start: each call used to make that thread a Python thread state and throw it away on return
(with its frame stack: an mmap and a munmap per call, 0.17 of formulas_test.xlsx's 0.45 CPU s
of evaluation). Functions registered through calc/engines/formualizer/callbacks.py keep the
state from one call to the next; what a thread keeps in it (a `threading.local`) shows it."""

from __future__ import annotations

import threading

import formualizer

from rates_xl.calc.engines.formualizer.callbacks import Registrar

CALLS = 40


def _counts(pinning: bool) -> tuple[dict[int, list[int]], set[int]]:
    """Each of CALLS formulas' call of one function: by calling thread, the counts of calls its
    thread state had seen (kept in a `threading.local`) at each of its calls, sorted; and the
    threads that called it. formualizer's default evaluation may share the formulas among one
    worker per core (on a busy machine it does), so the counts are each thread's own."""
    here = threading.local()
    threads: set[int] = set()
    by_thread: dict[int, list[int]] = {}

    def seen() -> float:
        threads.add(threading.get_ident())
        here.calls = getattr(here, "calls", 0) + 1
        by_thread.setdefault(threading.get_ident(), []).append(here.calls)
        return float(here.calls)

    workbook = formualizer.Workbook()
    register = Registrar(workbook).register_function if pinning else workbook.register_function
    register("SEEN", seen, min_args=0, max_args=0, volatile=False, deterministic=False)
    sheet = workbook.sheet("S")
    for row in range(1, CALLS + 1):
        sheet.set_formula(row, 1, f"=SEEN()+{row}-{row}")  # one call each
    workbook.evaluate_all()
    answered = sorted(int(workbook.get_value("S", row, 1)) for row in range(1, CALLS + 1))
    assert answered == sorted(n for counts in by_thread.values() for n in counts)  # each cell got its call's count
    return {thread: sorted(counts) for thread, counts in by_thread.items()}, threads


def test_the_engines_worker_keeps_its_python_state_between_calls() -> None:
    counts, threads = _counts(pinning=True)
    assert threading.get_ident() not in threads  # called from the engine's own thread
    # One state per calling thread, kept: each thread's calls counted 1, 2 ... up to all of its own.
    assert sum(len(seen) for seen in counts.values()) == CALLS
    for seen in counts.values():
        assert seen == list(range(1, len(seen) + 1))
    assert max(len(seen) for seen in counts.values()) > 1  # (some thread made several calls: the state was kept)


def test_without_it_each_call_has_a_fresh_state() -> None:
    # Why callbacks.py pins: registered directly, every call starts from a new thread state.
    counts, threads = _counts(pinning=False)
    assert threading.get_ident() not in threads
    assert {n for seen in counts.values() for n in seen} == {1}
