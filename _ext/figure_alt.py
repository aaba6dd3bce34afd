"""Sphinx extension: a figure's image says what its caption says (its alt text).

myst-nb writes a code cell's figure (cell metadata ``myst.figure``) as an image with no alt
text, which Sphinx's HTML writer replaces by the image's file path
(``alt="../_images/d1da…png"``): a screen reader reads out a hash. Each image inside a figure
with a caption, and without alt text of its own, gets the caption's text instead (TeX in the
caption stays as its source, which screen readers spell out).
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes


def alt_from_caption(caption: str) -> str:
    """The caption as one line of alt text (whitespace collapsed)."""
    return re.sub(r"\s+", " ", caption).strip()


def _no_alt(image: nodes.image) -> bool:
    alt = (image.get("alt") or "").strip()
    return (
        not alt
        or alt == image.get("uri")
        or alt == image.get("candidates", {}).get("*")
    )


def set_figure_alt(app: Any, doctree: nodes.document, docname: str) -> None:
    for figure in doctree.findall(nodes.figure):
        captions = list(figure.findall(nodes.caption))
        if not captions:
            continue
        text = alt_from_caption(captions[0].astext())
        for image in figure.findall(nodes.image):
            if text and _no_alt(image):
                image["alt"] = text


def setup(app: Any) -> dict[str, Any]:
    app.connect("doctree-resolved", set_figure_alt)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
