"""posenc_lib.course.explorers: the HTML output, its assets and its arguments (the values the
explorers compute are compared with posenc_lib in tests/book/browser/test_explorer_parity.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from posenc_lib.course import explorers as X

REPO = Path(__file__).resolve().parents[2]
ASSETS = REPO / "posenc_lib" / "course" / "assets"
NODE = REPO / "node_modules" / "uplot"
COPIES = {
    "uPlot.iife.min.js": "dist/uPlot.iife.min.js",
    "uPlot.min.css": "dist/uPlot.min.css",
    "uPlot.LICENSE": "LICENSE",
}
KINDS = ("encoding", "kernel", "rotary", "scaling")
#: A chart title that only each kind's code draws.
TITLES = {
    "encoding": "The encoding table p_m",
    "kernel": "The kernel κ(Δ), its integral and its regimes",
    "rotary": "Rotary score and RoFormer's bound against the offset",
    "scaling": "Rotary scaling: frequency map and trained range",
}
FUNCTIONS = (
    X.encoding_explorer,
    X.kernel_explorer,
    X.rotary_explorer,
    X.scaling_explorer,
)


@pytest.mark.parametrize("name", sorted(COPIES))
def test_committed_uplot_equals_node_modules(name: str) -> None:
    source = NODE / COPIES[name]
    if not source.is_file():
        pytest.skip("node_modules/uplot not installed (npm ci)")
    assert (ASSETS / name).read_bytes() == source.read_bytes(), "run `make uplot`"


def test_committed_explorer_scripts_are_the_minified_source(tmp_path: Path) -> None:
    """Each explorers.<kind>.min.js is what `make explorers` writes from explorers.js now."""
    import shutil

    if shutil.which("node") is None or not (REPO / "node_modules/terser").is_dir():
        pytest.skip("node or node_modules/terser missing (npm ci)")
    subprocess.run(
        ["node", str(REPO / "scripts" / "minify_explorers.cjs"), str(tmp_path)],
        check=True,
    )
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == [f"explorers.{kind}.min.js" for kind in sorted(KINDS)]
    for name in written:
        assert (ASSETS / name).read_bytes() == (tmp_path / name).read_bytes(), (
            f"{name}: run `make explorers`"
        )


def test_each_kind_s_script_holds_its_own_code_only() -> None:
    """A chart title each kind's code draws (a string, kept by the minifier) is in that kind's
    script and in no other: a chapter does not carry the other explorers' code."""
    for kind in KINDS:
        script = X._asset(f"explorers.{kind}.min.js")
        assert len(script) < 0.35 * len(X._asset("explorers.js")), kind
        for other, title in TITLES.items():
            assert X._asset("explorers.js").count(title) == 1, title
            assert (title in script) is (other == kind), (kind, other)


def test_uplot_version_is_the_locked_one() -> None:
    import json

    lock = json.loads((REPO / "package-lock.json").read_text())
    version = lock["packages"]["node_modules/uplot"]["version"]
    assert (
        json.loads((REPO / "package.json").read_text())["dependencies"]["uplot"]
        == version
    )
    assert "MIT License" in (ASSETS / "uPlot.LICENSE").read_text()


def test_assets_are_package_data() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "posenc_lib.course" in config["packages"]
    assert "assets/*" in config["package-data"]["posenc_lib.course"]


def test_output_is_self_contained_and_small() -> None:
    for make in FUNCTIONS:
        out = make()._repr_html_()
        # nothing loaded from elsewhere (uPlot's banner comment names its repository)
        for remote in ("src=", "href=", "url(", "fetch(", "XMLHttpRequest", "import("):
            assert remote not in out, (make, remote)
        assert out.count("<script>") == 3 and X._asset("uPlot.iife.min.js") in out
        assert X._asset(f"explorers.{make().kind}.min.js") in out
        assert make().weight < 75_000


def test_output_is_the_same_bytes_in_a_fresh_process() -> None:
    code = (
        "from posenc_lib.course import explorers as X;"
        "import hashlib, sys;"
        "h = [X.encoding_explorer(), X.kernel_explorer(dim=512), X.rotary_explorer(),"
        " X.scaling_explorer(method='llama3')];"
        "sys.stdout.write(hashlib.sha256(''.join(e._repr_html_() + repr(e) for e in h)"
        ".encode()).hexdigest())"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    }
    assert len(runs) == 1


def test_ids_differ_between_explorers_of_one_page() -> None:
    a, b = X.kernel_explorer(), X.kernel_explorer()
    assert a.element_id != b.element_id
    assert a._repr_html_().count(a.element_id) == 2  # the element and its mount call


@pytest.mark.parametrize(
    ("make", "kwargs", "name"),
    [
        (X.encoding_explorer, {"dim": 6}, "dim"),
        (X.encoding_explorer, {"base": 1.0}, "base"),
        (X.encoding_explorer, {"layout": "split"}, "layout"),
        (X.encoding_explorer, {"position": 64}, "position"),
        (X.encoding_explorer, {"length": 100}, "length"),
        (X.encoding_explorer, {"pair": -1}, "pair"),
        (X.kernel_explorer, {"max_offset": 5.0}, "max_offset"),
        (X.kernel_explorer, {"dim": True}, "dim"),
        (X.rotary_explorer, {"base": "1e4"}, "base"),
        (X.scaling_explorer, {"method": "longrope"}, "method"),
        (X.scaling_explorer, {"dim": 2}, "dim"),
        (X.scaling_explorer, {"factor": 3.0}, "factor"),
        (X.scaling_explorer, {"trained_length": 100}, "trained_length"),
    ],
)
def test_bad_arguments_name_themselves(make, kwargs, name) -> None:
    with pytest.raises(ValueError, match=rf"^{name} must be one of"):
        make(**kwargs)


def test_standalone_html_takes_explorers_only() -> None:
    with pytest.raises(TypeError, match=r"explorers\[1\] must be an Explorer"):
        X.standalone_html(X.kernel_explorer(), "<div>")
