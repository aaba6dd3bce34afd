"""scripts/execute_notebooks.py (``make execute``): what it strips, merges and keeps."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from helpers_disk import run_on_full_disk, tiny_disk

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "execute_notebooks.py"
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


# ---------------------------------------------------------------------------------------------
# faults (issue 27): bad paths, a full disk, Ctrl-C; never a truncated notebook, one line each
# ---------------------------------------------------------------------------------------------

ROOT = SCRIPT.parents[1]
SCRIPTS = ROOT / "scripts"


def one_cell_notebook(path: Path, source: str) -> Path:
    """Write a notebook of one code cell ``source`` (the metadata of the book's) to ``path``."""
    notebook = nbformat.v4.new_notebook()
    notebook.metadata = messy_notebook().metadata
    notebook.cells = [nbformat.v4.new_code_cell(source)]
    nbformat.write(notebook, path)
    return path


def test_bad_paths_are_one_usage_error_before_any_run(
    run_python, tmp_path: Path
) -> None:
    good = tmp_path / "good.ipynb"
    nbformat.write(messy_notebook(), good)
    before = good.read_bytes()
    (tmp_path / "notes.ipynb").write_text("not json")
    done = run_python(SCRIPTS / "execute_notebooks.py", good, tmp_path / "missing.ipynb", tmp_path,
        tmp_path / "notes.ipynb",
    )  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert "missing.ipynb: no such file" in last
    assert f"{tmp_path}: not a regular file" in last
    assert "notes.ipynb: not a Jupyter notebook" in last
    assert good.read_bytes() == before  # nothing ran, the good one included


def test_a_full_disk_leaves_the_notebook_whole(run_python, tmp_path: Path) -> None:
    with tiny_disk(tmp_path / "disk") as disk:
        path = disk / "messy.ipynb"
        nbformat.write(messy_notebook(), path)
        before = path.read_bytes()
        script = SCRIPTS / "execute_notebooks.py"
        assert run_on_full_disk(run_python, disk, script, "--normalize-only", path) == (
            f"execute_notebooks.py: cannot write {path}: No space left on device;"
            f" {path} untouched"
        )
        assert path.read_bytes() == before  # was: truncated to invalid JSON
        assert sorted(p.name for p in disk.iterdir()) == ["filler", "messy.ipynb"]


def test_ctrl_c_while_executing_leaves_the_notebook_and_says_one_line(
    tmp_path: Path,
) -> None:
    pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    path = one_cell_notebook(tmp_path / "slow.ipynb", "import time\ntime.sleep(120)")
    before = path.read_bytes()
    proc = subprocess.Popen(
        [sys.executable, str(SCRIPT), path],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(8)  # the kernel has started and sleeps
    proc.send_signal(signal.SIGINT)
    time.sleep(0.003)
    proc.send_signal(signal.SIGINT)  # a second one, a moment later
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    ours = [
        line for line in stderr.splitlines() if line.startswith("execute_notebooks")
    ]
    # (the rest of stderr is the kernel's own, which it shares with this process)
    assert ours == [f"execute_notebooks.py: interrupted in {path} ({path} untouched)"]
    assert stderr.strip().splitlines()[-1] == ours[0], stderr
    assert path.read_bytes() == before


def test_make_colab_bad_out_and_full_disk(run_python, tmp_path: Path) -> None:
    colab = SCRIPTS / "make_colab.py"
    afile = tmp_path / "afile"
    afile.write_text("")
    done = run_python(colab, "--out", afile)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "argument --out: cannot make the folder" in done.stderr
    with tiny_disk(tmp_path / "disk", size="4m") as disk:
        out = disk / "colab"
        assert run_python(colab, "--out", out).returncode == 0
        editions = sorted(out.glob("*.ipynb"))
        stale = editions[0]
        stale.write_text("{}\n")  # out of date: make colab must rewrite it
        others = {p.name: p.read_bytes() for p in editions[1:]}
        assert run_on_full_disk(run_python, disk, colab, "--out", out) == (
            f"make_colab.py: cannot write {stale}: No space left on device;"
            f" 0 written before it, each whole; {stale.name} untouched"
        )
        assert json.loads(stale.read_text()) == {}  # whole, not truncated
        assert {p.name: p.read_bytes() for p in editions[1:]} == others
        assert not [p for p in out.iterdir() if p.name.startswith(".")]


# ---------------------------------------------------------------------------------------------
# figures: a re-rendering that is the same picture keeps the stored bytes (issue 27)
# ---------------------------------------------------------------------------------------------


def _png(shift: float = 0.0, noise: int = 0) -> str:
    """A small line plot as base64 PNG; ``shift`` moves the line, ``noise`` perturbs a few
    pixels by that many levels (what round-off in the plotted values does to antialiasing)."""
    import base64
    import io

    import matplotlib
    import numpy as np
    from PIL import Image

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 1.5), dpi=50)
    ax.plot([0, 1, 2], [0, 1 + shift, 0])
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    if noise:
        image = np.array(Image.open(io.BytesIO(buffer.getvalue())))
        image[10:13, 20:23, 0] = np.clip(
            image[10:13, 20:23, 0].astype(int) - noise, 0, 255
        )
        buffer = io.BytesIO()
        Image.fromarray(image).save(buffer, format="png", pnginfo=_software_chunk())
    return base64.b64encode(buffer.getvalue()).decode()


