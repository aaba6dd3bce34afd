"""The chapter runner leaves the pytest worker as it found it: a chapter sets numpy's print
options (chapter 8: ``precision=3``), the book's matplotlib style and torch's thread count for
the whole process, and a doctest that runs later in the same worker must print as it does
alone (``make check-oldest`` once failed two doctests that way)."""

import matplotlib
import numpy as np

from tests.book.chapters.runner import run_chapter


def _style() -> dict:
    # The runner itself selects the non-interactive back-end, on purpose.
    return {k: v for k, v in matplotlib.rcParams.items() if not k.startswith("backend")}


def test_a_chapter_run_leaves_print_options_and_style_as_they_were():
    before = np.get_printoptions(), _style()
    run_chapter("08_rotary", until="")  # up to its first check cell, past its set-up
    assert (np.get_printoptions(), _style()) == before
