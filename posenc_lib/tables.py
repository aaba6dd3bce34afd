r"""Fast, accurate sinusoid tables by angle addition, their error bounds, and framework conventions.

The shift property of the encoding (chapter 2) says that moving a position by :math:`r` rotates
every frequency pair by the angle :math:`r\theta_i`:

.. math::

    \sin((a + r)\theta) = \sin a\theta\,\cos r\theta + \cos a\theta\,\sin r\theta, \qquad
    \cos((a + r)\theta) = \cos a\theta\,\cos r\theta - \sin a\theta\,\sin r\theta.

:func:`sinusoidal_range` uses it to build the table of the positions
:math:`m_k = s + k\,t` (``start`` :math:`s`, ``step`` :math:`t`, both integers) without evaluating a
sine or cosine per entry. Positions are split as :math:`m = c + q + r` with a coarse part
:math:`c`, a block start :math:`q` and an offset :math:`r` inside a block of ``B`` rows. Sines and
cosines are evaluated directly (in float64) only for the few distinct coarse parts, block starts and
offsets; every table entry then costs two multiplications and one addition, written block by block
straight into the output array, so the temporaries stay in the CPU cache and memory stays bounded.
The step is done as one complex multiplication per pair: with
:math:`w_m = \sin m\theta_i + i\cos m\theta_i`, the identities above read
:math:`w_{a+r} = w_a\,e^{-ir\theta_i}` (chapter 4's :math:`e^{im\theta}`, conjugated and turned by
:math:`i`), so numpy does the two products and the sum of each entry in one pass.

Accuracy (proved in chapter 8 and asserted by ``tests/test_tables.py``). Let
:math:`M = |s| + |t|\,(L-1)` bound the positions and :math:`\varepsilon = 2^{-52}`.

* float64 output: every entry is within :math:`2.5\,\varepsilon M + 16\,\varepsilon` of the exact
  value with :math:`\theta_i = b^{-2i/d}` exact. The first term is the floor that *any* float64
  evaluation has: rounding the angle :math:`m\theta_i` (and :math:`\theta_i` itself) to float64
  moves it by about :math:`m\theta_i\varepsilon`.
* float32 output: the combination is done in float32 on float32-rounded factors and clipped to
  :math:`[-1, 1]` (numpy may fuse one product into the sum, which removes a rounding and keeps
  the bound); the error is at most :data:`FLOAT32_COMBINE_BOUND`
  :math:`= (3 + 2\sqrt 2)\,2^{-25} \approx 1.74\times 10^{-7}` plus three times the float64 bound.
"""

from __future__ import annotations

import itertools
import math
import numbers
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from ._validation import (
    DEFAULT_MAX_BYTES,
    check_base,
    check_choice,
    check_count,
    check_dim,
    check_float_dtype,
    check_positions,
    check_real_array,
    check_table_size,
)
from .encoding import LAYOUTS, SPACINGS, _slots, frequencies

#: The worst-case error :math:`(3 + 2\sqrt2)\,2^{-25}` of one float32 angle-addition step on
#: float32-rounded factors, clipped to :math:`[-1, 1]` (chapter 8).
FLOAT32_COMBINE_BOUND = (3.0 + 2.0 * math.sqrt(2.0)) * 2.0**-25

#: The largest position magnitude the fast path accepts (positions must be exact in float64).
MAX_EXACT_POSITION = 2**52

#: Target size in bytes of one block of offset factors (``B x dim``), about the L2 cache size.
_BLOCK_BYTES = 512 * 1024
#: Target size in bytes of the slice of output rows combined by one ufunc call.
_CHUNK_BYTES = 512 * 1024
#: Tables with at least this many entries are filled by several threads (below it, starting the
#: threads costs more than they save: measured on the benchmark machine of chapter 8).
_THREAD_MIN_ENTRIES = 1 << 24
#: Most threads used for one table (set to 1 for single-threaded generation).
MAX_THREADS = 4

