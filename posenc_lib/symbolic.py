r"""The SymPy derivations of chapters 3 and 4, each returning expressions that tests can check.

Chapter 3 (the Taylor expansion)
    :func:`taylor_second_order` expands :math:`f(x_m + p_m, x_n + p_n)` to second order for a
    scalar function of two vector arguments with fully symbolic entries and sorts the terms into
    constant, single-position and cross terms.

Chapter 4 (the complex-number derivation)
    :func:`polar_equations` poses :math:`p_m p_n^* = q_{m-n}` in polar form,
    :func:`solve_modulus` and :func:`solve_phase` solve its modulus and phase equations step by
    step, :func:`relative_solution_2d` and :func:`block_solution` give the solutions in
    :math:`d = 2` and in even :math:`d`, :func:`real_condition_counterexample` shows that the real
    condition :math:`\langle p_m, p_n\rangle = g(m-n)` alone does not force the solution,
    :func:`layout_as_complex`, :func:`complex_multiplication_matrix` and
    :func:`shift_matrix_symbolic` connect the complex form to the book's layouts and to the shift
    matrix :math:`M_k`.

Helpers
    :func:`product_to_sum` (products of sines and cosines to sums), :func:`relative_defect` and
    :func:`is_relative` (does an expression in :math:`m, n` depend only on :math:`m - n`?).

Every function returns SymPy objects; nothing is compared as a string. Positions :math:`m, n`
are integer symbols.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import sympy as sp
from sympy.simplify.fu import TR8

from ._validation import check_choice, check_count
from .layouts import LAYOUTS, layout_permutation

__all__ = [
    "BlockSolution",
    "Counterexample",
    "ModulusSteps",
    "PhaseSteps",
    "PolarEquations",
    "RelativeSolution2D",
    "TaylorExpansion",
    "block_solution",
    "complex_multiplication_matrix",
    "is_relative",
    "layout_as_complex",
    "polar_equations",
    "product_to_sum",
    "real_condition_counterexample",
    "relative_defect",
    "relative_solution_2d",
    "shift_matrix_symbolic",
    "solve_modulus",
    "solve_phase",
    "taylor_second_order",
]


# --------------------------------------------------------------------------------------------
# argument checks
# --------------------------------------------------------------------------------------------


def _check_expr(value: object, name: str) -> sp.Expr:
    """A SymPy expression (Python numbers are converted), else raise naming ``name``."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a SymPy expression or a number, got bool")
    if isinstance(value, numbers.Number):
        return sp.sympify(value)
    if not isinstance(value, sp.Expr):
        raise TypeError(
            f"{name} must be a SymPy expression or a number, got {type(value).__name__} {value!r}"
        )
    return value


def _check_real_expr(value: object, name: str) -> sp.Expr:
    """A SymPy expression known to be real (declare symbols with ``real=True``), else raise."""
    expr = _check_expr(value, name)
    if expr.is_real is not True:
        raise ValueError(
            f"{name} must be real; got {expr!r}, which SymPy cannot prove real "
            "(declare its symbols with real=True)"
        )
    return expr


def _check_symbol(value: object, name: str) -> sp.Symbol:
    if not isinstance(value, sp.Symbol):
        raise TypeError(f"{name} must be a SymPy Symbol, got {type(value).__name__} {value!r}")
    return value


def _vector(prefix: str, label: str, dim: int) -> sp.Matrix:
    """Column vector of real symbols ``prefix_{label,1} … prefix_{label,dim}``."""
    return sp.Matrix([sp.Symbol(f"{prefix}_{{{label},{a}}}", real=True) for a in range(1, dim + 1)])


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def product_to_sum(expr: sp.Expr) -> sp.Expr:
    r"""Rewrite products and powers of sines and cosines as sums of sines and cosines.

    Uses the product-to-sum identities, for example

    .. math:: \cos a\cos b = \tfrac12[\cos(a-b) + \cos(a+b)], \qquad
              \sin a\sin b = \tfrac12[\cos(a-b) - \cos(a+b)],

    (SymPy's ``fu.TR8``), then expands and writes each argument in factored form, e.g.
    :math:`\cos(\theta(m - n))`. The result is a linear combination of sines and cosines (times
    factors free of trigonometric functions); it is deliberately not passed through
    ``sympy.simplify``, which would often fold the sum back into a product.
    """
    expr = _check_expr(expr, "expr")
    summed = sp.expand(TR8(sp.expand(expr)))
    return summed.replace(
        lambda e: isinstance(e, (sp.sin, sp.cos)),
        lambda e: e.func(sp.factor_terms(e.args[0])),
    )


