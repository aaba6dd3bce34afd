"""Fuzz the whole public API with bad and edge arguments (issue 16, items 2 and 3).

Every callable in every public module's ``__all__`` (functions, classes, and the public methods
of an instance built from good arguments) is called once per (argument, bad value): the other
arguments keep a good value. The bad values are a fixed table (huge ints, negatives, NaN, inf,
None, strings, bools, floats for ints, ragged lists, wrong-dtype arrays and tensors, tensors that
require grad) plus values drawn by hypothesis with a fixed seed. The calls run in a worker
subprocess whose address space is capped (``resource.setrlimit(RLIMIT_AS)``), one call at a time
with a timeout, so that an allocation or a hang cannot take the test run down with it.

A call is *bad* when it

- raises anything but ``ValueError``/``TypeError`` (``FileNotFoundError`` for a ``path`` that
  names no file is accepted; MemoryError, OverflowError, IndexError,
  RuntimeError, AttributeError, a killed worker ...);
- raises a ``ValueError``/``TypeError`` whose message names none of the callable's arguments;
- runs for more than ``TIMEOUT_S`` seconds;
- returns NaN or infinity from finite arguments;
- accepts a value its signature refuses (a non-bool for a ``bool`` flag, ``None`` where the
  annotation has no ``None``).

The test fails on any bad call and prints one summary line,
``API fuzz: N callables, M calls, K clear ValueError/TypeError, 0 bad``, in the terminal
summary of every run that includes it, ``make test-lib`` too (``conftest.py`` prints the
``api_fuzz`` property it records, also from an xdist worker). ``python tests/lib/test_fuzz_api.py``
runs it alone and lists every bad call.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import math
import os
import pkgutil
import re
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 5.0  # seconds one call may run
STARTUP_S = (
    120.0  # seconds the worker may take to import torch and build the good values
)
MEMORY_CAP = (
    4 * 1024**3
)  # bytes of address space for the worker (the tables' limit is 2 GiB)

# Modules whose public names are not fuzzed, and why.
SKIP_MODULES = {
    "course": "chapter-only code (posenc_lib.course): plain checks, tested by the chapters",
}
# Callables not fuzzed, and why.
SKIP_CALLABLES = {
    "nn.PositionScheme": "abstract base class",
}
# Result containers (dataclasses filled by the library): only their methods are fuzzed.
RESULT_TYPES: set[str] = set()


# --------------------------------------------------------------------------------------------
# good arguments (built inside the worker, where torch is imported)
# --------------------------------------------------------------------------------------------


def _good_table():
    import torch

    from posenc_lib import nn

    rng = np.random.default_rng(0)
    t8 = torch.linspace(-1.0, 1.0, 8, dtype=torch.float64)
    w8 = torch.eye(8, dtype=torch.float64)
    mat8 = rng.standard_normal((8, 8))

    x = torch.zeros(1, 4, 8)
    table = np.cos(np.outer(np.arange(6.0), [1.0, 1.0, 0.1, 0.1]))
    common = {
        "positions": 4,
        "dim": 8,
        "length": 4,
        "delta": [0.0, 1.0, 2.5],
        "head_dim": 8,
        "n_heads": 2,
        "max_len": 16,
        "vocab_size": 16,
        "n_bits": 4,
        "table": table,
        "h": mat8,
        "g": mat8,
        "c": mat8,
        "rng": np.random.default_rng(0),
        "max_position": 100.0,
        "x": x,
        "x_m": t8,
        "x_n": t8.flip(0),
        "p_m": t8 * 0.5,
        "p_n": t8 * 0.25,
        "w_q": w8,
        "w_k": w8,
        "phi": [0.5, 1.0],
        "theta": [1.0, 0.1],
        "source": "interleaved",
        "target": "concatenated",
        "q_len": 4,
        "k_len": 4,
        "n_samples": 3,
        "scales": [0.1, 0.01],
        "eps": 0.1,
        "head": 0,
        "label": "claim",
        "ok": True,
        "value": 1e-20,
        "x_array": [0.5, 1.0, 10.0],
    }
    per_callable = {
        "angle_addition.fill_progression": {
            "out": np.zeros((4, 4)),
            "theta": [1.0, 0.1],
            "sin_cols": [0, 2],
            "cos_cols": [1, 3],
        },
        "angle_addition.integer_progression": {"positions": [0, 2, 4]},
        "conventions.framework_rows": {"convention": "fairseq"},
        "conventions.framework_table": {"convention": "fairseq"},
        "decay.asymptotic_bound": {"form": "log", "delta": [1.0, 2.5, 30.0]},
        "decay.kernel_log": {"delta": [1.0, 2.5, 30.0]},
        "decay.kernel_oscillatory": {"delta": [1.0, 2.5, 30.0]},
        "encoding.shift_matrix": {"delta": 1.5},
        "high_precision.reference_entries": {"positions": [0.0, 3.0], "pairs": [0, 1]},
        "high_precision.sampled_error": {
            "table": np.zeros((4, 8)),
            "positions": 4,
            "rows": [0, 1],
            "pairs": [0, 1],
        },
        "layouts.convert_layout": {"table": np.zeros((3, 8))},
        "layouts.layout_permutation": {},
        "nn.make_scheme": {"name": "sinusoidal"},
        "nn.RotaryEmbedding.rotate_one": {"x": torch.zeros(4, 8)},
        "nn.RotaryEmbedding.rotate": {"q": torch.zeros(4, 8), "k": torch.zeros(4, 8)},
        **{
            f"nn.{scheme}.rotate": {"q": torch.zeros(4, 8), "k": torch.zeros(4, 8)}
            for scheme in (
                "NoPositionalEncoding",
                "LearnedPositionalEmbedding",
                "SinusoidalPositionalEncoding",
                "ALiBi",
            )
        },
        "alibi_falcon.FalconALiBi.rotate": {
            "q": torch.zeros(4, 8),
            "k": torch.zeros(4, 8),
        },
        "scaled_rotary.ScaledRotaryEmbedding.rotate_one": {"x": torch.zeros(4, 8)},
        "scaled_rotary.ScaledRotaryEmbedding.rotate": {
            "q": torch.zeros(4, 8),
            "k": torch.zeros(4, 8),
        },
        "sincos2d.sincos_2d": {"grid_size": (2, 3)},
        "special.cin": {"x": [0.5, 1.0, 10.0]},
        "special.cosine_integral": {"x": [0.5, 1.0, 10.0]},
    }
    instances = {
        "nn.SinusoidalPositionalEncoding": lambda: nn.SinusoidalPositionalEncoding(
            8, batch_first=True
        ),
    }
    return common, per_callable, instances


# --------------------------------------------------------------------------------------------
# bad values
# --------------------------------------------------------------------------------------------


def _hypothesis_values(count: int) -> list:
    """Extra scalars drawn by hypothesis with a fixed seed (deterministic)."""
    from hypothesis import HealthCheck, given, seed, settings
    from hypothesis import strategies as st

    drawn: list = []
    strategy = st.one_of(
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(min_value=2**31, max_value=2**64),
    )

    @seed(16)
    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(value):
        if len(drawn) < count and value not in drawn:
            drawn.append(value)

    collect()
    return drawn


def _bad_values(good):
    """(label, value, must_raise) triples for an argument whose good value is ``good``."""
    import torch

    values = [
        ("None", None),
        ("str", "abc"),
        ("True", True),
        ("2**40", 2**40),
        ("10**30", 10**30),
        ("10**400", 10**400),
        ("-1", -1),
        ("0", 0),
        ("1.5", 1.5),
        ("nan", float("nan")),
        ("inf", float("inf")),
        ("-inf", -float("inf")),
        ("1e308", 1e308),
        ("ragged", [[1.0], [1.0, 2.0]]),
        ("str-array", np.array(["a", "b"])),
        ("complex-array", np.array([1 + 1j, 2.0])),
        ("empty", []),
        ("3d-array", np.zeros((2, 2, 2))),
        ("object", object()),
    ]
    if isinstance(good, torch.Tensor) and good.is_floating_point():
        values += [
            ("grad-tensor", good.detach().clone().requires_grad_(True)),
            ("int-tensor", good.detach().to(torch.int64)),
            ("nan-tensor", torch.full_like(good, float("nan"))),
            ("1d-tensor", torch.zeros(3, dtype=good.dtype)),
            ("ndarray", good.detach().numpy()),
        ]
    elif isinstance(good, torch.Tensor):  # token ids
        values += [
            ("float-tensor", good.to(torch.float32)),
            ("id-too-large", good + 10**6),
            ("negative-id", good - 10),
            ("1d-tensor", good[0]),
        ]
    elif isinstance(good, (np.ndarray, list)) and len(good):
        arr = np.asarray(good, dtype=float)
        values += [
            ("nan-array", np.where(arr == arr.flat[0], np.nan, arr)),
            ("big-array", arr + 2.0**60),
            ("tensor", torch.as_tensor(arr)),
            ("grad-tensor", torch.as_tensor(arr).requires_grad_(True)),
        ]
    elif isinstance(good, int) and not isinstance(good, bool):
        values += [("float-int", float(good)), ("np-int", np.int64(good))]
    return values


def _annotation_text(param) -> str:
    ann = param.annotation
    return ann if isinstance(ann, str) else getattr(ann, "__name__", str(ann))


def _must_raise(param, label: str, value) -> bool:
    """True when the signature itself refuses ``value`` (a bool flag, an argument without None)."""
    ann = _annotation_text(param)
    if ann == "bool":
        return not isinstance(value, bool) and label != "np-int"
    if label == "None":
        return (
            param.annotation is not inspect.Parameter.empty
            and "None" not in ann
            and "DTypeLike" not in ann  # numpy's DTypeLike includes None (float64)
            and "Any" not in ann
            and param.default is not None
        )
    return False


# --------------------------------------------------------------------------------------------
# the cases
# --------------------------------------------------------------------------------------------


def _public_modules():
    import posenc_lib

    names = sorted(
        m.name for m in pkgutil.iter_modules(posenc_lib.__path__) if m.name[0] != "_"
    )
    return [(n, importlib.import_module(f"posenc_lib.{n}")) for n in names]


def _own_methods(cls) -> dict:
    """The members ``cls`` defines or inherits from posenc_lib classes (not torch's)."""
    members: dict = {}
    for klass in reversed(cls.__mro__):
        if klass.__module__.startswith("posenc_lib."):
            members.update(vars(klass))
    return members


def _targets():
    """(qualified name, callable, instance factory or None, method name or None)."""
    targets = []
    for short, module in _public_modules():
        if short in SKIP_MODULES:
            continue
        for name in module.__all__:
            obj = getattr(module, name)
            qual = f"{short}.{name}"
            if qual in SKIP_CALLABLES or not callable(obj):
                continue
            if inspect.isclass(obj):
                if qual not in RESULT_TYPES:
                    targets.append((qual, obj, None, None))
                for attr, member in _own_methods(obj).items():
                    if attr.startswith("_") or attr in {
                        "extra_repr",
                        "reset_parameters",
                    }:
                        continue
                    if inspect.isfunction(member):
                        targets.append((f"{qual}.{attr}", obj, qual, attr))
            elif inspect.isroutine(obj):
                targets.append((qual, obj, None, None))
    return targets


def _parameters(func):
    params = list(inspect.signature(func).parameters.values())
    return [
        p
        for p in params
        if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]


def build_cases():
    """Deterministic list of calls: (qualified name, argument, label, kwargs-builder info)."""
    common, per_callable, instances = _good_table()
    extra = _hypothesis_values(12)
    cases = []
    callables = set()
    for qual, obj, _owner, method in _targets():
        func = getattr(obj, method) if method else obj
        params = _parameters(func)
        good_for = {**common, **per_callable.get(qual, {})}
        if qual.endswith(".forward") or qual.endswith(".embed"):
            good_for.setdefault("x", common["x"])
        required = [p for p in params if p.default is p.empty]
        if any(p.name not in good_for for p in required):
            missing = [p.name for p in required if p.name not in good_for]
            raise AssertionError(f"no good value for {qual}({', '.join(missing)})")
        callables.add(qual)
        for p in params:
            good = good_for.get(p.name, p.default)
            bad = _bad_values(good)
            if isinstance(good, (int, float)) and not isinstance(good, bool):
                bad += [(f"hyp{i}", v) for i, v in enumerate(extra)]
            for label, value in bad:
                cases.append((qual, p.name, label, value))
        cases.append((qual, None, "good", None))
    return cases, callables, (common, per_callable, instances)


# --------------------------------------------------------------------------------------------
# the worker: runs cases start.. in order, one JSON line per case
# --------------------------------------------------------------------------------------------


def _nonfinite(result, depth: int = 0) -> bool:
    import torch

    if depth > 3:
        return False
    if isinstance(result, torch.Tensor):
        return result.is_floating_point() and not bool(torch.isfinite(result).all())
    if isinstance(result, np.ndarray):
        return result.dtype.kind in "fc" and not bool(np.isfinite(result).all())
    if isinstance(result, (float, np.floating)):
        return not math.isfinite(result)
    if isinstance(result, (list, tuple)):
        return any(_nonfinite(r, depth + 1) for r in result[:64])
    if isinstance(result, dict):
        return any(_nonfinite(r, depth + 1) for r in list(result.values())[:64])
    return False


def _finite_args(value) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, int):
        return abs(value) < 2**53
    return not _nonfinite(value)


