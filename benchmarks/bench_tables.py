"""Benchmark: sinusoidal table generation against common implementations (``make bench``).

For each (L, d) in :data:`SIZES` and each output dtype, time (median of several repeats, all in
one run and one process) and measure the peak extra memory and the accuracy of:

* ``posenc_lib`` -- :func:`posenc_lib.sinusoidal` (angle addition, chapter 11);
* ``textbook_numpy`` -- the textbook numpy code: float64 outer product of positions and
  frequencies, ``np.sin``/``np.cos`` into the strided slices ``[:, 0::2]``/``[:, 1::2]`` of a zeros
  array, converted to the requested dtype at the end;
* ``textbook_numpy_lowp`` -- the same code written with the requested dtype throughout (angles in
  float32 for a float32 table); float32 only;
* ``pytorch_tutorial`` -- the PyTorch tutorial / Annotated Transformer code (torch, angles in the
  table's dtype, float32 by default);
* ``direct_float64`` -- float64 angles, one ``np.sin`` and one ``np.cos`` per entry
  (:func:`posenc_lib.sinusoidal` with ``method="direct"``);
* ``fill_floor`` -- ``np.full`` of an array of the same shape and dtype: the cost of allocating
  and writing the memory, a floor no generator can beat.

Then the forward overhead of :class:`posenc_lib.nn.SinusoidalPositionalEncoding` against adding a
precomputed buffer slice. A ratio table is printed, and the results (with the hardware, the
versions and the load average at the start and the end of the run) are written to
``posenc_lib/data/bench_tables.json``. The file ships inside the package because chapter 11
displays it: the chapter reads it with :mod:`importlib.resources`, so it works the same in a
checkout, an installed wheel and Colab, with no network. The chapter's printed numbers come from
that file, so after a new run re-execute the chapter
(``make execute NB=notebooks/11_engineering.ipynb``) before committing both.

Run it with ``python -m benchmarks tables`` (``make bench`` runs every benchmark), or
``python -m benchmarks.bench_tables --quick`` for a smoke test that writes nothing.
"""

from __future__ import annotations

import argparse
import ctypes
import math
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import posenc_lib as pe
from benchmarks._common import (
    command_line,
    finish,
    hardware,
    load_average,
    parse_args,
)
from posenc_lib import angle_addition
from posenc_lib.high_precision import reference_entries

SIZES = ((2048, 512), (32768, 1024), (131072, 1024))
QUICK_SIZES = ((256, 64), (2048, 128))
DTYPES = ("float32", "float64")
TARGET_SIZE = (32768, 1024)
TARGETS = {"textbook_numpy": 10.0, "pytorch_tutorial": 3.0, "fill_floor_within": 5.0}
#: Where a full run writes its results: the package data of the checkout's ``posenc_lib`` (not of
#: an installed copy), shipped in the wheel and read by chapter 11 with importlib.resources.
RESULTS = (
    Path(__file__).resolve().parent.parent / "posenc_lib" / "data" / "bench_tables.json"
)
#: Sampled entries per size for the accuracy column (mpmath reference).
ACCURACY_SAMPLES = 600


# ---------------------------------------------------------------------------------------------
# The implementations (each returns the table; torch ones return a tensor)
# ---------------------------------------------------------------------------------------------


def textbook_numpy(max_len: int, d_model: int, dtype: str) -> np.ndarray:
    """The textbook numpy code (float64), converted to ``dtype`` at the end."""
    pe_ = np.zeros((max_len, d_model))
    position = np.arange(0, max_len)[:, np.newaxis]
    div_term = np.exp(np.arange(0, d_model, 2) * -(np.log(10000.0) / d_model))
    pe_[:, 0::2] = np.sin(position * div_term)
    pe_[:, 1::2] = np.cos(position * div_term)
    return pe_.astype(dtype, copy=False)


def textbook_numpy_lowp(max_len: int, d_model: int, dtype: str) -> np.ndarray:
    """The textbook numpy code written with ``dtype`` throughout (angles in that dtype)."""
    pe_ = np.zeros((max_len, d_model), dtype=dtype)
    position = np.arange(0, max_len, dtype=dtype)[:, np.newaxis]
    div_term = np.exp(
        np.arange(0, d_model, 2, dtype=dtype) * -(np.log(10000.0) / d_model)
    )
    div_term = div_term.astype(dtype)
    pe_[:, 0::2] = np.sin(position * div_term)
    pe_[:, 1::2] = np.cos(position * div_term)
    return pe_


