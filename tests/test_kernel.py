"""Tests of posenc_lib.kernel: exact kernel, its integral closed form, asymptotic forms, schedules.

Reference values come from mpmath at 40 significant digits, computed from the definitions (a
sum of cosines of the exact frequencies b^(-2i/d); the cosine integral Ci), never from the
library's own output.
"""

from __future__ import annotations

import importlib
import sys

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_lib as pe

K = importlib.import_module("posenc_lib.kernel")

mpmath.mp.dps = 40

RTOL = 1e-10  # relative accuracy asked of both functions
ATOL = 1e-13  # absolute accuracy near zeros, where a relative error is meaningless

settings.register_profile("kernel", max_examples=60, deadline=None)


def close(value: float, reference: float, rtol: float = RTOL, atol: float = ATOL) -> bool:
    return abs(value - reference) <= rtol * abs(reference) + atol


def reference_kernel(delta: float, dim: int, base: float, spacing: str = "2i/d") -> float:
    """(2/d) sum_i cos(delta * b^(-e_i)) with exact exponents, in 40-digit arithmetic."""
    n = dim // 2
    b = mpmath.mpf(base)
    if spacing == "2i/d":
        exponents = [mpmath.mpf(2 * i) / dim for i in range(n)]
    else:
        exponents = [mpmath.mpf(i) / max(n - 1, 1) for i in range(n)]
    x = mpmath.mpf(delta)
    return float(mpmath.fsum(mpmath.cos(x * b ** (-e)) for e in exponents) / n)


def reference_integral(delta: float, base: float) -> float:
    """(Ci(|delta|) - Ci(|delta|/b)) / ln b, with the limit 1 at delta = 0."""
    if delta == 0:
        return 1.0
    x = abs(mpmath.mpf(delta))
    b = mpmath.mpf(base)
    return float((mpmath.ci(x) - mpmath.ci(x / b)) / mpmath.log(b))


# ------------------------------------------------------------------------------------------
# The exact kernel against mpmath
# ------------------------------------------------------------------------------------------

# Integers, short binary fractions and offsets with more than 26 significant bits (1e6/3, ...),
# which take the reduction's extra branch for the low half of the offset.
OFFSETS = [0.0, 1.0, -1.0, 2.5, 7.0, 100.0, 4321.0, 123457.0, -999999.0, 1e6, 765432.25]
OFFSETS += [1e6 / 3, -98765.4321, 2.0**0.5 * 1e5]


@pytest.mark.parametrize(
    ("dim", "base"),
    [(2, 1e4), (8, 1e4), (64, 1e2), (512, 1e4), (512, 1e5), (4096, 1e3), (8192, 1e6)],
)
def test_kernel_matches_mpmath(dim, base):
    values = pe.kernel(OFFSETS, dim, base)
    for delta, value in zip(OFFSETS, values, strict=True):
        ref = reference_kernel(delta, dim, base)
        assert close(value, ref), (delta, value, ref)


@pytest.mark.parametrize(("dim", "base"), [(8, 1e4), (512, 1e4), (2048, 1e5)])
def test_kernel_matches_mpmath_tensor2tensor_spacing(dim, base):
    values = pe.kernel(OFFSETS, dim, base, spacing="i/(d/2-1)")
    for delta, value in zip(OFFSETS, values, strict=True):
        assert close(value, reference_kernel(delta, dim, base, "i/(d/2-1)")), delta


def test_kernel_stays_accurate_at_ten_million():
    """The angle reduction is exact, so |delta| = 1e7 loses no accuracy to the argument size."""
    for dim in (64, 8192):
        for delta in (1e7, 9999991.0, -7654321.5):
            assert close(float(pe.kernel(delta, dim, 1e4)), reference_kernel(delta, dim, 1e4))


