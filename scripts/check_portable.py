"""Re-run nbval under other numeric back-ends than this machine's (``make check-portable``).

Stored outputs must not depend on the BLAS kernels, the SIMD level or the thread count
(CONTRIBUTING.md, "Stored outputs reproduce on any machine"): nbval on one machine compares them
under one back-end only; this runs the notebooks again under a combined variant, set through
environment variables read when numpy and torch load:

``OPENBLAS_CORETYPE=Prescott``
    numpy's bundled OpenBLAS uses its generic SSE3 kernels instead of the ones for this CPU
    (Haswell/Zen/SkylakeX...): matrix products and solves change in the last bits.
``MKL_CBWR=COMPATIBLE``
    torch's BLAS (MKL, statically linked in the PyPI wheels) on its strict "compatible" code
    path instead of the one MKL picks for this CPU: float32 products of 32 x 32 and larger
    (linear layers, attention) change in the last bits. ``ATEN_CPU_CAPABILITY`` does not reach
    these kernels.
``ATEN_CPU_CAPABILITY=default``
    torch's vectorized CPU kernels at the lowest level, no AVX2/AVX-512 (``avx2`` would do
    nothing on a machine whose best level is AVX2, this team's included; ``default`` differs
    from every x86 machine's native level).
``NPY_DISABLE_CPU_FEATURES=X86_V3,X86_V4,AVX512_ICL``
    numpy's ufuncs without their AVX2/FMA3 and AVX-512 loops (float32 ``sin``, ``exp``...); a
    feature the CPU lacks is ignored.
``OMP_NUM_THREADS=1``
    one thread for OpenBLAS and torch instead of one per core: reductions are split differently.

Before nbval, a probe (a few seconds) runs a small computation with and without each variable in
fresh processes and says which ones change a float result on this machine, so a variant that does
nothing here is reported, not silently trusted.

Usage::

    python scripts/check_portable.py [--jobs N] [--probe-only | --no-probe] [NOTEBOOK ...]

Without notebooks, every ``notebooks/*.ipynb``. Exit status: nbval's (0 when every cell
reproduces), 2 on a usage error, 130 on Ctrl-C.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The combined variant (each entry is explained in the module docstring).
VARIANT = {
    "OPENBLAS_CORETYPE": "Prescott",
    "MKL_CBWR": "COMPATIBLE",
    "ATEN_CPU_CAPABILITY": "default",
    "NPY_DISABLE_CPU_FEATURES": "X86_V3,X86_V4,AVX512_ICL",
    "OMP_NUM_THREADS": "1",
}

#: Per variable: code printing a digest of a float result that the variable may change.
_PROBES = {
    "OPENBLAS_CORETYPE": (
        "import numpy as np; a, b = np.random.default_rng(0).standard_normal((2, 300, 300));"
        " print(hash((a @ b).tobytes()))"
    ),
    "MKL_CBWR": (
        "import torch; torch.manual_seed(0); a, b = torch.randn(2, 64, 64);"
        " print(hash((a @ b).numpy().tobytes()))"
    ),
    "ATEN_CPU_CAPABILITY": (
        "import torch; x = torch.linspace(0, 1000, 100_000);"
        " print(torch.backends.cpu.get_cpu_capability(), hash((torch.sin(x) + torch.exp(x / 1e3))"
        ".numpy().tobytes()))"
    ),
    "NPY_DISABLE_CPU_FEATURES": (
        "import numpy as np; x = np.linspace(0, 1000, 100_000, dtype=np.float32);"
        " print(hash((np.sin(x) + np.exp(x / 1e3)).tobytes()))"
    ),
    "OMP_NUM_THREADS": (
        "import numpy as np; a, b = np.random.default_rng(0).standard_normal((2, 300, 300));"
        " print(hash((a @ b).tobytes()))"
    ),
}


def _digest(code: str, env: dict[str, str]) -> str | None:
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.stdout.strip() if done.returncode == 0 else None


def probe() -> dict[str, str]:
    """``{variable: what it does here}``: whether it changes a float result on this machine."""
    base = {k: v for k, v in os.environ.items() if k not in VARIANT}
    base["PYTHONHASHSEED"] = "0"
    report = {}
    for name, code in _PROBES.items():
        native = _digest(code, base)
        varied = _digest(code, {**base, name: VARIANT[name]})
        if native is None or varied is None:
            report[name] = "not probed (the probe failed: is numpy/torch installed?)"
        elif native != varied:
            report[name] = "effective here (a float result changes)"
        else:
            report[name] = "NO EFFECT here (same bits as without it)"
    return report


def _notebook(value: str) -> Path:
    path = Path(value)
    if path.suffix != ".ipynb" or not path.is_file():
        raise argparse.ArgumentTypeError(f"not a notebook file: {value}")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="check_portable.py", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "notebooks", nargs="*", type=_notebook, help="default: notebooks/*.ipynb"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="pytest-xdist workers (default: 2, or 1 for a single notebook)",
    )
    probing = parser.add_mutually_exclusive_group()
    probing.add_argument(
        "--probe-only", action="store_true", help="report the probe and stop"
    )
    probing.add_argument(
        "--no-probe", action="store_true", help="skip the probe (saves seconds)"
    )
    args = parser.parse_args(argv)
    if args.jobs is not None and args.jobs < 1:
        parser.error(f"argument --jobs: must be an integer >= 1, got {args.jobs}")
    notebooks = args.notebooks or sorted((ROOT / "notebooks").glob("*.ipynb"))
    try:
        if not args.no_probe:
            print(
                "check_portable: the variant; does each part change floats on this machine?"
            )
            for name, effect in probe().items():
                print(f"  {name}={VARIANT[name]}: {effect}", flush=True)
        if args.probe_only:
            return 0
        jobs = args.jobs or (1 if len(notebooks) == 1 else 2)
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        if jobs > 1:
            command += ["-n", str(jobs), "--dist", "loadfile"]
        command += ["--nbval", "--nbval-current-env", *map(str, notebooks)]
        shown = " ".join(f"{k}={v}" for k, v in VARIANT.items())
        print(f"check_portable: {shown} {' '.join(command[1:])}", flush=True)
        done = subprocess.run(command, cwd=ROOT, env={**os.environ, **VARIANT})
    except KeyboardInterrupt:
        print("check_portable.py: interrupted", file=sys.stderr)
        return 130
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
