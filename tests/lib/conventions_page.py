"""What the conventions tests share: the book page they check, and the float32 angle analysis.

Each row of ``book/conventions.md`` is checked by one test (``tests/lib/test_conventions_*.py``):

1. the posenc_lib call printed on the page is evaluated as printed (:func:`page_call`);
2. the reference implementation is run (imported, or its published formula re-implemented);
3. the reference is shown to be the row's formula up to float32 angle rounding
   (:func:`reference_phase_error` against angles computed here in float64, independently of
   posenc_lib, bounded by :func:`float32_angle_bound`);
4. every entry of ``|ours - reference|`` is within the reference's own phase error plus four
   float32 units (:func:`assert_within_reference_rounding`): the difference is the reference's
   float32 rounding and nothing else;
5. the maximum difference, formatted by :func:`fmt_difference`, must be the number the page
   prints (:func:`check_page`).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np

from posenc_lib.course.notebook import fmt_small

#: The page the conventions tests check.
PAGE = Path(__file__).resolve().parents[2] / "book" / "conventions.md"

#: Unit roundoff of float32.
U32 = 2.0**-24

#: Differences below this print as "< 1e-07": one float32 unit at 1 is 1.19e-7.
FLOOR = 1e-7

#: How far a measured maximum may sit from the printed one (the page says so).
RELATIVE = 0.1

#: Column names of the page's tables.
COLUMNS = ("implementation", "source", "posenc_lib call", "max abs difference", "cause")

SKIP_REASON = (
    "the test-only group is not installed (pip install -r requirements/conventions.txt; "
    "`make venv` installs it)"
)


def fmt_difference(value: float) -> str:
    """How the page prints a measured maximum difference."""
    return fmt_small(float(value), floor=FLOOR)


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split(" | ")]


def page_rows() -> dict[str, dict[str, str]]:
    """The rows of every table on the page whose header is :data:`COLUMNS`, by implementation."""
    rows: dict[str, dict[str, str]] = {}
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines):
        if tuple(_cells(line)) != COLUMNS:
            continue
        for row in lines[number + 2 :]:
            if not row.startswith("|"):
                break
            cells = _cells(row)
            assert len(cells) == len(COLUMNS), f"malformed row on the page: {row!r}"
            assert cells[0] not in rows, f"row {cells[0]!r} appears twice on the page"
            rows[cells[0]] = dict(zip(COLUMNS, cells, strict=True))
    return rows


def page_call(name: str) -> str:
    """The posenc_lib call the page prints for row ``name`` (without the backticks)."""
    call = page_rows()[name]["posenc_lib call"]
    assert call.startswith("`") and call.endswith("`"), (
        f"{name}: the call is not code: {call}"
    )
    return call.strip("`")


def evaluate_call(name: str, namespace: dict) -> object:
    """Evaluate the page's call for row ``name`` in ``namespace`` (so the page shows what ran)."""
    return eval(
        page_call(name), dict(namespace)
    )  # the page is this repository's own text


def check_page(name: str, measured: float) -> None:
    """The page prints ``fmt_difference(measured)`` for row ``name``."""
    printed = page_rows()[name]["max abs difference"]
    message = (
        f"book/conventions.md prints {printed!r} for {name!r}, the test measured "
        f"{measured:.3e} ({fmt_difference(measured)!r})"
    )
    if printed.startswith("<") or fmt_difference(measured).startswith("<"):
        assert printed == fmt_difference(measured), message
    else:
        # The maximum's second digit depends on how this machine's float32 sin, cos and exp
        # round (numpy's and torch's SIMD loops differ): the page states it to +-RELATIVE.
        assert abs(measured - float(printed)) <= RELATIVE * float(printed), message


def exact_angles(positions, theta) -> np.ndarray:
    """Float64 angles ``positions[..., None] * theta``."""
    return np.asarray(positions, dtype=np.float64)[..., None] * np.asarray(
        theta, np.float64
    )


def reference_phase_error(sin_ref, cos_ref, exact) -> np.ndarray:
    """``|angle of (cos_ref, sin_ref) - exact|``, wrapped to [0, pi], per entry (float64)."""
    phase = np.arctan2(np.asarray(sin_ref, np.float64), np.asarray(cos_ref, np.float64))
    return np.abs(np.remainder(phase - exact + math.pi, 2 * math.pi) - math.pi)


def float32_angle_bound(positions, theta) -> np.ndarray:
    r"""A priori bound on the phase error of a float32-angle implementation, per entry.

    The frequency :math:`\theta` is computed in float32 from an exponent rounded to float32
    (relative error :math:`|\ln\theta|u`, the exponent's rounding amplified by the exponential,
    plus a few units for the exponential and the division), the angle :math:`m\theta` is one more
    float32 product, and the phase read back from the rounded sine and cosine adds about
    :math:`2u`: :math:`|m|\theta(|\ln\theta| + 5)u + 2u`, :math:`u = 2^{-24}`.
    """
    theta = np.asarray(theta, np.float64)
    m = np.abs(np.asarray(positions, np.float64))[..., None]
    return m * theta * (np.abs(np.log(theta)) + 5.0) * U32 + 2.0 * U32


