"""Re-execute notebooks in place so their stored outputs are current (``make execute``).

Usage::

    python scripts/execute_notebooks.py notebooks/05_long_range_decay.ipynb [...]
    python scripts/execute_notebooks.py --normalize-only notebooks/*.ipynb

Each notebook runs top to bottom in a fresh kernel from its own folder (as nbval runs it), then
is normalized so that it reviews well in git and a re-run changes the file only where an output
changed:

* cell metadata keeps only what the book reads (``tags``, ``mystnb``): tool noise such as
  jupytext's ``lines_to_next_cell``, ``execution`` timings, ``collapsed`` or ``scrolled`` goes;
* notebook metadata keeps only ``kernelspec`` and ``language_info``, the latter without the
  Python patch version that differs from machine to machine;
* check cells (first line ``# @title ✓ verdict``) get their tags and fold text from that
  line (``scripts/lesson.py``);
* consecutive outputs of one stream (``stdout``, ``stderr``) are merged into one, as Jupyter
  shows them (the kernel splits them at arbitrary points, differently from run to run; nbval
  compares them merged).

``--normalize-only`` applies the last four without executing (execution counts are left as
they are: only a run in order can renumber them). ``tests/test_notebook_hygiene.py`` checks
every notebook for exactly these properties.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lesson import mark_check_cells

TIMEOUT_PER_CELL_S = 600

#: The cell metadata the book uses: ``tags`` (remove-cell, hide-input, nbval-ignore-output...)
#: and ``mystnb`` (figure captions and names). Anything else is written by a tool.
CELL_METADATA = ("tags", "mystnb")
#: The notebook metadata kept: which kernel runs it, which language it is.
NOTEBOOK_METADATA = ("kernelspec", "language_info")
#: Fields of ``language_info`` that depend on the machine that ran the notebook.
MACHINE_LANGUAGE_INFO = ("version",)


def merge_streams(outputs: list[Any]) -> list[Any]:
    """Consecutive ``stream`` outputs of the same name merged into one."""
    merged: list[Any] = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (
            output.get("output_type") == "stream"
            and previous is not None
            and previous.get("output_type") == "stream"
            and previous.get("name") == output.get("name")
        ):
            previous["text"] = _text(previous["text"]) + _text(output["text"])
        else:
            merged.append(output)
    return merged


def _text(text: str | list[str]) -> str:
    return text if isinstance(text, str) else "".join(text)


def normalize(notebook: Any) -> Any:
    """Strip tool metadata, merge streams and fold check cells, in place; return it."""
    mark_check_cells(notebook)
    for cell in notebook.cells:
        for key in [k for k in cell.metadata if k not in CELL_METADATA]:
            del cell.metadata[key]
        if cell.cell_type == "code":
            cell.outputs = merge_streams(cell.outputs)
    for key in [k for k in notebook.metadata if k not in NOTEBOOK_METADATA]:
        del notebook.metadata[key]
    language = notebook.metadata.get("language_info", {})
    for key in MACHINE_LANGUAGE_INFO:
        language.pop(key, None)
    return notebook


def execute(path: Path) -> Any:
    """Execute ``path`` top to bottom in a fresh kernel; return the executed notebook."""
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    NotebookClient(
        notebook,
        timeout=TIMEOUT_PER_CELL_S,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    return notebook


def process(path: Path, *, run: bool = True) -> bool:
    """Execute (unless ``run`` is False) and normalize ``path`` in place; True if it changed."""
    before = path.read_bytes()
    notebook = execute(path) if run else nbformat.read(path, as_version=4)
    nbformat.write(normalize(notebook), path)
    return path.read_bytes() != before


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument(
        "--normalize-only",
        action="store_true",
        help="strip tool metadata and merge streams without executing",
    )
    args = parser.parse_args(argv)
    for path in args.notebooks:
        started = time.perf_counter()
        changed = process(path, run=not args.normalize_only)
        verb = "normalized" if args.normalize_only else "executed"
        state = "changed" if changed else "unchanged"
        print(f"{path}: {verb} in {time.perf_counter() - started:.1f} s, {state}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