def pytorch_tutorial(max_len: int, d_model: int, dtype: str):
    """The PyTorch tutorial's PositionalEncoding table (float32 there; ``dtype`` here)."""
    import torch

    tdtype = getattr(torch, dtype)
    position = torch.arange(max_len, dtype=tdtype).unsqueeze(1)
    div_term = torch.exp(
        torch.arange(0, d_model, 2, dtype=tdtype) * (-math.log(10000.0) / d_model)
    )
    pe_ = torch.zeros(max_len, d_model, dtype=tdtype)
    pe_[:, 0::2] = torch.sin(position * div_term)
    pe_[:, 1::2] = torch.cos(position * div_term)
    return pe_


def posenc(max_len: int, d_model: int, dtype: str) -> np.ndarray:
    return pe.sinusoidal(max_len, d_model, dtype=dtype)


def direct_float64(max_len: int, d_model: int, dtype: str) -> np.ndarray:
    return pe.sinusoidal(max_len, d_model, dtype=dtype, method="direct")


def fill_floor(max_len: int, d_model: int, dtype: str) -> np.ndarray:
    return np.full((max_len, d_model), 0.5, dtype=dtype)


IMPLEMENTATIONS: dict[str, Callable] = {
    "posenc_lib": posenc,
    "textbook_numpy": textbook_numpy,
    "textbook_numpy_lowp": textbook_numpy_lowp,
    "pytorch_tutorial": pytorch_tutorial,
    "direct_float64": direct_float64,
    "fill_floor": fill_floor,
}


# ---------------------------------------------------------------------------------------------
# Measurement helpers
# ---------------------------------------------------------------------------------------------


