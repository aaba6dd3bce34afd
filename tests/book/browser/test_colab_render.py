"""The Colab edition (``colab/*.ipynb``) as Colab shows it: CommonMark and MathJax, no MyST.

Each edition's markdown cells are rendered with markdown-it-py's ``commonmark`` preset (raw
HTML on, for the ``<details>`` of solutions; tables, which Colab renders), math kept out of the
markdown as Jupyter and Colab keep it (``$...$`` and ``$$...$$`` go to MathJax untouched), on
a page that loads MathJax from ``_extra/mathjax`` with the TeX input and CommonHTML output the
book uses, without the extensions MathJax loads on demand (Colab's need not have them). In
headless Chromium the page must show no MathJax error (``mjx-merror``), no undefined macro, no
raw TeX, and no raw MyST: a role (``{cite}``), a directive fence (```` ```{prf:theorem} ````,
``:::{exercise}``), a ``(label)=`` target. Screenshots: ``_build/screenshots/colab-<name>.png``.
A fixture notebook per defect must be caught.
"""

from __future__ import annotations

import html
import os
import re
import shutil
from pathlib import Path

import html_checker
import nbformat
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

ROOT = Path(__file__).resolve().parents[3]
EDITIONS = sorted((ROOT / "colab").glob("*.ipynb"))
SCREENSHOTS = Path(os.environ.get("SCREENSHOTS_DIR") or ROOT / "_build" / "screenshots")
if not SCREENSHOTS.is_absolute():
    SCREENSHOTS = ROOT / SCREENSHOTS
TIMEOUT_MS = 60_000

# MyST that survives CommonMark as visible text (outside code and math).
RAW_MYST = {
    # {cite} right before the code span CommonMark makes of `key`
    "role": re.compile(r"\{[A-Za-z][\w:+.-]*\}$"),
    "colon fence": re.compile(r":::"),
    "target": re.compile(r"\([\w.:-]+\)="),
}


def _math(content: str, config: dict) -> str:
    if config.get("display_mode"):
        return f'<div class="math">\\[{html.escape(content)}\\]</div>'
    return f'<span class="math">\\({html.escape(content)}\\)</span>'