def _good_kwargs(func, good_for) -> dict:
    return {p.name: good_for[p.name] for p in _parameters(func) if p.default is p.empty}


def _call(qual, name, label, value, table, targets):
    common, per_callable, instances = table
    obj, owner, method = targets[qual]
    func = getattr(obj, method) if method else obj
    kwargs = _good_kwargs(func, {**common, **per_callable.get(qual, {})})
    if name is not None:
        kwargs[name] = value
    if method:
        if owner in instances:
            instance = instances[owner]()
        else:
            instance = obj(
                **_good_kwargs(obj, {**common, **per_callable.get(owner, {})})
            )
        return getattr(instance, method)(**kwargs)
    return func(**kwargs)


def _names_argument(message: str, names: set[str]) -> bool:
    return any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}\b", message) for n in names)


def _verdict(qual, name, label, value, func, names, outcome) -> tuple[str, str]:
    """("clear" | "ok" | "bad", detail) for one call's outcome."""
    status, kind, message = outcome
    param = next((p for p in _parameters(func) if p.name == name), None)
    if status == "clear":
        if name is None:
            return "bad", f"good arguments raised {kind}: {message}"
        if _names_argument(message, names):
            return "clear", ""
        return "bad", f"{kind} names no argument: {message}"
    if status == "ok":
        if message:
            return "bad", message
        if param is not None and _must_raise(param, label, value):
            return "bad", f"accepted ({_annotation_text(param)} expected)"
        return "ok", ""
    if name == "path" and kind == "FileNotFoundError":
        return "clear", ""  # a missing file: the standard exception, naming the path
    return "bad", f"{kind}: {message}"