def relative_defect(expr: sp.Expr, m: sp.Symbol, n: sp.Symbol) -> sp.Expr:
    r"""The simplified difference :math:`e(m+k, n+k) - e(m, n)` for a fresh integer :math:`k`.

    It is zero exactly when :math:`e` depends on :math:`m, n` only through :math:`m - n` (for
    integer shifts :math:`k`). Products of sines and cosines are first turned into sums
    (:func:`product_to_sum`) and the difference is then simplified, so trigonometric kernels
    reduce to zero when they are relative.
    """
    expr = _check_expr(expr, "expr")
    m = _check_symbol(m, "m")
    n = _check_symbol(n, "n")
    if m == n:
        raise ValueError("m and n must be two different symbols")
    k = sp.Dummy("k", integer=True)
    shifted = expr.subs({m: m + k, n: n + k}, simultaneous=True)
    return sp.simplify(product_to_sum(shifted - expr))


def is_relative(expr: sp.Expr, m: sp.Symbol, n: sp.Symbol) -> bool:
    r"""True when SymPy proves that ``expr`` depends on ``m, n`` only through ``m - n``.

    A ``False`` means that the difference :func:`relative_defect` did not simplify to zero; to
    show that an expression is *not* relative, evaluate that difference at numbers.
    """
    return relative_defect(expr, m, n) == 0


# --------------------------------------------------------------------------------------------
# Chapter 3: the second-order Taylor expansion
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TaylorExpansion:
    r"""The second-order expansion of :math:`f(x_m + p_m, x_n + p_n)` and its terms.

    With :math:`g_m = \partial f/\partial x_m`, :math:`H_{mm} = \partial^2 f/\partial x_m^2`,
    :math:`H = H_{mn} = \partial^2 f/\partial x_m\partial x_n` (all at :math:`(x_m, x_n)`):

    .. math::
        f(x_m+p_m, x_n+p_n) \approx f + p_m^\top g_m + p_n^\top g_n
        + \tfrac12 p_m^\top H_{mm} p_m + \tfrac12 p_n^\top H_{nn} p_n + p_m^\top H p_n .

    Attributes hold the symbol vectors, the function value, the six classified terms, the
    gradients and the Hessian blocks; :attr:`expansion` is their sum.
    """

    x_m: sp.Matrix
    x_n: sp.Matrix
    p_m: sp.Matrix
    p_n: sp.Matrix
    f: sp.Expr
    constant: sp.Expr
    first_m: sp.Expr
    first_n: sp.Expr
    second_m: sp.Expr
    second_n: sp.Expr
    cross: sp.Expr
    gradient_m: sp.Matrix
    gradient_n: sp.Matrix
    hessian_mm: sp.Matrix
    hessian_nn: sp.Matrix
    hessian_mn: sp.Matrix

    @property
    def expansion(self) -> sp.Expr:
        """The whole second-order polynomial in the entries of :math:`p_m, p_n`."""
        return (
            self.constant + self.first_m + self.first_n + self.second_m + self.second_n + self.cross
        )

    def terms(self) -> dict[str, sp.Expr]:
        """The six terms by name, in the order of the expansion."""
        return {
            "constant": self.constant,
            "first_m": self.first_m,
            "first_n": self.first_n,
            "second_m": self.second_m,
            "second_n": self.second_n,
            "cross": self.cross,
        }


