"""scripts/check_outputs.py finds stored errors and round-off values, and nothing else.

Each pattern the check claims to catch is caught in a synthetic notebook (so the check can fail),
and each form the book is told to print instead (bounds, tolerances, ordinary numbers) is not.
"""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check_outputs.py"
_spec = importlib.util.spec_from_file_location("check_outputs", SCRIPT)
check_outputs = importlib.util.module_from_spec(_spec)
sys.modules["check_outputs"] = check_outputs  # dataclasses look the module up by name
_spec.loader.exec_module(check_outputs)


def stream(text, name="stdout"):
    return {"output_type": "stream", "name": name, "text": text}


def result(text):
    return {"output_type": "execute_result", "execution_count": 1, "metadata": {},
            "data": {"text/plain": text}}  # fmt: skip


def error(ename="ValueError", evalue="boom"):
    return {
        "output_type": "error",
        "ename": ename,
        "evalue": evalue,
        "traceback": ["..."],
    }


def notebook(tmp_path, *cells, name="nb.ipynb", kernel="python3", sources=None):
    """A notebook whose cells are ``(outputs, tags)``, with a markdown cell first; ``sources``
    gives the code cells' sources (default ``pass``)."""
    body = [{"cell_type": "markdown", "metadata": {}, "source": "# title"}]
    for index, (outputs, tags) in enumerate(cells):
        body.append(
            {
                "cell_type": "code",
                "execution_count": 1,
                "metadata": {"tags": list(tags)},
                "source": sources[index] if sources else "pass",
                "outputs": list(outputs),
            }
        )
    path = tmp_path / name
    metadata = {
        "kernelspec": {"name": kernel, "display_name": "K", "language": "python"}
    }
    path.write_text(
        json.dumps(
            {"cells": body, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}
        )
    )
    return path


def roundoff(text):
    return [(kind, value) for kind, value, _ in check_outputs.roundoff_in_text(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("shift defect 3.1e-16\n", [("number below 1e-10", "3.1e-16")]),
        ("gap -8.9E-16 here", [("number below 1e-10", "-8.9E-16")]),
        ("residual 0.000000000012", [("number below 1e-10", "0.000000000012")]),
        ("max error 4.5e-13.", [("number below 1e-10", "4.5e-13")]),
        (
            "array([ 0.00000000e+00,  1.11022302e-16, -2.22044605e-16])",
            [("number below 1e-10", "1.11022302e-16"), ("number below 1e-10", "-2.22044605e-16")],
        ),
        ("tensor([1.0000e+00, 5.9605e-08])", [("float32 last-bit size", "5.9605e-08")]),
        ("float32: max error 9.6e-08, bound 1.7e-07", [
            ("float32 last-bit size", "9.6e-08"), ("float32 last-bit size", "1.7e-07")]),
        (
            "array([0.        , 0.84147096, 0.9092974 ], dtype=float32)",
            [("float32 printed to its last bit", "0.84147096"),
             ("float32 printed to its last bit", "0.9092974")],
        ),
        ("np.float32(0.99999994)", [("float32 printed to its last bit", "0.99999994"),
                                    ("numpy>=2 scalar repr", "np.float32(")]),
        ("(np.float64(0.5), np.True_)", [("numpy>=2 scalar repr", "np.float64("),
                                         ("numpy>=2 scalar repr", "np.True_")]),
    ],
)  # fmt: skip
def test_each_roundoff_pattern_is_caught(text, expected):
    assert roundoff(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "max |A - B| < 1e-12: True",  # fmt_small's bound
        "error <= 2.2e-16 (one ulp)",  # an explicit bound
        "eps = 1e-3, 1e-2, 1e-1; tolerance 1e-12; target 2e-07",  # tolerances as written
        "residual of the identity: 0",
        "values 0.0, -0.0, 0.00000000e+00",
        "2**256 = 1.16e+77; theta = 1.0366e-04; rises by 1.143e-09",
        "commit 79e0256a95740e6238eb6f3c3322839785be0ebf, numpy 2.4.6, positions 0..63",
        "array([0.9589, 0.8392, 0.1   ])",  # float64 at four digits
        "array([0.5, 0.25], dtype=float32)",  # float32 values that are exact at few digits
        "x1e-16 and var_2.5e-16 are names, not numbers",
    ],
)
def test_portable_prints_are_not_flagged(text):
    assert roundoff(text) == []


