r"""The sinusoidal encoding: frequencies, angles, the position table, rotations and shifts.

Notation (the book's): ``dim`` is :math:`d` (even), ``base`` is :math:`b`, pair ``i`` has angular
frequency :math:`\theta_i = b^{-2i/d}` and position :math:`m` is encoded as

.. math:: p_{m,2i} = \sin(m\theta_i), \qquad p_{m,2i+1} = \cos(m\theta_i)

in the paper's interleaved layout (other layouts: :mod:`posenc_lib.layouts`). Angles
:math:`m\theta_i` are always formed in float64. Moving a position by :math:`\Delta` rotates every
pair, :math:`p_{m+\Delta} = M_\Delta\,p_m` (:func:`posenc_lib.shift_matrix`); the fast method of
:func:`posenc_lib.sinusoidal` is built on that identity (:mod:`posenc_lib.angle_addition`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from ._validation import (
    DEFAULT_MAX_BYTES,
    _is_integer,
    check_base,
    check_choice,
    check_dim,
    check_float_dtype,
    check_positions,
    check_real,
    check_real_array,
    check_table_size,
    describe,
)
from .angle_addition import _fill_progression, _integer_progression
from .layouts import LAYOUTS, _pair_columns

__all__ = [
    "FAST_MIN_ENTRIES",
    "METHODS",
    "ODD_DIMS",
    "SPACINGS",
    "angles",
    "frequencies",
    "rotation",
    "shift_matrix",
    "sinusoidal",
    "wavelengths",
]

#: Exponent spacings of the frequencies: ``"2i/d"`` gives :math:`\theta_i = b^{-2i/d}` (the
#: paper's); ``"i/(d/2-1)"`` gives :math:`\theta_i = b^{-i/(d/2-1)}` (tensor2tensor's), whose
#: slowest pair reaches exactly :math:`1/b`.
SPACINGS = ("2i/d", "i/(d/2-1)")

#: Methods of :func:`posenc_lib.sinusoidal`: ``"auto"`` picks ``"angle_addition"`` for large
#: tables of integer positions in arithmetic progression and ``"direct"`` otherwise.
METHODS = ("auto", "angle_addition", "direct")

#: The two conventions for an odd dimension found in the wild (``odd_dim`` of
#: :func:`posenc_lib.sinusoidal`).
#: ``"zero_pad"`` is the table of ``dim - 1`` and a last column of zeros (tensor2tensor, fairseq,
#: Hugging Face M2M100/Speech2Text/XGLM/FSMT/MusicGen, diffusers); ``"split"`` has ``(dim + 1) / 2``
#: sines and ``(dim - 1) / 2`` cosines with :math:`\theta_i = b^{-2i/d}` for the odd ``d`` itself
#: (Hugging Face Marian/Pegasus/RoFormer in halves, DistilBERT/XLM interleaved).
ODD_DIMS = ("zero_pad", "split")

#: With ``method="auto"``, tables with at least this many entries (positions x dim) whose positions
#: are an integer progression are built by angle addition; smaller ones directly.
FAST_MIN_ENTRIES = 1 << 16


def frequencies(
    dim: int, *, base: float = 10000.0, spacing: str = "2i/d"
) -> np.ndarray:
    r"""Angular frequencies :math:`\theta_i = b^{-2i/d}`, :math:`i = 0,\dots,d/2-1`, in rad/token.

    With ``spacing="i/(d/2-1)"`` the exponent is :math:`i/(d/2-1)` instead (0 for ``dim == 2``).

    Parameters
    ----------
    dim : int
        The model dimension :math:`d`, a positive even integer.
    base : float
        The base :math:`b > 1`.
    spacing : str
        One of :data:`SPACINGS`.

    Returns
    -------
    numpy.ndarray
        float64 of length ``dim // 2``, decreasing from :math:`\theta_0 = 1`.

    Examples
    --------
    >>> import posenc_lib as pe
    >>> [f"{theta:.3g}" for theta in pe.frequencies(8, base=10000.0)]
    ['1', '0.1', '0.01', '0.001']
    >>> print(f'{pe.frequencies(8, base=10000.0, spacing="i/(d/2-1)")[-1]:.3g}')
    0.0001
    """
    check_choice(spacing, "spacing", SPACINGS)
    return _frequencies(check_dim(dim), check_base(base), spacing)


def _frequencies(dim: int, base: float, spacing: str) -> np.ndarray:
    """:func:`frequencies` of checked arguments."""
    i = np.arange(dim // 2, dtype=np.float64)
    exponent = 2.0 * i / dim if spacing == "2i/d" else i / max(dim // 2 - 1, 1)
    return np.exp(-exponent * np.log(base))


def wavelengths(
    dim: int, *, base: float = 10000.0, spacing: str = "2i/d"
) -> np.ndarray:
    r"""Wavelengths :math:`\lambda_i = 2\pi/\theta_i` in tokens, increasing from :math:`2\pi`.

    Parameters
    ----------
    dim, base, spacing
        As in :func:`frequencies`.

    Returns
    -------
    numpy.ndarray
        :math:`2\pi b^{2i/d}` (or :math:`2\pi b^{i/(d/2-1)}`), ``dim // 2`` float64 values.

    Examples
    --------
    >>> import posenc_lib as pe
    >>> pe.wavelengths(4, base=100.0).round(2)
    array([ 6.28, 62.83])
    """
    return 2.0 * np.pi / frequencies(dim, base=base, spacing=spacing)


def angles(
    positions: ArrayLike | int,
    dim: int,
    *,
    base: float = 10000.0,
    spacing: str = "2i/d",
) -> np.ndarray:
    r"""The float64 angle table :math:`m\theta_i`, one row per position.

    Parameters
    ----------
    positions : int or array_like
        An int ``L`` (positions ``0 … L-1``) or a 1-D array of finite real positions.
    dim, base, spacing
        As in :func:`frequencies`.

    Returns
    -------
    numpy.ndarray
        float64 of shape ``(len(positions), dim // 2)``: entry :math:`(k, i)` is
        ``positions[k] * theta[i]``.

    Examples
    --------
    >>> import posenc_lib as pe
    >>> pe.angles(3, 4, base=100.0)
    array([[0. , 0. ],
           [1. , 0.1],
           [2. , 0.2]])
    """
    theta = frequencies(dim, base=base, spacing=spacing)
    pos = check_positions(positions, width=theta.size, names="positions x dim/2")
    return np.multiply.outer(pos, theta)


def sinusoidal(
    positions: ArrayLike | int,
    dim: int,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    dtype: DTypeLike = np.float64,
    spacing: str = "2i/d",
    method: str = "auto",
    max_bytes: int = DEFAULT_MAX_BYTES,
    odd_dim: str | None = None,
) -> np.ndarray:
    r"""The sinusoidal position table, one row :math:`p_m` per position.

    .. math:: p_{m,2i} = \sin(m\theta_i), \qquad p_{m,2i+1} = \cos(m\theta_i), \qquad
              \theta_i = b^{-2i/d}

    (interleaved layout; other layouts permute the columns).

    Parameters
    ----------
    positions : int or array_like
        An int ``L`` (positions ``0 … L-1``) or a 1-D array of finite real positions; fractional
        positions are allowed (e.g. for position interpolation).
    dim : int
        The model dimension :math:`d`, a positive even integer.
    base : float
        The base :math:`b > 1`.
    layout : str
        One of :data:`posenc_lib.LAYOUTS`; the default is the paper's interleaved (sin, cos) pairs.
    dtype : numpy.dtype
        The dtype of the result. The angles :math:`m\theta_i` are formed in float64 whatever it
        is; what that guarantees depends on the method. ``"direct"``: the float64 sine and
        cosine are rounded once to ``dtype``, so a float32 table is the float64 table rounded
        once (the correctly rounded value unless the exact one lies within float64 rounding of
        a float32 rounding boundary). ``"angle_addition"`` (what ``"auto"`` picks for integer
        progressions of at least :data:`~posenc_lib.encoding.FAST_MIN_ENTRIES` entries) runs
        its recurrence in ``dtype`` from float64 seeds: a float32 table is *not* rounded once.
        What is guaranteed is an absolute error of at most
        :func:`posenc_lib.error_bounds.error_bound` ``(max|m|, dtype=dtype)`` per entry (about
        :math:`1.74\times10^{-7}` in float32, 1.5 float32 units at 1); about a third of the
        entries differ from the once-rounded value, and entries near 0 are not accurate relative
        to their size. For the once-rounded float32 table pass ``method="direct"``, or build the
        float64 table and cast it (what :class:`posenc_lib.nn.SinusoidalPositionalEncoding`
        does).
    spacing : str
        One of :data:`SPACINGS`.
    method : str
        One of :data:`~posenc_lib.encoding.METHODS`. ``"direct"``: one float64 sine and cosine
        per entry. ``"angle_addition"``: :math:`p_{a+r} = M_r\,p_a`, sines and cosines only for
        block starts and offsets (:func:`posenc_lib.angle_addition.fill_progression`); positions
        must be integers in arithmetic progression. ``"auto"`` (default): angle addition for such
        positions in tables of at least :data:`~posenc_lib.encoding.FAST_MIN_ENTRIES` entries,
        direct otherwise.
    max_bytes : int
        Refuse to build a table larger than this (default 2 GiB), before allocating it.
    odd_dim : str or None
        Required when ``dim`` is odd, ignored otherwise: one of
        :data:`~posenc_lib.encoding.ODD_DIMS`, the two
        conventions found in the wild. ``"zero_pad"``: the table of ``dim - 1``, then a column of
        zeros (any layout and spacing). ``"split"``: :math:`\theta_i = b^{-2i/d}` with the odd
        :math:`d`, :math:`(d+1)/2` sines and :math:`(d-1)/2` cosines (interleaved or
        concatenated layout, ``2i/d`` spacing, direct method only).

    Returns
    -------
    numpy.ndarray
        Shape ``(len(positions), dim)``, dtype ``dtype``.

    Notes
    -----
    Both methods agree to a proved bound: every entry of an angle-addition table is within
    :func:`posenc_lib.error_bounds.error_bound` of the exact value (about
    :math:`1.8\times10^{-7}` in float32, :math:`2.5\,\varepsilon\max|m|` in float64, chapter 11).

    Other parametrizations in the wild are positions and a base, exactly (each tested against
    the real code on the book page "Conventions in the wild"):

    * tensor2tensor's ``get_timing_signal_1d(L, d, min_timescale, max_timescale, start_index)``
      is ``sinusoidal(min_timescale * (np.arange(L) + start_index), d, base=max_timescale /
      min_timescale, layout="concatenated", spacing="i/(d/2-1)")``: it multiplies its
      frequencies by ``min_timescale``;
    * fairseq's padding offset (token ``t`` reads row ``padding_idx + 1 + t``) is
      ``sinusoidal(np.arange(L) + padding_idx + 1, d, layout="concatenated",
      spacing="i/(d/2-1)")``;
    * diffusers' ``get_timestep_embedding(t, d, flip_sin_to_cos, downscale_freq_shift, scale,
      max_period)`` is ``sinusoidal(scale * t, d, base=max_period, ...)`` with
      ``layout="concatenated_cos_first"`` when flipped, spacing ``"i/(d/2-1)"`` for a shift of 1
      and ``"2i/d"`` for 0, and ``odd_dim="zero_pad"``.

    Examples
    --------
    >>> import posenc_lib as pe
    >>> pe.sinusoidal(2, 4, base=100.0).round(4)
    array([[0.    , 1.    , 0.    , 1.    ],
           [0.8415, 0.5403, 0.0998, 0.995 ]])
    >>> pe.sinusoidal([0.5], 2)
    array([[0.47942554, 0.87758256]])
    """
    if odd_dim is not None:
        check_choice(odd_dim, "odd_dim", ODD_DIMS)
    check_choice(layout, "layout", LAYOUTS)
    check_choice(spacing, "spacing", SPACINGS)
    check_choice(method, "method", METHODS)
    out_dtype = check_float_dtype(dtype)
    odd = _is_integer(dim) and dim % 2 == 1
    if odd and odd_dim is None:
        raise ValueError(
            f"dim must be a positive even integer, got {dim}; for an odd dim pass "
            "odd_dim='zero_pad' (a last column of zeros: tensor2tensor, fairseq, diffusers) or "
            "odd_dim='split' ((d+1)/2 sines, (d-1)/2 cosines: Hugging Face Marian, DistilBERT)"
        )
    dim = check_dim(dim + 1) - 1 if odd else check_dim(dim)
    base = check_base(base)
    itemsize = max(out_dtype.itemsize, 8)  # the float64 working arrays count too
    pos = check_positions(
        positions, width=dim + odd, itemsize=itemsize, max_bytes=max_bytes
    )
    if not odd:
        return _table(
            pos, dim, _frequencies(dim, base, spacing), layout, out_dtype, method
        )
    if odd_dim == "zero_pad":
        if dim < 3:
            raise ValueError(f"dim must be >= 3 with odd_dim='zero_pad', got {dim}")
        out = np.zeros((pos.size, dim), dtype=out_dtype)
        theta = _frequencies(dim - 1, base, spacing)
        out[:, :-1] = _table(pos, dim - 1, theta, layout, np.dtype(np.float64), method)
        return out
    _check_split(layout, spacing, method)
    pairs = (dim + 1) // 2  # theta_i = b^(-2i/d) for the odd d itself, i = 0 … (d-1)/2
    theta = np.exp(-(2.0 * np.arange(pairs) / dim) * np.log(base))
    full = _table(pos, dim + 1, theta, layout, np.dtype(np.float64), "direct")
    return full[:, :dim].astype(out_dtype)  # drops the cosine of the last pair


def _check_split(layout: str, spacing: str, method: str = "auto") -> None:
    """The layouts, spacing and methods of ``odd_dim='split'`` (a table of ``dim + 1``
    columns cut to ``dim``: its pairs must stay whole and its frequencies ``b^(-2i/d)``)."""
    if layout not in ("interleaved", "concatenated"):
        raise ValueError(
            f"layout must be 'interleaved' or 'concatenated' with odd_dim='split', got {layout!r}"
        )
    if spacing != "2i/d":
        raise ValueError(
            f"spacing must be '2i/d' with odd_dim='split', got {spacing!r}"
        )
    if method not in ("auto", "direct"):
        raise ValueError(
            f"method must be 'auto' or 'direct' with odd_dim='split', got {method!r}"
        )


def _table(
    pos: np.ndarray,
    dim: int,
    theta: np.ndarray,
    layout: str,
    dtype: np.dtype,
    method: str,
) -> np.ndarray:
    """The ``len(pos) x dim`` table of checked arguments (:func:`sinusoidal`'s kernel)."""
    table = np.empty((pos.size, dim), dtype=dtype)
    if pos.size == 0:
        return table
    sin_cols, cos_cols = _pair_columns(dim, layout, as_slices=True)
    progression = None
    if method == "angle_addition" or (
        method == "auto" and table.size >= FAST_MIN_ENTRIES
    ):
        progression = _integer_progression(pos)
        if progression is None and method == "angle_addition":
            raise ValueError(
                "positions must be integers in arithmetic progression, at most 2**52 in "
                f"magnitude, for method='angle_addition', got {describe(pos)}"
            )
    if progression is not None:
        start, step = progression
        _fill_progression(table, theta, sin_cols, cos_cols, start, step)
    else:
        phase = np.multiply.outer(pos, theta)
        table[:, sin_cols] = np.sin(phase)
        table[:, cos_cols] = np.cos(phase)
    return table


def rotation(phi: ArrayLike) -> np.ndarray:
    r"""The rotation matrix :math:`R(\varphi)`.

    .. math:: R(\varphi) = \begin{pmatrix} \cos\varphi & -\sin\varphi \\
              \sin\varphi & \cos\varphi \end{pmatrix}

    Parameters
    ----------
    phi : float or array_like
        Angles in radians, finite, of any shape ``S``.

    Returns
    -------
    numpy.ndarray
        float64 of shape ``S + (2, 2)``.

    Examples
    --------
    >>> import numpy as np
    >>> import posenc_lib as pe
    >>> pe.rotation(np.pi / 2).round(12)
    array([[ 0., -1.],
           [ 1.,  0.]])
    """
    phi = check_real_array(phi, "phi")
    c, s = np.cos(phi), np.sin(phi)
    return np.stack([np.stack([c, -s], axis=-1), np.stack([s, c], axis=-1)], axis=-2)


def shift_matrix(
    delta: float,
    dim: int,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    spacing: str = "2i/d",
) -> np.ndarray:
    r"""The matrix :math:`M_\Delta` with :math:`p_{m+\Delta} = M_\Delta\,p_m` for every :math:`m`.

    It is block-diagonal over frequency pairs. On the interleaved pair
    :math:`(\sin m\theta_i, \cos m\theta_i)` the block is :math:`R(-\Delta\theta_i)`,

    .. math:: \begin{pmatrix} \cos\Delta\theta_i & \sin\Delta\theta_i \\
              -\sin\Delta\theta_i & \cos\Delta\theta_i \end{pmatrix},

    by the angle-addition formulas; it does not depend on :math:`m`.

    Parameters
    ----------
    delta : float
        The shift :math:`\Delta`, a finite real number.
    dim, base, spacing
        As in :func:`frequencies`.
    layout : str
        One of :data:`posenc_lib.LAYOUTS`.

    Returns
    -------
    numpy.ndarray
        float64 of shape ``(dim, dim)``, orthogonal.

    Examples
    --------
    >>> import numpy as np
    >>> import posenc_lib as pe
    >>> table = pe.sinusoidal(10, 8)
    >>> bool(np.allclose(table[:7] @ pe.shift_matrix(3, 8).T, table[3:]))
    True
    """
    dim = check_dim(dim)
    check_table_size(dim, dim, 8, DEFAULT_MAX_BYTES, names="dim x dim")
    check_choice(layout, "layout", LAYOUTS)
    check_choice(spacing, "spacing", SPACINGS)
    shift = check_real(delta, "delta")
    phase = shift * _frequencies(dim, check_base(base), spacing)
    c, s = np.cos(phase), np.sin(phase)
    sin_col, cos_col = _pair_columns(dim, layout)
    matrix = np.zeros((dim, dim))
    matrix[sin_col, sin_col] = c
    matrix[sin_col, cos_col] = s
    matrix[cos_col, sin_col] = -s
    matrix[cos_col, cos_col] = c
    return matrix