MD = (
    MarkdownIt("commonmark", {"html": True})
    .enable("table")
    .use(dollarmath_plugin, allow_labels=False, double_inline=True, renderer=_math)
)

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<script>
window.MathJax = {{
  loader: {{load: ["input/tex", "output/chtml"], paths: {{fonts: "[mathjax]/fonts"}}}},
  tex: {{
    inlineMath: [["\\\\(", "\\\\)"]], displayMath: [["\\\\[", "\\\\]"]],
    // TeX base and AMS only, as any MathJax has them: a macro of an extension that MathJax
    // would fetch on demand (autoload) is reported as undefined instead.
    packages: {{"[-]": ["autoload", "require"]}},
  }},
}};
</script>
<script defer src="mathjax/startup.js"></script>
<style>
body {{ max-width: 52rem; margin: 1rem auto; font: 15px/1.5 sans-serif; }}
.cell {{ border-top: 1px solid #ddd; padding: 0.2rem 0; }}
pre {{ background: #f5f5f5; padding: 0.5rem; overflow-x: auto; font-size: 12px; }}
blockquote {{ border-left: 3px solid #aaa; margin-left: 0; padding-left: 1rem; }}
</style></head>
<body>
{cells}
<script>document.querySelectorAll("details").forEach((d) => {{ d.open = true; }});</script>
</body></html>
"""


def render(notebook: nbformat.NotebookNode, title: str) -> str:
    """The notebook as a page: markdown through CommonMark, code cells as code blocks."""
    cells = []
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            cells.append(f'<div class="cell markdown">{MD.render(cell.source)}</div>')
        elif cell.cell_type == "code":
            code = html.escape(cell.source)
            cells.append(f'<div class="cell code"><pre><code>{code}</code></pre></div>')
    return PAGE.format(title=html.escape(title), cells="\n".join(cells))


# Code blocks whose info string is a directive, ```{name}: a fence CommonMark shows as code.
_DIRECTIVE_CODE_JS = """
() => Array.from(document.querySelectorAll("pre > code[class]"))
    .map((el) => el.className).filter((name) => /language-\\{/.test(name))
"""


def check_pages(
    chromium: str, site: Path, pages: list[str], screenshots: Path | None
) -> dict[str, list[tuple[str, str]]]:
    """Page -> (kind, detail) of every problem found on it."""
    from playwright.sync_api import sync_playwright

    found: dict[str, list[tuple[str, str]]] = {}
    with html_checker.serve(site) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium, headless=True, args=html_checker.CHROMIUM_ARGS
        )
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 800})
            for name in pages:
                problems: list[tuple[str, str]] = []
                page.goto(base + name, wait_until="load", timeout=TIMEOUT_MS)
                settled = page.evaluate(html_checker._SETTLE_JS, TIMEOUT_MS)
                if settled["mathjax"] != "done":
                    problems.append(("mathjax-error", f"MathJax {settled}"))
                seen = page.evaluate(html_checker._INSPECT_JS)
                problems += [("mathjax-error", m) for m in seen["merrors"]]
                problems += [("undefined-macro", m) for m in seen["undefinedMacros"]]
                problems += [
                    ("raw-tex", m) for m in html_checker._raw_tex(seen["texts"])
                ]
                problems += [("stray-dollar", m) for m in seen["strays"]]
                for text in seen["texts"]:
                    for kind, pattern in RAW_MYST.items():
                        if pattern.search(text.rstrip()):
                            problems.append((f"raw-myst-{kind}", text.strip()[:120]))
                for info in page.evaluate(_DIRECTIVE_CODE_JS):
                    problems.append(("raw-myst-directive", info))
                if screenshots is not None:
                    screenshots.mkdir(parents=True, exist_ok=True)
                    shot = screenshots / f"colab-{Path(name).stem}.png"
                    page.screenshot(path=str(shot), full_page=True)
                found[name] = problems
        finally:
            browser.close()
    return found


def _site(
    tmp: Path, mathjax: Path, notebooks: dict[str, nbformat.NotebookNode]
) -> Path:
    site = tmp / "site"
    site.mkdir()
    (site / "mathjax").symlink_to(mathjax, target_is_directory=True)
    for name, notebook in notebooks.items():
        (site / f"{name}.html").write_text(render(notebook, name), encoding="utf-8")
    return site


def test_colab_editions_render_without_mathjax_errors_or_myst(
    chromium: str, mathjax_dir: Path, tmp_path: Path
) -> None:
    assert EDITIONS, "no Colab editions: run `make colab`"
    notebooks = {p.stem: nbformat.read(p, as_version=4) for p in EDITIONS}
    site = _site(tmp_path, mathjax_dir, notebooks)
    found = check_pages(chromium, site, [f"{n}.html" for n in notebooks], SCREENSHOTS)
    assert {page: problems for page, problems in found.items() if problems} == {}
    for name in notebooks:
        assert (SCREENSHOTS / f"colab-{name}.png").stat().st_size > 10_000


BROKEN = [
    ("raw-myst-role", "As {cite}`vaswani2017attention` showed."),
    ("raw-myst-directive", "```{prf:theorem} Uniqueness\nA statement.\n```"),
    ("raw-myst-colon fence", ":::{exercise}\nDo it.\n:::"),
    ("raw-myst-target", "(ch2)=\n# A chapter"),
    ("undefined-macro", "A macro no MathJax has: $\\notamacro{x}$."),
    ("undefined-macro", "A macro of an extension: $\\cancel{x}$."),
    ("mathjax-error", "A double exponent: $x^2^3$."),
]


def test_the_render_check_catches_each_defect(
    chromium: str, mathjax_dir: Path, tmp_path: Path
) -> None:
    cell = nbformat.v4.new_markdown_cell
    notebooks = {
        f"broken-{i}": nbformat.v4.new_notebook(cells=[cell(text)])
        for i, (_, text) in enumerate(BROKEN)
    }
    good = (
        "$$\n\\kappa(\\Delta) = 1 \\tag{5.3}\n$$\n\n**Theorem 5.1 (Decay).** See (5.3)."
    )
    notebooks["good"] = nbformat.v4.new_notebook(
        cells=[
            cell(good),
            cell("<details>\n<summary>Solution</summary>\n\n$x_1$\n\n</details>"),
        ]
    )
    site = _site(tmp_path, mathjax_dir, notebooks)
    found = check_pages(chromium, site, [f"{n}.html" for n in notebooks], None)
    assert found.pop("good.html") == []
    for (kind, text), page in zip(BROKEN, sorted(found), strict=True):
        kinds = {k for k, _ in found[page]}
        assert kind in kinds, (text, found[page])
    shutil.rmtree(site)
