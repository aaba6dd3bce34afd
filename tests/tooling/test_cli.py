"""The command lines: options checked before any work, atomic writes, Ctrl-C, clean usage errors.

``scripts/experiments.py``, ``python -m benchmarks`` (and its ``bench_*`` modules),
``scripts/check_oldest.py`` and the usage errors of ``scripts/check_outputs.py``, run as a user
runs them (subprocesses), with sizes that keep each test to seconds.
"""

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers_disk import fill, tiny_disk

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from _cli import (  # noqa: E402
    partial_path,
    writable_output_path,
    write_atomic,
    write_json_atomic,
)

#: The experiment command line trains torch models (make check-oldest runs without torch too).
needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None,
    reason="scripts/experiments.py needs torch",
)
#: Options of a tiny experiment grid (one run takes well under a second of training).
TINY = [
    "--tasks",
    "offset",
    "--schemes",
    "none",
    "--seeds",
    "0",
    "--dim",
    "16",
    "--heads",
    "2",
]
TINY += ["--steps", "5", "--eval-sequences", "4", "--threads", "1", "--device", "cpu"]


def start(*args):
    """Start a command with the default SIGINT handling (a background shell may ignore SIGINT,
    and Python keeps an ignored SIGINT ignored)."""
    return subprocess.Popen(
        [sys.executable, *map(str, args)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def interrupt_after(proc, marker, timeout=120):
    """Send SIGINT once ``marker`` appears on the command's stdout; return (rc, stdout, stderr)."""
    seen = []
    deadline = time.monotonic() + timeout
    for line in proc.stdout:
        seen.append(line)
        if marker in line:
            break
        assert time.monotonic() < deadline, "".join(seen)
    else:
        proc.wait()
        pytest.fail(f"{marker!r} never printed: {''.join(seen)} {proc.stderr.read()}")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, "".join(seen) + out, err


def assert_usage_error(done, *phrases):
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("usage:")
    for phrase in phrases:
        assert phrase in done.stderr


# ---------------------------------------------------------------------------------------------
# scripts/_cli.py: the shared pieces
# ---------------------------------------------------------------------------------------------


def test_check_output_path_refuses_what_cannot_be_written(tmp_path):
    afile = tmp_path / "plain"
    afile.write_text("")
    with pytest.raises(ValueError, match="is a folder, not a file"):
        writable_output_path(tmp_path)
    with pytest.raises(ValueError, match="is not a folder"):
        writable_output_path(afile / "results.json")
    with pytest.raises(ValueError, match="names a folder"):
        writable_output_path(Path(".."))
    with pytest.raises(
        ValueError, match=r"^cannot\b"
    ):  # /proc refuses new files, even to root
        writable_output_path(Path("/proc/results.json"))
    made = writable_output_path(tmp_path / "new" / "deeper" / "results.json")
    assert (
        made.parent.is_dir() and list(made.parent.iterdir()) == []
    )  # the probe is gone


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in read-only folders")
def test_check_output_path_refuses_a_read_only_folder(tmp_path):
    tmp_path.chmod(0o500)
    try:
        with pytest.raises(ValueError, match="cannot write in"):
            writable_output_path(tmp_path / "results.json")
    finally:
        tmp_path.chmod(0o700)


def test_write_json_atomic_leaves_the_old_file_on_failure(tmp_path):
    out = tmp_path / "r.json"
    write_json_atomic({"a": 1}, out)
    assert json.loads(out.read_text()) == {"a": 1}
    assert oct(out.stat().st_mode & 0o777) == oct(0o666 & ~_umask())
    with pytest.raises(TypeError):
        write_json_atomic(
            {"a": object()}, out
        )  # not JSON: fails before any file is made
    assert json.loads(out.read_text()) == {"a": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]
    assert partial_path(out) == tmp_path / "r.partial.json"


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_concurrent_writers_never_collide(tmp_path):
    """Two processes writing one file 200 times each: no error, a whole file, no leftovers
    (a fixed temporary name failed here: one writer renamed the other's file away)."""
    out = tmp_path / "shared.json"
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT / 'scripts')!r})\n"
        "from _cli import write_json_atomic\n"
        "for i in range(200): write_json_atomic({'writer': sys.argv[1], 'i': i, "
        "'pad': 'x' * 20000}, sys.argv[2])\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, name, str(out)], stderr=subprocess.PIPE
        )
        for name in ("a", "b")
    ]
    errors = [p.communicate(timeout=120)[1].decode() for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errors
    assert json.loads(out.read_text())["i"] == 199
    assert [p.name for p in tmp_path.iterdir()] == ["shared.json"]


def test_output_paths_like_a_careful_unix_tool(tmp_path):
    """Trailing slash, over-long name, FIFO, folder: refused in one sentence; a symlink is
    written through (the link stays a link); a file keeps its mode (issue 27)."""
    with pytest.raises(ValueError, match="names a folder, not a file"):
        writable_output_path(f"{tmp_path}/results/")
    assert not (tmp_path / "results").exists()
    with pytest.raises(
        ValueError, match=r"is 300 bytes long, over this file system's limit"
    ):
        writable_output_path(tmp_path / ("x" * 300))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(
        ValueError, match=r"is a FIFO \(named pipe\): only a regular file"
    ):
        writable_output_path(fifo)
    link_to_fifo = tmp_path / "link-to-fifo"
    link_to_fifo.symlink_to(fifo)
    with pytest.raises(ValueError, match=r"a link to .*fifo.* is a FIFO"):
        writable_output_path(link_to_fifo)
    # a name at the limit works, its temporary name included
    long_ok = tmp_path / ("y" * 250 + ".json")
    write_json_atomic({"a": 1}, writable_output_path(long_ok))
    assert json.loads(long_ok.read_text()) == {"a": 1}

    target = tmp_path / "real.json"
    target.write_text("{}")
    target.chmod(0o600)
    link = tmp_path / "link.json"
    link.symlink_to(target.name)
    assert writable_output_path(link) == link
    assert write_json_atomic({"b": 2}, link) == target
    assert link.is_symlink() and json.loads(target.read_text()) == {"b": 2}
    assert oct(target.stat().st_mode & 0o777) == oct(0o600)  # the mode is kept
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "new" / "made.json")
    write_json_atomic({"c": 3}, writable_output_path(dangling))
    assert dangling.is_symlink() and json.loads(dangling.read_text()) == {"c": 3}
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_write_atomic_on_a_full_disk_keeps_the_old_file(tmp_path):
    with tiny_disk(tmp_path / "disk") as disk:
        out = disk / "r.json"
        write_json_atomic({"old": True}, out)
        fill(disk)
        with pytest.raises(OSError, match="No space left on device"):
            write_atomic("x" * 100_000, out)
        assert json.loads(out.read_text()) == {"old": True}
        assert sorted(p.name for p in disk.iterdir()) == ["filler", "r.json"]


