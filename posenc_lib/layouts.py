r"""Coordinate layouts of an encoding vector, and exact conversions between them.

Pair :math:`i` of the encoding is :math:`(\sin m\theta_i, \cos m\theta_i)`. Where its two
coordinates sit in the vector of length :math:`d` is a convention:

=============================  ====================================  ==========================
layout                         columns of pair :math:`i` (sin, cos)  used by
=============================  ====================================  ==========================
``"interleaved"``              :math:`(2i,\ 2i+1)`                   the paper (the book's)
``"interleaved_cos_first"``    :math:`(2i+1,\ 2i)`                   the complex derivation
``"concatenated"``             :math:`(i,\ d/2+i)`                   tensor2tensor, fairseq, HF
``"concatenated_cos_first"``   :math:`(d/2+i,\ i)`                   diffusers (flipped), MusicGen
=============================  ====================================  ==========================

Converting between layouts only permutes coordinates: no arithmetic, so it is exact.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._validation import as_array, check_bool, check_choice, check_dim, describe

__all__ = ["LAYOUTS", "convert_layout", "layout_permutation", "pair_columns"]

#: Coordinate layouts of one encoding vector.
#: ``"interleaved"``: (sin, cos) per pair, the paper's; ``"interleaved_cos_first"``: (cos, sin) per
#: pair, the complex-number derivation's natural order; ``"concatenated"``: all sines then all
#: cosines, as in tensor2tensor, fairseq and many Hugging Face models; ``"concatenated_cos_first"``:
#: all cosines then all sines (diffusers' ``flip_sin_to_cos=True``, Hugging Face MusicGen).
LAYOUTS = (
    "interleaved",
    "interleaved_cos_first",
    "concatenated",
    "concatenated_cos_first",
)


def pair_columns(
    dim: int, *, layout: str = "interleaved", as_slices: bool = False
) -> tuple[np.ndarray, np.ndarray] | tuple[slice, slice]:
    r"""Columns holding :math:`\sin m\theta_i` and :math:`\cos m\theta_i` of each pair :math:`i`.

    Parameters
    ----------
    dim : int
        The dimension :math:`d`, a positive even integer.
    layout : str
        One of :data:`posenc_lib.LAYOUTS`.
    as_slices : bool
        Return the same columns as basic slices (every layout's columns are arithmetic
        progressions): indexing a table with them gives views, and assigning through them is
        many times faster than through index arrays.

    Returns
    -------
    sin_columns, cos_columns : numpy.ndarray or slice
        Integer arrays of length ``dim // 2`` (or slices): pair :math:`i` sits in columns
        ``sin_columns[i]`` and ``cos_columns[i]``.

    Examples
    --------
    >>> from posenc_lib.layouts import pair_columns
    >>> pair_columns(6)
    (array([0, 2, 4]), array([1, 3, 5]))
    >>> pair_columns(6, layout="concatenated")
    (array([0, 1, 2]), array([3, 4, 5]))
    >>> pair_columns(6, layout="concatenated", as_slices=True)
    (slice(0, 3, 1), slice(3, 6, 1))
    """
    check_choice(layout, "layout", LAYOUTS)
    return _pair_columns(check_dim(dim), layout, check_bool(as_slices, "as_slices"))


def _pair_columns(
    dim: int, layout: str, as_slices: bool = False
) -> tuple[np.ndarray, np.ndarray] | tuple[slice, slice]:
    """:func:`pair_columns` of checked arguments."""
    half = dim // 2
    if layout == "interleaved":
        sin, cos = slice(0, dim, 2), slice(1, dim, 2)
    elif layout == "interleaved_cos_first":
        sin, cos = slice(1, dim, 2), slice(0, dim, 2)
    elif layout == "concatenated_cos_first":
        sin, cos = slice(half, dim, 1), slice(0, half, 1)
    else:
        sin, cos = slice(0, half, 1), slice(half, dim, 1)
    if as_slices:
        return sin, cos
    columns = np.arange(dim)
    return columns[sin], columns[cos]


def layout_permutation(dim: int, source: str, target: str) -> np.ndarray:
    r"""The permutation ``perm`` with ``table_target == table_source[..., perm]``.

    Column ``perm[j]`` of a ``source`` table holds what column ``j`` of a ``target`` table holds:
    the sine or cosine of the same pair.

    Parameters
    ----------
    dim : int
        The dimension :math:`d`, a positive even integer.
    source, target : str
        Layouts, each one of :data:`LAYOUTS`.

    Returns
    -------
    numpy.ndarray
        A permutation of ``0 … dim - 1`` (integer array of length ``dim``).

    Examples
    --------
    >>> from posenc_lib.layouts import layout_permutation
    >>> layout_permutation(6, "interleaved", "concatenated")
    array([0, 2, 4, 1, 3, 5])
    """
    check_choice(source, "source", LAYOUTS)
    check_choice(target, "target", LAYOUTS)
    return _layout_permutation(check_dim(dim), source, target)


def _layout_permutation(dim: int, source: str, target: str) -> np.ndarray:
    """:func:`layout_permutation` of checked arguments."""
    src_sin, src_cos = _pair_columns(dim, source)
    dst_sin, dst_cos = _pair_columns(dim, target)
    perm = np.empty(dim, dtype=np.intp)
    perm[dst_sin] = src_sin
    perm[dst_cos] = src_cos
    return perm


def convert_layout(table: ArrayLike, source: str, target: str) -> np.ndarray:
    r"""Reorder the last axis of ``table`` from layout ``source`` to ``target`` (exact).

    Parameters
    ----------
    table : array_like
        Any array whose last axis is an encoding vector of even length :math:`d`.
    source, target : str
        Layouts, each one of :data:`LAYOUTS`.

    Returns
    -------
    numpy.ndarray
        ``table[..., layout_permutation(d, source, target)]``: same shape and dtype.

    Examples
    --------
    >>> import posenc_lib as pe
    >>> halves = pe.sinusoidal(3, 8, layout="concatenated")
    >>> back = pe.convert_layout(halves, "concatenated", "interleaved")
    >>> bool((back == pe.sinusoidal(3, 8)).all())
    True
    """
    array = as_array(table, "table", "an array whose last axis has even length")
    if array.dtype.kind not in "iufc":
        raise TypeError(
            "table must be a numeric array (an encoding table), got an array of dtype "
            f"{array.dtype}"
        )
    if array.ndim < 1 or array.shape[-1] == 0 or array.shape[-1] % 2:
        raise ValueError(
            "table must be an array whose last axis (the encoding) has even length, "
            f"got {describe(array)}"
        )
    check_choice(source, "source", LAYOUTS)
    check_choice(target, "target", LAYOUTS)
    return array[..., _layout_permutation(array.shape[-1], source, target)]
