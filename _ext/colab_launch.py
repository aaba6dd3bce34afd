"""Sphinx extension: each chapter's Colab button opens the chapter's Colab edition.

sphinx-book-theme's launch button opens the page's source, ``notebooks/<name>.ipynb``, whose
markdown is MyST that Colab shows raw. This points the Colab button of every notebook page at
``colab/<name>.ipynb`` (written by ``make colab``: CommonMark and MathJax only), in the same
repository and branch (``repository`` in ``_config.yml``, the one place they are set). A page
whose Colab edition is missing is a build warning, so ``make book`` (``-W``) fails on it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.util import logging

LOGGER = logging.getLogger(__name__)
EDITIONS = "colab"


def _colab_buttons(buttons: list[dict]) -> list[dict]:
    found = []
    for button in buttons:
        if button.get("type") == "group":
            found += _colab_buttons(button.get("buttons", []))
        elif button.get("text") == "Colab":
            found.append(button)
    return found


def _point_at_edition(
    app: Any, pagename: str, templatename: str, context: dict, doctree: Any
) -> None:
    buttons = _colab_buttons(context.get("header_buttons") or [])
    if not buttons:
        return
    source = Path(app.env.doc2path(pagename))
    edition = Path(app.srcdir) / EDITIONS / f"{source.stem}.ipynb"
    if not edition.is_file():
        LOGGER.warning(
            f"{pagename}: no Colab edition {EDITIONS}/{source.stem}.ipynb "
            "(run `make colab`)",
            location=pagename,
        )
        return
    relative = source.relative_to(Path(app.srcdir)).with_suffix(".ipynb").as_posix()
    for button in buttons:
        url = button["url"]
        if not url.endswith("/" + relative):
            LOGGER.warning(f"{pagename}: unexpected Colab URL {url}", location=pagename)
            continue
        button["url"] = url.removesuffix(relative) + f"{EDITIONS}/{source.stem}.ipynb"


def setup(app: Any) -> dict[str, Any]:
    # After sphinx-book-theme's add_launch_buttons (priority 501), before the page is written.
    app.connect("html-page-context", _point_at_edition, priority=502)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
