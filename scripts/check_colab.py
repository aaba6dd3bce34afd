"""Run every chapter's Colab edition as a reader on Google Colab would (``make check-colab``).

What runs is ``colab/*.ipynb``, the Colab editions that the chapters' Colab buttons open
(written by ``make colab``; checked first to be in sync with ``notebooks/``), not the MyST
sources.

1. A fresh virtual environment (in a temporary folder) gets only what Colab preinstalls that the
   book needs: numpy, matplotlib and sympy at their newest releases, torch at the pinned CPU
   build (a newer torch here is a multi-GB CUDA build; Colab's own is preinstalled), and
   ipykernel/nbclient to run the notebooks.
2. The library is installed by the Colab install cell itself: its code, taken from the Colab
   edition, runs in the fresh environment with one change, ``REPO`` pointing at a bare clone of
   this repository in the temporary folder (a ``file://`` URL) instead of GitHub. The clone
   holds the tag ``colab.ref`` (``_config.yml``): this repository's tag when it exists (``make
   release`` creates it), else the clone tags HEAD with it (said in the log). So pip runs the
   cell's own command, ``pip install "posenc-lib[book] @ git+<REPO>@<colab.ref>"``, through
   git and a build from the tagged sources. Checked: the cell says it installed the library;
   that adds ``posenc-lib`` and nothing else (the extra is satisfied by what Colab has; no
   other package is up- or downgraded); the installed package holds every file of
   ``posenc_lib/`` at the tag and the version of ``pyproject.toml``. The cell's failure path
   runs too, with a tag that does not exist: it must print pip's reason in one line and the
   command, and no traceback.
3. Each Colab edition is copied alone into an empty folder (Colab opens the notebook with nothing
   beside it) and executed top to bottom. Outputs are not compared (``make test`` does that),
   only errors matter. Around the install cell the check confirms that it is a no-op now that
   the library is installed: it starts no process (no pip), and ``posenc_lib`` is then imported
   from site-packages. After all notebooks, ``pip list`` must be unchanged (no cell installed
   anything). The guard is tested on every run first: a stand-in install cell that does run pip
   must be caught.

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
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _fresh_env as fe

COLAB_PACKAGES = [
    "numpy",
    "matplotlib",
    "sympy",
]  # newest releases, as Colab keeps them
#: Colab's pip is recent; the venv module's own (pip 23 with Python 3.11) rejects a
#: ``git+file:///`` requirement that pip 24 and later accept. The Makefile's pin.
PIP = "pip==25.3"
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
    code = [i for i, c in enumerate(notebook.cells) if c.cell_type == "code"]
    at = code[0] if code else 0
    first = notebook.cells[at] if code else None
    if first is None or INSTALL_MARKER not in first.source:
        return {
            "ok": False,
            "seconds": 0.0,
            "error": "code cell 1 is not the install cell",
        }
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
    notebook.cells.insert(at, nbformat.v4.new_code_cell(GUARD_CELL))
    notebook.cells.insert(at + 2, nbformat.v4.new_code_cell(VERIFY_CELL))
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
    verify = notebook.cells[at + 2].get("outputs", [])
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


def local_repository(work: Path, ref: str) -> str:
    """A bare clone of this repository in ``work`` holding the tag ``ref``; its ``file://``
    URL. Where this repository lacks the tag, the clone tags its HEAD (said in the log)."""
    bare = work / "origin.git"
    fe.run(["git", "clone", "--quiet", "--bare", "--no-local", fe.REPO, bare])
    tagged = subprocess.run(
        ["git", "-C", str(bare), "rev-parse", "-q", "--verify", f"refs/tags/{ref}"],
        capture_output=True,
    )
    if tagged.returncode != 0:
        fe.say(
            f"the tag {ref} is not in this repository yet (`make release` creates it): the "
            "scratch clone tags HEAD with it"
        )
        fe.run(["git", "-C", bare, "tag", ref, "HEAD"])
    dirty = subprocess.run(
        [
            "git",
            "-C",
            str(fe.REPO),
            "status",
            "--porcelain",
            "posenc_lib",
            "pyproject.toml",
        ],
        capture_output=True,
        text=True,
    ).stdout.strip()
    if dirty:
        fe.say(
            f"note: uncommitted changes are not installed (git installs {ref}):\n{dirty}"
        )
    return bare.as_uri()


def install_cell_code(notebook: Path, repo_url: str, ref: str | None = None) -> str:
    """The install cell of ``notebook`` with ``REPO`` (and ``REF``, if given) replaced."""
    import make_colab

    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    code = next(c for c in cells if c["cell_type"] == "code")
    source = "".join(code["source"])
    if source != make_colab.install_cell():
        raise SystemExit(
            f"{notebook.name}: its install cell is not make_colab's: run make colab"
        )
    for name, value in (("REPO", repo_url), ("REF", ref)):
        if value is None:
            continue
        line = re.compile(rf'^{name} = "[^"]*"$', re.M)
        if len(line.findall(source)) != 1:
            raise SystemExit(
                f"{notebook.name}: no single {name} = ... line in the install cell"
            )
        source = line.sub(f'{name} = "{value}"', source)
    return source


def run_install_cell(python: Path, work: Path, source: str) -> list[str]:
    """Run the install cell's code in the fresh environment; the lines it printed."""
    script = work / "install_cell.py"
    script.write_text(source + "\n", encoding="utf-8")
    done = subprocess.run(
        [str(python), str(script)],
        capture_output=True,
        text=True,
        env=fe.clean_env(),
        cwd=work,
    )
    if done.returncode != 0:
        raise SystemExit(f"the install cell raised:\n{done.stderr[-3000:]}")
    return done.stdout.strip().splitlines()


