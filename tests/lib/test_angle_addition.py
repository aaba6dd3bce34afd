"""posenc_lib.angle_addition: the fast method equals the direct one within the proved bounds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_lib as pe
from posenc_lib import angle_addition as A
from posenc_lib.error_bounds import error_bound, float64_bound
from posenc_lib.layouts import pair_columns


def fast_table(
    count,
    dim,
    *,
    start=0,
    step=1,
    block=None,
    dtype=np.float64,
    layout="interleaved",
    base=10000.0,
):
    """The table of positions start + k*step filled by angle addition, with a chosen block."""
    out = np.empty((count, dim), dtype=dtype)
    columns = pair_columns(dim, layout=layout)
    theta = pe.frequencies(dim, base=base)
    A.fill_progression(out, theta, *columns, start=start, step=step, block=block)
    return out


def direct_table(positions, dim, *, layout="interleaved", base=10000.0):
    """An independent float64 reference: numpy's sin and cos of float64 angles, column by column."""
    phase = np.multiply.outer(
        np.asarray(positions, dtype=np.float64), pe.frequencies(dim, base=base)
    )
    out = np.empty((phase.shape[0], dim))
    sin_cols, cos_cols = pair_columns(dim, layout=layout)
    out[:, sin_cols] = np.sin(phase)
    out[:, cos_cols] = np.cos(phase)
    return out


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
def test_fast_equals_direct_within_bounds(
    count, half, start, step, block, layout, dtype, base
):
    dim = 2 * half
    fast = fast_table(
        count,
        dim,
        start=start,
        step=step,
        block=block,
        dtype=dtype,
        layout=layout,
        base=base,
    )
    direct = direct_table(
        start + step * np.arange(count), dim, layout=layout, base=base
    )
    reach = abs(start) + abs(step) * (count - 1)
    tolerance = error_bound(reach, dtype=dtype) + float64_bound(reach)
    assert fast.dtype == np.dtype(dtype)
    assert np.max(np.abs(fast.astype(np.float64) - direct)) <= tolerance
    assert np.max(np.abs(fast)) <= 1.0


def test_fast_equals_direct_on_a_large_table_every_entry():
    count, dim = 8192, 512
    fast = pe.sinusoidal(
        count, dim, dtype=np.float32
    )  # "auto" takes angle addition here
    difference = np.max(
        np.abs(fast.astype(np.float64) - direct_table(np.arange(count), dim))
    )
    assert difference <= error_bound(count, dtype=np.float32) + float64_bound(count)


def test_methods_of_sinusoidal():
    fractional = np.linspace(0.0, 3000.5, 3000)
    assert A.integer_progression(fractional) is None
    np.testing.assert_array_equal(
        pe.sinusoidal(fractional, 64), direct_table(fractional, 64)
    )
    uneven = np.arange(3000) ** 2 % 10007
    assert A.integer_progression(uneven) is None
    np.testing.assert_array_equal(pe.sinusoidal(uneven, 64), direct_table(uneven, 64))
    positions = np.arange(5, 5 + 7 * 3000, 7)
    assert A.integer_progression(positions) == (5, 7)
    np.testing.assert_array_equal(
        pe.sinusoidal(positions, 64, dtype=np.float32),
        fast_table(3000, 64, dtype=np.float32, start=5, step=7),
    )
    # "auto" on a small table and "direct" anywhere: the direct method, bit for bit.
    np.testing.assert_array_equal(
        pe.sinusoidal(100, 8), direct_table(np.arange(100), 8)
    )
    np.testing.assert_array_equal(
        pe.sinusoidal(positions, 64, method="direct"), direct_table(positions, 64)
    )
    # "angle_addition" on a small table: the fast method, bit for bit.
    np.testing.assert_array_equal(
        pe.sinusoidal(np.arange(3, 103), 8, method="angle_addition"),
        fast_table(100, 8, start=3),
    )
    with pytest.raises(ValueError, match="method='angle_addition'"):
        pe.sinusoidal(fractional, 8, method="angle_addition")
    with pytest.raises(ValueError, match=r"^method\b"):
        pe.sinusoidal(4, 8, method="fast")


