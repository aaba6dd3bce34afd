"""Run the library's tests against the oldest dependencies pyproject claims (``make check-oldest``).

A fresh virtual environment (in a temporary folder) gets requirements/oldest.txt (numpy, sympy,
mpmath and matplotlib at the lowest versions pyproject.toml allows) and the test tools at the
lock file's pins, and the library from a copy of the repository's sources. The library tests
(``tests/``, not the notebooks, the book checks or the browser checks) run twice:

1. without torch: the oldest numpy/sympy/mpmath/matplotlib exactly; torch tests skip;
2. with torch 2.13.0, the pinned CPU build. Torch 2.13.0 requires sympy>=1.13.3, so sympy is
   raised to 1.13.3 for this run (pip could not install sympy 1.12 beside it).

Usage::

    python scripts/check_oldest.py [--keep] [pytest arguments ...]

The pytest arguments are checked first, in seconds, by this environment's pytest (same version
and plugins as the lock file's): a bad one is a usage error (exit status 2) naming it, before any
environment is built. Ctrl-C removes the temporary folder (unless ``--keep``) and exits with
status 130 and a one-line message.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _fresh_env as fe

OLDEST = fe.REPO / "requirements" / "oldest.txt"
TEST_TOOLS = ["pytest", "pytest-xdist", "hypothesis", "PyYAML"]
WITH_TORCH = ["torch==2.13.0", "sympy==1.13.3"]  # torch 2.13.0 requires sympy>=1.13.3
PYTEST = [
    "-q",
    "-p",
    "no:cacheprovider",
    "-n",
    "2",
    "--dist",
    "loadfile",
    "-rfEs",
    "tests",
    "--ignore=tests/book_checks",
    "--ignore=tests/browser",
    "--ignore=tests/build_faults",
]


#: What pytest's exit statuses mean (pytest.ExitCode).
PYTEST_STATUS = {
    0: "passed",
    1: "some tests failed",
    2: "interrupted, or errors during collection",
    3: "internal error",
    4: "usage error",
    5: "no tests collected",
}


def pytest_usage_error(pytest_args: list[str]) -> str | None:
    """What pytest says is wrong with ``pytest_args`` (with :data:`PYTEST`), or None.

    Runs this environment's pytest on the repository with every file ignored: the options are
    parsed and the named paths looked up, but no test is imported or run (a few seconds).
    """
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *PYTEST,
            *pytest_args,
            "--collect-only",
            "--ignore-glob=*",
        ],
        cwd=fe.REPO,
        capture_output=True,
        text=True,
        env=fe.clean_env(),
    )
    if done.returncode != 4:
        return None
    lines = [line.strip() for line in (done.stderr + done.stdout).splitlines()]
    said = [line for line in lines if " error: " in line or line.startswith("ERROR: ")]
    said = [line for line in said if not line.startswith("ERROR: usage:")] or lines[-1:]
    return (
        "; ".join(
            line.split(" error: ", 1)[-1].removeprefix("ERROR: ") for line in said
        )
        or "pytest exit status 4"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="check_oldest.py",
        description=__doc__.split("\n\n")[0],
        epilog="Other arguments are passed to pytest.",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args, pytest_args = parser.parse_known_args(argv)
    problem = pytest_usage_error(pytest_args)
    if problem:
        parser.error(f"pytest arguments {pytest_args}: {problem}")

    work = Path(tempfile.mkdtemp(prefix="oldest-check-"))
    started = time.perf_counter()
    results = {}
    try:
        fe.say(f"working in {work}")
        source = fe.copy_sources(work / "source")
        python = fe.make_venv(work / "venv")
        fe.pip_install(python, "-r", str(OLDEST), *fe.lock_pins(*TEST_TOOLS))
        fe.pip_install(python, "--no-deps", str(source))
        for run_name, extra in [
            ("oldest, no torch", []),
            ("oldest, with torch", WITH_TORCH),
        ]:
            if extra:
                fe.pip_install(python, *extra)
            pins = fe.freeze(python)
            shown = ["numpy", "sympy", "mpmath", "matplotlib", "torch"]
            fe.say(
                f"{run_name}: " + ", ".join(f"{n} {pins.get(n, '-')}" for n in shown)
            )
            # Run from the source copy (its pyproject configures pytest) against the installed
            # library: -P keeps the copy's folder off sys.path, so `import posenc_lib` is the
            # installed one.
            done = subprocess.run(
                [str(python), "-P", "-m", "pytest", *PYTEST, *pytest_args],
                cwd=source,
                env=fe.clean_env(MPLBACKEND="Agg"),
            )
            results[run_name] = done.returncode
        for run_name, code in results.items():
            meaning = PYTEST_STATUS.get(code, "unknown")
            fe.say(
                f"{'PASS' if code == 0 else 'FAIL'} {run_name}: {meaning} (pytest exit {code})"
            )
        ok = all(code == 0 for code in results.values())
        fe.say(f"{'OK' if ok else 'FAILED'} in {time.perf_counter() - started:.0f} s")
        return 0 if ok else 1
    except KeyboardInterrupt:
        finished = ", ".join(
            f"{name}: {PYTEST_STATUS.get(code, code)}" for name, code in results.items()
        )
        print(
            f"check_oldest.py: interrupted after {time.perf_counter() - started:.0f} s"
            f" ({'finished: ' + finished if finished else 'no run finished'};"
            f" {'kept' if args.keep else 'removed'} {work})",
            file=sys.stderr,
        )
        return 130
    finally:
        if args.keep:
            fe.say(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