def _status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _release_free_heap() -> None:
    """Give freed heap pages back to the OS (glibc only; a no-op elsewhere)."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def peak_extra_bytes(fn: Callable[[], object]) -> tuple[int | None, object]:
    """Run ``fn`` once; return (peak resident memory above the start, in bytes; its result).

    Linux only: resets the peak (``/proc/self/clear_refs``), then reads ``VmHWM``; the result is
    kept alive while the peak is read, so the table itself is counted. Freed heap memory is first
    returned to the system (glibc ``malloc_trim``); otherwise an allocation that reuses pages an
    earlier measurement freed would raise no resident memory and read as 0.
    """
    _release_free_heap()
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")
        before = _status_kib("VmRSS")
    except OSError:
        before = None
    result = fn()
    peak = _status_kib("VmHWM")
    if before is None or peak is None:
        return None, result
    return max(0, peak - before) * 1024, result


def time_round_robin(
    calls: dict[str, Callable[[], object]],
    warm_s: dict[str, float],
    min_repeats: int,
    max_repeats: int,
    budget_s: float,
) -> dict[str, list[float]]:
    """Wall times of each call, measured in interleaved rounds (one call of each per round).

    Interleaving spreads slow phases of a shared machine over all implementations instead of
    one. The number of rounds fits ``budget_s`` given the warm-up times, within the repeat limits.
    """
    per_round = max(sum(warm_s.values()), 1e-9)
    rounds = int(min(max_repeats, max(min_repeats, budget_s // per_round)))
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, fn in calls.items():
            started = time.perf_counter()
            result = fn()
            times[name].append(time.perf_counter() - started)
            del result
    return times


def to_numpy(table: object) -> np.ndarray:
    if isinstance(table, np.ndarray):
        return table
    return table.numpy()  # a torch tensor


def torch_info() -> dict[str, object]:
    """The torch version and its intra-op thread count (the tutorial baseline runs on them)."""
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is in the book environment
        return {"torch": None, "torch_threads": None}
    return {"torch": torch.__version__, "torch_threads": torch.get_num_threads()}


# ---------------------------------------------------------------------------------------------
# The benchmark
# ---------------------------------------------------------------------------------------------


def bench_generation(
    sizes, min_repeats: int, max_repeats: int, budget_s: float
) -> list[dict]:
    rows = []
    rng = np.random.default_rng(0)
    for length, dim in sizes:
        sample_rows = np.concatenate(
            [[length - 1], rng.integers(0, length, ACCURACY_SAMPLES - 1)]
        )
        sample_pairs = rng.integers(0, dim // 2, ACCURACY_SAMPLES)
        ref_sin, ref_cos = reference_entries(
            sample_rows.astype(float), sample_pairs, dim
        )
        for dtype in DTYPES:
            calls, warm, info = {}, {}, {}
            for name, impl in IMPLEMENTATIONS.items():
                if name == "textbook_numpy_lowp" and dtype == "float64":
                    continue  # identical to textbook_numpy

                def call(impl=impl, length=length, dim=dim, dtype=dtype):
                    return impl(length, dim, dtype)

                started = time.perf_counter()
                peak, table = peak_extra_bytes(call)  # also the warm-up call
                warm[name] = time.perf_counter() - started
                if name == "fill_floor":
                    error = None
                else:
                    array = to_numpy(table)
                    assert array.shape == (length, dim) and array.dtype == np.dtype(
                        dtype
                    )
                    got_sin = array[sample_rows, 2 * sample_pairs].astype(np.float64)
                    got_cos = array[sample_rows, 2 * sample_pairs + 1].astype(
                        np.float64
                    )
                    error = float(
                        max(
                            np.abs(got_sin - ref_sin).max(),
                            np.abs(got_cos - ref_cos).max(),
                        )
                    )
                del table
                calls[name] = call
                info[name] = (peak, error)
            times = time_round_robin(calls, warm, min_repeats, max_repeats, budget_s)
            for name, samples in times.items():
                peak, error = info[name]
                median = statistics.median(samples)
                rows.append(
                    {
                        "L": length,
                        "d": dim,
                        "dtype": dtype,
                        "implementation": name,
                        "median_s": median,
                        "min_s": min(samples),
                        "repeats": len(samples),
                        "peak_extra_bytes": peak,
                        "table_bytes": length * dim * np.dtype(dtype).itemsize,
                        "max_abs_error_sampled": error,
                    }
                )
                print(
                    f"  {length:>7} x {dim:<5} {dtype:<8} {name:<20} median {median * 1e3:9.1f} ms"
                    f"  ({len(samples)} runs)",
                    flush=True,
                )
    return rows


def ratios(rows: list[dict]) -> list[dict]:
    out = []
    keys = sorted({(r["L"], r["d"], r["dtype"]) for r in rows})
    for length, dim, dtype in keys:
        here = {
            r["implementation"]: r
            for r in rows
            if (r["L"], r["d"], r["dtype"]) == (length, dim, dtype)
        }
        ours = here["posenc_lib"]["median_s"]
        entry = {"L": length, "d": dim, "dtype": dtype}
        for name in IMPLEMENTATIONS:
            if name in here and name not in ("posenc_lib", "fill_floor"):
                entry[f"{name}_over_posenc_lib"] = here[name]["median_s"] / ours
        entry["posenc_lib_over_fill_floor"] = ours / here["fill_floor"]["median_s"]
        out.append(entry)
    return out


def targets(ratio_rows: list[dict], rows: list[dict]) -> dict[str, object]:
    length, dim = TARGET_SIZE
    found = [
        r
        for r in ratio_rows
        if (r["L"], r["d"], r["dtype"]) == (length, dim, "float32")
    ]
    if not found:
        return {
            "evaluated": False,
            "reason": f"size {TARGET_SIZE} not benchmarked in this run",
        }
    r = found[0]
    ours = next(
        x
        for x in rows
        if (x["L"], x["d"], x["dtype"], x["implementation"])
        == (length, dim, "float32", "posenc_lib")
    )
    checks = {
        "textbook_numpy_speedup": {
            "measured": r["textbook_numpy_over_posenc_lib"],
            "target_at_least": TARGETS["textbook_numpy"],
        },
        "pytorch_tutorial_speedup": {
            "measured": r["pytorch_tutorial_over_posenc_lib"],
            "target_at_least": TARGETS["pytorch_tutorial"],
        },
        "fill_floor_multiple": {
            "measured": r["posenc_lib_over_fill_floor"],
            "target_at_most": TARGETS["fill_floor_within"],
        },
        "accuracy_float32": {
            "measured": ours["max_abs_error_sampled"],
            "target_at_most": 2e-7,
        },
    }
    for check in checks.values():
        if "target_at_least" in check:
            check["met"] = bool(check["measured"] >= check["target_at_least"])
        else:
            check["met"] = bool(check["measured"] <= check["target_at_most"])
    return {
        "evaluated": True,
        "size": list(TARGET_SIZE),
        "dtype": "float32",
        "checks": checks,
    }


def bench_module(quick: bool) -> dict[str, object]:
    """Forward of SinusoidalPositionalEncoding against ``x + buffer[:L]``."""
    try:
        import torch

        from posenc_lib.nn import SinusoidalPositionalEncoding
    except ImportError as exc:
        return {"evaluated": False, "reason": f"not available: {exc}"}
    batch, length, dim = (2, 64, 32) if quick else (8, 512, 512)
    torch.manual_seed(0)
    x = torch.randn(batch, length, dim)
    module = SinusoidalPositionalEncoding(
        dim, initial_length=2 * length, batch_first=True
    )
    buffer = module.table.clone()
    with torch.no_grad():
        assert torch.equal(module(x), x + buffer[:length])

        def run_module():
            return module(x)

        def run_buffer():
            return x + buffer[:length]

        inner = 20 if quick else 100
        functions = {"module_forward": run_module, "buffer_add": run_buffer}
        samples: dict[str, list[float]] = {name: [] for name in functions}
        for fn in functions.values():
            for _ in range(5):
                fn()
        for _ in range(5 if quick else 15):  # interleaved, as for the tables
            for name, fn in functions.items():
                started = time.perf_counter()
                for _ in range(inner):
                    fn()
                samples[name].append((time.perf_counter() - started) / inner)
        results = {name: statistics.median(values) for name, values in samples.items()}
    return {
        "evaluated": True,
        "input_shape": [batch, length, dim],
        "dtype": "float32",
        "module_forward_median_s": results["module_forward"],
        "buffer_add_median_s": results["buffer_add"],
        "overhead_s": results["module_forward"] - results["buffer_add"],
        "ratio": results["module_forward"] / results["buffer_add"],
    }


def print_table(ratio_rows: list[dict], target: dict, module: dict) -> None:
    columns = [
        ("textbook_numpy_over_posenc_lib", "textbook"),
        ("textbook_numpy_lowp_over_posenc_lib", "textbook-lowp"),
        ("pytorch_tutorial_over_posenc_lib", "torch-tutorial"),
        ("direct_float64_over_posenc_lib", "direct-f64"),
        ("posenc_lib_over_fill_floor", "ours/fill"),
    ]
    print(
        "\nSpeed-up of posenc_lib.sinusoidal (other's median / ours) and ours / fill floor:"
    )
    header = f"{'L':>7} {'d':>5} {'dtype':<8}" + "".join(
        f"{label:>16}" for _, label in columns
    )
    print(header)
    print("-" * len(header))
    for r in ratio_rows:
        cells = "".join(
            f"{r[key]:>15.1f}x" if key in r else f"{'-':>16}" for key, _ in columns
        )
        print(f"{r['L']:>7} {r['d']:>5} {r['dtype']:<8}{cells}")
    if target.get("evaluated"):
        print(f"\nTargets at {target['size'][0]} x {target['size'][1]} float32:")
        for name, check in target["checks"].items():
            bound = check.get("target_at_least", check.get("target_at_most"))
            sense = ">=" if "target_at_least" in check else "<="
            status = "met" if check["met"] else "NOT MET"
            print(
                f"  {name:<26} {check['measured']:.3g} (target {sense} {bound:g}): {status}"
            )
    if module.get("evaluated"):
        print(
            f"\nSinusoidalPositionalEncoding forward {module['module_forward_median_s'] * 1e6:.1f}"
            f" us vs buffer add {module['buffer_add_median_s'] * 1e6:.1f} us"
            f" (x{module['ratio']:.2f}) on input {tuple(module['input_shape'])}"
        )


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The options of ``argv``, checked (``--output``'s folder writable) before any work."""
    parser = argparse.ArgumentParser(
        prog="bench_tables", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--quick", action="store_true", help="small sizes, few repeats (smoke)"
    )
    return parse_args(parser, argv, RESULTS)


