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
  compares them merged);
* a figure (PNG) that is the same picture as the stored one keeps the stored bytes: a figure
  of values at round-off level (an error curve, a Hessian's tiny entries) differs in a few
  antialiased pixels by a few levels from one CPU, BLAS or thread count to another, which
  rewrote chapters 3, 6 and 8 on an unchanged run (issue 27). "The same picture": the same
  size and PNG text chunks (matplotlib's version, the smallest text size), at most
  :data:`FIGURE_MAX_LEVELS` levels apart in any channel, in at most :data:`FIGURE_MAX_SHARE`
  of the pixels. ``conftest.py`` makes nbval check exactly this on every run (a differing
  figure fails its cell), so the nbval runs of ``make test`` fail where ``make execute`` on an
  unchanged chapter would change a byte.

``--normalize-only`` applies the last four without executing (execution counts are left as
they are: only a run in order can renumber them). ``tests/book/test_notebook_hygiene.py`` checks
every notebook for exactly these properties.

Every path is checked before the first notebook runs (a usage error, exit status 2, names a
missing file, a folder or a file that is not a notebook). A notebook is rewritten only when its
bytes change, atomically (a temporary file beside it, then a rename: ``scripts/_cli.py``), so a
full disk, an error or Ctrl-C never leaves a truncated notebook: the file is the old one or the
new one. A failed cell or write leaves the notebook as it was and exits with status 1; Ctrl-C
exits with status 130; each says so in one line.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path
from typing import Any

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(
    1, str(Path(__file__).resolve().parents[1])
)  # the library, when not installed
from _cli import interrupt_once, report_write_error, write_atomic
from lesson import mark_check_cells

PROG = "execute_notebooks.py"

TIMEOUT_PER_CELL_S = 600

#: The cell metadata the book uses: ``tags`` (remove-cell, hide-input, nbval-ignore-output...)
#: and ``mystnb`` (figure captions and names). Anything else is written by a tool.
CELL_METADATA = ("tags", "mystnb")
#: The notebook metadata kept: which kernel runs it, which language it is.
NOTEBOOK_METADATA = ("kernelspec", "language_info")
#: Fields of ``language_info`` that depend on the machine that ran the notebook.
MACHINE_LANGUAGE_INFO = ("version",)
#: Two renderings are the same figure when no channel of a pixel differs by more than this...
FIGURE_MAX_LEVELS = 16
#: ... in at most this share of the pixels (round-off moves antialiasing, not lines or text).
FIGURE_MAX_SHARE = 0.01


def png_text(png: bytes) -> dict[bytes, bytes]:
    """The ``tEXt`` chunks of a PNG (matplotlib's ``Software``, the book's text size)."""
    import struct

    chunks, offset = {}, 8
    while offset + 8 <= len(png):
        (size,) = struct.unpack(">I", png[offset : offset + 4])
        kind = png[offset + 4 : offset + 8]
        if kind == b"tEXt":
            key, _, value = png[offset + 8 : offset + 8 + size].partition(b"\0")
            chunks[key] = value
        offset += 12 + size
    return chunks


def same_figure(stored: str, new: str) -> bool:
    """True when two base64 PNGs show the same picture (see the module docstring)."""
    import base64
    import io

    import numpy as np
    from PIL import Image

    if stored == new:
        return True
    a, b = base64.b64decode(stored), base64.b64decode(new)
    if png_text(a) != png_text(b):
        return False
    first = np.asarray(Image.open(io.BytesIO(a)).convert("RGBA"), dtype=np.int16)
    second = np.asarray(Image.open(io.BytesIO(b)).convert("RGBA"), dtype=np.int16)
    if first.shape != second.shape:
        return False
    difference = np.abs(first - second).max(axis=-1)
    changed = np.count_nonzero(difference)
    return int(difference.max()) <= FIGURE_MAX_LEVELS and (
        changed <= FIGURE_MAX_SHARE * difference.size
    )


def _pngs(outputs: list[Any]) -> list[tuple[Any, str]]:
    return [
        (output, output["data"]["image/png"])
        for output in outputs
        if "image/png" in output.get("data", {})
    ]


def keep_stored_figures(notebook: Any, stored: Any) -> None:
    """Give each figure of ``notebook`` that is the same picture as the stored one (same cell,
    same source, same place) the stored bytes, in place."""
    for cell, old in zip(notebook.cells, stored.cells, strict=False):
        if cell.cell_type != "code" or cell.source != old.source:
            continue
        new_pngs, old_pngs = _pngs(cell.outputs), _pngs(old.get("outputs", []))
        if len(new_pngs) != len(old_pngs):
            continue
        for (output, png), (old_output, old_png) in zip(
            new_pngs, old_pngs, strict=True
        ):
            if output.get("metadata") == old_output.get("metadata") and same_figure(
                old_png, png
            ):
                output["data"]["image/png"] = old_png


def figure_differences(test: list[Any], ref: list[Any]) -> list[str]:
    """What nbval reports for a cell whose figures are not the same pictures as the stored
    ones; checked only where the stored PNG was made by this matplotlib version."""
    import matplotlib

    software = f"Matplotlib version{matplotlib.__version__}, https://matplotlib.org/"
    import base64

    problems = []
    new_pngs, old_pngs = _pngs(test), _pngs(ref)
    for index, ((_, png), (_, old_png)) in enumerate(
        zip(new_pngs, old_pngs, strict=False)
    ):
        made_by = png_text(base64.b64decode(old_png)).get(b"Software", b"").decode()
        if made_by == software and not same_figure(old_png, png):
            problems.append(
                f"figure {index}: not the same picture as the stored one (more than "
                f"{FIGURE_MAX_LEVELS} levels or {FIGURE_MAX_SHARE:.0%} of the pixels apart): "
                "`make execute` would rewrite it"
            )
    if len(new_pngs) != len(old_pngs):
        problems.append(f"{len(new_pngs)} figures, {len(old_pngs)} stored")
    return problems


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


class CellError(Exception):
    """A cell raised, or the kernel died: the notebook is not rewritten."""


def execute(path: Path) -> Any:
    """Execute ``path`` top to bottom in a fresh kernel; return the executed notebook."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, DeadKernelError

    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=TIMEOUT_PER_CELL_S,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    try:
        client.execute()
    except BaseException as exc:
        # nbclient handles Ctrl-C (and SIGTERM) itself: its handler shuts the kernel down and
        # leaves this attribute; the cell then fails with "Kernel died" or worse. Say Ctrl-C.
        if hasattr(client, "_async_cleanup_kernel_future"):
            raise KeyboardInterrupt from None
        if isinstance(exc, (CellExecutionError, DeadKernelError)):
            raise CellError(str(exc)) from None
        raise
    return notebook


def process(path: Path, *, run: bool = True) -> bool:
    """Execute (unless ``run`` is False) and normalize ``path`` in place; True if it changed."""
    before = path.read_bytes()
    notebook = execute(path) if run else nbformat.read(path, as_version=4)
    keep_stored_figures(notebook, nbformat.reads(before.decode("utf-8"), as_version=4))
    after = (nbformat.writes(normalize(notebook)) + "\n").encode("utf-8")
    if after != before:  # an unchanged notebook is not even rewritten
        write_atomic(after, path)
    return after != before


def check_notebook(path: Path) -> str | None:
    """Why ``path`` cannot be executed in place (one line), or None."""
    if not path.exists():
        return f"{path}: no such file"
    if not path.is_file():
        return f"{path}: not a regular file"
    try:
        nbformat.read(path, as_version=4)
    except OSError as exc:
        return f"{path}: cannot read it: {exc.strerror or exc}"
    except (
        Exception
    ) as exc:  # nbformat raises many kinds for a file that is not a notebook
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return f"{path}: not a Jupyter notebook ({first[:120]})"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument(
        "--normalize-only",
        action="store_true",
        help="strip tool metadata and merge streams without executing",
    )
    args = parser.parse_args(argv)
    problems = [p for p in map(check_notebook, args.notebooks) if p]
    if problems:
        parser.error("; ".join(problems))
    path = args.notebooks[0]
    # A second Ctrl-C cannot cut the one line of the first short; nbclient may turn the
    # KeyboardInterrupt into another error while it shuts the kernel down: ``ctrl_c`` tells.
    with interrupt_once() as ctrl_c:
        try:
            for path in args.notebooks:
                started = time.perf_counter()
                changed = process(path, run=not args.normalize_only)
                verb = "normalized" if args.normalize_only else "executed"
                state = "changed" if changed else "unchanged"
                print(
                    f"{path}: {verb} in {time.perf_counter() - started:.1f} s, {state}"
                )
        except BaseException as exc:
            if ctrl_c.pressed or isinstance(exc, KeyboardInterrupt):
                # nbclient leaves a kernel-polling task that fails once the kernel is gone;
                # asyncio would log it at exit, after this line ("Task exception was never
                # retrieved"), and the interrupt is already reported.
                logging.getLogger("asyncio").disabled = True
                print(
                    f"{PROG}: interrupted in {path} ({path} untouched)", file=sys.stderr
                )
                return 130
            if isinstance(exc, OSError):
                return report_write_error(PROG, path, exc, f"{path} untouched")
            if isinstance(exc, CellError):
                print(f"{PROG}: {path}: a cell failed ({path} untouched):\n{exc}",
                      file=sys.stderr)  # fmt: skip
                return 1
            raise
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # while checking the paths (main handles it later)
        print(f"{PROG}: interrupted; nothing written", file=sys.stderr)
        sys.exit(130)
