"""Controls of chapter 5 (the integral and its regimes): planted slips its checks must reject."""

from __future__ import annotations

import pytest

from tests.book.chapters.runner import expect_check_fails

CHAPTER = "05_long_range_decay"
SMALL_BOUND = "(ch5-small-bound) holds"


@pytest.mark.parametrize(
    "wrong",
    [
        "1 / 12",  # 1.5 times too small: the bound still holds, the ratio to 2/3 catches it
        "1 / 24",  # 3 times too small: the bound itself fails on the integer offsets
    ],
)
def test_a_wrong_peano_constant_is_caught(wrong: str) -> None:
    expect_check_fails(
        CHAPTER,
        check=SMALL_BOUND,
        old="peano_constant = 1 / 8",
        new=f"peano_constant = {wrong}",
    )
