"""A pytest plugin (tests/conftest.py loads it): where Python is told to write no bytecode
(PYTHONDONTWRITEBYTECODE, as on CI), the project's bytecode, and pytest's rewritten test
modules, are written once, by the controller, before any xdist worker starts.

Told so, Python compiles each module it imports from source, every time, and writes nothing
down; pytest likewise rewrites each test module's asserts every time (it keeps its rewritten
modules only where Python may write bytecode). So each of the 4 workers rewrote every test
module (12 CPU s of a worker's 24 s collection) and compiled the package, and each of the
suite's ~200 `rates-xl` commands compiled what it imports (a `rates-xl calc` of a small book:
0.82 CPU s from source, 0.36 s from bytecode). Both are read where they are found even when
nothing may be written: written here once, every process of the run reads them. (`pip
install` compiles an installed package's bytecode whatever the setting: a user's `rates-xl`
reads bytecode; an editable install, the README's test command, does not.)

The files are __pycache__ folders beside the sources, which git ignores; a later run finds
them up to date and writes nothing. The rewritten modules are written with pytest's own
functions (private: `_rewrite_test`, `_write_pyc`); should they change, the workers rewrite
the modules themselves, as before, and nothing else differs.
"""

from __future__ import annotations

import compileall
import multiprocessing
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Top-level folders that hold none of the project's Python (a venv, a build, the built site).
_NOT_OURS = {"build", "site", "venv", "node_modules"}
#: Inside the project's folders: npm's packages (the Office.js add-in's tools), and the modules
#: pytest rewrites and caches its own way (test files, conftest.py).
_SKIPPED = re.compile(r"[\\/]node_modules[\\/]|[\\/](test_[^\\/]*|conftest)\.py$")


def compile_project() -> bool:
    """Compile each module of the project's folders that is out of date; whether all compiled.
    (Folder by folder: `compileall.compile_dir` of the root would walk the venv too.)"""
    folders = sorted(d for d in ROOT.iterdir() if d.is_dir() and not d.name.startswith(".") and d.name not in _NOT_OURS)
    return all([compileall.compile_dir(d, quiet=1, rx=_SKIPPED) for d in folders])


def rewritten(fn: Path) -> Path:
    """Where pytest's import hook reads the rewritten module of test file `fn`."""
    from _pytest.assertion import rewrite

    return rewrite.get_cache_dir(fn) / (fn.name[:-3] + rewrite.PYC_TAIL)


def _rewrite(config: pytest.Config, files: list[Path]) -> None:
    """Each of `files` rewritten as pytest's import hook rewrites it, and its rewritten module
    written where the hook reads it (unless an up-to-date one is there)."""
    try:
        from _pytest.assertion import rewrite

        state = config.stash[rewrite.assertstate_key]
        for fn in files:
            pyc = rewritten(fn)
            if rewrite._read_pyc(fn, pyc) is None and rewrite.try_makedirs(pyc.parent):
                try:
                    source_hash, co = rewrite._rewrite_test(fn, config)
                except SyntaxError:
                    continue  # the worker's collection reports it
                rewrite._write_pyc(state, co, source_hash, pyc)
    except Exception:  # pytest's functions are not as they were: the workers rewrite, as before
        return


def rewrite_tests(config: pytest.Config) -> None:
    """The test modules and conftest files rewritten in two processes (forked: they share this
    one's config); nothing if pytest's functions are not as they were."""
    if config.getoption("assertmode", "rewrite") != "rewrite":
        return
    if "fork" not in multiprocessing.get_all_start_methods():  # Windows: the workers rewrite, as before
        return
    files = sorted(p for p in (ROOT / "tests").rglob("*.py") if p.name == "conftest.py" or p.name.startswith("test_"))
    halves = [multiprocessing.get_context("fork").Process(target=_rewrite, args=(config, files[i::2]))
              for i in (0, 1)]  # (forked: the config is not pickled)
    for half in halves:
        half.start()
    for half in halves:
        half.join()  # a half that failed (pytest's functions changed) leaves its modules to the workers


def pytest_configure(config: pytest.Config) -> None:
    if sys.dont_write_bytecode and not hasattr(config, "workerinput"):  # the controller, or a run without xdist
        compile_project()
        rewrite_tests(config)
