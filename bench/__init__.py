"""Benchmarks: `python -m bench` (see bench/__main__.py); results in bench/results/."""

import os as _os
import tempfile as _tempfile

# The benchmarks measure the way to the service, run after run against one sandbox: an
# answer kept on disk by one run must not serve the next, nor land in the user's cache
# folder. Benchmarks of the persistent tier itself (bench/team.py) turn it on explicitly.
_os.environ["RATES_PERSISTENT"] = "false"
_os.environ["RATES_CACHE_DIR"] = _tempfile.mkdtemp(prefix="rates-xl-bench-")
_os.environ.pop("RATES_TEAM_URL", None)