def test_integer_progression_cases():
    assert A.integer_progression(np.array([4.0])) == (4, 1)
    assert A.integer_progression(np.array([3.0, 3.0, 3.0])) == (3, 0)
    assert A.integer_progression(np.array([9.0, 6.0, 3.0])) == (9, -3)
    assert A.integer_progression(np.array([], dtype=float)) is None
    assert A.integer_progression(np.array([0.0, 1.0, 2.5])) is None
    assert A.integer_progression(np.array([0.5, 1.5, 2.5])) is None
    assert A.integer_progression(np.array([0.0, 2.0**53])) is None


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_layouts_are_exact_permutations(dtype):
    count, dim = 3000, 48
    interleaved = pe.sinusoidal(count, dim, dtype=dtype)
    shifted = fast_table(count, dim, dtype=dtype, start=-50, step=3)
    for layout in pe.LAYOUTS:
        other = pe.sinusoidal(count, dim, layout=layout, dtype=dtype)
        np.testing.assert_array_equal(
            pe.convert_layout(interleaved, "interleaved", layout), other
        )
        np.testing.assert_array_equal(
            pe.convert_layout(shifted, "interleaved", layout),
            fast_table(count, dim, dtype=dtype, start=-50, step=3, layout=layout),
        )


def test_float16_and_longdouble_outputs():
    count, dim = 2048, 64
    reference = direct_table(np.arange(count), dim)
    half = fast_table(count, dim, dtype=np.float16)
    assert np.max(np.abs(half.astype(np.float64) - reference)) <= error_bound(
        count, dtype=np.float16
    )
    wide = fast_table(count, dim, dtype=np.longdouble)
    assert np.max(np.abs(wide.astype(np.float64) - reference)) <= 2 * float64_bound(
        count
    )


def test_edge_cases():
    assert pe.sinusoidal(0, 8, method="angle_addition").shape == (0, 8)
    np.testing.assert_array_equal(
        fast_table(1, 6, dtype=np.float32), [[0, 1, 0, 1, 0, 1]]
    )
    np.testing.assert_allclose(
        fast_table(1, 6, start=123), direct_table([123], 6), atol=1e-14
    )
    table = fast_table(100, 8, start=77, step=0, block=7)  # a zero step repeats one row
    assert np.all(table == table[0])
    for block in (
        1,
        3,
        64,
        1000,
    ):  # partial last block, blocks of one row, one big block
        table = fast_table(101, 10, block=block)
        assert np.max(
            np.abs(table - direct_table(np.arange(101), 10))
        ) <= 2 * float64_bound(101)


def test_dim_two_is_the_single_fastest_pair():
    count = (
        70000  # dim = 2 still takes the fast path in sinusoidal (count * dim >= 2**16)
    )
    table = pe.sinusoidal(count, 2)
    m = np.arange(count)
    np.testing.assert_allclose(table[:, 0], np.sin(m), rtol=0, atol=error_bound(count))
    np.testing.assert_allclose(table[:, 1], np.cos(m), rtol=0, atol=error_bound(count))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"start": 1.5}, TypeError, "start must be an integer, got 1.5"),
        ({"step": "1"}, TypeError, "step must be an integer, got '1'"),
        ({"block": 0}, ValueError, "block must be an integer >= 1, got 0"),
        ({"block": 2.5}, TypeError, "block must be an integer >= 1, got 2.5"),
        ({"start": 2**52}, ValueError, "MAX_EXACT_POSITION"),
        ({"theta": np.ones(3)}, ValueError, "theta must have d/2 = 4 entries"),
        ({"theta": [np.nan] * 4}, ValueError, "theta must be"),
        ({"sin_cols": np.arange(4)}, ValueError, "sin_cols and cos_cols must be"),
        ({"sin_cols": np.arange(4.0)}, ValueError, "sin_cols and cos_cols must be"),
        ({"out": np.empty((10, 8), dtype=np.int32)}, TypeError, "out must be"),
        ({"out": np.empty((10, 7))}, TypeError, "out must be"),
        ({"out": [[0.0] * 8]}, TypeError, "out must be"),
    ],
)
def test_fill_progression_rejects_bad_arguments(kwargs, error, match):
    sin_cols, cos_cols = pair_columns(8)
    arguments = {
        "out": np.empty((10, 8)),
        "theta": pe.frequencies(8),
        "sin_cols": sin_cols,
        "cos_cols": cos_cols,
        **kwargs,
    }
    out, theta, s, c = (
        arguments.pop(k) for k in ("out", "theta", "sin_cols", "cos_cols")
    )
    with pytest.raises(error, match=match):
        A.fill_progression(out, theta, s, c, **arguments)


