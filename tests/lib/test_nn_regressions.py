"""Regression tests of issue 23's four bugs of posenc_lib.nn (compile and checkpoints).

Each test failed on the code before the fix (checked by running it against that commit):

1. ``torch.compile(fullgraph=True, dynamic=True)`` with per-row ``(batch, length)`` positions
   refused valid positions (the shape check's ``in (1, batch)`` on symbolic sizes);
2. a ``persistent=True`` table grown with ``extend()`` did not reload with ``from_pretrained``;
3. a ``persistent=True`` table loaded with ``load_state_dict`` was used as loaded;
4. past the cache under ``torch.compile(fullgraph=True, dynamic=True)`` the user got Dynamo's
   "Can't convert torch._check*() message closure" instead of "call extend(n) first".

The compiled tests use tiny sizes and the ``eager`` backend (Dynamo's tracing is what they test);
they are marked ``slow`` and still run in ``make test``.
"""

from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from posenc_lib.nn import ALiBi, RotaryEmbedding, SinusoidalPositionalEncoding  # noqa: E402

B, L, D = 2, 16, 8


def _left_padded_ids():
    ids = torch.arange(L).repeat(B, 1)
    ids[0] = (ids[0] - 3).clamp(min=0)  # row 0: three pads on the left
    return ids


def _formula_rows(positions, dim):
    """Interleaved sin/cos rows of ``positions`` from float64 angles, written out here."""
    theta = 10000.0 ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)
    phase = positions.double()[..., None] * theta
    return torch.stack((phase.sin(), phase.cos()), dim=-1).flatten(-2)


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["sinusoidal", "rotary", "alibi"])
def test_dynamic_fullgraph_compile_takes_per_row_positions(scheme):
    torch._dynamo.reset()
    ids = _left_padded_ids()
    if scheme == "sinusoidal":
        module = SinusoidalPositionalEncoding(D, batch_first=True, dtype=torch.float64)
        x = torch.randn(B, L, D, dtype=torch.float64)
        call, expected = module, x + _formula_rows(ids, D)
        args = (x,)
    elif scheme == "rotary":
        module = RotaryEmbedding(D, dtype=torch.float64)
        q = torch.randn(B, 2, L, D, dtype=torch.float64)
        call = module.rotate_one
        args = (q,)
        expected = module.rotate_one(q, positions=ids, seq_axis=2)
    else:
        module = ALiBi(2)
        call = module.bias
        args = (L, L)
        slopes = torch.tensor([2.0**-4, 2.0**-8], dtype=torch.float64)
        distance = (ids[:, :, None] - ids[:, None, :]).double()
        expected = (-slopes[:, None, None] * distance[:, None]).float()
    compiled = torch.compile(call, backend="eager", fullgraph=True, dynamic=True)
    kwargs = {"positions": ids}
    if scheme == "rotary":
        kwargs["seq_axis"] = 2
    got = compiled(*args, **kwargs)
    torch.testing.assert_close(got, expected, rtol=0, atol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["sinusoidal", "rotary"])
def test_fullgraph_compile_past_the_cache_names_the_fix(scheme):
    torch._dynamo.reset()
    if scheme == "sinusoidal":
        module = SinusoidalPositionalEncoding(D, initial_length=8, batch_first=True)
        call, x = module, torch.randn(B, 20, D)
        kwargs = {}
    else:
        module = RotaryEmbedding(D, initial_length=8)
        call, x = module.rotate_one, torch.randn(B, 20, D)
        kwargs = {"seq_axis": 1}
    compiled = torch.compile(call, backend="eager", fullgraph=True, dynamic=True)
    with pytest.raises(Exception, match=r"call extend\(n\) first") as caught:
        compiled(x, **kwargs)
    assert "message closure" not in str(caught.value)
    module.extend(20)  # the fix the message names works
    torch._dynamo.reset()
    compiled = torch.compile(call, backend="eager", fullgraph=True, dynamic=True)
    assert compiled(x, **kwargs).shape == x.shape


def test_a_loaded_persistent_table_is_recomputed_not_used():
    reference = SinusoidalPositionalEncoding(D, initial_length=L, batch_first=True)
    expected = _formula_rows(torch.arange(L), D).float()
    for stored in (
        torch.full((L, D), 7.0),  # garbage of the right shape
        expected.to(torch.bfloat16).float(),  # a bf16-rounded checkpoint
    ):
        module = SinusoidalPositionalEncoding(
            D, initial_length=L, persistent=True, batch_first=True
        )
        module.load_state_dict({"table": stored})
        x = torch.zeros(1, L, D)
        assert torch.equal(module(x)[0], expected)
        assert torch.equal(module.table, reference.table)


def test_a_grown_persistent_table_reloads_with_from_pretrained(tmp_path):
    transformers = pytest.importorskip("transformers")

    class Config(transformers.PretrainedConfig):
        model_type = "posenc_issue23"

    class Model(transformers.PreTrainedModel):
        config_class = Config

        def __init__(self, config):
            super().__init__(config)
            self.proj = torch.nn.Linear(D, D)
            self.positions = SinusoidalPositionalEncoding(
                D, initial_length=32, persistent=True, batch_first=True
            )
            self.post_init()

        def _init_weights(self, module):
            if isinstance(module, torch.nn.Linear):
                module.reset_parameters()

        def forward(self, x):
            return self.proj(self.positions(x))

    torch.manual_seed(0)
    model = Model(Config()).eval()
    model.positions.extend(100)  # grown to 128 rows
    assert model.positions.cached_length == 128
    x = torch.randn(2, 100, D)
    with torch.no_grad():
        expected = model(x)
    model.save_pretrained(tmp_path)
    loaded = Model.from_pretrained(tmp_path).eval()
    with torch.no_grad():
        torch.testing.assert_close(loaded(x), expected, rtol=0, atol=0)
    assert torch.equal(loaded.positions.table[:32], model.positions.table[:32])
