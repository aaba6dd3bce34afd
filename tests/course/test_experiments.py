"""Tests of posenc_lib.course.experiments: tasks, determinism, training, evaluation, the CLI."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from posenc_lib.course import experiments as ex  # noqa: E402

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "experiments.py"


def _command_line():
    """``scripts/experiments.py`` imported as a module (its ``main`` takes an argv list)."""
    spec = importlib.util.spec_from_file_location("experiments_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


# ---------------------------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 3])
def test_offset_task_targets_are_the_token_k_back(k):
    tokens, targets = ex.make_batch("offset", 4, 10, _rng(), vocab_size=7, k=k)
    assert tokens.shape == targets.shape == (4, 10) and tokens.dtype == torch.int64
    for t in range(10):
        if t < k:
            assert torch.all(targets[:, t] == ex.IGNORE)
        else:
            assert torch.equal(targets[:, t], tokens[:, t - k])
    assert tokens.min() >= 0 and tokens.max() < 7


@pytest.mark.parametrize("k", [0, 2])
def test_index_task_targets_are_the_token_at_k(k):
    tokens, targets = ex.make_batch("index", 4, 10, _rng(), k=k)
    for t in range(10):
        if t <= k:
            assert torch.all(targets[:, t] == ex.IGNORE)
        else:
            assert torch.equal(targets[:, t], tokens[:, k])


def test_data_generation_is_deterministic():
    a = ex.make_batch("offset", 8, 12, _rng(5))
    b = ex.make_batch("offset", 8, 12, _rng(5))
    c = ex.make_batch("offset", 8, 12, _rng(6))
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    assert not torch.equal(a[0], c[0])


def test_data_generation_is_the_documented_numpy_draw():
    tokens, _ = ex.make_batch("index", 3, 5, _rng(11), vocab_size=9, k=1)
    expected = np.random.default_rng(11).integers(0, 9, size=(3, 5), dtype=np.int64)
    np.testing.assert_array_equal(tokens.numpy(), expected)


def test_make_batch_bad_arguments():
    with pytest.raises(ValueError, match=r"^task\b"):
        ex.make_batch("sort", 2, 5, _rng())
    with pytest.raises(ValueError, match=r"^length\b"):
        ex.make_batch("offset", 2, 3, _rng(), k=3)
    with pytest.raises(ValueError, match=r"^k\b"):
        ex.make_batch("offset", 2, 5, _rng(), k=0)
    with pytest.raises(TypeError, match=r"^rng\b"):
        ex.make_batch("offset", 2, 5, 0)
    with pytest.raises(TypeError, match=r"^batch_size\b"):
        ex.make_batch("offset", 2.0, 5, _rng())
    with pytest.raises(ValueError, match=r"^vocab_size\b"):
        ex.make_batch("offset", 2, 5, _rng(), vocab_size=1)


# ---------------------------------------------------------------------------------------------
# configuration
# ---------------------------------------------------------------------------------------------


def test_config_lengths_and_labels():
    config = ex.Config(train_length=16, test_multiples=(1, 1.5, 4))
    assert config.test_lengths == (16, 24, 64)
    assert ex.Config(scheme="sinusoidal", base=1e3).label == "sinusoidal b=1e3"
    assert ex.Config(scheme="alibi").label == "alibi"


@pytest.mark.parametrize(
    ("changes", "error", "match"),
    [
        ({"task": "sort"}, ValueError, "task"),
        ({"scheme": "t5"}, ValueError, "scheme"),
        ({"base": 0.5}, ValueError, "base"),
        ({"steps": 0}, ValueError, "steps"),
        ({"dim": 3.0}, TypeError, "dim"),
        (
            {"lr": 2.0},
            ValueError,
            "lr must be a finite real number > 0 and < 1, got 2.0",
        ),
        ({"lr": "big"}, TypeError, "lr must be a finite real number"),
        ({"test_multiples": (0.5,)}, ValueError, "test_multiples must be .* >= 1"),
        ({"test_multiples": ()}, ValueError, "test_multiples must be a non-empty"),
        (
            {"train_length": 2, "k": 2},
            ValueError,
            "train_length must be an integer >= 3, got 2",
        ),
        ({"device": 0}, TypeError, r"^device\b"),
        ({"device": "meta"}, ValueError, r"^device must be a device that holds values"),
    ],
)
def test_config_bad_arguments(changes, error, match):
    with pytest.raises(error, match=match):
        ex.Config(**changes)


def test_expand_grid_counts():
    configs = ex.expand_grid(ex.Config(), seeds=(0, 1, 2))
    # per task: none, learned, alibi, rotary (1 base), sinusoidal (4 bases) = 8 labels
    assert len(configs) == 2 * 8 * 3
    index = [c for c in configs if c.task == "index"]
    assert {c.label for c in index} >= {
        "sinusoidal b=1e2",
        "sinusoidal b=1e5",
        "rotary b=1e4",
    }
    by_k = ex.expand_grid(
        ex.Config(), tasks=["index"], schemes=["none"], seeds=[0], k={"index": 4}
    )
    assert [c.k for c in by_k] == [4]
    with pytest.raises(ValueError, match=r"^scheme\b"):
        ex.expand_grid(ex.Config(), schemes=["t5"])


# ---------------------------------------------------------------------------------------------
# training and evaluation
# ---------------------------------------------------------------------------------------------

TINY = ex.Config(
    dim=16, n_heads=4, train_length=8, steps=6, warmup=2, batch_size=4, eval_sequences=8
)


@pytest.fixture
def deterministic():
    previous = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    yield
    torch.use_deterministic_algorithms(previous)


def test_training_is_bit_reproducible(deterministic):
    model_a, losses_a = ex.train(TINY)
    model_b, losses_b = ex.train(TINY)
    assert losses_a == losses_b
    for (name, a), (_, b) in zip(
        model_a.state_dict().items(), model_b.state_dict().items(), strict=True
    ):
        assert torch.equal(a, b), name
    _, losses_c = ex.train(dataclasses.replace(TINY, seed=1))
    assert losses_c != losses_a


def test_training_reduces_the_loss():
    config = dataclasses.replace(TINY, steps=30, warmup=3, batch_size=8, vocab_size=4)
    _, losses = ex.train(config)
    assert np.mean(losses[-5:]) < np.mean(losses[:5])


def test_learning_rate_schedule():
    assert ex._lr_factor(0, 10, 100) == pytest.approx(0.1)
    assert ex._lr_factor(9, 10, 100) == pytest.approx(1.0)
    assert ex._lr_factor(10, 10, 100) == pytest.approx(1.0)
    assert ex._lr_factor(99, 10, 100) == pytest.approx(0.1, abs=1e-3)


class _Oracle(torch.nn.Module):
    """Predicts the offset task perfectly: logits are one-hot on the token k back."""

    def __init__(self, k: int, vocab: int):
        super().__init__()
        self.k, self.vocab = k, vocab

    def forward(self, tokens):
        shifted = torch.roll(tokens, self.k, dims=1)
        return torch.nn.functional.one_hot(shifted, self.vocab).float()


class _Constant(torch.nn.Module):
    def forward(self, tokens):
        logits = torch.zeros(*tokens.shape, 16)
        logits[..., 0] = 1.0
        return logits


def test_evaluate_scores_an_oracle_perfectly_and_a_constant_at_chance():
    config = ex.Config(task="offset", k=2, eval_sequences=400)
    perfect = ex.evaluate(_Oracle(2, 16), config, 32)
    assert perfect["accuracy"] == 1.0
    assert (
        perfect["per_position"][:2] == [None, None]
        and perfect["per_position"][2:] == [1.0] * 30
    )
    chance = ex.evaluate(_Constant(), config, 32)["accuracy"]
    assert abs(chance - 1 / 16) < 0.01  # tokens are uniform over 16 symbols


def test_evaluation_sequences_do_not_depend_on_the_model_seed():
    config = ex.Config(eval_sequences=50)
    a = ex.evaluate(_Constant(), config, 20)
    b = ex.evaluate(_Constant(), dataclasses.replace(config, seed=9), 20)
    assert a == b


def test_run_and_summarize():
    results = [
        ex.run(dataclasses.replace(TINY, seed=s, scheme="rotary")) for s in (0, 1)
    ]
    for result in results:
        assert set(result["accuracy"]) == {"8", "16", "32"}
        assert len(result["per_position"]) == 32
        assert all(0.0 <= a <= 1.0 for a in result["accuracy"].values())
        json.dumps(result)  # JSON-ready
    (row,) = ex.summarize(results)
    values = np.array([r["accuracy"]["16"] for r in results])
    assert row["label"] == "rotary b=1e4" and row["seeds"] == 2
    assert row["accuracy"]["16"]["mean"] == pytest.approx(values.mean())
    assert row["accuracy"]["16"]["std"] == pytest.approx(values.std(ddof=1))
    assert row["accuracy"]["16"]["min"] == values.min()


def _fake_run(task: str, scheme: str, seed: int, accuracy: dict[str, float]) -> dict:
    config = ex.Config(task=task, scheme=scheme, seed=seed)
    return {
        "config": dataclasses.asdict(config),
        "label": config.label,
        "accuracy": accuracy,
    }


def test_summarize_by_hand():
    results = [
        _fake_run("offset", "alibi", 0, {"16": 0.5, "64": 0.25}),
        _fake_run("index", "alibi", 0, {"16": 1.0, "64": 1.0}),
        _fake_run("offset", "alibi", 1, {"16": 0.7, "64": 0.25}),
        _fake_run("offset", "alibi", 2, {"16": 0.9, "64": 0.25}),
    ]
    offset, index = ex.summarize(
        results
    )  # grouped by (task, label), in order of first appearance
    assert (offset["task"], offset["label"], offset["seeds"]) == ("offset", "alibi", 3)
    assert (index["task"], index["seeds"]) == ("index", 1)
    # 0.5, 0.7, 0.9: mean 0.7, sample standard deviation sqrt((0.04 + 0 + 0.04) / 2) = 0.2
    assert offset["accuracy"]["16"] == pytest.approx(
        {"mean": 0.7, "std": 0.2, "min": 0.5, "max": 0.9}
    )
    assert offset["accuracy"]["64"] == {
        "mean": 0.25,
        "std": 0.0,
        "min": 0.25,
        "max": 0.25,
    }
    assert index["accuracy"]["16"]["std"] == 0.0  # one run: no spread


def test_evaluate_bad_length():
    with pytest.raises(ValueError, match=r"^length\b"):
        ex.evaluate(_Constant(), ex.Config(), 1)
    with pytest.raises(TypeError, match=r"^length\b"):
        ex.evaluate(_Constant(), ex.Config(), 8.0)
    with pytest.raises(ValueError, match=r"^length\b"):
        ex.evaluate(_Constant(), ex.Config(task="index", k=2), 3)


def test_run_rejects_a_non_config():
    with pytest.raises(TypeError, match=r"^config\b"):
        ex.run({"task": "offset"})


@pytest.fixture
def restore_threads():
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


def test_command_line_writes_a_labelled_results_file(
    tmp_path, capsys, deterministic, restore_threads
):
    out = tmp_path / "res.json"
    argv = [
        "--tasks", "index", "--schemes", "none", "alibi", "--seeds", "0",
        "--dim", "16", "--heads", "4", "--steps", "3", "--warmup", "1",
        "--train-length", "8", "--eval-sequences", "4", "--device", "cpu", "--threads", "1",
        "--out", str(out),
    ]  # fmt: skip
    _command_line().main(argv)
    data = json.loads(out.read_text())
    assert data["command"].startswith("python scripts/experiments.py --tasks index")
    assert "commit" in data and data["hardware"]["device"] == "cpu"
    assert data["hardware"]["torch"] == torch.__version__
    assert data["hardware"]["torch_threads"] == 1
    assert (
        isinstance(data["hardware"]["cpu_model"], str) and data["hardware"]["cpu_model"]
    )
    assert [r["label"] for r in data["runs"]] == ["none", "alibi"]
    assert len(data["summary"]) == 2
    assert "wrote" in capsys.readouterr().out


def test_command_line_bad_arguments(tmp_path, capsys, deterministic, restore_threads):
    # usage errors (exit status 2) naming the option; tests/tooling/test_cli.py has the full list
    main = _command_line().main
    for argv, message in [
        (["--threads", "0"], "argument --threads: threads must be an integer >= 1"),
        (
            ["--train-length", "1", "--device", "cpu"],
            "argument --train-length: train_length",
        ),
        (["--schemes", "t5"], "argument --schemes: invalid choice"),
    ]:
        with pytest.raises(SystemExit) as exit_info:
            main([*argv, "--out", str(tmp_path / "x.json")])
        assert exit_info.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def _chapter_grid() -> list[ex.Config]:
    """Chapter 9's grid, written as the chapter writes it."""
    configs = ex.expand_grid(
        ex.Config(test_multiples=(1, 1.5, 2, 3, 4)),
        sinusoidal_bases=(1e2, 1e3, 1e4, 1e5),
        rotary_bases=(1e2, 1e3, 1e4, 1e5),
        seeds=(0, 1, 2),
        k={"offset": 1, "index": 2},
    )
    return [
        c
        for c in configs
        if not (c.task == "index" and c.scheme == "rotary" and c.base != 1e4)
    ]


