"""Guards before allocation and exception types of the public API (issue 16, items 2 and 3).

One test per finding of the issue: each bad argument gets a ValueError or TypeError that names
it, before anything large is allocated (measured with ``tracemalloc``, which sees numpy's
allocations), and closed-form answers come back at once. ``tests/lib/test_fuzz_api.py`` covers the
whole API with generated arguments; these tests pin the messages.
"""

import math
import time
import tracemalloc

import numpy as np
import pytest

import posenc_lib as pe
from posenc_lib import _validation as V
from posenc_lib import conventions, decay, distances
from posenc_lib.course import naive, shift_invariance, spectrum

#: Largest allocation (bytes) a refused call may make: far below the sizes it refuses.
SMALL = 16 * 2**20


def refused_small(error, match, call, *args, **kwargs):
    """``call`` raises ``error`` matching ``match`` after allocating less than ``SMALL``."""
    tracemalloc.start()
    try:
        with pytest.raises(error, match=match):
            call(*args, **kwargs)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < SMALL, f"{peak / 2**20:.0f} MiB allocated before refusing"


# ---- sizes ---------------------------------------------------------------------------------


def test_huge_dim_is_a_size_error_not_memory_error():
    match = r"dim must be an even integer <= MAX_DIM = 16777216, got 1099511627776$"
    refused_small(ValueError, match, pe.sinusoidal, 1, 2**40)
    refused_small(ValueError, match, pe.frequencies, 2**40)
    refused_small(ValueError, match, pe.kernel, 1.0, 2**40)


@pytest.mark.parametrize(
    ("max_bytes", "error", "given"),
    [
        (float("nan"), ValueError, "nan"),
        (None, TypeError, "None"),
        ("2GB", TypeError, "'2GB'"),
        (True, TypeError, "True"),
        (10**400, ValueError, "an integer of about 10\\*\\*400"),
        (0, ValueError, "0"),
        (1.5, ValueError, "1.5"),
    ],
)
def test_max_bytes_is_validated_everywhere(max_bytes, error, given):
    match = f"^max_bytes must be a positive whole number of bytes, got {given}$"
    with pytest.raises(error, match=match):
        pe.sinusoidal(4, 2, max_bytes=max_bytes)


def test_angles_are_sized_before_allocation():
    refused_small(
        ValueError,
        r"^positions x dim/2 = 3000000 x 256 needs 5859 MiB, over the limit max_bytes",
        pe.angles,
        3_000_000,
        512,
    )
    assert pe.angles(3, 4).shape == (3, 2)


def test_shift_matrix_is_sized_before_allocation():
    refused_small(ValueError, "dim", pe.shift_matrix, 1.0, 2**40)
    refused_small(
        ValueError,
        r"^dim x dim = 65536 x 65536 needs 32768 MiB",
        pe.shift_matrix,
        1.0,
        2**16,
    )


def test_rotary_far_offset_is_computed_not_cached():
    torch = pytest.importorskip("torch")
    from posenc_lib.nn import RotaryEmbedding

    x = torch.randn(3, 8, dtype=torch.float64)
    module = RotaryEmbedding(8, dtype=torch.float64)
    tracemalloc.start()
    y = module.rotate_one(x, offset=2**40)
    tracemalloc.stop()
    # a rotation keeps the norm of every pair (an independent property of the result)
    pairs_x = x.reshape(3, 4, 2).norm(dim=-1)
    pairs_y = y.reshape(3, 4, 2).norm(dim=-1)
    assert torch.allclose(pairs_x, pairs_y, atol=1e-12)
    assert module.cached_length <= 512


def test_separation_bound_is_closed_form_for_large_dim():
    began = time.perf_counter()
    bound = distances.separation_bound(100, 2**24)
    assert time.perf_counter() - began < 1.0
    # 99 < 2**(d/2), so N = floor(99**(2/d)) = 1 and the bound is 2 pi sqrt(d/2)
    assert bound == pytest.approx(2 * math.pi * math.sqrt(2**23), rel=1e-15)
    with pytest.raises(ValueError, match=r"^dim\b"):
        distances.separation_bound(100, 2**40)


