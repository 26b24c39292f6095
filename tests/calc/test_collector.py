"""calc/collector.py: pauses of the cyclic collector nest, and `until_exit` leaves what lives at
its end out of every later collection. Each check runs in a fresh interpreter: a frozen heap
would otherwise stay frozen for the rest of the test session."""

from __future__ import annotations

import subprocess
import sys

_CHECK = """
import gc
from rates_xl.calc import collector

assert gc.isenabled()
with collector.paused():
    with collector.paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the inner pause's end is not the outer's
assert gc.isenabled()

before = gc.get_freeze_count()
kept = []
with collector.until_exit():
    assert not gc.isenabled()
    for _ in range(20_000):
        pair = [None]
        pair[0] = pair  # a cycle: tracked by the collector
        kept.append(pair)
assert gc.isenabled()
frozen = gc.get_freeze_count() - before
assert frozen >= 20_000, frozen
young = {id(o) for o in gc.get_objects(generation=0)} | {id(o) for o in gc.get_objects(generation=2)}
assert not any(id(pair) in young for pair in kept)  # no collection walks them again
gc.collect()
assert all(pair[0] is pair for pair in kept)
print("ok")
"""


def test_pauses_nest_and_until_exit_freezes_what_lives_at_its_end():
    done = subprocess.run([sys.executable, "-c", _CHECK], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