def taylor_second_order(
    dim: int, f: Callable[[sp.Matrix, sp.Matrix], sp.Expr] | None = None
) -> TaylorExpansion:
    r"""Expand :math:`f(x_m + p_m, x_n + p_n)` to second order and classify the terms.

    The coefficient of :math:`\varepsilon^k` in :math:`f(x + \varepsilon p)` is
    :math:`\frac{1}{k!}(p\cdot\nabla)^k f(x)` (chain rule), with the directional derivative
    :math:`p\cdot\nabla = \sum_a p_{m,a}\partial_{x_{m,a}} + \sum_a p_{n,a}\partial_{x_{n,a}}`;
    the expansion to second order is the sum of the coefficients for :math:`k = 0, 1, 2` at
    :math:`\varepsilon = 1`. The terms are then sorted by their degree :math:`(j, l)` in
    :math:`p_m` and :math:`p_n`: :math:`(0,0)` constant, :math:`(1,0), (0,1)` first-order
    single-position terms, :math:`(2,0), (0,2)` second-order single-position terms and
    :math:`(1,1)` the cross term :math:`p_m^\top H p_n`, the only one that contains both.

    Parameters
    ----------
    dim
        Dimension of each vector argument, an integer >= 1 (the chapter uses 2 and 3).
    f
        ``None`` for an undefined function :math:`f` of the :math:`2\,\mathrm{dim}` entries
        (fully symbolic), or a callable ``f(x_m, x_n)`` that takes two SymPy column vectors and
        returns a SymPy expression (a concrete model, e.g. a bilinear attention score).

    Returns
    -------
    TaylorExpansion
    """
    dim = check_count(dim, "dim", 1)
    x_m, x_n = _vector("x", "m", dim), _vector("x", "n", dim)
    p_m, p_n = _vector("p", "m", dim), _vector("p", "n", dim)
    if f is None:
        f0 = sp.Function("f")(*x_m, *x_n)
    elif callable(f):
        f0 = f(x_m, x_n)
        if isinstance(f0, sp.MatrixBase) and f0.shape == (1, 1):
            f0 = f0[0, 0]
        if not isinstance(f0, sp.Expr):
            raise TypeError(
                f"f must return a scalar SymPy expression, got {type(f0).__name__}; "
                "a 1x1 Matrix is accepted too"
            )
    else:
        raise TypeError(f"f must be None or a callable f(x_m, x_n), got {type(f).__name__}")

    variables = list(x_m) + list(x_n)
    directions = list(p_m) + list(p_n)

    def directional(expr: sp.Expr) -> sp.Expr:
        return sum(
            (d * sp.diff(expr, v) for d, v in zip(directions, variables, strict=True)),
            sp.Integer(0),
        )

    first = directional(f0)
    second = directional(first) / 2
    # Sort by degree in p_m and p_n: scale p_m by s and p_n by t and read off the monomials.
    s, t = sp.Dummy("s"), sp.Dummy("t")
    scale = {**{v: s * v for v in p_m}, **{v: t * v for v in p_n}}
    poly = sp.Poly(sp.expand((f0 + first + second).subs(scale, simultaneous=True)), s, t)
    buckets = {(0, 0): 0, (1, 0): 0, (0, 1): 0, (2, 0): 0, (0, 2): 0, (1, 1): 0}
    for (deg_s, deg_t), coeff in poly.terms():
        if (deg_s, deg_t) not in buckets:  # pragma: no cover - impossible for a 2nd-order sum
            raise RuntimeError(f"unexpected degree {(deg_s, deg_t)} in the expansion")
        buckets[(deg_s, deg_t)] += coeff

    def block(rows: sp.Matrix, cols: sp.Matrix) -> sp.Matrix:
        return sp.Matrix(len(rows), len(cols), lambda a, b: sp.diff(f0, rows[a], cols[b]))

    return TaylorExpansion(
        x_m=x_m,
        x_n=x_n,
        p_m=p_m,
        p_n=p_n,
        f=f0,
        constant=buckets[(0, 0)],
        first_m=buckets[(1, 0)],
        first_n=buckets[(0, 1)],
        second_m=buckets[(2, 0)],
        second_n=buckets[(0, 2)],
        cross=buckets[(1, 1)],
        gradient_m=sp.Matrix([sp.diff(f0, v) for v in x_m]),
        gradient_n=sp.Matrix([sp.diff(f0, v) for v in x_n]),
        hessian_mm=block(x_m, x_m),
        hessian_nn=block(x_n, x_n),
        hessian_mn=block(x_m, x_n),
    )