def test_min_separation_scan_is_capped():
    limit = 1 + distances.MAX_SCAN // 4
    with pytest.raises(
        ValueError,
        match=rf"^length must be an integer in 2 \.\. {limit}, got 1099511627776$",
    ):
        distances.min_separation(2**40, 8)


def test_reference_precision_and_entries_are_capped():
    pytest.importorskip("mpmath")
    from posenc_lib.high_precision import reference_entries

    with pytest.raises(ValueError, match=r"^dps\b"):
        reference_entries([1.0], [0], 8, dps=10**7)
    with pytest.raises(ValueError, match=r"^positions x pairs\b"):
        reference_entries(np.zeros(200_000), [0], 8)
    with pytest.raises(ValueError, match=r"^positions and pairs\b"):
        reference_entries([1.0, 2.0, 3.0], [0, 1], 8)
    with pytest.raises(ValueError, match=r"^pairs\b"):
        reference_entries([1.0], [4], 8)


def test_counts_are_capped():
    torch = pytest.importorskip("torch")
    from posenc_lib import nn

    with pytest.raises(ValueError, match=r"^n_heads\b"):
        nn.alibi_slopes(2**40)
    with pytest.raises(ValueError, match=r"^q_len x k_len x n_heads\b"):
        nn.ALiBi(2).bias(2**20, 2**20)
    with pytest.raises(ValueError, match=r"^length x dim\b"):
        nn.SinusoidalPositionalEncoding(8).encoding(2**40)
    with pytest.raises(ValueError, match=r"^length\b"):
        conventions.framework_rows("fairseq", 2**40)
    assert torch.is_tensor(nn.ALiBi(2).bias(4, 4))


def test_rotary_scores_name_m_and_n():
    with pytest.raises(ValueError, match=r"^m and n\b"):
        shift_invariance.rotary_scores(np.ones(8), np.ones(8), [0, 1], [0, 1, 2])


# ---- exception types -----------------------------------------------------------------------


def test_overflowing_base_is_a_value_error():
    match = (
        r"^base must be a finite real number > 1, got an integer of about 10\*\*400$"
    )
    with pytest.raises(ValueError, match=match):
        pe.sinusoidal(4, 8, base=10**400)
    with pytest.raises(ValueError, match=match):
        pe.kernel(1.0, 8, base=10**400)
    assert (
        V.describe(10**5000) == "an integer of about 10**5000"
    )  # no str() of 5000 digits


def test_grad_tensors_are_detached_for_numpy_functions():
    torch = pytest.importorskip("torch")
    delta = torch.tensor([1.0, 2.5], dtype=torch.float64, requires_grad=True)
    np.testing.assert_array_equal(pe.kernel(delta, 8), pe.kernel([1.0, 2.5], 8))
    table = torch.tensor(pe.sinusoidal(6, 4), requires_grad=True)
    freqs, power = spectrum.position_power_spectrum(table)
    assert power.shape == freqs.shape


def test_grad_positions_to_torch_modules_get_a_clear_message():
    torch = pytest.importorskip("torch")
    from posenc_lib.nn import SinusoidalPositionalEncoding

    module = SinusoidalPositionalEncoding(8, batch_first=True)
    positions = torch.arange(3.0, requires_grad=True)
    with pytest.raises(ValueError, match=r"^positions\b"):
        module(torch.zeros(1, 3, 8), positions=positions)


def test_ragged_lists_are_value_errors_naming_the_argument():
    with pytest.raises(ValueError, match=r"^positions\b"):
        pe.sinusoidal([[1.0], [1.0, 2.0]], 8)
    with pytest.raises(ValueError, match=r"^delta\b"):
        pe.kernel([[1.0], [1.0, 2.0]], 8)
    with pytest.raises(ValueError, match=r"^table\b"):
        pe.convert_layout([[1.0, 2.0], [1.0]], "interleaved", "concatenated")


