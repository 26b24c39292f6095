"""tests/support/file_order.py: the files that take longest are handed out first, whole."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from tests.support.file_order import SECONDS, ordered

ROOT = Path(__file__).resolve().parents[1]


def _items(*nodeids):
    return [SimpleNamespace(nodeid=nodeid) for nodeid in nodeids]


def test_the_measured_files_go_first_longest_first_then_by_number_of_tests():
    longest, second = sorted(SECONDS, key=SECONDS.get, reverse=True)[:2]
    items = _items("tests/a.py::one", "tests/b.py::one", "tests/b.py::two", f"{second}::x",
                   f"{longest}::y", f"{second}::z", "tests/c.py::one")
    assert [item.nodeid for item in ordered(items)] == [
        f"{longest}::y", f"{second}::x", f"{second}::z",  # each file whole, its tests in order
        "tests/b.py::one", "tests/b.py::two", "tests/a.py::one", "tests/c.py::one"]


def test_every_measured_file_exists():
    # A file renamed or removed would only lose its place; this says to update SECONDS.
    assert [path for path in SECONDS if not (ROOT / path).is_file()] == []


def test_the_suite_is_collected_in_that_order(request):
    files = list(dict.fromkeys(item.nodeid.split("::")[0] for item in request.session.items))
    measured = [path for path in files if path in SECONDS]
    assert measured == sorted(measured, key=SECONDS.get, reverse=True)
    assert files[:len(measured)] == measured
