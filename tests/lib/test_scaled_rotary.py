"""ScaledRotaryEmbedding and RopeScaling as modules: formulas, state, casts, pickling, compile.

The comparisons with transformers are in ``test_conventions_rope_scaling.py``; here the module is
checked against the formula written out in float64 and against its own public contract.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from posenc_lib.course.transformer import SelfAttention  # noqa: E402
from posenc_lib.nn import RotaryEmbedding  # noqa: E402
from posenc_lib.rope_scaling import RopeScaling  # noqa: E402
from posenc_lib.scaled_rotary import ScaledRotaryEmbedding  # noqa: E402

YARN = RopeScaling("yarn", factor=4.0, original_max_position_embeddings=32)


def _by_hand(q, theta, a, positions):
    """Half-split rotation of pair i by m theta_i, times a, in float64."""
    half = theta.size
    phase = torch.from_numpy(np.multiply.outer(positions, theta))
    x0, x1 = q[..., :half], q[..., half:]
    return (
        torch.cat(
            (x0 * phase.cos() - x1 * phase.sin(), x0 * phase.sin() + x1 * phase.cos()),
            -1,
        )
        * a
    )


def test_rotation_is_the_schedule_applied_by_hand():
    module = ScaledRotaryEmbedding(
        16, scaling=YARN, pairing="half_split", dtype=torch.float64
    )
    q = torch.randn(2, 3, 40, 16, dtype=torch.float64)
    theta, a = YARN.frequencies(16)
    expected = _by_hand(q, theta, a, np.arange(5, 45))
    torch.testing.assert_close(module.rotate_one(q, 5, seq_axis=2), expected)
    ids = (
        torch.arange(40).repeat(2, 1) + 5
    )  # positions: cache lookup and direct path agree
    torch.testing.assert_close(
        module.rotate_one(q, positions=ids, seq_axis=2), expected
    )
    far = torch.arange(40).repeat(2, 1) + 10**6  # past the cache: float64 angles
    torch.testing.assert_close(
        module.rotate_one(q, positions=far, seq_axis=2),
        _by_hand(q, theta, a, np.arange(40) + 10**6),
    )


def test_default_schedule_is_the_plain_rotary_embedding():
    q = torch.randn(1, 2, 30, 8, dtype=torch.float64)
    plain = RotaryEmbedding(8, dtype=torch.float64).rotate_one(q, seq_axis=2)
    scaled = ScaledRotaryEmbedding(8, dtype=torch.float64).rotate_one(q, seq_axis=2)
    torch.testing.assert_close(scaled, plain, rtol=0, atol=1e-15)


def test_linear_schedule_is_interpolation_factor():
    q = torch.randn(1, 2, 30, 8, dtype=torch.float64)
    linear = RopeScaling("linear", factor=3.0)
    ours = ScaledRotaryEmbedding(8, scaling=linear, dtype=torch.float64)
    other = RotaryEmbedding(8, interpolation_factor=3.0, dtype=torch.float64)
    torch.testing.assert_close(
        ours.rotate_one(q, seq_axis=2),
        other.rotate_one(q, seq_axis=2),
        rtol=0,
        atol=1e-14,
    )


def test_cast_pickle_meta_and_attention():
    module = ScaledRotaryEmbedding(8, scaling=YARN, pairing="half_split")
    q = torch.randn(1, 2, 10, 8, dtype=torch.float64)
    wide = module.double()  # recomputed in float64, not widened
    torch.testing.assert_close(
        wide.rotate_one(q, seq_axis=2),
        _by_hand(q, *YARN.frequencies(8), np.arange(10)),
        rtol=0, atol=1e-14,
    )  # fmt: skip
    again = pickle.loads(pickle.dumps(wide))
    assert torch.equal(again.rotate_one(q, seq_axis=2), wide.rotate_one(q, seq_axis=2))
    with torch.device("meta"):
        lazy = ScaledRotaryEmbedding(8, scaling=YARN, pairing="half_split")
    lazy.to_empty(device="cpu")
    lazy = lazy.double()
    assert torch.equal(lazy.rotate_one(q, seq_axis=2), wide.rotate_one(q, seq_axis=2))
    SelfAttention(16, 2, module)  # a RotaryEmbedding for the attention's checks


def test_proportional_leaves_the_last_pairs_unrotated():
    scaling = RopeScaling("proportional", partial_rotary_factor=0.5)
    module = ScaledRotaryEmbedding(8, scaling=scaling, pairing="half_split")
    q = torch.randn(1, 1, 6, 8)
    out = module.rotate_one(q, 3, seq_axis=2)
    assert torch.equal(out[..., [2, 3, 6, 7]], q[..., [2, 3, 6, 7]])
    assert not torch.equal(out[..., [0, 4]], q[..., [0, 4]])


@pytest.mark.slow
def test_fullgraph_compile_of_a_fixed_schedule_and_refusal_of_a_dynamic_one():
    torch._dynamo.reset()
    module = ScaledRotaryEmbedding(8, scaling=YARN, pairing="half_split")
    q = torch.randn(1, 2, 12, 8)
    compiled = torch.compile(module.rotate_one, backend="eager", fullgraph=True)
    assert torch.equal(compiled(q, seq_axis=2), module.rotate_one(q, seq_axis=2))
    dynamic = ScaledRotaryEmbedding(
        8, scaling=RopeScaling("dynamic", factor=2.0, max_position_embeddings=8)
    )
    torch._dynamo.reset()
    compiled = torch.compile(dynamic.rotate_one, backend="eager", fullgraph=True)
    with pytest.raises(Exception, match="compile without fullgraph"):
        compiled(q, seq_axis=2)
    torch._dynamo.reset()
    loose = torch.compile(
        dynamic.rotate_one, backend="eager"
    )  # graph breaks, then works
    assert torch.equal(loose(q, seq_axis=2), dynamic.rotate_one(q, seq_axis=2))
    assert dynamic.seen_length == 12


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match=r"^scaling\b"):
        ScaledRotaryEmbedding(8, scaling={"rope_type": "yarn"})
    with pytest.raises(ValueError, match=r"^rope_type\b"):
        RopeScaling("ntk")
    with pytest.raises(ValueError, match=r"\bfactor\b"):
        RopeScaling("linear")
    with pytest.raises(ValueError, match=r"\boriginal_max_position_embeddings\b"):
        RopeScaling("yarn", factor=2.0)
    with pytest.raises(ValueError, match=r"^high_freq_factor\b"):
        RopeScaling("llama3", factor=8.0, original_max_position_embeddings=64,
                    low_freq_factor=4.0, high_freq_factor=4.0)  # fmt: skip
    with pytest.raises(ValueError, match=r"^short_factor\b"):
        three = RopeScaling(
            "longrope", short_factor=[1.0] * 3, long_factor=[2.0] * 3,
            original_max_position_embeddings=8, factor=2.0,
        )  # fmt: skip
        ScaledRotaryEmbedding(8, scaling=three)
    with pytest.raises(ValueError, match=r"^partial_rotary_factor\b"):
        ScaledRotaryEmbedding(8, scaling=RopeScaling(partial_rotary_factor=0.1))
