"""BERT, GPT and GPT-2 use learned absolute position embeddings, not the sinusoid (chapter 1 and
the appendix correct the explainer post, which says GPT and BERT use the sinusoidal encoding).

Checked on the Hugging Face implementations built from their configurations (no download): the
position table is a trainable ``nn.Embedding`` with one row per position, and its initial
values are not the sinusoidal table.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from conventions_page import SKIP_REASON

import posenc_lib as pe

os.environ.setdefault("HF_HUB_OFFLINE", "1")
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers", reason=SKIP_REASON)

N_POSITIONS, DIM = 64, 32


def tiny(name: str):
    """(model, its position table) for one architecture, four attention heads, one layer."""
    if name == "gpt2":
        config = transformers.GPT2Config(
            n_positions=N_POSITIONS, n_embd=DIM, n_layer=1, n_head=4, vocab_size=50
        )
        model = transformers.GPT2Model(config)
        return model, model.wpe
    if name == "openai-gpt":
        config = transformers.OpenAIGPTConfig(
            n_positions=N_POSITIONS, n_embd=DIM, n_layer=1, n_head=4, vocab_size=50
        )
        model = transformers.OpenAIGPTModel(config)
        return model, model.positions_embed
    config = transformers.BertConfig(
        max_position_embeddings=N_POSITIONS,
        hidden_size=DIM,
        num_hidden_layers=1,
        num_attention_heads=4,
        intermediate_size=64,
        vocab_size=50,
    )
    model = transformers.BertModel(config)
    return model, model.embeddings.position_embeddings


@pytest.mark.parametrize("name", ["gpt2", "openai-gpt", "bert"])
def test_the_position_table_is_a_trained_parameter(name: str) -> None:
    torch.manual_seed(0)
    model, table = tiny(name)
    assert isinstance(table, torch.nn.Embedding)
    assert tuple(table.weight.shape) == (N_POSITIONS, DIM)
    assert table.weight.requires_grad
    assert any(p is table.weight for p in model.parameters())
    sinusoid = pe.sinusoidal(N_POSITIONS, DIM)
    initial = table.weight.detach().double().numpy()
    assert np.abs(initial - sinusoid).max() > 0.5  # random init, not the fixed table
