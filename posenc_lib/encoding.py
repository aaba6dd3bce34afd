r"""The sinusoidal encoding: frequencies, tables in every layout, and shift matrices.

Notation (the book's): ``dim`` is :math:`d` (even), ``base`` is :math:`b`, pair ``i`` has angular
frequency :math:`\theta_i = b^{-2i/d}` and position :math:`m` is encoded as

.. math:: p_{m,2i} = \sin(m\theta_i), \qquad p_{m,2i+1} = \cos(m\theta_i)

in the paper's interleaved layout. Angles :math:`m\theta_i` are always formed in float64.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from ._validation import (
    DEFAULT_MAX_BYTES,
    check_base,
    check_choice,
    check_dim,
    check_positions,
    check_real_array,
)

#: Coordinate layouts of one encoding vector.
#: ``"interleaved"``: (sin, cos) per pair, the paper's; ``"interleaved_cos_first"``: (cos, sin) per
#: pair, the complex-number derivation's natural order; ``"concatenated"``: all sines then all
#: cosines, as in tensor2tensor, fairseq and many Hugging Face models.
LAYOUTS = ("interleaved", "interleaved_cos_first", "concatenated")

#: Exponent spacings of the frequencies: ``"2i/d"`` gives :math:`\theta_i = b^{-2i/d}` (the
#: paper's); ``"i/(d/2-1)"`` gives :math:`\theta_i = b^{-i/(d/2-1)}` (tensor2tensor's), whose
#: slowest pair reaches exactly :math:`1/b`.
SPACINGS = ("2i/d", "i/(d/2-1)")

#: Tables with at least this many entries (positions x dim) whose positions are an integer
#: progression are built by angle addition in :func:`posenc_lib.sinusoidal`; smaller ones directly.
FAST_MIN_ENTRIES = 1 << 16


def frequencies(dim: int, base: float = 10000.0, spacing: str = "2i/d") -> np.ndarray:
    r"""Angular frequencies :math:`\theta_i = b^{-2i/d}`, :math:`i = 0,\dots,d/2-1`, in rad/token.

    With ``spacing="i/(d/2-1)"`` the exponent is :math:`i/(d/2-1)` instead (0 for ``dim == 2``).
    Returns a float64 array of length ``dim // 2``, decreasing from :math:`\theta_0 = 1`.
    """
    dim = check_dim(dim)
    base = check_base(base)
    check_choice(spacing, "spacing", SPACINGS)
    i = np.arange(dim // 2, dtype=np.float64)
    exponent = 2.0 * i / dim if spacing == "2i/d" else i / max(dim // 2 - 1, 1)
    return np.exp(-exponent * np.log(base))


def wavelengths(dim: int, base: float = 10000.0, spacing: str = "2i/d") -> np.ndarray:
    r"""Wavelengths :math:`\lambda_i = 2\pi/\theta_i` in tokens, increasing from :math:`2\pi`."""
    return 2.0 * np.pi / frequencies(dim, base, spacing)


def angles(
    positions: ArrayLike | int, dim: int, base: float = 10000.0, spacing: str = "2i/d"
) -> np.ndarray:
    r"""The float64 angle table :math:`m\theta_i`, shape ``(len(positions), dim // 2)``."""
    return np.multiply.outer(check_positions(positions), frequencies(dim, base, spacing))


def _slots(dim: int, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """Column indices holding sin(m θ_i) and cos(m θ_i) for each pair i in ``layout``."""
    pair = np.arange(dim // 2)
    if layout == "interleaved":
        return 2 * pair, 2 * pair + 1
    if layout == "interleaved_cos_first":
        return 2 * pair + 1, 2 * pair
    return pair, dim // 2 + pair  # concatenated


def sinusoidal(
    positions: ArrayLike | int,
    dim: int,
    base: float = 10000.0,
    layout: str = "interleaved",
    dtype: DTypeLike = np.float64,
    *,
    spacing: str = "2i/d",
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> np.ndarray:
    r"""The sinusoidal position table, one row :math:`p_m` per position.

    Parameters
    ----------
    positions
        An int ``L`` (positions ``0 … L-1``) or a 1-D array of finite real positions; fractional
        positions are allowed (e.g. for position interpolation).
    dim
        The model dimension :math:`d`, a positive even integer.
    base
        The base :math:`b > 1`.
    layout
        One of :data:`LAYOUTS`; the default is the paper's interleaved (sin, cos) pairs.
    dtype
        A numpy floating dtype for the result. Angles are formed in float64 whatever it is.
    spacing
        One of :data:`SPACINGS`.
    max_bytes
        Refuse to build a table larger than this (default 2 GiB).

    Returns
    -------
    numpy.ndarray of shape ``(len(positions), dim)``.

    Notes
    -----
    Two methods, one result up to a proved error bound. Positions that are exact integers in
    arithmetic progression (an int ``L``, ``numpy.arange(a, b, step)``, ...) and tables of at least
    :data:`~posenc_lib.encoding.FAST_MIN_ENTRIES` entries are built by angle addition,
    :math:`p_{a+r} = M_r\,p_a` (:func:`posenc_lib.tables.sinusoidal_range`): sines and cosines
    of float64 angles are evaluated only for block starts and offsets, and every entry is within
    :func:`posenc_lib.tables.error_bound` of the exact value (about :math:`1.8\times10^{-7}` in
    float32, :math:`2.5\,\varepsilon\,\max|m|` in float64). Other positions (fractional,
    unevenly spaced) use the direct method, one float64 sine and cosine per entry
    (:func:`posenc_lib.tables.sinusoidal_direct`).
    """
    from .tables import _fill_direct, _fill_progression, _new_table, integer_progression

    theta = frequencies(dim, base, spacing)
    pos, table = _new_table(positions, dim, layout, dtype, max_bytes)
    slots = _slots(table.shape[1], layout)
    progression = integer_progression(pos) if table.size >= FAST_MIN_ENTRIES else None
    if progression is not None:
        _fill_progression(table, progression[0], progression[1], theta, *slots)
    else:
        _fill_direct(table, pos, theta, *slots)
    return table


def layout_permutation(dim: int, source: str, target: str) -> np.ndarray:
    """Index array ``perm`` with ``table_target == table_source[..., perm]`` (a permutation)."""
    dim = check_dim(dim)
    check_choice(source, "source", LAYOUTS)
    check_choice(target, "target", LAYOUTS)
    src_sin, src_cos = _slots(dim, source)
    dst_sin, dst_cos = _slots(dim, target)
    perm = np.empty(dim, dtype=np.intp)
    perm[dst_sin] = src_sin
    perm[dst_cos] = src_cos
    return perm


def convert_layout(table: ArrayLike, source: str, target: str) -> np.ndarray:
    """Reorder the last axis of ``table`` from layout ``source`` to ``target`` (no arithmetic)."""
    array = np.asarray(table)
    if array.ndim < 1:
        raise ValueError("table must have at least one axis (the encoding dimension last)")
    return array[..., layout_permutation(array.shape[-1], source, target)]


def rotation(phi: ArrayLike) -> np.ndarray:
    r"""The rotation :math:`R(\varphi)`, the matrix with rows :math:`(\cos\varphi, -\sin\varphi)`
    and :math:`(\sin\varphi, \cos\varphi)`.

    Vectorized: an array of angles of shape ``S`` gives matrices of shape ``S + (2, 2)``.
    """
    phi = check_real_array(phi, "phi")
    c, s = np.cos(phi), np.sin(phi)
    return np.stack([np.stack([c, -s], axis=-1), np.stack([s, c], axis=-1)], axis=-2)


def shift_matrix(
    k: float, dim: int, base: float = 10000.0, layout: str = "interleaved", spacing: str = "2i/d"
) -> np.ndarray:
    r"""The matrix :math:`M_k` with :math:`p_{m+k} = M_k\,p_m` for every position :math:`m`.

    It is block-diagonal over frequency pairs. On the interleaved pair
    :math:`(\sin m\theta_i, \cos m\theta_i)` the block is
    :math:`R(-k\theta_i)`, with rows :math:`(\cos k\theta_i, \sin k\theta_i)` and
    :math:`(-\sin k\theta_i, \cos k\theta_i)`, by the angle-addition formulas; it does not depend
    on :math:`m`.
    """
    dim = check_dim(dim)
    check_choice(layout, "layout", LAYOUTS)
    if np.ndim(k) != 0:
        raise TypeError(f"k must be a real scalar, got an array of shape {np.shape(k)}")
    shift = float(check_real_array(k, "k"))
    phase = shift * frequencies(dim, base, spacing)
    c, s = np.cos(phase), np.sin(phase)
    sin_slot, cos_slot = _slots(dim, layout)
    matrix = np.zeros((dim, dim))
    matrix[sin_slot, sin_slot] = c
    matrix[sin_slot, cos_slot] = s
    matrix[cos_slot, sin_slot] = -s
    matrix[cos_slot, cos_slot] = c
    return matrix
