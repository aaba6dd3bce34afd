"""Benchmarks of posenc_lib: `make bench`, i.e. `python -m benchmarks` (`make test` runs only a
`--quick` smoke test, which writes nothing).

Each ``bench_*.py`` module in this folder has ``parse(argv)`` (its options, the output folder
proved writable before any work), ``run(options)`` and ``main(argv=None)`` doing both; it prints a
summary and writes its results atomically: ``bench_kernel`` under ``benchmarks/results/``,
``bench_tables`` to ``posenc_lib/data/bench_tables.json`` (package data that chapter 11 displays).
"""
