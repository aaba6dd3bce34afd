"""Bad input gets a clear error that names the argument, what was given and what is accepted."""

import ast
from pathlib import Path

import numpy as np
import pytest

import posenc_lib as pe
from posenc_lib import _validation as V

PACKAGE = Path(pe.__file__).resolve().parent


@pytest.mark.parametrize(
    ("dim", "error", "match"),
    [
        (
            7,
            ValueError,
            "dim must be a positive even integer, got 7(; for an odd dim pass odd_dim.*)?$",
        ),
        (0, ValueError, "dim must be a positive even integer, got 0$"),
        (-4, ValueError, "dim must be a positive even integer, got -4$"),
        (8.0, TypeError, "dim must be a positive even integer, got 8.0$"),
        (True, TypeError, "dim must be a positive even integer, got True$"),
        ("8", TypeError, "dim must be a positive even integer, got '8'$"),
        (None, TypeError, "dim must be a positive even integer, got None$"),
    ],
)
def test_bad_dim(dim, error, match):
    with pytest.raises(error, match=match):
        pe.sinusoidal(4, dim)
    with pytest.raises(error, match=match):
        pe.frequencies(dim)


@pytest.mark.parametrize(
    ("base", "error", "match"),
    [
        (1.0, ValueError, "base must be a finite real number > 1, got 1.0$"),
        (0.5, ValueError, "base must be a finite real number > 1, got 0.5$"),
        (-10, ValueError, "base must be a finite real number > 1, got -10$"),
        (float("inf"), ValueError, "base must be a finite real number > 1, got inf$"),
        (float("nan"), ValueError, "base must be a finite real number > 1, got nan$"),
        ("10000", TypeError, "base must be a finite real number > 1, got '10000'$"),
        (None, TypeError, "base must be a finite real number > 1, got None$"),
    ],
)
def test_bad_base(base, error, match):
    with pytest.raises(error, match=match):
        pe.sinusoidal(4, 8, base=base)
    with pytest.raises(error, match=match):
        pe.kernel(1.0, 8, base=base)


POSITIONS = (
    "positions must be an int length L >= 0 or a 1-D array of finite reals, got "
)


@pytest.mark.parametrize(
    ("positions", "error", "given"),
    [
        (-1, ValueError, "-1"),
        (3.5, TypeError, "3.5"),
        (True, TypeError, "True"),
        (None, TypeError, "None"),  # issue 16: not "an array of shape ()"
        ("abc", TypeError, "'abc'"),
        ([0.0, np.nan], ValueError, "an array containing NaN or infinity"),
        ([0.0, np.inf], ValueError, "an array containing NaN or infinity"),
        (np.zeros((2, 2)), ValueError, r"an array of shape \(2, 2\)"),
        (["a", "b"], TypeError, "an array of dtype <U1"),
        ([1 + 2j], TypeError, "an array of dtype complex128"),
        (
            [[1.0], [2.0, 3.0]],
            ValueError,
            "a list of length 2 of ragged shape",
        ),  # ragged
    ],
)
def test_bad_positions(positions, error, given):
    with pytest.raises(error, match="^" + POSITIONS + given):
        pe.sinusoidal(positions, 8)


def test_unknown_choices_name_the_argument_and_the_choices():
    with pytest.raises(
        ValueError,
        match="layout must be one of 'interleaved', 'interleaved_cos_first', 'concatenated', "
        "'concatenated_cos_first', got 'sin_cos'",
    ):
        pe.sinusoidal(4, 8, layout="sin_cos")
    with pytest.raises(
        ValueError, match="spacing must be one of '2i/d', 'i/\\(d/2-1\\)', got"
    ):
        pe.frequencies(8, spacing="i/d")
    with pytest.raises(ValueError, match="target must be one of"):
        pe.convert_layout(np.zeros((2, 8)), "interleaved", "halves")


def test_non_float_dtype():
    with pytest.raises(
        TypeError, match=r"dtype must be a numpy floating dtype .*, got int32"
    ):
        pe.sinusoidal(4, 8, dtype=np.int32)
    with pytest.raises(TypeError, match="dtype must be a numpy floating dtype"):
        pe.sinusoidal(4, 8, dtype="not a dtype")