def test_check_roundoff_reports_code_cells_as_nbval_numbers_them(tmp_path):
    path = notebook(
        tmp_path,
        ([stream("fine: 0.5\n")], []),
        ([result("array([1.2e-16])")], []),
        ([stream("constant 2**-24 = 6.0e-08\n")], ["portable-digits"]),
        ([stream("error 9.6e-08\n", name="stderr")], []),
    )
    found = check_outputs.check_roundoff(path)
    assert [(f.cell, f.position, f.kind, f.value) for f in found] == [
        (1, 2, "number below 1e-10", "1.2e-16"),
        (3, 4, "float32 last-bit size", "9.6e-08"),
    ]


def test_check_errors_finds_stored_errors_outside_raises_exception_cells(tmp_path):
    traceback = (
        "Traceback (most recent call last):\n  File ...\nRuntimeError: worker died\n"
    )
    path = notebook(
        tmp_path,
        ([stream("ok\n")], []),
        ([error("ZeroDivisionError", "division by zero")], []),
        ([error()], ["raises-exception"]),
        ([stream(traceback, name="stderr")], []),
        ([stream("UserWarning: something\n", name="stderr")], []),
    )
    found = [(f.cell, f.kind, f.value) for f in check_outputs.check_errors(path)]
    assert found == [
        (1, "stored error", "ZeroDivisionError: division by zero"),
        (3, "traceback on stderr", "RuntimeError: worker died"),
    ]


def test_command_line_exit_status_and_report(run_python, tmp_path):
    clean = notebook(
        tmp_path, ([stream("max error < 1e-12\n")], []), name="clean.ipynb"
    )
    faulty = notebook(
        tmp_path, ([error()], []), ([stream("gap 8.9e-16\n")], []), name="faulty.ipynb"
    )
    done = run_python(SCRIPT, clean)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "no stored errors or unknown kernels or unparsable code or round-off values"
        " in 1 notebooks" in done.stdout
    )

    done = run_python(SCRIPT, "--errors", faulty)
    assert done.returncode == 1
    assert (
        "faulty.ipynb: Cell 0 (cell 1): stored error: 'ValueError: boom'" in done.stdout
    )
    assert "8.9e-16" not in done.stdout  # --errors alone does not look for round-off

    done = run_python(SCRIPT, "--roundoff", faulty)
    assert done.returncode == 1
    assert "faulty.ipynb: Cell 1 (cell 2): number below 1e-10: '8.9e-16'" in done.stdout
    assert "stored error" not in done.stdout.splitlines()[0]


def test_unreadable_notebook_is_reported_not_a_traceback(run_python, tmp_path):
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{ not json")
    done = run_python(SCRIPT, broken)
    assert done.returncode == 1
    assert "cannot read" in done.stderr and "Traceback" not in done.stderr


NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_notebook_stores_an_error_output(path):
    assert [str(f) for f in check_outputs.check_errors(path)] == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_notebook_prints_roundoff_digits(path):
    """Issue 16 §1: no stored output prints digits that depend on the machine."""
    assert [str(f) for f in check_outputs.check_roundoff(path)] == []


def test_unknown_kernel_and_unparsable_code_are_found(run_python, tmp_path):
    """Issue 27: both passed make book, check-book and nbval (which ignores the kernel name)."""
    cells = [([], []), ([], []), ([], []), ([], ["raises-exception"])]
    sources = ["%timeit 1 + 1\n!ls\nx = 1", "def f(:\n    pass", "print('ok')", "1 +"]
    path = notebook(tmp_path, *cells, kernel="pyhton3", sources=sources)
    found = [(f.cell, f.kind, f.value) for f in check_outputs.check_runnable(path)]
    assert found == [
        (-1, "unknown kernel name", f"'pyhton3' (installed: {KNOWN})"),
        (1, "code that does not parse", "invalid syntax (line 1)"),
    ]
    done = run_python(SCRIPT, "--errors", path)
    assert done.returncode == 1
    assert "nb.ipynb: unknown kernel name: \"'pyhton3' (installed:" in done.stdout
    assert "nb.ipynb: Cell 1 (cell 2): code that does not parse:" in done.stdout
    fixed = notebook(tmp_path, *cells[:1], sources=sources[:1], name="fixed.ipynb")
    assert check_outputs.check_runnable(fixed) == []


KNOWN = ", ".join(sorted(check_outputs.installed_kernels()))
