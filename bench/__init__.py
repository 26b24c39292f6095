"""Benchmarks: `python -m bench` (see bench/__main__.py); results in bench/results/."""

import atexit as _atexit
import os as _os
import shutil as _shutil
import sys as _sys
import tempfile as _tempfile

#: The settings set here for the way to the service: a benchmark of a book that asks no service
#: drops them, so that it reads the settings as a user with none set does (calc's budget loads
#: pydantic only when a RATES_* variable is set: bench/calc_speed.py).
SERVICE_SETTINGS = ("RATES_PERSISTENT", "RATES_CACHE_DIR")

# The benchmarks measure the way to the service, run after run against one sandbox: an
# answer kept on disk by one run must not serve the next, nor land in the user's cache
# folder. Benchmarks of the persistent tier itself (bench/team.py) turn it on explicitly.
# Not under pytest (tests never import bench/, but a test may run a benchmark's module):
# tests/conftest.py gives each test its own cache folder, and this process-wide switch
# would turn the persistent tier off for every test that follows.
if "pytest" not in _sys.modules:
    _os.environ["RATES_PERSISTENT"] = "false"
    _CACHE_DIR, _CACHE_DIR_OWNER = _tempfile.mkdtemp(prefix="rates-xl-bench-"), _os.getpid()
    _os.environ["RATES_CACHE_DIR"] = _CACHE_DIR

    def _remove_cache_dir() -> None:
        """At exit, by the process that made it (not a forked child): every benchmark, and
        each book's child of bench.excel_corpus, left one in /tmp."""
        if _os.getpid() == _CACHE_DIR_OWNER:
            _shutil.rmtree(_CACHE_DIR, ignore_errors=True)

    _atexit.register(_remove_cache_dir)
    _os.environ.pop("RATES_TEAM_URL", None)