def test_table_over_memory_limit_is_refused_before_allocation():
    with pytest.raises(ValueError, match="over the limit max_bytes"):
        pe.sinusoidal(10**9, 1024)  # 8 TB in float64: refused, never allocated
    with pytest.raises(ValueError, match="over the limit max_bytes = 1 MiB"):
        pe.sinusoidal(1024, 256, max_bytes=2**20)
    assert pe.sinusoidal(512, 256, max_bytes=2**20).shape == (512, 256)
    assert pe.sinusoidal(512, 256, max_bytes=2.0**20).shape == (
        512,
        256,
    )  # a whole float


MAX_BYTES = "max_bytes must be a positive whole number of bytes, got "


@pytest.mark.parametrize(
    ("max_bytes", "error", "given"),
    [
        (None, TypeError, "None"),
        ("big", TypeError, "'big'"),
        (True, TypeError, "True"),
        (float("nan"), ValueError, "nan"),  # issue 16: NaN switched the guard off
        (float("inf"), ValueError, "inf"),
        (-1, ValueError, "-1"),  # issue 14: printed "-0 MiB"
        (0, ValueError, "0"),
        (1.5e6 + 0.5, ValueError, "1500000.5"),
        ([2**20], TypeError, "a list of length 1"),
    ],
)
def test_bad_max_bytes(max_bytes, error, given):
    for call in (
        lambda: pe.sinusoidal(4, 8, max_bytes=max_bytes),
        lambda: pe.sinusoidal(
            0, 8, max_bytes=max_bytes
        ),  # checked even for an empty table
    ):
        with pytest.raises(error, match="^" + MAX_BYTES + given + "$"):
            call()


def test_bad_kernel_and_shift_arguments():
    with pytest.raises(ValueError, match="delta must be finite real numbers"):
        pe.kernel([1.0, np.nan], 8)
    with pytest.raises(
        TypeError,
        match=r"delta must be finite real numbers .*, got an array of dtype <U3",
    ):
        pe.kernel("far", 8)
    with pytest.raises(
        TypeError, match="delta must be a finite real number, got a list"
    ):
        pe.shift_matrix([1, 2], 8)
    with pytest.raises(ValueError, match="phi must be finite real numbers"):
        pe.rotation(np.inf)


def test_describe():
    assert V.describe(None) == "None"
    assert V.describe(np.int64(3)) == "3"
    assert V.describe(np.float32(0.5)) == "0.5"
    assert V.describe("x" * 100).endswith("...")
    assert V.describe(np.zeros((2, 3))) == "ndarray of shape (2, 3) and dtype float64"
    assert V.describe({}) == "a dict"


def _defined_functions(tree: ast.Module):
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name


CHECK_MODULES = {
    "_validation.py": "the generic checks (numpy)",
    "_torch_checks.py": "the torch modules' checks",
    "course/_checks.py": "the course's plain checks",
}


def _check_users(package: Path) -> dict[str, set[str]]:
    """For each check module's public name, the modules (library and course) that import it."""
    users: dict[str, set[str]] = {}
    for path in sorted([*package.glob("*.py"), *package.glob("course/*.py")]):
        rel = path.relative_to(package).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith(
                ("_validation", "_torch_checks", "_checks")
            ):
                for alias in node.names:
                    users.setdefault(alias.name, set()).add(rel)
    return users


def _single_users(users: dict[str, set[str]]) -> list[str]:
    """Checks that sit in a check module although they serve fewer modules than it is for:
    a generic or course check used by one module, a torch check no torch module uses."""
    torch_modules = {"nn.py", "scaled_rotary.py", "alibi_falcon.py"}
    found = []
    for rel in CHECK_MODULES:
        source = (PACKAGE / rel).read_text(encoding="utf-8")
        for name in _defined_functions(ast.parse(source)):
            if not name.startswith("check_"):
                continue
            outside = users.get(name, set()) - {rel}
            inside = (
                source.count(f"{name}(") > 1
            )  # another check of the module calls it
            if rel == "_torch_checks.py":
                ok = bool(outside & torch_modules) or inside
            else:
                ok = len(outside) >= 2 or inside
            if not ok:
                found.append(f"{rel}:{name} used by {sorted(outside)}")
    return found


def test_a_check_lives_where_it_is_used():
    """The check modules hold only shared checks: a check one module needs lives in that
    module (issue 26); the torch checks serve the torch modules."""
    assert _single_users(_check_users(PACKAGE)) == []


def test_the_placement_rule_rejects_a_single_use_check():
    """Control: with ``check_vector``'s users reduced to one module it is reported."""
    users = _check_users(PACKAGE)
    users["check_vector"] = {"exact_kernel.py"}
    assert any(":check_vector " in line for line in _single_users(users))


