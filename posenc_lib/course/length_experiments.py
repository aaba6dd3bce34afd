r"""Chapter 10's experiment: a small model run past its training length, with each scaling.

A model of chapter 9 (:mod:`posenc_lib.course.experiments`) is trained at length :math:`L`, then
evaluated at :math:`sL` for each multiple :math:`s` with its frequencies :math:`\theta_i`
replaced by one of :data:`METHODS` (the map of :mod:`posenc_lib.rope_scaling` at factor
:math:`s`), once as it is and once after a short fine-tune at :math:`sL` with that map. The
rotary model uses :class:`~posenc_lib.scaled_rotary.ScaledRotaryEmbedding` (frequencies and
attention factor); the sinusoidal model gets the same map on its :math:`d/2` frequencies (no
attention factor: it has no rotated queries to scale).

``"ntk"`` is the static NTK-aware change of base :math:`b' = b\,s^{r/(r-2)}`; ``"dynamic"``
is transformers' dynamic NTK with ``factor`` :data:`DYNAMIC_FACTOR`, recomputed for the length
of each forward pass.

Examples
--------
>>> from posenc_lib.course.length_experiments import frequency_map
>>> theta, a = frequency_map("linear", 8, base=100.0, factor=2.0, train_length=16)
>>> theta.round(4).tolist(), a
([0.5, 0.1581, 0.05, 0.0158], 1.0)
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import torch

from .._validation import check_choice, check_count, check_instance, check_real
from ..nn import SinusoidalPositionalEncoding
from ..rope_scaling import RopeScaling
from ..scaled_rotary import ScaledRotaryEmbedding
from .experiments import IGNORE, Config, _check_config, evaluate, train
from .transformer import TinyTransformer

__all__ = [
    "DYNAMIC_FACTOR",
    "METHODS",
    "finetune",
    "frequency_map",
    "run_length",
    "scaling",
    "with_method",
]

#: The methods compared (no change, position interpolation, NTK-aware base, dynamic NTK,
#: YaRN, Llama 3's scaling).
METHODS = ("none", "linear", "ntk", "dynamic", "yarn", "llama3")

#: ``factor`` of the dynamic NTK schedule (transformers' ``"dynamic"``).
DYNAMIC_FACTOR = 2.0


def scaling(method: str, factor: float, train_length: int) -> RopeScaling:
    """The :class:`~posenc_lib.rope_scaling.RopeScaling` of ``method`` at scale ``factor``.

    ``"none"`` and ``"ntk"`` give the plain schedule (NTK changes the base instead, see
    :func:`frequency_map`).

    Parameters
    ----------
    method : str
        One of :data:`METHODS`.
    factor : float
        The scale :math:`s > 0` (dynamic scaling uses :data:`DYNAMIC_FACTOR` instead).
    train_length : int
        The training length :math:`L` (at least 2).

    Returns
    -------
    RopeScaling

    Examples
    --------
    >>> scaling("yarn", 4.0, 16).rope_type
    'yarn'
    """
    check_choice(method, "method", METHODS)
    factor = check_real(factor, "factor", above=0.0)
    train_length = check_count(train_length, "train_length", 2)
    if method == "linear":
        return RopeScaling("linear", factor=factor)
    if method == "dynamic":
        return RopeScaling(
            "dynamic", factor=DYNAMIC_FACTOR, max_position_embeddings=train_length
        )
    if method in ("yarn", "llama3"):
        return RopeScaling(
            method, factor=factor, original_max_position_embeddings=train_length
        )
    return RopeScaling()


def _base(method: str, base: float, factor: float, rotary: int) -> float:
    """The NTK-aware base b s^{r/(r-2)} for ``"ntk"``, else ``base``."""
    return base * factor ** (rotary / (rotary - 2)) if method == "ntk" else base


def frequency_map(
    method: str,
    dim: int,
    *,
    base: float,
    factor: float,
    train_length: int,
    seq_len: int | None = None,
) -> tuple[np.ndarray, float]:
    r"""The frequencies :math:`\theta'_i` and attention factor of ``method`` for ``dim`` features.

    Parameters
    ----------
    method : str
        One of :data:`METHODS`.
    dim : int
        The rotated features (head dimension for rotary, model width for sinusoidal), even.
    base, factor, train_length : float, float, int
        The base :math:`b`, the scale :math:`s` and the training length :math:`L`.
    seq_len : int, optional
        The current length (read by ``"dynamic"`` only; default :math:`sL`).

    Returns
    -------
    tuple of numpy.ndarray and float
        :math:`\theta'` (float64, ``dim // 2`` values) and :math:`a`.

    Examples
    --------
    >>> theta, _ = frequency_map("ntk", 4, base=100.0, factor=2.0, train_length=16)
    >>> theta.round(6).tolist()
    [1.0, 0.05]
    """
    rope = scaling(method, factor, train_length)
    if seq_len is None:
        seq_len = round(factor * train_length)
    return rope.frequencies(dim, base=_base(method, base, factor, dim), seq_len=seq_len)


class _ScaledSinusoidal(SinusoidalPositionalEncoding):
    """The interleaved sinusoidal table with given frequencies: ``(sin, cos)(m theta_i)``."""

    def __init__(self, dim: int, theta: np.ndarray, initial_length: int):
        self._scaled = np.asarray(theta, dtype=np.float64)
        super().__init__(dim, initial_length=initial_length, batch_first=True)
        self._theta = self._scaled

    def _compute(self, length: int, dtype: torch.dtype, device: torch.device):
        phase = np.arange(length, dtype=np.float64)[:, None] * self._scaled
        rows = np.empty((length, self.dim))
        rows[:, 0::2], rows[:, 1::2] = np.sin(phase), np.cos(phase)
        return (torch.from_numpy(rows).to(device=device, dtype=dtype),)


def with_method(
    model: TinyTransformer, config: Config, method: str, factor: float
) -> TinyTransformer:
    """A copy of ``model`` whose position scheme uses ``method`` at scale ``factor``.

    Parameters
    ----------
    model : TinyTransformer
        A trained model of ``config`` (left unchanged).
    config : Config
        Its configuration; ``config.scheme`` must be ``"rotary"`` or ``"sinusoidal"``.
    method : str
        One of :data:`METHODS`.
    factor : float
        The scale :math:`s`; the target length is ``round(factor * config.train_length)``.

    Returns
    -------
    TinyTransformer
        The copy, with the scaled rotary module or a sinusoidal table of the mapped frequencies.

    Examples
    --------
    >>> from posenc_lib.course.experiments import Config, build_model
    >>> config = Config(scheme="rotary", dim=16, n_heads=2)
    >>> scaled = with_method(build_model(config), config, "yarn", 4.0)
    >>> round(scaled.scheme.attention_scaling, 4)
    1.1386
    """
    model = check_instance(model, "model", TinyTransformer, "a TinyTransformer")
    config = _check_config(config, "config")
    if config.scheme not in ("rotary", "sinusoidal"):
        raise ValueError(
            f"config.scheme must be 'rotary' or 'sinusoidal', got {config.scheme!r}"
        )
    length = round(factor * config.train_length)
    if config.scheme == "rotary":
        head = config.dim // config.n_heads
        scheme = ScaledRotaryEmbedding(
            head,
            _base(method, config.base, factor, head),
            scaling=scaling(method, factor, config.train_length),
            initial_length=length,
        )
    else:
        theta, _ = frequency_map(
            method,
            config.dim,
            base=config.base,
            factor=factor,
            train_length=config.train_length,
        )
        scheme = _ScaledSinusoidal(config.dim, theta, length)
    scaled = copy.deepcopy(model)
    scaled.scheme = scheme
    for block in scaled.blocks:
        block.attn.scheme = scheme
    return scaled


def finetune(
    model: TinyTransformer, config: Config, length: int, steps: int, lr: float = 1e-3
) -> TinyTransformer:
    """Train ``model`` in place for ``steps`` steps on sequences of ``length`` tokens.

    AdamW at a constant ``lr``, gradients clipped at 1, batches of ``config.batch_size`` drawn
    from a generator seeded by ``(config.seed, 2, length)``.

    Parameters
    ----------
    model : TinyTransformer
        The model to train (changed in place).
    config : Config
        Its configuration (task, batch size, seed).
    length : int
        Tokens per training sequence, at least ``config.k + 2``.
    steps : int
        Optimizer steps (0 or more).
    lr : float, optional
        The learning rate.

    Returns
    -------
    TinyTransformer
        ``model``, in eval mode.

    Examples
    --------
    >>> from posenc_lib.course.experiments import Config, build_model
    >>> config = Config(dim=16, n_heads=2, batch_size=4)
    >>> finetune(build_model(config), config, 32, 2).training
    False
    """
    length = check_count(length, "length", config.k + 2)
    steps = check_count(steps, "steps", 0)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    rng = np.random.default_rng([config.seed, 2, length])
    model.train()
    for _ in range(steps):
        tokens, targets = config.batch(config.batch_size, length, rng)
        loss = torch.nn.functional.cross_entropy(
            model(tokens).flatten(0, 1), targets.flatten(), ignore_index=IGNORE
        )
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
    model.eval()
    return model


def run_length(
    config: Config, *, finetune_steps: int = 0, methods=METHODS
) -> dict[str, Any]:
    """Train ``config`` at its length, then score every method at every test multiple.

    Parameters
    ----------
    config : Config
        The run; ``config.test_multiples`` are the factors :math:`s`.
    finetune_steps : int
        Steps of :func:`finetune` at :math:`sL` before the second score (0: no fine-tune).
    methods : tuple of str
        Names from :data:`METHODS`.

    Returns
    -------
    dict
        ``config``, ``label``, ``final_loss`` and ``accuracy[method][when][length]`` with
        ``when`` in ``"as_is"`` (and ``"finetuned"`` when ``finetune_steps > 0``).

    Examples
    --------
    >>> config = Config(scheme="rotary", dim=16, n_heads=2, steps=2, warmup=1,
    ...                 eval_sequences=4, test_multiples=(2,))
    >>> result = run_length(config, methods=("none", "linear"))
    >>> sorted(result["accuracy"]["linear"]["as_is"])
    ['32']
    """
    config = _check_config(config, "config")
    for method in methods:
        check_choice(method, "method", METHODS)
    model, losses = train(config)
    accuracy: dict[str, Any] = {}
    for method in methods:
        scores: dict[str, dict[str, float]] = {"as_is": {}}
        if finetune_steps:
            scores["finetuned"] = {}
        for factor, length in zip(
            config.test_multiples, config.test_lengths, strict=True
        ):
            scaled = with_method(model, config, method, factor)
            scores["as_is"][str(length)] = evaluate(scaled, config, length)["accuracy"]
            if finetune_steps and factor > 1:
                finetune(scaled, config, length, finetune_steps)
                tuned = evaluate(scaled, config, length)["accuracy"]
                scores["finetuned"][str(length)] = tuned
        accuracy[method] = scores
    return {
        "config": {k: v for k, v in vars(config).items()},
        "label": config.label,
        "final_loss": float(np.mean(losses[-10:])),
        "accuracy": accuracy,
    }
