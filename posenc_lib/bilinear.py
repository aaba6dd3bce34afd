r"""Chapter 6's symbolic derivations and its Toeplitz + Hankel split (to move into chapter 6).

This module is being dissolved (issue 11): its SymPy derivations belong in chapter 6's cells.
The numeric tools that other chapters reuse now live in :mod:`posenc_lib.shift_invariance`
(``position_bilinear``, ``shift_defect``, ``toeplitz_defect``, ``relative_projection``,
``random_relative_matrix``, ``rotary_scores``), :mod:`posenc_lib.dominance` (diagonal
dominance) and :mod:`posenc_lib.layouts` (``pair_columns``).

Notation: ``dim`` :math:`= d`, pair :math:`i` has frequency :math:`\theta_i` and, in the book's
interleaved layout, coordinates :math:`(2i, 2i+1)` holding
:math:`u(m\theta_i) = (\sin m\theta_i, \cos m\theta_i)`. The 2×2 block of :math:`H` on pairs
:math:`(i, j)` is :math:`H_{ij}`, and

.. math::
    J = \begin{pmatrix} 0 & -1 \\ 1 & 0 \end{pmatrix}

is the generator of rotations (:math:`R(\varphi) = \cos\varphi\, I + \sin\varphi\, J`).

Symbolic (SymPy, imported inside the functions that need it)
    :func:`block_cross_term` expands :math:`u(\alpha)^\top B\, u(\beta)` into a part in
    :math:`\alpha - \beta` and a part in :math:`\alpha + \beta`; :func:`diagonal_cross_term` is the
    diagonal case (the source's "general case"); :func:`block_commutation` proves which blocks
    survive the shift :math:`m, n \to m+1, n+1` within a pair and across pairs;
    :func:`rotary_derivation` derives the rotary score :math:`q_m^\top k_n` with its sine term.

Numeric (numpy)
    :func:`toeplitz_hankel` (least-squares split of any matrix into a function of :math:`m - n`,
    a function of :math:`m + n` and a residual) and :func:`rotary_score_formula`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import check_base, check_real_array
from ._validation import check_matrix as _check_matrix
from ._validation import check_vector as _check_vector
from .encoding import frequencies

__all__ = [
    "BlockCommutation",
    "BlockCrossTerm",
    "DiagonalCrossTerm",
    "RotaryDerivation",
    "ToeplitzHankel",
    "block_commutation",
    "block_cross_term",
    "diagonal_cross_term",
    "hankel_projection",
    "rotary_derivation",
    "rotary_score_formula",
    "toeplitz_hankel",
    "toeplitz_projection",
]


# --------------------------------------------------------------------------------------------
# Toeplitz + Hankel decomposition
# --------------------------------------------------------------------------------------------


def _diagonal_index(shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Per cell: index of m - n (shifted to start at 0) and of m + n."""
    rows, cols = np.indices(shape)
    return (rows - cols + shape[1] - 1).ravel(), (rows + cols).ravel()