# ---------------------------------------------------------------------------------------------
# scripts/experiments.py
# ---------------------------------------------------------------------------------------------


@needs_torch
@pytest.mark.parametrize(
    ("options", "phrases"),
    [
        (
            ["--threads", "0"],
            ["argument --threads: threads must be an integer >= 1, got 0"],
        ),
        (["--dim", "7"], ["--dim 7", "dim must be a positive even integer, got 7"]),
        (["--heads", "3"], ["--heads 3", "must be divisible by n_heads = 3"]),
        (
            ["--lr", "nan"],
            ["argument --lr: lr must be a finite real number", "got nan"],
        ),
        (["--lr", "inf"], ["argument --lr:"]),
        (["--device", "nope"], ["argument --device: cannot use 'nope'"]),
        (["--steps", "0"], ["argument --steps: steps must be an integer >= 1"]),
        (
            ["--seeds", "0", "-1"],
            ["argument --seeds: seed must be an integer >= 0, got -1"],
        ),
        (["--sinusoidal-bases", "1"], ["argument --sinusoidal-bases: base must be"]),
        (["--rotary-bases", "nan"], ["argument --rotary-bases: base must be"]),
        (["--test-multiples", "0.5"], ["argument --test-multiples:"]),
        (
            ["--offset-k", "16"],
            ["argument --offset-k: train_length must be an integer >= 17"],
        ),
        (["--train-length", "1"], ["argument --train-length: train_length must be"]),
        (["--schemes", "t5"], ["argument --schemes: invalid choice: 't5'"]),
        # issue 27: each of these passed the checks, then crashed or died with a traceback
        (
            ["--threads", "100000"],
            ["argument --threads: threads must be an integer in 1 .."],
        ),
        (
            ["--train-length", "100000000"],
            ["argument --train-length: train_length x test_multiples (the longest"],
        ),
        (
            ["--test-multiples", "1e12"],
            ["argument --test-multiples: train_length x test_multiples (the longest"],
        ),
    ],
)
def test_experiments_bad_options_are_usage_errors(tmp_path, capsys, options, phrases):
    spec = importlib.util.spec_from_file_location(
        "experiments_script", ROOT / "scripts" / "experiments.py"
    )
    experiments = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(experiments)

    out = tmp_path / "x.json"
    with pytest.raises(SystemExit) as exit_info:
        experiments.main([*TINY, "--out", str(out), *options])
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing started
    for phrase in phrases:
        assert phrase in captured.err
    assert not out.exists()