def test_token_ids_beyond_the_vocabulary():
    torch = pytest.importorskip("torch")
    from posenc_lib.course.transformer import TinyTransformer

    model = TinyTransformer(8, 8, 2, 1)
    with pytest.raises(ValueError, match=r"^tokens\b"):
        model(torch.tensor([[1, 8]]))


def test_wrong_types_name_the_argument():
    torch = pytest.importorskip("torch")
    from posenc_lib import nn
    from posenc_lib.course import experiments
    from posenc_lib.course import transformer as tr

    attention = tr.SelfAttention(8, 2, nn.NoPositionalEncoding())
    with pytest.raises(TypeError, match=r"^x\b"):
        attention("x")
    with pytest.raises(TypeError, match=r"^config\b"):
        experiments.train("offset")
    rotary = nn.RotaryEmbedding(8)
    with pytest.raises(TypeError, match=r"^k\b"):
        rotary.rotate(torch.zeros(3, 8), None)


def test_kernel_far_offsets_refused_not_nan():
    match = r"^delta must be finite real numbers of magnitude <= 1e\+300, got the value 1e\+308"
    with pytest.raises(ValueError, match=match):
        pe.kernel([1e308], 64)
    value = pe.kernel([1e299], 64)
    assert np.isfinite(value).all() and abs(float(value[0])) <= 1.0
    from posenc_lib.exact_kernel import kernel_from_frequencies

    with pytest.raises(ValueError, match=r"^delta x theta\b"):
        kernel_from_frequencies([1e299], [100.0])


def test_bool_flags_are_type_checked():
    torch = pytest.importorskip("torch")
    from posenc_lib import nn

    with pytest.raises(TypeError, match=r"^causal\b"):
        nn.ALiBi(2).bias(3, 3, causal=1)
    assert torch.is_tensor(nn.ALiBi(2).bias(3, 3, causal=False))


def test_positions_beyond_float64_resolution_are_refused():
    match = (
        r"^positions must be integers of magnitude <= 2\*\*53 \(exact in float64\), "
        r"got the position 1152921504606846976$"
    )
    with pytest.raises(ValueError, match=match):
        pe.sinusoidal(np.array([2**60, 2**60 + 1]), 8)
    # at 2**53 the integers are still exact: rows of distinct positions differ
    rows = pe.sinusoidal(np.array([2**53 - 1, 2**53]), 8)
    assert not np.array_equal(rows[0], rows[1])
    # token positions (check_token_positions) stay exact integers beyond 2**53 by design
    assert naive._check_token_positions(np.array([2**60]))[0] == 2**60


def test_forms_that_overflow_are_refused():
    with pytest.raises(ValueError, match=r"^delta\b"):
        decay.kernel_taylor([1e200])
    with pytest.raises(ValueError, match=r"^delta\b"):
        decay.asymptotic_bound("taylor", 1e100)
    with pytest.raises(ValueError, match=r"^delta\b"):
        decay.asymptotic_bound("log", 5e-324)
    with pytest.raises(ValueError, match=r"^table\b"):
        spectrum.position_power_spectrum(np.ones((5, 4)))


def test_taylor_terms_name_eps():
    torch = pytest.importorskip("torch")
    from posenc_lib.course import hessian

    def f(x_m, x_n):
        return (x_m * x_n).sum()

    x8 = torch.ones(8, dtype=torch.float64)
    terms = hessian.taylor_terms(f, x8, x8, x8, x8)
    with pytest.raises(TypeError, match=r"^eps\b"):
        terms.at_scale("0.1")
    assert terms.at_scale(0.0) == pytest.approx(8.0)


def test_index_arrays_are_checked():
    pytest.importorskip("mpmath")
    from posenc_lib.high_precision import sampled_error

    table = pe.sinusoidal(4, 8)
    with pytest.raises(ValueError, match=r"^rows\b"):
        sampled_error(table, 4, [0, 9], [0, 1])
    with pytest.raises(TypeError, match=r"^pairs\b"):
        sampled_error(table, 4, [0, 1], [0.5, 1.0])
