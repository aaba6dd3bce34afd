"""Check the notebooks' stored outputs for faults a build would otherwise publish.

Two checks, each reporting the notebook, the cell (``Cell N`` counts code cells from 0, as nbval
names them; ``cell M`` is the index among all cells, as nbformat counts) and what was found:

``--errors`` (run by ``make book``, hence ``make check-book``)
    A stored error output (a traceback), or a stderr stream holding one, in a cell that is not
    tagged ``raises-exception``. The book would show the traceback as the chapter's result.
    Also what would stop a reader from running the chapter although its stored outputs look
    fine: a kernel name (``metadata.kernelspec.name``) that no installed Jupyter kernel has
    (Jupyter and Colab cannot start it; nbval ignores it), and a code cell that does not parse
    as Python (after IPython's own transformations: magics and ``!`` commands are fine),
    outside ``raises-exception`` cells.

``--roundoff``
    Printed digits that depend on the BLAS, the SIMD level, the thread count or the numpy
    version (CONTRIBUTING.md, "Stored outputs reproduce on any machine"): in ``text/plain`` and
    stream outputs, what nbval compares,

    * a number ``0 < |x| < 1e-10`` (``3.1e-16``, ``2.22044605e-16`` in an array repr);
    * a number ``2**-26 <= |x| < 2**-21`` (1.5e-8 to 4.8e-7: a few float32 units in the last
      place at unit scale, ``9.6e-08``);
    * a float32 printed to its last bit: a number of 7 or more significant digits inside a
      ``dtype=float32`` array repr or an ``np.float32(...)`` scalar repr;
    * a numpy >= 2 scalar repr (``np.float64(0.5)``, ``np.True_``): noise, and numpy 1.x (below
      pyproject's floor since issue 27, still on readers' machines) prints ``0.5`` and ``True``.

    Not flagged: a number written right after ``<``, ``<=``, ``>``, ``>=``, ``≤`` or ``≥`` (a
    bound, as :func:`posenc_lib.course.notebook.fmt_small` prints it), a one-digit mantissa with no
    decimal point such as ``1e-12`` or ``2e-07`` (a tolerance as written in code), and exact
    zeros. A cell whose small printed numbers do not come from this run's floating-point
    round-off (closed-form constants such as ``2**-24 = 6.0e-08``, values read from shipped data)
    may carry the tag ``portable-digits``; this check then skips it, and nbval under
    ``make check-portable`` still compares it.

Usage::

    python scripts/check_outputs.py [--errors] [--roundoff] [NOTEBOOK ...]

Without a check flag both run; without notebooks, ``notebooks/*.ipynb``. Exit status 0 when
nothing is found, 1 when something is (one line per finding), 2 on a usage error.
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Tag of a cell whose stored error output is the point (nbval's tag, which it also honours).
RAISES = "raises-exception"
#: Tag of a cell whose printed small numbers are closed-form constants or shipped data, not
#: round-off measured in this run.
PORTABLE = "portable-digits"

TINY = 1e-10
FLOAT32_LOW, FLOAT32_HIGH = 2.0**-26, 2.0**-21

_NUMBER = re.compile(
    r"(?<![\w.])(?P<num>[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)(?!\w|\.\d)"
)
_BOUND_BEFORE = re.compile(r"(?:<=?|>=?|≤|≥)\s*$")
_TOLERANCE = re.compile(r"^[-+]?[1-9][eE][-+]?\d+$")
_FLOAT32_REPR = re.compile(
    r"array\((?:[^()]|\([^()]*\))*?dtype=float32\)|float32\([^()]*\)", re.S
)
_NUMPY2_SCALAR = re.compile(
    r"\bnp\.(?:float(?:16|32|64|128)|longdouble|int(?:8|16|32|64)|uint(?:8|16|32|64)"
    r"|complex(?:64|128)|str_|bytes_)\(|\bnp\.(?:True_|False_)\b"
)


@dataclass(frozen=True)
class Finding:
    notebook: str
    cell: int
    position: int
    kind: str
    value: str
    line: str

    def __str__(self) -> str:
        where = f"{self.notebook}: Cell {self.cell} (cell {self.position})"
        if self.cell < 0:  # the notebook as a whole
            where = self.notebook
        return f"{where}: {self.kind}: {self.value!r}" + (
            f" in {self.line!r}" if self.line else ""
        )


def _tags(cell: dict) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def _text(output: dict) -> str:
    """What nbval compares of an output: stream text or ``text/plain``."""
    if output.get("output_type") == "stream":
        text = output.get("text", "")
    else:
        text = output.get("data", {}).get("text/plain", "")
    return "".join(text) if isinstance(text, list) else str(text)


def _line_of(text: str, position: int) -> str:
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    return text[start : end if end >= 0 else len(text)].strip()[:160]


def _significant_digits(literal: str) -> int:
    mantissa = re.split(r"[eE]", literal.lstrip("+-"))[0].replace(".", "").lstrip("0")
    return len(mantissa)


def roundoff_in_text(text: str) -> Iterator[tuple[str, str, str]]:
    """``(kind, literal, line)`` for every round-off value printed in ``text``."""
    for match in _NUMBER.finditer(text):
        literal = match.group("num")
        value = abs(float(literal))
        if value == 0.0 or _BOUND_BEFORE.search(text[: match.start()]):
            continue
        if _TOLERANCE.match(literal):
            continue
        if value < TINY:
            yield "number below 1e-10", literal, _line_of(text, match.start())
        elif FLOAT32_LOW <= value < FLOAT32_HIGH:
            yield "float32 last-bit size", literal, _line_of(text, match.start())
    for block in _FLOAT32_REPR.finditer(text):
        for match in _NUMBER.finditer(block.group(0)):
            literal = match.group("num")
            if _significant_digits(literal) >= 7:
                yield (
                    "float32 printed to its last bit",
                    literal,
                    _line_of(text, block.start()),
                )
    for match in _NUMPY2_SCALAR.finditer(text):
        yield "numpy>=2 scalar repr", match.group(0), _line_of(text, match.start())


def _is_code(cell: dict) -> bool:
    return cell.get("cell_type") == "code"


def _code_cells(path: Path, skip: str) -> Iterator[tuple[int, int, dict]]:
    """``(code cell index, cell index, cell)`` of the code cells of the notebook at ``path``,
    but those tagged ``skip`` (the index still counts them, as nbval does)."""
    with open(path, encoding="utf-8") as handle:
        cells = json.load(handle).get("cells", [])
    code = [(position, cell) for position, cell in enumerate(cells) if _is_code(cell)]
    for index, (position, cell) in enumerate(code):
        if skip not in _tags(cell):
            yield index, position, cell


def check_errors(path: Path) -> list[Finding]:
    """Stored error outputs (and tracebacks on stderr) outside ``raises-exception`` cells."""
    findings = []
    for index, position, cell in _code_cells(path, RAISES):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                value = f"{output.get('ename', '?')}: {output.get('evalue', '')}"
                findings.append(
                    Finding(path.name, index, position, "stored error", value, "")
                )
            elif output.get(
                "name"
            ) == "stderr" and "Traceback (most recent call last)" in (
                text := _text(output)
            ):
                line = _line_of(text, text.rfind("\n", 0, len(text.rstrip())) + 1)
                kind = "traceback on stderr"
                findings.append(Finding(path.name, index, position, kind, line, ""))
    return findings


@functools.cache
def installed_kernels() -> frozenset[str]:
    """Names of the Jupyter kernels installed here (``python3`` where jupyter_client is not)."""
    try:
        from jupyter_client.kernelspec import KernelSpecManager
    except ImportError:  # pragma: no cover - jupyter_client is in the lock file
        return frozenset({"python3"})
    return frozenset(KernelSpecManager().find_kernel_specs()) | {"python3"}


def _python_source(source: str) -> str:
    """``source`` as IPython runs it (magics and shell escapes turned into Python calls)."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # pragma: no cover - IPython is in the lock file
        return source
    return TransformerManager().transform_cell(source)


