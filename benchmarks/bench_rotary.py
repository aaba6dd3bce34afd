"""Benchmark: the scaled rotary module against transformers' rotary embedding (``make bench``).

Same inputs for both, in one process and one run, repeats interleaved so that a change of load
hits both alike (the fastest of :data:`REPEATS`, the run least disturbed by other processes;
medians are recorded too), on one CPU thread (:data:`THREADS`): queries and
keys of shape (batch, heads, L, h) in float32, per-row ``position_ids`` of shape (batch, L) as a
Hugging Face model passes them, and a YaRN schedule (factor 4, attention factor 1.14):

* ``transformers`` -- ``LlamaRotaryEmbedding(config)(q, position_ids)`` then
  ``apply_rotary_pos_emb(q, k, cos, sin)`` (the installed transformers);
* ``posenc_lib`` -- ``ScaledRotaryEmbedding(...).rotate(q, k, positions=position_ids,
  seq_axis=2)`` (the public call, its argument checks included);
* ``posenc_lib_offset`` -- the same module with ``offset`` instead of ``positions`` (a slice of
  the cache).

The ratio ``posenc_lib / transformers`` (below 1: faster) is printed and written, with the
largest difference between the two outputs (float32 angles in transformers), to
``benchmarks/results/rotary.json``. ``python -m benchmarks rotary`` runs it; ``--quick`` smaller
shapes, writing nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from benchmarks._common import (
    command_line,
    finish,
    hardware,
    load_average,
    parse_args,
)

RESULTS = Path(__file__).resolve().parent / "results" / "rotary.json"
SHAPES = ((1, 8, 2048, 128), (4, 8, 1024, 128), (8, 16, 512, 64))
QUICK_SHAPES = ((1, 2, 128, 64),)
REPEATS, QUICK_REPEATS = 25, 3
FACTOR, ORIGINAL = 4.0, 512
#: Both contenders run on one thread: on a shared machine the ratio then depends much less on
#: what else runs (with all threads, a busy neighbour shifts each timing by tens of percent).
THREADS = 1


def _inputs(batch: int, heads: int, length: int, head_dim: int):
    import torch

    gen = torch.Generator().manual_seed(0)
    q = torch.randn(batch, heads, length, head_dim, generator=gen)
    k = torch.randn(batch, heads, length, head_dim, generator=gen)
    position_ids = torch.arange(length).repeat(batch, 1)
    return q, k, position_ids


def _contenders(heads: int, length: int, head_dim: int):
    import torch
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import (
        LlamaRotaryEmbedding,
        apply_rotary_pos_emb,
    )

    from posenc_lib.rope_scaling import RopeScaling
    from posenc_lib.scaled_rotary import ScaledRotaryEmbedding

    config = LlamaConfig(
        hidden_size=heads * head_dim,
        num_attention_heads=heads,
        max_position_embeddings=int(FACTOR * ORIGINAL),
        rope_parameters={
            "rope_type": "yarn",
            "rope_theta": 10000.0,
            "factor": FACTOR,
            "original_max_position_embeddings": ORIGINAL,
        },
    )
    reference = LlamaRotaryEmbedding(config)
    scaling = RopeScaling(
        "yarn", factor=FACTOR, original_max_position_embeddings=ORIGINAL
    )
    module = ScaledRotaryEmbedding(
        head_dim, pairing="half_split", scaling=scaling, initial_length=length
    )

    @torch.no_grad()
    def transformers_call(q, k, position_ids):
        cos, sin = reference(q, position_ids)
        return apply_rotary_pos_emb(q, k, cos, sin)

    @torch.no_grad()
    def posenc_call(q, k, position_ids):
        return module.rotate(q, k, positions=position_ids, seq_axis=2)

    @torch.no_grad()
    def posenc_offset(q, k, position_ids):
        return module.rotate(q, k, seq_axis=2)

    return {
        "transformers": transformers_call,
        "posenc_lib": posenc_call,
        "posenc_lib_offset": posenc_offset,
    }


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The options of ``argv``, checked (``--output``'s folder writable) before any work."""
    parser = argparse.ArgumentParser(
        prog="bench_rotary", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--quick", action="store_true", help="one small shape (smoke)")
    return parse_args(parser, argv, RESULTS)


def main(argv: list[str] | None = None) -> dict[str, object]:
    """Run the benchmark, print a summary and write ``benchmarks/results/rotary.json``."""
    return run(parse(argv))


def run(args: argparse.Namespace) -> dict[str, object]:
    """Run the benchmark with options from :func:`parse`."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(THREADS)
    try:
        return _measure(args)
    finally:
        torch.set_num_threads(threads)


def _measure(args: argparse.Namespace) -> dict[str, object]:
    import torch
    import transformers

    shapes = QUICK_SHAPES if args.quick else SHAPES
    repeats = QUICK_REPEATS if args.quick else REPEATS
    started = time.perf_counter()
    info = hardware(
        torch=torch.__version__,
        transformers=transformers.__version__,
        torch_threads=torch.get_num_threads(),
    )
    rows = []
    print(
        f"bench_rotary: YaRN (factor {FACTOR:g}), float32, {repeats} repeats",
        flush=True,
    )
    for batch, heads, length, head_dim in shapes:
        q, k, position_ids = _inputs(batch, heads, length, head_dim)
        calls = _contenders(heads, length, head_dim)
        outputs = {
            name: call(q, k, position_ids) for name, call in calls.items()
        }  # warm-up
        times: dict[str, list[float]] = {name: [] for name in calls}
        for _ in range(repeats):
            for name, call in calls.items():
                begin = time.perf_counter()
                call(q, k, position_ids)
                times[name].append(time.perf_counter() - begin)
        medians = {name: statistics.median(values) for name, values in times.items()}
        fastest = {name: min(values) for name, values in times.items()}
        difference = max(
            float((ours - ref).abs().max())
            for ours, ref in zip(
                outputs["posenc_lib"], outputs["transformers"], strict=True
            )
        )
        row = {
            "shape": [batch, heads, length, head_dim],
            "median_s": medians,
            "min_s": fastest,
            "all_s": times,
            "ratio_posenc_lib_over_transformers": fastest["posenc_lib"]
            / fastest["transformers"],
            "ratio_offset_over_transformers": fastest["posenc_lib_offset"]
            / fastest["transformers"],
            "median_ratio_posenc_lib_over_transformers": medians["posenc_lib"]
            / medians["transformers"],
            "max_abs_difference": difference,
        }
        rows.append(row)
        print(
            f"  (B, H, L, h) = {tuple(row['shape'])}: transformers "
            f"{fastest['transformers'] * 1e3:7.2f} ms, posenc_lib "
            f"{fastest['posenc_lib'] * 1e3:7.2f} ms (positions), "
            f"{fastest['posenc_lib_offset'] * 1e3:7.2f} ms (offset); ratio "
            f"{row['ratio_posenc_lib_over_transformers']:.2f} / "
            f"{row['ratio_offset_over_transformers']:.2f}; max |difference| {difference:.1e}",
            flush=True,
        )
    result = {
        "benchmark": "bench_rotary",
        "hardware": info,
        "settings": {
            "scaling": {"rope_type": "yarn", "factor": FACTOR, "original": ORIGINAL},
            "dtype": "float32",
            "repeats": repeats,
            "statistic": "ratios of the fastest of the repeats (the run least disturbed by "
            "other processes); medians recorded too",
        },
        "rows": rows,
        "worst_ratio_posenc_lib_over_transformers": max(
            row["ratio_posenc_lib_over_transformers"] for row in rows
        ),
        "load_average_1min_at_end": load_average(),
        "total_wall_s": time.perf_counter() - started,
    }
    print(
        "  worst ratio posenc_lib / transformers (positions): "
        f"{result['worst_ratio_posenc_lib_over_transformers']:.2f}"
    )
    return finish(result, args.output)


if __name__ == "__main__":
    sys.exit(command_line(main, "bench_rotary"))