def _software_chunk():
    import matplotlib
    from PIL import PngImagePlugin

    info = PngImagePlugin.PngInfo()
    info.add_text(
        "Software",
        f"Matplotlib version{matplotlib.__version__}, https://matplotlib.org/",
    )
    return info


def test_same_figure_tells_round_off_from_a_change() -> None:
    pytest.importorskip("PIL")
    stored = _png()
    assert execute_notebooks.same_figure(stored, stored)
    assert execute_notebooks.same_figure(stored, _png(noise=3))  # antialiasing moved
    assert not execute_notebooks.same_figure(stored, _png(noise=80))  # a visible change
    assert not execute_notebooks.same_figure(stored, _png(shift=0.3))  # the line moved


def test_make_execute_keeps_the_stored_bytes_of_the_same_picture() -> None:
    pytest.importorskip("PIL")
    stored, moved = _png(), _png(shift=0.3)

    def notebook_with(png: str) -> nbformat.NotebookNode:
        notebook = messy_notebook()
        notebook.cells[1].outputs = [
            nbformat.v4.new_output("display_data", data={"image/png": png})
        ]
        return notebook

    old = notebook_with(stored)
    new = notebook_with(_png(noise=3))
    execute_notebooks.keep_stored_figures(new, old)
    assert new.cells[1].outputs[0].data["image/png"] == stored
    changed = notebook_with(moved)
    execute_notebooks.keep_stored_figures(changed, old)
    assert changed.cells[1].outputs[0].data["image/png"] == moved
    # what nbval reports (conftest.py): nothing for the same picture, one line for a change
    outputs = [nbformat.v4.new_output("display_data", data={"image/png": stored})]
    same = [nbformat.v4.new_output("display_data", data={"image/png": _png(noise=3)})]
    other = [nbformat.v4.new_output("display_data", data={"image/png": moved})]
    assert execute_notebooks.figure_differences(same, outputs) == []
    (problem,) = execute_notebooks.figure_differences(other, outputs)
    assert "not the same picture as the stored one" in problem


def test_nbval_fails_a_chapter_whose_figure_make_execute_would_rewrite(
    tmp_path: Path,
) -> None:
    """conftest.py's check, end to end: nbval passes the stored figure, fails a changed one."""
    pytest.importorskip("nbval")
    pytest.importorskip("ipykernel")
    plot = "import matplotlib.pyplot as plt\nplt.plot([0, 1, 2], [0, 1, 0])\nplt.show()"
    path = one_cell_notebook(tmp_path / "figure.ipynb", plot)
    assert execute_notebooks.process(path) is True  # stores the figure

    def nbval(**env: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
             "conftest", "--nbval", "--nbval-current-env", str(path)],
            capture_output=True, text=True, timeout=300, cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        )  # fmt: skip

    done = nbval()
    assert done.returncode == 0, done.stdout[-3000:]
    stored = nbformat.read(path, as_version=4)
    (figure,) = [o for o in stored.cells[0].outputs if "image/png" in o.get("data", {})]
    figure.data["image/png"] = _png(shift=0.3)  # another picture, same matplotlib
    nbformat.write(stored, path)
    done = nbval()
    assert done.returncode == 1
    assert "not the same picture as the stored one" in done.stdout
    # strict by default, with no opt-out: the former switch no longer turns it into a warning
    assert nbval(POSENC_STRICT_FIGURES="0").returncode == 1
