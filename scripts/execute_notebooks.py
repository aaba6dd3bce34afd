"""Re-execute notebooks in place so their stored outputs are current (``make execute``).

Usage: python scripts/execute_notebooks.py notebooks/01_why_position.ipynb [...]

Each notebook runs top to bottom in a fresh kernel from its own folder (as nbval runs it); timing
metadata is dropped so that a re-run changes the file only where an output changed.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

TIMEOUT_PER_CELL_S = 600


def execute(path: Path) -> float:
    """Execute ``path`` in place; return the wall time in seconds."""
    notebook = nbformat.read(path, as_version=4)
    started = time.perf_counter()
    NotebookClient(
        notebook,
        timeout=TIMEOUT_PER_CELL_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    elapsed = time.perf_counter() - started
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
    notebook.metadata.pop("widgets", None)
    nbformat.write(notebook, path)
    return elapsed


def main(paths: list[str]) -> None:
    if not paths:
        raise SystemExit(__doc__)
    for name in paths:
        seconds = execute(Path(name))
        print(f"{name}: executed in {seconds:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
