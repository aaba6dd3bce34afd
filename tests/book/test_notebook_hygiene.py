"""Notebooks that review well in git (issue 11 §5) and a shared idiom layer (issue 11 §4).

Every chapter notebook must carry only the metadata the book reads, execution counts in the
order of a top-to-bottom run, stream outputs merged as Jupyter shows them and no stored
stderr, code cells of at most 30 lines and 88 columns, and no helper function defined in two
notebooks (shared helpers live in ``posenc_lib.course.notebook``). Each rule has a control notebook
below that it rejects.
"""

from __future__ import annotations

import ast
import itertools
import re
from collections import defaultdict
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
CELL_METADATA = {"tags", "mystnb"}
NOTEBOOK_METADATA = {"kernelspec", "language_info"}
MAX_CELL_LINES = 30
MAX_COLUMNS = 88


def hygiene_problems(nb: nbformat.NotebookNode, name: str) -> list[str]:
    """Every way ``nb`` breaks the rules above, one line each (empty when it keeps them)."""
    problems = []
    extra = set(nb.metadata) - NOTEBOOK_METADATA
    if extra:
        problems.append(f"{name}: notebook metadata {sorted(extra)}")
    if "version" in nb.metadata.get("language_info", {}):
        problems.append(f"{name}: language_info.version (differs per machine)")
    counts = []
    for index, cell in enumerate(nb.cells):
        where = f"{name} cell {index}"
        extra = set(cell.metadata) - CELL_METADATA
        if extra:
            problems.append(f"{where}: cell metadata {sorted(extra)}")
        if cell.cell_type != "code":
            continue
        lines = cell.source.splitlines()
        if len(lines) > MAX_CELL_LINES:
            problems.append(f"{where}: {len(lines)} lines (at most {MAX_CELL_LINES})")
        wide = [n for n, line in enumerate(lines, 1) if len(line) > MAX_COLUMNS]
        if wide:
            problems.append(f"{where}: lines {wide} over {MAX_COLUMNS} columns")
        if cell.execution_count is not None:
            counts.append(cell.execution_count)
        streams = [o.get("name") for o in cell.outputs if o.output_type == "stream"]
        kinds = [(o.output_type, o.get("name")) for o in cell.outputs]
        if any(a == b and a[0] == "stream" for a, b in itertools.pairwise(kinds)):
            problems.append(f"{where}: split stream outputs {streams}")
        if "stderr" in streams:
            # A warning of the machine that ran it (a font fallback, a deprecation): nbval
            # fails wherever the next run does not print it.
            problems.append(f"{where}: a stored stderr output")
    if counts != list(range(1, len(counts) + 1)):
        problems.append(f"{name}: execution counts {counts} not 1, 2, 3, ... in order")
    return problems


def defined_helpers(nb: nbformat.NotebookNode) -> set[str]:
    """Names of the functions and classes defined at the top level of ``nb``'s code cells."""
    names: set[str] = set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        source = re.sub(r"^\s*[!%].*$", "", cell.source, flags=re.M)  # magics
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                names.add(node.name)
    return names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_hygiene(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    assert hygiene_problems(nb, path.name) == []


def test_no_helper_defined_in_two_notebooks() -> None:
    where: dict[str, list[str]] = defaultdict(list)
    for path in NOTEBOOKS:
        for name in defined_helpers(nbformat.read(path, as_version=4)):
            where[name].append(path.name)
    assert {name: files for name, files in where.items() if len(files) > 1} == {}


def _control() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": {"name": "python3"},
        "language_info": {"name": "python"},
    }
    cell = nbformat.v4.new_code_cell("x = 1")
    cell.execution_count = 1
    nb.cells = [cell]
    return nb


def test_controls_are_rejected() -> None:
    assert hygiene_problems(_control(), "ok") == []
    cases = {
        "cell metadata": lambda nb: nb.cells[0].metadata.update(lines_to_next_cell=2),
        "notebook metadata": lambda nb: nb.metadata.update(jupytext={}),
        "language_info.version": lambda nb: nb.metadata.language_info.update(
            version="3.12.1"
        ),
        "lines (at most": lambda nb: setattr(
            nb.cells[0], "source", "x = 1\n" * (MAX_CELL_LINES + 1)
        ),
        "columns": lambda nb: setattr(nb.cells[0], "source", "x = " + "1" * 90),
        "execution counts": lambda nb: setattr(nb.cells[0], "execution_count", 3),
        "split stream": lambda nb: nb.cells[0].outputs.extend(
            [nbformat.v4.new_output("stream", name="stdout", text=t) for t in "ab"]
        ),
        "stored stderr": lambda nb: nb.cells[0].outputs.append(
            nbformat.v4.new_output("stream", name="stderr", text="findfont: ...")
        ),
    }
    for expected, spoil in cases.items():
        nb = _control()
        spoil(nb)
        problems = hygiene_problems(nb, "control")
        assert len(problems) == 1 and expected in problems[0], (expected, problems)
    twice = {"show"} & defined_helpers(
        nbformat.v4.new_notebook(
            cells=[nbformat.v4.new_code_cell("def show(x):\n  pass")]
        )
    )
    assert twice == {"show"}