#: The layout, exponent spacing and padding row of each framework's table, by name.
CONVENTIONS = {
    "vaswani2017": {"layout": "interleaved", "spacing": "2i/d", "padding_row": False},
    "tensor2tensor": {"layout": "concatenated", "spacing": "i/(d/2-1)", "padding_row": False},
    "fairseq": {"layout": "concatenated", "spacing": "i/(d/2-1)", "padding_row": True},
    "hf_marian": {"layout": "concatenated", "spacing": "2i/d", "padding_row": False},
}


def float64_bound(max_position: float) -> float:
    r"""Error bound of float64 tables, :math:`|m| \le M`: :math:`2.5\varepsilon M + 16\varepsilon`.

    :math:`\varepsilon = 2^{-52}` is the float64 machine epsilon. The first term is the angle floor
    (rounding :math:`\theta_i` and :math:`m\theta_i` to float64, about :math:`m\theta_i\varepsilon`
    in total, with :math:`\theta_i \le 1`); the second covers the evaluation of sine and cosine
    and the two angle-addition steps of :func:`sinusoidal_range`.
    """
    if np.ndim(max_position) != 0:
        raise TypeError(f"max_position must be a real scalar, got shape {np.shape(max_position)}")
    reach = abs(float(check_real_array(max_position, "max_position")))
    eps = float(np.finfo(np.float64).eps)
    return 2.5 * eps * reach + 16.0 * eps


def error_bound(max_position: float, dtype: DTypeLike = np.float64) -> float:
    r"""Proved max abs error of :func:`sinusoidal_range` tables in ``dtype`` over :math:`|m| \le M`.

    float64 (and wider): :func:`float64_bound`. float32: :data:`FLOAT32_COMBINE_BOUND` plus three
    times :func:`float64_bound` (the float64 factors' errors pass through the float32 step).
    float16: the float32 bound plus half a float16 unit in the last place below 1,
    :math:`2^{-12}`.
    """
    resolved = check_float_dtype(dtype)
    base = float64_bound(max_position)
    if resolved.itemsize >= 8:
        return base
    bound32 = FLOAT32_COMBINE_BOUND + 3.0 * base
    if resolved.itemsize == 4:
        return bound32
    return bound32 + 2.0**-12


def integer_progression(positions: np.ndarray) -> tuple[int, int] | None:
    """``(start, step)`` if float64 ``positions`` are exact integers in arithmetic progression.

    Returns ``None`` for fewer than one position, non-integer values, uneven spacing, or
    magnitudes above :data:`MAX_EXACT_POSITION`.
    """
    pos = np.asarray(positions, dtype=np.float64)
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


def _refuse_huge_length(positions: object, dim: int, itemsize: int, max_bytes: int) -> None:
    """Apply the ``max_bytes`` check to an int length before ``positions`` is materialized."""
    if isinstance(positions, numbers.Integral) and not isinstance(positions, bool):
        if positions > 0:
            check_table_size(int(positions), dim, itemsize, max_bytes)


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
        and (sin_slot.start, sin_slot.step, cos_slot.start, cos_slot.step) == (0, 2, 1, 2)
    )


