"""Sphinx extension: the book's page chrome on every screen.

What it adds to sphinx-book-theme 1.3 / pydata-sphinx-theme 0.17:

* ``_static/posenc.css`` and ``_static/posenc.js`` (Jupyter Book adds every file of
  ``_static`` to each page): the visible ☰ and contents buttons open the chapter list and the
  page contents on phones and tablets, and ☰ collapses the sidebar on desktop (the theme wires
  its handlers to a hidden duplicate button: pydata-sphinx-theme issue #2451,
  sphinx-book-theme issues #988 and #999, unfixed in sphinx-book-theme 1.3.0 and its main
  branch); the empty 64 px top bar is removed; the sidebar title is never clipped; display
  equations, inline formulas, tables and code scroll inside their own boxes, with a fade where
  content is hidden; search excerpts without raw TeX.
* ``templates/layout.html``: pages no longer load ``fontawesome.js`` (1.5 MB that turns icon
  elements into inline SVG; the theme's CSS draws the same icons from a font) nor the search
  index (140 kB; only ``search.html`` uses it), and the colour scheme follows the reader's
  setting from the first paint.

A change to ``_static/``, to the templates or to an extension of ``_ext/`` rewrites every page:
Sphinx copies static files only when some page is out of date, and tracks neither the project's
templates nor its extensions' code.

The assets themselves are slimmed at the end of the build by ``page_weight``.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

TEMPLATES = Path(__file__).resolve().parent / "templates"


def _configure(app: Any, config: Any) -> None:
    config.templates_path = [str(TEMPLATES), *config.templates_path]


def _chrome_digest(app: Any) -> str:
    digest = hashlib.sha256()
    for folder in (Path(app.srcdir) / "_static", TEMPLATES.parent):
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


def _outdated(app: Any, env: Any, added: set, changed: set, removed: set) -> list[str]:
    """Every page, when the static files or templates changed since the last build."""
    digest = _chrome_digest(app)
    if getattr(env, "posenc_chrome_digest", None) != digest:
        env.posenc_chrome_digest = digest
        return sorted(env.found_docs)
    return []


_HEADING = re.compile(r"(<h[1-6][^>]*>)(.*?)(</h[1-6]>)", re.S)
_CODE_WORD = re.compile(r'(<span class="pre">)([^<]+)(</span>)')


def heading_breaks(body: str) -> str:
    """Headings with a break opportunity after each ``.`` and ``_`` of their code
    (``posenc_lib.<wbr>angle_<wbr>addition``): posenc.css keeps code in headings from breaking
    anywhere else, so a narrow screen never splits a module name inside a word."""

    def code(match: re.Match) -> str:
        text = re.sub(r"([._])(?=[^._])", r"\1<wbr>", match.group(2))
        return match.group(1) + text + match.group(3)

    def heading(match: re.Match) -> str:
        return match.group(1) + _CODE_WORD.sub(code, match.group(2)) + match.group(3)

    return _HEADING.sub(heading, body)


def _page_context(
    app: Any, pagename: str, templatename: str, context: dict, doctree: Any
) -> None:
    if "body" in context:
        context["body"] = heading_breaks(context["body"])


def setup(app: Any) -> dict[str, Any]:
    app.connect("config-inited", _configure)
    app.connect("html-page-context", _page_context)
    app.connect("env-get-outdated", _outdated)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
