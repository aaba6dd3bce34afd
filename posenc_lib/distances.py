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

import numpy as np
from numpy.typing import ArrayLike

from ._validation import check_count, check_dim, check_real_array
from .encoding import frequencies

__all__ = ["MAX_SCAN", "min_separation", "offset_distance", "separation_bound"]

#: Most angles (offsets x frequencies, ``(L - 1) * d/2``) :func:`min_separation` scans: a few
#: seconds of CPU; a longer scan is refused before it starts.
MAX_SCAN = 1 << 27

#: Elements of the (offsets x frequencies) angle block evaluated at once; bounds memory to ~32 MiB.
_CHUNK_ELEMENTS = 1 << 22


def offset_distance(
    delta: ArrayLike, dim: int, *, base: float = 10000.0, spacing: str = "2i/d"
) -> np.ndarray:
    r"""Euclidean distance :math:`\|p_{m+\Delta} - p_m\|` between encodings an offset apart.

    .. math:: \|p_{m+\Delta} - p_m\| = 2\sqrt{\textstyle\sum_{i=0}^{d/2-1} \sin^2(\Delta\theta_i/2)}

    The same for every :math:`m` (and every layout, which only permutes coordinates).

    Parameters
    ----------
    delta : float or array_like
        Offsets :math:`\Delta`, a scalar or an array of any shape of finite reals.
    dim, base, spacing
        As in :func:`posenc_lib.frequencies`.

    Returns
    -------
    numpy.ndarray
        float64, the shape of ``delta``; it lies between 0 and :math:`2\sqrt{d/2}`.

    Examples
    --------
    >>> import numpy as np
    >>> import posenc_lib as pe
    >>> from posenc_lib.distances import offset_distance
    >>> p = pe.sinusoidal([10.0, 13.0], 16)
    >>> bool(np.isclose(offset_distance(3.0, 16), np.linalg.norm(p[1] - p[0])))
    True
    """
    theta = frequencies(dim, base=base, spacing=spacing)
    offsets = check_real_array(delta, "delta")
    flat = offsets.ravel()
    out = np.empty(flat.shape, dtype=np.float64)
    step = max(1, _CHUNK_ELEMENTS // theta.size)
    for start in range(0, flat.size, step):
        half = 0.5 * np.multiply.outer(flat[start : start + step], theta)
        out[start : start + step] = 2.0 * np.sqrt(np.square(np.sin(half)).sum(axis=1))
    return out.reshape(offsets.shape)


def min_separation(
    length: int, dim: int, *, base: float = 10000.0, spacing: str = "2i/d"
) -> tuple[float, int]:
    r"""The smallest distance between encodings of two distinct positions in :math:`0,\dots,L-1`.

    .. math:: \min_{0 \le n < m < L} \|p_m - p_n\| = \min_{1 \le \Delta \le L-1} \|p_\Delta - p_0\|

    (the distance depends on :math:`m - n` only; see :func:`offset_distance`).

    Parameters
    ----------
    length : int
        :math:`L`, an integer ``>= 2`` (at least two positions), with
        :math:`(L-1)\,d/2` at most :data:`MAX_SCAN` (the scan's cost).
    dim, base, spacing
        As in :func:`posenc_lib.frequencies`.

    Returns
    -------
    distance : float
        The smallest distance between the encodings of two distinct positions.
    delta : int
        The smallest offset :math:`\Delta \ge 1` at which it occurs.

    Examples
    --------
    >>> from posenc_lib.distances import min_separation
    >>> distance, delta = min_separation(1000, 2)
    >>> print(f"{distance:.1e} at offset {delta}")
    6.0e-05 at offset 710
    """
    dim = check_dim(dim)
    length = check_count(length, "length", 2, 1 + MAX_SCAN // (dim // 2))
    theta = frequencies(dim, base=base, spacing=spacing)
    # scan the offsets 1 .. L-1 in blocks, so that memory stays bounded for any L
    step = max(1, _CHUNK_ELEMENTS // theta.size)
    best, best_delta = np.inf, 0
    for start in range(1, int(length), step):
        offsets = np.arange(start, min(start + step, int(length)), dtype=np.float64)
        distances = offset_distance(offsets, dim, base=base, spacing=spacing)
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
    if value.bit_length() <= power:  # value < 2**power: the root is below 2
        return 1
    # 2**ceil(bits/power) > value**(1/power)
    root = 1 << -(-value.bit_length() // power)
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
    length : int
        :math:`L`, an integer ``>= 2``.
    dim : int
        :math:`d`, a positive even integer.

    Returns
    -------
    float
        :math:`2\pi\sqrt{d/2}/N`.

    Examples
    --------
    >>> from posenc_lib.distances import min_separation, separation_bound
    >>> print(f"{separation_bound(1000, 2):.4f}")
    0.0063
    >>> bool(min_separation(1000, 2)[0] < separation_bound(1000, 2))
    True
    """
    length = check_count(length, "length", 2)
    dim = check_dim(dim)
    n_boxes = _integer_root_floor(length - 1, dim // 2)
    return 2.0 * np.pi * np.sqrt(dim / 2) / n_boxes
