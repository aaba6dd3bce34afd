"""What ``sinusoidal``'s ``dtype`` documentation guarantees for float32 tables (issue 23).

``method="direct"``: the float64 table rounded once. ``method="angle_addition"`` (the default
for long integer progressions): an absolute error within ``error_bound``, not rounded once.
The exact values come from mpmath at 30 digits, independently of the library.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import posenc_lib as pe
from posenc_lib.error_bounds import error_bound


def _exact(positions, dim: int) -> np.ndarray:
    """Interleaved sin/cos at 30 digits, rounded to float64."""
    with mpmath.workdps(30):
        theta = [
            mpmath.mpf(10000) ** (-mpmath.mpf(2 * i) / dim) for i in range(dim // 2)
        ]
        rows = []
        for m in positions:
            row = []
            for t in theta:
                row += [float(mpmath.sin(m * t)), float(mpmath.cos(m * t))]
            rows.append(row)
    return np.array(rows)


@pytest.mark.parametrize("length, dim", [(2048, 64), (4096, 128)])
def test_float32_guarantees_of_each_method(length, dim):
    sample = np.random.default_rng(0).choice(length, 40, replace=False)
    exact = _exact(sample, dim)
    direct = pe.sinusoidal(length, dim, dtype=np.float32, method="direct")
    # direct: the float64 value rounded once, i.e. the float32 nearest the exact value here
    assert np.array_equal(direct[sample], exact.astype(np.float32))
    fast = pe.sinusoidal(length, dim, dtype=np.float32, method="angle_addition")
    assert np.array_equal(fast, pe.sinusoidal(length, dim, dtype=np.float32))  # "auto"
    bound = error_bound(length - 1, dtype=np.float32)
    assert np.abs(fast[sample].astype(np.float64) - exact).max() <= bound
    # and not rounded once: a sizeable share of entries differ (a third, the docs say)
    share = np.mean(fast != direct)
    assert 0.2 < share < 0.5