@pytest.mark.parametrize("route", K._FREQUENCY_ROUTES)
def test_every_frequency_route_end_to_end(route, monkeypatch):
    """pe.kernel on each platform's route, against 40-digit sums up to |delta| = 1e7.

    long double and mpmath meet the stated accuracy; the numpy-only fallback for platforms
    without an 80-bit long double is documented to be as accurate as plain float64,
    about 1e-17 |delta|.
    """
    if route == "longdouble" and not K._LONG_DOUBLE_IS_EXTENDED:
        pytest.skip("numpy's long double is float64 on this platform")
    monkeypatch.setattr(K, "_frequency_route", lambda: route)
    deltas = [3.0, 54321.0, -999999.0, 1e7 / 3, 9999991.0, 1e7]
    for dim, base in [(8, 1e2), (64, 1e4), (512, 1e6), (8192, 1e4)]:
        values = pe.kernel(deltas, dim, base)
        for delta, value in zip(deltas, values, strict=True):
            ref = reference_kernel(delta, dim, base)
            if route == "float64":
                assert abs(value - ref) <= 1e-16 * abs(delta) + ATOL, (dim, base, delta)
            else:
                assert close(value, ref), (route, dim, base, delta, value, ref)


def test_frequency_route_selection(monkeypatch):
    expected = "longdouble" if np.finfo(np.longdouble).eps < 1e-18 else "mpmath"
    assert K._frequency_route() == expected
    monkeypatch.setattr(K, "_LONG_DOUBLE_IS_EXTENDED", False)
    assert K._frequency_route() == "mpmath"
    monkeypatch.setitem(sys.modules, "mpmath", None)  # as if mpmath were not installed
    assert K._frequency_route() == "float64"
    with pytest.raises(ValueError, match="method must be one of"):
        K._extended_cycles(np.array([[0], [1]]), 1e4, "quad")


def test_angle_reduction_is_exact_far_beyond_the_tested_range():
    """The reduction itself is exact: given the double-double cycles phi = hi + lo actually used,
    the mean of cos(2 pi delta phi) matches 40-digit arithmetic up to |delta| ~ 1e15, through
    the branches for offsets >= 2**30 and with more than 26 significant bits."""
    hi, lo = K._cycles(64, 1e4, "2i/d", K._frequency_route())
    deltas = [2.0**30 - 1, 2.0**30, 3e9 + 0.5, -(2.0**40) - 3, 1e12 / 7, 2.0**45 / 3, 7.77e14]
    values = K._mean_cos_cycles(np.array(deltas), hi, lo)
    for delta, value in zip(deltas, values, strict=True):
        x = mpmath.mpf(delta)
        ref = mpmath.fsum(
            mpmath.cos(2 * mpmath.pi * x * (mpmath.mpf(float(h)) + mpmath.mpf(float(e))))
            for h, e in zip(hi, lo, strict=True)
        ) / len(hi)
        assert abs(value - float(ref)) < 1e-15, delta


def test_plain_float64_evaluation_is_measurably_worse():
    """Why the careful reduction: cos(delta * theta) in float64 loses about four digits at 1e6."""
    dim, base = 64, 1e2
    deltas = [999999.0, 987654.0, 876543.0, 765432.0]
    refs = np.array([reference_kernel(delta, dim, base) for delta in deltas])
    naive = np.cos(np.multiply.outer(deltas, pe.frequencies(dim, base))).mean(axis=1)
    assert np.max(np.abs(naive - refs)) > 1e-12
    assert np.max(np.abs(pe.kernel(deltas, dim, base) - refs)) < 1e-14


def test_kernel_of_one_pair_is_cosine():
    deltas = np.array([0.0, 0.5, 3.0, -17.0, 1e5])
    np.testing.assert_allclose(pe.kernel(deltas, 2), np.cos(deltas), rtol=0, atol=1e-15)


def test_kernel_equals_inner_products_of_the_table():
    """kappa(m - n) = <p_m, p_n> / (d/2), computed from the table itself (an independent path)."""
    positions = np.array([0.0, 1.0, 5.0, 37.5, 1000.0, 2047.0])
    for spacing in pe.SPACINGS:
        for layout in pe.LAYOUTS:
            table = pe.sinusoidal(positions, 32, 500.0, layout, spacing=spacing)
            gram = table @ table.T / 16
            offsets = np.subtract.outer(positions, positions)
            np.testing.assert_allclose(
                pe.kernel(offsets, 32, 500.0, spacing), gram, rtol=0, atol=1e-12
            )


