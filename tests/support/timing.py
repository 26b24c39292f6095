"""Bounds on waits that hold on a busy machine (CI shares its 2 cores: load 7 to 13 was seen).

A test that asserts "this ended within N s" checks a mechanism: a deadline, a timeout, a
signal. What it must tell apart is the mechanism acting from the alternative, what would end
the wait without it: a hang's own end (the client's 30 s timeout), a trickle's last byte, the
sleep an interrupt should cut short. `within(deadline, alternative)` is that line: the
mechanism's own time plus room for the scheduler (`SLACK_S`, or the deadline again if longer),
never past halfway to the alternative. Speed itself is measured in bench/, never here.
"""

from __future__ import annotations

#: Room for a loaded scheduler: under `stress --cpu 4` on 2 cores (docs/development.md) a
#: runnable thread was held up to about 2 s; the rest is margin.
SLACK_S = 5.0


def within(deadline: float, alternative: float) -> float:
    """The most a wait ended by a mechanism due at `deadline` seconds may take, told apart from
    one ended by `alternative` seconds (which must be later)."""
    assert alternative > deadline, (deadline, alternative)
    return deadline + min((alternative - deadline) / 2, max(deadline, SLACK_S))


#: A client's budgets for a test that checks values, messages or counts, not the budgets
#: themselves (tests/reliability and tests/client do): a cell's 4 s (2 s an attempt) is
#: missed by a sandbox answering late on a loaded machine (load 16-20: a history request and
#: 8 soak cells said "no answer from the service within 2 s"), and the retry that follows
#: changes what the test counts. `RatesClient(..., **PATIENT)`.
PATIENT = {"cell_deadline": 60.0, "timeout": 60.0}
