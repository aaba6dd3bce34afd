"""Tests for posenc_lib.symbolic: every result is checked by simplifying a difference to zero or by
evaluating at numbers against an independent computation (numpy, posenc_lib's tables)."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_lib as pe
from posenc_lib import symbolic as sym


def is_zero(expr: sp.Expr) -> bool:
    """True when SymPy simplifies ``expr`` to zero (trying the exponential form too)."""
    if sp.simplify(expr) == 0:
        return True
    return sp.simplify(sp.expand_complex(sp.expand(expr.rewrite(sp.exp)))) == 0


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def trig_factors(term: sp.Expr) -> int:
    """How many sine or cosine factors (counted with their powers) a product has."""
    factors = term.args if isinstance(term, sp.Mul) else (term,)
    count = 0
    for factor in factors:
        base, exp = factor.as_base_exp()
        if isinstance(base, (sp.sin, sp.cos)):
            count += int(exp) if exp.is_Integer else 2
    return count


def test_product_to_sum_identities():
    a, b, c = sp.symbols("a b c", real=True)
    cases = [
        (sp.cos(a) * sp.cos(b), (sp.cos(a - b) + sp.cos(a + b)) / 2),
        (sp.sin(a) * sp.sin(b), (sp.cos(a - b) - sp.cos(a + b)) / 2),
        (sp.sin(a) * sp.cos(b), (sp.sin(a + b) + sp.sin(a - b)) / 2),
        (sp.cos(a) ** 2, (1 + sp.cos(2 * a)) / 2),
        (sp.sin(a) * sp.sin(b) * sp.cos(c), None),
    ]
    for product, expected in cases:
        result = sym.product_to_sum(product)
        if expected is not None:
            assert is_zero(result - expected)
        # a sum of single sines and cosines: no term keeps a product or power of them
        assert all(trig_factors(term) <= 1 for term in sp.Add.make_args(result)), result
        at = {a: 0.7, b: -1.3, c: 2.1}
        assert float(result.subs(at)) == pytest.approx(float(product.subs(at)), abs=1e-14)
    assert sym.product_to_sum(3) == 3


def test_product_to_sum_rejects_non_expressions():
    with pytest.raises(TypeError, match="expr"):
        sym.product_to_sum("cos(a)*cos(b)")
    with pytest.raises(TypeError, match="expr"):
        sym.product_to_sum(True)


def test_relative_defect_and_is_relative():
    m, n = sp.symbols("m n", integer=True)
    theta = sp.Symbol("theta", real=True)
    assert sym.is_relative(sp.cos((m - n) * theta), m, n)
    assert sym.is_relative(
        sp.cos(m * theta) * sp.cos(n * theta) + sp.sin(m * theta) * sp.sin(n * theta), m, n
    )
    # cos(m theta) cos(n theta) alone contains cos((m+n) theta): not relative, shown at numbers
    defect = sym.relative_defect(sp.cos(m * theta) * sp.cos(n * theta), m, n)
    k = next(s for s in defect.free_symbols if s not in {m, n, theta})
    assert abs(float(defect.subs({m: 1, n: 0, k: 1, theta: 0.4}))) > 0.1
    assert not sym.is_relative(sp.cos(m * theta) * sp.cos(n * theta), m, n)


def test_relative_defect_rejects_bad_arguments():
    m, n = sp.symbols("m n", integer=True)
    with pytest.raises(TypeError, match="m must be a SymPy Symbol"):
        sym.relative_defect(sp.cos(m - n), "m", n)
    with pytest.raises(TypeError, match="n must be a SymPy Symbol"):
        sym.is_relative(sp.cos(m - n), m, 2)
    with pytest.raises(ValueError, match="two different symbols"):
        sym.relative_defect(sp.cos(m - n), m, m)
    with pytest.raises(TypeError, match="expr"):
        sym.relative_defect([m], m, n)


# --------------------------------------------------------------------------------------------
# chapter 3: the second-order expansion
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dim", [2, 3])
def test_taylor_second_order_terms_are_the_formula(dim):
    t = sym.taylor_second_order(dim)
    assert t.x_m.shape == t.p_n.shape == (dim, 1)
    assert is_zero(t.constant - t.f)
    assert is_zero(t.first_m - (t.p_m.T * t.gradient_m)[0, 0])
    assert is_zero(t.first_n - (t.p_n.T * t.gradient_n)[0, 0])
    assert is_zero(t.second_m - (t.p_m.T * t.hessian_mm * t.p_m)[0, 0] / 2)
    assert is_zero(t.second_n - (t.p_n.T * t.hessian_nn * t.p_n)[0, 0] / 2)
    assert is_zero(t.cross - (t.p_m.T * t.hessian_mn * t.p_n)[0, 0])
    assert is_zero(t.expansion - sum(t.terms().values()))
    # the blocks against SymPy's own gradient and Hessian of f in the stacked vector (x_m, x_n)
    variables = list(t.x_m) + list(t.x_n)
    full = sp.hessian(t.f, variables)
    grad = sp.Matrix([t.f]).jacobian(variables).T
    assert (t.hessian_mn - full[:dim, dim:]).is_zero_matrix
    assert (t.hessian_mm - full[:dim, :dim]).is_zero_matrix
    assert (t.hessian_nn - full[dim:, dim:]).is_zero_matrix
    assert (t.gradient_m - grad[:dim, 0]).is_zero_matrix
    assert (t.gradient_n - grad[dim:, 0]).is_zero_matrix


def test_taylor_second_order_only_cross_term_couples_positions():
    t = sym.taylor_second_order(2)
    pm, pn = set(t.p_m), set(t.p_n)
    for name, term in t.terms().items():
        has_m = bool(term.free_symbols & pm)
        has_n = bool(term.free_symbols & pn)
        expected = {
            "constant": (False, False),
            "first_m": (True, False),
            "first_n": (False, True),
            "second_m": (True, False),
            "second_n": (False, True),
            "cross": (True, True),
        }[name]
        assert (has_m, has_n) == expected, name


def test_taylor_second_order_matches_series_of_a_concrete_function():
    # an independent route: SymPy's own series of f(x + eps p) in eps
    def f(x_m, x_n):
        return sp.exp(x_m[0] * x_n[1] - x_m[1]) + sp.sin(x_m[0]) * x_n[0] ** 2

    t = sym.taylor_second_order(2, f)
    eps = sp.Symbol("eps")
    shifted = f(t.x_m + eps * t.p_m, t.x_n + eps * t.p_n)
    series = sp.series(shifted, eps, 0, 3).removeO().subs(eps, 1)
    assert is_zero(t.expansion - series)


def test_taylor_second_order_is_exact_for_a_bilinear_score():
    A = sp.Matrix(2, 2, sp.symbols("a_11 a_12 a_21 a_22", real=True))
    t = sym.taylor_second_order(2, lambda x_m, x_n: (x_m.T * A * x_n)[0, 0])
    assert (t.hessian_mn - A).is_zero_matrix
    assert t.second_m == 0 and t.second_n == 0
    assert is_zero(t.cross - (t.p_m.T * A * t.p_n)[0, 0])
    exact = ((t.x_m + t.p_m).T * A * (t.x_n + t.p_n))[0, 0]
    assert is_zero(exact - t.expansion)


def test_taylor_second_order_accepts_a_1x1_matrix():
    t = sym.taylor_second_order(2, lambda x_m, x_n: x_m.T * x_n)
    assert is_zero(t.cross - (t.p_m.T * t.p_n)[0, 0])


def test_taylor_second_order_rejects_bad_arguments():
    with pytest.raises(ValueError, match="dim must be an integer >= 1"):
        sym.taylor_second_order(0)
    with pytest.raises(TypeError, match="dim must be an integer"):
        sym.taylor_second_order(2.0)
    with pytest.raises(TypeError, match="dim must be an integer"):
        sym.taylor_second_order(True)
    with pytest.raises(TypeError, match="f must be None or a callable"):
        sym.taylor_second_order(2, "x_m . x_n")
    with pytest.raises(TypeError, match="f must return a scalar SymPy expression"):
        sym.taylor_second_order(2, lambda x_m, x_n: [1, 2])


# --------------------------------------------------------------------------------------------
# chapter 4: d = 2
# --------------------------------------------------------------------------------------------


def test_polar_equations():
    e = sym.polar_equations()
    m, n = e.m, e.n
    assert is_zero(e.product - e.p_m * sp.conjugate(e.p_n))
    assert is_zero(e.modulus_equation.lhs - e.r(m) * e.r(n))
    assert is_zero(e.modulus_equation.rhs - e.R(m - n))
    assert is_zero(e.phase_equation.lhs - (e.phi(m) - e.phi(n)))
    # exp(i * rhs) is the unit factor of q whatever the integer K: exp(2 pi i K) = 1
    assert is_zero(sp.exp(sp.I * e.phase_equation.rhs) - sp.exp(sp.I * e.Phi(m - n)))
    assert is_zero(e.equation.lhs / sp.Abs(e.equation.lhs) - sp.exp(sp.I * e.phase_equation.lhs))
    # a known solution satisfies all three at numbers
    values = {m: 5, n: 2}
    sol = {
        e.r: sp.Lambda(sp.Symbol("j"), 2),
        e.phi: sp.Lambda(sp.Symbol("j"), sp.Rational(3, 10) * sp.Symbol("j") + 1),
        e.R: sp.Lambda(sp.Symbol("j"), 4),
        e.Phi: sp.Lambda(sp.Symbol("j"), sp.Rational(3, 10) * sp.Symbol("j")),
        e.K: sp.Lambda((sp.Symbol("j"), sp.Symbol("l")), 0),
    }
    for eq in (e.equation, e.modulus_equation, e.phase_equation):
        lhs, rhs = (side.subs(sol).subs(values).doit() for side in (eq.lhs, eq.rhs))
        assert is_zero(lhs - rhs)


def test_solve_modulus():
    s = sym.solve_modulus()
    e = s.equations
    m = e.m
    assert is_zero(s.at_n_equals_m.lhs - e.r(m) ** 2)
    assert is_zero(s.at_n_equals_m.rhs - e.R(0))
    assert is_zero(s.modulus**2 - e.R(0))
    assert s.modulus.is_positive
    assert not s.modulus.has(m)  # constant in m
    assert is_zero(s.at_n_zero.rhs - e.R(m))
    assert is_zero(s.q_modulus - e.R(0))
    # passing the equations explicitly gives the same result
    assert is_zero(sym.solve_modulus(e).modulus - s.modulus)


def test_solve_phase():
    s = sym.solve_phase()
    m, n, theta, phi_0 = s.equations.m, s.equations.n, s.theta, s.phi_0
    phi = s.equations.phi
    assert is_zero(s.solution - (phi_0 + m * theta))
    # the solution satisfies the recurrence and the initial value (independently of rsolve)
    assert is_zero(s.solution - s.solution.subs(m, m - 1) - theta)
    assert s.solution.subs(m, 0) == phi_0
    assert is_zero(s.at_n_m_minus_1.lhs - (phi(m) - phi(m - 1)))
    assert is_zero(s.at_n_zero.lhs - (phi(m) - phi(0)))
    assert is_zero(s.phase_factor - sp.exp(sp.I * (m - n) * theta))
    assert sym.is_relative(s.phase_factor, m, n)
    # adding 2 pi N_m does not change e^{i phi_m}
    assert is_zero(sp.exp(sp.I * s.general) - sp.exp(sp.I * s.solution))


@pytest.mark.parametrize("solver", [sym.solve_modulus, sym.solve_phase])
def test_solvers_reject_bad_arguments(solver):
    with pytest.raises(TypeError, match="equations must be a PolarEquations"):
        solver("r_m r_n = R")


def test_relative_solution_2d():
    s = sym.relative_solution_2d()
    m, n, r, theta, phi_0 = s.m, s.n, s.r, s.theta, s.phi_0
    assert is_zero(s.product - r**2 * sp.exp(sp.I * (m - n) * theta))
    assert is_zero(s.inner_product - r**2 * sp.cos((m - n) * theta))
    assert is_zero(s.inner_product - (s.vector.T * s.vector.subs(m, n))[0, 0])
    assert is_zero(s.vector[0] - r * sp.cos(m * theta + phi_0))
    assert is_zero(s.vector[1] - r * sp.sin(m * theta + phi_0))
    assert sym.is_relative(s.product, m, n)
    assert sym.is_relative(s.inner_product, m, n)
    # numbers: the vector is (Re, Im) of p_m
    at = {m: 3, r: 1.5, theta: 0.37, phi_0: 0.2}
    z = 1.5 * np.exp(1j * (3 * 0.37 + 0.2))
    assert float(s.vector[0].subs(at)) == pytest.approx(z.real, abs=1e-14)
    assert float(s.vector[1].subs(at)) == pytest.approx(z.imag, abs=1e-14)


def test_real_condition_counterexample():
    c = sym.real_condition_counterexample()
    m, n = c.m, c.n
    assert is_zero(c.inner_product - (c.vector_m.T * c.vector_n)[0, 0])
    assert sym.is_relative(c.inner_product, m, n)  # the real condition holds ...
    imag = sp.im(c.product)
    assert is_zero(imag - c.c_0 * c.c_1 * ((-1) ** m - (-1) ** n))
    at = {c.c_0: 0.6, c.c_1: 0.8}
    # ... but the imaginary part differs for (m, n) = (1, 0) and (2, 1): not a function of m - n
    assert float(imag.subs(at).subs({m: 1, n: 0})) == pytest.approx(-0.96)
    assert float(imag.subs(at).subs({m: 2, n: 1})) == pytest.approx(0.96)
    # and the inner product at numbers agrees with numpy
    vec = np.array([[0.6, 0.8 * (-1) ** j] for j in range(6)])
    gram = vec @ vec.T
    for j in range(6):
        for i in range(6):
            assert float(c.inner_product.subs(at).subs({m: j, n: i})) == pytest.approx(gram[j, i])


# --------------------------------------------------------------------------------------------
# chapter 4: even d, layouts, shift matrix
# --------------------------------------------------------------------------------------------


def test_block_solution_inner_product():
    b = sym.block_solution(3)
    m, n = b.m, b.n
    expected = sum(r**2 * sp.cos((m - n) * th) for r, th in zip(b.moduli, b.thetas, strict=True))
    assert is_zero(b.inner_product - expected)
    assert not any(b.inner_product.has(ph) for ph in b.offsets)  # offsets drop out
    assert sym.is_relative(b.inner_product, m, n)
    raw = (b.vector_m.T * b.vector_n)[0, 0]
    assert sym.is_relative(raw, m, n)
    # the real vector is (Re, Im) of each complex entry
    for i in range(3):
        assert is_zero(b.vector_m[2 * i] - sp.re(b.complex_m[i]))
        assert is_zero(b.vector_m[2 * i + 1] - sp.im(b.complex_m[i]))


def test_block_solution_is_the_books_encoding_in_cos_first_layout():
    dim = 8
    b = sym.block_solution(dim // 2, moduli=False, offsets=False)
    assert b.moduli == (1,) * 4 and b.offsets == (0,) * 4
    theta = pe.frequencies(dim)
    subs = dict(zip(b.thetas, theta, strict=True))
    table = pe.sinusoidal(6, dim, layout="interleaved_cos_first")
    for pos in range(6):
        numeric = np.array([float(v.subs(subs).subs(b.m, pos)) for v in b.vector_m])
        np.testing.assert_allclose(numeric, table[pos], atol=1e-13)
    for delta in range(-5, 6):
        value = float(b.inner_product.subs(subs).subs({b.m: delta, b.n: 0}))
        assert value / (dim // 2) == pytest.approx(float(pe.kernel(delta, dim)), abs=1e-13)


def test_block_solution_rejects_bad_arguments():
    with pytest.raises(ValueError, match="num_blocks must be an integer >= 1"):
        sym.block_solution(0)
    with pytest.raises(TypeError, match="num_blocks"):
        sym.block_solution(1.5)
    with pytest.raises(TypeError, match="moduli must be True or False"):
        sym.block_solution(2, moduli="yes")
    with pytest.raises(TypeError, match="offsets must be True or False"):
        sym.block_solution(2, offsets=1)


@pytest.mark.parametrize("layout", pe.LAYOUTS)
def test_layout_as_complex(layout):
    pair, polar = sym.layout_as_complex(layout)
    assert is_zero(pair - polar)
    m = next(s for s in pair.free_symbols if s.name == "m")
    theta = next(s for s in pair.free_symbols if s.name == "theta")
    # the pair's coordinates are the table's, at numbers (d = 2 so theta_0 = 1)
    table = pe.sinusoidal(4, 2, layout=layout)
    for pos in range(4):
        value = complex(pair.subs({m: pos, theta: 1}))
        assert value.real == pytest.approx(table[pos, 0], abs=1e-14)
        assert value.imag == pytest.approx(table[pos, 1], abs=1e-14)


def test_layout_as_complex_rejects_unknown_layout():
    with pytest.raises(ValueError, match="layout must be one of"):
        sym.layout_as_complex("sin_first")


def test_complex_multiplication_matrix():
    a, b, u, v, phi = sp.symbols("a b u v phi", real=True)
    M = sym.complex_multiplication_matrix(a + sp.I * b)
    w = u + sp.I * v
    image = M * sp.Matrix([u, v])
    assert is_zero(image[0] - sp.re((a + sp.I * b) * w))
    assert is_zero(image[1] - sp.im((a + sp.I * b) * w))
    R = sym.complex_multiplication_matrix(sp.exp(sp.I * phi))
    numeric = np.array(R.subs(phi, 0.9).evalf(), dtype=float)
    np.testing.assert_allclose(numeric, pe.rotation(0.9), atol=1e-15)
    assert (sym.complex_multiplication_matrix(2) - 2 * sp.eye(2)).is_zero_matrix


def test_complex_multiplication_matrix_rejects_bad_arguments():
    with pytest.raises(TypeError, match="z must be a SymPy expression"):
        sym.complex_multiplication_matrix("1+2j")
    with pytest.raises(TypeError, match="z must be a SymPy expression"):
        sym.complex_multiplication_matrix([1, 2])


@pytest.mark.parametrize("layout", pe.LAYOUTS)
def test_shift_matrix_symbolic_matches_the_library(layout):
    dim = 6
    k = sp.Symbol("k", real=True)
    thetas = sp.symbols("theta_0:3", real=True)
    M = sym.shift_matrix_symbolic(k, thetas, layout)
    subs = {k: 2.5, **dict(zip(thetas, pe.frequencies(dim), strict=True))}
    numeric = np.array(M.subs(subs).evalf(), dtype=float)
    np.testing.assert_allclose(numeric, pe.shift_matrix(2.5, dim, layout=layout), atol=1e-14)


def test_shift_matrix_symbolic_shifts_the_block_solution():
    b = sym.block_solution(2, moduli=True, offsets=True)
    k = sp.Symbol("k", real=True)
    M = sym.shift_matrix_symbolic(k, b.thetas, "interleaved_cos_first")
    shifted = b.vector_m.subs(b.m, b.m + k)
    diff = (M * b.vector_m - shifted).applyfunc(lambda e: sp.simplify(sp.expand_trig(e)))
    assert diff == sp.zeros(4, 1)
    # in the paper's layout each block is R(-k theta)
    P = sym.shift_matrix_symbolic(k, b.thetas[:1], "interleaved")
    assert is_zero(P[0, 0] - sp.cos(k * b.thetas[0])) and is_zero(P[0, 1] - sp.sin(k * b.thetas[0]))


def test_shift_matrix_symbolic_rejects_bad_arguments():
    k = sp.Symbol("k", real=True)
    with pytest.raises(ValueError, match="k must be real"):
        sym.shift_matrix_symbolic(sp.Symbol("k"), [1])
    with pytest.raises(TypeError, match="thetas must be a non-empty sequence"):
        sym.shift_matrix_symbolic(k, [])
    with pytest.raises(TypeError, match="thetas must be a non-empty sequence"):
        sym.shift_matrix_symbolic(k, "ab")
    with pytest.raises(ValueError, match=r"thetas\[0\] must be real"):
        sym.shift_matrix_symbolic(k, [sp.I])
    with pytest.raises(ValueError, match="layout must be one of"):
        sym.shift_matrix_symbolic(k, [1], "cos_last")


@functools.cache
def _inner_product_2d():
    """The d = 2 inner product as a numpy function of (m, n, r, theta, phi_0)."""
    s = sym.relative_solution_2d()
    return sp.lambdify((s.m, s.n, s.r, s.theta, s.phi_0), s.inner_product, "numpy")


@settings(max_examples=25, deadline=None)
@given(
    r=st.floats(0.1, 3.0),
    theta=st.floats(-3.0, 3.0),
    phi_0=st.floats(-3.0, 3.0),
    m=st.integers(0, 50),
    n=st.integers(0, 50),
    k=st.integers(0, 50),
)
def test_relative_solution_is_relative_at_random_numbers(r, theta, phi_0, m, n, k):
    f = _inner_product_2d()
    # against numpy's complex arithmetic: Re(p_m conj(p_n))
    p_m = r * np.exp(1j * (m * theta + phi_0))
    p_n = r * np.exp(1j * (n * theta + phi_0))
    assert f(m, n, r, theta, phi_0) == pytest.approx((p_m * np.conj(p_n)).real, abs=1e-9)
    assert f(m + k, n + k, r, theta, phi_0) == pytest.approx(f(m, n, r, theta, phi_0), abs=1e-9)
