"""The lesson layout of a chapter: its check cells, its main line and their budgets.

Usage::

    python scripts/lesson.py notebooks/*.ipynb      # the budget table of each chapter

A **check cell** is a code cell whose job is to verify (the book's one check idiom). Its first
line is a Colab form title that states the verdict, ``# @title ✓ <what was verified>``; its body
calls ``posenc_lib.course.notebook.check`` (never a bare ``assert``). From that first line the
normalizer (``scripts/execute_notebooks.py``) derives the rest, so that the title is the one
source of truth:

* the tags ``check`` and ``hide-cell``: the book shows the cell as one folded line whose text
  is the verdict (myst-nb's ``code_prompt_show``/``code_prompt_hide``), with code and detail
  lines behind the toggle;
* the Colab edition (``scripts/make_colab.py``) marks it ``cellView: form``: a collapsed,
  titled cell that still runs.

The **main line** of a chapter is what a reader sees without opening a fold: every cell except
check cells, cells removed or hidden from the book, the exercise solutions and the
"Going further" section (from its ``##`` heading to the next ``##`` heading). Its budgets
(book-design §5) are measured here and asserted by ``tests/book/test_lesson_layout.py``; the number
of phone screens is measured in the built book by the browser check.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

#: ``# @title ✓ verdict``: the first line of every check cell (ruff format writes Colab's
#: ``#@title`` with a space; Colab reads both).
CHECK_TITLE = re.compile(r"^# ?@title ✓ (?P<verdict>\S.*\S)\s*$")
#: A verdict fits the 88-column code limit with its "# @title ✓ " prefix.
MAX_VERDICT = 77
CHECK_TAGS = ("check", "hide-cell")
#: Cells the book does not show on the main line.
FOLDED_TAGS = {"check", "remove-cell", "remove-input", "hide-cell", "hide-input"}
GOING_FURTHER = re.compile(r"^##\s+Going further", re.MULTILINE)
SECTION = re.compile(r"^##\s+\S", re.MULTILINE)
#: Budgets of the main line (book-design §5).
MAX_WORDS = 5000
MAX_CODE_LINES = 300
MAX_SCREENS = 35


def verdict(cell: Any) -> str | None:
    """The verdict of a check cell (its ``#@title ✓`` line), or None for any other cell."""
    if cell.cell_type != "code":
        return None
    first = cell.source.split("\n", 1)[0]
    match = CHECK_TITLE.match(first)
    return match["verdict"] if match else None


def mark_check_cells(notebook: Any) -> Any:
    """Give every check cell its tags and fold text, derived from its title; in place."""
    for cell in notebook.cells:
        text = verdict(cell)
        tags = list(cell.metadata.get("tags", []))
        if text is None:
            if "check" in tags:  # a title removed: the cell is no longer a check
                tags = [t for t in tags if t not in CHECK_TAGS]
                cell.metadata["tags"] = tags
                mystnb = cell.metadata.get("mystnb", {})
                mystnb.pop("code_prompt_show", None)
                mystnb.pop("code_prompt_hide", None)
                if not mystnb:
                    cell.metadata.pop("mystnb", None)
                if not tags:
                    cell.metadata.pop("tags", None)
            continue
        cell.metadata["tags"] = tags + [t for t in CHECK_TAGS if t not in tags]
        mystnb = cell.metadata.setdefault("mystnb", {})
        mystnb["code_prompt_show"] = f"✓ {text}"
        mystnb["code_prompt_hide"] = f"✓ {text}"
    return notebook


def _solution_free(text: str) -> str:
    """``text`` without the bodies of ``{solution}`` blocks (folded in the book)."""
    out, depth_fence = [], None
    for line in text.splitlines():
        stripped = line.strip()
        if depth_fence is None:
            match = re.match(r"^(:{3,}|`{3,})\{solution\}", stripped)
            if match:
                depth_fence = match[1]
                continue
            out.append(line)
        elif stripped == depth_fence:
            depth_fence = None
    return "\n".join(out)


_MATH_BLOCK = re.compile(r"\$\$.*?\$\$[ \t]*(\([\w-]+\))?", re.DOTALL)
_INLINE_MATH = re.compile(r"\$[^$\n]+\$")
_MARKUP_LINE = re.compile(r"^\s*(:{3,}|`{3,}|:[a-z-]+:|\([\w-]+\)=|<!--)")


def prose_words(markdown: str) -> int:
    """Words a reader reads in a markdown cell: display math and markup lines not counted,
    inline math counted as one word."""
    text = _MATH_BLOCK.sub(" ", _solution_free(markdown))
    text = _INLINE_MATH.sub(" x ", text)
    lines = [ln for ln in text.splitlines() if not _MARKUP_LINE.match(ln)]
    return len(" ".join(lines).split())


def main_line(notebook: Any) -> list[Any]:
    """The cells a reader sees without opening a fold, "Going further" excluded."""
    cells, skipping = [], False
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            if GOING_FURTHER.search(cell.source):
                skipping = True
                # the cell may end the section before it and start "Going further"
                head = GOING_FURTHER.split(cell.source)[0]
                if head.strip():
                    cells.append(nbformat.v4.new_markdown_cell(head))
                continue
            if skipping and SECTION.search(cell.source):
                skipping = False
        if skipping:
            continue
        if set(cell.metadata.get("tags", [])) & FOLDED_TAGS:
            continue
        cells.append(cell)
    return cells


@dataclass(frozen=True)
class Budget:
    words: int
    code_lines: int
    check_cells: int
    checks: int

    def problems(self) -> list[str]:
        found = []
        if self.words > MAX_WORDS:
            found.append(f"{self.words} words of prose (at most {MAX_WORDS})")
        if self.code_lines > MAX_CODE_LINES:
            found.append(
                f"{self.code_lines} visible code lines (at most {MAX_CODE_LINES})"
            )
        return found


def budget(notebook: Any) -> Budget:
    """Prose words and visible code lines of the main line, and the number of checks."""
    shown = main_line(notebook)
    words = sum(prose_words(c.source) for c in shown if c.cell_type == "markdown")
    code = sum(
        1
        for c in shown
        if c.cell_type == "code"
        for line in c.source.splitlines()
        if line.strip()
    )
    checks = [c for c in notebook.cells if verdict(c) is not None]
    n_checks = sum(len(re.findall(r"\bcheck\(", c.source)) for c in checks)
    return Budget(words, code, len(checks), n_checks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    args = parser.parse_args(argv)
    print(f"{'chapter':<32} {'words':>6} {'code':>5} {'check cells':>11} {'checks':>6}")
    bad = 0
    for path in args.notebooks:
        b = budget(nbformat.read(path, as_version=4))
        chapter = not path.name.startswith("9")  # appendices are reference, not lessons
        flag = "  over: " + "; ".join(b.problems()) if chapter and b.problems() else ""
        bad += bool(flag)
        print(
            f"{path.name:<32} {b.words:>6} {b.code_lines:>5} {b.check_cells:>11} "
            f"{b.checks:>6}{flag}"
        )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
