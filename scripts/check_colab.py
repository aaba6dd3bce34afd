"""Run every chapter's Colab edition as a reader on Google Colab would (``make check-colab``).

What runs is ``colab/*.ipynb``, the Colab editions that the chapters' Colab buttons open
(written by ``make colab``; checked first to be in sync with ``notebooks/``), not the MyST
sources.

1. A fresh virtual environment (in a temporary folder) gets only what Colab preinstalls that the
   book needs: numpy, matplotlib and sympy at their newest releases, torch at the pinned CPU
   build (a newer torch here is a multi-GB CUDA build; Colab's own is preinstalled), and
   ipykernel/nbclient to run the notebooks.
2. A wheel of ``posenc_lib`` is built from a copy of the repository's sources and installed with
   the ``[book]`` extra that the Colab install cell asks for. This stands in for the install
   cell, which installs ``git+<repository.url>@<colab.ref>`` (``_config.yml``). Checked: the
   wheel holds every file of ``posenc_lib/``, and installing it adds ``posenc-lib`` and nothing
   else (the extra is satisfied by what Colab has; no other package is up- or downgraded).
3. Each Colab edition is copied alone into an empty folder (Colab opens the notebook with nothing
   beside it) and executed top to bottom. Outputs are not compared (``make test`` does that),
   only errors matter. Around the install cell the check confirms that it is a no-op here: it
   starts no process (no pip), and ``posenc_lib`` is then imported from site-packages. After
   all notebooks, ``pip list`` must be unchanged (no cell installed anything). The guard is tested
   on every run first: a stand-in install cell that does run pip must be caught.

The repository's notebooks are never modified. Usage::

    python scripts/check_colab.py [--jobs N] [--keep] [colab/NN_slug.ipynb ...]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _fresh_env as fe

COLAB_PACKAGES = [
    "numpy",
    "matplotlib",
    "sympy",
]  # newest releases, as Colab keeps them
TORCH = "torch==2.13.0"  # the pinned CPU build (pip takes it from local disk here)
RUNNER = [
    "ipykernel",
    "nbclient",
    "nbformat",
]  # to execute the notebooks, at the lock's pins
TIMEOUT_PER_CELL_S = 600

INSTALL_MARKER = 'find_spec("posenc_lib")'

# Injected around the install cell, in the temporary copy only.
GUARD_CELL = """\
import subprocess as _colab_check_subprocess

_colab_check_calls = []
_colab_check_popen = _colab_check_subprocess.Popen


class _ColabCheckPopen(_colab_check_popen):
    def __init__(self, args, *rest, **kwargs):
        _colab_check_calls.append(args)
        super().__init__(args, *rest, **kwargs)


_colab_check_subprocess.Popen = _ColabCheckPopen
"""
VERIFY_CELL = """\
_colab_check_subprocess.Popen = _colab_check_popen
assert not _colab_check_calls, f"the install cell started {_colab_check_calls}"
import posenc_lib as _colab_check_lib

assert "site-packages" in _colab_check_lib.__file__, _colab_check_lib.__file__
print("install cell: no-op; posenc_lib imported from site-packages")
del _colab_check_lib, _colab_check_calls, _colab_check_popen, _ColabCheckPopen
del _colab_check_subprocess
"""


def _execute_one(source: str, workdir: str) -> dict[str, object]:
    """Run inside the fresh venv (``--execute``): execute one notebook; report what happened."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    folder = Path(workdir)
    folder.mkdir(parents=True)
    path = folder / Path(source).name
    shutil.copy2(source, path)
    notebook = nbformat.read(path, as_version=4)
    first = notebook.cells[0] if notebook.cells else None
    if first is None or first.cell_type != "code" or INSTALL_MARKER not in first.source:
        return {"ok": False, "seconds": 0.0, "error": "cell 1 is not the install cell"}
    if set(first.metadata.get("tags", [])) & {
        "remove-cell",
        "hide-cell",
        "remove-input",
    }:
        return {
            "ok": False,
            "seconds": 0.0,
            "error": "the install cell is hidden (in Colab it must be visible)",
        }
    notebook.cells.insert(0, nbformat.v4.new_code_cell(GUARD_CELL))
    notebook.cells.insert(2, nbformat.v4.new_code_cell(VERIFY_CELL))
    started = time.perf_counter()
    try:
        NotebookClient(
            notebook,
            timeout=TIMEOUT_PER_CELL_S,
            kernel_name="python3",
            resources={"metadata": {"path": str(folder)}},
        ).execute()
    except CellExecutionError as error:
        text = re.sub(r"\x1b\[[0-9;]*m", "", str(error))  # drop the traceback's colours
        return {"ok": False, "seconds": time.perf_counter() - started, "error": text}
    finally:
        nbformat.write(notebook, path)
    verify = notebook.cells[2].get("outputs", [])
    said = "".join(
        out.get("text", "") for out in verify if out.get("output_type") == "stream"
    )
    return {
        "ok": True,
        "seconds": time.perf_counter() - started,
        "install_cell": said.strip(),
    }


def _execute_main(argv: list[str]) -> None:
    source, workdir = argv
    print(json.dumps(_execute_one(source, workdir)))


# The guard's own test: an "install cell" that always starts pip must be caught.
SELF_TEST_CELL = """\
# Stand-in for an install cell whose find_spec("posenc_lib") test is wrong: it always runs pip.
import subprocess
import sys

subprocess.run([sys.executable, "-m", "pip", "--version"], check=True)
"""


