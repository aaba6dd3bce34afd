"""scripts/execute_notebooks.py (``make execute``): what it strips, merges and keeps."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import nbformat
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "execute_notebooks.py"
spec = importlib.util.spec_from_file_location("execute_notebooks", SCRIPT)
assert spec is not None and spec.loader is not None
execute_notebooks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(execute_notebooks)


def messy_notebook() -> nbformat.NotebookNode:
    """A notebook as jupytext and a split-stream run leave it."""
    notebook = nbformat.v4.new_notebook()
    notebook.metadata = {
        "jupytext": {"cell_metadata_filter": "tags,-all"},
        "kernelspec": {
            "display_name": "Python 3",
            "language": "python",
            "name": "python3",
        },
        "language_info": {"name": "python", "version": "3.11.7"},
        "widgets": {},
    }
    code = nbformat.v4.new_code_cell("print(1); print(2)", execution_count=1)
    code.metadata = {
        "lines_to_next_cell": 2,
        "tags": ["hide-input"],
        "execution": {"x": 1},
    }
    code.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="1\n"),
        nbformat.v4.new_output("stream", name="stdout", text=["2", "\n"]),
        nbformat.v4.new_output("stream", name="stderr", text="warning\n"),
        nbformat.v4.new_output("stream", name="stdout", text="3\n"),
    ]
    text = nbformat.v4.new_markdown_cell("Some *text*.")
    text.metadata = {"lines_to_next_cell": 0, "mystnb": {"figure": {"caption": "c"}}}
    notebook.cells = [text, code]
    return notebook


def test_normalize_strips_tool_metadata_and_keeps_the_books() -> None:
    notebook = execute_notebooks.normalize(messy_notebook())
    assert set(notebook.metadata) == {"kernelspec", "language_info"}
    assert notebook.metadata["language_info"] == {"name": "python"}
    text, code = notebook.cells
    assert text.metadata == {"mystnb": {"figure": {"caption": "c"}}}
    assert code.metadata == {"tags": ["hide-input"]}


def test_normalize_merges_consecutive_streams_only() -> None:
    code = execute_notebooks.normalize(messy_notebook()).cells[1]
    assert [(o.name, o.text) for o in code.outputs] == [
        ("stdout", "1\n2\n"),
        ("stderr", "warning\n"),
        ("stdout", "3\n"),  # not merged across the stderr output between them
    ]


def test_normalize_only_is_idempotent_and_byte_stable(tmp_path: Path) -> None:
    path = tmp_path / "n.ipynb"
    nbformat.write(messy_notebook(), path)
    assert execute_notebooks.process(path, run=False) is True
    first = path.read_bytes()
    assert execute_notebooks.process(path, run=False) is False
    assert path.read_bytes() == first


@pytest.mark.slow
def test_executing_an_unchanged_notebook_twice_gives_the_same_bytes(
    tmp_path: Path,
) -> None:
    pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    notebook = nbformat.v4.new_notebook()
    notebook.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3"}}
    # A loop that prints in pieces: the kernel sends them as several stream messages.
    source = "import sys\nfor i in range(200):\n    print(i)\n    sys.stdout.flush()"
    notebook.cells = [
        nbformat.v4.new_code_cell(source),
        nbformat.v4.new_code_cell("6 * 7"),
    ]
    path = tmp_path / "n.ipynb"
    nbformat.write(notebook, path)
    assert execute_notebooks.process(path) is True
    first = path.read_bytes()
    executed = nbformat.reads(first, as_version=4)
    assert [c.execution_count for c in executed.cells] == [1, 2]
    assert len(executed.cells[0].outputs) == 1  # one merged stream
    assert "execution" not in executed.cells[0].metadata
    assert execute_notebooks.process(path) is False
    assert path.read_bytes() == first