def main(argv: list[str] | None = None) -> dict[str, object]:
    """Run the benchmark, write the results JSON and print the ratio table."""
    return run(parse(argv))


def run(args: argparse.Namespace) -> dict[str, object]:
    """Run the benchmark with options from :func:`parse`."""
    output = args.output
    sizes = QUICK_SIZES if args.quick else SIZES
    min_repeats, max_repeats, budget_s = (2, 3, 0.05) if args.quick else (3, 15, 6.0)

    started = time.perf_counter()
    print(f"bench_tables: sizes {list(sizes)}, dtypes {list(DTYPES)}", flush=True)
    info = hardware(**torch_info())
    rows = bench_generation(sizes, min_repeats, max_repeats, budget_s)
    ratio_rows = ratios(rows)
    target = targets(ratio_rows, rows)
    module = bench_module(args.quick)
    info["load_average_1min_at_end"] = load_average()
    result = {
        "benchmark": "bench_tables",
        "hardware": info,
        "settings": {
            "sizes": [list(s) for s in sizes],
            "dtypes": list(DTYPES),
            "min_repeats": min_repeats,
            "max_repeats": max_repeats,
            "time_budget_per_cell_s": budget_s,
            "schedule": "warm-up call (peak memory, accuracy), then interleaved timing rounds",
            "accuracy_samples_per_size": ACCURACY_SAMPLES,
            "statistic": "median wall time of repeated calls in one process",
            "posenc_lib_max_threads": angle_addition.MAX_THREADS,
        },
        "generation": rows,
        "ratios": ratio_rows,
        "targets": target,
        "module_overhead": module,
        "total_wall_s": time.perf_counter() - started,
    }
    print_table(ratio_rows, target, module)
    print(
        f"\nload average (1 min) {info['load_average_1min_at_start']} at the start, "
        f"{info['load_average_1min_at_end']} at the end, on {info['logical_cpus']} logical CPUs"
    )
    return finish(result, output)


if __name__ == "__main__":
    sys.exit(command_line(main, "bench_tables"))
