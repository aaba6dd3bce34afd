"""posenc_lib.course.length_experiments: the maps, the swapped schemes, fine-tuning, a run."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from posenc_lib import frequencies  # noqa: E402
from posenc_lib.course import length_experiments as lx  # noqa: E402
from posenc_lib.course.experiments import Config, build_model, evaluate, train  # noqa: E402
from posenc_lib.nn import SinusoidalPositionalEncoding  # noqa: E402
from posenc_lib.rope_scaling import RopeScaling  # noqa: E402


@pytest.mark.parametrize("d, b, s, L", [(16, 1e4, 2.0, 16), (128, 5e5, 8.0, 4096)])
def test_frequency_maps_against_their_definitions(d, b, s, L):
    theta = b ** (-2 * np.arange(d // 2) / d)
    pi, a = lx.frequency_map("linear", d, base=b, factor=s, train_length=L)
    np.testing.assert_allclose(pi, theta / s, rtol=1e-13)
    assert a == 1.0
    # static NTK = transformers' dynamic schedule with factor 1 at the length s L
    ntk = lx.frequency_map("ntk", d, base=b, factor=s, train_length=L)[0]
    dynamic_one = RopeScaling("dynamic", factor=1.0, max_position_embeddings=L)
    np.testing.assert_allclose(
        ntk, dynamic_one.frequencies(d, b, seq_len=round(s * L))[0], rtol=1e-12
    )
    assert ntk[0] == 1.0 and math.isclose(ntk[-1], theta[-1] / s, rel_tol=1e-12)
    none = lx.frequency_map("none", d, base=b, factor=s, train_length=L)[0]
    np.testing.assert_allclose(none, theta, rtol=1e-13)
    # dynamic: NTK at the effective scale f s - f + 1
    f = lx.DYNAMIC_FACTOR
    dyn = lx.frequency_map("dynamic", d, base=b, factor=s, train_length=L)[0]
    effective = lx.frequency_map("ntk", d, base=b, factor=f * s - f + 1, train_length=L)
    np.testing.assert_allclose(dyn, effective[0], rtol=1e-12)
    yarn, a_yarn = lx.frequency_map("yarn", d, base=b, factor=s, train_length=L)
    assert a_yarn == pytest.approx(0.1 * math.log(s) + 1.0, rel=1e-15)
    assert np.all(yarn <= theta * (1 + 1e-15)) and np.all(
        yarn >= theta / s * (1 - 1e-15)
    )


def test_scaled_sinusoidal_table_is_sin_cos_of_the_given_frequencies():
    theta = frequencies(8, base=100.0) / 3.0
    table = lx._ScaledSinusoidal(8, theta, 20).table.double().numpy()
    m = np.arange(20)[:, None]
    np.testing.assert_allclose(table[:, 0::2], np.sin(m * theta), atol=1e-6)
    np.testing.assert_allclose(table[:, 1::2], np.cos(m * theta), atol=1e-6)
    plain = lx._ScaledSinusoidal(8, frequencies(8, base=100.0), 20).table
    reference = SinusoidalPositionalEncoding(8, 100.0, initial_length=20).table
    torch.testing.assert_close(plain, reference)


@pytest.mark.parametrize("scheme", ["rotary", "sinusoidal"])
def test_with_method_swaps_the_scheme_of_a_copy(scheme):
    config = Config(scheme=scheme, dim=16, n_heads=2, train_length=8)
    model = build_model(config)
    scaled = lx.with_method(model, config, "linear", 2.0)
    assert scaled is not model and model.scheme is not scaled.scheme
    assert all(block.attn.scheme is scaled.scheme for block in scaled.blocks)
    if scheme == "rotary":
        np.testing.assert_allclose(
            scaled.scheme.theta, frequencies(8) / 2.0, rtol=1e-13
        )
    tokens = torch.randint(0, config.vocab_size, (2, 16))
    assert scaled(tokens).shape == (2, 16, config.vocab_size)
    # the unscaled method gives back the original model's outputs
    same = lx.with_method(model, config, "none", 2.0)
    torch.testing.assert_close(same(tokens), model(tokens))


def test_bad_arguments_are_named():
    config = Config(scheme="alibi", dim=16, n_heads=2)
    with pytest.raises(ValueError, match=r"config\.scheme"):
        lx.with_method(build_model(config), config, "linear", 2.0)
    with pytest.raises(ValueError, match="method"):
        lx.scaling("ntk-by-parts", 2.0, 16)
    with pytest.raises(ValueError, match="factor"):
        lx.scaling("linear", -1.0, 16)


def test_finetune_moves_the_weights_deterministically():
    config = Config(scheme="rotary", dim=16, n_heads=2, batch_size=4, train_length=8)
    first, second = build_model(config), build_model(config)
    before = [p.detach().clone() for p in first.parameters()]
    lx.finetune(first, config, 16, 3)
    lx.finetune(second, config, 16, 3)
    assert any(
        not torch.equal(a, b) for a, b in zip(before, first.parameters(), strict=True)
    )
    for a, b in zip(first.parameters(), second.parameters(), strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=0)


def test_run_length_scores_the_unscaled_model_as_evaluate_does():
    config = Config(
        scheme="rotary",
        dim=16,
        n_heads=2,
        steps=3,
        warmup=1,
        eval_sequences=4,
        train_length=8,
        test_multiples=(1, 2),
    )
    result = lx.run_length(config, finetune_steps=1, methods=("none", "yarn"))
    model, _ = train(config)
    assert (
        result["accuracy"]["none"]["as_is"]["16"]
        == evaluate(model, config, 16)["accuracy"]
    )
    assert set(result["accuracy"]["yarn"]["finetuned"]) == {"16"}  # only for s > 1


def test_the_command_line_records_its_provenance(tmp_path, monkeypatch):
    import importlib.util
    import json
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "scripts" / "length_experiments.py"
    spec = importlib.util.spec_from_file_location("length_cli", script)
    cli = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cli)
    seen = []

    def fake_run(config, *, finetune_steps):
        seen.append((config.scheme, config.seed, config.n_heads, finetune_steps))
        return {"label": config.label}

    monkeypatch.setattr(cli, "run_length", fake_run)
    out = tmp_path / "length.json"
    threads, deterministic = (
        torch.get_num_threads(),
        torch.are_deterministic_algorithms_enabled(),
    )
    try:
        cli.main(["--seeds", "4", "5", "--finetune-steps", "7", "--out", str(out)])
    finally:  # the script sets both for the whole process
        torch.set_num_threads(threads)
        torch.use_deterministic_algorithms(deterministic)
    record = json.loads(out.read_text())
    assert seen == [
        ("rotary", 4, 2, 7),
        ("sinusoidal", 4, 2, 7),
        ("rotary", 5, 2, 7),
        ("sinusoidal", 5, 2, 7),
    ]
    assert record["command"].endswith(
        "--seeds 4 5 --finetune-steps 7 --out " + str(out)
    )
    assert record["finetune_steps"] == 7 and len(record["runs"]) == 4
    assert {"commit", "hardware", "date", "elapsed_s"} <= set(record)
    assert record["hardware"]["torch_threads"] == 1