# --------------------------------------------------------------------------------------------
# Chapter 4: the complex-number derivation in d = 2
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PolarEquations:
    r"""The equation :math:`p_m p_n^* = q_{m-n}` in polar form, and what it splits into.

    With :math:`p_m = r_m e^{\mathrm{i}\phi_m}` and :math:`q_k = R_k e^{\mathrm{i}\Phi_k}`
    (:math:`r, R > 0`, :math:`\phi, \Phi` real):

    * ``equation``:
      :math:`r_m r_n e^{\mathrm{i}(\phi_m - \phi_n)} = R_{m-n} e^{\mathrm{i}\Phi_{m-n}}`;
    * ``modulus_equation``: :math:`r_m r_n = R_{m-n}` (the moduli of both sides);
    * ``phase_equation``: :math:`\phi_m - \phi_n = \Phi_{m-n} + 2\pi K_{m,n}` with
      :math:`K_{m,n}` an integer: arguments are equal only modulo :math:`2\pi`.
    """

    m: sp.Symbol
    n: sp.Symbol
    r: sp.FunctionClass
    phi: sp.FunctionClass
    R: sp.FunctionClass
    Phi: sp.FunctionClass
    K: sp.FunctionClass
    p_m: sp.Expr
    p_n: sp.Expr
    product: sp.Expr
    q: sp.Expr
    equation: sp.Eq
    modulus_equation: sp.Eq
    phase_equation: sp.Eq


def polar_equations() -> PolarEquations:
    r"""Pose :math:`p_m p_n^* = q_{m-n}` for all integer positions :math:`m, n \ge 0` in polar form.

    The moduli are assumed positive: :math:`r_0^2 = R_0 = |p_0|^2`, so this excludes only the
    trivial solution :math:`p \equiv 0`. ``modulus_equation`` is obtained by taking
    ``sympy.Abs`` of both sides (SymPy simplifies them under the stated assumptions).
    """
    m, n = sp.symbols("m n", integer=True, nonnegative=True)
    r = sp.Function("r", positive=True)
    phi = sp.Function("phi", real=True)
    R = sp.Function("R", positive=True)
    Phi = sp.Function("Phi", real=True)
    K = sp.Function("K", integer=True)
    p_m = r(m) * sp.exp(sp.I * phi(m))
    p_n = r(n) * sp.exp(sp.I * phi(n))
    product = sp.powsimp(p_m * sp.conjugate(p_n))
    q = R(m - n) * sp.exp(sp.I * Phi(m - n))
    return PolarEquations(
        m=m,
        n=n,
        r=r,
        phi=phi,
        R=R,
        Phi=Phi,
        K=K,
        p_m=p_m,
        p_n=p_n,
        product=product,
        q=q,
        equation=sp.Eq(product, q),
        modulus_equation=sp.Eq(sp.Abs(product), sp.Abs(q)),
        phase_equation=sp.Eq(phi(m) - phi(n), Phi(m - n) + 2 * sp.pi * K(m, n)),
    )


@dataclass(frozen=True)
class ModulusSteps:
    r"""The modulus equation solved.

    * ``at_n_equals_m``: :math:`r_m^2 = R_0` (put :math:`n = m`);
    * ``modulus``: :math:`r_m = \sqrt{R_0}` for every :math:`m` (the positive root);
    * ``at_n_zero``: :math:`r_m r_0 = R_m` (put :math:`n = 0`);
    * ``q_modulus``: :math:`R_k = R_0` for :math:`k \ge 0`: the modulus of :math:`q` is constant.
    """

    equations: PolarEquations
    at_n_equals_m: sp.Eq
    modulus: sp.Expr
    at_n_zero: sp.Eq
    q_modulus: sp.Expr


