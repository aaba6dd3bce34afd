"""The command line of chapter 9's experiments: a grid of runs of
:mod:`posenc_lib.course.experiments` written to one JSON file.

    python scripts/experiments.py --steps 2000 --dim 64 --out results.json

It produced the shipped ``posenc_lib/data/experiments_*.json`` (each file records its command;
they were written when this command line was ``python -m posenc_lib.experiments``, with the same
options). Every option, ``--out`` included, is checked before any training; a run uses a GPU when
one is present (``--device auto``); the file holds the command, the git commit, the hardware, the
configuration, every run and a mean/spread summary; Ctrl-C keeps the finished runs in OUT's
``.partial.json``.
"""

from __future__ import annotations

import os
import sys

if (
    __name__ == "__main__"
):  # Ctrl-C while numpy and torch load (seconds): one line, exit 130

    def _interrupted_while_loading(signum: int, frame: object) -> None:
        sys.stderr.write(
            "python scripts/experiments.py: interrupted; nothing written\n"
        )
        os._exit(130)

    import signal

    signal.signal(signal.SIGINT, _interrupted_while_loading)

import argparse
import dataclasses
import platform
import shlex
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cli import (
    cpu_model,
    interrupt_once,
    load_average,
    partial_path,
    report_write_error,
    writable_output_path,
    write_json_atomic,
)

from posenc_lib._validation import check_count
from posenc_lib.course.experiments import (
    TASKS,
    Config,
    build_model,
    expand_grid,
    run_grid,
    summarize,
)
from posenc_lib.nn import SCHEMES

REPO = Path(__file__).resolve().parents[1]


def _commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=REPO,
            timeout=10,
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() + ("+uncommitted-changes" if dirty else "")


def _parser() -> argparse.ArgumentParser:
    d = Config()
    p = argparse.ArgumentParser(
        prog="python scripts/experiments.py",
        description="Train small causal transformers with each position scheme on synthetic tasks "
        "and evaluate them at longer lengths; write a JSON results file. Every option is checked "
        "before any training; Ctrl-C keeps the finished runs in OUT's .partial.json.",
    )
    p.add_argument("--tasks", nargs="+", default=list(TASKS), choices=TASKS)
    p.add_argument("--schemes", nargs="+", default=list(SCHEMES), choices=SCHEMES)
    p.add_argument(
        "--sinusoidal-bases", nargs="+", type=float, default=[1e2, 1e3, 1e4, 1e5]
    )
    p.add_argument("--rotary-bases", nargs="+", type=float, default=[1e4])
    p.add_argument(
        "--index-rotary-bases",
        nargs="+",
        type=float,
        default=None,
        help="bases of the rotary models on the index task (default: --rotary-bases)",
    )
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    p.add_argument(
        "--offset-k", type=int, default=1, help="k of the offset task (copy x[t-k])"
    )
    p.add_argument(
        "--index-k", type=int, default=2, help="k of the index task (copy x[k])"
    )
    p.add_argument("--vocab-size", type=int, default=d.vocab_size)
    p.add_argument("--dim", type=int, default=d.dim)
    p.add_argument("--heads", type=int, default=d.n_heads)
    p.add_argument("--layers", type=int, default=d.n_layers)
    p.add_argument("--train-length", type=int, default=d.train_length)
    p.add_argument("--steps", type=int, default=d.steps)
    p.add_argument("--batch-size", type=int, default=d.batch_size)
    p.add_argument("--lr", type=float, default=d.lr)
    p.add_argument("--warmup", type=int, default=d.warmup)
    p.add_argument(
        "--test-multiples", nargs="+", type=float, default=list(d.test_multiples)
    )
    p.add_argument("--eval-sequences", type=int, default=d.eval_sequences)
    p.add_argument(
        "--threads", type=int, default=None, help="torch CPU threads (default: torch's)"
    )
    p.add_argument(
        "--device",
        default="auto",
        help="'auto' (a GPU when present), 'cpu', 'cuda', ...",
    )
    # a str, not a Path: Path drops the trailing slash of a folder name
    p.add_argument("--out", default="experiment_results.json")
    return p


