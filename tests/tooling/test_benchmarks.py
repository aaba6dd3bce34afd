"""The benchmarks run (`python -m benchmarks --quick` writes nothing); the stored run is whole."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_quick_benchmarks_run_and_write_nothing():
    pytest.importorskip("torch")
    pytest.importorskip(
        "transformers"
    )  # bench_rotary compares with its rotary embedding
    tracked = sorted((ROOT / "benchmarks" / "results").glob("*.json"))
    stored = ROOT / "posenc_lib" / "data" / "bench_tables.json"
    before = {p: p.read_bytes() for p in [*tracked, stored]}
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "ran 3 benchmark module(s)" in done.stdout
    for heading in (
        "=== bench_kernel ===",
        "=== bench_tables ===",
        "=== bench_rotary ===",
        "worst ratio posenc_lib / transformers",
        "Speed-up of posenc_lib",
    ):
        assert heading in done.stdout
    assert {p: p.read_bytes() for p in before} == before


# ---------------------------------------------------------------------------------------------
# The stored benchmark run that chapter 11 displays (package data; timings are not re-measured)
# ---------------------------------------------------------------------------------------------


def test_shipped_benchmark_results_are_a_full_consistent_run():
    from importlib.resources import files

    text = (files("posenc_lib") / "data" / "bench_tables.json").read_text(
        encoding="utf-8"
    )
    run = json.loads(text)
    assert run["benchmark"] == "bench_tables"
    # A full run: the sizes and dtypes, every implementation at every size.
    assert run["settings"]["sizes"] == [[2048, 512], [32768, 1024], [131072, 1024]]
    assert run["settings"]["dtypes"] == ["float32", "float64"]
    names = {
        "posenc_lib",
        "textbook_numpy",
        "pytorch_tutorial",
        "direct_float64",
        "fill_floor",
    }
    medians = {}
    for row in run["generation"]:
        key = (row["L"], row["d"], row["dtype"])
        medians.setdefault(key, {})[row["implementation"]] = row["median_s"]
        assert row["repeats"] >= run["settings"]["min_repeats"]
        assert row["min_s"] <= row["median_s"]
        if row["implementation"] == "posenc_lib":
            target = 2e-7 if row["dtype"] == "float32" else 1e-9
            assert row["max_abs_error_sampled"] <= target
    assert len(medians) == 6 and all(names <= set(here) for here in medians.values())
    # The ratios and the target verdicts follow from the medians.
    for entry in run["ratios"]:
        here = medians[(entry["L"], entry["d"], entry["dtype"])]
        ours = here["posenc_lib"]
        assert entry["textbook_numpy_over_posenc_lib"] == pytest.approx(
            here["textbook_numpy"] / ours
        )
        assert entry["pytorch_tutorial_over_posenc_lib"] == pytest.approx(
            here["pytorch_tutorial"] / ours
        )
        assert entry["posenc_lib_over_fill_floor"] == pytest.approx(
            ours / here["fill_floor"]
        )
    checks = run["targets"]["checks"]
    here = medians[(32768, 1024, "float32")]
    assert checks["textbook_numpy_speedup"]["measured"] == pytest.approx(
        here["textbook_numpy"] / here["posenc_lib"]
    )
    assert checks["fill_floor_multiple"]["measured"] == pytest.approx(
        here["posenc_lib"] / here["fill_floor"]
    )
    for check in checks.values():
        if "target_at_least" in check:
            assert check["met"] == (check["measured"] >= check["target_at_least"])
        else:
            assert check["met"] == (check["measured"] <= check["target_at_most"])
    # Where it ran: the hardware and the load at both ends of the run are recorded.
    for field in ("cpu_model", "logical_cpus", "load_average_1min_at_start"):
        assert run["hardware"][field] is not None
    assert "load_average_1min_at_end" in run["hardware"]
