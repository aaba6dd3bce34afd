"""A full disk for the fault-injection tests: a tiny tmpfs (64 KiB), filled up.

Mounting needs root (CI's container runs the tests as root); elsewhere the tests that use it
skip, saying why.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def tiny_disk(where: Path, size: str = "64k") -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``where`` (made); unmounted on exit. Skips unless possible."""
    if os.geteuid() != 0:
        pytest.skip("a full disk is a tiny tmpfs, and mounting one needs root")
    if shutil.which("mount") is None:
        pytest.skip("no mount command here")
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(disk: Path) -> None:
    """Fill ``disk`` to the last byte (a file ``filler`` in it)."""
    with open(disk / "filler", "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * 4096)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
    assert os.statvfs(disk).f_bavail == 0


def run_on_full_disk(run_python, disk: Path, *args: object) -> str:
    """Fill ``disk``, run ``python *args`` (the ``run_python`` fixture), assert that it exits
    with status 1, and return its stripped stderr (the one-line message to compare)."""
    fill(disk)
    done = run_python(*args)
    assert done.returncode == 1, done.stderr
    return done.stderr.strip()