def test_index_rotary_bases_option_gives_the_chapter_grid():
    cli = _command_line()
    parser = cli._parser()
    args = parser.parse_args(
        "--rotary-bases 100 1000 10000 100000 --index-rotary-bases 10000 "
        "--test-multiples 1 1.5 2 3 4 --device cpu".split()
    )
    assert cli._configs_from_args(parser, args) == _chapter_grid()
    # without the option both tasks get --rotary-bases
    args = parser.parse_args("--rotary-bases 100 1000 --device cpu".split())
    configs = cli._configs_from_args(parser, args)
    for task in ex.TASKS:
        bases = {c.base for c in configs if c.scheme == "rotary" and c.task == task}
        assert bases == {100.0, 1000.0}, task


def test_shipped_grid_file_holds_the_chapter_grid():
    from importlib.resources import files

    data = json.loads(
        (files("posenc_lib") / "data" / "experiments_grid.json").read_text("utf-8")
    )
    # written before the command line moved to scripts/experiments.py (same options)
    assert data["command"].startswith("python -m posenc_lib.experiments ")
    assert "--index-rotary-bases 10000" in data["command"]
    assert data["hardware"]["torch_threads"] == 1 and data["commit"]
    runs = data["runs"]
    assert [ex.Config(**r["config"]) for r in runs] == _chapter_grid()
    assert len(runs) == 57
    for run in runs:
        assert list(run["accuracy"]) == ["16", "24", "32", "48", "64"]
        assert all(0.0 <= a <= 1.0 for a in run["accuracy"].values())
        assert len(run["per_position"]) == 64 and run["per_position"][0] is None
    assert len(data["summary"]) == 19
