"""Helpers shared by check_colab.py and check_oldest.py: a scratch folder removed on the way
out, fresh virtual environments, pip, a copy of the repository's sources, pins from the lock
file."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LOCK = REPO / "requirements" / "lock.txt"

# Never copied into a source copy, whatever git says (build outputs, environments, caches).
_NOT_SOURCE = {
    ".git",
    ".venv",
    "_build",
    "_extra",
    "node_modules",
    "build",
    "dist",
    ".lockvenv",
}


def say(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def add_keep_option(parser: argparse.ArgumentParser) -> None:
    """``--keep``: keep the scratch folder of :func:`scratch_folder`."""
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")


@contextlib.contextmanager
def scratch_folder(prefix: str, *, keep: bool) -> Iterator[Path]:
    """A new temporary folder, removed on the way out, also on Ctrl-C or an error, unless
    ``keep`` (then said in the log). The caller says ``working in`` it inside its own handler
    of Ctrl-C, so that a Ctrl-C right after that line is handled by the caller."""
    work = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield work
    finally:
        if keep:
            say(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def run(
    cmd: list[str | os.PathLike[str]], **kwargs: object
) -> subprocess.CompletedProcess:
    """Run ``cmd``, echoing it; raise on failure."""
    shown = " ".join(str(part) for part in cmd)
    say(f"$ {shown if len(shown) < 300 else shown[:300] + ' ...'}")
    return subprocess.run([str(part) for part in cmd], check=True, **kwargs)  # type: ignore[call-overload]


def clean_env(**extra: str) -> dict[str, str]:
    """The environment for commands in a fresh venv: no PYTHONPATH, no active venv."""
    env = {
        k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}
    }
    env.update(extra)
    return env


def make_venv(path: Path) -> Path:
    """Create a virtual environment at ``path`` (from the base interpreter); return its python."""
    base = getattr(sys, "_base_executable", sys.executable)
    run([base, "-m", "venv", path])
    return path / "bin" / "python"


def pip_install(python: Path, *args: str, env: dict[str, str] | None = None) -> None:
    started = time.perf_counter()
    run([python, "-m", "pip", "install", "-qq", *args], env=env or clean_env())
    say(f"  installed in {time.perf_counter() - started:.0f} s")


def freeze(python: Path) -> dict[str, str]:
    """``{name: version}`` of what is installed in the environment of ``python``."""
    out = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=freeze"],
        check=True,
        capture_output=True,
        text=True,
        env=clean_env(),
    ).stdout
    pins = {}
    for line in out.splitlines():
        name, _, version = line.partition("==")
        pins[name.lower().replace("_", "-")] = version
    return pins


def read_pins(path: Path) -> dict[str, str]:
    """``{name: version}`` of the ``name==version`` lines of a requirements file (names in
    lower case, ``_`` as ``-``)."""
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        name, sep, version = line.split("#", 1)[0].strip().partition("==")
        if sep:
            pins[name.lower().replace("_", "-")] = version
    return pins


def lock_pins(*names: str) -> list[str]:
    """``name==version`` for each of ``names`` as requirements/lock.txt pins it."""
    pins = read_pins(LOCK)
    missing = [n for n in names if n.lower() not in pins]
    if missing:
        raise SystemExit(f"not pinned in {LOCK}: {missing}")
    return [f"{n}=={pins[n.lower()]}" for n in names]


def source_files(repo: Path = REPO) -> list[Path]:
    """The files a fresh clone would have, plus untracked files git does not ignore."""
    try:
        out = subprocess.run(
            [
                "git",
                "-C",
                str(repo),
                "ls-files",
                "--cached",
                "--others",
                "--exclude-standard",
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        names = [Path(line) for line in out.splitlines() if line]
    except (
        OSError,
        subprocess.CalledProcessError,
    ):  # not a git checkout: walk the tree
        names = [p.relative_to(repo) for p in repo.rglob("*") if p.is_file()]
    return [
        name
        for name in names
        if not (set(name.parts) & _NOT_SOURCE)
        and "__pycache__" not in name.parts
        and not name.parts[0].endswith(".egg-info")
        and (repo / name).is_file()
    ]


def copy_sources(destination: Path, repo: Path = REPO) -> Path:
    """Copy the repository's sources to ``destination`` (building there leaves the tree clean)."""
    for name in source_files(repo):
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / name, target)
    return destination
