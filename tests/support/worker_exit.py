"""A pytest plugin (tests/conftest.py loads it): an xdist worker finishing its session ignores
the SIGINT that execnet sends it.

When the run is over, pytest-xdist asks each worker to exit, and execnet gives the worker's
main task 5 s to end; past that it sends the worker a SIGINT ("execution ongoing after 5
secs, trying interrupt_main": execnet/gateway_base.py, WorkerGateway._terminate_execution)
and gives it 10 s more before `os._exit`. Every test has finished and reported by then; what
is left is pytest's unconfigure, which collects the garbage of the whole session twice
(`gc_collect_harder` in _pytest/unraisableexception.py) and runs the finalizers it finds:
on a loaded machine (CI's 2 cores, 4 workers, other work) that can pass 5 s. The SIGINT then
lands wherever Python is: inside hypothesis' gc callback it printed "Exception ignored in:
<function gc_cumulative_time.<locals>.gc_callback> ... KeyboardInterrupt" on stderr in a
green run (issue 31); elsewhere it would cut the clean-up short. Ignored from the worker's
sessionfinish on, the clean-up completes and the worker exits; a worker truly stuck is still
ended by execnet's `os._exit` 10 s later. A real Ctrl+C still stops the run: the controller
handles it and tears the workers down.
"""

from __future__ import annotations

import signal

import pytest


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    if hasattr(session.config, "workerinput"):  # an xdist worker (the controller keeps Ctrl+C)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
