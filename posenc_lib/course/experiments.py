r"""Synthetic length-generalization experiments for chapter 9.

Two tasks in which position matters in different ways, over random token sequences
:math:`x_0, \dots, x_{L-1}` drawn uniformly from ``vocab_size`` symbols:

``"offset"`` (relative)
    At every position :math:`t \ge k` predict :math:`y_t = x_{t-k}`, the token :math:`k`
    positions back. The rule is the same at every position: only the offset :math:`m - n`
    between query and key matters.
``"index"`` (absolute)
    At every position :math:`t > k` predict :math:`y_t = x_k`, the token at the fixed absolute
    position :math:`k`. The key to find is the same for every query, at an offset that grows with
    :math:`t`.

Positions without a target carry :data:`IGNORE` and are neither trained on nor scored. A model is
trained on sequences of ``train_length`` tokens with a causal mask and evaluated on fresh
sequences of 1×, 2× and 4× that length (any multiples can be asked for).

Everything is deterministic: the data come from ``numpy.random.default_rng`` with fixed seeds
(the evaluation sequences are the same for every model), the weights from ``torch.manual_seed``.
On a CPU with a fixed thread count and ``torch.use_deterministic_algorithms(True)`` a run is
bit-for-bit reproducible.

The command line ``scripts/experiments.py`` runs a grid of configurations (``--help`` lists the
options)::

    python scripts/experiments.py --steps 2000 --dim 64 --out results.json

It uses a GPU when one is present (``--device auto``) and writes a JSON file with the command,
the git commit, the hardware, the configuration, every run and a mean/spread summary. Chapter 9
reads two such files, shipped with the package so that the chapter can read them wherever the
library is installed: ``posenc_lib/data/experiments_grid.json`` (its 57-run grid; the chapter
retrains a few of the runs and checks that they reproduce the file) and
``posenc_lib/data/experiments_cli.json`` (a larger configuration). The command that produced
each is recorded in the file.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor

from .._torch_checks import check_device
from .._validation import (
    MAX_LENGTH,
    _message,
    check_base,
    check_choice,
    check_count,
    check_instance,
    check_real,
    check_vector,
)
from ..nn import SCHEMES
from ._checks import check_rng
from .transformer import TinyTransformer

__all__ = [
    "EVAL_SEED",
    "IGNORE",
    "TASKS",
    "Config",
    "build_model",
    "evaluate",
    "expand_grid",
    "make_batch",
    "run",
    "run_grid",
    "summarize",
    "train",
]

#: The two tasks, ``"offset"`` (relative, copy the token k back) and ``"index"`` (absolute, copy
#: the token at position k).
TASKS = ("offset", "index")

#: Target value of positions that are not scored (PyTorch's cross-entropy ``ignore_index``).
IGNORE = -100

#: Seed of the evaluation sequences, shared by every model so that all see the same test set.
EVAL_SEED = 20240607


# --------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------


def make_batch(
    task: str,
    batch_size: int,
    length: int,
    rng: np.random.Generator,
    *,
    vocab_size: int = 16,
    k: int = 1,
) -> tuple[Tensor, Tensor]:
    r"""One batch of a task: tokens and targets, both int64 tensors of shape (batch_size, length).

    ``"offset"``: ``targets[:, t] = tokens[:, t - k]`` for :math:`t \ge k`;
    ``"index"``: ``targets[:, t] = tokens[:, k]`` for :math:`t > k`; :data:`IGNORE` elsewhere.
    The tokens are ``rng.integers(0, vocab_size, (batch_size, length))``, so the same generator
    state gives the same batch on every platform.

    Parameters
    ----------
    task : str
        One of :data:`TASKS`.
    batch_size : int
        Sequences in the batch, at least 1.
    length : int
        Tokens per sequence; more than ``k`` (offset task) or ``k + 1`` (index task).
    rng : numpy.random.Generator
        The source of the tokens.
    vocab_size : int
        Symbols, at least 2.
    k : int
        The task's offset (at least 1) or absolute position (at least 0).

    Returns
    -------
    tokens, targets : torch.Tensor
        int64 tensors of shape ``(batch_size, length)``.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.course.experiments import make_batch
    >>> tokens, targets = make_batch("offset", 1, 5, np.random.default_rng(0), k=2)
    >>> tokens.tolist(), targets.tolist()
    ([[13, 10, 8, 4, 4]], [[-100, -100, 13, 10, 8]])
    """
    check_choice(task, "task", TASKS)
    batch_size = check_count(batch_size, "batch_size", 1)
    vocab_size = check_count(vocab_size, "vocab_size", 2)
    k = check_count(k, "k", 1 if task == "offset" else 0)
    first = k if task == "offset" else k + 1
    length = check_count(length, "length", first + 1)
    rng = check_rng(rng)
    tokens = rng.integers(0, vocab_size, size=(batch_size, length), dtype=np.int64)
    targets = np.full((batch_size, length), IGNORE, dtype=np.int64)
    if task == "offset":
        targets[:, k:] = tokens[:, :-k]
    else:
        targets[:, k + 1 :] = tokens[:, k : k + 1]
    return torch.from_numpy(tokens), torch.from_numpy(targets)


# --------------------------------------------------------------------------------------------
# configuration
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    """One training run. All fields have defaults sized for a CPU in seconds.

    ``task``, ``k``, ``vocab_size`` define the data (:func:`make_batch`); ``scheme`` (one of
    :data:`posenc_lib.nn.SCHEMES`), ``base``, ``dim``, ``n_heads``, ``n_layers`` the model;
    ``train_length``, ``steps``, ``batch_size``, ``lr``, ``warmup`` the training;
    ``test_multiples`` and ``eval_sequences`` the evaluation; ``seed`` and ``device`` the run
    (a device torch can allocate on that holds values: not ``'meta'``).
    ``base`` applies to ``"sinusoidal"`` (on ``dim``) and ``"rotary"`` (on ``dim // n_heads``).
    ``test_multiples`` are the evaluation lengths as multiples of ``train_length``; a learned table
    gets ``train_length * max(test_multiples)`` rows, of which training reaches the first
    ``train_length``. Every field is checked when the configuration is made.

    Examples
    --------
    >>> from posenc_lib.course.experiments import Config
    >>> config = Config(scheme="rotary", train_length=10, test_multiples=(1, 2.5))
    >>> config.test_lengths, config.label
    ((10, 25), 'rotary b=1e4')
    """

    task: str = "offset"
    k: int = 1
    vocab_size: int = 16
    scheme: str = "sinusoidal"
    base: float = 10000.0
    dim: int = 32
    n_heads: int = 8
    n_layers: int = 1
    train_length: int = 16
    steps: int = 200
    batch_size: int = 32
    lr: float = 1e-2
    warmup: int = 20
    test_multiples: tuple[float, ...] = (1, 2, 4)
    eval_sequences: int = 256
    seed: int = 0
    device: str = "cpu"

    def __post_init__(self) -> None:
        check_choice(self.task, "task", TASKS)
        check_choice(self.scheme, "scheme", SCHEMES)
        check_base(self.base)
        check_count(self.k, "k", 1 if self.task == "offset" else 0)
        check_count(self.vocab_size, "vocab_size", 2)
        first = self.k if self.task == "offset" else self.k + 1  # >= 1
        check_count(self.train_length, "train_length", first + 1, MAX_LENGTH)
        for name in (
            "dim",
            "n_heads",
            "n_layers",
            "steps",
            "batch_size",
            "eval_sequences",
        ):
            check_count(getattr(self, name), name, 1)
        check_count(self.warmup, "warmup", 0)
        check_count(self.seed, "seed", 0)
        check_real(self.lr, "lr", above=0.0, below=1.0)
        multiples = check_vector(self.test_multiples, "test_multiples", minimum=1.0)
        object.__setattr__(self, "test_multiples", tuple(float(m) for m in multiples))
        if self.train_length * float(np.max(multiples)) > MAX_LENGTH:
            raise ValueError(
                f"train_length x test_multiples (the longest test sequence) must be <= "
                f"{MAX_LENGTH} tokens, got {self.train_length} x {float(np.max(multiples)):g}"
            )
        # checked here, not at the first tensor in run()
        if check_device(self.device).type == "meta":
            accepted = "a device that holds values (a run reads losses and accuracies)"
            raise ValueError(_message("device", accepted, repr(self.device)))

    @property
    def test_lengths(self) -> tuple[int, ...]:
        """Evaluation lengths ``round(train_length * multiple)``."""
        return tuple(round(self.train_length * m) for m in self.test_multiples)

    @property
    def label(self) -> str:
        """Short name of the position scheme, with the base where it has one."""
        if self.scheme in ("sinusoidal", "rotary"):
            return f"{self.scheme} b=1e{math.log10(self.base):g}"
        return self.scheme

    def batch(
        self, batch_size: int, length: int, rng: np.random.Generator
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """:func:`make_batch` of this run's task, vocabulary and ``k``."""
        return make_batch(
            self.task, batch_size, length, rng, vocab_size=self.vocab_size, k=self.k
        )


# --------------------------------------------------------------------------------------------
# training and evaluation
# --------------------------------------------------------------------------------------------


def _check_config(config: object, name: str) -> Config:
    return check_instance(
        config, name, Config, "a posenc_lib.course.experiments.Config"
    )


def build_model(config: Config) -> TinyTransformer:
    """The causal :class:`~posenc_lib.course.transformer.TinyTransformer` of ``config``, seeded.

    Parameters
    ----------
    config : Config
        The run; its table holds the longest test length.

    Returns
    -------
    posenc_lib.course.transformer.TinyTransformer
        Untrained, on ``config.device``.

    Examples
    --------
    >>> from posenc_lib.course.experiments import Config, build_model
    >>> model = build_model(Config(dim=16, n_heads=2))
    >>> model.dim, model.n_heads
    (16, 2)
    """
    config = _check_config(config, "config")
    torch.manual_seed(config.seed)
    model = TinyTransformer(
        config.vocab_size,
        config.dim,
        config.n_heads,
        config.n_layers,
        config.scheme,
        causal=True,
        max_len=max((*config.test_lengths, config.train_length)),
        base=config.base,
    )
    return model.to(config.device)


def _lr_factor(step: int, warmup: int, steps: int) -> float:
    """Linear warm-up to 1, then cosine decay to 0.1 at the last step."""
    if step < warmup:
        return (step + 1) / warmup
    progress = (step - warmup) / max(steps - warmup, 1)
    return 0.1 + 0.45 * (1.0 + math.cos(math.pi * min(progress, 1.0)))


def train(config: Config) -> tuple[TinyTransformer, list[float]]:
    """Train a model on ``config.task``; return it (in eval mode) and the loss of every step.

    AdamW (no weight decay), the learning-rate schedule of warm-up then cosine decay, gradient
    norm clipped at 1. Batch ``s`` of seed ``seed`` is always the same.

    Parameters
    ----------
    config : Config
        The run.

    Returns
    -------
    model : posenc_lib.course.transformer.TinyTransformer
        The trained model, in eval mode.
    losses : list of float
        The training loss of every step.

    Examples
    --------
    >>> from posenc_lib.course.experiments import Config, train
    >>> model, losses = train(Config(steps=3, warmup=1))
    >>> len(losses), model.training
    (3, False)
    """
    model = build_model(config)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=0.0)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: _lr_factor(s, config.warmup, config.steps)
    )
    rng = np.random.default_rng([config.seed, 1])
    losses = []
    model.train()
    for _ in range(config.steps):
        tokens, targets = config.batch(config.batch_size, config.train_length, rng)
        tokens, targets = tokens.to(config.device), targets.to(config.device)
        logits = model(tokens)
        loss = torch.nn.functional.cross_entropy(
            logits.flatten(0, 1), targets.flatten(), ignore_index=IGNORE
        )
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        losses.append(float(loss.detach()))
    model.eval()
    return model, losses


