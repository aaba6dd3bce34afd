r"""Naive position signals: the codes chapter 1 measures and rejects.

Every function returns a table with one row per position, like :func:`posenc_lib.sinusoidal`, so
the codes can be compared row for row. Positions follow the library's convention: an int ``L``
means the positions ``0, 1, ..., L-1``; otherwise a 1-D array of positions. These codes index
tokens, so positions must be whole numbers :math:`m \ge 0`.

=======================  ======================================  ==============================
function                 row for position :math:`m`              what chapter 1 measures
=======================  ======================================  ==============================
``integer_positions``    :math:`(m, m, \dots, m)`                grows without bound
``scaled_positions``     :math:`m/(L-1)` in a sequence of ``L``  depends on the length ``L``
``binary_code``          the bits of :math:`m`, least first      neighbour distances jump
=======================  ======================================  ==============================

One measurement applies to any of these tables (or a sinusoidal one):
:func:`affine_shift_residual`, how far the best affine map :math:`p_m \mapsto p_{m+\Delta}` is
from exact. (The distances between neighbours, :math:`\lVert p_{m+\Delta} - p_m\rVert`, are
``numpy.linalg.norm(table[delta:] - table[:-delta], axis=1)``.)
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._validation import _message, check_count, check_matrix, check_positions

__all__ = [
    "affine_shift_residual",
    "binary_code",
    "integer_positions",
    "scaled_positions",
]


def integer_positions(positions: ArrayLike | int, dim: int = 1) -> np.ndarray:
    r"""The raw integer position as a code: every coordinate of :math:`p_m` equals :math:`m`.

    .. math:: p_m = m\,\mathbf{1}_{d} \in \mathbb{R}^{d}, \qquad \lVert p_m \rVert = m\sqrt{d}

    ``dim=1`` is the single extra "position" feature of the naive scheme; ``dim=d`` is the same
    number broadcast to every coordinate so that it can be *added* to a ``d``-dimensional token
    embedding. Either way the code is unbounded: its norm grows linearly with :math:`m`.

    Parameters
    ----------
    positions : int or array_like
        An int ``L`` (positions ``0 … L-1``) or a 1-D array of whole numbers :math:`m \ge 0`.
    dim : int
        Number of columns :math:`d \ge 1` (any integer; no evenness needed).

    Returns
    -------
    numpy.ndarray
        float64 of shape ``(len(positions), dim)``.

    Examples
    --------
    >>> from posenc_lib.course.naive import integer_positions
    >>> integer_positions(3, 2)
    array([[0., 0.],
           [1., 1.],
           [2., 2.]])
    """
    dim = check_count(dim, "dim", 1)
    pos = _check_token_positions(positions)
    return np.repeat(pos.astype(np.float64)[:, None], dim, axis=1)


def scaled_positions(length: int, dim: int = 1) -> np.ndarray:
    r"""Positions scaled to :math:`[0, 1]` by the sequence length: :math:`p_m = m/(L-1)`.

    .. math:: p_m = \frac{m}{L-1}\,\mathbf{1}_{d}, \qquad m = 0, 1, \dots, L-1

    The first token gets 0 and the last gets 1 whatever ``L`` is, so neighbours are
    :math:`1/(L-1)` apart and the code of a fixed position :math:`m` depends on ``L``. A sequence
    of one token (``L = 1``, where :math:`m/(L-1)` is :math:`0/0`) is given the code 0.

    Parameters
    ----------
    length : int
        The sequence length :math:`L \ge 1`; the table has one row per position ``0 … L-1``.
    dim : int
        Number of columns :math:`d \ge 1`, each equal to the scaled position.

    Returns
    -------
    numpy.ndarray
        float64 of shape ``(length, dim)``, values in :math:`[0, 1]`.

    Examples
    --------
    >>> from posenc_lib.course.naive import scaled_positions
    >>> scaled_positions(5)[:, 0]
    array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    """
    length = check_count(length, "length", 1)
    dim = check_count(dim, "dim", 1)
    scaled = np.arange(length, dtype=np.float64) / max(length - 1, 1)
    return np.repeat(scaled[:, None], dim, axis=1)


def binary_code(positions: ArrayLike | int, n_bits: int) -> np.ndarray:
    r"""The binary digits of each position, least significant bit first.

    .. math:: p_{m,j} = \left\lfloor m / 2^{j} \right\rfloor \bmod 2, \qquad j = 0, \dots, n-1

    Column ``j`` flips every :math:`2^j` positions (period :math:`2^{j+1}`), so column 0 is the
    fastest-changing one, like the sinusoidal pair :math:`i = 0`. With ``n_bits`` bits the code
    is unique for :math:`0 \le m < 2^{n}` and is not defined beyond (it would wrap around).

    Parameters
    ----------
    positions : int or array_like
        An int ``L`` (positions ``0 … L-1``) or a 1-D array of whole numbers
        :math:`0 \le m < 2^{n}`.
    n_bits : int
        The number of bits :math:`n \ge 1`.

    Returns
    -------
    numpy.ndarray
        float64 zeros and ones, shape ``(len(positions), n_bits)``.

    Examples
    --------
    >>> from posenc_lib.course.naive import binary_code
    >>> binary_code([5], 4)  # 5 = 0b101
    array([[1., 0., 1., 0.]])
    """
    n_bits = check_count(n_bits, "n_bits", 1)
    pos = _check_token_positions(positions)
    if n_bits < 63 and pos.size and pos.max() >= (1 << n_bits):
        raise ValueError(
            f"positions must be < 2**n_bits = {1 << n_bits} to have a unique {n_bits}-bit code, "
            f"got {pos.max()}; pass more bits"
        )
    bit = np.arange(n_bits)
    # An int64 m >= 0 has no bit at index 63 or above: those columns stay zero.
    shifts = np.minimum(bit, 62).astype(np.int64)
    bits = (pos[:, None] >> shifts[None, :]) & 1
    bits[:, bit >= 63] = 0
    return bits.astype(np.float64)


def affine_shift_residual(table: ArrayLike, *, delta: int = 1) -> float:
    r"""RMS residual of the best affine map :math:`p_m \mapsto p_{m+\Delta}` over ``table``.

    The map :math:`p_{m+\Delta} \approx A\,p_m + c` (one matrix :math:`A` and one vector
    :math:`c` for every :math:`m`) is fitted by least squares over the :math:`L - \Delta` pairs
    of rows :math:`\Delta` apart, and the root-mean-square of its residual over all entries is
    returned:

    .. math:: r = \min_{A,\,c} \Bigl(\frac{1}{(L-\Delta)\,n}
              \sum_{m=0}^{L-\Delta-1} \lVert A p_m + c - p_{m+\Delta} \rVert^2\Bigr)^{1/2}

    for a table of :math:`L` rows and :math:`n` columns. It is zero (to rounding) exactly when
    an affine map carries every row to the row :math:`\Delta` later, as for the integer and
    scaled codes (:math:`p_{m+\Delta} = p_m + \text{const}`) and the sinusoidal code
    (:math:`A = M_\Delta`, a rotation); for the binary code the carries make it positive.

    Parameters
    ----------
    table : array_like
        A 2-D array of finite reals, one row per position, with more than ``delta`` rows.
    delta : int
        The offset :math:`\Delta \ge 1`.

    Returns
    -------
    float
        The residual :math:`r \ge 0`, in the units of the table's entries.

    Examples
    --------
    >>> import posenc_lib as pe
    >>> from posenc_lib.course.naive import affine_shift_residual, binary_code
    >>> affine_shift_residual(pe.sinusoidal(64, 8)) < 1e-12
    True
    >>> print(f"{affine_shift_residual(binary_code(64, 6)):.2f}")
    0.31
    """
    array = check_matrix(table, "table")
    delta = check_count(delta, "delta", 1)
    if len(array) <= delta:
        raise ValueError(
            f"table must have more than delta = {delta} rows to pair rows delta apart, "
            f"got {len(array)} rows"
        )
    design = np.hstack([array[:-delta], np.ones((len(array) - delta, 1))])
    coef, *_ = np.linalg.lstsq(design, array[delta:], rcond=None)
    return float(np.sqrt(np.mean(np.square(design @ coef - array[delta:]))))


def _check_token_positions(positions: object) -> np.ndarray:
    """Token positions: whole numbers ``m >= 0`` as an int64 array (an int ``L``: ``0 … L-1``).

    Integer arrays are kept exact beyond :math:`2^{53}`; float input must stay below it.
    """
    accepted = "an int length L >= 0 or a 1-D array of whole numbers >= 0"
    as_float = check_positions(positions, exact=False)
    bad = as_float[(as_float < 0) | (as_float != np.floor(as_float))]
    if bad.size:
        raise ValueError(_message("positions", accepted, f"the position {bad[0]:g}"))
    raw = np.asarray(positions)
    if raw.ndim == 1 and np.issubdtype(raw.dtype, np.integer):
        return raw.astype(np.int64)
    if np.any(as_float >= 2.0**53):
        raise ValueError(
            _message(
                "positions", "an integer array when positions reach 2**53", "floats"
            )
        )
    return as_float.astype(np.int64)
