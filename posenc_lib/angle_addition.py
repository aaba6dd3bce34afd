r"""Sinusoid tables by angle addition: the fast method behind :func:`posenc_lib.sinusoidal`.

The shift property of the encoding (chapter 2) says that moving a position by :math:`r` rotates
every frequency pair by the angle :math:`r\theta_i`:

.. math::

    \sin((a + r)\theta) = \sin a\theta\,\cos r\theta + \cos a\theta\,\sin r\theta, \qquad
    \cos((a + r)\theta) = \cos a\theta\,\cos r\theta - \sin a\theta\,\sin r\theta.

:func:`fill_progression` uses it to fill the table of the positions :math:`m_k = s + k\,t`
(``start`` :math:`s`, ``step`` :math:`t`, both integers) without evaluating a sine or cosine per
entry. Positions are split as :math:`m = c + q + r` with a coarse part :math:`c`, a block start
:math:`q` and an offset :math:`r` inside a block of ``B`` rows (:func:`block_plan`). Sines and
cosines are evaluated directly (in float64) only for the few distinct coarse parts, block starts
and offsets; every table entry then costs two multiplications and one addition, written block by
block straight into the output array, so the temporaries stay in the CPU cache and memory stays
bounded. The step is one complex multiplication per pair: with
:math:`w_m = \sin m\theta_i + i\cos m\theta_i`, the identities above read
:math:`w_{a+r} = w_a\,e^{-ir\theta_i}` (chapter 4's :math:`e^{im\theta}`, conjugated and turned by
:math:`i`), so numpy does the two products and the sum of each entry in one pass.

The error of the result is bounded in :mod:`posenc_lib.error_bounds` (proved in chapter 11).
Users call :func:`posenc_lib.sinusoidal`, which uses this method for integer positions in
arithmetic progression (``method="angle_addition"`` forces it).
"""

from __future__ import annotations

import itertools
import math
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from ._validation import (
    _is_integer,
    check_count,
    check_dim,
    check_float_dtype,
    check_real_array,
    check_vector,
    describe,
)

__all__ = [
    "MAX_EXACT_POSITION",
    "MAX_THREADS",
    "block_plan",
    "fill_progression",
    "integer_progression",
]

#: The largest position magnitude the method accepts (positions must be exact in float64).
MAX_EXACT_POSITION = 2**52

#: Most threads used for one table (set to 1 for single-threaded generation).
MAX_THREADS = 4

#: Target size in bytes of one block of offset factors (``B x dim``), about the L2 cache size.
_BLOCK_BYTES = 512 * 1024
#: Target size in bytes of the slice of output rows combined by one ufunc call.
_CHUNK_BYTES = 512 * 1024
#: Tables with at least this many entries are filled by several threads (below it, starting the
#: threads costs more than they save: measured on the benchmark machine of chapter 11).
_THREAD_MIN_ENTRIES = 1 << 24


def integer_progression(positions: ArrayLike) -> tuple[int, int] | None:
    """``(start, step)`` if ``positions`` are exact integers in arithmetic progression, else None.

    This is when the method applies: :func:`posenc_lib.sinusoidal` uses it for such positions.

    Parameters
    ----------
    positions : array_like
        A 1-D array of real positions.

    Returns
    -------
    tuple or None
        Two ints ``(start, step)`` with ``positions[k] == start + k * step``; ``None`` for an
        empty array, non-integer or non-finite values, uneven spacing, or magnitudes above
        :data:`MAX_EXACT_POSITION`. A single position gives step 1.

    Examples
    --------
    >>> from posenc_lib.angle_addition import integer_progression
    >>> integer_progression([5.0, 8.0, 11.0])
    (5, 3)
    >>> integer_progression([0.0, 0.5]) is None
    True
    """
    return _integer_progression(check_real_array(positions, "positions"))


def _integer_progression(pos: np.ndarray) -> tuple[int, int] | None:
    """:func:`integer_progression` of a float64 array."""
    if pos.ndim != 1 or pos.size == 0:
        return None
    if not np.all(np.isfinite(pos)) or np.max(np.abs(pos)) > MAX_EXACT_POSITION:
        return None
    if not np.all(pos == np.floor(pos)):
        return None
    start = int(pos[0])
    if pos.size == 1:
        return start, 1
    step = int(pos[1] - pos[0])
    expected = start + step * np.arange(pos.size, dtype=np.float64)
    if not np.array_equal(pos, expected):
        return None
    return start, step