@torch.no_grad()
def evaluate(model: TinyTransformer, config: Config, length: int) -> dict[str, Any]:
    """Accuracy of ``model`` on ``config.eval_sequences`` fresh sequences of ``length`` tokens.

    The sequences depend only on :data:`EVAL_SEED`, the task and ``length``, never on the
    model's seed, so every model is scored on the same test set.

    Parameters
    ----------
    model : posenc_lib.course.transformer.TinyTransformer
        The model (its train/eval mode is restored afterwards).
    config : Config
        The task and evaluation settings.
    length : int
        Tokens per test sequence, at least 2.

    Returns
    -------
    dict
        ``accuracy`` (over all scored positions) and ``per_position`` (a list, ``None`` where
        position ``t`` has no target).

    Examples
    --------
    >>> from posenc_lib.course.experiments import Config, build_model, evaluate
    >>> config = Config(eval_sequences=8)
    >>> result = evaluate(build_model(config), config, 16)
    >>> 0.0 <= result["accuracy"] <= 1.0, result["per_position"][0]
    (True, None)
    """
    config = _check_config(config, "config")
    length = check_count(length, "length", 2)
    rng = np.random.default_rng([EVAL_SEED, TASKS.index(config.task), config.k, length])
    tokens, targets = config.batch(config.eval_sequences, length, rng)
    was_training = model.training
    model.eval()
    predictions = model(tokens.to(config.device)).argmax(dim=-1).cpu()
    model.train(was_training)
    scored = targets != IGNORE
    correct = (predictions == targets) & scored
    per_position = correct.sum(0).double() / scored.sum(0).clamp(min=1).double()
    return {
        "accuracy": float(correct.sum()) / float(scored.sum()),
        "per_position": [
            float(a) if s else None
            for a, s in zip(per_position, scored.any(0), strict=True)
        ],
    }


