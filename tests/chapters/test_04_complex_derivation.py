"""Controls of chapter 4's check cells: planted slips that a named check must reject."""

from __future__ import annotations

from tests.chapters.runner import expect_check_fails


def test_phase_equation_typed_the_wrong_way_round_is_caught() -> None:
    # phi_n - phi_m instead of phi_m - phi_n on the left of the hand-typed phase equation
    # (ch4-polar): SymPy's polar equation no longer holds identically.
    failure = expect_check_fails(
        "04_complex_derivation",
        check="(ch4-polar), solved for phi_m",
        old="phi(m) - phi(n), Phi(m - n) + 2 * sp.pi * K(m, n)",
        new="phi(n) - phi(m), Phi(m - n) + 2 * sp.pi * K(m, n)",
    )
    assert "solves SymPy's polar equation" in str(failure.error)


def test_wrong_way_round_leaves_a_nonzero_residual() -> None:
    # The same slip, shown non-zero at numbers (is_zero answering False only means "not shown
    # to be zero"): every unknown function value and symbol set to a random number.
    import numpy as np
    import sympy as sp
    from sympy.core.function import AppliedUndef

    from tests.chapters.runner import run_chapter

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
