"""Run every benchmark module: ``python -m benchmarks [--quick] [--output-dir DIR] [NAME ...]``.

Modules are discovered, not listed: every ``benchmarks/bench_*.py`` is imported and run in turn
(alphabetical order), with ``--quick`` when ``--quick`` is given. ``NAME`` arguments (``kernel``,
``tables``, ...) select modules by the part after ``bench_``. Each module writes its results file
(its default place, or ``DIR`` with ``--output-dir``; nothing with ``--quick`` unless ``DIR`` is
given). Every module's options and output folder are checked before the first one runs. Ctrl-C
keeps the files of the modules that finished and exits with status 130 and a one-line message.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

# the command-line helpers the repository's tools share (scripts/_cli.py)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from _cli import interrupt_once, writable_output_path

PROG = "python -m benchmarks"


def discover() -> list[str]:
    """Names of the ``bench_*`` modules in this package, sorted."""
    here = Path(__file__).resolve().parent
    return sorted(path.stem for path in here.glob("bench_*.py"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="run only these (e.g. kernel tables)")
    parser.add_argument(
        "--quick", action="store_true", help="small sizes, for a smoke test"
    )
    parser.add_argument(
        "--output-dir",
        type=Path,
        default=None,
        help="write each module's results file into this folder instead of its default place",
    )
    args = parser.parse_args(argv)
    modules = discover()
    if args.names:
        unknown = sorted(
            set(args.names) - {name.removeprefix("bench_") for name in modules}
        )
        if unknown:
            parser.error(
                f"unknown benchmark(s) {unknown}; known: {[m[6:] for m in modules]}"
            )
        modules = [m for m in modules if m.removeprefix("bench_") in args.names]
    planned = []  # (name, module, its checked options): nothing runs until all are checked
    for name in modules:
        module = importlib.import_module(f"benchmarks.{name}")
        sub_argv = ["--quick"] if args.quick else []
        if args.output_dir is not None:
            try:
                output = writable_output_path(args.output_dir / module.RESULTS.name)
            except ValueError as exc:
                parser.error(f"argument --output-dir: {exc}")
            sub_argv += ["--output", str(output)]
        planned.append((name, module, module.parse(sub_argv)))
    started = time.perf_counter()
    written: list[str] = []
    name = ""
    with interrupt_once():  # a second Ctrl-C cannot cut the one line of the first short
        try:
            for name, module, options in planned:
                print(f"=== {name} ===", flush=True)
                module.run(options)
                if options.output is not None:
                    written.append(str(options.output))
                print(flush=True)
        except KeyboardInterrupt:
            kept = f"kept {', '.join(written)}" if written else "nothing written"
            print(
                f"{PROG}: interrupted in {name} ({kept}; {name} wrote nothing)",
                file=sys.stderr,
            )
            return 130
    print(
        f"ran {len(planned)} benchmark module(s) in {time.perf_counter() - started:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