@needs_torch
@pytest.mark.parametrize(
    ("out", "phrase"),
    [
        ("{tmp}", "is a folder, not a file"),
        ("{file}/x.json", "is not a folder"),
        ("{tmp}/results/", "names a folder, not a file"),  # not a file named "results"
        ("{tmp}/" + "x" * 300, "over this file system's limit of"),
        ("{fifo}", "is a FIFO (named pipe): only a regular file is replaced"),
    ],
)
def test_experiments_unwritable_out_fails_before_training(
    run_python, tmp_path, out, phrase
):
    (tmp_path / "file").write_text("")
    os.mkfifo(tmp_path / "fifo")
    out = out.format(tmp=tmp_path, file=tmp_path / "file", fifo=tmp_path / "fifo")
    started = time.monotonic()
    # a grid that would train for minutes: the check must come first
    done = run_python("scripts/experiments.py", "--steps", "100000", "--out", out)
    assert_usage_error(done, "argument --out: ", phrase)
    # seconds of start-up (torch), never the minutes of training
    assert done.stdout == "" and time.monotonic() - started < 150


@needs_torch
def test_experiments_writes_atomically_and_reports(run_python, tmp_path):
    out = tmp_path / "sub" / "res.json"
    done = run_python("scripts/experiments.py", *TINY, "--out", out)
    assert done.returncode == 0, done.stderr
    assert f"wrote {out}" in done.stdout
    assert len(json.loads(out.read_text())["runs"]) == 1
    assert [p.name for p in out.parent.iterdir()] == [
        "res.json"
    ]  # no temporary file left


@needs_torch
def test_experiments_ctrl_c_keeps_the_finished_runs(tmp_path):
    out = tmp_path / "res.json"
    slow = [*TINY, "--seeds", "0", "1", "2", "3", "--steps", "300", "--out", out]
    # Interrupted once the second run reports: the first is then surely kept (the line of the
    # second is printed a moment before that run is recorded, so it may or may not be kept).
    code, _, stderr = interrupt_after(start("scripts/experiments.py", *slow), "seed 1:")
    assert code == 130, stderr
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1, stderr
    partial = json.loads((tmp_path / "res.partial.json").read_text())
    finished = len(partial["runs"])
    assert 1 <= finished < 4 and partial["interrupted"] and partial["planned_runs"] == 4
    assert partial["runs"][0]["config"]["seed"] == 0
    assert f"interrupted after {finished} of 4 runs; the finished runs are in" in stderr
    assert not out.exists()