def _sin_cos(positions: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Direct float64 sin and cos of the angles ``positions[:, None] * theta``."""
    phase = np.multiply.outer(positions.astype(np.float64), theta)
    return np.sin(phase), np.cos(phase)


def block_plan(
    count: int, dim: int, dtype: DTypeLike = np.float64, block: int | None = None
) -> dict[str, int | str]:
    r"""How :func:`sinusoidal_range` splits ``count`` rows into blocks and groups.

    Row :math:`k = (gG + l)B + r` (group :math:`g`, block :math:`l < G` in it, offset
    :math:`r < B`). Sines and cosines are evaluated directly for ``direct_rows``
    :math:`= B + G + \lceil n_{\mathrm{blocks}}/G \rceil` positions (each for all :math:`d/2`
    pairs) instead of ``count``; every other entry costs two multiplications and an addition.
    By default :math:`B` is the number of rows whose factors take about 512 KiB (a core's L2
    cache), but at most :math:`\lfloor\sqrt{L}\rfloor`, so that the directly evaluated rows stay
    a small part of a small table.
    """
    count = check_count(count, "count", 0)
    dim = check_dim(dim)
    if block is not None:
        block = check_count(block, "block", 1)
    compute = (
        np.dtype(np.float32) if check_float_dtype(dtype).itemsize <= 4 else np.dtype(np.float64)
    )
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


def _fill_progression(
    out: np.ndarray,
    start: int,
    step: int,
    theta: np.ndarray,
    sin_slot: np.ndarray | slice,
    cos_slot: np.ndarray | slice,
    block: int | None = None,
) -> None:
    r"""Fill ``out[k] = p_{start + k*step}`` by angle addition (see the module docstring).

    Each pair is handled as the complex number :math:`w = \sin m\theta_i + i\cos m\theta_i`, so
    that :math:`w_{a+r} = w_a\,e^{-ir\theta_i}`: the rotation (chapter 8) is one complex
    multiplication, two real products and one sum per entry, done by a single ufunc pass. The
    products are those of :math:`P \odot U + Q \odot V`; numpy may fuse one of them into the sum
    (a fused multiply-add), which only removes a rounding. Every layout is computed by the same
    operations (the interleaved one in place, the others through a staging block and exact
    copies), so the layouts of one table are exact permutations of one another.
    """
    count, dim = out.shape
    if count == 0:
        return
    sin_slot, cos_slot = _as_slice(sin_slot), _as_slice(cos_slot)
    plan = block_plan(count, dim, out.dtype, block)
    compute = np.dtype(plan["compute_dtype"])
    complex_type = np.result_type(compute, np.complex64)  # complex64 or complex128
    # The interleaved layout in the compute dtype is written in place, viewed as complex numbers.
    in_place = (
        out.dtype == compute and out.flags.c_contiguous and _is_interleaved(sin_slot, cos_slot)
    )
    rows, group, n_blocks, n_groups = (
        plan["block"],
        plan["group"],
        plan["n_blocks"],
        plan["n_groups"],
    )
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
        stage = None if in_place else np.empty((per_call, rows, half), dtype=complex_type)
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
                    np.multiply(factor[None, :r], starts[b0 + k0 : b0 + k1, None, :], out=target)
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
        jobs = [pool.submit(fill_groups, int(lo), int(hi)) for lo, hi in itertools.pairwise(bounds)]
        for job in jobs:
            job.result()


def _max_workers() -> int:
    """Threads for one table: the CPUs this process may use, at most :data:`MAX_THREADS`."""
    try:
        available = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        available = os.cpu_count() or 1
    return max(1, min(MAX_THREADS, available))


def sinusoidal_range(
    count: int,
    dim: int,
    base: float = 10000.0,
    layout: str = "interleaved",
    dtype: DTypeLike = np.float64,
    *,
    start: int = 0,
    step: int = 1,
    spacing: str = "2i/d",
    max_bytes: int = DEFAULT_MAX_BYTES,
    block: int | None = None,
) -> np.ndarray:
    r"""The table of positions :math:`m_k = s + k t`, :math:`k = 0, \dots, L-1`, by angle addition.

    Row :math:`k` is :math:`p_{m_k}` in ``layout`` (interleaved: :math:`p_{m,2i} = \sin m\theta_i`,
    :math:`p_{m,2i+1} = \cos m\theta_i`, :math:`\theta_i = b^{-2i/d}`). Rows are built block by
    block from :math:`p_{a + r} = M_r\,p_a` (the shift matrix of chapter 2): sines and cosines
    are evaluated in float64 only for block starts and in-block offsets, and each entry costs two
    multiplications and an addition in float32 (float32 or smaller output) or float64.

    Parameters
    ----------
    count
        The number of rows :math:`L \ge 0`.
    dim
        The model dimension :math:`d`, a positive even integer.
    base
        The base :math:`b > 1`.
    layout
        One of :data:`posenc_lib.LAYOUTS`.
    dtype
        A numpy floating dtype for the result.
    start, step
        Integers :math:`s` and :math:`t`; :math:`|s| + |t|\,L` must not exceed
        :data:`MAX_EXACT_POSITION`.
    spacing
        One of :data:`posenc_lib.SPACINGS`.
    max_bytes
        Refuse to build a table larger than this (default 2 GiB).
    block
        Rows per block ``B`` (default: a block of factors of about 512 KiB, at most
        :math:`\sqrt{L}` rows; see :func:`block_plan`).

    Returns
    -------
    numpy.ndarray
        Shape ``(count, dim)``; every entry within :func:`error_bound` of the exact value.
    """
    for name, value in (("count", count), ("start", start), ("step", step)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if count < 0:
        raise ValueError(f"count must be an integer >= 0, got {count}")
    if block is not None and (
        isinstance(block, bool) or not isinstance(block, int | np.integer) or block < 1
    ):
        raise ValueError(f"block must be None or an integer >= 1, got {block!r}")
    dim = check_dim(dim)
    check_base(base)
    check_choice(layout, "layout", LAYOUTS)
    check_choice(spacing, "spacing", SPACINGS)
    out_dtype = check_float_dtype(dtype)
    count, start, step = int(count), int(start), int(step)
    if abs(start) + abs(step) * count > MAX_EXACT_POSITION:
        raise ValueError(
            f"positions up to |start| + |step|*count = {abs(start) + abs(step) * count} exceed "
            f"MAX_EXACT_POSITION = 2**52; use posenc_lib.sinusoidal with explicit positions"
        )
    check_table_size(count, dim, out_dtype.itemsize, max_bytes)
    table = np.empty((count, dim), dtype=out_dtype)
    sin_slot, cos_slot = _slots(dim, layout)
    _fill_progression(
        table, start, step, frequencies(dim, base, spacing), sin_slot, cos_slot, block
    )
    return table


def sinusoidal_direct(
    positions: ArrayLike | int,
    dim: int,
    base: float = 10000.0,
    layout: str = "interleaved",
    dtype: DTypeLike = np.float64,
    *,
    spacing: str = "2i/d",
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> np.ndarray:
    r"""The direct method: float64 angles :math:`m\theta_i`, one sine and one cosine per entry.

    The reference that :func:`sinusoidal_range` is checked against, and the method
    :func:`posenc_lib.sinusoidal` uses for positions that are not an integer progression
    (fractional positions, arbitrary arrays). Arguments as in :func:`posenc_lib.sinusoidal`.
    """
    theta = frequencies(dim, base, spacing)
    pos, table = _new_table(positions, dim, layout, dtype, max_bytes)
    _fill_direct(table, pos, theta, *_slots(table.shape[1], layout))
    return table


def _new_table(
    positions: ArrayLike | int, dim: int, layout: str, dtype: DTypeLike, max_bytes: int
) -> tuple[np.ndarray, np.ndarray]:
    """Check the arguments every table builder shares; return (float64 positions, empty table).

    The size limit is applied to the float64 working arrays (at least 8 bytes an entry), and for
    an int length before the positions are materialized.
    """
    dim = check_dim(dim)
    check_choice(layout, "layout", LAYOUTS)
    out_dtype = check_float_dtype(dtype)
    itemsize = max(out_dtype.itemsize, 8)
    _refuse_huge_length(positions, dim, itemsize, max_bytes)
    pos = check_positions(positions)
    check_table_size(pos.size, dim, itemsize, max_bytes)
    return pos, np.empty((pos.size, dim), dtype=out_dtype)


def _fill_direct(
    out: np.ndarray,
    positions: np.ndarray,
    theta: np.ndarray,
    sin_slot: np.ndarray,
    cos_slot: np.ndarray,
) -> None:
    """``out[k] = p_{positions[k]}`` by the direct method (float64 angles, sin and cos)."""
    sin_part, cos_part = _sin_cos(positions, theta)
    out[:, _as_slice(sin_slot)] = sin_part
    out[:, _as_slice(cos_slot)] = cos_part


def reference_entries(
    positions: ArrayLike,
    pairs: ArrayLike,
    dim: int,
    base: float = 10000.0,
    spacing: str = "2i/d",
    dps: int = 40,
) -> tuple[np.ndarray, np.ndarray]:
    r"""High-precision :math:`\sin m\theta_i` and :math:`\cos m\theta_i` at chosen entries (mpmath).

    :math:`\theta_i = b^{-2i/d}` (or :math:`b^{-i/(d/2-1)}`) is evaluated exactly in ``dps``
    decimal digits from the float64 value of ``base``; positions are taken exactly as the float64
    values given. ``positions`` and ``pairs`` broadcast against each other; the results are the
    float64 roundings (error at most :math:`2^{-53}`) of the high-precision values.
    Requires mpmath (the ``sym`` extra).
    """
    import mpmath

    dim = check_dim(dim)
    base = check_base(base)
    check_choice(spacing, "spacing", SPACINGS)
    if isinstance(dps, bool) or not isinstance(dps, int) or dps < 20:
        raise ValueError(f"dps must be an integer >= 20, got {dps!r}")
    pos = np.asarray(check_positions(np.atleast_1d(positions).ravel()))
    pos = pos.reshape(np.shape(positions))
    pair = np.asarray(pairs)
    if not np.issubdtype(pair.dtype, np.integer):
        raise TypeError(f"pairs must hold integers, got dtype {pair.dtype}")
    if pair.size and (pair.min() < 0 or pair.max() >= dim // 2):
        raise ValueError(f"pairs must lie in 0 .. dim/2 - 1 = {dim // 2 - 1}")
    pos_b, pair_b = np.broadcast_arrays(pos, pair)
    sin_out = np.empty(pos_b.shape)
    cos_out = np.empty(pos_b.shape)
    with mpmath.workdps(dps):
        b = mpmath.mpf(base)
        denominator = dim if spacing == "2i/d" else max(dim // 2 - 1, 1)
        numerator = 2 if spacing == "2i/d" else 1
        cache: dict[int, object] = {}
        for idx in np.ndindex(pos_b.shape):
            i = int(pair_b[idx])
            if i not in cache:
                cache[i] = mpmath.power(b, -mpmath.mpf(numerator * i) / denominator)
            angle = mpmath.mpf(float(pos_b[idx])) * cache[i]
            sin_out[idx] = float(mpmath.sin(angle))
            cos_out[idx] = float(mpmath.cos(angle))
    return sin_out, cos_out


def sampled_error(
    table: ArrayLike,
    positions: ArrayLike,
    rows: Sequence[int] | np.ndarray,
    pairs: Sequence[int] | np.ndarray,
    base: float = 10000.0,
    layout: str = "interleaved",
    spacing: str = "2i/d",
) -> float:
    """Max abs error of ``table`` at entries ``(rows[j], pairs[j])`` (vs :func:`reference_entries`).

    ``positions[rows[j]]`` is the position of row ``rows[j]``; both the sine and the cosine slot
    of each sampled pair are checked.
    """
    array = np.asarray(table, dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(f"table must be 2-D (positions x dim), got shape {array.shape}")
    dim = check_dim(array.shape[1])
    check_choice(layout, "layout", LAYOUTS)
    row = np.asarray(rows, dtype=np.intp)
    pair = np.asarray(pairs, dtype=np.intp)
    if row.shape != pair.shape:
        raise ValueError(f"rows and pairs must have one shape, got {row.shape} and {pair.shape}")
    pos = check_positions(positions)
    ref_sin, ref_cos = reference_entries(pos[row], pair, dim, base, spacing)
    sin_slot, cos_slot = _slots(dim, layout)
    err_sin = np.abs(array[row, sin_slot[pair]] - ref_sin)
    err_cos = np.abs(array[row, cos_slot[pair]] - ref_cos)
    return float(max(err_sin.max(initial=0.0), err_cos.max(initial=0.0)))


def framework_table(
    convention: str,
    num_embeddings: int,
    dim: int,
    dtype: DTypeLike = np.float32,
    *,
    padding_idx: int = 1,
) -> np.ndarray:
    r"""The position table as a framework stores it, computed accurately by this library.

    ``convention`` is a key of :data:`CONVENTIONS`:

    * ``"vaswani2017"``: the paper's interleaved pairs, :math:`\theta_i = 10000^{-2i/d}`
      (also the PyTorch tutorial, the Annotated Transformer, Hugging Face DistilBERT/XLM).
    * ``"tensor2tensor"``: ``get_timing_signal_1d``: ``[sin | cos]`` halves,
      :math:`\theta_i = 10000^{-i/(d/2-1)}`; row ``m`` is position ``m``.
    * ``"fairseq"``: ``SinusoidalPositionalEmbedding.get_embedding``: as tensor2tensor, and row
      ``padding_idx`` is all zeros. Tokens do not start at row 0: the ``t``-th token
      (``t = 0, 1, ...``) reads row ``padding_idx + 1 + t`` (see :func:`framework_rows`).
      Hugging Face's FSMT, M2M100 and Speech2Text copy this.
    * ``"hf_marian"``: Hugging Face ``MarianSinusoidalPositionalEmbedding``: ``[sin | cos]``
      halves with the paper's :math:`\theta_i = 10000^{-2i/d}`.

    Row ``r`` of the result is :math:`p_r` in that layout and spacing; the frameworks compute the
    same formula with float32 angles, so their tables differ from this one by their float32 angle
    error (chapter 8).
    """
    check_choice(convention, "convention", tuple(CONVENTIONS))
    dim = check_dim(dim)
    if isinstance(num_embeddings, bool) or not isinstance(num_embeddings, int | np.integer):
        raise TypeError(f"num_embeddings must be an integer >= 0, got {num_embeddings!r}")
    if num_embeddings < 0:
        raise ValueError(f"num_embeddings must be an integer >= 0, got {num_embeddings}")
    spec = CONVENTIONS[convention]
    if convention == "fairseq" and dim < 4:
        raise ValueError("dim must be >= 4 for the fairseq convention (it divides by d/2 - 1)")
    if spec["padding_row"] and (
        isinstance(padding_idx, bool)
        or not isinstance(padding_idx, int | np.integer)
        or not 0 <= padding_idx < max(int(num_embeddings), 1)
    ):
        raise ValueError(
            f"padding_idx must be an integer in 0 .. num_embeddings - 1, got {padding_idx!r}"
        )
    table = sinusoidal_range(
        int(num_embeddings), dim, 10000.0, str(spec["layout"]), dtype, spacing=str(spec["spacing"])
    )
    if spec["padding_row"] and num_embeddings:
        table[padding_idx] = 0.0
    return table


def framework_rows(convention: str, seq_len: int, *, padding_idx: int = 1) -> np.ndarray:
    """Row indices of :func:`framework_table` read by tokens ``0 .. seq_len-1`` (no padding).

    ``padding_idx + 1 + t`` for fairseq (its ``make_positions``), ``t`` for the others.
    """
    check_choice(convention, "convention", tuple(CONVENTIONS))
    seq_len = check_count(seq_len, "seq_len", 0)
    padding_idx = check_count(padding_idx, "padding_idx", 0)
    offset = padding_idx + 1 if CONVENTIONS[convention]["padding_row"] else 0
    return offset + np.arange(int(seq_len))
