"""Tolerances shared by the tests that compare with 40-digit mpmath references
(``test_decay.py``, ``test_exact_kernel.py``)."""

from __future__ import annotations

from hypothesis import settings

RTOL = (
    1e-10  # relative accuracy asked of the closed forms and of kernel_from_frequencies
)
ATOL = 1e-13  # absolute accuracy near zeros, where a relative error is meaningless
KERNEL_SETTINGS = settings(
    max_examples=60, deadline=None
)  # each example sums in mpmath


def close(
    value: float, reference: float, rtol: float = RTOL, atol: float = ATOL
) -> bool:
    """``|value - reference| <= rtol |reference| + atol``."""
    return abs(value - reference) <= rtol * abs(reference) + atol