@needs_torch
def test_experiments_ctrl_c_before_a_run_finishes_writes_nothing(tmp_path):
    out = tmp_path / "res.json"
    code, _, stderr = interrupt_after(
        start("scripts/experiments.py", *TINY, "--steps", "100000", "--out", out),
        "runs on cpu",
    )
    assert code == 130, stderr
    assert stderr.strip() == (
        f"python scripts/experiments.py: interrupted after 0 of 1 runs;"
        f" nothing written ({out} untouched)"
    )
    assert list(tmp_path.iterdir()) == []


@needs_torch
def test_experiments_full_disk_after_training_says_so_in_one_line(tmp_path):
    with tiny_disk(tmp_path / "disk") as disk:
        out = disk / "res.json"
        out.write_text('{"previous": true}\n')
        proc = start("scripts/experiments.py", *TINY, "--steps", "30", "--out", out)
        # the disk fills while the run trains (the output path was checked before)
        for line in proc.stdout:
            if "runs on cpu" in line:
                fill(disk)
                break
        _, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 1, stderr
        assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1
        assert stderr.strip() == (
            f"python scripts/experiments.py: cannot write {out}: No space left on device;"
            f" the 1 finished runs are lost ({out} untouched)"
        )
        assert json.loads(out.read_text()) == {"previous": True}
        assert sorted(p.name for p in disk.iterdir()) == ["filler", "res.json"]


