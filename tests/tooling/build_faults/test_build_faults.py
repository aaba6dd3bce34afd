"""Injected build faults fail `make book` / `make check-book`, on the first run and on a rerun,
and a failed build leaves no stale book in _build/html that looks current.

Each test builds a minimal book (an intro page and one chapter notebook) with the project's own
Makefile, _config.yml, _ext/ and book checks, in a temporary folder, with this checkout's
environment and MathJax (``make check-build-faults`` provides both; run alone without them, the
tests skip, and under make they fail).
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
VENV = ROOT / ".venv"
MATHJAX = "_extra/mathjax/startup.js"  # the Makefile's $(MATHJAX)
#: What the minimal book takes from the project (copied with their modification times, so that
#: make sees the environment and the MathJax copy as up to date).
COPIED = [
    "Makefile",
    "_config.yml",
    "_ext",
    "package.json",
    "package-lock.json",
    "pyproject.toml",
    "requirements/lock.txt",
    "requirements/conventions.txt",
    "requirements/browser.txt",
    "references.bib",
    "scripts/check_outputs.py",
    "scripts/mathjax_glyphs.cjs",
    "scripts/minify_assets.cjs",
    "tests/book/built",
]
INTRO = "# Intro\n\nThe chapter is {ref}`fault-chapter`.\n"
LABEL = "(fault-chapter)=\n"


def chapter(label: str = LABEL, outputs: list | None = None) -> dict:
    markdown = f"{label}# A chapter\n\nEuler: $e^{{i\\theta}} = \\cos\\theta + i \\sin\\theta$.\n"
    code_outputs = outputs or [
        {"output_type": "stream", "name": "stdout", "text": "ok\n"}
    ]
    return {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": markdown},
            {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": "print('ok')",
             "outputs": code_outputs},
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                    "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }  # fmt: skip


@pytest.fixture
def book(tmp_path):
    if not (VENV / ".installed").is_file() or not (ROOT / MATHJAX).is_file():
        reason = "needs .venv and MathJax, which `make check-build-faults` provides"
        if os.environ.get("BUILD_FAULTS_REQUIRED"):
            pytest.fail(reason)
        pytest.skip(reason)
    for name in COPIED:
        source, target = ROOT / name, tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(
                source, target, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            shutil.copy2(source, target)
    (tmp_path / "_extra").symlink_to(ROOT / "_extra")
    # The MathJax that _ext/page_weight.py runs under node to cut the fonts.
    (tmp_path / "node_modules").symlink_to(ROOT / "node_modules")
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nchapters:\n  - file: notebooks/01_chapter\n"
    )
    (tmp_path / "intro.md").write_text(INTRO)
    (tmp_path / "notebooks").mkdir()
    write_chapter(tmp_path, chapter())
    # The chapter's Colab edition: the book warns (and fails) on a launch button to none.
    (tmp_path / "colab").mkdir()
    (tmp_path / "colab" / "01_chapter.ipynb").write_text(
        json.dumps(chapter(), indent=1)
    )
    return tmp_path


def write_chapter(book: Path, notebook: dict) -> None:
    (book / "notebooks" / "01_chapter.ipynb").write_text(json.dumps(notebook, indent=1))


def make(book: Path, target: str) -> subprocess.CompletedProcess:
    """``make TARGET`` in the minimal book, never rebuilding the shared environment or MathJax."""
    return subprocess.run(
        ["make", "--no-print-directory", f"VENV={VENV}", f"--assume-old={VENV}/.installed",
         f"--assume-old={MATHJAX}", target],
        cwd=book, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def assert_fails(done: subprocess.CompletedProcess, phrase: str) -> None:
    assert done.returncode != 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert phrase in done.stdout + done.stderr


def test_a_stored_error_output_fails_book_and_check_book(book):
    error = {"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero",
             "traceback": ["ZeroDivisionError: division by zero"]}  # fmt: skip
    write_chapter(book, chapter(outputs=[error]))
    for target in ("book", "book", "check-book"):
        assert_fails(
            make(book, target), "stored error: 'ZeroDivisionError: division by zero'"
        )
    assert not (book / "_build" / "html" / "notebooks" / "01_chapter.html").exists()


def test_a_missing_reference_fails_every_run(book):
    (book / "intro.md").write_text(INTRO.replace("fault-chapter", "no-such-label"))
    for _ in range(2):
        assert_fails(make(book, "book"), "no-such-label")


def test_a_fault_in_an_unchanged_page_is_found_after_a_passing_build(book):
    """A first build passes; then the chapter drops the label the intro refers to. The intro did
    not change: an incremental build would not re-check its reference (and passed it)."""
    done = make(book, "book")  # (not check-book: its checks grow with the real book)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "build succeeded" in done.stdout
    assert make(book, "book").returncode == 0  # nothing changed: nothing to rebuild
    write_chapter(book, chapter(label=""))
    for _ in range(2):
        assert_fails(make(book, "book"), "fault-chapter")


def test_unknown_kernel_and_unparsable_code_fail_and_leave_no_stale_book(book):
    """Issue 27: both passed every check; a failed build left the last good HTML in place."""
    done = make(book, "book")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    html = book / "_build" / "html"
    assert (html / "notebooks" / "01_chapter.html").is_file()
    unknown_kernel = chapter()
    unknown_kernel["metadata"]["kernelspec"]["name"] = "pyhton3"
    unparsable = chapter()
    unparsable["cells"][1]["source"] = "print('ok'"
    for notebook, phrase in [
        (unknown_kernel, "unknown kernel name: \"'pyhton3'"),
        (unparsable, "Cell 0 (cell 1): code that does not parse: "),
    ]:
        write_chapter(book, notebook)
        for target in ("book", "book", "check-book"):
            done = make(book, target)
            assert_fails(done, phrase)
            assert "_build/html holds no book" in done.stderr
            assert not html.exists()  # the last good book is not left looking current
        assert (book / "_build" / "html.failed").is_dir()