def test_kernel_keeps_shapes():
    assert pe.kernel(3.0, 8).shape == ()
    assert pe.kernel(np.zeros((2, 3, 4)), 8).shape == (2, 3, 4)
    assert pe.kernel(np.array([]), 8).shape == (0,)
    assert pe.kernel(np.arange(5), 8).dtype == np.float64  # integer offsets accepted


def test_kernel_chunks_give_the_same_answer_as_one_block():
    """More offsets than one chunk: the chunked loop must stitch results in order."""
    deltas = np.linspace(-5e4, 5e4, 3 * K._CHUNK_ELEMENTS // 8 + 7)
    direct = np.cos(np.multiply.outer(deltas, pe.frequencies(16, 1e4))).mean(axis=1)
    np.testing.assert_allclose(pe.kernel(deltas, 16, 1e4), direct, rtol=0, atol=1e-10)


# ------------------------------------------------------------------------------------------
# The cosine integral and the integral approximation against mpmath
# ------------------------------------------------------------------------------------------


def test_cosine_integral_known_values_and_mpmath():
    # Ci(1) = 0.33740392290096813466... (Abramowitz & Stegun, table 5.1)
    assert abs(float(K.cosine_integral(1.0)) - 0.33740392290096813466) < 1e-15
    xs = np.concatenate([np.logspace(-8, 7, 151), [3.9999999, 4.0, 4.0000001, 0.6165054856207162]])
    values = K.cosine_integral(xs)
    for x, value in zip(xs, values, strict=True):
        ref = float(mpmath.ci(mpmath.mpf(x)))
        assert close(value, ref, atol=1e-14 * max(1.0, abs(np.log(x)))), x


INTEGRAL_BASES = [1.5, 2.0, 10.0, 1e2, 1e3, 1e4, 1e5, 1e6, 1e8]


@pytest.mark.parametrize("base", INTEGRAL_BASES)
def test_kernel_integral_matches_mpmath(base):
    first_zero = 0.61650548562033  # first zero of Ci: kernel_integral crosses 0 near 0.6165 b
    deltas = np.concatenate(
        [
            [0.0, 1e-9, -1e-3, 0.5, 1.0, 3.999, 4.0, 4.001, -4.001 * base, 4.001 * base],
            np.logspace(0, 6, 37),
            [first_zero * base, -1e6],
        ]
    )
    values = pe.kernel_integral(deltas, base)
    for delta, value in zip(deltas, values, strict=True):
        ref = reference_integral(delta, base)
        assert close(value, ref, atol=1e-14), (delta, value, ref)


def test_kernel_integral_is_the_large_d_limit_of_the_kernel():
    """The Riemann sum converges to the integral: error <= 2/d + |D| ln b/d^2 for small |D|.

    (The h/2 and h^2/12 Euler-Maclaurin terms, h = 2/d, bounded; valid well below pi d/ln b.)
    """
    deltas = np.array([0.5, 1.0, 3.0, 10.0])
    previous = np.inf
    for dim in (256, 1024, 4096):
        error = np.max(np.abs(pe.kernel(deltas, dim) - pe.kernel_integral(deltas)))
        assert error <= 2.0 / dim + 10.0 * np.log(1e4) / dim**2
        assert error < previous
        previous = error


def test_kernel_integral_closed_form_equals_quadrature():
    """An independent numerical check of the closed form: mpmath quadrature of the integral."""
    for delta, base in [(3.0, 1e4), (250.0, 1e2), (20.0, 2.0)]:
        b = mpmath.mpf(base)
        quad = mpmath.quad(lambda t, x=delta, b=b: mpmath.cos(x * b ** (-t)), np.linspace(0, 1, 9))
        assert close(float(pe.kernel_integral(delta, base)), float(quad))


# ------------------------------------------------------------------------------------------
# Asymptotic forms and their bounds
# ------------------------------------------------------------------------------------------


def test_log_form_zero_and_half_points():
    """1 - (gamma + ln D)/ln b is 1/2 at D = e^-gamma sqrt(b) and 0 at D = e^-gamma b."""
    for base in (1e2, 1e4, 1e6):
        half = np.exp(-K.EULER_GAMMA) * np.sqrt(base)
        zero = np.exp(-K.EULER_GAMMA) * base
        assert K.kernel_log(half, base) == pytest.approx(0.5, abs=1e-14)
        assert K.kernel_log(zero, base) == pytest.approx(0.0, abs=1e-14)


@settings(settings.get_profile("kernel"))
@given(
    delta=st.floats(min_value=1e-3, max_value=1e7),
    base=st.floats(min_value=2.0, max_value=1e7),
)
def test_asymptotic_bounds_hold(delta, base):
    exact = reference_integral(delta, base)
    slack = 1e-13
    for form, func in [
        ("taylor", K.kernel_taylor),
        ("log", K.kernel_log),
        ("oscillatory", K.kernel_oscillatory),
    ]:
        error = abs(exact - float(func(delta, base)))
        assert error <= float(K.asymptotic_bound(form, delta, base)) + slack, form


def test_taylor_form_is_a_lower_bound():
    deltas = np.linspace(0, 3, 31)
    for base in (2.0, 1e4):
        gap = pe.kernel_integral(deltas, base) - K.kernel_taylor(deltas, base)
        assert np.all(gap >= -1e-15)


def test_integral_obeys_the_one_over_delta_bound_with_the_right_constant():
    """|kbar| <= 2b/(|D| ln b) holds; the source's 2/(|D| ln b) (limits [1, b]) does not."""
    deltas = np.logspace(0, 7, 300)
    for base in (1e2, 1e4, 1e6):
        values = np.abs(pe.kernel_integral(deltas, base))
        assert np.all(values <= 2 * base / (deltas * np.log(base)) + 1e-15)
    assert float(pe.kernel_integral(100.0, 1e4)) > 100 * 2 / (100.0 * np.log(1e4))


def test_euler_maclaurin_orders_improve_below_the_aliasing_scale():
    deltas = np.arange(1.0, 40.0)
    for dim, base in [(512, 1e4), (4096, 1e2)]:
        exact = pe.kernel(deltas, dim, base)
        errors = [
            np.max(np.abs(exact - K.kernel_euler_maclaurin(deltas, dim, base, order=k)))
            for k in (0, 1, 2)
        ]
        assert errors[0] <= 2.0 / dim + 40 * np.log(base) / dim**2
        assert errors[2] < errors[1] < errors[0]
        assert errors[2] < 1e-4


def test_euler_maclaurin_tensor2tensor_spacing():
    deltas = np.arange(0.0, 30.0)
    exact = pe.kernel(deltas, 1024, 1e4, spacing="i/(d/2-1)")
    approx = K.kernel_euler_maclaurin(deltas, 1024, 1e4, spacing="i/(d/2-1)", order=2)
    assert np.max(np.abs(exact - approx)) < 1e-6
    np.testing.assert_allclose(
        K.kernel_euler_maclaurin(deltas, 2, 1e4, spacing="i/(d/2-1)"), np.cos(deltas), atol=1e-15
    )


# ------------------------------------------------------------------------------------------
# Other schedules
# ------------------------------------------------------------------------------------------


def test_schedules():
    np.testing.assert_allclose(
        K.schedule_frequencies(16, "geometric", base=100.0), pe.frequencies(16, 100.0), rtol=1e-15
    )
    np.testing.assert_array_equal(K.schedule_frequencies(8, "linear"), [1.0, 0.75, 0.5, 0.25])
    np.testing.assert_allclose(
        K.schedule_frequencies(8, "power", alpha=2.0), [1.0, 1 / 4, 1 / 9, 1 / 16], rtol=1e-15
    )


def test_linear_schedule_kernel_matches_its_closed_form():
    """theta_i = 1 - 2i/d: sum_i e^{i D theta_i} = (e^{iD} - 1)/(1 - e^{-2iD/d}) (geometric)."""
    dim = 64
    deltas = np.array([0.3, 1.0, 2.0, 50.0, 100.5, 3000.0])
    closed = (2 / dim) * np.real((np.exp(1j * deltas) - 1) / (1 - np.exp(-2j * deltas / dim)))
    theta = K.schedule_frequencies(dim, "linear")
    np.testing.assert_allclose(K.kernel_from_frequencies(deltas, theta), closed, atol=1e-12)


def test_kernel_from_frequencies_treats_float64_frequencies_as_exact():
    """Against 40-digit sums of cos(delta * theta_j) with the float64 theta_j taken exactly."""
    theta = K.schedule_frequencies(64, "power", alpha=0.5)
    deltas = [0.0, 7.0, 12345.5, -999999.0, 1e7 / 3, 1e7]
    values = K.kernel_from_frequencies(deltas, theta)
    for delta, value in zip(deltas, values, strict=True):
        x = mpmath.mpf(delta)
        ref = mpmath.fsum(mpmath.cos(x * mpmath.mpf(float(t))) for t in theta) / len(theta)
        assert close(value, float(ref)), delta


def test_kernel_from_frequencies_agrees_with_kernel():
    deltas = np.array([0.0, 1.0, 10.0, 1000.0, -2e4])
    np.testing.assert_allclose(
        K.kernel_from_frequencies(deltas, pe.frequencies(128, 1e4)),
        pe.kernel(deltas, 128, 1e4),
        atol=1e-11,  # frequencies() rounds theta to float64: |delta| * 1e-16 per term
    )
    np.testing.assert_allclose(K.kernel_from_frequencies(deltas, [0.25]), np.cos(0.25 * deltas))


# ------------------------------------------------------------------------------------------
# Properties
# ------------------------------------------------------------------------------------------

dims = st.integers(min_value=1, max_value=256).map(lambda half: 2 * half)
bases = st.floats(min_value=1.5, max_value=1e7)
offsets = st.floats(min_value=-1e7, max_value=1e7, allow_nan=False)


@settings(settings.get_profile("kernel"))
@given(delta=offsets, dim=dims, base=bases, spacing=st.sampled_from(pe.SPACINGS))
def test_kernel_properties(delta, dim, base, spacing):
    assert float(pe.kernel(0.0, dim, base, spacing)) == pytest.approx(1.0, abs=1e-15)
    value = float(pe.kernel(delta, dim, base, spacing))
    assert value == float(pe.kernel(-delta, dim, base, spacing))  # even, exactly
    assert abs(value) <= 1.0 + 1e-15


@settings(settings.get_profile("kernel"))
@given(delta=offsets, base=bases)
def test_kernel_integral_properties(delta, base):
    assert float(pe.kernel_integral(0.0, base)) == 1.0
    value = float(pe.kernel_integral(delta, base))
    assert value == float(pe.kernel_integral(-delta, base))
    assert abs(value) <= 1.0 + 1e-15


# ------------------------------------------------------------------------------------------
# Input validation
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: pe.kernel(1.0, 7), ValueError, "dim must be a positive even integer"),
        (lambda: pe.kernel(1.0, 0), ValueError, "dim must be a positive even integer"),
        (lambda: pe.kernel(1.0, 8.0), TypeError, "dim must be a positive even integer"),
        (lambda: pe.kernel(1.0, True), TypeError, "dim must be a positive even integer"),
        (lambda: pe.kernel(1.0, 8, 1.0), ValueError, "base must be a finite real number > 1"),
        (lambda: pe.kernel(1.0, 8, "1e4"), TypeError, "base must be a real number > 1"),
        (lambda: pe.kernel(1.0, 8, spacing="i/d"), ValueError, "spacing must be one of"),
        (lambda: pe.kernel([1.0, np.inf], 8), ValueError, "delta must be finite"),
        (lambda: pe.kernel([True, False], 8), TypeError, "delta must hold real numbers"),
        (lambda: pe.kernel_integral(np.nan), ValueError, "delta must be finite"),
        (lambda: pe.kernel_integral("x"), TypeError, "delta must hold real numbers"),
        (lambda: pe.kernel_integral(1.0, 0.5), ValueError, "base must be a finite real number > 1"),
        (lambda: pe.kernel_integral(1.0, None), TypeError, "base must be a real number > 1"),
        (lambda: K.kernel_taylor(1.0, 1.0), ValueError, "base must be"),
        (lambda: K.kernel_log([1.0, 0.0]), ValueError, "delta must be non-zero"),
        (lambda: K.kernel_oscillatory(0.0), ValueError, "delta must be non-zero"),
        (lambda: K.asymptotic_bound("pade", 1.0), ValueError, "form must be one of"),
        (lambda: K.asymptotic_bound("log", 0.0), ValueError, "delta must be non-zero"),
        (lambda: K.kernel_euler_maclaurin(1.0, 8, order=3), ValueError, "order must be one of"),
        (lambda: K.kernel_euler_maclaurin(1.0, 8, order=True), ValueError, "order must be one"),
        (lambda: K.kernel_euler_maclaurin(1.0, 9), ValueError, "dim must be"),
        (lambda: K.schedule_frequencies(8, "cosine"), ValueError, "schedule must be one of"),
        (lambda: K.schedule_frequencies(8, "power", alpha=0.0), ValueError, "alpha must be"),
        (lambda: K.schedule_frequencies(8, "power", alpha="2"), TypeError, "alpha must be"),
        (lambda: K.kernel_from_frequencies(1.0, []), ValueError, "theta must be a non-empty 1-D"),
        (lambda: K.kernel_from_frequencies(1.0, [[1.0]]), ValueError, "theta must be a non-empty"),
        (lambda: K.kernel_from_frequencies(1.0, [np.nan]), ValueError, "theta must be finite"),
        (lambda: K.cosine_integral([1.0, 0.0]), ValueError, "x must be > 0"),
    ],
)
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_extended_precision_frequency_methods_agree():
    """long double, mpmath and float64 routes to theta/(2 pi): the first two agree to ~1e-19."""
    i = np.arange(256, dtype=np.int64)
    exponents = np.stack([2 * i, np.full_like(i, 512)])
    routes = {m: K._extended_cycles(exponents, 1e4, m) for m in ("mpmath", "float64")}
    if np.finfo(np.longdouble).eps < 1e-18:
        routes["longdouble"] = K._extended_cycles(exponents, 1e4, "longdouble")
    ref_hi, ref_lo = routes["mpmath"]
    with mpmath.workdps(40):
        exact = [mpmath.mpf(10) ** (-4 * mpmath.mpf(int(k)) / 256) / (2 * mpmath.pi) for k in i]
        worst = max(
            abs(x - mpmath.mpf(float(h)) - mpmath.mpf(float(lo)))
            for x, h, lo in zip(exact, ref_hi, ref_lo, strict=True)
        )
    assert worst < 1e-30
    for method, (hi, lo) in routes.items():
        relative = np.abs((hi - ref_hi) + (lo - ref_lo)) / ref_hi
        assert relative.max() < (1e-14 if method == "float64" else 1e-18), method
    # The float64 route rounds theta once; dividing that float64 theta by 2 pi is then exact to
    # double-double precision (the low part of 1/(2 pi) included).
    hi, lo = routes["float64"]
    theta = pe.frequencies(512, 1e4)
    with mpmath.workdps(40):
        worst = max(
            abs(
                mpmath.mpf(float(t)) / (2 * mpmath.pi) - mpmath.mpf(float(h)) - mpmath.mpf(float(e))
            )
            / mpmath.mpf(float(h))
            for t, h, e in zip(theta, hi, lo, strict=True)
        )
    assert worst < 1e-30
