"""Benchmarks of posenc_lib: `make bench`, i.e. `python -m benchmarks` (never run by `make test`).

Each ``bench_*.py`` module in this folder has a ``main(argv=None)`` that runs it, prints a summary
and writes its results: ``bench_kernel`` under ``benchmarks/results/``, ``bench_tables`` to
``posenc_lib/data/bench_tables.json`` (package data that chapter 8 displays).
"""
