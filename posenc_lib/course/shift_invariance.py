r"""Forms of two positions that depend on :math:`m - n` only: measuring it and projecting onto it.

The derivation of the sinusoidal encoding assumes :math:`H = I` in the cross term
:math:`p_m^\top H p_n`; chapter 7 asks which :math:`H` keep the form *relative*, a function of
:math:`m - n` alone. On a grid of positions the form is the matrix
:math:`G_{mn} = p_m^\top H p_n` (:func:`position_bilinear`), and it is relative exactly when
:math:`G` is constant along its diagonals, a Toeplitz matrix (:func:`toeplitz_defect`,
:func:`shift_defect`).

Notation: pair :math:`i` has frequency :math:`\theta_i` and, in the interleaved layout,
coordinates :math:`(2i, 2i+1)` holding :math:`(\sin m\theta_i, \cos m\theta_i)`;
:math:`J = \begin{pmatrix} 0 & -1 \\ 1 & 0 \end{pmatrix}` generates rotations,
:math:`R(\varphi) = \cos\varphi\, I + \sin\varphi\, J`. For distinct frequencies in
:math:`(0, \pi)` the relative :math:`H` are exactly those whose diagonal pair blocks are
:math:`a_i I + b_i J` and whose other blocks vanish (chapter 7): :func:`relative_projection`
keeps that part of any :math:`H`, :func:`random_relative_matrix` draws one. Rotary embeddings are
relative by construction (:func:`rotary_scores`).

For a measured matrix (a grid :math:`p_m^\top H p_n`, an attention-logit surface) the question is
how much of it is a function of :math:`m - n` and how much a function of :math:`m + n`:
:func:`toeplitz_hankel` fits :math:`G_{mn} \approx t(m - n) + h(m + n)` by least squares,
jointly and each part alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validation import (
    check_broadcast,
    check_count,
    check_dim,
    check_matrix,
    check_real_array,
    check_vector,
    describe,
)
from ..encoding import frequencies, sinusoidal
from ..layouts import pair_columns
from ._checks import check_rng

__all__ = [
    "ToeplitzHankel",
    "position_bilinear",
    "random_relative_matrix",
    "relative_projection",
    "rotary_scores",
    "shift_defect",
    "toeplitz_defect",
    "toeplitz_hankel",
]


def toeplitz_defect(g: ArrayLike) -> float:
    r"""How far an array is from being constant along the diagonals of its first two axes.

    .. math::
        \frac{\max |G_{m+1,n+1} - G_{m,n}|}{\max |G_{m,n}|},

    with the maxima over every index (trailing axes, if any, included) and moduli for complex
    entries; 0 for an all-zero array. Applied to a Gram matrix :math:`G = PP^\top` or
    :math:`G = PHP^\top` of a table :math:`P`, it is zero (to round-off) exactly when the form
    depends on the positions only through :math:`m - n` on the grid.

    Parameters
    ----------
    g : array_like
        Real or complex, with at least two axes of length at least 2.

    Returns
    -------
    float
        The relative defect, 0 for a Toeplitz array.

    Examples
    --------
    >>> import numpy as np
    >>> import posenc_lib as pe
    >>> from posenc_lib.course.shift_invariance import toeplitz_defect
    >>> p = pe.sinusoidal(16, 8)
    >>> bool(toeplitz_defect(p @ p.T) < 1e-12)
    True
    >>> print(f"{toeplitz_defect(np.outer(np.arange(4.0), np.arange(4.0))):.4f}")  # 5/9
    0.5556
    """
    array = np.asarray(g)
    if array.ndim < 2 or min(array.shape[:2]) < 2:
        accepted = "an array with two axes of length >= 2 first"
        raise ValueError(f"g must be {accepted}, got {describe(array)}")
    scale = np.abs(array).max()
    if scale == 0:
        return 0.0
    return float(np.abs(array[1:, 1:] - array[:-1, :-1]).max() / scale)


def position_bilinear(
    h: ArrayLike,
    positions: ArrayLike | int,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
) -> np.ndarray:
    r"""The matrix :math:`G_{mn} = p_m^\top H p_n` over a grid of positions.

    Parameters
    ----------
    h : array_like
        :math:`H`, ``d x d`` with ``d`` even.
    positions : int or array_like
        Positions :math:`m` and :math:`n` (an int ``L`` means ``0 … L-1``).
    base : float
        The base of the sinusoidal encoding :math:`p`.
    layout : str
        Its layout, one of :data:`posenc_lib.LAYOUTS`.

    Returns
    -------
    numpy.ndarray
        float64 of shape ``(len(positions), len(positions))``.

    Examples
    --------
    >>> import numpy as np
    >>> import posenc_lib as pe
    >>> from posenc_lib.course.shift_invariance import position_bilinear
    >>> g = position_bilinear(np.eye(8), 5)
    >>> bool(np.allclose(g[3, 1], 4 * pe.kernel(2.0, 8)))
    True
    """
    h = check_matrix(h, "h", even=True)
    dim = h.shape[0]
    p = sinusoidal(positions, dim, base=base, layout=layout)
    return p @ h @ p.T


def shift_defect(
    h: ArrayLike, length: int, *, base: float = 10000.0, layout: str = "interleaved"
) -> float:
    r"""How far :math:`p_m^\top H p_n` is from depending on :math:`m - n` only, on a grid.

    .. math::
        \frac{\max_{m,n} |G_{m+1,n+1} - G_{m,n}|}{\max_{m,n} |G_{m,n}|},
        \qquad 0 \le m, n < L - 1,

    the :func:`toeplitz_defect` of :func:`position_bilinear`; zero (to round-off) exactly when
    :math:`G` is constant along every diagonal of the grid.

    Parameters
    ----------
    h : array_like
        :math:`H`, ``d x d`` with ``d`` even.
    length : int
        :math:`L \ge 2`, the positions ``0 … L-1``.
    base, layout
        As in :func:`position_bilinear`.

    Returns
    -------
    float
        The relative defect of the grid :math:`G_{mn}`, :math:`0 \le m, n < L`; 0 for a
        relative form.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.course.shift_invariance import shift_defect
    >>> bool(shift_defect(np.eye(8), 32) < 1e-12)
    True
    >>> bool(shift_defect(np.diag([1.0, 2.0] * 4), 32) > 0.1)  # h_sin != h_cos
    True
    """
    length = check_count(length, "length", 2)
    return toeplitz_defect(position_bilinear(h, length, base=base, layout=layout))


def relative_projection(h: ArrayLike, *, layout: str = "interleaved") -> np.ndarray:
    r"""The nearest (Frobenius) :math:`\bar H` whose form :math:`p_m^\top \bar H p_n` is relative.

    The projection keeps, in each diagonal pair block :math:`B` (rows and columns in
    (sin, cos) order),

    .. math:: a = \tfrac12 (B_{00} + B_{11}), \qquad b = \tfrac12 (B_{10} - B_{01}),

    as :math:`a I + b J`, and sets everything else to zero. Then
    :math:`p_m^\top \bar H p_n = \sum_i a_i\cos(\Delta\theta_i) - b_i\sin(\Delta\theta_i)`,
    :math:`\Delta = m - n`.

    Parameters
    ----------
    h : array_like
        :math:`H`, ``d x d`` with ``d`` even.
    layout : str
        The layout in which :math:`H` acts, one of :data:`posenc_lib.LAYOUTS`.

    Returns
    -------
    numpy.ndarray
        :math:`\bar H`, float64 of the shape of ``h``.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.course.shift_invariance import relative_projection
    >>> relative_projection(np.array([[1.0, 2.0], [4.0, 3.0]]))
    array([[ 2., -1.],
           [ 1.,  2.]])
    """
    h = check_matrix(h, "h", even=True)
    sin_col, cos_col = pair_columns(h.shape[0], layout=layout)
    a = 0.5 * (h[sin_col, sin_col] + h[cos_col, cos_col])
    b = 0.5 * (h[cos_col, sin_col] - h[sin_col, cos_col])
    out = np.zeros_like(h)
    out[sin_col, sin_col] = a
    out[cos_col, cos_col] = a
    out[cos_col, sin_col] = b
    out[sin_col, cos_col] = -b
    return out


def random_relative_matrix(
    dim: int, rng: np.random.Generator, *, layout: str = "interleaved"
) -> np.ndarray:
    r"""A random relative :math:`H`: pair blocks :math:`a_i I + b_i J`, zero elsewhere.

    :math:`a_i, b_i` are independent standard normal.

    Parameters
    ----------
    dim : int
        :math:`d`, a positive even integer.
    rng : numpy.random.Generator
        The source of randomness.
    layout : str
        One of :data:`posenc_lib.LAYOUTS`.

    Returns
    -------
    numpy.ndarray
        float64 of shape ``(dim, dim)``.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.course.shift_invariance import random_relative_matrix, shift_defect
    >>> h = random_relative_matrix(8, np.random.default_rng(0))
    >>> bool(shift_defect(h, 32) < 1e-12)
    True
    """
    dim = check_dim(dim)
    rng = check_rng(rng)
    # the projection averages two standard normals: rescale so that a_i, b_i have variance 1
    return relative_projection(
        rng.standard_normal((dim, dim)), layout=layout
    ) * np.sqrt(2.0)


def rotary_scores(
    q: ArrayLike, k: ArrayLike, m: ArrayLike, n: ArrayLike, *, base: float = 10000.0
) -> np.ndarray:
    r"""The rotary score :math:`(\mathcal R_m q)^\top (\mathcal R_n k)`, computed by rotating.

    :math:`\mathcal R_m` rotates pair :math:`i` of a vector, :math:`(x_{2i}, x_{2i+1})`, by
    :math:`R(m\theta_i)`, :math:`\theta_i = b^{-2i/h}` with :math:`h` the length of ``q``
    (the convention of :class:`posenc_lib.nn.RotaryEmbedding`). Since rotations compose,
    :math:`R(m\theta)^\top R(n\theta) = R((n - m)\theta)`: the score depends on :math:`m - n`
    only.

    Parameters
    ----------
    q, k : array_like
        1-D arrays of one even length :math:`h`.
    m, n : float or array_like
        Query and key positions, broadcasting against each other.
    base : float
        :math:`b > 1`.

    Returns
    -------
    numpy.ndarray
        float64 of the broadcast shape of ``m`` and ``n``.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.course.shift_invariance import rotary_scores
    >>> q, k = np.array([1.0, 0.0, 0.5, 0.5]), np.array([0.0, 1.0, 1.0, 0.0])
    >>> s = rotary_scores(q, k, [3.0, 10.0], [1.0, 8.0])
    >>> bool(np.isclose(s[0], s[1]))
    True
    """
    q = check_vector(q, "q", even=True)
    k = check_vector(k, "k", even=True)
    if q.shape != k.shape:
        raise ValueError(f"k must have the length of q, {q.size}, got {describe(k)}")
    theta = frequencies(q.size, base=base)
    m_checked, n_checked = check_real_array(m, "m"), check_real_array(n, "n")
    m_arr, n_arr = check_broadcast(m_checked, n_checked, ("m", "n"))

    def rotate(x: np.ndarray, pos: np.ndarray) -> np.ndarray:
        phase = pos[..., None] * theta
        c, s = np.cos(phase), np.sin(phase)
        x0, x1 = x[0::2], x[1::2]
        return np.stack((c * x0 - s * x1, s * x0 + c * x1), axis=-1)

    return np.sum(rotate(q, m_arr) * rotate(k, n_arr), axis=(-2, -1))


# --------------------------------------------------------------------------------------------
# Toeplitz + Hankel split of a measured matrix
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
    r"""Split a matrix on a grid of positions into a function of :math:`m - n` and of :math:`m + n`.

    Least squares over all cells of ``g`` (``M x N``, rows :math:`m = 0 … M-1`, columns
    :math:`n = 0 … N-1`):

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
    g : array_like
        A 2-D array of finite reals, e.g. :func:`position_bilinear` or measured attention scores.
    centered : bool
        Subtract the grand mean of ``g`` before fitting and before computing the shares (a
        constant is both Toeplitz and Hankel, so it inflates both ``r2_toeplitz`` and
        ``r2_hankel``).

    Returns
    -------
    ToeplitzHankel
        The fits, the residual and the shares of :math:`\|G\|_F^2` each explains.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.course.shift_invariance import position_bilinear, toeplitz_hankel
    >>> split = toeplitz_hankel(position_bilinear(np.diag([1.0, 3.0, 2.0, 2.0]), 12))
    >>> bool(split.residual_share < 1e-20)  # a diagonal H: difference and sum parts only
    True
    >>> m, n = np.indices((5, 5))
    >>> bool(toeplitz_hankel(m * n).residual_share < 1e-20)  # mn = ((m+n)^2 - (m-n)^2) / 4
    True
    """
    g = check_matrix(g, "g")
    if centered:
        g = g - g.mean()
    total = float(np.sum(g**2))
    if total == 0:
        accepted = (
            "a non-constant matrix (centered=True)" if centered else "a nonzero matrix"
        )
        given = "a constant one" if centered else "an all-zero one"
        raise ValueError(f"g must be {accepted}, got {given}")
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
    t_only = _group_means(g, idx_t)
    h_only = _group_means(g, idx_h)
    return ToeplitzHankel(
        toeplitz_only=t_only,
        hankel_only=h_only,
        fitted=fitted,
        toeplitz=toeplitz,
        hankel=hankel,
        residual=residual,
        r2_toeplitz=float(np.sum(t_only**2)) / total,
        r2_hankel=float(np.sum(h_only**2)) / total,
        r2_joint=float(np.sum(fitted**2)) / total,
        residual_share=float(np.sum(residual**2)) / total,
        centered=centered,
    )
