"""Controls of chapter 3's check cells: planted slips that a named check must reject."""

from __future__ import annotations

from tests.book.chapters.runner import expect_check_fails


def test_dropped_half_of_the_second_order_term_is_caught() -> None:
    # The second-order groups counted twice (the 1/2 of the Taylor coefficient dropped): the
    # error of T_2 then shrinks only like eps^2, and its ratio to eps^3 grows tenfold per decade.
    failure = expect_check_fails(
        "03_taylor_expansion",
        check="error/eps^3 of T_2 changes < 1%",
        old="derived = instantiate(e3, f3)",
        new="derived = instantiate(e3, f3) + instantiate("
        "e3, f3, degrees={(2, 0), (0, 2), (1, 1)})",
    )
    assert "ratio settles" in str(failure.error)
