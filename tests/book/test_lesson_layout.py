"""The lesson layout (issue 21): check cells folded beside a main line that fits its budgets.

Rules, each with a control below that it rejects:

* a check cell's tags and fold text are derived from its ``# @title ✓`` line (re-deriving
  changes nothing), its verdict fits one line, and it calls ``check`` at least once;
* ``check(...)`` is called only in check cells, and no chapter uses a bare ``assert``
  (one check idiom: ``posenc_lib.course.notebook.check``);
* every Colab edition shows each check cell as a form cell;
* the main line of each chapter fits the budgets of book-design §5 (``scripts/lesson.py``).
"""

from __future__ import annotations

import ast
import copy
import json
import re
import sys
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
import lesson  # noqa: E402

NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
CHAPTERS = [p for p in NOTEBOOKS if re.match(r"\d\d[a-z]?_", p.name) and p.name < "90"]


def _code(source: str) -> str:
    """Cell source as Python: IPython magics and shell lines blanked."""
    return "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line
        for line in source.splitlines()
    )


def idiom_problems(nb: nbformat.NotebookNode, name: str) -> list[str]:
    """Every way ``nb`` breaks the check-cell rules, one line each."""
    problems = []
    marked = lesson.mark_check_cells(copy.deepcopy(nb))
    for index, (cell, again) in enumerate(zip(nb.cells, marked.cells, strict=True)):
        where = f"{name} cell {index}"
        if cell.metadata != again.metadata:
            problems.append(f"{where}: check-cell metadata not derived from its title")
        if cell.cell_type != "code":
            continue
        verdict = lesson.verdict(cell)
        tree = ast.parse(_code(cell.source))
        calls = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "check"
        ]
        if any(isinstance(n, ast.Assert) for n in ast.walk(tree)):
            problems.append(f"{where}: a bare assert (use check(label, ok, detail))")
        if verdict is None and calls:
            problems.append(f"{where}: check(...) outside a check cell")
        if verdict is not None:
            if not calls:
                problems.append(f"{where}: a check cell with no check(...) call")
            if len(verdict) > lesson.MAX_VERDICT:
                problems.append(f"{where}: verdict of {len(verdict)} characters")
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_check_idiom(path: Path) -> None:
    assert idiom_problems(nbformat.read(path, as_version=4), path.name) == []


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_main_line_budget(path: Path) -> None:
    assert lesson.budget(nbformat.read(path, as_version=4)).problems() == []


@pytest.mark.parametrize(
    "path", sorted((REPO / "colab").glob("*.ipynb")), ids=lambda p: p.name
)
def test_colab_check_cells_are_forms(path: Path) -> None:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and re.match(r"# ?@title ✓", source):
            assert cell["metadata"].get("cellView") == "form", source.splitlines()[0]


# ---- controls -----------------------------------------------------------------------------


def _notebook(*cells: nbformat.NotebookNode) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook(cells=list(cells))
    return lesson.mark_check_cells(nb)


def test_a_good_check_cell_passes() -> None:
    cell = nbformat.v4.new_code_cell(
        '# @title ✓ one plus one is two\ncheck("1+1", 1 + 1 == 2)'
    )
    nb = _notebook(cell)
    assert idiom_problems(nb, "good") == []
    assert nb.cells[0].metadata["tags"] == ["check", "hide-cell"]
    assert nb.cells[0].metadata["mystnb"]["code_prompt_show"] == "✓ one plus one is two"


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("x = 1\nassert x == 1", "bare assert"),
        ('check("x", True)', "outside a check cell"),
        ("# @title ✓ says something\nx = 1", "no check(...) call"),
        ("# @title ✓ " + "v" * 120 + '\ncheck("x", True)', "characters"),
    ],
)
def test_idiom_controls(source: str, problem: str) -> None:
    found = idiom_problems(_notebook(nbformat.v4.new_code_cell(source)), "control")
    assert any(problem in p for p in found), found


def test_metadata_not_derived_is_rejected() -> None:
    nb = _notebook(nbformat.v4.new_code_cell('# @title ✓ holds\ncheck("x", True)'))
    nb.cells[0].metadata["mystnb"]["code_prompt_show"] = "Show code cell source"
    assert any("not derived" in p for p in idiom_problems(nb, "control"))


def test_budget_counts_the_main_line_only() -> None:
    words = nbformat.v4.new_markdown_cell("## 1.1 Idea\n" + "word " * 100)
    code = nbformat.v4.new_code_cell("x = 1\ny = 2")
    folded = nbformat.v4.new_code_cell(
        '# @title ✓ holds\ncheck("x", True)\n' + "z = 3\n" * 50
    )
    further = nbformat.v4.new_markdown_cell("## Going further\n" + "aside " * 1000)
    further_code = nbformat.v4.new_code_cell("w = 4\n" * 40)
    exercises = nbformat.v4.new_markdown_cell(
        "## Exercises\nDo it.\n:::{solution} ex1\n" + "hidden " * 500 + "\n:::"
    )
    b = lesson.budget(_notebook(words, code, folded, further, further_code, exercises))
    assert (b.words, b.code_lines, b.check_cells, b.checks) == (107, 2, 1, 1)


def test_budget_rejects_an_overlong_main_line() -> None:
    long = nbformat.v4.new_markdown_cell("word " * (lesson.MAX_WORDS + 1))
    code = nbformat.v4.new_code_cell("x = 1\n" * (lesson.MAX_CODE_LINES + 1))
    problems = lesson.budget(_notebook(long, code)).problems()
    assert len(problems) == 2, problems


def test_math_and_markup_are_not_words() -> None:
    text = "(ch2-x)=\n# Title\nA $x^2 + y$ b.\n$$\na = b + c\n$$ (ch2-eq)\n:::{note}\nc\n:::"
    assert lesson.prose_words(text) == len("# Title A x b. c".split())