def _group_means(g: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Replace every cell of ``g`` by the mean of its group (``idx``: group of each cell)."""
    size = sum(g.shape) - 1
    means = np.bincount(idx, g.ravel(), size) / np.bincount(idx, minlength=size)
    return means[idx].reshape(g.shape)


def toeplitz_projection(g: ArrayLike) -> np.ndarray:
    r"""The least-squares fit of ``g`` by a function of :math:`m - n` (average along diagonals)."""
    g = _check_matrix(g, "g")
    return _group_means(g, _diagonal_index(g.shape)[0])


def hankel_projection(g: ArrayLike) -> np.ndarray:
    r"""The least-squares fit of ``g`` by a function of :math:`m + n` (anti-diagonal averages)."""
    g = _check_matrix(g, "g")
    return _group_means(g, _diagonal_index(g.shape)[1])


@dataclass(frozen=True)
class ToeplitzHankel:
    r"""Least-squares split :math:`G_{mn} \approx t(m - n) + h(m + n)` of a matrix on a grid.

    Attributes
    ----------
    toeplitz_only, hankel_only
        The best fit by a function of :math:`m - n` alone (diagonal averages), and by a function
        of :math:`m + n` alone (anti-diagonal averages).
    fitted
        The best fit by :math:`t(m - n) + h(m + n)` jointly (the orthogonal projection onto the sum
        of the two subspaces); ``residual = G - fitted``.
    toeplitz, hankel
        One split of ``fitted`` into its two parts. It is not unique: the constant matrix and the
        checkerboard :math:`(-1)^{m+n} = (-1)^{m-n}` are both Toeplitz and Hankel. This split is
        the minimum-norm one of the normal equations.
    r2_toeplitz, r2_hankel, r2_joint
        Shares of :math:`\|G\|_F^2` explained: :math:`\|\text{fit}\|_F^2/\|G\|_F^2` for each fit
        (after subtracting the grand mean when ``centered``).
    residual_share
        :math:`\|G - \text{fitted}\|_F^2/\|G\|_F^2 = 1 - ` ``r2_joint``.
    centered
        Whether the grand mean was subtracted from :math:`G` first.
    """

    toeplitz_only: np.ndarray
    hankel_only: np.ndarray
    fitted: np.ndarray
    toeplitz: np.ndarray
    hankel: np.ndarray
    residual: np.ndarray
    r2_toeplitz: float
    r2_hankel: float
    r2_joint: float
    residual_share: float
    centered: bool

    def shares(self) -> dict[str, float]:
        """The four shares by name (rounded by the caller for printing)."""
        return {
            "toeplitz": self.r2_toeplitz,
            "hankel": self.r2_hankel,
            "joint": self.r2_joint,
            "residual": self.residual_share,
        }


def _solve_singular(system: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Minimum-norm solution of the consistent, symmetric, singular system of toeplitz_hankel.

    Its null space always contains the constant vector and the alternating vector
    :math:`(-1)^s` (the matrices that are both Toeplitz and Hankel). Adding their projectors
    makes the system regular when there is nothing else in the null space (every grid with at
    least 3 rows and columns, as far as we use it), and the solution is then the pseudo-inverse
    one; otherwise fall back to an eigendecomposition.
    """
    size = system.shape[0]
    if size < 3:
        return np.linalg.pinv(system) @ rhs
    ones = np.full(size, 1.0 / np.sqrt(size))
    alternating = (-1.0) ** np.arange(size)
    alternating -= alternating @ ones * ones
    alternating /= np.linalg.norm(alternating)
    gauge = np.outer(ones, ones) + np.outer(alternating, alternating)
    scale = np.abs(system).max()
    try:
        h = np.linalg.solve(system + scale * gauge, rhs)
        if np.linalg.norm(system @ h - rhs) <= 1e-9 * (np.linalg.norm(rhs) + scale):
            return h - (h @ ones) * ones - (h @ alternating) * alternating
    except np.linalg.LinAlgError:
        pass
    eigenvalues, eigenvectors = np.linalg.eigh(system)
    keep = eigenvalues > eigenvalues.max() * size * np.finfo(np.float64).eps
    return eigenvectors[:, keep] @ ((eigenvectors[:, keep].T @ rhs) / eigenvalues[keep])


def toeplitz_hankel(g: ArrayLike, *, centered: bool = False) -> ToeplitzHankel:
    r"""Decompose ``g`` (``M x N``, rows :math:`m = 0 … M-1`, columns :math:`n = 0 … N-1`).

    Least squares over all cells:

    .. math::
        \min_{t, h} \sum_{m,n} \big(G_{mn} - t_{m-n} - h_{m+n}\big)^2 .

    The normal equations are :math:`c^T_a t_a + \sum_s C_{as} h_s = b^T_a` and
    :math:`\sum_a C_{as} t_a + c^H_s h_s = b^H_s`, with :math:`c^T, c^H` the cell counts of each
    diagonal and anti-diagonal, :math:`b^T, b^H` the sums of :math:`G` along them and
    :math:`C_{as} \in \{0, 1\}` whether diagonal :math:`a` meets anti-diagonal :math:`s` in a cell.
    Eliminating :math:`t` leaves the :math:`(M+N-1)`-square system
    :math:`(\operatorname{diag} c^H - C^\top \operatorname{diag}(1/c^T) C)\, h
    = b^H - C^\top (b^T/c^T)`, solved with its pseudo-inverse (it is singular: see
    :class:`ToeplitzHankel`); any solution gives the same ``fitted``.

    Parameters
    ----------
    g
        The matrix, e.g. :func:`posenc_lib.shift_invariance.position_bilinear` or measured
        attention scores.
    centered
        Subtract the grand mean of ``g`` before fitting and before computing the shares (a
        constant is both Toeplitz and Hankel, so it inflates both ``r2_toeplitz`` and
        ``r2_hankel``).
    """
    g = _check_matrix(g, "g")
    if not isinstance(centered, bool):
        raise TypeError(f"centered must be True or False, got {centered!r}")
    if centered:
        g = g - g.mean()
    shape = g.shape
    size = sum(shape) - 1
    idx_t, idx_h = _diagonal_index(shape)
    flat = g.ravel()
    count_t = np.bincount(idx_t, minlength=size).astype(np.float64)
    count_h = np.bincount(idx_h, minlength=size).astype(np.float64)
    sum_t = np.bincount(idx_t, flat, size)
    sum_h = np.bincount(idx_h, flat, size)
    cross = np.zeros((size, size))
    np.add.at(cross, (idx_t, idx_h), 1.0)
    system = np.diag(count_h) - cross.T @ (cross / count_t[:, None])
    rhs = sum_h - cross.T @ (sum_t / count_t)
    h = _solve_singular(system, rhs)
    t = (sum_t - cross @ h) / count_t
    toeplitz = t[idx_t].reshape(shape)
    hankel = h[idx_h].reshape(shape)
    fitted = toeplitz + hankel
    residual = g - fitted
    total = float(np.sum(g**2))
    if total == 0:
        raise ValueError("g is zero (after centering): its shares are undefined")
    t_only = toeplitz_projection(g)
    h_only = hankel_projection(g)
    r2_joint = float(np.sum(fitted**2)) / total
    return ToeplitzHankel(
        toeplitz_only=t_only,
        hankel_only=h_only,
        fitted=fitted,
        toeplitz=toeplitz,
        hankel=hankel,
        residual=residual,
        r2_toeplitz=float(np.sum(t_only**2)) / total,
        r2_hankel=float(np.sum(h_only**2)) / total,
        r2_joint=r2_joint,
        residual_share=float(np.sum(residual**2)) / total,
        centered=centered,
    )


# --------------------------------------------------------------------------------------------
# rotary scores (numeric)
# --------------------------------------------------------------------------------------------


def rotary_score_formula(
    q: ArrayLike, k: ArrayLike, delta: ArrayLike, base: float = 10000.0
) -> np.ndarray:
    r"""The rotary score from the closed form derived in :func:`rotary_derivation`.

    .. math::
        q_m^\top k_n = \sum_i \cos(\Delta\theta_i)\,(q_{2i}k_{2i} + q_{2i+1}k_{2i+1})
        + \sin(\Delta\theta_i)\,(q_{2i}k_{2i+1} - q_{2i+1}k_{2i}), \qquad \Delta = m - n .
    """
    q = _check_vector(q, "q")
    k = _check_vector(k, "k")
    if q.shape != k.shape:
        raise ValueError(f"q and k must have the same length, got {q.size} and {k.size}")
    base = check_base(base)
    theta = frequencies(q.size, base=base)
    phase = check_real_array(delta, "delta")[..., None] * theta
    dot = q[0::2] * k[0::2] + q[1::2] * k[1::2]
    cross = q[0::2] * k[1::2] - q[1::2] * k[0::2]
    return np.sum(np.cos(phase) * dot + np.sin(phase) * cross, axis=-1)


# --------------------------------------------------------------------------------------------
# symbolic (SymPy imported inside)
# --------------------------------------------------------------------------------------------


def _trig_coefficients(expr: Any, alpha: Any, beta: Any, angles: list[Any]) -> list[Any]:
    r"""Solve for :math:`c_k, s_k` with ``expr`` :math:`= \sum_k c_k\cos\phi_k + s_k\sin\phi_k`.

    ``angles`` :math:`\phi_k` are linear combinations of the atoms :math:`\alpha, \beta`. Both
    sides are expanded into monomials of :math:`\sin\alpha, \cos\alpha, \sin\beta, \cos\beta`
    and their coefficients matched; the linear system must have a unique solution.
    Returns ``[c_0, s_0, c_1, s_1, ...]``.
    """
    import sympy as sp

    unknowns = sp.symbols(f"c0:{2 * len(angles)}")
    model = sum(
        unknowns[2 * j] * sp.cos(phi) + unknowns[2 * j + 1] * sp.sin(phi)
        for j, phi in enumerate(angles)
    )
    sa, ca, sb, cb = sp.symbols("s_a c_a s_b c_b")
    atoms = {sp.sin(alpha): sa, sp.cos(alpha): ca, sp.sin(beta): sb, sp.cos(beta): cb}
    difference = sp.expand(sp.expand_trig(expr - model)).subs(atoms)
    equations = sp.Poly(difference, sa, ca, sb, cb).coeffs()
    solution = sp.solve(equations, unknowns, dict=True)
    if len(solution) != 1 or set(solution[0]) != set(unknowns):
        raise ArithmeticError("the coefficients are not uniquely determined")  # pragma: no cover
    return [sp.simplify(solution[0][u]) for u in unknowns]


@dataclass(frozen=True)
class BlockCrossTerm:
    r"""The cross term of one 2×2 block, :math:`u(\alpha)^\top B\, u(\beta)`, split by angle.

    With :math:`u(\varphi) = (\sin\varphi, \cos\varphi)` (interleaved layout),
    :math:`\alpha = m\theta_i`, :math:`\beta = n\theta_j`:

    .. math::
        u(\alpha)^\top B u(\beta) = c_-\cos(\alpha-\beta) + s_-\sin(\alpha-\beta)
        + c_+\cos(\alpha+\beta) + s_+\sin(\alpha+\beta).

    ``block`` is :math:`B` (symbols :math:`h_{00}, h_{01}, h_{10}, h_{11}`), ``expr`` the
    product, ``difference`` :math:`(c_-, s_-)` and ``sum`` :math:`(c_+, s_+)` the derived
    coefficients, ``residual`` the simplified ``expr`` minus the recombination (zero),
    ``relative_condition`` the solution of :math:`c_+ = s_+ = 0` for the entries of :math:`B`.
    """

    alpha: Any
    beta: Any
    block: Any
    expr: Any
    difference: tuple[Any, Any]
    sum: tuple[Any, Any]
    residual: Any
    relative_condition: dict[Any, Any]

    @property
    def difference_part(self) -> Any:
        import sympy as sp

        c, s = self.difference
        return c * sp.cos(self.alpha - self.beta) + s * sp.sin(self.alpha - self.beta)

    @property
    def sum_part(self) -> Any:
        import sympy as sp

        c, s = self.sum
        return c * sp.cos(self.alpha + self.beta) + s * sp.sin(self.alpha + self.beta)


def block_cross_term(block: Any = None) -> BlockCrossTerm:
    r"""Expand :math:`u(\alpha)^\top B\,u(\beta)` by product-to-sum, solving for the coefficients.

    Parameters
    ----------
    block
        A 2×2 SymPy matrix; default the general :math:`B = (h_{ab})` with real symbols. Rows and
        columns are in (sin, cos) order.
    """
    import sympy as sp

    if block is None:
        block = sp.Matrix(2, 2, sp.symbols("h_00 h_01 h_10 h_11", real=True))
    elif not isinstance(block, sp.MatrixBase) or block.shape != (2, 2):
        raise TypeError(f"block must be a 2x2 sympy Matrix, got {block!r}")
    alpha, beta = sp.symbols("alpha beta", real=True)
    u = lambda phi: sp.Matrix([sp.sin(phi), sp.cos(phi)])  # noqa: E731
    expr = sp.expand((u(alpha).T * block * u(beta))[0, 0])
    c_minus, s_minus, c_plus, s_plus = _trig_coefficients(
        expr, alpha, beta, [alpha - beta, alpha + beta]
    )
    recombined = (
        c_minus * sp.cos(alpha - beta)
        + s_minus * sp.sin(alpha - beta)
        + c_plus * sp.cos(alpha + beta)
        + s_plus * sp.sin(alpha + beta)
    )
    residual = sp.simplify(sp.expand_trig(expr - recombined))
    free = sorted(block.free_symbols, key=str)
    condition = sp.solve([c_plus, s_plus], free, dict=True) if free else []
    return BlockCrossTerm(
        alpha=alpha,
        beta=beta,
        block=block,
        expr=expr,
        difference=(c_minus, s_minus),
        sum=(c_plus, s_plus),
        residual=residual,
        relative_condition=condition[0] if condition else {},
    )


@dataclass(frozen=True)
class DiagonalCrossTerm:
    r"""The cross term of one pair for a diagonal :math:`H`.

    :math:`h_s \sin m\theta\sin n\theta + h_c\cos m\theta\cos n\theta` (interleaved layout).

    ``relative_part`` is :math:`\tfrac12(h_s + h_c)\cos((m-n)\theta)`, ``absolute_part``
    :math:`\tfrac12(h_c - h_s)\cos((m+n)\theta)` (both derived, see :func:`block_cross_term`),
    ``residual`` the simplified difference (zero), ``vanishing_condition`` the solution of
    "absolute part = 0" (:math:`h_c = h_s`).
    """

    m: Any
    n: Any
    theta: Any
    h_sin: Any
    h_cos: Any
    expr: Any
    relative_part: Any
    absolute_part: Any
    residual: Any
    vanishing_condition: dict[Any, Any]


def diagonal_cross_term() -> DiagonalCrossTerm:
    r"""Product-to-sum for a diagonal :math:`H` on one frequency pair (interleaved layout)."""
    import sympy as sp

    m, n = sp.symbols("m n", integer=True)
    theta = sp.Symbol("theta", positive=True)
    h_sin, h_cos = sp.symbols("h_s h_c", real=True)
    general = block_cross_term(sp.diag(h_sin, h_cos))
    at = {general.alpha: m * theta, general.beta: n * theta}
    relative = general.difference_part.subs(at)
    absolute = general.sum_part.subs(at)
    expr = h_sin * sp.sin(m * theta) * sp.sin(n * theta) + h_cos * sp.cos(m * theta) * sp.cos(
        n * theta
    )
    residual = sp.simplify(sp.expand_trig(expr - relative - absolute))
    condition = sp.solve(sp.simplify(general.sum[0]), h_cos, dict=True)
    return DiagonalCrossTerm(
        m=m,
        n=n,
        theta=theta,
        h_sin=h_sin,
        h_cos=h_cos,
        expr=expr,
        relative_part=sp.factor_terms(relative),
        absolute_part=sp.factor_terms(absolute),
        residual=residual,
        vanishing_condition=condition[0],
    )


@dataclass(frozen=True)
class BlockCommutation:
    r"""The shift condition :math:`M(\theta_a)^\top B\, M(\theta_b) = B` on one block.

    :math:`p_{m+1} = M_1 p_m` with :math:`M_1` block diagonal; ``shift`` is its 2×2 block
    :math:`M(\theta)` in (sin, cos) order (derived from the angle-addition formulas). The form
    :math:`p_m^\top H p_n` is relative exactly when :math:`M_1^\top H M_1 = H` (if the
    :math:`p_m` span :math:`\mathbb R^d`), i.e. block by block
    :math:`M(\theta_i)^\top H_{ij} M(\theta_j) = H_{ij}`. This linear map of the four entries of
    :math:`B` minus the identity is ``operator`` (4×4, acting on :math:`(b_{00}, b_{01}, b_{10},
    b_{11})`); ``determinant`` is its factored determinant.

    At equal angles :math:`\theta_a = \theta_b = \theta` the operator is ``operator_equal``;
    ``kernel_equal`` is a basis of its null space computed for a generic :math:`\theta`, and,
    to make the statement hold for *every* :math:`\theta`, ``minor_equal`` is the 2×2 minor on
    rows and columns 0, 1 (:math:`\sin^2\theta`) and ``kills_rotations`` says whether
    ``operator_equal`` maps :math:`I` and :math:`J` to zero identically. Together: for
    :math:`\sin\theta \ne 0` the rank is at least 2 and :math:`I, J` span the kernel; for
    :math:`\sin\theta = 0` the minor vanishes.
    """

    theta_a: Any
    theta_b: Any
    shift: Any
    operator: Any
    determinant: Any
    operator_equal: Any
    kernel_equal: list[Any]
    minor_equal: Any
    kills_rotations: bool


def block_commutation() -> BlockCommutation:
    r"""Derive the shift operator on a 2×2 block and its determinant (SymPy)."""
    import sympy as sp

    phi = sp.Symbol("phi", real=True)
    theta_a, theta_b = sp.symbols("theta_a theta_b", real=True)
    theta = sp.Symbol("theta", real=True)
    # M(theta): the matrix with u(phi + theta) = M u(phi), read off the angle-addition formulas.
    shifted = sp.expand_trig(sp.Matrix([sp.sin(phi + theta), sp.cos(phi + theta)]))
    basis = [sp.sin(phi), sp.cos(phi)]
    shift = sp.Matrix(2, 2, lambda r, c: sp.expand(shifted[r]).coeff(basis[c]))
    entries = sp.symbols("b_00 b_01 b_10 b_11", real=True)
    block = sp.Matrix(2, 2, entries)
    image = shift.subs(theta, theta_a).T * block * shift.subs(theta, theta_b) - block
    operator = sp.Matrix(4, 4, lambda r, c: sp.expand(image[r]).coeff(entries[c]))
    determinant = sp.factor(sp.trigsimp(sp.simplify(operator.det())))
    at_equal = sp.simplify(operator.subs(theta_b, theta_a))
    kernel = [sp.Matrix(2, 2, list(sp.simplify(v))) for v in at_equal.nullspace(simplify=True)]
    minor = sp.factor(sp.trigsimp(sp.simplify(at_equal[:2, :2].det())))
    rotations = (sp.Matrix([1, 0, 0, 1]), sp.Matrix([0, -1, 1, 0]))  # I and J, flattened
    kills = all(sp.simplify(at_equal * v) == sp.zeros(4, 1) for v in rotations)
    return BlockCommutation(
        theta_a=theta_a,
        theta_b=theta_b,
        shift=shift,
        operator=operator,
        determinant=determinant,
        operator_equal=at_equal,
        kernel_equal=kernel,
        minor_equal=minor,
        kills_rotations=kills,
    )


@dataclass(frozen=True)
class RotaryDerivation:
    r"""The rotary score on one pair, derived.

    ``score`` is :math:`(R(m\theta)q)^\top(R(n\theta)k)`; ``difference_form`` is
    :math:`q^\top R((n-m)\theta) k` and ``residual_rotation`` the simplified difference of the
    two (zero); ``cos_coefficient`` and ``sin_coefficient`` are derived so that
    ``score`` :math:`= c\cos((m-n)\theta) + s\sin((m-n)\theta)` (``residual`` zero);
    ``seed_form`` is the form without sine term, :math:`\langle q,k\rangle\cos((m-n)\theta)`,
    and ``seed_error`` its difference from ``score``; ``complex_score`` is
    :math:`\operatorname{Re}[\tilde q e^{\mathrm i m\theta}
    \,\overline{\tilde k e^{\mathrm i n\theta}}]`
    with :math:`\tilde q = q_0 + \mathrm i q_1` (``complex_residual`` zero), and
    ``no_conjugate`` the product without the conjugate,
    :math:`\tilde q e^{\mathrm i m\theta}\tilde k e^{\mathrm i n\theta}`.
    """

    q: Any
    k: Any
    m: Any
    n: Any
    theta: Any
    score: Any
    difference_form: Any
    residual_rotation: Any
    cos_coefficient: Any
    sin_coefficient: Any
    residual: Any
    seed_form: Any
    seed_error: Any
    complex_score: Any
    complex_residual: Any
    no_conjugate: Any


def rotary_derivation() -> RotaryDerivation:
    r"""Derive :math:`q_m^\top k_n` for rotary embeddings on one pair (SymPy)."""
    import sympy as sp

    m, n = sp.symbols("m n", integer=True)
    theta = sp.Symbol("theta", positive=True)
    q0, q1, k0, k1 = sp.symbols("q_0 q_1 k_0 k_1", real=True)
    q, k = sp.Matrix([q0, q1]), sp.Matrix([k0, k1])

    def rot(phi: Any) -> Any:
        return sp.Matrix([[sp.cos(phi), -sp.sin(phi)], [sp.sin(phi), sp.cos(phi)]])

    alpha, beta = sp.symbols("alpha beta", real=True)  # alpha = m theta, beta = n theta
    score_ab = sp.expand(((rot(alpha) * q).T * (rot(beta) * k))[0, 0])
    c, s = _trig_coefficients(score_ab, alpha, beta, [alpha - beta])
    at = {alpha: m * theta, beta: n * theta}
    score = score_ab.subs(at)
    difference_form = sp.expand((q.T * rot((n - m) * theta) * k)[0, 0])
    residual_rotation = sp.simplify(sp.expand_trig(score - difference_form))
    delta_angle = (m - n) * theta
    recombined = c * sp.cos(delta_angle) + s * sp.sin(delta_angle)
    residual = sp.simplify(sp.expand_trig(score - recombined))
    seed_form = (q0 * k0 + q1 * k1) * sp.cos(delta_angle)
    seed_error = sp.simplify(sp.expand_trig(score - seed_form))
    seed_error = sp.simplify(sp.trigsimp(seed_error))
    zq, zk = q0 + sp.I * q1, k0 + sp.I * k1
    complex_score = sp.re(
        sp.expand(zq * sp.exp(sp.I * m * theta) * sp.conjugate(zk * sp.exp(sp.I * n * theta)))
    )
    complex_residual = sp.simplify(sp.expand_trig(sp.expand_complex(complex_score) - score))
    no_conjugate = sp.expand(zq * sp.exp(sp.I * m * theta) * zk * sp.exp(sp.I * n * theta))
    return RotaryDerivation(
        q=q,
        k=k,
        m=m,
        n=n,
        theta=theta,
        score=score,
        difference_form=difference_form,
        residual_rotation=residual_rotation,
        cos_coefficient=c,
        sin_coefficient=s,
        residual=residual,
        seed_form=seed_form,
        seed_error=seed_error,
        complex_score=complex_score,
        complex_residual=complex_residual,
        no_conjugate=no_conjugate,
    )
