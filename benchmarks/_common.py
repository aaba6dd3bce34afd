"""Shared by the ``bench_*`` modules: their options, what a run was measured on, writing its
results (atomically, output folder checked before any work), Ctrl-C as a one-line message."""

from __future__ import annotations

import argparse
import os
import platform
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

import posenc_lib as pe

# the command-line helpers the repository's tools share (scripts/_cli.py)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from _cli import (
    cpu_model,
    interrupt_once,
    load_average,
    report_write_error,
    writable_output_path,
    write_json_atomic,
)


def hardware(**extra: object) -> dict[str, object]:
    """CPU, platform and versions of the run, the 1-minute load average, plus ``extra``."""
    return {
        "cpu_model": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "posenc_lib": pe.__version__,
        **extra,
        "load_average_1min_at_start": load_average(),
    }


def parse_args(
    parser: argparse.ArgumentParser, argv: list[str] | None, default: Path
) -> argparse.Namespace:
    """Parse the options of a ``bench_*`` module, ``--quick`` and ``--output``, checked.

    ``args.output`` becomes where the results go: ``--output``, else ``default`` for a full run
    and ``None`` (write nothing) for ``--quick``. Its folder is proved writable here, before any
    measurement (an argparse error, exit status 2, otherwise).
    """
    # a str, not a Path: Path drops the trailing slash of a folder name
    parser.add_argument("--output", default=None, help=f"default: {default}")
    args = parser.parse_args([] if argv is None else argv)
    args.output = args.output or (None if args.quick else default)
    if args.output is not None:
        try:
            args.output = writable_output_path(args.output)
        except ValueError as exc:
            parser.error(f"argument --output: {exc}")
    return args


def write_results(result: dict[str, object], output: Path) -> None:
    """Write ``result`` as JSON to ``output`` atomically, under a unique temporary name.

    A write that fails (a full disk) leaves ``output`` as it was and ends the program with one
    line saying so and exit status 1 (``SystemExit``), not a traceback.
    """
    try:
        write_json_atomic(result, output)
    except OSError as exc:
        prog = str(result.get("benchmark", "benchmarks"))
        lost = f"the measurements are lost ({output} untouched)"
        raise SystemExit(report_write_error(prog, output, exc, lost)) from None


def finish(result: dict[str, object], output: Path | None) -> dict[str, object]:
    """Write ``result`` to ``output`` (if any, by :func:`write_results`), say so, return it."""
    if output is not None:
        write_results(result, output)
        print(f"wrote {output} in {result['total_wall_s']:.0f} s")
    return result


def command_line(main: Callable[[list[str]], object], prog: str) -> int:
    """Run ``main(sys.argv[1:])`` as a program: Ctrl-C exits 130 with one line, no traceback
    (a second Ctrl-C while the first is handled is ignored)."""
    with interrupt_once():
        try:
            main(sys.argv[1:])
        except KeyboardInterrupt:
            print(f"{prog}: interrupted; nothing written", file=sys.stderr)
            return 130
    return 0
