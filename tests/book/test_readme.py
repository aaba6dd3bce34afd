"""README.md: short, with the targets table equal to `make help`."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _make_help_table() -> str:
    out = subprocess.run(
        ["make", "-s", "--no-print-directory", "help"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    rows = [line.split("\t", 1) for line in out.splitlines() if line.strip()]
    assert len(rows) > 10 and all(len(row) == 2 for row in rows), out
    lines = ["| target | what it does |", "|--------|--------------|"]
    return "\n".join(lines + [f"| `make {t}` | {d} |" for t, d in rows])


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_readme_targets_table_is_make_help():
    found = re.search(r"<!-- make help -->\n(.*?)\n<!-- /make help -->", README, re.S)
    assert found, "README.md has no <!-- make help --> block"
    expected = _make_help_table()
    assert found.group(1) == expected, f"replace the block with:\n{expected}"


def test_readme_is_short_with_the_two_commands_first():
    lines = README.splitlines()
    assert len(lines) <= 80, len(lines)
    first_screen = "\n".join(lines[:25])
    assert "make book" in first_screen and "make test" in first_screen
    assert "python3-venv" in README
    assert "book/how-to-run.md" in README


def test_timings_are_stated_in_one_place():
    # Timings live in book/how-to-run.md's table; the README states none.
    assert not re.search(r"\d+(\.\d+)?\s*(min|s)\b", README), "a timing in README.md"
