"""posenc_lib.special: the cosine integrals Ci and Cin against mpmath."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from posenc_lib.special import EULER_GAMMA, cin, cosine_integral

mpmath.mp.dps = 40


def close(
    value: float, reference: float, rtol: float = 1e-10, atol: float = 1e-13
) -> bool:
    return abs(value - reference) <= rtol * abs(reference) + atol


def test_cosine_integral_known_values_and_mpmath():
    # Ci(1) = 0.33740392290096813466... (Abramowitz & Stegun, table 5.1)
    assert abs(float(cosine_integral(1.0)) - 0.33740392290096813466) < 1e-15
    xs = np.concatenate(
        [np.logspace(-8, 7, 151), [3.9999999, 4.0, 4.0000001, 0.6165054856207162]]
    )
    values = cosine_integral(xs)
    for x, value in zip(xs, values, strict=True):
        ref = float(mpmath.ci(mpmath.mpf(x)))
        assert close(value, ref, atol=1e-14 * max(1.0, abs(np.log(x)))), x


def test_cin_against_mpmath_and_its_series():
    # Cin(x) = gamma + ln x - Ci(x) in 40 digits; below 1e-3 the leading terms x^2/4 - x^4/96.
    xs = np.concatenate([np.logspace(-6, 6, 121), [3.9999999, 4.0, 4.0000001]])
    values = cin(xs)
    for x, value in zip(xs, values, strict=True):
        ref = float(mpmath.euler + mpmath.log(mpmath.mpf(x)) - mpmath.ci(mpmath.mpf(x)))
        assert close(value, ref, atol=1e-14 * max(1.0, abs(np.log(x)))), x
    tiny = np.array([1e-3, 2e-4])
    np.testing.assert_allclose(cin(tiny), tiny**2 / 4 - tiny**4 / 96, rtol=1e-12)


def test_cin_is_even_and_zero_at_zero():
    xs = np.array([0.0, 0.3, 5.0, 123.0])
    np.testing.assert_array_equal(cin(-xs), cin(xs))
    assert float(cin(0.0)) == 0.0
    assert cin(np.zeros((2, 3))).shape == (2, 3)


def test_ci_and_cin_are_consistent():
    xs = np.array([0.5, 2.0, 4.5, 50.0])
    np.testing.assert_allclose(
        cosine_integral(xs) + cin(xs), EULER_GAMMA + np.log(xs), rtol=1e-14
    )


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: cosine_integral([1.0, 0.0]), ValueError, r"^x\b"),
        (lambda: cosine_integral(np.inf), ValueError, "x must be finite real numbers"),
        (lambda: cosine_integral("1"), TypeError, "x must be finite real numbers"),
        (lambda: cin([np.nan]), ValueError, "x must be finite real numbers"),
    ],
)
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()
