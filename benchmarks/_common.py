"""Shared by the ``bench_*`` modules: what a run was measured on, and writing its results."""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path

import numpy as np

import posenc_lib as pe


def hardware(**extra: object) -> dict[str, object]:
    """CPU, platform and versions of the run, the 1-minute load average, plus ``extra``."""
    model = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            model = next(
                (line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")),
                model,
            )
    except OSError:  # pragma: no cover - not Linux
        pass
    return {
        "cpu_model": model,
        "logical_cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "posenc_lib": pe.__version__,
        **extra,
        "load_average_1min_at_start": load_average(),
    }


def load_average() -> float | None:
    """The 1-minute load average now, rounded (None where the platform has none)."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:  # pragma: no cover - no load average on this platform
        return None


def write_results(result: dict[str, object], output: Path) -> None:
    """Write ``result`` as JSON to ``output`` atomically (a temporary file, then a rename)."""
    output.parent.mkdir(parents=True, exist_ok=True)
    temporary = output.with_suffix(".tmp")
    temporary.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    os.replace(temporary, output)
