"""A Hugging Face model built from the modules survives save_pretrained / from_pretrained.

transformers 5.x builds models on the meta device in ``from_pretrained`` and refills
non-persistent buffers with ``torch.empty_like``: the position tables must be recomputed, not
trusted. Nothing here reaches the network (a local directory, ``HF_HUB_OFFLINE=1``).
"""

from __future__ import annotations

import os

import pytest
from conventions_page import SKIP_REASON

os.environ.setdefault("HF_HUB_OFFLINE", "1")
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers", reason=SKIP_REASON)

from torch import nn  # noqa: E402
from transformers import PretrainedConfig, PreTrainedModel  # noqa: E402

from posenc_lib.course.transformer import Block  # noqa: E402
from posenc_lib.nn import ALiBi, RotaryEmbedding, SinusoidalPositionalEncoding  # noqa: E402


class TinyConfig(PretrainedConfig):
    model_type = "posenc_tiny"

    def __init__(self, vocab_size=37, dim=32, n_heads=4, **kwargs):
        self.vocab_size, self.dim, self.n_heads = vocab_size, dim, n_heads
        super().__init__(**kwargs)


class TinyModel(PreTrainedModel):
    """Token embedding + sinusoidal table, one rotary block, one ALiBi block, LM head."""

    config_class = TinyConfig
    base_model_prefix = "tiny"

    def __init__(self, config: TinyConfig):
        super().__init__(config)
        d, h = config.dim, config.n_heads
        self.embed = nn.Embedding(config.vocab_size, d)
        self.positions = SinusoidalPositionalEncoding(
            d, batch_first=True, initial_length=64
        )
        self.rotary_block = Block(d, h, RotaryEmbedding(d // h, pairing="half_split"),
                                  causal=True, mlp_ratio=2)  # fmt: skip
        self.alibi_block = Block(d, h, ALiBi(h), causal=True, mlp_ratio=2)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, config.vocab_size)
        self.post_init()

    def _init_weights(self, module):
        if hasattr(module, "reset_parameters"):
            module.reset_parameters()

    def forward(self, input_ids):
        x = self.positions(self.embed(input_ids))
        x = self.alibi_block(self.rotary_block(x))
        return self.head(self.norm(x))


def _model_tokens_logits():
    torch.manual_seed(0)
    model = TinyModel(TinyConfig()).eval()
    tokens = torch.randint(0, 37, (2, 50), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        return model, tokens, model(tokens)


def test_save_pretrained_and_from_pretrained_reproduce_the_logits(tmp_path):
    model, tokens, expected = _model_tokens_logits()
    model.save_pretrained(tmp_path)
    loaded = TinyModel.from_pretrained(tmp_path).eval()
    with torch.no_grad():
        got = loaded(tokens)
    assert torch.isfinite(got).all()
    torch.testing.assert_close(got, expected, rtol=0, atol=1e-6)
    # the tables were recomputed, not left as from_pretrained's uninitialised memory
    assert torch.equal(loaded.positions.table, model.positions.table)
    assert torch.equal(
        loaded.rotary_block.attn.scheme.cos, model.rotary_block.attn.scheme.cos
    )
    assert torch.equal(
        loaded.alibi_block.attn.scheme.slopes, model.alibi_block.attn.scheme.slopes
    )


def test_meta_init_to_empty_reset_parameters_and_load(tmp_path):
    model, tokens, expected = _model_tokens_logits()
    model.save_pretrained(tmp_path)
    from safetensors.torch import load_file

    state = load_file(tmp_path / "model.safetensors")
    with torch.device("meta"):
        fresh = TinyModel(TinyConfig())
    fresh.to_empty(device="cpu")
    for module in fresh.modules():
        if hasattr(module, "reset_parameters"):
            module.reset_parameters()
    fresh.load_state_dict(state)
    with torch.no_grad():
        torch.testing.assert_close(fresh.eval()(tokens), expected, rtol=0, atol=1e-6)


def test_the_uninitialised_buffers_would_have_broken_the_logits(tmp_path):
    # what the issue saw before the fix: the same model with its tables left as empty memory
    model, tokens, expected = _model_tokens_logits()
    with torch.no_grad():
        model.positions.table.fill_(1e10)  # in place: recomputation cannot notice this
        broken = model(tokens)
    assert not torch.allclose(broken, expected, atol=1e-3)
    model.positions.reset_parameters()  # the public way back
    with torch.no_grad():
        torch.testing.assert_close(model(tokens), expected, rtol=0, atol=0)