def solve_modulus(equations: PolarEquations | None = None) -> ModulusSteps:
    r"""Solve the modulus equation :math:`r_m r_n = R_{m-n}`: the modulus is constant.

    Putting :math:`n = m` (allowed for every :math:`m`) gives :math:`r_m^2 = R_0`, whose positive
    root :math:`r_m = \sqrt{R_0}` does not depend on :math:`m`. Putting :math:`n = 0` then gives
    :math:`R_m = r_m r_0 = R_0`.
    """
    eqs = polar_equations() if equations is None else equations
    if not isinstance(eqs, PolarEquations):
        raise TypeError(f"equations must be a PolarEquations or None, got {type(eqs).__name__}")
    m, n, r = eqs.m, eqs.n, eqs.r
    diagonal = eqs.modulus_equation.subs(n, m)
    roots = [s for s in sp.solve(diagonal, r(m)) if s.is_negative is not True]
    if len(roots) != 1:  # pragma: no cover - SymPy returns +-sqrt(R(0))
        raise RuntimeError(f"expected one positive root, got {roots}")
    modulus = roots[0]
    at_zero = eqs.modulus_equation.subs(n, 0)
    q_modulus = sp.simplify(at_zero.lhs.subs(r(m), modulus).subs(r(0), modulus.subs(m, 0)))
    return ModulusSteps(
        equations=eqs,
        at_n_equals_m=diagonal,
        modulus=modulus,
        at_n_zero=at_zero,
        q_modulus=q_modulus,
    )


@dataclass(frozen=True)
class PhaseSteps:
    r"""The phase equation solved.

    * ``at_n_zero``: :math:`\phi_m - \phi_0 = \Phi_m + 2\pi K_{m,0}`;
    * ``at_n_m_minus_1``: :math:`\phi_m - \phi_{m-1} = \Phi_1 + 2\pi K_{m,m-1}`;
    * ``theta``: the symbol :math:`\theta`, standing for :math:`\Phi_1` (real);
    * ``recurrence``: :math:`\tilde\phi_m - \tilde\phi_{m-1} - \theta` (= 0) for the representatives
      :math:`\tilde\phi_m = \phi_m - 2\pi\sum_{j=1}^{m} K_{j,j-1}`, which give the same
      :math:`e^{\mathrm{i}\phi_m}`;
    * ``solution``: :math:`\tilde\phi_m = \phi_0 + m\theta` (``sympy.rsolve``);
    * ``general``: :math:`\phi_m = \phi_0 + m\theta + 2\pi N_m` with integer :math:`N_m`;
    * ``phase_factor``: :math:`e^{\mathrm{i}\phi_m}\,\overline{e^{\mathrm{i}\phi_n}}`, simplified to
      :math:`e^{\mathrm{i}(m-n)\theta}`.
    """

    equations: PolarEquations
    at_n_zero: sp.Eq
    at_n_m_minus_1: sp.Eq
    theta: sp.Symbol
    phi_0: sp.Symbol
    recurrence: sp.Expr
    solution: sp.Expr
    general: sp.Expr
    phase_factor: sp.Expr


def solve_phase(equations: PolarEquations | None = None) -> PhaseSteps:
    r"""Solve the phase equation :math:`\phi_m - \phi_n \equiv \Phi_{m-n} \pmod{2\pi}`.

    Putting :math:`n = m - 1` (allowed for :math:`m \ge 1`) shows that consecutive phases differ
    by the same :math:`\theta = \Phi_1` modulo :math:`2\pi`, so the phases form an arithmetic
    progression :math:`\phi_m = \phi_0 + m\theta` modulo :math:`2\pi`; ``sympy.rsolve`` solves the
    recurrence with the initial value :math:`\phi_0` left free.
    """
    eqs = polar_equations() if equations is None else equations
    if not isinstance(eqs, PolarEquations):
        raise TypeError(f"equations must be a PolarEquations or None, got {type(eqs).__name__}")
    m, n, phi = eqs.m, eqs.n, eqs.phi
    theta, phi_0 = sp.symbols("theta phi_0", real=True)
    at_zero = eqs.phase_equation.subs(n, 0)
    at_prev = eqs.phase_equation.subs(n, m - 1)
    recurrence = phi(m) - phi(m - 1) - theta
    solution = sp.rsolve(recurrence, phi(m), {phi(0): phi_0})
    if solution is None:  # pragma: no cover - rsolve solves first-order linear recurrences
        raise RuntimeError("rsolve failed on the phase recurrence")
    N = sp.Function("N", integer=True)
    general = solution + 2 * sp.pi * N(m)
    factor = sp.simplify(sp.exp(sp.I * general) * sp.conjugate(sp.exp(sp.I * general.subs(m, n))))
    return PhaseSteps(
        equations=eqs,
        at_n_zero=at_zero,
        at_n_m_minus_1=at_prev,
        theta=theta,
        phi_0=phi_0,
        recurrence=recurrence,
        solution=solution,
        general=general,
        phase_factor=factor,
    )