def run(config: Config) -> dict[str, Any]:
    """Train ``config`` and evaluate it at every test length.

    Parameters
    ----------
    config : Config
        The run to train, then evaluate at each of ``config.test_lengths``.

    Returns
    -------
    dict
        JSON-ready: ``config`` (as a dict), ``label``, ``final_loss`` (mean of the last 10
        steps), ``accuracy`` ({length: accuracy}), ``per_position`` (at the longest test
        length) and ``seconds``.

    Examples
    --------
    >>> from posenc_lib.course.experiments import Config, run
    >>> result = run(Config(steps=2, warmup=1, eval_sequences=4))
    >>> sorted(result["accuracy"])
    ['16', '32', '64']
    """
    started = time.perf_counter()
    model, losses = train(config)
    results = {
        length: evaluate(model, config, length) for length in config.test_lengths
    }
    longest = max(config.test_lengths)
    return {
        "config": dataclasses.asdict(config),
        "label": config.label,
        "final_loss": float(np.mean(losses[-10:])),
        "accuracy": {str(length): r["accuracy"] for length, r in results.items()},
        "per_position": results[longest]["per_position"],
        "seconds": time.perf_counter() - started,
    }


def expand_grid(
    base_config: Config,
    *,
    tasks: Sequence[str] = TASKS,
    schemes: Sequence[str] = SCHEMES,
    sinusoidal_bases: Sequence[float] = (1e2, 1e3, 1e4, 1e5),
    rotary_bases: Sequence[float] = (1e4,),
    seeds: Sequence[int] = (0, 1, 2),
    k: dict[str, int] | None = None,
) -> list[Config]:
    """Every (task, scheme, base, seed) configuration of a grid.

    Sinusoidal models run over ``sinusoidal_bases``, rotary ones over ``rotary_bases``, the other
    schemes once (with ``base_config.base``).

    Parameters
    ----------
    base_config : Config
        The settings shared by every configuration.
    tasks, schemes : Sequence[str]
        Subsets of :data:`TASKS` and :data:`posenc_lib.nn.SCHEMES`.
    sinusoidal_bases, rotary_bases : Sequence[float]
        The bases of the sinusoidal and rotary models.
    seeds : Sequence[int]
        One configuration per seed.
    k : dict or None
        The ``k`` of each task (default: ``base_config.k``).

    Returns
    -------
    list of Config
        In the order task, scheme, base, seed.

    Examples
    --------
    >>> from posenc_lib.course.experiments import Config, expand_grid
    >>> grid = expand_grid(Config(), schemes=("none", "sinusoidal"), sinusoidal_bases=(1e2, 1e4),
    ...                    seeds=(0,), tasks=("offset",))
    >>> [c.label for c in grid]
    ['none', 'sinusoidal b=1e2', 'sinusoidal b=1e4']
    """
    base_config = _check_config(base_config, "base_config")
    bases = {"sinusoidal": sinusoidal_bases, "rotary": rotary_bases}
    return [
        dataclasses.replace(
            base_config,
            task=task,
            k=(k or {}).get(task, base_config.k),
            scheme=scheme,
            base=float(base),
            seed=int(seed),
        )
        for task in tasks
        for scheme in schemes
        for base in bases.get(scheme, (base_config.base,))
        for seed in seeds
    ]


