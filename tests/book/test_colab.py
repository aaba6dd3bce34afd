"""The Colab edition (``colab/``, written by ``make colab``): no MyST left, in sync with the
chapters, every line of code kept, and an install cell that behaves.

The rendering in a browser (CommonMark + MathJax) is ``tests/book/browser/test_colab_render.py``;
running the editions top to bottom in a Colab-like environment is ``make check-colab``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import make_colab  # noqa: E402

CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
EDITIONS = sorted((ROOT / "colab").glob("*.ipynb"))
SOURCES = make_colab.sources()

# MyST that CommonMark + MathJax would show raw: name -> pattern (on markdown, line by line).
MYST_PATTERNS = {
    "role": re.compile(
        r"\{[A-Za-z][\w:+.-]*\}`"
    ),  # {cite}`k`, {eq}`l`, {numref}`f`, ...
    "backtick directive": re.compile(r"^[ >]*(`{3,}|~{3,})\s*\{"),  # ```{prf:theorem}
    "colon fence": re.compile(r"^[ >]*:{3,}"),  # :::{exercise} ... :::
    "target": re.compile(r"^[ >]*\([\w.:-]+\)=\s*$"),  # (ch5-decay)=
    "equation label": re.compile(r"\$\$\s*\([\w.:-]+\)\s*$"),  # $$ (ch5-kernel)
    "directive option": re.compile(r"^[ >]*:(label|class|name|nonumber|dropdown):"),
    "line comment": re.compile(r"^%"),  # % a MyST comment
    "block break": re.compile(r"^\+\+\+"),
    "substitution": re.compile(r"\{\{\s*[A-Za-z_][\w.]*\s*\}\}"),  # {{ name }}
}

# One line of each kind, as the chapters write them.
MYST_SAMPLES = {
    "role": "as {cite}`vaswani2017attention` showed, see {numref}`ch1-fig-naive`",
    "backtick directive": "```{prf:theorem} Uniqueness",
    "colon fence": ":::{solution} ch1-ex2",
    "target": "(ch2)=",
    "equation label": "$$ (ch2-shift)",
    "directive option": ":label: ch1-ex1",
    "line comment": "% a comment the book hides",
    "block break": "+++",
    "substitution": "the base is {{ base }}",
}

# CommonMark + MathJax that must pass: braces in TeX, code, links, HTML, ordinary parentheses.
CLEAN = """\
# Title
$x_{i} = \\begin{pmatrix} a \\\\ b \\end{pmatrix}$ and $$\\kappa(\\Delta) \\tag{5.3}$$
See (5.3) and [Fig. 5.1](https://example.org/book/notebooks/05.html#ch5-fig) (a) and (b).
> **Theorem 5.1 (Decay).** `code {not_a_role} x` and <details><summary>Solution</summary>
"""


def myst_leftovers(markdown: str) -> list[tuple[str, str]]:
    """(pattern name, line) for every line of ``markdown`` that holds MyST-only syntax."""
    found = []
    for line in markdown.splitlines():
        for name, pattern in MYST_PATTERNS.items():
            if pattern.search(line):
                found.append((name, line))
    return found


@pytest.mark.parametrize("name", MYST_PATTERNS)
def test_each_pattern_catches_its_sample(name):
    assert myst_leftovers(MYST_SAMPLES[name]) == [(name, MYST_SAMPLES[name])]


def test_patterns_pass_commonmark_and_mathjax():
    assert myst_leftovers(CLEAN) == []


def test_every_myst_sample_occurs_in_a_source_or_is_caught_anyway():
    # The samples are not invented: the common ones are what the chapters contain.
    text = "\n".join(
        cell.source
        for path in SOURCES
        for cell in nbformat.read(path, as_version=4).cells
        if cell.cell_type == "markdown"
    )
    kinds = {name for name, _ in myst_leftovers(text)}
    assert {
        "role",
        "colon fence",
        "target",
        "equation label",
        "directive option",
    } <= kinds


def test_an_edition_per_chapter_and_nothing_else():
    assert SOURCES, "no chapters found"
    assert [p.name for p in EDITIONS] == [p.name for p in SOURCES]


@pytest.mark.parametrize("path", EDITIONS, ids=lambda p: p.name)
def test_no_myst_in_the_colab_edition(path):
    notebook = nbformat.read(path, as_version=4)
    leftovers = [
        (index, name, line)
        for index, cell in enumerate(notebook.cells)
        if cell.cell_type == "markdown"
        for name, line in myst_leftovers(cell.source)
    ]
    assert leftovers == []


def test_colab_editions_are_in_sync_with_the_chapters():
    rendered = make_colab.render_all()
    stale = [
        name
        for name, text in rendered.items()
        if (ROOT / "colab" / name).read_text(encoding="utf-8") != text
    ]
    assert stale == [], f"run `make colab`: {stale}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_every_code_cell_of_the_chapter_is_kept(path):
    # Cells the book hides (remove-cell, remove-input) still run in Colab: a learner needs them.
    source_code = [
        c.source
        for c in nbformat.read(path, as_version=4).cells[1:]
        if c.cell_type == "code"
    ]
    edition = nbformat.read(ROOT / "colab" / path.name, as_version=4)
    code = [c for c in edition.cells if c.cell_type == "code"]
    assert [c.source for c in code[1:]] == source_code
    assert all(not c.outputs and c.execution_count is None for c in code)
    assert source_code  # the chapter was read


@pytest.mark.parametrize("path", EDITIONS, ids=lambda p: p.name)
def test_the_title_comes_first_then_the_install_cell(path):
    cells = nbformat.read(path, as_version=4).cells
    title = cells[0]
    assert title.cell_type == "markdown"
    # The chapter's title and nothing else (an anchor for links to the chapter aside).
    shown = [
        line for line in title.source.splitlines() if not line.startswith("<a id=")
    ]
    assert [line for line in shown if line.strip()] == [shown[-1]]
    assert shown[-1].startswith("# "), title.source
    install = next(c for c in cells if c.cell_type == "code")
    assert cells.index(install) <= 2  # after the title and the edition's note
    assert install.source == make_colab.install_cell()
    assert not set(install.metadata.get("tags", [])) & {"remove-cell", "hide-cell"}
    # One line in Colab: a form shows its #@title, not its code (which one click opens).
    assert install.metadata.get("cellView") == "form"
    assert install.source.splitlines()[0] == make_colab.INSTALL_TITLE


def test_install_cell_pins_the_configured_repository_and_version():
    source = make_colab.install_cell()
    assert f'REPO = "{CONFIG["repository"]["url"]}"' in source
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert CONFIG["colab"]["ref"] == f"v{version}", "colab.ref: the tag of this version"
    assert f'REF = "{CONFIG["colab"]["ref"]}"' in source
    assert max(len(line) for line in source.splitlines()) <= 88


def _run_install_cell(monkeypatch, *, importable: bool, returncode: int = 0):
    calls = []

    def fake_run(args, **kwargs):
        calls.append(args)
        stderr = "Traceback (most recent call last):\n" * 40 + "ERROR: no network\n"
        return subprocess.CompletedProcess(args, returncode, "", stderr)

    real_find_spec = importlib.util.find_spec

    def fake_find_spec(name, *args):
        if name == "posenc_lib" and not importable:
            return None
        return real_find_spec(name, *args)

    monkeypatch.setattr(subprocess, "run", fake_run)
    monkeypatch.setattr(importlib.util, "find_spec", fake_find_spec)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(make_colab.install_cell(), {"__name__": "__main__"})
    return calls, out.getvalue()


def test_install_cell_does_nothing_where_the_library_is_importable(monkeypatch):
    calls, printed = _run_install_cell(monkeypatch, importable=True)
    assert calls == [] and printed == ""


def test_install_cell_installs_the_pinned_version(monkeypatch):
    calls, printed = _run_install_cell(monkeypatch, importable=False)
    url, ref = CONFIG["repository"]["url"], CONFIG["colab"]["ref"]
    assert len(calls) == 1 and calls[0][1:] == [
        "-m", "pip", "install", "--quiet", f"posenc-lib[book] @ git+{url}@{ref}"
    ]  # fmt: skip
    assert printed.count("\n") == 1 and ref in printed


def test_install_cell_failure_prints_pips_reason_and_the_command(monkeypatch):
    calls, printed = _run_install_cell(monkeypatch, importable=False, returncode=1)
    url, ref = CONFIG["repository"]["url"], CONFIG["colab"]["ref"]
    assert len(calls) == 1
    reason, command = printed.splitlines()
    # pip's own reason (its last ERROR line, not the traceback above it), then the command.
    assert reason == "posenc_lib could not be installed: ERROR: no network", printed
    assert command == f'Run: pip install "posenc-lib[book] @ git+{url}@{ref}"'
    assert "Traceback" not in printed


def test_figure_captions_follow_their_figures():
    # Colab does not show mystnb captions: each figure cell is followed by its caption.
    for path in SOURCES:
        figures = [
            c.metadata["mystnb"]["figure"]["name"]
            for c in nbformat.read(path, as_version=4).cells
            if c.metadata.get("mystnb", {}).get("figure", {}).get("name")
        ]
        cells = json.loads((ROOT / "colab" / path.name).read_text())["cells"]
        captions = [
            "".join(c["source"])
            for c in cells
            if c["cell_type"] == "markdown"
            and re.match(r"(<a id=[^>]*></a>)?\*\*Fig\. ", "".join(c["source"]))
        ]
        assert len(captions) == len(figures), path.name


@pytest.mark.parametrize("path", EDITIONS, ids=lambda p: p.name)
def test_links_within_the_notebook_reach_an_anchor_in_it(path):
    # A reference to a target of the same chapter stays in the notebook: "#label" must name an
    # <a id="label"> of the notebook, and no link leaves for the book's copy of this chapter.
    text = "\n".join(
        "".join(c["source"])
        for c in json.loads(path.read_text())["cells"]
        if c["cell_type"] == "markdown"
    )
    ids = set(re.findall(r'<a id="([^"]+)"></a>', text))
    internal = re.findall(r"\]\(#([^)]+)\)", text)
    assert set(internal) <= ids, sorted(set(internal) - ids)
    own_page = make_colab.book_url() + f"notebooks/{path.stem}.html#"
    assert own_page not in text
    if path.stem != "90_claims_checked":  # the appendix refers to other chapters only
        assert internal, "no reference within the chapter"


@pytest.mark.parametrize("path", EDITIONS, ids=lambda p: p.name)
def test_citations_link_to_their_entry(path):
    text = path.read_text()
    refs = make_colab.book_url() + "book/references.html"
    assert text.count(refs + ")") == 0  # never the top of the page
    assert (
        re.findall(re.escape(refs) + r"#cite-[a-z0-9-]+\)", text)
        or "{cite" not in (ROOT / "notebooks" / path.name).read_text()
    )


def _launch_context(url: str) -> dict:
    colab = {"type": "link", "text": "Colab", "url": url}
    return {"header_buttons": [{"type": "group", "buttons": [colab]}]}


class _App:
    """What ``_ext/colab_launch.py`` reads of Sphinx's application."""

    def __init__(self, srcdir: Path):
        self.srcdir = str(srcdir)
        self.env = self

    def doc2path(self, pagename: str) -> str:
        return str(Path(self.srcdir) / f"{pagename}.ipynb")


def _colab_launch():
    sys.path.insert(0, str(ROOT / "_ext"))
    try:
        import colab_launch
    finally:
        sys.path.pop(0)
    return colab_launch


def test_colab_button_opens_the_colab_edition():
    repo = CONFIG["repository"]["url"].removeprefix("https://github.com/")
    base = f"https://colab.research.google.com/github/{repo}/blob/main/"
    context = _launch_context(base + "notebooks/01_why_position.ipynb")
    _colab_launch()._point_at_edition(
        _App(ROOT), "notebooks/01_why_position", "page.html", context, None
    )
    (button,) = context["header_buttons"][0]["buttons"]
    assert button["url"] == base + "colab/01_why_position.ipynb"
    assert (ROOT / "colab/01_why_position.ipynb").is_file()


def test_colab_button_without_an_edition_is_left_alone(tmp_path):
    (tmp_path / "notebooks").mkdir()
    url = (
        "https://colab.research.google.com/github/o/r/blob/main/notebooks/09_new.ipynb"
    )
    context = _launch_context(url)
    _colab_launch()._point_at_edition(
        _App(tmp_path), "notebooks/09_new", "page.html", context, None
    )
    assert context["header_buttons"][0]["buttons"][0]["url"] == url  # and a warning


def test_the_book_loads_the_colab_button_extension():
    assert CONFIG["sphinx"]["local_extensions"]["colab_launch"] == "_ext"
    assert (
        "colab" in CONFIG["exclude_patterns"]
    )  # the editions are not pages of the book
    assert CONFIG["launch_buttons"]["colab_url"] == "https://colab.research.google.com"


def test_install_cell_is_formatted_and_lint_clean(tmp_path):
    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.exists():
        pytest.skip("ruff not installed beside this Python")
    # Colab's form syntax, "#@title ...", is the one line a formatter would change (to
    # "# @title"): the rest is checked.
    source = make_colab.install_cell()
    assert source.startswith("#@title ")
    cell = tmp_path / "install_cell.py"
    cell.write_text(source.split("\n", 1)[1] + "\n")
    for command in (["format", "--check"], ["check", "--select", "E,F,W,I,B,UP"]):
        done = subprocess.run(
            [ruff, *command, "--line-length", "88", "--no-cache", cell],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--jobs", "0"], "--jobs: must be an integer >= 1, got '0'"),
        (["--jobs", "two"], "--jobs: must be an integer >= 1, got 'two'"),
        (["missing.ipynb"], "no such notebook: missing.ipynb"),
    ],
)
def test_check_colab_refuses_bad_flags_before_any_set_up(args, message):
    """A usage error in one line and exit status 2, before the venv is made (issue 16 §5)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "check_colab.py"), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr
    assert "venv" not in done.stdout + done.stderr
