r"""The least-squares split of a matrix on a grid of positions into Toeplitz and Hankel parts.

Chapter 6 asks how much of a measured :math:`G_{mn}` (for instance :math:`p_m^\top H p_n` or an
attention-logit surface) is a function of :math:`m - n` and how much a function of
:math:`m + n`: :func:`toeplitz_hankel` fits :math:`G_{mn} \approx t(m - n) + h(m + n)` by least
squares, :func:`toeplitz_projection` and :func:`hankel_projection` fit each part alone. The
chapter's symbolic derivations run in its own cells.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ._validation import check_matrix as _check_matrix

__all__ = ["ToeplitzHankel", "hankel_projection", "toeplitz_hankel", "toeplitz_projection"]


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
