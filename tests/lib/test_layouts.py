"""posenc_lib.layouts: every layout holds the same values; conversions are exact permutations."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posenc_lib as pe
from posenc_lib.layouts import pair_columns


def test_layouts_place_the_same_values():
    table = pe.sinusoidal(10, 8)
    sin, cos = table[:, 0::2], table[:, 1::2]
    cos_first = pe.sinusoidal(10, 8, layout="interleaved_cos_first")
    np.testing.assert_array_equal(cos_first[:, 0::2], cos)
    np.testing.assert_array_equal(cos_first[:, 1::2], sin)
    np.testing.assert_array_equal(
        pe.sinusoidal(10, 8, layout="concatenated"), np.hstack([sin, cos])
    )


@pytest.mark.parametrize("source", pe.LAYOUTS)
@pytest.mark.parametrize("target", pe.LAYOUTS)
def test_convert_layout_is_exact(source, target):
    table = pe.sinusoidal(33, 12, layout=source)
    converted = pe.convert_layout(table, source, target)
    np.testing.assert_array_equal(converted, pe.sinusoidal(33, 12, layout=target))
    perm = pe.layout_permutation(12, source, target)
    assert sorted(perm.tolist()) == list(range(12))
    np.testing.assert_array_equal(
        perm[pe.layout_permutation(12, target, source)], np.arange(12)
    )


@given(
    dim=st.integers(1, 64).map(lambda half: 2 * half),
    layout=st.sampled_from(pe.LAYOUTS),
)
def test_pair_columns_hold_sin_and_cos_of_each_pair(dim, layout):
    table = pe.sinusoidal([0.0, 1.0, 2.5, 1000.0], dim, layout=layout)
    angles = np.outer([0.0, 1.0, 2.5, 1000.0], pe.frequencies(dim))
    sin_cols, cos_cols = pair_columns(dim, layout=layout)
    np.testing.assert_array_equal(table[:, sin_cols], np.sin(angles))
    np.testing.assert_array_equal(table[:, cos_cols], np.cos(angles))
    sin_slice, cos_slice = pair_columns(dim, layout=layout, as_slices=True)
    np.testing.assert_array_equal(np.arange(dim)[sin_slice], sin_cols)
    np.testing.assert_array_equal(np.arange(dim)[cos_slice], cos_cols)


def test_pair_columns_known_values():
    assert [c.tolist() for c in pair_columns(6)] == [[0, 2, 4], [1, 3, 5]]
    assert [c.tolist() for c in pair_columns(6, layout="concatenated")] == [
        [0, 1, 2],
        [3, 4, 5],
    ]
    cos_first = pair_columns(6, layout="interleaved_cos_first")
    assert [c.tolist() for c in cos_first] == [[1, 3, 5], [0, 2, 4]]


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: pair_columns(4, layout="sideways"), ValueError, r"^layout\b"),
        (lambda: pair_columns(4, "concatenated"), TypeError, "positional"),
        (lambda: pair_columns(5), ValueError, r"^dim\b"),
        (lambda: pair_columns(4, as_slices=1), TypeError, r"^as_slices\b"),
        (
            lambda: pe.layout_permutation(8, "interleaved", "halves"),
            ValueError,
            r"^target\b",
        ),
        (
            lambda: pe.layout_permutation(8, "sin_cos", "interleaved"),
            ValueError,
            r"^source\b",
        ),
        (
            lambda: pe.convert_layout(np.zeros((2, 7)), "interleaved", "concatenated"),
            ValueError,
            r"^table\b",
        ),
        (
            lambda: pe.convert_layout(3.0, "interleaved", "concatenated"),
            ValueError,
            r"^table\b",
        ),
    ],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()
