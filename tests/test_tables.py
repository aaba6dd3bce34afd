"""Tests of posenc_lib.tables: accuracy vs mpmath, fast == direct, layouts, edge cases."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_lib as pe
from posenc_lib import tables as T

RNG_SEED = 20260

# ---------------------------------------------------------------------------------------------
# Accuracy against high precision (mpmath, theta_i = b^(-2i/d) exact)
# ---------------------------------------------------------------------------------------------


def _sample(count: int, dim: int, n: int, seed: int = RNG_SEED) -> tuple[np.ndarray, np.ndarray]:
    """Random (row, pair) entries, always including the first and last rows and pairs."""
    rng = np.random.default_rng(seed)
    rows = np.concatenate([[0, count - 1, count - 1, 0], rng.integers(0, count, n)])
    pairs = np.concatenate([[0, 0, dim // 2 - 1, dim // 2 - 1], rng.integers(0, dim // 2, n)])
    return rows, pairs


@pytest.mark.parametrize(("dtype", "target"), [(np.float32, 2e-7), (np.float64, 1e-9)])
@pytest.mark.parametrize(
    ("start", "step", "count", "dim"),
    [
        (0, 1, 6000, 128),  # the first positions
        (10**6 - 5000, 1, 5001, 64),  # consecutive positions ending at 10**6
        (0, 499, 2005, 256),  # positions spread over 0 .. ~10**6
        (10**6, -333, 3001, 32),  # a descending progression
    ],
)
def test_fast_table_meets_accuracy_targets(dtype, target, start, step, count, dim):
    table = T.sinusoidal_range(count, dim, dtype=dtype, start=start, step=step)
    positions = start + step * np.arange(count)
    assert np.max(np.abs(positions)) <= 10**6
    rows, pairs = _sample(count, dim, 300)
    error = T.sampled_error(table, positions, rows, pairs)
    bound = T.error_bound(np.max(np.abs(positions)), dtype)
    assert error <= bound <= target, (error, bound, target)


@pytest.mark.parametrize("layout", pe.LAYOUTS)
@pytest.mark.parametrize("spacing", pe.SPACINGS)
def test_public_sinusoidal_fast_path_accuracy(layout, spacing):
    count, dim = 40000, 32  # above FAST_MIN_ENTRIES: the angle-addition path
    assert count * dim >= pe.encoding.FAST_MIN_ENTRIES
    table = pe.sinusoidal(count, dim, layout=layout, dtype=np.float32, spacing=spacing)
    rows, pairs = _sample(count, dim, 150, seed=7)
    error = T.sampled_error(table, np.arange(count), rows, pairs, layout=layout, spacing=spacing)
    assert error <= T.error_bound(count - 1, np.float32) <= 2e-7


@pytest.mark.parametrize(("dtype", "target"), [(np.float32, 2e-7), (np.float64, 1e-9)])
def test_public_sinusoidal_meets_accuracy_targets_up_to_a_million(dtype, target):
    # Both methods behind pe.sinusoidal, at positions reaching 10**6: an integer progression
    # (angle addition) and fractional positions (direct float64 sin/cos, then rounded to dtype).
    dim = 64
    progression = np.arange(10**6 - 4999, 10**6 + 1)
    fractional = np.linspace(0.0, 10**6, 5001) + 0.25
    fractional[-1] = 10**6
    assert T.integer_progression(progression) is not None
    assert T.integer_progression(fractional) is None
    for positions in (progression, fractional):
        table = pe.sinusoidal(positions, dim, dtype=dtype)
        rows, pairs = _sample(positions.size, dim, 300, seed=11)
        error = T.sampled_error(table, positions, rows, pairs)
        assert error <= T.error_bound(10**6, dtype) <= target, (error, target)


def test_float64_floor_grows_with_position_but_stays_within_bound():
    # At m ~ 1e7 the float64 angle floor (~ m * eps) dominates; the bound must still hold.
    start, count, dim = 10**7 - 2000, 2001, 16
    table = T.sinusoidal_range(count, dim, start=start)
    direct = T.sinusoidal_direct(start + np.arange(count), dim)
    rows, pairs = _sample(count, dim, 200, seed=3)
    positions = start + np.arange(count)
    bound = T.error_bound(10**7, np.float64)
    assert T.sampled_error(table, positions, rows, pairs) <= bound
    assert T.sampled_error(direct, positions, rows, pairs) <= bound
    assert 1e-9 < bound < 1e-8  # the floor at 1e7 exceeds the 1e-9 target met up to 1e6


def test_reference_entries_known_values():
    # dim = 4, base = 10000: theta_1 = 10000**(-1/2) = 0.01 exactly, so m = 100 gives angle 1.
    s, c = T.reference_entries(np.array([0.0, 100.0, 1.0]), np.array([1, 1, 0]), 4)
    np.testing.assert_allclose(s, [0.0, math.sin(1.0), math.sin(1.0)], rtol=0, atol=2e-16)
    np.testing.assert_allclose(c, [1.0, math.cos(1.0), math.cos(1.0)], rtol=0, atol=2e-16)
    # tensor2tensor spacing with dim = 6: theta_2 = 10000**(-2/2) = 1e-4; m = 2e4 gives angle 2.
    s2, c2 = T.reference_entries(2e4, 2, 6, spacing="i/(d/2-1)")
    assert abs(float(s2) - math.sin(2.0)) < 2e-16
    assert abs(float(c2) - math.cos(2.0)) < 2e-16


def test_reference_entries_at_large_positions_match_libm():
    # dim = 4: theta_1 = 10000**(-1/2) = 0.01 exactly, so m = 10**6 and 10**7 give the exactly
    # representable angles 10**4 and 10**5, whose float64 sin/cos from libm are within 1 ulp.
    s, c = T.reference_entries(np.array([1e6, 1e7]), np.array([1, 1]), 4)
    for got_s, got_c, angle in zip(s, c, (1e4, 1e5), strict=True):
        assert abs(got_s - math.sin(angle)) <= 2.3e-16
        assert abs(got_c - math.cos(angle)) <= 2.3e-16


def test_reference_entries_rejects_bad_input():
    with pytest.raises(ValueError, match="pairs"):
        T.reference_entries([1.0], [2], 4)
    with pytest.raises(TypeError, match="pairs"):
        T.reference_entries([1.0], [0.5], 4)
    with pytest.raises(ValueError, match="dps"):
        T.reference_entries([1.0], [0], 4, dps=5)
    with pytest.raises(ValueError, match="finite"):
        T.reference_entries([np.nan], [0], 4)


def test_sampled_error_rejects_bad_input():
    table = pe.sinusoidal(4, 4)
    with pytest.raises(ValueError, match="one shape"):
        T.sampled_error(table, np.arange(4), [0, 1], [0])
    with pytest.raises(ValueError, match="2-D"):
        T.sampled_error(table[0], np.arange(4), [0], [0])


# ---------------------------------------------------------------------------------------------
# The fast path agrees with the direct path within the bounds
# ---------------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    count=st.integers(1, 300),
    half=st.integers(1, 40),
    start=st.integers(-(10**6), 10**6),
    step=st.integers(-1000, 1000),
    block=st.one_of(st.none(), st.integers(1, 64)),
    layout=st.sampled_from(pe.LAYOUTS),
    dtype=st.sampled_from([np.float32, np.float64]),
    base=st.sampled_from([10.0, 10000.0, 500000.0]),
)
def test_fast_equals_direct_within_bounds(count, half, start, step, block, layout, dtype, base):
    dim = 2 * half
    fast = T.sinusoidal_range(count, dim, base, layout, dtype, start=start, step=step, block=block)
    positions = start + step * np.arange(count)
    direct = T.sinusoidal_direct(positions, dim, base, layout)  # float64 reference
    reach = abs(start) + abs(step) * (count - 1)
    tolerance = T.error_bound(reach, dtype) + T.float64_bound(reach)
    assert fast.dtype == np.dtype(dtype)
    assert np.max(np.abs(fast.astype(np.float64) - direct)) <= tolerance
    assert np.max(np.abs(fast)) <= 1.0


def test_fast_equals_direct_on_a_large_table_every_entry():
    count, dim = 8192, 512
    fast = pe.sinusoidal(count, dim, dtype=np.float32)
    direct = T.sinusoidal_direct(count, dim)
    difference = np.max(np.abs(fast.astype(np.float64) - direct))
    assert difference <= T.error_bound(count, np.float32) + T.float64_bound(count)


def test_dispatch_fractional_and_uneven_positions_use_the_direct_method():
    fractional = np.linspace(0.0, 3000.5, 3000)
    assert T.integer_progression(fractional) is None
    np.testing.assert_array_equal(
        pe.sinusoidal(fractional, 64), T.sinusoidal_direct(fractional, 64)
    )
    uneven = np.arange(3000) ** 2 % 10007
    assert T.integer_progression(uneven) is None
    np.testing.assert_array_equal(pe.sinusoidal(uneven, 64), T.sinusoidal_direct(uneven, 64))


def test_dispatch_integer_progression_uses_the_fast_method():
    positions = np.arange(5, 5 + 7 * 3000, 7)
    assert T.integer_progression(positions) == (5, 7)
    np.testing.assert_array_equal(
        pe.sinusoidal(positions, 64, dtype=np.float32),
        T.sinusoidal_range(3000, 64, dtype=np.float32, start=5, step=7),
    )
    np.testing.assert_array_equal(pe.sinusoidal(3000, 64), T.sinusoidal_range(3000, 64))


def test_integer_progression_cases():
    assert T.integer_progression(np.array([4.0])) == (4, 1)
    assert T.integer_progression(np.array([3.0, 3.0, 3.0])) == (3, 0)
    assert T.integer_progression(np.array([9.0, 6.0, 3.0])) == (9, -3)
    assert T.integer_progression(np.array([], dtype=float)) is None
    assert T.integer_progression(np.array([0.0, 1.0, 2.5])) is None
    assert T.integer_progression(np.array([0.5, 1.5, 2.5])) is None
    assert T.integer_progression(np.array([0.0, 2.0**53])) is None


# ---------------------------------------------------------------------------------------------
# Layouts: exact permutations of one another, in both methods
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_layouts_are_exact_permutations(dtype):
    count, dim = 3000, 48
    base_table = pe.sinusoidal(count, dim, dtype=dtype)
    for layout in pe.LAYOUTS:
        other = pe.sinusoidal(count, dim, layout=layout, dtype=dtype)
        np.testing.assert_array_equal(pe.convert_layout(base_table, "interleaved", layout), other)
        ranged = T.sinusoidal_range(count, dim, layout=layout, dtype=dtype, start=-50, step=3)
        np.testing.assert_array_equal(
            pe.convert_layout(
                T.sinusoidal_range(count, dim, dtype=dtype, start=-50, step=3),
                "interleaved",
                layout,
            ),
            ranged,
        )


def test_float16_and_longdouble_outputs():
    count, dim = 2048, 64
    reference = T.sinusoidal_direct(count, dim)
    half = T.sinusoidal_range(count, dim, dtype=np.float16)
    assert half.dtype == np.float16
    assert np.max(np.abs(half.astype(np.float64) - reference)) <= T.error_bound(count, np.float16)
    wide = T.sinusoidal_range(count, dim, dtype=np.longdouble)
    assert wide.dtype == np.longdouble
    assert np.max(np.abs(wide.astype(np.float64) - reference)) <= 2 * T.float64_bound(count)


# ---------------------------------------------------------------------------------------------
# Edge cases and refusals
# ---------------------------------------------------------------------------------------------


def test_empty_table():
    assert T.sinusoidal_range(0, 8).shape == (0, 8)
    assert pe.sinusoidal(0, 8).shape == (0, 8)


def test_single_row_is_position_start():
    row = T.sinusoidal_range(1, 6, dtype=np.float32)
    np.testing.assert_array_equal(row, [[0, 1, 0, 1, 0, 1]])
    np.testing.assert_allclose(
        T.sinusoidal_range(1, 6, start=123), T.sinusoidal_direct([123], 6), rtol=0, atol=1e-14
    )


def test_dim_two_is_the_single_fastest_pair():
    count = 70000  # dim = 2 still takes the fast path in sinusoidal (count * dim >= 2**16)
    table = pe.sinusoidal(count, 2)
    m = np.arange(count)
    np.testing.assert_allclose(table[:, 0], np.sin(m), rtol=0, atol=T.error_bound(count))
    np.testing.assert_allclose(table[:, 1], np.cos(m), rtol=0, atol=T.error_bound(count))


def test_zero_step_repeats_one_row():
    table = T.sinusoidal_range(100, 8, start=77, step=0, block=7)
    assert np.all(table == table[0])


def test_partial_last_block_and_block_of_one():
    for block in (1, 3, 64, 1000):
        table = T.sinusoidal_range(101, 10, block=block)
        assert np.max(np.abs(table - T.sinusoidal_direct(101, 10))) <= 2 * T.float64_bound(101)


def test_huge_tables_are_refused_before_allocation():
    with pytest.raises(ValueError, match="max_bytes"):
        T.sinusoidal_range(10**9, 1024, dtype=np.float32)
    with pytest.raises(ValueError, match="max_bytes"):
        T.sinusoidal_range(1000, 64, max_bytes=1000)
    with pytest.raises(ValueError, match="max_bytes"):
        pe.sinusoidal(10**9, 1024, dtype=np.float32)
    with pytest.raises(ValueError, match="max_bytes"):
        T.sinusoidal_direct(10**9, 1024)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"count": 2.0}, TypeError, "count"),
        ({"count": True}, TypeError, "count"),
        ({"count": -1}, ValueError, "count"),
        ({"start": 1.5}, TypeError, "start"),
        ({"step": "1"}, TypeError, "step"),
        ({"block": 0}, ValueError, "block"),
        ({"block": 2.5}, ValueError, "block"),
        ({"start": 2**52}, ValueError, "MAX_EXACT_POSITION"),
        ({"dim": 3}, ValueError, "dim"),
        ({"base": 1.0}, ValueError, "base"),
        ({"layout": "halves"}, ValueError, "layout"),
        ({"spacing": "i/d"}, ValueError, "spacing"),
        ({"dtype": np.int32}, TypeError, "dtype"),
    ],
)
def test_sinusoidal_range_rejects_bad_arguments(kwargs, error, match):
    arguments = {"count": 10, "dim": 8, **kwargs}
    with pytest.raises(error, match=match):
        T.sinusoidal_range(**arguments)


def test_block_plan_of_the_largest_benchmark_table():
    # float32 factors: B = 512 KiB / (1024 * 4 bytes) = 128 rows; 131072 / 128 = 1024 blocks in
    # G = isqrt(1023) + 1 = 32 groups of 32: 128 + 32 + 32 = 192 directly evaluated rows.
    plan = T.block_plan(131072, 1024, np.float32)
    assert plan == {
        "compute_dtype": "float32",
        "block": 128,
        "n_blocks": 1024,
        "group": 32,
        "n_groups": 32,
        "direct_rows": 192,
    }
    assert T.block_plan(0, 8)["direct_rows"] == 0
    assert T.block_plan(10, 8, block=4)["n_blocks"] == 3  # a partial last block


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((-1, 8), {}, ValueError, "count"),
        ((1.5, 8), {}, TypeError, "count"),
        ((10, 0), {}, ValueError, "dim"),
        ((10, 7), {}, ValueError, "dim"),
        ((10, 8), {"block": 0}, ValueError, "block"),
        ((10, 8), {"dtype": np.int16}, TypeError, "dtype"),
    ],
)
def test_block_plan_rejects_bad_arguments(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        T.block_plan(*args, **kwargs)


@pytest.mark.parametrize("layout", pe.LAYOUTS)
@pytest.mark.parametrize("dim", [2, 4, 10])
def test_slot_slices_select_the_same_columns(layout, dim):
    table = np.arange(3 * dim).reshape(3, dim)
    for index in pe.encoding._slots(dim, layout):
        as_slice = T._as_slice(index)
        assert isinstance(as_slice, slice)
        np.testing.assert_array_equal(table[:, as_slice], table[:, index])
    for irregular in (np.array([0, 2, 3]), np.array([3, 1]), np.array([1, 1])):
        assert not isinstance(T._as_slice(irregular), slice)  # left as an index array


def test_error_bound_values():
    eps = np.finfo(np.float64).eps
    assert T.float64_bound(0) == 16 * eps
    assert T.error_bound(10**6, np.float64) == pytest.approx(2.5 * eps * 1e6 + 16 * eps)
    assert T.FLOAT32_COMBINE_BOUND == pytest.approx((3 + 2 * math.sqrt(2)) / 2**25)
    assert T.error_bound(10**6, np.float32) < 2e-7
    assert T.error_bound(0, np.float16) > 2.0**-12
    with pytest.raises(TypeError, match="dtype"):
        T.error_bound(1, np.int8)
    with pytest.raises(ValueError, match="max_position"):
        T.float64_bound(float("inf"))
    with pytest.raises(TypeError, match="max_position"):
        T.float64_bound([1.0, 2.0])
    with pytest.raises(TypeError, match="max_position"):
        T.error_bound("10", np.float32)


# ---------------------------------------------------------------------------------------------
# Framework conventions: equality with re-implementations of their formulas
# ---------------------------------------------------------------------------------------------


def _tensor2tensor(length, channels, min_timescale=1.0, max_timescale=1.0e4, xp_dtype=np.float64):
    """get_timing_signal_1d transcribed to numpy (start_index = 0)."""
    position = np.arange(length).astype(xp_dtype)
    num_timescales = channels // 2
    log_timescale_increment = math.log(float(max_timescale) / float(min_timescale)) / max(
        float(num_timescales) - 1, 1
    )
    inv_timescales = min_timescale * np.exp(
        np.arange(num_timescales).astype(xp_dtype) * -log_timescale_increment
    ).astype(xp_dtype)
    scaled_time = position[:, None] * inv_timescales[None, :]
    return np.concatenate([np.sin(scaled_time), np.cos(scaled_time)], axis=1)


def _fairseq(num_embeddings, embedding_dim, padding_idx, xp_dtype=np.float64):
    """SinusoidalPositionalEmbedding.get_embedding transcribed to numpy."""
    half_dim = embedding_dim // 2
    emb = math.log(10000) / (half_dim - 1)
    emb = np.exp(np.arange(half_dim).astype(xp_dtype) * -emb).astype(xp_dtype)
    emb = np.arange(num_embeddings).astype(xp_dtype)[:, None] * emb[None, :]
    emb = np.concatenate([np.sin(emb), np.cos(emb)], axis=1).reshape(num_embeddings, -1)
    if padding_idx is not None:
        emb[padding_idx, :] = 0
    return emb


def _hf_marian(n_pos, dim):
    """MarianSinusoidalPositionalEmbedding._init_weight transcribed to numpy."""
    position_enc = np.array(
        [[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)]
    )
    out = np.empty((n_pos, dim))
    sentinel = dim // 2 if dim % 2 == 0 else (dim // 2) + 1
    out[:, 0:sentinel] = np.sin(position_enc[:, 0::2])
    out[:, sentinel:] = np.cos(position_enc[:, 1::2])
    return out


def _tutorial(max_len, d_model):
    """The PyTorch tutorial / Annotated Transformer formula, in float64."""
    position = np.arange(max_len)[:, None]
    div_term = np.exp(np.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
    pe_ = np.zeros((max_len, d_model))
    pe_[:, 0::2] = np.sin(position * div_term)
    pe_[:, 1::2] = np.cos(position * div_term)
    return pe_


@pytest.mark.parametrize("dim", [4, 8, 64, 512])
def test_framework_tables_equal_reimplementations(dim):
    n = 3000
    tol = 4 * T.float64_bound(n)  # both sides are float64 evaluations of one formula
    got = {c: T.framework_table(c, n, dim, np.float64) for c in T.CONVENTIONS}
    np.testing.assert_allclose(got["tensor2tensor"], _tensor2tensor(n, dim), rtol=0, atol=tol)
    np.testing.assert_allclose(got["fairseq"], _fairseq(n, dim, 1), rtol=0, atol=tol)
    np.testing.assert_allclose(got["vaswani2017"], _tutorial(n, dim), rtol=0, atol=tol)
    if dim <= 64:  # the Marian transcription is a slow Python double loop
        np.testing.assert_allclose(got["hf_marian"], _hf_marian(n, dim), rtol=0, atol=tol)
    assert np.all(got["fairseq"][1] == 0.0)


def test_framework_float32_tables_differ_by_their_float32_angle_error():
    torch = pytest.importorskip("torch")
    n, dim = 4096, 64
    # fairseq's own code path: float32 angles in torch.
    half_dim = dim // 2
    emb = math.log(10000) / (half_dim - 1)
    emb = torch.exp(torch.arange(half_dim, dtype=torch.float) * -emb)
    emb = torch.arange(n, dtype=torch.float).unsqueeze(1) * emb.unsqueeze(0)
    theirs = torch.cat([torch.sin(emb), torch.cos(emb)], dim=1).numpy().astype(np.float64)
    theirs[1] = 0
    ours = T.framework_table("fairseq", n, dim, np.float64)
    difference = np.max(np.abs(theirs - ours))
    # float32 angles m*theta carry up to ~ m * theta * 2**-24 (plus a float32 theta) of error.
    assert difference <= 3 * n * 2.0**-24
    assert difference > 100 * T.error_bound(n, np.float32)  # much larger than ours


def test_fairseq_padding_offset():
    n, dim, padding_idx = 50, 16, 1
    table = T.framework_table("fairseq", n, dim, np.float64, padding_idx=padding_idx)
    rows = T.framework_rows("fairseq", 5, padding_idx=padding_idx)
    np.testing.assert_array_equal(rows, [2, 3, 4, 5, 6])
    expected = pe.sinusoidal(rows, dim, layout="concatenated", spacing="i/(d/2-1)")
    np.testing.assert_allclose(table[rows], expected, rtol=0, atol=1e-14)
    np.testing.assert_array_equal(T.framework_rows("tensor2tensor", 3), [0, 1, 2])
    zero_pad = T.framework_table("fairseq", n, dim, np.float64, padding_idx=0)
    assert np.all(zero_pad[0] == 0) and np.any(zero_pad[1] != 0)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (("bert", 10, 8), {}, ValueError, "convention"),
        (("fairseq", 10, 2), {}, ValueError, "dim"),
        (("fairseq", 10, 8), {"padding_idx": 10}, ValueError, "padding_idx"),
        (("fairseq", 10, 8), {"padding_idx": -1}, ValueError, "padding_idx"),
        (("tensor2tensor", -1, 8), {}, ValueError, "num_embeddings"),
        (("tensor2tensor", 2.0, 8), {}, TypeError, "num_embeddings"),
    ],
)
def test_framework_table_rejects_bad_arguments(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        T.framework_table(*args, **kwargs)


def test_framework_rows_rejects_bad_arguments():
    with pytest.raises(ValueError, match="seq_len"):
        T.framework_rows("fairseq", -2)
    with pytest.raises(TypeError, match="seq_len"):
        T.framework_rows("fairseq", 2.0)
    with pytest.raises(ValueError, match="padding_idx"):
        T.framework_rows("fairseq", 2, padding_idx=-3)
    with pytest.raises(ValueError, match="convention"):
        T.framework_rows("bert", 2)


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
def test_threaded_fill_is_identical_to_single_threaded(monkeypatch, layout):
    count, dim = 4096, 512
    assert T.block_plan(count, dim, np.float32)["n_groups"] >= 3  # enough groups to split
    monkeypatch.setattr(T, "_THREAD_MIN_ENTRIES", 0)  # thread even this small table
    monkeypatch.setattr(T, "_max_workers", lambda: 3)  # three threads, whatever the CPU count
    kwargs = {"dtype": np.float32, "layout": layout, "start": 17, "step": 3}
    threaded = T.sinusoidal_range(count, dim, **kwargs)
    monkeypatch.setattr(T, "_max_workers", lambda: 1)
    single = T.sinusoidal_range(count, dim, **kwargs)
    np.testing.assert_array_equal(threaded, single)


# ---------------------------------------------------------------------------------------------
# The stored benchmark run that chapter 8 displays (package data; timings are not re-measured)
# ---------------------------------------------------------------------------------------------


def test_shipped_benchmark_results_are_a_full_consistent_run():
    from importlib.resources import files

    text = (files("posenc_lib") / "data" / "bench_tables.json").read_text(encoding="utf-8")
    run = json.loads(text)
    assert run["benchmark"] == "bench_tables"
    # A full run: the sizes and dtypes, every implementation at every size.
    assert run["settings"]["sizes"] == [[2048, 512], [32768, 1024], [131072, 1024]]
    assert run["settings"]["dtypes"] == ["float32", "float64"]
    names = {"posenc_lib", "textbook_numpy", "pytorch_tutorial", "direct_float64", "fill_floor"}
    medians = {}
    for row in run["generation"]:
        key = (row["L"], row["d"], row["dtype"])
        medians.setdefault(key, {})[row["implementation"]] = row["median_s"]
        assert row["repeats"] >= run["settings"]["min_repeats"]
        assert row["min_s"] <= row["median_s"]
        if row["implementation"] == "posenc_lib":
            target = 2e-7 if row["dtype"] == "float32" else 1e-9
            assert row["max_abs_error_sampled"] <= target
    assert len(medians) == 6 and all(names <= set(here) for here in medians.values())
    # The ratios and the target verdicts follow from the medians.
    for entry in run["ratios"]:
        here = medians[(entry["L"], entry["d"], entry["dtype"])]
        ours = here["posenc_lib"]
        assert entry["textbook_numpy_over_posenc_lib"] == pytest.approx(
            here["textbook_numpy"] / ours
        )
        assert entry["pytorch_tutorial_over_posenc_lib"] == pytest.approx(
            here["pytorch_tutorial"] / ours
        )
        assert entry["posenc_lib_over_fill_floor"] == pytest.approx(ours / here["fill_floor"])
    checks = run["targets"]["checks"]
    here = medians[(32768, 1024, "float32")]
    assert checks["textbook_numpy_speedup"]["measured"] == pytest.approx(
        here["textbook_numpy"] / here["posenc_lib"]
    )
    assert checks["fill_floor_multiple"]["measured"] == pytest.approx(
        here["posenc_lib"] / here["fill_floor"]
    )
    for check in checks.values():
        if "target_at_least" in check:
            assert check["met"] == (check["measured"] >= check["target_at_least"])
        else:
            assert check["met"] == (check["measured"] <= check["target_at_most"])
    # Where it ran: the hardware and the load at both ends of the run are recorded.
    for field in ("cpu_model", "logical_cpus", "load_average_1min_at_start"):
        assert run["hardware"][field] is not None
    assert "load_average_1min_at_end" in run["hardware"]