def run_grid(
    configs: Iterable[Config], *, progress: bool = False
) -> list[dict[str, Any]]:
    """:func:`run` every configuration, in order.

    Parameters
    ----------
    configs : Iterable[Config]
        The runs.
    progress : bool
        Print one line per finished run.

    Returns
    -------
    list of dict
        One :func:`run` result per configuration.

    Examples
    --------
    >>> from posenc_lib.course.experiments import Config, run_grid
    >>> results = run_grid([Config(steps=1, warmup=1, eval_sequences=2, seed=s) for s in (0, 1)])
    >>> [r["config"]["seed"] for r in results]
    [0, 1]
    """
    results = []
    for config in configs:
        result = run(config)
        if progress:
            accs = " ".join(f"{a:.2f}" for a in result["accuracy"].values())
            print(
                f"{config.task:7s} {config.label:18s} seed {config.seed}: {accs}",
                flush=True,
            )
        results.append(result)
    return results


def summarize(results: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Group runs by (task, label) and give the mean, standard deviation, min and max accuracy.

    Parameters
    ----------
    results : Sequence[dict]
        :func:`run` results.

    Returns
    -------
    list of dict
        One row per group, in order of first appearance, with ``task``, ``label``, ``seeds``
        (how many runs) and, per test length, ``mean``, ``std`` (sample standard deviation,
        ``ddof=1``; 0 for one run), ``min``, ``max``.

    Examples
    --------
    >>> from posenc_lib.course.experiments import summarize
    >>> runs = [{"config": {"task": "offset"}, "label": "none", "accuracy": {"16": a}}
    ...         for a in (0.5, 0.7)]
    >>> row = summarize(runs)[0]
    >>> row["seeds"], round(row["accuracy"]["16"]["mean"], 3), row["accuracy"]["16"]["max"]
    (2, 0.6, 0.7)
    """
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for result in results:
        groups.setdefault((result["config"]["task"], result["label"]), []).append(
            result
        )
    rows = []
    for (task, label), members in groups.items():
        row: dict[str, Any] = {
            "task": task,
            "label": label,
            "seeds": len(members),
            "accuracy": {},
        }
        for length in members[0]["accuracy"]:
            values = np.array([m["accuracy"][length] for m in members])
            row["accuracy"][length] = {
                "mean": float(values.mean()),
                "std": float(values.std(ddof=1)) if values.size > 1 else 0.0,
                "min": float(values.min()),
                "max": float(values.max()),
            }
        rows.append(row)
    return rows