def _excerpt(error: str, head: int = 1500, tail: int = 1200) -> str:
    """The failing cell (nbclient puts its source first) and the exception (last)."""
    if len(error) <= head + tail:
        return error
    return f"{error[:head]}\n[... {len(error) - head - tail} characters ...]\n{error[-tail:]}"


def _self_test_notebook(folder: Path) -> Path:
    import nbformat  # only the runner needs these; imported here for the self-test file

    folder.mkdir(parents=True)
    cell = nbformat.v4.new_code_cell(SELF_TEST_CELL)
    notebook = nbformat.v4.new_notebook(
        cells=[cell, nbformat.v4.new_code_cell("1 + 1")]
    )
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    path = folder / "00_guard_self_test.ipynb"
    nbformat.write(notebook, path)
    return path


def build_wheel(python: Path, work: Path) -> Path:
    """Build the library's wheel from a copy of the sources; check it holds all of posenc_lib/."""
    source = fe.copy_sources(work / "source")
    dist = work / "dist"
    fe.run(
        [python, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", dist, source],
        env=fe.clean_env(),
    )
    (wheel,) = dist.glob("posenc_lib-*.whl")
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    package_files = {
        p.relative_to(source).as_posix()
        for p in (source / "posenc_lib").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    missing = sorted(package_files - in_wheel)
    if missing:
        raise SystemExit(
            f"the wheel {wheel.name} lacks files of posenc_lib/ that a Colab reader would not "
            f"get (declare them as package data in pyproject.toml): {missing}"
        )
    fe.say(
        f"wheel {wheel.name}: {len(package_files)} files of posenc_lib/, none missing"
    )
    return wheel


def _jobs(text: str) -> int:
    """``--jobs``: a whole number of at least 1, checked before any set-up."""
    try:
        jobs = int(text)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return jobs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "notebooks", nargs="*", type=Path, help="default: colab/*.ipynb"
    )
    parser.add_argument(
        "--jobs", type=_jobs, default=1, help="notebooks run at once (default 1)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)
    missing = [str(p) for p in args.notebooks if not p.is_file()]
    if missing:
        parser.error(f"no such notebook: {', '.join(missing)}")
    if not args.notebooks:
        import make_colab

        if make_colab.main(["--check"]) != 0:
            raise SystemExit("colab/ is not in sync with notebooks/: run `make colab`")
    notebooks = [p.resolve() for p in args.notebooks] or sorted(
        (fe.REPO / "colab").glob("*.ipynb")
    )
    if not notebooks:
        raise SystemExit("no Colab editions to run: run `make colab`")

    work = Path(tempfile.mkdtemp(prefix="colab-check-"))
    started = time.perf_counter()
    try:
        fe.say(f"working in {work}")
        python = fe.make_venv(work / "venv")
        fe.pip_install(python, *COLAB_PACKAGES, TORCH, *fe.lock_pins(*RUNNER))
        colab = fe.freeze(python)
        fe.say(
            "Colab stand-in: "
            + ", ".join(
                f"{n} {colab[n]}" for n in ["numpy", "matplotlib", "sympy", "torch"]
            )
        )

        wheel = build_wheel(python, work)
        fe.pip_install(python, f"{wheel}[book]")
        installed = fe.freeze(python)
        added = sorted(set(installed) - set(colab))
        changed = sorted(n for n in colab if installed.get(n) != colab[n])
        if added != ["posenc-lib"] or changed:
            raise SystemExit(
                f"installing {wheel.name}[book] changed the Colab environment: added {added}, "
                f"changed {[(n, colab[n], installed.get(n)) for n in changed]}"
            )
        fe.say("installing the wheel with [book] added posenc-lib and nothing else")

        env = fe.clean_env(MPLCONFIGDIR=str(work / "mplconfig"))

        def execute(notebook: Path) -> dict[str, object]:
            folder = work / "run" / notebook.stem
            done = subprocess.run(
                [str(python), __file__, "--execute", str(notebook), str(folder)],
                capture_output=True,
                text=True,
                env=env,
                cwd=work,
            )
            lines = done.stdout.strip().splitlines()
            if done.returncode != 0 or not lines:
                return {"ok": False, "seconds": 0.0, "error": done.stderr[-3000:]}
            return json.loads(lines[-1])

        guard = execute(_self_test_notebook(work / "self-test"))
        if guard["ok"] or "the install cell started" not in str(guard["error"]):
            raise SystemExit(
                f"the install-cell guard missed a cell that runs pip: {guard}"
            )
        fe.say("self-test: the guard catches an install cell that runs pip")

        failures = 0
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for notebook, result in zip(
                notebooks, pool.map(execute, notebooks), strict=True
            ):
                name = (
                    notebook.relative_to(fe.REPO)
                    if notebook.is_relative_to(fe.REPO)
                    else notebook
                )
                if result["ok"]:
                    fe.say(
                        f"PASS {name} in {result['seconds']:.0f} s ({result['install_cell']})"
                    )
                else:
                    failures += 1
                    fe.say(f"FAIL {name}:\n{_excerpt(str(result['error']))}")

        after = fe.freeze(python)
        if after != installed:
            changes = sorted(set(after.items()) ^ set(installed.items()))
            fe.say(f"FAIL a notebook changed the installed packages: {changes}")
        ok = failures == 0 and after == installed
        fe.say(
            f"{len(notebooks) - failures} of {len(notebooks)} notebooks ran in the Colab "
            f"stand-in; {'OK' if ok else 'FAILED'} in {time.perf_counter() - started:.0f} s"
        )
        return 0 if ok else 1
    finally:
        if args.keep:
            fe.say(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--execute"]:
        _execute_main(sys.argv[2:])
    else:
        sys.exit(main())
