"""Test the library and the chapters against the oldest dependencies pyproject claims
(``make check-oldest``).

A fresh virtual environment (in a temporary folder) gets requirements/oldest.txt (numpy, sympy,
mpmath and matplotlib at the lowest versions pyproject.toml allows), the test tools at the lock
file's pins (pytest, xdist, hypothesis, PyYAML, nbval, nbformat, nbclient, ipykernel; every other
package at its lock pin too, where the oldest pins allow), and the library from a copy of the
repository's sources (not editable; the notebooks import it, the tests and doctests the same
code from the source copy). Then:

1. without torch: the oldest numpy/sympy/mpmath/matplotlib exactly; the library tests
   (``tests/``, not the book checks, the browser checks or the injected build faults) and the
   doctests of ``posenc_lib``; torch tests skip;
2. with torch 2.13.0, the pinned CPU build (the oldest torch pyproject allows). Torch 2.13.0
   requires sympy>=1.13.3, so sympy is raised to 1.13.3 for this run (pip cannot install sympy
   1.12 beside it): the library tests and doctests again, then nbval on every chapter
   (``notebooks/``) against its stored outputs.

Every run uses this machine's own SIMD level (``make check-portable`` covers the others).

Usage::

    python scripts/check_oldest.py [--keep] [pytest arguments ...]

The pytest arguments (passed to every pytest run) are checked first, in seconds, by this
environment's pytest (same version and plugins as the lock file's): a bad one is a usage error
(exit status 2) naming it, before any environment is built. Ctrl-C removes the temporary folder
(unless ``--keep``) and exits with status 130 and a one-line message.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _fresh_env as fe

OLDEST = fe.REPO / "requirements" / "oldest.txt"
TEST_TOOLS = [
    "pytest",
    "pytest-xdist",
    "hypothesis",
    "PyYAML",
    "nbval",
    "nbformat",
    "nbclient",
    "ipykernel",
    "markdown-it-py",  # scripts/make_colab.py, which tests/book/test_colab.py imports
    "mdit-py-plugins",
    "pybtex",  # make_colab.py's references
    "sphinx",  # _ext/colab_launch.py, which tests/book/test_colab.py imports
]
WITH_TORCH = ["torch==2.13.0", "sympy==1.13.3"]  # torch 2.13.0 requires sympy>=1.13.3
COMMON = ["-q", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadfile", "-rfEs"]
PYTEST = [
    *COMMON,
    "tests",
    "--ignore=tests/book/built",
    "--ignore=tests/book/browser",
    "--ignore=tests/tooling/build_faults",
]
NBVAL = [*COMMON, "--nbval", "--nbval-current-env", "notebooks"]


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
    fe.add_keep_option(parser)
    args, pytest_args = parser.parse_known_args(argv)
    problem = pytest_usage_error(pytest_args)
    if problem:
        parser.error(f"pytest arguments {pytest_args}: {problem}")

    started = time.perf_counter()
    with fe.scratch_folder("oldest-check-", keep=args.keep) as work:
        return _check(work, started, pytest_args, keep=args.keep)


def _check(work: Path, started: float, pytest_args: list[str], *, keep: bool) -> int:
    """Build the environment in ``work`` and run the suites; 0 if all pass, 130 on Ctrl-C."""
    results: dict[str, int] = {}
    try:
        fe.say(f"working in {work}")
        source = fe.copy_sources(work / "source")
        python = fe.make_venv(work / "venv")
        oldest = set(fe.read_pins(OLDEST)) | {"torch", "sympy"}
        constraints = work / "constraints.txt"
        constraints.write_text(
            "".join(
                f"{name}=={version}\n"
                for name, version in fe.read_pins(fe.LOCK).items()
                if name not in oldest
            ),
            encoding="utf-8",
        )
        fe.pip_install(python, "-r", str(OLDEST), "-c", str(constraints), *TEST_TOOLS)
        fe.pip_install(python, "--no-deps", str(source))
        library = [*PYTEST, "--doctest-modules", "posenc_lib"]
        for run_name, extra, suites in [
            ("oldest, no torch", [], [("tests + doctests", library)]),
            (
                "oldest, with torch",
                WITH_TORCH,
                [
                    ("tests + doctests", library),
                    ("nbval, every chapter", NBVAL),
                ],
            ),
        ]:
            if extra:
                fe.pip_install(python, *extra)
            pins = fe.freeze(python)
            shown = ["numpy", "sympy", "mpmath", "matplotlib", "torch"]
            fe.say(
                f"{run_name}: " + ", ".join(f"{n} {pins.get(n, '-')}" for n in shown)
            )
            for suite, arguments in suites:
                # From the source copy (its pyproject and conftest configure pytest). The tests
                # and doctests import the copy's posenc_lib (pytest puts the folder of the
                # rootdir's conftest.py on sys.path), the chapters the installed one (their
                # kernels run in notebooks/). No MPLBACKEND: kernels show figures inline, as in
                # the book (tests/book/test_figure_style.py runs one).
                fe.say(f"{run_name}: {suite}")
                done = subprocess.run(
                    [str(python), "-P", "-m", "pytest", *arguments, *pytest_args],
                    cwd=source,
                    env=fe.clean_env(),
                )
                results[f"{run_name}: {suite}"] = done.returncode
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
            f" {'kept' if keep else 'removed'} {work})",
            file=sys.stderr,
        )
        return 130


if __name__ == "__main__":
    sys.exit(main())