def _as_slice(index: np.ndarray) -> slice | np.ndarray:
    """``index`` as an equivalent basic slice when it is an increasing arithmetic progression.

    Every layout's sine and cosine columns are such progressions (``0::2``, ``1::2``, ``:d/2``,
    ``d/2:``). Assigning through a slice writes a strided view; assigning through an index array
    is a gather-scatter that is tens of times slower on the factor arrays of a block.
    """
    idx = np.asarray(index)
    if idx.ndim != 1 or idx.size == 0:
        return idx
    step = int(idx[1] - idx[0]) if idx.size > 1 else 1
    if step < 1 or not np.array_equal(idx, idx[0] + step * np.arange(idx.size)):
        return idx
    return slice(int(idx[0]), int(idx[-1]) + 1, step)


def _is_interleaved(sin_slot: np.ndarray | slice, cos_slot: np.ndarray | slice) -> bool:
    """Whether the slots are the interleaved layout's ``0::2`` (sines) and ``1::2`` (cosines)."""
    return (
        isinstance(sin_slot, slice)
        and isinstance(cos_slot, slice)
        and (sin_slot.start, sin_slot.step, cos_slot.start, cos_slot.step)
        == (0, 2, 1, 2)
    )


def _sin_cos(positions: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Direct float64 sin and cos of the angles ``positions[:, None] * theta``."""
    phase = np.multiply.outer(positions.astype(np.float64), theta)
    return np.sin(phase), np.cos(phase)


def block_plan(
    length: int, dim: int, *, dtype: DTypeLike = np.float64, block: int | None = None
) -> dict[str, int | str]:
    r"""How :func:`fill_progression` splits ``length`` rows into blocks and groups.

    Row :math:`k = (gG + l)B + r` (group :math:`g`, block :math:`l < G` in it, offset
    :math:`r < B`). Sines and cosines are evaluated directly for ``direct_rows``
    :math:`= B + G + \lceil n_{\mathrm{blocks}}/G \rceil` positions (each for all :math:`d/2`
    pairs) instead of ``length``; every other entry costs two multiplications and an addition.
    By default :math:`B` is the number of rows whose factors take about 512 KiB (a core's L2
    cache), but at most :math:`\lfloor\sqrt{L}\rfloor`, so that the directly evaluated rows stay
    a small part of a small table; :math:`G = \lceil\sqrt{n_{\mathrm{blocks}}}\,\rceil`.

    Parameters
    ----------
    length : int
        The number of rows :math:`L \ge 0`.
    dim : int
        The dimension :math:`d`, a positive even integer.
    dtype : numpy.dtype
        The table's dtype: float32 and smaller tables are combined in float32, wider in float64.
    block : int or None
        Rows per block :math:`B`; ``None`` for the default above.

    Returns
    -------
    dict
        ``compute_dtype`` (``"float32"`` or ``"float64"``), ``block`` (:math:`B`),
        ``n_blocks``, ``group`` (:math:`G`), ``n_groups`` and ``direct_rows``.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.angle_addition import block_plan
    >>> plan = block_plan(10_000, 64, dtype=np.float32)
    >>> plan["block"], plan["group"], plan["direct_rows"]
    (100, 10, 120)
    """
    count = check_count(length, "length", 0)
    dim = check_dim(dim)
    if block is not None:
        block = check_count(block, "block", 1)
    return _block_plan(count, dim, check_float_dtype(dtype), block)


def _block_plan(
    count: int, dim: int, dtype: np.dtype, block: int | None
) -> dict[str, int | str]:
    """:func:`block_plan` of checked arguments."""
    compute = np.dtype(np.float32) if dtype.itemsize <= 4 else np.dtype(np.float64)
    if block is None:
        block = max(1, min(_BLOCK_BYTES // (dim * compute.itemsize), math.isqrt(count)))
    rows = int(max(1, min(count, block)))  # B: rows per block
    n_blocks = -(-count // rows) if count else 0
    group = math.isqrt(n_blocks - 1) + 1 if n_blocks > 1 else 1  # G ~ sqrt(n_blocks)
    n_groups = -(-n_blocks // group) if n_blocks else 0
    return {
        "compute_dtype": compute.name,
        "block": rows,
        "n_blocks": n_blocks,
        "group": group,
        "n_groups": n_groups,
        "direct_rows": rows + group + n_groups if count else 0,
    }


def fill_progression(
    out: np.ndarray,
    theta: ArrayLike,
    sin_cols: ArrayLike,
    cos_cols: ArrayLike,
    *,
    start: int = 0,
    step: int = 1,
    block: int | None = None,
) -> None:
    r"""Fill ``out[k]`` with the encoding of position :math:`s + k\,t` by angle addition.

    Each pair is handled as the complex number :math:`w = \sin m\theta_i + i\cos m\theta_i`,
    so that :math:`w_{a+r} = w_a\,e^{-ir\theta_i}`: the rotation (chapter 11) is one complex
    multiplication, two real products and one sum per entry, done by a single ufunc pass. The
    products are those of :math:`P \odot U + Q \odot V`; numpy may fuse one of them into the sum
    (a fused multiply-add), which only removes a rounding. Every layout is computed by the same
    operations (the interleaved one in place, the others through a staging block and exact
    copies), so the layouts of one table are exact permutations of one another. Large tables
    are filled by up to :data:`MAX_THREADS` threads, with identical results.

    Parameters
    ----------
    out : numpy.ndarray
        A writable 2-D floating array of shape ``(L, d)``; every entry is overwritten.
    theta : array_like
        The :math:`d/2` angular frequencies :math:`\theta_i`.
    sin_cols, cos_cols : array_like
        The columns of :math:`\sin m\theta_i` and :math:`\cos m\theta_i`
        (:func:`posenc_lib.layouts.pair_columns`).
    start, step : int
        The positions are :math:`s + k\,t`; :math:`|s| + |t|\,L` must not exceed
        :data:`MAX_EXACT_POSITION`.
    block : int or None
        Rows per block (see :func:`block_plan`).

    Returns
    -------
    None
        ``out`` is filled in place.

    Examples
    --------
    >>> import numpy as np
    >>> import posenc_lib as pe
    >>> from posenc_lib.angle_addition import fill_progression
    >>> from posenc_lib.layouts import pair_columns
    >>> out = np.empty((1000, 8))
    >>> fill_progression(out, pe.frequencies(8), *pair_columns(8), start=7, step=3)
    >>> direct = pe.sinusoidal(7 + 3 * np.arange(1000), 8, method="direct")
    >>> bool(np.abs(out - direct).max() < 1e-12)
    True
    """
    accepted = "a writable 2-D floating numpy array with an even number of columns"
    if (
        not isinstance(out, np.ndarray)
        or out.ndim != 2
        or not out.flags.writeable
        or not np.issubdtype(out.dtype, np.floating)
        or out.shape[1] == 0
        or out.shape[1] % 2
    ):
        raise TypeError(f"out must be {accepted}, got {describe(out)}")
    dim = out.shape[1]
    theta = check_vector(theta, "theta")
    if theta.size != dim // 2:
        raise ValueError(
            f"theta must have d/2 = {dim // 2} entries, got {describe(theta)}"
        )
    columns = np.arange(dim)
    accepted = f"index arrays or slices that together cover 0 .. {dim - 1} once"
    try:
        sin_index, cos_index = columns[sin_cols], columns[cos_cols]
    except (IndexError, TypeError, ValueError, RuntimeError) as exc:
        raise ValueError(f"sin_cols and cos_cols must be {accepted}: {exc}") from exc
    both = np.concatenate([np.ravel(sin_index), np.ravel(cos_index)])
    if not np.array_equal(np.sort(both), columns) or np.size(sin_index) != dim // 2:
        raise ValueError(
            f"sin_cols and cos_cols must be {accepted}, got {describe(both)}"
        )
    for name, value in (("start", start), ("step", step)):
        if not _is_integer(value):
            raise TypeError(f"{name} must be an integer, got {describe(value)}")
    start, step = int(start), int(step)
    if block is not None:
        block = check_count(block, "block", 1)
    if abs(start) + abs(step) * out.shape[0] > MAX_EXACT_POSITION:
        raise ValueError(
            "positions must stay within MAX_EXACT_POSITION = 2**52 in magnitude, got up to "
            f"|start| + |step| * L = {abs(start) + abs(step) * out.shape[0]}"
        )
    sin_slot = sin_cols if isinstance(sin_cols, slice) else _as_slice(sin_index)
    cos_slot = cos_cols if isinstance(cos_cols, slice) else _as_slice(cos_index)
    _fill_progression(out, theta, sin_slot, cos_slot, start, step, block)


def _fill_progression(
    out: np.ndarray,
    theta: np.ndarray,
    sin_slot: slice | np.ndarray,
    cos_slot: slice | np.ndarray,
    start: int,
    step: int,
    block: int | None = None,
) -> None:
    """:func:`fill_progression` of checked arguments (slots: slices or index arrays)."""
    count, dim = out.shape
    if count == 0:
        return
    plan = _block_plan(count, dim, out.dtype, block)
    compute = np.dtype(plan["compute_dtype"])
    complex_type = np.result_type(compute, np.complex64)  # complex64 or complex128
    # The interleaved layout in the compute dtype is written in place, viewed as complex numbers.
    in_place = (
        out.dtype == compute
        and out.flags.c_contiguous
        and _is_interleaved(sin_slot, cos_slot)
    )
    keys = ("block", "group", "n_blocks", "n_groups")
    rows, group, n_blocks, n_groups = (int(plan[key]) for key in keys)
    half = dim // 2
    per_call = max(1, min(group, _CHUNK_BYTES // (rows * dim * compute.itemsize)))

    # Offsets r = step * k, k < B: the rotation factors exp(-i r theta_i), rounded to compute.
    fine_s, fine_c = _sin_cos(step * np.arange(rows, dtype=np.int64), theta)
    factor = np.empty((rows, half), dtype=complex_type)
    factor.real = fine_c
    factor.imag = -fine_s
    # Block starts inside a group: step * B * l, l < G (float64).
    mid_s, mid_c = _sin_cos(step * rows * np.arange(group, dtype=np.int64), theta)

    def fill_groups(g_begin: int, g_end: int) -> None:
        """Fill the rows of groups ``g_begin .. g_end - 1`` (own buffers: safe in a thread)."""
        starts = np.empty((group, half), dtype=complex_type)
        stage = (
            None if in_place else np.empty((per_call, rows, half), dtype=complex_type)
        )
        for g in range(g_begin, g_end):
            first_block = g * group
            n_here = min(group, n_blocks - first_block)
            coarse = np.array([start + step * rows * first_block], dtype=np.float64)
            cs, cc = _sin_cos(coarse, theta)
            # w of each block start, from the group start and the in-group offsets (float64).
            starts.real[:n_here] = cs * mid_c[:n_here] + cc * mid_s[:n_here]
            starts.imag[:n_here] = cc * mid_c[:n_here] - cs * mid_s[:n_here]
            for b0 in range(0, n_here, per_call):
                nb = min(per_call, n_here - b0)
                row0 = (first_block + b0) * rows
                row1 = min(count, row0 + nb * rows)
                full = (row1 - row0) // rows
                pieces = [(0, full, rows)] if full else []
                if row1 - row0 > full * rows:
                    pieces.append((full, full + 1, row1 - row0 - full * rows))
                for k0, k1, r in pieces:
                    a0 = row0 + k0 * rows
                    a1 = a0 + (k1 - k0) * r
                    if in_place:
                        target = out[a0:a1].reshape(k1 - k0, r, dim).view(complex_type)
                    else:
                        target = stage[: k1 - k0, :r]  # type: ignore[index]
                    np.multiply(
                        factor[None, :r], starts[b0 + k0 : b0 + k1, None, :], out=target
                    )
                    floats = target.view(compute)
                    np.clip(floats, -1.0, 1.0, out=floats)
                    if not in_place:
                        flat = target.reshape(-1, half)
                        out[a0:a1, sin_slot] = flat.real
                        out[a0:a1, cos_slot] = flat.imag

    # numpy releases the GIL inside ufunc loops, so large tables are split between threads; each
    # entry is computed by the same operations whatever the split, so the result is identical.
    workers = min(_max_workers(), n_groups) if count * dim >= _THREAD_MIN_ENTRIES else 1
    if workers <= 1:
        fill_groups(0, n_groups)
        return
    # Many small jobs rather than one per thread: on a busy machine a thread that gets less CPU
    # simply takes fewer jobs, instead of holding up the whole table.
    n_jobs = min(n_groups, 4 * workers)
    bounds = np.linspace(0, n_groups, n_jobs + 1).round().astype(int)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        jobs = [
            pool.submit(fill_groups, int(lo), int(hi))
            for lo, hi in itertools.pairwise(bounds)
        ]
        for job in jobs:
            job.result()


def _max_workers() -> int:
    """Threads for one table: the CPUs this process may use, at most :data:`MAX_THREADS`."""
    try:
        available = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        available = os.cpu_count() or 1
    return max(1, min(MAX_THREADS, available))
