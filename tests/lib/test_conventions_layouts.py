"""The table conventions posenc_lib.sinusoidal expresses for the wild: [cos | sin] halves, odd d."""

from __future__ import annotations

import numpy as np
import pytest

import posenc_lib as pe
from posenc_lib.encoding import ODD_DIMS


def _reference(positions, thetas, columns, width):
    """A table built column by column: ``columns`` lists (kind, pair) per column, 'zero' pads."""
    out = np.zeros((len(positions), width))
    for col, (kind, pair) in enumerate(columns):
        if kind != "zero":
            out[:, col] = getattr(np, kind)(np.asarray(positions, float) * thetas[pair])
    return out


def test_cos_first_halves():
    d, base = 10, 300.0
    theta = base ** (-2.0 * np.arange(d // 2) / d)
    columns = [("cos", i) for i in range(d // 2)] + [("sin", i) for i in range(d // 2)]
    expected = _reference(np.arange(40), theta, columns, d)
    got = pe.sinusoidal(40, d, base=base, layout="concatenated_cos_first")
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-13)
    # a permutation of every other layout, and shifts are still rotations
    for layout in pe.LAYOUTS:
        other = pe.sinusoidal(40, d, base=base, layout=layout)
        converted = pe.convert_layout(other, layout, "concatenated_cos_first")
        np.testing.assert_array_equal(converted, pe.sinusoidal(40, d, base=base, layout=layout)[
            :, pe.layout_permutation(d, layout, "concatenated_cos_first")])  # fmt: skip
        np.testing.assert_allclose(converted, got, rtol=0, atol=1e-13)
    shift = pe.shift_matrix(7, d, base=base, layout="concatenated_cos_first")
    np.testing.assert_allclose(got[:-7] @ shift.T, got[7:], rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "layout", ["interleaved", "concatenated", "concatenated_cos_first"]
)
@pytest.mark.parametrize("spacing", ["2i/d", "i/(d/2-1)"])
def test_odd_dim_zero_pad_is_the_even_table_and_a_zero_column(layout, spacing):
    d = 9
    got = pe.sinusoidal(30, d, layout=layout, spacing=spacing, odd_dim="zero_pad")
    assert got.shape == (30, 9)
    np.testing.assert_array_equal(
        got[:, :-1], pe.sinusoidal(30, d - 1, layout=layout, spacing=spacing)
    )
    assert not got[:, -1].any()


def test_odd_dim_split_uses_the_odd_d_in_the_exponent():
    d, base = 7, 10000.0
    theta = base ** (-2.0 * np.arange(4) / d)  # 2 * (j // 2) / d for j = 0 … 6
    interleaved = [
        ("sin", 0),
        ("cos", 0),
        ("sin", 1),
        ("cos", 1),
        ("sin", 2),
        ("cos", 2),
        ("sin", 3),
    ]
    halves = [
        ("sin", 0),
        ("sin", 1),
        ("sin", 2),
        ("sin", 3),
        ("cos", 0),
        ("cos", 1),
        ("cos", 2),
    ]
    positions = np.arange(50)
    np.testing.assert_allclose(
        pe.sinusoidal(50, d, odd_dim="split"),
        _reference(positions, theta, interleaved, d), rtol=0, atol=1e-13,
    )  # fmt: skip
    np.testing.assert_allclose(
        pe.sinusoidal(50, d, layout="concatenated", odd_dim="split"),
        _reference(positions, theta, halves, d), rtol=0, atol=1e-13,
    )  # fmt: skip
    fractional = np.array([0.5, -2.25, 1e3])
    np.testing.assert_allclose(
        pe.sinusoidal(fractional, d, odd_dim="split", dtype=np.float32),
        _reference(fractional, theta, interleaved, d), rtol=0, atol=1e-7,
    )  # fmt: skip


def test_odd_dim_is_ignored_for_even_dims():
    np.testing.assert_array_equal(
        pe.sinusoidal(5, 8, odd_dim="split"), pe.sinusoidal(5, 8)
    )


def test_odd_dim_errors_name_the_argument_and_the_choices():
    with pytest.raises(ValueError, match=r"odd_dim='zero_pad'.*odd_dim='split'"):
        pe.sinusoidal(5, 7)
    with pytest.raises(ValueError, match=r"^odd_dim\b.*'zero_pad'"):
        pe.sinusoidal(5, 7, odd_dim="pad")
    with pytest.raises(ValueError, match=r"^layout\b"):
        pe.sinusoidal(5, 7, layout="concatenated_cos_first", odd_dim="split")
    # a spacing and a method that are valid, but not with odd_dim='split': the error says so
    with pytest.raises(ValueError, match=r"^spacing\b.*with odd_dim='split'"):
        pe.sinusoidal(5, 7, spacing="i/(d/2-1)", odd_dim="split")
    with pytest.raises(ValueError, match=r"^method\b.*with odd_dim='split'"):
        pe.sinusoidal(5, 7, method="angle_addition", odd_dim="split")
    with pytest.raises(ValueError, match=r"^dim\b"):
        pe.sinusoidal(5, 1, odd_dim="zero_pad")
    with pytest.raises(ValueError, match=r"\bmax_bytes\b"):
        pe.sinusoidal(2**40, 7, odd_dim="split")
    with pytest.raises(ValueError, match=r"\bmax_bytes\b"):
        pe.sinusoidal(2**40, 7, odd_dim="zero_pad")
    assert ODD_DIMS == ("zero_pad", "split")


def test_tensor2tensor_and_fairseq_parameters_as_positions_and_base():
    # tensor2tensor multiplies its frequencies by min_timescale: theta_i = t_min (t_max/t_min)^(…)
    t_min, t_max, start, d = 2.0, 5e3, 7, 16
    i = np.arange(d // 2)
    theta = t_min * (t_max / t_min) ** (-i / (d // 2 - 1))
    m = np.arange(20) + start
    expected = np.concatenate(
        [np.sin(np.outer(m, theta)), np.cos(np.outer(m, theta))], axis=1
    )
    got = pe.sinusoidal(t_min * (np.arange(20) + start), d, base=t_max / t_min,
                        layout="concatenated", spacing="i/(d/2-1)")  # fmt: skip
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def test_the_module_takes_every_layout():
    torch = pytest.importorskip("torch")
    from posenc_lib.nn import SinusoidalPositionalEncoding

    for layout in pe.LAYOUTS:
        module = SinusoidalPositionalEncoding(
            10, layout=layout, batch_first=True, dtype=torch.float64, initial_length=16
        )
        expected = torch.from_numpy(pe.sinusoidal(16, 10, layout=layout))
        assert torch.equal(module.table, expected)
        by_positions = module(
            torch.zeros(1, 16, 10, dtype=torch.float64), positions=torch.arange(16)
        )
        torch.testing.assert_close(by_positions[0], expected, rtol=0, atol=1e-15)
