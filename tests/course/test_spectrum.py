"""posenc_lib.course.spectrum: the power spectrum of a position table, against known signals."""

from __future__ import annotations

import numpy as np
import pytest

import posenc_lib as pe
from posenc_lib.course.spectrum import position_power_spectrum


def test_power_spectrum_of_a_pure_sinusoid():
    length = 64
    m = np.arange(length)
    table = np.stack(
        [np.sin(2 * np.pi * 5 * m / length), np.cos(2 * np.pi * 5 * m / length)], axis=1
    )
    freqs, power = position_power_spectrum(table)
    assert freqs[np.argmax(power)] == pytest.approx(5 / length)
    assert power.max() == pytest.approx(1.0)
    assert power.sum() == pytest.approx(1.0)


def test_power_spectrum_parseval(rng):
    table = rng.standard_normal((33, 3))
    _, power = position_power_spectrum(table)
    assert power.sum() == pytest.approx(1.0)
    assert power[0] == pytest.approx(0.0, abs=1e-25)  # columns are centered


def test_power_spectrum_of_the_sinusoidal_table_sits_at_its_frequencies():
    # d = 4, b = 100: theta = (1, 0.1) rad/token, i.e. 0.159 and 0.0159 cycles/token; with
    # L = 4096 the two largest bins are the ones nearest those frequencies.
    length = 4096
    freqs, power = position_power_spectrum(pe.sinusoidal(length, 4, base=100.0))
    top = np.sort(freqs[np.argsort(power)[-2:]])
    np.testing.assert_allclose(top, np.array([0.1, 1.0]) / (2 * np.pi), atol=1 / length)


@pytest.mark.parametrize(
    ("table", "error", "match"),
    [
        (np.array([["a", "b"], ["c", "d"]]), TypeError, "table must be a 2-D array"),
        (np.ones(5), ValueError, r"table must be a 2-D array .* at least 2 rows"),
        (np.ones((1, 3)), ValueError, "at least 2 rows and columns"),
        ([[1.0, np.nan], [0.0, 1.0]], ValueError, "got an array containing NaN"),
    ],
)
def test_bad_table(table, error, match):
    with pytest.raises(error, match=match):
        position_power_spectrum(table)
