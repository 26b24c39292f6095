"""One client process of the multi-process tests and the team benchmark (run as a script).

    python tests/support/team_worker.py '{"base_url": ..., "api_key": ..., "settings": {...},
        "requests": [[endpoint, {params}], ...], "start_at": <time.time()>, "threads": 8,
        "batches": 1}'

Builds one `RatesClient` (team and persistent settings as given), waits for `start_at` so
that every process starts together, fetches the requests concurrently with `fetch_many`
(as the headless calc and the ribbon do), and prints one JSON line: how many were answered,
the errors, the client's stats and the seconds it took. With `batches` > 1 the requests are
dealt into that many `fetch_many` calls running at once, as a team server's batch pool runs
its users' batches (each on up to `threads` fetch threads of its own).
"""

import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from rates_xl.client import RatesClient, RatesError


def main(spec: dict) -> dict:
    client = RatesClient(base_url=spec["base_url"], api_key=spec["api_key"],
                         max_workers=spec.get("threads", 8), **spec.get("settings", {}))
    keys = [client.request_key(endpoint, **params) for endpoint, params in spec["requests"]]
    delay = spec.get("start_at", 0) - time.time()
    if delay > 0:
        time.sleep(delay)
    started = time.monotonic()
    batches = spec.get("batches", 1)
    with ThreadPoolExecutor(max_workers=batches) as pool:
        results = {}
        for part in pool.map(client.fetch_many, [keys[i::batches] for i in range(batches)]):
            results.update(part)
    elapsed = time.monotonic() - started
    errors = [f"{key}: {value}" for key, value in results.items() if isinstance(value, RatesError)]
    out = {"answered": sum(1 for v in results.values() if not isinstance(v, RatesError)),
           "distinct": len(results), "errors": errors[:20], "seconds": elapsed,
           "stats": client.stats()}
    client.close()
    return out


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))), flush=True)


def run_workers(specs: list[dict], timeout: float = 120.0) -> list[dict]:
    """Run one worker process per spec, all at once; their results in the same order."""
    import os
    import subprocess

    processes = [
        subprocess.Popen([sys.executable, os.path.abspath(__file__), json.dumps(spec)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for spec in specs
    ]
    results = []
    for process in processes:
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
            raise AssertionError(f"a worker did not finish within {timeout:g} s: {err[-2000:]}") from None
        if process.returncode != 0 or not out.strip():
            raise AssertionError(f"a worker failed ({process.returncode}): {err[-2000:]}")
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results