@dataclass(frozen=True)
class RelativeSolution2D:
    r"""The solution :math:`p_m = r e^{\mathrm{i}(m\theta + \phi_0)}` and its checks.

    ``product`` is :math:`p_m p_n^*` simplified (:math:`r^2 e^{\mathrm{i}(m-n)\theta}`),
    ``inner_product`` its real part :math:`\langle p_m, p_n\rangle = r^2\cos((m-n)\theta)`, and
    ``vector`` the real vector :math:`(\operatorname{Re} p_m, \operatorname{Im} p_m)`, cosine first.
    """

    m: sp.Symbol
    n: sp.Symbol
    r: sp.Symbol
    theta: sp.Symbol
    phi_0: sp.Symbol
    p_m: sp.Expr
    p_n: sp.Expr
    product: sp.Expr
    inner_product: sp.Expr
    vector: sp.Matrix


def relative_solution_2d() -> RelativeSolution2D:
    r"""The general solution in :math:`d = 2`, :math:`p_m = r e^{\mathrm{i}(m\theta + \phi_0)}`.

    Combines :func:`solve_modulus` (:math:`r = \sqrt{R_0}`) and :func:`solve_phase`
    (:math:`\phi_m = \phi_0 + m\theta`), and computes the product and inner product.
    """
    m, n = sp.symbols("m n", integer=True, nonnegative=True)
    r = sp.Symbol("r", positive=True)
    theta, phi_0 = sp.symbols("theta phi_0", real=True)
    p_m = r * sp.exp(sp.I * (m * theta + phi_0))
    p_n = p_m.subs(m, n)
    product = sp.simplify(p_m * sp.conjugate(p_n))
    vector_m = sp.Matrix([sp.re(p_m), sp.im(p_m)]).applyfunc(sp.simplify)
    inner = product_to_sum((vector_m.T * vector_m.subs(m, n))[0, 0])
    return RelativeSolution2D(
        m=m,
        n=n,
        r=r,
        theta=theta,
        phi_0=phi_0,
        p_m=p_m,
        p_n=p_n,
        product=product,
        inner_product=inner,
        vector=vector_m,
    )


@dataclass(frozen=True)
class Counterexample:
    r"""A 2-D sequence with :math:`\langle p_m, p_n\rangle` relative but :math:`p_m p_n^*` not.

    :math:`p_m = (c_0, c_1(-1)^m)`: it alternates between two vectors. ``inner_product`` is
    :math:`c_0^2 + c_1^2(-1)^{m+n}`, a function of :math:`m - n`; ``product`` is
    :math:`p_m p_n^*` with :math:`p_m = c_0 + \mathrm{i}c_1(-1)^m`, whose imaginary part
    :math:`c_0c_1((-1)^m - (-1)^n)` is not.
    """

    m: sp.Symbol
    n: sp.Symbol
    c_0: sp.Symbol
    c_1: sp.Symbol
    vector_m: sp.Matrix
    vector_n: sp.Matrix
    inner_product: sp.Expr
    product: sp.Expr


