"""Benchmarks: `python -m bench` (see bench/__main__.py); results in bench/results/."""
