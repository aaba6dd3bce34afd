"""posenc_lib.distances: distances between encodings, checked against independent forms."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_lib as pe
from posenc_lib import distances
from posenc_lib.distances import (
    _integer_root_floor,
    min_separation,
    offset_distance,
    separation_bound,
)

DIMS = st.sampled_from([2, 4, 8, 16, 64, 128])
BASES = st.sampled_from([100.0, 10000.0, 500000.0])
SPACINGS = st.sampled_from(list(pe.SPACINGS))


def test_offset_distance_d2_is_chord_length():
    # With one pair the encodings are points on the unit circle at angle m: the chord between
    # angles 0 and delta has length 2|sin(delta/2)| (plane geometry, not the library formula).
    deltas = np.array([0.0, 1.0, 2.5, math.pi, 710.0, -3.0])
    expected = 2.0 * np.abs(np.sin(deltas / 2.0))
    np.testing.assert_allclose(offset_distance(deltas, 2), expected, rtol=0, atol=1e-15)


def test_offset_distance_d4_by_hand():
    # d = 4, b = 10000: theta = (1, 1/100). Distance^2 = |chord(delta)|^2 + |chord(delta/100)|^2.
    delta = 7.0
    expected = math.sqrt(
        (2 * math.sin(delta / 2)) ** 2 + (2 * math.sin(delta / 200)) ** 2
    )
    assert offset_distance(delta, 4) == pytest.approx(expected, rel=1e-14)


def test_offset_distance_zero_and_shape():
    assert offset_distance(0.0, 64) == 0.0
    out = offset_distance(np.zeros((3, 2)), 8)
    assert out.shape == (3, 2)
    assert out.dtype == np.float64


def test_offset_distance_bounded_by_diameter():
    deltas = np.arange(0, 5000, dtype=float)
    dist = offset_distance(deltas, 16)
    assert np.all(dist >= 0.0)
    assert np.all(dist <= 2.0 * math.sqrt(8) + 1e-12)


def test_offset_distance_chunking_matches_one_block():
    # more offsets than one chunk holds: the chunked loop must equal a direct evaluation
    deltas = np.linspace(-3000.0, 3000.0, 70001)
    theta = pe.frequencies(128)
    direct = 2.0 * np.sqrt(
        np.square(np.sin(0.5 * np.multiply.outer(deltas, theta))).sum(axis=1)
    )
    np.testing.assert_array_equal(offset_distance(deltas, 128), direct)


@settings(max_examples=60, deadline=None)
@given(
    m=st.floats(-1e4, 1e4, allow_nan=False),
    delta=st.floats(-1e4, 1e4, allow_nan=False),
    dim=DIMS,
    base=BASES,
    spacing=SPACINGS,
)
def test_offset_distance_equals_table_difference(m, delta, dim, base, spacing):
    rows = pe.sinusoidal([m, m + delta], dim, base=base, spacing=spacing)
    direct = float(np.linalg.norm(rows[1] - rows[0]))
    # the table rounds m + delta and the angles once more than the closed form does
    tol = 1e-9 * (1.0 + abs(m) + abs(delta))
    got = float(offset_distance(delta, dim, base=base, spacing=spacing))
    assert got == pytest.approx(direct, abs=tol)


@settings(max_examples=60, deadline=None)
@given(delta=st.floats(-1e3, 1e3, allow_nan=False), dim=DIMS, base=BASES)
def test_offset_distance_squared_is_d_times_one_minus_kernel(delta, dim, base):
    dist = float(offset_distance(delta, dim, base=base))
    kappa = float(pe.kernel(delta, dim, base=base))
    assert dist**2 == pytest.approx(dim * (1.0 - kappa), abs=1e-10 * dim)


@settings(max_examples=40, deadline=None)
@given(delta=st.floats(-1e5, 1e5, allow_nan=False), dim=DIMS)
def test_offset_distance_is_even(delta, dim):
    assert offset_distance(delta, dim) == offset_distance(-delta, dim)


def pairwise_distances(length: int, dim: int) -> np.ndarray:
    """All distances between rows of the table, by coordinate differences (no shortcut)."""
    table = pe.sinusoidal(length, dim)
    return np.linalg.norm(table[:, None, :] - table[None, :, :], axis=-1)


def test_offset_distance_equals_every_pairwise_distance():
    positions = np.array([0.0, 1.0, 3.5, 10.0, 250.0])
    table = pe.sinusoidal(positions, 8)
    offsets = np.subtract.outer(positions, positions)
    distances_ = offset_distance(offsets, 8)
    for a in range(positions.size):
        for b in range(positions.size):
            expected = math.sqrt(
                sum((table[a, j] - table[b, j]) ** 2 for j in range(8))
            )
            assert distances_[a, b] == pytest.approx(expected, abs=1e-12)


def _best_offsets_for_2pi(limit: int) -> list[int]:
    """Offsets q < limit that bring q closer to a multiple of 2π than any smaller offset did.

    Computed by a plain scan of the distance to the nearest multiple of 2π, independently of the
    library.
    """
    record, best = math.inf, []
    for q in range(1, limit):
        gap = abs(q - 2 * math.pi * round(q / (2 * math.pi)))
        if gap < record:
            record = gap
            best.append(q)
    return best


def test_min_separation_d2_follows_best_approximations_of_2pi():
    records = _best_offsets_for_2pi(800)
    # the classical record holders (numerators of the convergents 6, 19/3, 25/4, 44/7, 333/53,
    # 710/113 of 2π; 710/113 matches 2π to 9e-8 relative)
    assert records == [1, 6, 19, 25, 44, 333, 710]
    for length, q in [
        (45, 44),
        (100, 44),
        (334, 333),
        (700, 333),
        (711, 710),
        (5000, 710),
    ]:
        dist, delta = min_separation(length, 2)
        assert delta == q
        assert dist == pytest.approx(2 * abs(math.sin(q / 2)), rel=1e-12)


@pytest.mark.parametrize("length", [10, 100, 1000, 10000])
def test_min_separation_d2_dirichlet_bound(length):
    # Dirichlet: some 1 <= q <= L-1 has |q/(2π) - p| < 1/(L-1), so the chord is < 2π/(L-1).
    dist, _ = min_separation(length, 2)
    assert dist < 2 * math.pi / (length - 1)


def test_min_separation_matches_brute_force():
    for dim, length in [(4, 300), (8, 200), (64, 150)]:
        dist = pairwise_distances(length, dim)
        off_diagonal = dist[~np.eye(length, dtype=bool)]
        best, delta = min_separation(length, dim)
        assert best == pytest.approx(off_diagonal.min(), abs=1e-12)
        assert delta >= 1


@pytest.mark.parametrize(("dim", "length"), [(2, 5000), (8, 3000)])
def test_min_separation_scans_in_blocks(monkeypatch, dim, length):
    # With tiny blocks the minimum lies many blocks in (710 for d = 2): same answer as one block.
    expected = min_separation(length, dim)
    monkeypatch.setattr(distances, "_CHUNK_ELEMENTS", 64)
    assert min_separation(length, dim) == expected
    if dim == 2:
        assert expected[1] == 710


def test_min_separation_two_positions_is_neighbour_distance():
    dist, delta = min_separation(2, 64)
    assert delta == 1
    assert dist == pytest.approx(
        float(np.linalg.norm(np.diff(pe.sinusoidal(2, 64), axis=0)))
    )


@pytest.mark.parametrize(
    ("value", "power", "expected"),
    [
        (0, 3, 0),
        (1, 5, 1),
        (15, 2, 3),
        (16, 2, 4),
        (17, 2, 4),
        (10**18, 3, 10**6),
        (10**18 - 1, 3, 10**6 - 1),
        (7, 1, 7),
        (10**400, 2, 10**200),  # beyond float range: exact integer arithmetic
        (10**400 - 1, 2, 10**200 - 1),
        (2**64, 64, 2),
        (2**64 - 1, 64, 1),
    ],
)
def test_integer_root_floor(value, power, expected):
    assert _integer_root_floor(value, power) == expected


def test_separation_bound_values():
    # d = 2: N = L - 1, bound 2π/(L-1); d = 4, L = 101: N = 10, bound 2π·sqrt(2)/10
    assert separation_bound(11, 2) == pytest.approx(2 * math.pi / 10)
    assert separation_bound(101, 4) == pytest.approx(2 * math.pi * math.sqrt(2) / 10)
    assert separation_bound(100, 4) == pytest.approx(2 * math.pi * math.sqrt(2) / 9)


@pytest.mark.parametrize("dim", [2, 4, 6, 8])
@pytest.mark.parametrize("base", [10.0, 10000.0])
@pytest.mark.parametrize("spacing", list(pe.SPACINGS))
def test_separation_bound_holds(dim, base, spacing):
    for length in [2, 17, 300, 5000, 60000]:
        dist, _ = min_separation(length, dim, base=base, spacing=spacing)
        assert dist < separation_bound(length, dim)


# ---- bad input ------------------------------------------------------------------------------


CALLS = {  # each public function, with good values for the arguments not under test
    "min_separation": lambda length=10, dim=8, **kw: min_separation(length, dim, **kw),
    "separation_bound": lambda length=10, dim=8, **kw: separation_bound(
        length, dim, **kw
    ),
    "offset_distance": lambda delta=1.0, dim=8, **kw: offset_distance(delta, dim, **kw),
}
LENGTH = ["min_separation", "separation_bound"]


@pytest.mark.parametrize(
    ("names", "kwargs", "error", "match"),
    [
        *[(LENGTH, {"length": v}, TypeError, r"^length\b") for v in
          [2.0, "10", None, True, np.float64(3.0)]],
        *[(LENGTH, {"length": v}, ValueError, r"^length\b") for v in [1, 0, -5]],
        *[(list(CALLS), {"dim": v}, ValueError, r"^dim\b") for v in [3, 0, -2]],
        *[(list(CALLS), {"dim": v}, TypeError, r"^dim\b") for v in [4.0, "8", True, None]],
        *[(["offset_distance", "min_separation"], kw, err, rf"^{next(iter(kw))}\b")
          for kw, err in [({"base": 1.0}, ValueError), ({"base": np.inf}, ValueError),
                          ({"base": "10000"}, TypeError), ({"spacing": "linear"}, ValueError),
                          ({"spacing": "i/d"}, ValueError)]],
        *[(["offset_distance"], {"delta": v}, ValueError, r"^delta\b")
          for v in [np.nan, np.inf, [1.0, -np.inf]]],
        (["offset_distance"], {"delta": np.array(["a"])}, TypeError, r"^delta\b"),
    ],
)  # fmt: skip
def test_bad_arguments_are_named(names, kwargs, error, match):
    for name in names:
        with pytest.raises(error, match=match):
            CALLS[name](**kwargs)


def test_optional_arguments_are_keyword_only():
    with pytest.raises(TypeError, match="positional"):
        offset_distance(1.0, 8, 100.0)
    with pytest.raises(TypeError, match="positional"):
        min_separation(10, 8, 100.0)
