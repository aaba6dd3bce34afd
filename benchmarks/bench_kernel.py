"""Benchmark: the exact kernel for 10^6 offsets at d = 512 (``make bench``).

Two evaluations of the kernel kappa(Delta) = (2/d) sum_i cos(Delta theta_i) for the offsets
``0, 1, ..., 10**6 - 1`` at d = 512, b = 10^4, in one process:

* ``posenc_lib`` -- :func:`posenc_lib.kernel`: chunked, angles reduced modulo 2π in double-double;
* ``numpy_outer`` -- the straightforward one-liner
  ``np.cos(np.multiply.outer(delta, theta)).mean(axis=1)`` (one float64 outer product).

Reported: median wall time (the library is timed three times, the one-liner once, because it
takes seconds and gigabytes), their ratio from this same run, the peak memory each allocates
(``tracemalloc``, which sees numpy's buffers), the largest difference between them and each
one's error against 40-digit mpmath values at a few large offsets. Results go to
``benchmarks/results/kernel.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

import posenc_lib as pe

RESULTS = Path(__file__).resolve().parent / "results" / "kernel.json"
DIM, BASE = 512, 10000.0
N_OFFSETS, QUICK_OFFSETS = 1_000_000, 50_000
CHECK_OFFSETS = (1.0, 777.0, 65536.0, 500001.0, 999999.0)


def hardware() -> dict[str, object]:
    """What the numbers were measured on."""
    model = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            model = next(
                (line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")),
                model,
            )
    except OSError:  # pragma: no cover - not Linux
        pass
    try:
        load = round(os.getloadavg()[0], 2)
    except OSError:  # pragma: no cover
        load = None
    return {
        "cpu_model": model,
        "logical_cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "posenc_lib": pe.__version__,
        "long_double_eps": float(np.finfo(np.longdouble).eps),
        "load_average_1min_at_start": load,
    }


def numpy_outer(delta: np.ndarray, dim: int, base: float) -> np.ndarray:
    """The straightforward evaluation: one outer product of offsets and frequencies."""
    theta = pe.frequencies(dim, base)
    return np.cos(np.multiply.outer(delta, theta)).mean(axis=1)


def library(delta: np.ndarray, dim: int, base: float) -> np.ndarray:
    return pe.kernel(delta, dim, base)


def traced(func, *args) -> tuple[np.ndarray, float, int]:
    """Run ``func(*args)`` under tracemalloc: (result, wall seconds, peak bytes allocated)."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    started = time.perf_counter()
    result = func(*args)
    elapsed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return result, elapsed, peak


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
            ref = mpmath.fsum(mpmath.cos(mpmath.mpf(offset) * t) for t in thetas) / (DIM // 2)
            worst = max(worst, abs(float(values[int(offset)]) - float(ref)))
    return worst


def main(argv: list[str] | None = None) -> dict[str, object]:
    """Run the benchmark, print a summary and write ``benchmarks/results/kernel.json``."""
    parser = argparse.ArgumentParser(prog="bench_kernel", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_OFFSETS} offsets (smoke)")
    parser.add_argument("--output", type=Path, default=None, help=f"default: {RESULTS}")
    args = parser.parse_args([] if argv is None else argv)
    n = QUICK_OFFSETS if args.quick else N_OFFSETS
    output = args.output or (None if args.quick else RESULTS)
    started = time.perf_counter()
    info = hardware()
    delta = np.arange(n, dtype=np.float64)
    print(f"bench_kernel: {n} offsets, d = {DIM}, b = {BASE:g}", flush=True)

    library(delta[:1000], DIM, BASE)  # warm-up: frequencies cached, code paths loaded
    lib_times = []
    for _ in range(3):
        t0 = time.perf_counter()
        lib_values = library(delta, DIM, BASE)
        lib_times.append(time.perf_counter() - t0)
    _, _, lib_peak = traced(library, delta, DIM, BASE)
    # One traced run of the one-liner gives its time and its peak memory (tracemalloc only hooks
    # its few large allocations, so its overhead there is negligible).
    naive_values, naive_time, naive_peak = traced(numpy_outer, delta, DIM, BASE)

    lib_time = statistics.median(lib_times)
    result = {
        "benchmark": "bench_kernel",
        "hardware": info,
        "settings": {
            "offsets": f"0, 1, ..., {n - 1} (float64)",
            "n_offsets": n,
            "dim": DIM,
            "base": BASE,
            "library_repeats": len(lib_times),
            "numpy_outer_repeats": 1,
            "statistic": "median wall time (library), single run (numpy_outer)",
        },
        "posenc_lib": {
            "wall_s": lib_time,
            "all_wall_s": lib_times,
            "peak_bytes": lib_peak,
            "max_abs_error_vs_mpmath": reference_errors(lib_values, delta),
        },
        "numpy_outer": {
            "wall_s": naive_time,
            "peak_bytes": naive_peak,
            "max_abs_error_vs_mpmath": reference_errors(naive_values, delta),
        },
        "speedup_numpy_outer_over_posenc_lib": naive_time / lib_time,
        "memory_ratio_numpy_outer_over_posenc_lib": naive_peak / max(lib_peak, 1),
        "max_abs_difference": float(np.max(np.abs(lib_values - naive_values))),
    }
    result["total_wall_s"] = time.perf_counter() - started
    mib = 2**20
    print(
        f"  posenc_lib.kernel : {lib_time:7.2f} s  peak {lib_peak / mib:8.1f} MiB"
        f"  error vs mpmath {result['posenc_lib']['max_abs_error_vs_mpmath']:.1e}"
    )
    print(
        f"  numpy outer       : {naive_time:7.2f} s  peak {naive_peak / mib:8.1f} MiB"
        f"  error vs mpmath {result['numpy_outer']['max_abs_error_vs_mpmath']:.1e}"
    )
    print(
        f"  time ratio (outer / library) {result['speedup_numpy_outer_over_posenc_lib']:.2f},"
        f" memory ratio {result['memory_ratio_numpy_outer_over_posenc_lib']:.0f},"
        f" max |difference| {result['max_abs_difference']:.1e}"
    )
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        temporary = output.with_suffix(".tmp")
        temporary.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        os.replace(temporary, output)
        print(f"wrote {output} in {result['total_wall_s']:.0f} s")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
