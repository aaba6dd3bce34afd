"""Run a chapter's code cells in-process, optionally with a planted slip, for control tests.

A chapter's check cells must be able to fail. Their controls live here, not in the chapter: a
test plants a plausible slip in one cell (a dropped factor, a wrong sign, a wrong constant) and
asserts that a named check cell then rejects it, while the unchanged chapter passes. The cells
run in one in-process IPython shell (no kernel start), from the notebook's folder, with the
non-interactive matplotlib back-end; ``plt.show()`` is a no-op there.

Example::

    from tests.book.chapters.runner import expect_check_fails

    def test_dropped_half_is_caught():
        expect_check_fails(
            "05_long_range_decay",
            check="the closed form equals the sum",
            old="x / 2",
            new="x",
        )
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parents[3]
NOTEBOOKS = REPO / "notebooks"
_TITLE = re.compile(r"^# ?@title ✓ (.*)$")


class CheckFailed(AssertionError):
    """A check cell raised: ``title`` is its verdict line, ``error`` what it raised."""

    def __init__(self, title: str, error: BaseException) -> None:
        super().__init__(f"check {title!r} failed: {error!r}")
        self.title = title
        self.error = error


def notebook_path(chapter: str) -> Path:
    """``notebooks/<chapter>*.ipynb`` for a chapter's file stem or unique prefix."""
    found = sorted(NOTEBOOKS.glob(f"{chapter}*.ipynb"))
    if len(found) != 1:
        raise ValueError(f"chapter {chapter!r} matches {[p.name for p in found]}")
    return found[0]


def _title(source: str) -> str | None:
    match = _TITLE.match(source.split("\n", 1)[0])
    return match[1] if match else None


def _shell():
    import matplotlib

    matplotlib.use("Agg")
    from IPython.core.interactiveshell import InteractiveShell

    InteractiveShell.clear_instance()
    return InteractiveShell.instance()


def run_chapter(
    chapter: str,
    *,
    until: str | None = None,
    old: str | None = None,
    new: str | None = None,
) -> dict:
    """Run ``chapter``'s code cells (the install cell skipped) in order; return the namespace.

    ``until``: stop after the first check cell whose verdict contains this text (ValueError if
    none does). ``old``/``new``: replace ``old`` by ``new`` in the one code cell before that
    point that contains ``old`` (ValueError unless exactly one does). A check cell that raises
    raises ``CheckFailed``; any other cell's error propagates as it is.
    """
    path = notebook_path(chapter)
    cells = [
        c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"
    ]
    cells = cells[1:]  # the install cell
    if until is not None:
        stops = [i for i, c in enumerate(cells) if until in (_title(c.source) or "")]
        if not stops:
            raise ValueError(
                f"no check cell of {path.name} has a verdict with {until!r}"
            )
        cells = cells[: stops[0] + 1]
    sources = [c.source for c in cells]
    if old is not None:
        hits = [i for i, s in enumerate(sources) if old in s]
        if len(hits) != 1:
            raise ValueError(
                f"{old!r} is in {len(hits)} code cells of {path.name}, not 1"
            )
        sources[hits[0]] = sources[hits[0]].replace(old, new or "")
    shell = _shell()
    import matplotlib.pyplot as plt

    with (
        _process_state_kept(),
        contextlib.chdir(path.parent),
        open(os.devnull, "w") as sink,
        contextlib.redirect_stdout(sink),
    ):
        for source in sources:
            result = shell.run_cell(source, store_history=False, silent=True)
            plt.close("all")  # plt.show() is a no-op here: figures would pile up
            error = result.error_before_exec or result.error_in_exec
            if error is not None:
                title = _title(source)
                if title is not None:
                    raise CheckFailed(title, error)
                raise error
    return shell.user_ns


@contextlib.contextmanager
def _process_state_kept():
    """Undo what a chapter sets for the whole process (numpy's print options, matplotlib's
    style, torch's thread count and default dtype): the chapter runs inside a pytest worker,
    and a doctest that runs there later must print as it does alone."""
    import matplotlib
    import numpy as np

    torch = sys.modules.get("torch")
    printing = np.get_printoptions()
    threads = torch.get_num_threads() if torch else None
    dtype = torch.get_default_dtype() if torch else None
    try:
        with matplotlib.rc_context():
            yield
    finally:
        np.set_printoptions(**printing)
        torch = sys.modules.get("torch")
        if torch is not None:
            if threads is not None:
                torch.set_num_threads(threads)
            torch.set_default_dtype(dtype or torch.float32)


def expect_check_fails(chapter: str, *, check: str, old: str, new: str) -> CheckFailed:
    """Assert that planting ``old -> new`` makes the check cell ``check`` fail, and no cell
    before it; return the failure (its ``error`` is the check's AssertionError)."""
    try:
        run_chapter(chapter, until=check, old=old, new=new)
    except CheckFailed as failure:
        if check not in failure.title:
            raise AssertionError(
                f"the slip {old!r} -> {new!r} was caught by an earlier check "
                f"{failure.title!r}, not by {check!r}"
            ) from failure
        if not isinstance(failure.error, AssertionError):
            raise AssertionError(
                f"check {check!r} crashed instead of rejecting the slip: {failure.error!r}"
            ) from failure
        return failure
    raise AssertionError(f"check {check!r} accepted the slip {old!r} -> {new!r}")