def test_block_plan_of_the_largest_benchmark_table():
    # float32 factors: B = 512 KiB / (1024 * 4 bytes) = 128 rows; 131072 / 128 = 1024 blocks in
    # G = isqrt(1023) + 1 = 32 groups of 32: 128 + 32 + 32 = 192 directly evaluated rows.
    plan = A.block_plan(131072, 1024, dtype=np.float32)
    assert plan == {
        "compute_dtype": "float32",
        "block": 128,
        "n_blocks": 1024,
        "group": 32,
        "n_groups": 32,
        "direct_rows": 192,
    }
    assert A.block_plan(0, 8)["direct_rows"] == 0
    assert A.block_plan(10, 8, block=4)["n_blocks"] == 3  # a partial last block


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((-1, 8), {}, ValueError, "length must be an integer >= 0, got -1"),
        ((1.5, 8), {}, TypeError, "length must be an integer >= 0, got 1.5"),
        ((10, 0), {}, ValueError, "dim must be a positive even integer, got 0"),
        ((10, 7), {}, ValueError, "dim must be a positive even integer, got 7"),
        ((10, 8), {"block": 0}, ValueError, "block must be an integer >= 1, got 0"),
        (
            (10, 8),
            {"dtype": np.int16},
            TypeError,
            "dtype must be a numpy floating dtype",
        ),
    ],
)
def test_block_plan_rejects_bad_arguments(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        A.block_plan(*args, **kwargs)


@pytest.mark.parametrize("layout", pe.LAYOUTS)
@pytest.mark.parametrize("dim", [2, 4, 10])
def test_column_slices_select_the_same_columns(layout, dim):
    table = np.arange(3 * dim).reshape(3, dim)
    for index in pair_columns(dim, layout=layout):
        as_slice = A._as_slice(index)
        assert isinstance(as_slice, slice)
        np.testing.assert_array_equal(table[:, as_slice], table[:, index])
    for irregular in (np.array([0, 2, 3]), np.array([3, 1]), np.array([1, 1])):
        assert not isinstance(A._as_slice(irregular), slice)  # left as an index array


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
def test_threaded_fill_is_identical_to_single_threaded(monkeypatch, layout):
    count, dim = 4096, 512
    assert (
        A.block_plan(count, dim, dtype=np.float32)["n_groups"] >= 3
    )  # enough groups to split
    monkeypatch.setattr(A, "_THREAD_MIN_ENTRIES", 0)  # thread even this small table
    monkeypatch.setattr(
        A, "_max_workers", lambda: 3
    )  # three threads, whatever the CPU count
    kwargs = {"dtype": np.float32, "layout": layout, "start": 17, "step": 3}
    threaded = fast_table(count, dim, **kwargs)
    monkeypatch.setattr(A, "_max_workers", lambda: 1)
    single = fast_table(count, dim, **kwargs)
    np.testing.assert_array_equal(threaded, single)
