"""Controls of chapter 1's check cells: a planted slip in the chapter's code must be rejected."""

from __future__ import annotations

import pytest

from tests.book.chapters.runner import expect_check_fails

SLIPS = {
    # the permuted input perturbed: Attn(PX) no longer P Attn(X)
    "perturbed input": (
        "MultiheadAttention, random P",
        "self_attend(attn, X[:, perm])\n",
        "self_attend(attn, X[:, perm] + 1e-6)\n",
    ),
    # a wrong denominator in the causal counting formula (ch1-causal-count)
    "causal count": (
        "causal outputs: counting formula",
        "(v_bos + m * v_tok) / (m + 1)",
        "(v_bos + m * v_tok) / (m + 2)",
    ),
    # the read-out offset c taken from the wrong value vector: u^T(out_m - c)/|u|^2 != 1/(m+1)
    "read-out offset": (
        "causal outputs: counting formula",
        "uniform.out_proj(v_tok), uniform",
        "uniform.out_proj(v_bos), uniform",
    ),
    # a dropped half angle in (ch1-step): caught by 2 - 2 cos and by the measured steps
    "half angle": (
        "measured steps at m < 10⁴",
        "np.sin(theta / 2) ** 2",
        "np.sin(theta) ** 2",
    ),
}


@pytest.mark.parametrize("slip", SLIPS)
def test_a_planted_slip_is_caught(slip: str) -> None:
    check, old, new = SLIPS[slip]
    expect_check_fails("01_why_position", check=check, old=old, new=new)