#: Each option that sets a Config field, with the field: checked one at a time, so that an error
#: names the option.
_CONFIG_OPTIONS = {
    "vocab_size": "vocab_size",
    "dim": "dim",
    "heads": "n_heads",
    "layers": "n_layers",
    "train_length": "train_length",
    "steps": "steps",
    "batch_size": "batch_size",
    "lr": "lr",
    "warmup": "warmup",
    "eval_sequences": "eval_sequences",
}


def hardware(device: str) -> dict[str, Any]:
    """The machine of a run: platform, CPU, load, thread count, torch version and GPU if used.

    ``load_average_1min`` is the load when the runs started (``None`` where the OS has none):
    a run's ``elapsed_s`` is only comparable between runs on equally idle machines.
    """
    info = {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "load_average_1min": load_average(),
        "torch_threads": torch.get_num_threads(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "device": device,
    }
    if device.startswith("cuda"):
        info["gpu"] = torch.cuda.get_device_name(torch.device(device))
    return info


def _resolve_device(parser: argparse.ArgumentParser, name: str) -> str:
    """``name`` resolved (``auto``: CUDA when present, else CPU) if runs can compute there."""
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    try:
        return Config(device=name).device
    except (TypeError, ValueError) as exc:
        parser.error(f"argument --device: cannot use {name!r}: {exc}")
    raise AssertionError("unreachable")  # pragma: no cover - parser.error exits


def _configs_from_args(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> list[Config]:
    """Every configuration of the command line, each option checked first (argparse errors)."""

    def option_error(option: str, exc: Exception) -> None:
        parser.error(f"argument --{option.replace('_', '-')}: {exc}")

    if args.threads is not None:
        try:
            # more threads than logical CPUs only slow torch down (100000 crashed it)
            check_count(args.threads, "threads", 1, os.cpu_count() or 1)
        except (TypeError, ValueError) as exc:
            option_error("threads", exc)
    for option, field in _CONFIG_OPTIONS.items():
        try:
            Config(**{field: getattr(args, option)})
        except (TypeError, ValueError) as exc:
            option_error(option, exc)
    try:
        Config(test_multiples=tuple(args.test_multiples))
    except (TypeError, ValueError) as exc:
        option_error("test_multiples", exc)
    for option, values, extra in [
        ("sinusoidal_bases", args.sinusoidal_bases, {"scheme": "sinusoidal"}),
        ("rotary_bases", args.rotary_bases, {"scheme": "rotary"}),
        ("index_rotary_bases", args.index_rotary_bases or [], {"scheme": "rotary"}),
    ]:
        for value in values:
            try:
                Config(base=value, **extra)
            except (TypeError, ValueError) as exc:
                option_error(option, exc)
    for option, values, extra in [
        ("seeds", args.seeds, {}),
        ("offset_k", [args.offset_k], {"task": "offset"}),
        ("index_k", [args.index_k], {"task": "index"}),
    ]:
        field = "seed" if option == "seeds" else "k"
        for value in values:
            try:
                Config(
                    **{field: value, "train_length": max(args.train_length, 2)}, **extra
                )
            except (TypeError, ValueError) as exc:
                option_error(option, exc)
    device = _resolve_device(parser, args.device)
    try:
        base = Config(
            vocab_size=args.vocab_size,
            dim=args.dim,
            n_heads=args.heads,
            n_layers=args.layers,
            train_length=args.train_length,
            steps=args.steps,
            batch_size=args.batch_size,
            lr=args.lr,
            warmup=args.warmup,
            test_multiples=tuple(args.test_multiples),
            eval_sequences=args.eval_sequences,
            device=device,
        )
        # one task at a time, in the order of --tasks (expand_grid's order): the rotary
        # bases may differ between the tasks
        rotary_bases = {
            "offset": args.rotary_bases,
            "index": args.index_rotary_bases or args.rotary_bases,
        }
        configs = [
            config
            for task in args.tasks
            for config in expand_grid(
                base,
                tasks=[task],
                schemes=args.schemes,
                sinusoidal_bases=args.sinusoidal_bases,
                rotary_bases=rotary_bases[task],
                seeds=args.seeds,
                k={"offset": args.offset_k, "index": args.index_k},
            )
        ]
    except (TypeError, ValueError) as exc:
        parser.error(f"these options do not go together: {exc}")
    # The model of each (scheme, base), built once on the device: its own checks (dim divisible
    # by the heads, an even head dimension for rotary, ...) fail here rather than mid-grid.
    for config in {dataclasses.replace(c, task="offset", k=1, seed=0) for c in configs}:
        try:
            with torch.random.fork_rng(
                devices=[]
            ):  # build_model seeds; leave the state as it was
                build_model(config)
        except (TypeError, ValueError, RuntimeError) as exc:
            parser.error(
                f"--dim {args.dim} --heads {args.heads} --layers {args.layers} cannot build the "
                f"{config.label} model: {exc}"
            )
    return configs


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the command line; return the results dict that was written to ``--out``.

    Every option, ``--out`` included, is checked before any training: a bad one ends the program
    with an argparse usage error (exit status 2). The results file is written atomically. Ctrl-C
    keeps the runs that finished in ``OUT``'s ``.partial.json`` (``--out`` itself is untouched)
    and exits with status 130 and a one-line message.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        out = writable_output_path(args.out)
    except ValueError as exc:
        parser.error(f"argument --out: {exc}")
    configs = _configs_from_args(parser, args)
    device = configs[0].device
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    if device == "cpu":
        torch.use_deterministic_algorithms(True)
    command = "python scripts/experiments.py " + " ".join(
        shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv)
    )
    runs: list[dict[str, Any]] = []
    machine: dict[str, Any] = {}
    started = time.perf_counter()

    def results() -> dict[str, Any]:
        return {
            "command": command.strip(),
            "commit": _commit(),
            "hardware": machine,
            "date": time.strftime("%Y-%m-%d"),
            "elapsed_s": round(time.perf_counter() - started, 1),
            "runs": runs,
            "summary": summarize(runs),
        }

    written = False
    with interrupt_once():  # a second Ctrl-C cannot cut short the saving of the first
        try:
            print(f"{command}\n{len(configs)} runs on {device}", flush=True)
            # before the runs: the load average they started in
            machine.update(hardware(device))
            started = time.perf_counter()
            for config in configs:
                runs.extend(run_grid([config], progress=True))
            output = results()
            write_json_atomic(output, out)
            written = True
        except KeyboardInterrupt:
            raise SystemExit(
                _interrupted(parser.prog, out, written, runs, len(configs), results)
            ) from None
        except OSError as exc:
            lost = f"the {len(runs)} finished runs are lost ({out} untouched)"
            raise SystemExit(report_write_error(parser.prog, out, exc, lost)) from None
    print(f"wrote {out}")
    return output


def _interrupted(
    prog: str,
    out: Path,
    written: bool,
    runs: list[dict[str, Any]],
    planned: int,
    results: Any,
) -> int:
    """Ctrl-C: keep the finished runs in OUT's .partial.json, say so in one line; 130."""
    done = f"interrupted after {len(runs)} of {planned} runs"
    if written:
        done += f"; all were written to {out}"
    elif runs:
        kept = partial_path(out)
        try:
            write_json_atomic(
                {**results(), "interrupted": True, "planned_runs": planned}, kept
            )
        except OSError as exc:
            lost = f"the {len(runs)} finished runs are lost ({out} untouched)"
            print(f"{prog}: {done}; cannot write {kept}: {exc.strerror}; {lost}",
                  file=sys.stderr)  # fmt: skip
            return 130
        done += f"; the finished runs are in {kept} ({out} untouched)"
    else:
        done += f"; nothing written ({out} untouched)"
    print(f"{prog}: {done}", file=sys.stderr)
    return 130


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)  # loaded: Ctrl-C as usual
    try:
        main()
    except KeyboardInterrupt:  # before the runs started (main handles it during them)
        print(
            "python scripts/experiments.py: interrupted; nothing written",
            file=sys.stderr,
        )
        sys.exit(130)