def real_condition_counterexample() -> Counterexample:
    r"""A 2-D solution of :math:`\langle p_m, p_n\rangle = g(m - n)` that is no rotation.

    The derivation replaces the real condition by the complex one :math:`p_m p_n^* = q_{m-n}`,
    which also asks the imaginary part (the signed area :math:`p_m \times p_n`) to be relative.
    This sequence satisfies the first and not the second: it is the :math:`d = 2` image of the
    two degenerate frequencies :math:`\theta = 0` and :math:`\theta = \pi`, whose sine
    coordinates vanish at integer positions.
    """
    m, n = sp.symbols("m n", integer=True, nonnegative=True)
    c_0, c_1 = sp.symbols("c_0 c_1", positive=True)
    vector_m = sp.Matrix([c_0, c_1 * (-1) ** m])
    vector_n = vector_m.subs(m, n)
    inner = sp.powsimp((vector_m.T * vector_n)[0, 0])
    z_m = c_0 + sp.I * c_1 * (-1) ** m
    z_n = z_m.subs(m, n)
    product = sp.expand(z_m * sp.conjugate(z_n))
    return Counterexample(
        m=m,
        n=n,
        c_0=c_0,
        c_1=c_1,
        vector_m=vector_m,
        vector_n=vector_n,
        inner_product=inner,
        product=product,
    )


# --------------------------------------------------------------------------------------------
# Chapter 4: even d, layouts and the shift matrix
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BlockSolution:
    r"""The block solution in :math:`d = 2B`, cosine-first layout.

    Block :math:`i` is :math:`r_i\,(\cos(m\theta_i + \phi_i), \sin(m\theta_i + \phi_i))`, i.e. the
    complex number :math:`r_i e^{\mathrm{i}(m\theta_i + \phi_i)}`. ``inner_product`` is
    :math:`\langle p_m, p_n\rangle` after the product-to-sum identities:
    :math:`\sum_i r_i^2\cos((m-n)\theta_i)`.
    """

    m: sp.Symbol
    n: sp.Symbol
    thetas: tuple[sp.Symbol, ...]
    moduli: tuple[sp.Expr, ...]
    offsets: tuple[sp.Expr, ...]
    complex_m: sp.Matrix
    vector_m: sp.Matrix
    vector_n: sp.Matrix
    inner_product: sp.Expr


def block_solution(num_blocks: int, *, moduli: bool = True, offsets: bool = True) -> BlockSolution:
    r"""Concatenate ``num_blocks`` two-dimensional solutions, each with its own frequency.

    Parameters
    ----------
    num_blocks
        Number :math:`B = d/2` of blocks, an integer >= 1.
    moduli
        Give each block its own modulus symbol :math:`r_i > 0` (else :math:`r_i = 1`).
    offsets
        Give each block its own phase offset symbol :math:`\phi_i` (else :math:`\phi_i = 0`).
    """
    blocks = check_count(num_blocks, "num_blocks", 1)
    for flag, name in ((moduli, "moduli"), (offsets, "offsets")):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be True or False, got {flag!r}")
    m, n = sp.symbols("m n", integer=True, nonnegative=True)
    thetas = sp.symbols(f"theta_0:{blocks}", real=True)
    rs = sp.symbols(f"r_0:{blocks}", positive=True) if moduli else (sp.Integer(1),) * blocks
    phis = sp.symbols(f"phi_0:{blocks}", real=True) if offsets else (sp.Integer(0),) * blocks
    thetas, rs, phis = tuple(thetas), tuple(rs), tuple(phis)
    angle = [m * th + ph for th, ph in zip(thetas, phis, strict=True)]
    complex_m = sp.Matrix([r * sp.exp(sp.I * a) for r, a in zip(rs, angle, strict=True)])
    entries: list[sp.Expr] = []
    for r, a in zip(rs, angle, strict=True):
        entries += [r * sp.cos(a), r * sp.sin(a)]
    vector_m = sp.Matrix(entries)
    vector_n = vector_m.subs(m, n)
    inner = product_to_sum((vector_m.T * vector_n)[0, 0])
    return BlockSolution(
        m=m,
        n=n,
        thetas=thetas,
        moduli=rs,
        offsets=phis,
        complex_m=complex_m,
        vector_m=vector_m,
        vector_n=vector_n,
        inner_product=inner,
    )


