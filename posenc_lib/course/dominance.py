r"""How much of a matrix sits on its diagonal, with random-basis baselines (chapter 7).

"The covariance is diagonally dominant" is a claim about a basis. :func:`diagonal_dominance`
measures it four ways; :func:`expected_rotated_diagonal_share` and
:func:`rotated_diagonal_shares` give what the same spectrum shows in a random basis, the
baseline that tells whether the diagonal of this basis is special.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_count, check_matrix
from ..layouts import pair_columns
from ._checks import check_rng
from .shift_invariance import relative_projection

__all__ = [
    "DiagonalDominance",
    "diagonal_dominance",
    "expected_rotated_diagonal_share",
    "rotated_diagonal_shares",
]


@dataclass(frozen=True)
class DiagonalDominance:
    r"""How much of a square matrix :math:`H` sits on its diagonal, by four metrics.

    ``diagonal_share``
        :math:`\sum_j H_{jj}^2 / \|H\|_F^2`; 1 for a diagonal matrix, :math:`1/d` expected for
        i.i.d. entries.
    ``block_share``
        The same for the 2×2 blocks of the encoding's pairs; :math:`2/d` for i.i.d. entries.
    ``relative_share``
        :math:`\|\bar H\|_F^2/\|H\|_F^2` with :math:`\bar H` =
        :func:`posenc_lib.course.shift_invariance.relative_projection`: the part of :math:`H` that
        :math:`p_m^\top H p_n` sees as a function of :math:`m - n`; :math:`1/d` for i.i.d.
        entries.
    ``dominant_rows``
        Fraction of rows with :math:`|H_{jj}| > \sum_{k\ne j}|H_{jk}|` (classical strict diagonal
        dominance); essentially 0 for i.i.d. entries once :math:`d` is moderate.
    ``dim``
        :math:`d`.
    """

    diagonal_share: float
    block_share: float
    relative_share: float
    dominant_rows: float
    dim: int

    def iid_baseline(self) -> dict[str, float]:
        """Expected ``diagonal_share``, ``block_share``, ``relative_share`` for i.i.d. entries."""
        d = self.dim
        return {
            "diagonal_share": 1.0 / d,
            "block_share": 2.0 / d,
            "relative_share": 1.0 / d,
        }


def _frobenius_squared(c: np.ndarray, name: str) -> float:
    total = float(np.sum(c**2))
    if total == 0:
        raise ValueError(
            f"{name} must be a non-zero matrix (its shares are ratios), got zeros"
        )
    return total


def diagonal_dominance(
    h: ArrayLike, *, layout: str = "interleaved"
) -> DiagonalDominance:
    r"""The metrics of :class:`DiagonalDominance` for a square ``d x d`` matrix (``d`` even).

    Parameters
    ----------
    h : array_like
        :math:`H`, non-zero, ``d x d`` with ``d`` even.
    layout : str
        The layout whose pairs define the 2×2 blocks, one of :data:`posenc_lib.LAYOUTS`.

    Returns
    -------
    DiagonalDominance
        The four metrics and :math:`d`.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.course.dominance import diagonal_dominance
    >>> m = diagonal_dominance(np.diag([3.0, 1.0, 1.0, 1.0]))
    >>> print(f"{m.diagonal_share:.3f} {m.relative_share:.3f} {m.dominant_rows:.3f}")
    1.000 0.833 1.000
    """
    h = check_matrix(h, "h", even=True)
    total = _frobenius_squared(h, "h")
    sin_col, cos_col = pair_columns(h.shape[0], layout=layout)
    block = float(
        np.sum(h[sin_col, sin_col] ** 2)
        + np.sum(h[cos_col, cos_col] ** 2)
        + np.sum(h[sin_col, cos_col] ** 2)
        + np.sum(h[cos_col, sin_col] ** 2)
    )
    diag = np.abs(np.diag(h))
    off = np.abs(h).sum(axis=1) - diag
    return DiagonalDominance(
        diagonal_share=float(np.sum(diag**2)) / total,
        block_share=block / total,
        relative_share=float(np.sum(relative_projection(h, layout=layout) ** 2))
        / total,
        dominant_rows=float(np.mean(diag > off)),
        dim=h.shape[0],
    )


def expected_rotated_diagonal_share(c: ArrayLike) -> float:
    r"""Expected diagonal share of :math:`Q C Q^\top` for a uniformly random rotation :math:`Q`.

    A baseline for "is the diagonal of :math:`C` special in this basis?": it keeps the spectrum
    and forgets the basis. For a row :math:`q` uniform on the unit sphere of :math:`\mathbb R^d`,
    :math:`\mathbb E[(q^\top C q)^2] = [(\operatorname{tr} C)^2 + \operatorname{tr}(C^2)
    + \operatorname{tr}(C C^\top)]/(d(d+2))`, so

    .. math::
        \mathbb E\Big[\frac{\sum_j (QCQ^\top)_{jj}^2}{\|C\|_F^2}\Big]
        = \frac{(\operatorname{tr} C)^2 + \operatorname{tr}(C^2) + \|C\|_F^2}{(d+2)\,\|C\|_F^2},

    which for a symmetric :math:`C` is :math:`[(\operatorname{tr} C)^2/\|C\|_F^2 + 2]/(d+2)`:
    about the effective rank divided by :math:`d`.

    Parameters
    ----------
    c : array_like
        A non-zero square matrix.

    Returns
    -------
    float
        The expected share.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.course.dominance import expected_rotated_diagonal_share
    >>> expected_rotated_diagonal_share(np.eye(6))  # (36/6 + 2)/8: the identity stays diagonal
    1.0
    """
    c = check_matrix(c, "c", square=True)
    frob = _frobenius_squared(c, "c")
    d = c.shape[0]
    return (float(np.trace(c)) ** 2 + float(np.trace(c @ c)) + frob) / ((d + 2) * frob)


def rotated_diagonal_shares(
    c: ArrayLike, n_samples: int, rng: np.random.Generator
) -> np.ndarray:
    r"""Diagonal shares of :math:`Q C Q^\top` for ``n_samples`` Haar-random rotations :math:`Q`.

    The Monte-Carlo counterpart of :func:`expected_rotated_diagonal_share`. :math:`Q` is the QR
    factor of a Gaussian matrix with the signs of :math:`R`'s diagonal moved into it, which makes
    it Haar-distributed.

    Parameters
    ----------
    c : array_like
        A non-zero square matrix.
    n_samples : int
        The number of rotations, at least 1.
    rng : numpy.random.Generator
        The source of randomness.

    Returns
    -------
    numpy.ndarray
        float64 of length ``n_samples``.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.course.dominance import rotated_diagonal_shares
    >>> c = np.diag([1.0, 0.0, 0.0, 0.0])
    >>> shares = rotated_diagonal_shares(c, 2000, np.random.default_rng(0))
    >>> print(f"{shares.mean():.2f} (expected (1 + 2)/6 = 0.50)")
    0.50 (expected (1 + 2)/6 = 0.50)
    """
    c = check_matrix(c, "c", square=True)
    n_samples = check_count(n_samples, "n_samples", 1)
    rng = check_rng(rng)
    frob = _frobenius_squared(c, "c")
    out = np.empty(n_samples)
    for s in range(n_samples):
        q, r = np.linalg.qr(rng.standard_normal(c.shape))
        q = q * np.sign(np.diag(r))
        out[s] = float(np.sum(np.diag(q @ c @ q.T) ** 2)) / frob
    return out