def test_the_generic_checks_stay_small():
    """The generic module stays small (a ratchet: it grew to 1,006 lines holding every
    module's checks; issue 26 cut it to the shared numpy checks)."""
    lines = (PACKAGE / "_validation.py").read_text(encoding="utf-8").count("\n")
    assert lines <= 470, lines


# --------------------------------------------------------------------------------------------
# validation at the edge: one check per argument per call (issue 26)
# --------------------------------------------------------------------------------------------


def validation_entries(call):
    """The checks of ``posenc_lib._validation`` that ``call()`` enters from outside it, as
    ``(check, argument)`` pairs in order (calls between checks inside the module not counted)."""
    import sys

    source = V.__file__
    entries = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == source:
            caller = frame.f_back
            if caller is not None and caller.f_code.co_filename != source:
                code = frame.f_code.co_name
                name = frame.f_locals.get("name") or code.removeprefix("check_")
                entries.append((code, name))

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return entries


EDGE_CALLS = {
    "sinusoidal": (lambda: pe.sinusoidal(16, 8), 9),
    "sinusoidal, fast path": (lambda: pe.sinusoidal(300, 64, layout="concatenated"), 9),
    "sinusoidal, positions": (
        lambda: pe.sinusoidal(np.arange(5.0), 8, dtype=np.float32, spacing="i/(d/2-1)"),
        9,
    ),
    "sinusoidal, odd": (lambda: pe.sinusoidal(6, 7, odd_dim="zero_pad"), 9),
    "frequencies": (lambda: pe.frequencies(8, base=100.0), 3),
    "wavelengths": (lambda: pe.wavelengths(8), 3),
    "angles": (lambda: pe.angles(4, 8), 4),
    "shift_matrix": (lambda: pe.shift_matrix(1.5, 8, layout="concatenated"), 5),
    "kernel": (lambda: pe.kernel([0.0, 1.0, 2.5], 64), 5),
    "kernel_integral": (lambda: pe.kernel_integral([1.0, 2.5], base=500.0), 2),
    "convert_layout": (
        lambda: pe.convert_layout(np.zeros((2, 8)), "interleaved", "concatenated"),
        3,
    ),
    "layout_permutation": (
        lambda: pe.layout_permutation(8, "interleaved", "concatenated"),
        3,
    ),
}


@pytest.mark.parametrize("case", list(EDGE_CALLS))
def test_each_argument_is_checked_once(case):
    """One call of a public function enters validation once per argument: the public edge
    checks, the private kernels it calls trust it (``pe.sinusoidal`` entered ``_validation``
    five times for ``dim`` alone before issue 26)."""
    call, n_arguments = EDGE_CALLS[case]
    entries = validation_entries(call)
    assert entries, "the instrumentation saw no check"
    assert len(entries) == len(set(entries)), entries
    names = [name for _, name in entries]
    assert len(names) == len(set(names)), entries
    # a size derived from several arguments (check_table_size) is checked once more
    per_argument = [e for e in entries if e[0] != "check_table_size"]
    assert len(per_argument) <= n_arguments, entries


def test_the_check_counter_sees_a_repeated_check():
    """Control: a function that checks ``dim`` twice is seen entering twice."""

    def twice():
        V.check_dim(8)
        pe.frequencies(8)

    entries = validation_entries(twice)
    assert entries.count(("check_dim", "dim")) == 2


def test_checks_used_by_the_course_name_the_argument():
    """The shared checks whose refusals only the course reached before issue 26's re-cut."""
    with pytest.raises(
        ValueError, match=r"^test_multiples must be .* >= 1, got .*minimum 0.5"
    ):
        V.check_vector([0.5, 2.0], "test_multiples", minimum=1.0)
    with pytest.raises(ValueError, match=r"^c must be a square 2-D array"):
        V.check_matrix(np.ones((2, 3)), "c", square=True)
    with pytest.raises(ValueError, match=r"^g must be a 2-D array"):
        V.check_matrix(np.ones(3), "g")
    with pytest.raises(ValueError, match=r"^positions must be a length L <= "):
        V.check_positions(2**62)
    torch = pytest.importorskip("torch")
    from posenc_lib.nn import RotaryEmbedding

    rope, x = RotaryEmbedding(8), torch.zeros(3, 8)
    with pytest.raises(ValueError, match=r"^positions must be a tensor with values"):
        rope.rotate_one(x, positions=torch.zeros(3, device="meta"))
    rope.rotate_one(x, positions=torch.zeros(3))  # a tensor with values passes