def layout_as_complex(layout: str = "interleaved") -> tuple[sp.Expr, sp.Expr]:
    r"""One frequency pair of ``layout`` read as a complex number, and its polar form.

    The pair's first coordinate is the real part and its second the imaginary part:

    * ``"interleaved_cos_first"`` and ``"concatenated_cos_first"``:
      :math:`\cos m\theta + \mathrm{i}\sin m\theta = e^{\mathrm{i}m\theta}`;
    * ``"interleaved"`` and ``"concatenated"`` (whose pair :math:`i` is
      :math:`(\sin m\theta_i, \cos m\theta_i)` at other indices):
      :math:`\sin m\theta + \mathrm{i}\cos m\theta = e^{\mathrm{i}(\pi/2 - m\theta)}` —
      the derived form with frequency :math:`-\theta` and phase offset :math:`\pi/2`.

    Returns ``(pair, polar)`` with symbols ``m`` (integer) and ``theta`` (real).
    """
    check_choice(layout, "layout", LAYOUTS)
    m = sp.Symbol("m", integer=True, nonnegative=True)
    theta = sp.Symbol("theta", real=True)
    if layout in ("interleaved_cos_first", "concatenated_cos_first"):
        return sp.cos(m * theta) + sp.I * sp.sin(m * theta), sp.exp(sp.I * m * theta)
    return sp.sin(m * theta) + sp.I * sp.cos(m * theta), sp.exp(sp.I * (sp.pi / 2 - m * theta))


def complex_multiplication_matrix(z: sp.Expr) -> sp.Matrix:
    r"""The real :math:`2\times 2` matrix of :math:`w \mapsto z w` acting on :math:`(\Re w, \Im w)`.

    For :math:`z = a + \mathrm{i}b`: :math:`\begin{pmatrix} a & -b\\ b & a\end{pmatrix}`; for
    :math:`z = e^{\mathrm{i}\varphi}` it is the rotation :math:`R(\varphi)`.
    """
    z = _check_expr(z, "z")
    a, b = sp.re(z), sp.im(z)
    return sp.Matrix([[a, -b], [b, a]])


def shift_matrix_symbolic(
    k: sp.Expr, thetas: Sequence[sp.Expr], layout: str = "interleaved"
) -> sp.Matrix:
    r"""The shift matrix :math:`M_k` (:math:`p_{m+k} = M_k p_m`) derived from the complex form.

    In the complex form the shift is a multiplication: :math:`p_{m+k,i} = e^{\mathrm{i}k\theta_i}
    p_{m,i}`. In the cosine-first layout block :math:`i` of :math:`M_k` is therefore
    :func:`complex_multiplication_matrix` of :math:`e^{\mathrm{i}k\theta_i}`, the rotation
    :math:`R(k\theta_i)`; any other layout is the same matrix with rows and columns permuted,
    :math:`M^{\text{target}} = P M^{\text{cos-first}} P^\top`
    (:func:`posenc_lib.layout_permutation`).
    In the paper's interleaved layout the block is :math:`R(-k\theta_i)`.

    Parameters
    ----------
    k
        The shift: a real SymPy expression (symbols declared ``real=True``) or a number.
    thetas
        The frequencies :math:`\theta_0, \dots, \theta_{d/2-1}`: a non-empty sequence of real
        SymPy expressions or numbers.
    layout
        One of :data:`posenc_lib.LAYOUTS`.
    """
    k = _check_real_expr(k, "k")
    if isinstance(thetas, (str, bytes)) or not isinstance(thetas, Sequence) or len(thetas) == 0:
        raise TypeError("thetas must be a non-empty sequence of real SymPy expressions or numbers")
    freqs = [_check_real_expr(th, f"thetas[{i}]") for i, th in enumerate(thetas)]
    check_choice(layout, "layout", LAYOUTS)
    blocks = [complex_multiplication_matrix(sp.exp(sp.I * k * th)) for th in freqs]
    cos_first = sp.diag(*blocks)
    perm = layout_permutation(2 * len(freqs), "interleaved_cos_first", layout)
    dim = 2 * len(freqs)
    return sp.Matrix(dim, dim, lambda a, b: cos_first[int(perm[a]), int(perm[b])])
