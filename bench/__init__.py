"""Benchmarks: `python -m bench` (see bench/__main__.py); results in bench/results/."""

import os as _os
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
    _os.environ["RATES_CACHE_DIR"] = _tempfile.mkdtemp(prefix="rates-xl-bench-")
    _os.environ.pop("RATES_TEAM_URL", None)
