"""The run's bytecode written once (tests/support/bytecode.py): where Python may write none, the
controller compiles the project's modules and rewrites the test modules as pytest's import hook
does, and what it wrote is what Python and the hook then read."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from _pytest.assertion import rewrite

from tests.support import bytecode


def test_the_projects_modules_are_compiled_where_python_reads_them():
    module = bytecode.ROOT / "calc" / "formula" / "tree.py"
    cached = Path(importlib.util.cache_from_source(str(module)))
    cached.unlink(missing_ok=True)
    assert bytecode.compile_project()
    data = cached.read_bytes()
    assert data[:4] == importlib.util.MAGIC_NUMBER
    # Up to date as Python checks it: the header holds the source's size (a timestamp-based pyc).
    assert int.from_bytes(data[12:16], "little") == module.stat().st_size


def test_a_test_module_is_rewritten_where_the_hook_reads_it(pytestconfig):
    module = bytecode.ROOT / "tests" / "test_layers.py"
    pyc = bytecode.rewritten(module)
    pyc.unlink(missing_ok=True)
    bytecode._rewrite(pytestconfig, [module])  # (as each of `rewrite_tests`' two processes does)
    code = rewrite._read_pyc(module, pyc)
    assert code is not None  # written, up to date, and read as the hook reads it
    # Rewritten, not merely compiled: the hook's assertion helpers are in it.
    names = set(code.co_names) | {n for c in code.co_consts if hasattr(c, "co_names") for n in c.co_names}
    assert "@pytest_ar" in names


def test_where_no_process_can_be_forked_the_workers_rewrite_as_before(pytestconfig, monkeypatch):
    import multiprocessing

    module = bytecode.ROOT / "tests" / "test_layers.py"
    pyc = bytecode.rewritten(module)
    pyc.unlink(missing_ok=True)
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])  # as on Windows
    bytecode.rewrite_tests(pytestconfig)  # no error, and nothing written
    assert not pyc.exists()
