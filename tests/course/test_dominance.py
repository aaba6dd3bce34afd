"""posenc_lib.course.dominance: diagonal shares by hand, i.i.d. and random-rotation baselines."""

from __future__ import annotations

import numpy as np
import pytest

from posenc_lib.course import dominance as D


def test_diagonal_dominance_known_values():
    h = np.diag([1.0, 2.0, 3.0, 4.0])
    h[0, 1] = 1.0  # inside block 0
    h[0, 3] = 2.0  # outside the blocks
    result = D.diagonal_dominance(h)
    total = 1 + 4 + 9 + 16 + 1 + 4
    assert result.diagonal_share == pytest.approx(30 / total)
    assert result.block_share == pytest.approx(31 / total)
    # relative part: block 0 = [[1,1],[0,2]] -> a = 1.5, b = (0 - 1)/2;
    # block 1 = [[3,0],[0,4]] -> a = 3.5
    assert result.relative_share == pytest.approx(
        (2 * 1.5**2 + 2 * 0.25 + 2 * 3.5**2) / total
    )
    # rows: |1| > 1 + 2? no; |2| > 0 yes; |3| yes; |4| yes
    assert result.dominant_rows == pytest.approx(0.75)


def test_diagonal_dominance_iid_baseline(rng):
    results = [D.diagonal_dominance(rng.standard_normal((32, 32))) for _ in range(200)]
    base = D.diagonal_dominance(np.eye(32)).iid_baseline()
    for name, expected in base.items():
        mean = np.mean([getattr(result, name) for result in results])
        assert mean == pytest.approx(expected, rel=0.08), name


def test_expected_rotated_share_matches_monte_carlo(rng):
    x = rng.standard_normal((200, 10)) * np.linspace(0.2, 3, 10)
    c = np.cov(x, rowvar=False)
    mc = D.rotated_diagonal_shares(c, 3000, rng)
    assert mc.mean() == pytest.approx(D.expected_rotated_diagonal_share(c), rel=0.02)
    a = rng.standard_normal((10, 10))  # non-symmetric too
    mc = D.rotated_diagonal_shares(a, 3000, rng)
    assert mc.mean() == pytest.approx(D.expected_rotated_diagonal_share(a), rel=0.03)
    # identity: every rotation keeps it diagonal
    assert D.expected_rotated_diagonal_share(np.eye(5)) == pytest.approx(1.0)
    # rank one, C = v v^T: (q.v)^4 has mean 3/(d(d+2)) for a uniform unit q, so 3/(d+2)
    v = rng.standard_normal(10)
    assert D.expected_rotated_diagonal_share(np.outer(v, v)) == pytest.approx(3 / 12)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (
            lambda: D.diagonal_dominance(np.array([["a", "b"], ["c", "d"]])),
            TypeError,
            "h must be",
        ),
        (
            lambda: D.diagonal_dominance(np.full((2, 2), np.nan)),
            ValueError,
            "containing NaN",
        ),
        (
            lambda: D.diagonal_dominance(np.zeros((2, 2))),
            ValueError,
            "h must be a non-zero",
        ),
        (
            lambda: D.diagonal_dominance(np.eye(4), "concatenated"),
            TypeError,
            "positional",
        ),
        (
            lambda: D.rotated_diagonal_shares(np.eye(3), 2.5, np.random.default_rng(0)),
            TypeError,
            "n_samples must be an integer >= 1, got 2.5",
        ),
        (
            lambda: D.rotated_diagonal_shares(np.eye(3), 3, None),
            TypeError,
            "rng must be",
        ),
        (
            lambda: D.expected_rotated_diagonal_share(np.ones((2, 3))),
            ValueError,
            "c must be a square",
        ),
        (
            lambda: D.expected_rotated_diagonal_share(np.zeros((2, 2))),
            ValueError,
            "non-zero",
        ),
    ],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()