def check_installed_files(python: Path, bare: str, ref: str) -> None:
    """The installed posenc_lib holds every file of posenc_lib/ at ``ref``, and the version of
    pyproject.toml."""
    import tomllib

    listed = subprocess.run(
        ["git", "--git-dir", bare.removeprefix("file://"), "ls-tree", "-r", "--name-only",
         ref, "posenc_lib/"],
        check=True, capture_output=True, text=True,
    ).stdout.split()  # fmt: skip
    found = subprocess.run(
        [str(python), "-c",
         "import importlib.metadata as m, pathlib, posenc_lib as p; "
         "root = pathlib.Path(p.__file__).parent; "
         "print(m.version('posenc-lib')); "
         "[print('posenc_lib/' + q.relative_to(root).as_posix()) for q in root.rglob('*') "
         "if q.is_file() and '__pycache__' not in q.parts]"],
        check=True, capture_output=True, text=True, env=fe.clean_env(), cwd="/",
    ).stdout.split()  # fmt: skip
    version, files = found[0], set(found[1:])
    wanted = tomllib.loads((fe.REPO / "pyproject.toml").read_text())["project"][
        "version"
    ]
    if version != wanted:
        raise SystemExit(
            f"installed posenc-lib {version}, pyproject.toml says {wanted}"
        )
    missing = sorted(set(listed) - files)
    if missing:
        raise SystemExit(
            f"the installed posenc_lib lacks files of posenc_lib/ at {ref} that a Colab reader "
            f"would not get (declare them as package data in pyproject.toml): {missing}"
        )
    fe.say(
        f"installed posenc-lib {version}: {len(listed)} files of posenc_lib/ at {ref}"
    )


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
    fe.add_keep_option(parser)
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

    started = time.perf_counter()
    with fe.scratch_folder("colab-check-", keep=args.keep) as work:
        fe.say(f"working in {work}")
        python = fe.make_venv(work / "venv")
        fe.pip_install(python, PIP)
        fe.pip_install(python, *COLAB_PACKAGES, TORCH, *fe.lock_pins(*RUNNER))
        colab = fe.freeze(python)
        fe.say(
            "Colab stand-in: "
            + ", ".join(
                f"{n} {colab[n]}" for n in ["numpy", "matplotlib", "sympy", "torch"]
            )
        )

        import make_colab

        ref = make_colab.colab_ref()
        bare = local_repository(work, ref)
        # The failure path first (nothing is installed by it): pip's reason, then the command.
        said = run_install_cell(
            python, work, install_cell_code(notebooks[0], bare, "v0.0.0-no-such-tag")
        )
        if (
            len(said) != 2
            or not said[0].startswith("posenc_lib could not be installed: ERROR")
            or "Invalid requirement" in said[0]  # pip must have understood the command
            or not said[1].startswith('Run: pip install "posenc-lib[book] @ git+')
        ):
            raise SystemExit(
                f"the install cell's failure message is not pip's reason: {said}"
            )
        fe.say(f"install cell, a tag that does not exist: {said[0]}")
        started_install = time.perf_counter()
        said = run_install_cell(python, work, install_cell_code(notebooks[0], bare))
        if said != [f"Installed posenc_lib {ref} from {bare}"]:
            raise SystemExit(f"the install cell did not install posenc_lib: {said}")
        fe.say(
            f"install cell: {said[0]} in {time.perf_counter() - started_install:.0f} s"
        )
        check_installed_files(python, bare, ref)
        installed = fe.freeze(python)
        added = sorted(set(installed) - set(colab))
        changed = sorted(n for n in colab if installed.get(n) != colab[n])
        if added != ["posenc-lib"] or changed:
            raise SystemExit(
                f"the install cell's posenc-lib[book] changed the Colab environment: added "
                f"{added}, changed {[(n, colab[n], installed.get(n)) for n in changed]}"
            )
        fe.say("the install cell added posenc-lib and nothing else")

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


if __name__ == "__main__":
    if sys.argv[1:2] == ["--execute"]:
        _execute_main(sys.argv[2:])
    else:
        sys.exit(main())