def _wait_for_library(pid: int, name: str, timeout: float = 120) -> None:
    """Wait until process ``pid`` has mapped a shared library whose path contains ``name``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if name in Path(f"/proc/{pid}/maps").read_text():
                return
        except OSError:
            break
        time.sleep(0.01)
    pytest.skip(f"could not see {name} being loaded (no /proc here?)")


@needs_torch
def test_experiments_ctrl_c_while_torch_loads_is_one_line(tmp_path):
    out = tmp_path / "res.json"
    proc = start("scripts/experiments.py", *TINY, "--out", out)
    _wait_for_library(
        proc.pid, "libtorch"
    )  # torch's import has begun; it takes seconds
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert stderr.strip() == (
        "python scripts/experiments.py: interrupted; nothing written"
    ), stderr
    assert list(tmp_path.iterdir()) == []


@needs_torch
def test_experiments_two_quick_ctrl_c_keep_the_finished_runs(tmp_path):
    """A second Ctrl-C 2 ms after the first used to cut the saving short: "nothing written"."""
    out = tmp_path / "res.json"
    slow = [*TINY, "--seeds", "0", "1", "2", "--steps", "300", "--out", out]
    proc = start("scripts/experiments.py", *slow)
    for line in proc.stdout:
        if "seed 1:" in line:
            break
    proc.send_signal(signal.SIGINT)
    time.sleep(0.002)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1, stderr
    assert "the finished runs are in" in stderr
    partial = json.loads((tmp_path / "res.partial.json").read_text())
    # the first run surely (the second's line is printed a moment before it is recorded)
    assert partial["interrupted"] and len(partial["runs"]) >= 1
    assert partial["runs"][0]["config"]["seed"] == 0


# ---------------------------------------------------------------------------------------------
# python -m benchmarks
# ---------------------------------------------------------------------------------------------


def test_benchmarks_bad_options_fail_before_any_work(run_python, tmp_path):
    (tmp_path / "file").write_text("")
    done = run_python("-m", "benchmarks", "--output-dir", tmp_path / "file")
    assert_usage_error(done, "argument --output-dir:", "is not a folder")
    assert done.stdout == ""
    assert_usage_error(
        run_python("-m", "benchmarks", "nope"), "unknown benchmark(s) ['nope']"
    )
    done = run_python(
        "-m", "benchmarks.bench_kernel", "--output", tmp_path / "file" / "k.json"
    )
    assert_usage_error(done, "argument --output:", "is not a folder")
    assert done.stdout == ""


def test_benchmark_output_edge_cases_are_usage_errors(run_python, tmp_path):
    done = run_python(
        "-m", "benchmarks.bench_kernel", "--quick", "--output", f"{tmp_path}/k/"
    )
    assert_usage_error(done, "argument --output:", "names a folder, not a file")
    assert done.stdout == "" and list(tmp_path.iterdir()) == []


def test_a_benchmark_on_a_full_disk_says_so_in_one_line(tmp_path):
    with tiny_disk(tmp_path / "disk") as disk:
        out = disk / "k.json"
        out.write_text('{"previous": true}\n')
        proc = start("-m", "benchmarks.bench_kernel", "--quick", "--output", out)
        for line in proc.stdout:
            if (
                "bench_kernel: " in line
            ):  # measuring: the path was checked, fill the disk
                fill(disk)
                break
        _, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 1, stderr
        assert stderr.strip() == (
            f"bench_kernel: cannot write {out}: No space left on device;"
            f" the measurements are lost ({out} untouched)"
        )
        assert json.loads(out.read_text()) == {"previous": True}


def test_benchmarks_ctrl_c_keeps_the_finished_modules(tmp_path):
    # bench_rotary runs first and compares torch with transformers
    for name in ("torch", "transformers"):
        pytest.importorskip(name)
    proc = start("-m", "benchmarks", "--quick", "--output-dir", tmp_path)
    code, _, stderr = interrupt_after(proc, "=== bench_tables ===")
    assert code == 130, stderr
    # The modules run in name order: bench_kernel and bench_rotary finish before bench_tables.
    kernel, rotary = tmp_path / "kernel.json", tmp_path / "rotary.json"
    assert stderr.strip() == (
        f"python -m benchmarks: interrupted in bench_tables (kept {kernel}, {rotary};"
        " bench_tables wrote nothing)"
    )
    assert json.loads(kernel.read_text())["benchmark"] == "bench_kernel"
    assert json.loads(rotary.read_text())["benchmark"] == "bench_rotary"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kernel.json", "rotary.json"]


def test_a_benchmark_module_ctrl_c_writes_nothing(tmp_path):
    out = tmp_path / "k.json"
    proc = start("-m", "benchmarks.bench_kernel", "--quick", "--output", out)
    code, _, stderr = interrupt_after(proc, "bench_kernel: ")
    assert code == 130, stderr
    assert stderr.strip() == "bench_kernel: interrupted; nothing written"
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------------------
# scripts/check_oldest.py
# ---------------------------------------------------------------------------------------------


PYTEST = "pytest arguments"  # check_oldest.py checks them before building anything
# the command (a script of scripts/ and its arguments): what its usage error must say
USAGE_ERRORS = {
    "check_outputs.py missing.ipynb": ["no such notebook: missing.ipynb"],
    "check_outputs.py README.md": ["not a notebook (.ipynb): README.md"],
    "check_outputs.py --bogus": ["unrecognized arguments: --bogus"],
    "check_oldest.py --bogus": [PYTEST, "unrecognized arguments: --bogus"],
    "check_oldest.py tests/nope.py": [PYTEST, "file or directory not found: tests/nope.py"],
    "check_oldest.py --maxfail=x": [PYTEST, "argument --maxfail: invalid int value: 'x'"],
}  # fmt: skip


@pytest.mark.parametrize("command", USAGE_ERRORS)
def test_bad_arguments_say_what_is_wrong(run_python, command):
    script, *args = command.split()
    started = time.monotonic()
    done = run_python(f"scripts/{script}", *args)
    assert_usage_error(done, *USAGE_ERRORS[command])
    assert "exit status 4" not in done.stderr  # check_oldest.py: pytest never started
    assert "working in" not in done.stdout  # no environment was built
    assert time.monotonic() - started < 60


def test_check_oldest_ctrl_c_cleans_up_with_one_line():
    proc = start("scripts/check_oldest.py", "-k", "nothing")
    code, stdout, stderr = interrupt_after(proc, "working in")
    assert code == 130, stderr
    work = stdout.split("working in", 1)[1].split()[0]
    assert "Traceback" not in stderr
    assert (
        stderr.strip().splitlines()[-1].startswith("check_oldest.py: interrupted after")
    )
    assert f"removed {work}" in stderr and not Path(work).exists()
