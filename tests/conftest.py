"""Fixtures shared by the test modules (the nbval and doctest configuration is the root
``conftest.py``).

- ``rng``: a numpy Generator seeded from the test's own id, so each test draws its own
  reproducible numbers.
- ``run_python``: run ``python`` on a script or ``-m module`` as a user does, in the repository
  root, output captured as text.
- ``built_book``: the built book's HTML folder (``$BOOK_HTML_DIR``, default ``_build/html``);
  the test skips, saying why, when there is no built book.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> np.random.Generator:
    """A Generator seeded from the test's node id (the same numbers on every run)."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture
def run_python() -> Callable[..., subprocess.CompletedProcess]:
    """``run_python(*args, timeout=300, cwd=ROOT)``: ``python *args``, finished."""

    def run(
        *args: object, timeout: float = 300, cwd: Path = ROOT
    ) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, *map(str, args)],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    return run


def book_html_dir() -> Path:
    """Where the built book is: ``$BOOK_HTML_DIR``, default ``_build/html``."""
    return Path(os.environ.get("BOOK_HTML_DIR") or ROOT / "_build" / "html").resolve()


@pytest.fixture(scope="session")
def built_book() -> Path:
    """The built book's HTML folder; skip when there is none."""
    html_dir = book_html_dir()
    if not (html_dir / "index.html").is_file():
        pytest.skip(f"no built book at {html_dir}: run `make book` first")
    return html_dir
