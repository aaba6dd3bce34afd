"""Controls of the chapter on the exact sum (aliasing, floor, schedules)."""

from __future__ import annotations

import re

from tests.book.chapters.runner import expect_check_fails


def test_the_poisson_identity_needs_its_endpoint_term() -> None:
    """Without the endpoint term (cos Delta - cos(Delta/b))/d the identity misses by > 1e-3."""
    failure = expect_check_fails(
        "06_aliasing_floor_schedules",
        check="(ch5-poisson)",
        old="ends = (math.cos(delta_) - math.cos(delta_ / b)) / d",
        new="ends = 0.0",
    )
    residual = float(re.search(r"residual ([0-9.e+-]+)", str(failure.error))[1])
    assert residual > 1e-3, failure.error