def worker(start: int) -> None:
    """Run the cases from ``start`` on; write one JSON line before and one after each call."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    import warnings

    import torch

    warnings.simplefilter("ignore")
    torch.set_num_threads(1)
    cases, callables, table = build_cases()
    targets = {q: (o, ow, m) for q, o, ow, m in _targets()}
    arg_names = {}
    for qual, (obj, owner, method) in targets.items():
        names = {p.name for p in _parameters(getattr(obj, method) if method else obj)}
        if owner:
            names |= {p.name for p in _parameters(obj)}
        arg_names[qual] = names
    out = sys.stdout
    out.write(json.dumps({"total": len(cases), "callables": len(callables)}) + "\n")
    for index in range(start, len(cases)):
        qual, name, label, value = cases[index]
        what = f"{qual}({name}={label})" if name else f"{qual}(good arguments)"
        out.write(json.dumps({"start": index, "what": what}) + "\n")
        out.flush()
        try:
            result = _call(qual, name, label, value, table, targets)
            nonfinite = _nonfinite(result) and _finite_args(value)
            outcome = (
                "ok",
                "",
                "NaN or infinity from finite arguments" if nonfinite else "",
            )
        except (ValueError, TypeError) as exc:
            outcome = ("clear", type(exc).__name__, str(exc)[:300])
        except BaseException as exc:  # every other exception is a finding
            outcome = ("other", type(exc).__name__, str(exc)[:300])
        obj, _, method = targets[qual]
        func = getattr(obj, method) if method else obj
        verdict, detail = _verdict(
            qual, name, label, value, func, arg_names[qual], outcome
        )
        out.write(
            json.dumps({"done": index, "verdict": verdict, "detail": detail}) + "\n"
        )
        out.flush()


# --------------------------------------------------------------------------------------------
# the parent: restarts the worker after a hang or a crash (it imports nothing heavy itself)
# --------------------------------------------------------------------------------------------


def run_fuzz() -> tuple[str, list[str]]:
    tally = {"clear": 0, "ok": 0}
    bad: list[str] = []
    start, total, n_callables, calls = 0, None, 0, 0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    while total is None or start < total:
        errors = tempfile.TemporaryFile()
        proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", str(start)],
            stdout=subprocess.PIPE,
            stderr=errors,
            env=env,
            cwd=ROOT,
        )
        buffer, current, what = b"", start, "start-up"
        deadline = time.monotonic() + STARTUP_S
        while True:
            ready, _, _ = select.select(
                [proc.stdout], [], [], max(deadline - time.monotonic(), 0)
            )
            chunk = os.read(proc.stdout.fileno(), 65536) if ready else None
            if not chunk:  # a hang (timeout) or a crash (end of output)
                if chunk is None:
                    proc.kill()
                proc.wait()
                if total is not None and current >= total:
                    start = current
                    break
                reason = "hang" if chunk is None else f"crash (exit {proc.returncode})"
                bad.append(f"{what}: {reason}")
                calls += 1
                if total is None:  # the worker could not start: nothing more to try
                    errors.seek(0)
                    bad.append(errors.read().decode(errors="replace")[-3000:])
                    return "API fuzz: worker failed to start", bad
                start = current + 1
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                record = json.loads(line)
                if "total" in record:
                    total, n_callables = record["total"], record["callables"]
                elif "start" in record:
                    current, what = record["start"], record["what"]
                    deadline = time.monotonic() + TIMEOUT_S
                else:
                    calls += 1
                    current = record["done"] + 1
                    if record["verdict"] == "bad":
                        bad.append(f"{what}: {record['detail']}")
                    else:
                        tally[record["verdict"]] += 1
    line = (
        f"API fuzz: {n_callables} callables, {calls} calls, "
        f"{tally['clear']} clear ValueError/TypeError, {len(bad)} bad"
    )
    return line, bad


@pytest.mark.skipif(
    importlib.util.find_spec("torch") is None
    or importlib.util.find_spec("hypothesis") is None,
    reason="the API fuzz needs torch and hypothesis",
)
def test_fuzz_public_api(record_property):
    line, bad = run_fuzz()
    record_property("api_fuzz", line)  # printed by conftest.pytest_terminal_summary
    print(line)
    assert not bad, line + "\n" + "\n".join(bad[:60])


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        worker(int(sys.argv[2]))
    else:
        summary, findings = run_fuzz()
        print("\n".join(findings))
        print(summary)


# --------------------------------------------------------------------------------------------
# Findings of issue 27's own fuzzer, one case each: every one failed on the code before the fix
# (a raw torch error, an error naming the wrong argument, NaN from finite input, or nonsense
# accepted). "raises": the exception type and a pattern that names the right argument;
# "value": the correct result, from an independent route.
# --------------------------------------------------------------------------------------------


def _issue27_namespace():
    """The modules and values the cases use (imported when a case runs, not at collection)."""
    from types import SimpleNamespace

    torch = pytest.importorskip("torch")

    import posenc_lib as pe
    from posenc_lib import conventions, nn
    from posenc_lib import high_precision as hp
    from posenc_lib.course import attention, dominance, experiments, hessian
    from posenc_lib.course import shift_invariance as si
    from posenc_lib.course import transformer as tr
    from posenc_lib.exact_kernel import kernel_from_frequencies

    return SimpleNamespace(
        torch=torch, pe=pe, attention=attention, conventions=conventions,
        dominance=dominance, experiments=experiments, hessian=hessian, nn=nn, hp=hp, si=si, tr=tr,
        kernel_from_frequencies=kernel_from_frequencies, f64=torch.float64,
        t8=torch.linspace(-1.0, 1.0, 8, dtype=torch.float64),
        w8=torch.eye(8, dtype=torch.float64),
        cuda="cuda" if not torch.cuda.is_available() else "cuda:999",
    )  # fmt: skip


#: (name, call of the namespace, expected): ("raises", type, pattern) or ("value", result);
#: a callable expected value is computed from the namespace too.
ISSUE27_CASES = [
        # an unavailable device: AssertionError "Torch not compiled with CUDA enabled"
        ("m.cuda sinusoidal", lambda m: m.nn.SinusoidalPositionalEncoding(8, device=m.cuda),
         ("raises", ValueError, r"^device must be a device this torch build can use")),
        ("m.cuda rotary", lambda m: m.nn.RotaryEmbedding(8, device=m.cuda),
         ("raises", ValueError, r"^device must be a device this torch build can use")),
        ("m.cuda alibi", lambda m: m.nn.ALiBi(2, device=m.cuda),
         ("raises", ValueError, r"^device must be a device this torch build can use")),
        ("m.cuda Config", lambda m: m.experiments.Config(device=m.cuda),
         ("raises", ValueError, r"^device must be a device this torch build can use")),
        ("nonsense Config device", lambda m: m.experiments.Config(device="nonsense"),
         ("raises", TypeError, r"^device must be a torch.device or a device string")),
        # the wrong argument named
        ("theta 1e300", lambda m: m.kernel_from_frequencies(2.0, m.pe.frequencies(8) * 1e300),
         ("raises", ValueError, r"^delta x theta must stay within")),
        ("factor 5e-324", lambda m: m.nn.RotaryEmbedding(8, interpolation_factor=5e-324),
         ("raises", ValueError, r"^interpolation_factor must be >=")),
        ("fairseq, no rows", lambda m: m.conventions.framework_table(
            "fairseq", 0, 4, padding_idx=1).shape, ("value", (0, 4))),
        # nonsense accepted
        ("max_bytes 1e308", lambda m: m.pe.sinusoidal(4, 8, max_bytes=1e308),
         ("raises", ValueError, r"^max_bytes must be .*, got the float 1e\+308")),
        ("bool in pairs", lambda m: m.hp.reference_entries([0.0, 3.0], [True, 0], 8),
         ("raises", TypeError, r"^pairs must be integers .* holding bools")),
        ("string table", lambda m: m.pe.convert_layout(
            np.array([["a", "b"]]), "interleaved", "concatenated"),
         ("raises", TypeError, r"^table must be a numeric array")),
        ("factor 1e-300", lambda m: m.nn.RotaryEmbedding(8, interpolation_factor=1e-300),
         ("raises", ValueError, r"^interpolation_factor must be >=")),
        ("train_length 1e8", lambda m: m.experiments.Config(train_length=100_000_000),
         ("raises", ValueError, r"^train_length x test_multiples \(the longest test sequence")),
        ("test_multiples 1e12", lambda m: m.experiments.Config(test_multiples=(1e12,)),
         ("raises", ValueError, r"^train_length x test_multiples \(the longest test")),
]  # fmt: skip


@pytest.mark.parametrize(
    ("call", "expected"),
    [c[1:] for c in ISSUE27_CASES],
    ids=[c[0] for c in ISSUE27_CASES],
)
def test_issue27_library_edges(call, expected):
    m = _issue27_namespace()
    kind, *details = expected
    if kind == "raises":
        error, pattern = details
        with pytest.raises(error, match=pattern):
            call(m)
        return
    want = details[0](m) if callable(details[0]) else details[0]
    result = call(m)
    if isinstance(result, dict):
        assert result.keys() == want.keys()
        assert np.allclose(list(result.values()), list(want.values()), rtol=1e-12)
    elif isinstance(result, tuple):
        assert result == want
    else:
        assert np.isclose(result, want, rtol=1e-12, atol=0)