def check_runnable(path: Path) -> list[Finding]:
    """An unknown kernel name, and code cells that do not parse (outside raises-exception)."""
    with open(path, encoding="utf-8") as handle:
        metadata = json.load(handle).get("metadata", {})
    findings = []
    kernel = metadata.get("kernelspec", {}).get("name")
    if kernel not in installed_kernels():
        known = ", ".join(sorted(installed_kernels()))
        value = f"{kernel!r} (installed: {known})"
        findings.append(Finding(path.name, -1, -1, "unknown kernel name", value, ""))
    for index, position, cell in _code_cells(path, RAISES):
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        try:
            ast.parse(_python_source(source))
        except SyntaxError as exc:
            value = f"{exc.msg} (line {exc.lineno})"
            line = (exc.text or "").strip()[:160]
            kind = "code that does not parse"
            findings.append(Finding(path.name, index, position, kind, value, line))
    return findings


def check_roundoff(path: Path) -> list[Finding]:
    """Round-off values in the stored outputs (see the module docstring for the patterns)."""
    findings = []
    for index, position, cell in _code_cells(path, PORTABLE):
        for output in cell.get("outputs", []):
            for kind, value, line in roundoff_in_text(_text(output)):
                findings.append(Finding(path.name, index, position, kind, value, line))
    return findings


CHECK_NAMES = {
    check_errors: "stored errors",
    check_runnable: "unknown kernels or unparsable code",
    check_roundoff: "round-off values",
}


def _notebook(value: str) -> Path:
    path = Path(value)
    if path.suffix != ".ipynb":
        raise argparse.ArgumentTypeError(f"not a notebook (.ipynb): {value}")
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"no such notebook: {value}")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="check_outputs.py", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "notebooks", nargs="*", type=_notebook, help="default: notebooks/*.ipynb"
    )
    parser.add_argument(
        "--errors",
        action="store_true",
        help="stored error outputs, unknown kernels and unparsable code only",
    )
    parser.add_argument("--roundoff", action="store_true", help="round-off values only")
    args = parser.parse_args(argv)
    notebooks = args.notebooks or sorted((ROOT / "notebooks").glob("*.ipynb"))
    checks = []
    if args.errors or not args.roundoff:
        checks += [check_errors, check_runnable]
    if args.roundoff or not args.errors:
        checks.append(check_roundoff)
    findings = []
    for path in notebooks:
        try:
            for check in checks:
                findings.extend(check(path))
        except (
            OSError,
            ValueError,
        ) as exc:  # unreadable or not JSON (SyntaxError is caught)
            parser.exit(1, f"check_outputs.py: cannot read {path}: {exc}\n")
    for finding in findings:
        print(finding)
    names = " or ".join(CHECK_NAMES[check] for check in checks)
    if findings:
        print(
            f"check_outputs.py: {len(findings)} finding(s) of {names} in {len(notebooks)} notebooks"
        )
        return 1
    print(f"check_outputs.py: no {names} in {len(notebooks)} notebooks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
