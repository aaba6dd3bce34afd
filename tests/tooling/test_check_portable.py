"""scripts/check_portable.py runs nbval with the variant's environment, and can fail."""

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check_portable.py"
_spec = importlib.util.spec_from_file_location("check_portable", SCRIPT)
check_portable = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_portable)

SOURCE = "import os\nprint(' '.join(os.environ.get(k, '-') for k in {names!r}))"


def env_notebook(path: Path, stored: str) -> Path:
    """A one-cell notebook printing the variant's variables, with ``stored`` as its output."""
    cell = {
        "cell_type": "code",
        "execution_count": 1,
        "metadata": {},
        "source": SOURCE.format(names=list(check_portable.VARIANT)),
        "outputs": [{"output_type": "stream", "name": "stdout", "text": stored + "\n"}],
    }
    notebook = {
        "cells": [cell],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook))
    return path


def test_the_notebooks_run_under_the_variant_and_a_difference_fails(
    run_python, tmp_path
):
    under_variant = " ".join(check_portable.VARIANT.values())
    same = env_notebook(tmp_path / "same.ipynb", under_variant)
    done = run_python(SCRIPT, same, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for name in check_portable.VARIANT:  # the probe's report, one line per variable
        assert f"  {name}={check_portable.VARIANT[name]}: " in done.stdout
    other = env_notebook(
        tmp_path / "other.ipynb", " ".join("-" for _ in check_portable.VARIANT)
    )
    done = run_python(SCRIPT, "--no-probe", other, timeout=600)
    assert done.returncode == 1, done.stdout[-3000:]
    assert "check_portable: the variant" not in done.stdout
    assert "other.ipynb::Cell 0" in done.stdout


def test_usage_errors(run_python, tmp_path):
    for args, message in [
        (["--jobs", "0"], "argument --jobs: must be an integer >= 1, got 0"),
        ([tmp_path / "missing.ipynb"], "not a notebook file"),
    ]:
        done = run_python(SCRIPT, *args, timeout=600)
        assert done.returncode == 2 and message in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