def assert_reference_is_the_formula(
    name, sin_ref, cos_ref, positions, theta
) -> np.ndarray:
    """Step 3: the reference's phases are the row's angles up to float32 rounding."""
    exact = exact_angles(positions, theta)
    error = reference_phase_error(sin_ref, cos_ref, exact)
    bound = float32_angle_bound(positions, theta)
    worst = np.unravel_index(np.argmax(error - bound), error.shape)
    assert np.all(error <= bound), (
        f"{name}: the reference's phase differs from the row's formula by {error[worst]:.3e} at "
        f"entry {worst}, more than float32 rounding explains ({bound[worst]:.3e})"
    )
    return error


def assert_within_reference_rounding(name, ours, ref, phase_error, scale=1.0) -> float:
    """Step 4: ``|ours - ref| <= scale * (phase_error + 4u)`` entry by entry; returns the max."""
    difference = np.abs(np.asarray(ours, np.float64) - np.asarray(ref, np.float64))
    tolerance = np.asarray(scale, np.float64) * (phase_error + 4.0 * U32)
    excess = difference - tolerance
    worst = np.unravel_index(np.argmax(excess), excess.shape)
    assert np.all(excess <= 0), (
        f"{name}: |ours - reference| = {difference[worst]:.3e} at entry {worst}, over the "
        f"reference's own rounding {tolerance[worst]:.3e}"
    )
    return float(difference.max(initial=0.0))


def table_phase_columns(table, sin_cols, cos_cols) -> tuple[np.ndarray, np.ndarray]:
    """The sine and cosine columns of each frequency pair of a table."""
    table = np.asarray(table, np.float64)
    return table[:, sin_cols], table[:, cos_cols]


def check_table_row(
    name, ours, ref, positions, theta, sin_cols, cos_cols, lone_sin=None, page=True
) -> float:
    """Steps 3-5 for a position table whose pair ``i`` sits in ``sin_cols[i]``, ``cos_cols[i]``.

    ``lone_sin = (columns, thetas)``: sine columns without a cosine partner (odd ``d``, "split"),
    held to the a priori bound :func:`float32_angle_bound` instead of the measured phase error.
    Other columns (zero padding) must be equal.
    """
    sin_cols, cos_cols = np.asarray(sin_cols), np.asarray(cos_cols)
    theta = np.asarray(theta, np.float64)[: sin_cols.size]
    sin_ref, cos_ref = table_phase_columns(ref, sin_cols, cos_cols)
    error = assert_reference_is_the_formula(name, sin_ref, cos_ref, positions, theta)
    ours = np.asarray(ours, np.float64)
    ref = np.asarray(ref, np.float64)
    measured = max(
        assert_within_reference_rounding(
            name, ours[:, sin_cols], ref[:, sin_cols], error
        ),
        assert_within_reference_rounding(
            name, ours[:, cos_cols], ref[:, cos_cols], error
        ),
    )
    used = [sin_cols, cos_cols]
    if lone_sin is not None:
        cols, thetas = np.asarray(lone_sin[0]), np.asarray(lone_sin[1], np.float64)
        bound = float32_angle_bound(positions, thetas)
        measured = max(
            measured,
            assert_within_reference_rounding(name, ours[:, cols], ref[:, cols], bound),
        )
        used.append(cols)
    rest = np.setdiff1d(np.arange(ref.shape[1]), np.concatenate(used))
    if rest.size:  # padding columns (odd dimensions): both must hold the same values
        assert np.array_equal(ours[:, rest], ref[:, rest]), (
            f"{name}: padding columns differ"
        )
    if page:
        check_page(name, measured)
    return measured


def concatenated_columns(dim: int) -> tuple[np.ndarray, np.ndarray]:
    """``[sin | cos]`` halves: pair i in columns i and dim/2 + i."""
    pair = np.arange(dim // 2)
    return pair, dim // 2 + pair


def interleaved_columns(dim: int) -> tuple[np.ndarray, np.ndarray]:
    """Interleaved (sin, cos) pairs: pair i in columns 2i and 2i + 1."""
    pair = np.arange(dim // 2)
    return 2 * pair, 2 * pair + 1


def geometric_theta(n_pairs: int, base: float, denominator: float) -> np.ndarray:
    r""":math:`\theta_i = b^{-i/D}`, ``i < n_pairs``, in float64 (D = d/2 for 2i/d spacing)."""
    return base ** (-np.arange(n_pairs, dtype=np.float64) / denominator)


def cited(permalink: str) -> bool:
    """A permalink names a commit (40 hex digits)."""
    return re.search(r"/blob/[0-9a-f]{40}/", permalink) is not None
