r"""Distances between sinusoidal encodings: how far apart the encodings of two positions are.

Because every pair :math:`(\sin m\theta_i, \cos m\theta_i)` lies on the unit circle,

.. math:: \|p_{m+\Delta} - p_m\|^2 = \sum_i 2\bigl(1 - \cos(\Delta\theta_i)\bigr)
          = 4\sum_i \sin^2(\Delta\theta_i/2) = d\,\bigl(1 - \kappa(\Delta)\bigr),

which depends on the offset :math:`\Delta` only, not on :math:`m`. The closest pair of distinct
positions among :math:`0,\dots,L-1` is therefore found by scanning the :math:`L-1` offsets instead
of the :math:`L(L-1)/2` pairs. The half-angle form is used because it has no cancellation for
small :math:`\Delta\theta_i`.

:func:`separation_bound` is the matching upper bound from Dirichlet's simultaneous approximation
theorem: distinct integer positions never collide, yet their closest pair gets arbitrarily close
as :math:`L` grows, for every :math:`d` and base.
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike

from ._validation import check_dim, check_positions, check_real_array
from .encoding import frequencies, sinusoidal

#: Elements of the (offsets x frequencies) angle block evaluated at once; bounds memory to ~32 MiB.
_CHUNK_ELEMENTS = 1 << 22


def _check_length(length: object) -> None:
    """Raise unless ``length`` is an integer >= 2 (a number of positions)."""
    if isinstance(length, bool) or not isinstance(length, numbers.Integral):
        raise TypeError(
            f"length must be an integer >= 2 (a number of positions), got "
            f"{type(length).__name__} {length!r}"
        )
    if length < 2:
        raise ValueError(f"length must be an integer >= 2 (two distinct positions), got {length}")


def offset_distance(
    delta: ArrayLike, dim: int, base: float = 10000.0, spacing: str = "2i/d"
) -> np.ndarray:
    r"""Euclidean distance :math:`\|p_{m+\Delta} - p_m\|` between encodings an offset apart.

    .. math:: \|p_{m+\Delta} - p_m\| = 2\sqrt{\textstyle\sum_{i=0}^{d/2-1} \sin^2(\Delta\theta_i/2)}

    The same for every :math:`m` (and every layout, which only permutes coordinates).

    Parameters
    ----------
    delta
        Offsets :math:`\Delta`, a scalar or an array of any shape of finite reals.
    dim, base, spacing
        As in :func:`posenc_lib.frequencies`.

    Returns
    -------
    numpy.ndarray
        float64, the shape of ``delta``; it lies between 0 and :math:`2\sqrt{d/2}`.
    """
    theta = frequencies(dim, base, spacing)
    offsets = check_real_array(delta, "delta")
    flat = offsets.ravel()
    out = np.empty(flat.shape, dtype=np.float64)
    step = max(1, _CHUNK_ELEMENTS // theta.size)
    for start in range(0, flat.size, step):
        half = 0.5 * np.multiply.outer(flat[start : start + step], theta)
        out[start : start + step] = 2.0 * np.sqrt(np.square(np.sin(half)).sum(axis=1))
    return out.reshape(offsets.shape)


def pairwise_distances(
    positions: ArrayLike | int, dim: int, base: float = 10000.0, spacing: str = "2i/d"
) -> np.ndarray:
    r"""The matrix :math:`D_{mn} = \|p_m - p_n\|` computed directly from the encoding table.

    A brute-force reference (coordinate differences, one row at a time, no Gram-matrix shortcut)
    against which :func:`offset_distance` can be checked. Cost :math:`O(L^2 d)`.

    Parameters
    ----------
    positions
        An int ``L`` (positions ``0 … L-1``) or a 1-D array of finite real positions.
    dim, base, spacing
        As in :func:`posenc_lib.sinusoidal`.

    Returns
    -------
    numpy.ndarray
        Symmetric float64 matrix of shape ``(L, L)`` with a zero diagonal.
    """
    pos = check_positions(positions)
    table = sinusoidal(pos, dim, base, spacing=spacing)
    out = np.empty((pos.size, pos.size), dtype=np.float64)
    for row in range(pos.size):
        out[row] = np.sqrt(np.square(table - table[row]).sum(axis=1))
    return out


def min_separation(
    length: int, dim: int, base: float = 10000.0, spacing: str = "2i/d"
) -> tuple[float, int]:
    r"""The smallest distance between encodings of two distinct positions in :math:`0,\dots,L-1`.

    .. math:: \min_{0 \le n < m < L} \|p_m - p_n\| = \min_{1 \le \Delta \le L-1} \|p_\Delta - p_0\|

    (the distance depends on :math:`m - n` only; see :func:`offset_distance`).

    Parameters
    ----------
    length
        :math:`L`, an integer ``>= 2`` (at least two positions).
    dim, base, spacing
        As in :func:`posenc_lib.frequencies`.

    Returns
    -------
    distance : float
        The smallest distance between the encodings of two distinct positions.
    delta : int
        The smallest offset :math:`\Delta \ge 1` at which it occurs.
    """
    _check_length(length)
    check_dim(dim)
    theta = frequencies(dim, base, spacing)
    # scan the offsets 1 .. L-1 in blocks, so that memory stays bounded for any L
    step = max(1, _CHUNK_ELEMENTS // theta.size)
    best, best_delta = np.inf, 0
    for start in range(1, int(length), step):
        offsets = np.arange(start, min(start + step, int(length)), dtype=np.float64)
        distances = offset_distance(offsets, dim, base, spacing)
        index = int(np.argmin(distances))
        if distances[index] < best:  # strict: the smallest offset wins ties
            best, best_delta = float(distances[index]), start + index
    return best, best_delta


def _integer_root_floor(value: int, power: int) -> int:
    """The largest integer ``n >= 0`` with ``n ** power <= value``, for ``value >= 0``.

    Newton's iteration in exact integer arithmetic, started above the root, so it is exact for
    integers of any size (no float conversion).
    """
    if value < 2:
        return value
    root = 1 << -(-value.bit_length() // power)  # 2**ceil(bits/power) > value**(1/power)
    while True:
        lower = ((power - 1) * root + value // root ** (power - 1)) // power
        if lower >= root:
            return root
        root = lower


def separation_bound(length: int, dim: int) -> float:
    r"""Upper bound on :func:`min_separation` that holds for every base and spacing.

    With :math:`r = d/2` frequencies and :math:`N = \lfloor (L-1)^{1/r} \rfloor`, Dirichlet's
    pigeonhole argument gives an offset :math:`1 \le q \le N^r \le L-1` with
    :math:`\|q\theta_i/2\pi\| < 1/N` for every :math:`i` (:math:`\|\cdot\|` the distance to
    the nearest integer), hence

    .. math:: \min_{0 \le n < m < L} \|p_m - p_n\| < \frac{2\pi\sqrt{d/2}}{N}.

    The bound tends to 0 as :math:`L \to \infty`, but only like :math:`L^{-2/d}`: it is
    vacuous (above the diameter :math:`2\sqrt{d/2}` of the sphere) until :math:`N \ge 4`,
    i.e. :math:`L - 1 \ge 4^{d/2}`.

    Parameters
    ----------
    length
        :math:`L`, an integer ``>= 2``.
    dim
        :math:`d`, a positive even integer.

    Returns
    -------
    float
        :math:`2\pi\sqrt{d/2}/N`.
    """
    _check_length(length)
    dim = check_dim(dim)
    n_boxes = _integer_root_floor(int(length) - 1, dim // 2)
    return 2.0 * np.pi * np.sqrt(dim / 2) / n_boxes
