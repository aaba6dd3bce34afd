"""Controls of chapter 4's check cells beyond the planted slips (``test_planted_slips.py``):
non-solutions fed to the chapter's own functions must be rejected."""

from __future__ import annotations

import pytest


def test_wrong_way_round_leaves_a_nonzero_residual() -> None:
    # Chapter 4's slip in test_planted_slips.py (phi_n - phi_m typed for phi_m - phi_n), shown
    # non-zero at numbers (is_zero answering False only means "not shown to be zero"): every
    # unknown function value and symbol set to a random number.
    import numpy as np
    import sympy as sp
    from sympy.core.function import AppliedUndef

    from tests.book.chapters.runner import run_chapter

    ns = run_chapter("04_complex_derivation", until="(ch4-polar), solved for phi_m")
    phi, m, n = ns["phi"], ns["m"], ns["n"]
    slip = sp.Eq(phi(n) - phi(m), ns["phase_equation"].rhs)
    residual = ns["polar_residual"](slip)
    rng = np.random.default_rng(12)
    functions = sorted(residual.atoms(AppliedUndef), key=sp.default_sort_key)
    point = {
        u: int(rng.integers(0, 6)) if u.is_integer else rng.uniform(0.5, 2)
        for u in functions
    }
    value = residual.subs(point)
    symbols = sorted(value.free_symbols, key=sp.default_sort_key)
    value = value.subs({s: int(rng.integers(0, 6)) for s in symbols})
    assert abs(complex(sp.N(value))) > 0.1


# --------------------------------------------------------------------------------------------
# Controls moved out of the chapter's Going further: each feeds a non-solution to the chapter's
# own functions and asserts that they reject it. One run of the chapter serves all of them.
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def chapter4() -> dict:
    from tests.book.chapters.runner import run_chapter

    return run_chapter(
        "04_complex_derivation", until="rank-7 table in R^8: blockwise complex"
    )


def _at_random_point(expr, seed, fixed=None) -> float:
    """|expr| with its symbols and unknown function values set to random numbers."""
    import numpy as np
    import sympy as sp
    from sympy.core.function import AppliedUndef

    rng = np.random.default_rng(seed)
    point = dict(fixed or {})
    unknowns = expr.atoms(AppliedUndef) | expr.free_symbols
    for unknown in sorted(unknowns - set(point), key=sp.default_sort_key):
        point[unknown] = (
            int(rng.integers(0, 6)) if unknown.is_integer else rng.uniform(0.5, 2)
        )
    functions = {u: v for u, v in point.items() if isinstance(u, AppliedUndef)}
    symbols = {u: v for u, v in point.items() if u not in functions}
    return abs(complex(sp.N(expr.subs(functions).subs(symbols))))


def test_kind_b_with_unequal_moduli_has_disagreeing_parities(chapter4) -> None:
    # Kind (b) needs |p_0| = |p_1|: with moduli r_0 = 1, r_1 = 2 on even and odd positions,
    # <p_{n+2}, p_n> differs between n = 2j and n = 2j + 1 (random theta, phi_0, j).
    import sympy as sp

    ns = chapter4
    r_0, r_1 = sp.symbols("r_0 r_1", positive=True)
    m = ns["m"]
    unequal = (r_0 + (r_1 - r_0) * (1 - (-1) ** m) / 2) / ns["r_2"] * ns["p_periodic"]
    even, odd = ns["by_parity"](unequal)
    fixed = {ns["eps_1"]: 1, ns["Delta"]: 2, r_0: 1, r_1: 2}
    assert _at_random_point(even - odd, 56, fixed) > 0.1


@pytest.mark.parametrize(
    "name", ["3-cycle at angles 0, 1, 3", "2-periodic with |p_1| != |p_0|"]
)
def test_classifier_rejects_non_solutions(chapter4, name) -> None:
    import numpy as np

    tables = {
        "3-cycle at angles 0, 1, 3": np.array(
            [[np.cos(t), np.sin(t)] for t in (0.0, 1.0, 3.0) * 3]
        )[:8],
        "2-periodic with |p_1| != |p_0|": np.array([[1.0, 0.0], [0.0, 1.5]] * 4),
    }
    table = tables[name]
    assert chapter4["si"].toeplitz_defect(table @ table.T) > 0.1
    assert chapter4["kind_2d"](table) == "neither"


def test_theorem_verification_rejects_a_drifting_modulus(chapter4) -> None:
    # The table-to-claims verification of ch4-thm-real-d, run on a table whose Gram matrix is
    # not Toeplitz (modulus 1 + 0.01 m, first three blocks, 24 positions): no orthogonal shift.
    ns = chapter4
    drift = ns["blocks_table"](1.0 + 0.01 * ns["m_idx"], ns["freqs"], 0.0)[:24, :6]
    gaps, _ = ns["theorem_gaps"](drift, ns["freqs"][:3])
    assert max(gaps.values()) > 1e-3


def test_blockwise_test_rejects_pairs_shifted_by_one(chapter4) -> None:
    # The rank-7 table is blockwise complex in the coordinates Z^T p_m; pairing the columns of
    # Z wrongly (rolled by one) must break the block condition.
    import numpy as np

    ns = chapter4
    wrong = ns["block_defect"](ns["P8"] @ np.roll(ns["Z8"], 1, axis=1))
    assert wrong > 0.1
