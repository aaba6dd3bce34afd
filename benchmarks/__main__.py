"""Run every benchmark module: ``python -m benchmarks [--quick] [NAME ...]``.

Modules are discovered, not listed: every ``benchmarks/bench_*.py`` is imported and its
``main(argv)`` called in turn (alphabetical order), with ``["--quick"]`` when ``--quick`` is given.
``NAME`` arguments (``kernel``, ``tables``, ...) select modules by the part after ``bench_``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path


def discover() -> list[str]:
    """Names of the ``bench_*`` modules in this package, sorted."""
    here = Path(__file__).resolve().parent
    return sorted(path.stem for path in here.glob("bench_*.py"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.splitlines()[0]
    )
    parser.add_argument("names", nargs="*", help="run only these (e.g. kernel tables)")
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    args = parser.parse_args(argv)
    modules = discover()
    if args.names:
        unknown = sorted(set(args.names) - {name.removeprefix("bench_") for name in modules})
        if unknown:
            parser.error(f"unknown benchmark(s) {unknown}; known: {[m[6:] for m in modules]}")
        modules = [m for m in modules if m.removeprefix("bench_") in args.names]
    started = time.perf_counter()
    for name in modules:
        print(f"=== {name} ===", flush=True)
        module = importlib.import_module(f"benchmarks.{name}")
        module.main(["--quick"] if args.quick else [])
        print(flush=True)
    print(f"ran {len(modules)} benchmark module(s) in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
