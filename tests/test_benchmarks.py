"""The benchmarks still run: `python -m benchmarks --quick` is a smoke test that writes nothing."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_quick_benchmarks_run_and_write_nothing():
    pytest.importorskip("torch")
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
    assert "ran 2 benchmark module(s)" in done.stdout
    for heading in ("=== bench_kernel ===", "=== bench_tables ===", "Speed-up of posenc_lib"):
        assert heading in done.stdout
    assert {p: p.read_bytes() for p in before} == before
