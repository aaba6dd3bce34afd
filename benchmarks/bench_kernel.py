"""Benchmark: the exact kernel for 10^6 offsets at d = 512 (``make bench``).

Three evaluations of the kernel kappa(Delta) = (2/d) sum_i cos(Delta theta_i) for the offsets
``0, 1, ..., 10**6 - 1`` at d = 512, b = 10^4, in one process:

* ``posenc_lib`` -- :func:`posenc_lib.kernel`: chunked, angles reduced modulo 2π exactly in
  double-double arithmetic from extended-precision frequencies;
* ``numpy_outer`` -- the straightforward one-liner
  ``np.cos(np.multiply.outer(delta, theta)).mean(axis=1)`` (one float64 outer product);
* ``numpy_chunked`` -- the same float64 formula in chunks of the library's size: the plain
  evaluation without the exact reduction, so its ratio to the library is the price of that
  reduction (and of its accuracy: compare the errors).

Reported: wall and CPU time (median of three interleaved runs for the chunked evaluations;
the one-liner runs once, because it takes seconds and gigabytes), the ratios from this same run,
the peak memory each allocates (``tracemalloc``, which sees numpy's buffers), the largest
difference between the library and the one-liner and each one's error against 40-digit mpmath
values at a few large offsets. Results go to ``benchmarks/results/kernel.json``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np

import posenc_lib as pe
from benchmarks._common import command_line, finish, hardware, parse_args
from posenc_lib import exact_kernel

RESULTS = Path(__file__).resolve().parent / "results" / "kernel.json"
DIM, BASE = 512, 10000.0
N_OFFSETS, QUICK_OFFSETS = 1_000_000, 50_000
CHECK_OFFSETS = (1.0, 777.0, 65536.0, 500001.0, 999999.0)
REPEATS = 3


def numpy_outer(delta: np.ndarray, dim: int, base: float) -> np.ndarray:
    """The straightforward evaluation: one outer product of offsets and frequencies."""
    theta = pe.frequencies(dim, base=base)
    return np.cos(np.multiply.outer(delta, theta)).mean(axis=1)


def numpy_chunked(delta: np.ndarray, dim: int, base: float) -> np.ndarray:
    """The same float64 formula, in blocks of the library's size (bounded memory)."""
    theta = pe.frequencies(dim, base=base)
    step = max(1, exact_kernel._CHUNK_ELEMENTS // theta.size)
    out = np.empty(delta.size)
    for start in range(0, delta.size, step):
        block = np.multiply.outer(delta[start : start + step], theta)
        out[start : start + step] = np.cos(block, out=block).mean(axis=1)
    return out


def library(delta: np.ndarray, dim: int, base: float) -> np.ndarray:
    return pe.kernel(delta, dim, base=base)


def timed(func: Callable[..., np.ndarray], *args) -> tuple[np.ndarray, float, float]:
    """Run ``func(*args)``: (result, wall seconds, CPU seconds of this process)."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = func(*args)
    return result, time.perf_counter() - wall, time.process_time() - cpu


def traced(
    func: Callable[..., np.ndarray], *args
) -> tuple[np.ndarray, float, float, int]:
    """Run ``func(*args)`` under tracemalloc: (result, wall s, CPU s, peak bytes allocated)."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    result, wall, cpu = timed(func, *args)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return result, wall, cpu, peak


def reference_errors(values: np.ndarray, delta: np.ndarray) -> float:
    """Largest error at CHECK_OFFSETS against 40-digit mpmath sums (mpmath is in the book env)."""
    import mpmath

    worst = 0.0
    with mpmath.workdps(40):
        b = mpmath.mpf(BASE)
        thetas = [b ** (-mpmath.mpf(2 * i) / DIM) for i in range(DIM // 2)]
        for offset in CHECK_OFFSETS:
            if offset >= delta.size:
                continue
            ref = mpmath.fsum(mpmath.cos(mpmath.mpf(offset) * t) for t in thetas) / (
                DIM // 2
            )
            worst = max(worst, abs(float(values[int(offset)]) - float(ref)))
    return worst


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The options of ``argv``, checked (``--output``'s folder writable) before any work."""
    parser = argparse.ArgumentParser(
        prog="bench_kernel", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--quick", action="store_true", help=f"{QUICK_OFFSETS} offsets (smoke)"
    )
    return parse_args(parser, argv, RESULTS)


def main(argv: list[str] | None = None) -> dict[str, object]:
    """Run the benchmark, print a summary and write ``benchmarks/results/kernel.json``."""
    return run(parse(argv))


def run(args: argparse.Namespace) -> dict[str, object]:
    """Run the benchmark with options from :func:`parse`."""
    n = QUICK_OFFSETS if args.quick else N_OFFSETS
    output = args.output
    started = time.perf_counter()
    info = hardware(
        long_double_eps=float(np.finfo(np.longdouble).eps),
        frequency_route=exact_kernel._frequency_route(),
    )
    delta = np.arange(n, dtype=np.float64)
    print(f"bench_kernel: {n} offsets, d = {DIM}, b = {BASE:g}", flush=True)

    chunked_funcs = {"posenc_lib": library, "numpy_chunked": numpy_chunked}
    for func in chunked_funcs.values():
        func(delta[:1000], DIM, BASE)  # warm-up: frequencies cached, code paths loaded
    runs: dict[str, list[tuple[np.ndarray, float, float]]] = {
        name: [] for name in chunked_funcs
    }
    for _ in range(REPEATS):  # interleaved, so that a change of load hits both alike
        for name, func in chunked_funcs.items():
            runs[name].append(timed(func, delta, DIM, BASE))
    entries: dict[str, dict[str, object]] = {}
    values = {name: runs[name][0][0] for name in chunked_funcs}
    for name, func in chunked_funcs.items():
        _, _, _, peak = traced(func, delta, DIM, BASE)
        entries[name] = {
            "wall_s": statistics.median(r[1] for r in runs[name]),
            "cpu_s": statistics.median(r[2] for r in runs[name]),
            "all_wall_s": [r[1] for r in runs[name]],
            "peak_bytes": peak,
        }
    # One traced run of the one-liner gives its time and its peak memory (tracemalloc only hooks
    # its few large allocations, so its overhead there is negligible).
    values["numpy_outer"], wall, cpu, peak = traced(numpy_outer, delta, DIM, BASE)
    entries["numpy_outer"] = {
        "wall_s": wall,
        "cpu_s": cpu,
        "all_wall_s": [wall],
        "peak_bytes": peak,
    }
    for name, entry in entries.items():
        entry["max_abs_error_vs_mpmath"] = reference_errors(values[name], delta)

    lib, outer, chunked = (
        entries["posenc_lib"],
        entries["numpy_outer"],
        entries["numpy_chunked"],
    )
    result = {
        "benchmark": "bench_kernel",
        "hardware": info,
        "settings": {
            "offsets": f"0, 1, ..., {n - 1} (float64)",
            "n_offsets": n,
            "dim": DIM,
            "base": BASE,
            "repeats": {
                "posenc_lib": REPEATS,
                "numpy_chunked": REPEATS,
                "numpy_outer": 1,
            },
            "statistic": "median of the repeats (wall and CPU time separately)",
        },
        **entries,
        "speedup_numpy_outer_over_posenc_lib": outer["wall_s"] / lib["wall_s"],
        "cpu_ratio_numpy_outer_over_posenc_lib": outer["cpu_s"] / lib["cpu_s"],
        "memory_ratio_numpy_outer_over_posenc_lib": outer["peak_bytes"]
        / max(lib["peak_bytes"], 1),
        "cost_of_exact_reduction_posenc_lib_over_numpy_chunked": lib["wall_s"]
        / chunked["wall_s"],
        "cpu_cost_of_exact_reduction": lib["cpu_s"] / chunked["cpu_s"],
        "max_abs_difference_posenc_lib_vs_numpy_outer": float(
            np.max(np.abs(values["posenc_lib"] - values["numpy_outer"]))
        ),
    }
    result["total_wall_s"] = time.perf_counter() - started
    mib = 2**20
    for name, entry in entries.items():
        print(
            f"  {name:<14}: {entry['wall_s']:7.2f} s wall {entry['cpu_s']:7.2f} s CPU"
            f"  peak {entry['peak_bytes'] / mib:8.1f} MiB"
            f"  error vs mpmath {entry['max_abs_error_vs_mpmath']:.1e}"
        )
    print(
        f"  numpy_outer / posenc_lib: time {result['speedup_numpy_outer_over_posenc_lib']:.2f}"
        f" (CPU {result['cpu_ratio_numpy_outer_over_posenc_lib']:.2f}),"
        f" memory {result['memory_ratio_numpy_outer_over_posenc_lib']:.0f};"
        f" max |difference| {result['max_abs_difference_posenc_lib_vs_numpy_outer']:.1e}"
    )
    print(
        f"  posenc_lib / numpy_chunked (price of the exact reduction): time"
        f" {result['cost_of_exact_reduction_posenc_lib_over_numpy_chunked']:.2f}"
        f" (CPU {result['cpu_cost_of_exact_reduction']:.2f})"
    )
    return finish(result, output)


if __name__ == "__main__":
    sys.exit(command_line(main, "bench_kernel"))
