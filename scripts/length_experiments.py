r"""Run chapter 10's length experiment and write ``posenc_lib/data/experiments_length.json``.

Usage (from the repository root, the library installed editable)::

    python scripts/length_experiments.py [--seeds 0 1 2] [--finetune-steps 30] [--threads 1]
                                         [--out posenc_lib/data/experiments_length.json]

For each seed and each scheme (rotary, sinusoidal; chapter 9's model with ``dim = 32`` and
``n_heads = 2``, so a rotary head has 16 features), train on the offset task at length 16,
then score every method of :data:`posenc_lib.course.length_experiments.METHODS` at 1x, 2x, 4x
and 8x the training length, as it is and after ``--finetune-steps`` steps at the longer length
(:func:`~posenc_lib.course.length_experiments.run_length`). The file records the command, the
git commit, the hardware, the date, the elapsed time and every run. About a minute of CPU.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

import torch

from posenc_lib.course.experiments import Config
from posenc_lib.course.length_experiments import run_length

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cli import write_json_atomic
from experiments import _commit, hardware

#: The model and task of every run (the seed and scheme vary).
BASE_CONFIG = dict(task="offset", n_heads=2, test_multiples=(1, 2, 4, 8))


def main(argv: list[str] | None = None) -> dict:
    """Parse ``argv``, run every (seed, scheme) and write the JSON file; return its content."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--finetune-steps", type=int, default=30)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", default="posenc_lib/data/experiments_length.json")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    machine = hardware("cpu")
    started = time.perf_counter()
    runs = []
    for seed in args.seeds:
        for scheme in ("rotary", "sinusoidal"):
            config = Config(scheme=scheme, seed=seed, **BASE_CONFIG)
            runs.append(run_length(config, finetune_steps=args.finetune_steps))
            print(f"{scheme} seed {seed}: done", flush=True)
    words = sys.argv[1:] if argv is None else argv
    output = {
        "command": " ".join(
            ["python scripts/length_experiments.py", *map(shlex.quote, words)]
        ),
        "commit": _commit(),
        "hardware": machine,
        "date": time.strftime("%Y-%m-%d"),
        "elapsed_s": round(time.perf_counter() - started, 1),
        "finetune_steps": args.finetune_steps,
        "runs": runs,
    }
    write_json_atomic(output, args.out)
    print(f"wrote {args.out}")
    return output


if __name__ == "__main__":
    main()
