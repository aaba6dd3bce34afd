"""The Colab edition's numbers are the book's (run by `make check-book` after `make book`).

``scripts/make_colab.py`` numbers equations, figures, exercises and theorem-like statements
itself, from the sources, so that ``make colab`` needs no build. Here that numbering is
compared with what the built HTML shows: every displayed equation number, every caption number
("Fig. 5.2", "Theorem 4.1", "Exercise 3.2"), in page order, on every page of the book; and the
citation labels the Colab edition prints with the reference list's.
"""

from __future__ import annotations

import html
import json
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
HTML = Path(os.environ.get("BOOK_HTML_DIR") or ROOT / "_build" / "html")
sys.path.insert(0, str(ROOT / "scripts"))
import make_colab  # noqa: E402

pytestmark = pytest.mark.skipif(
    not (HTML / "notebooks").is_dir(), reason="no built book: run `make book` first"
)

EQNO = re.compile(
    r'<span class="eqno">\(([^)<]*)\)<a class="headerlink" href="#equation-([^"]+)"'
)
CAPTION = re.compile(r'<span class="caption-number">([^<]*?) ([\d.]+) </span>')
WORDS = {"figure": "Fig.", "exercise": "Exercise"}
BOOK = make_colab.build_book()


def _shown(doc: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(equation label, number) and (kind word, number) in the order the page shows them."""
    page = (HTML / f"{doc}.html").read_text(encoding="utf-8")
    equations = [(label, number) for number, label in EQNO.findall(page)]
    return equations, CAPTION.findall(page)


def _computed(doc: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    items = [item for item in BOOK.items if item[0] == doc]
    equations = [(label, n) for _, kind, n, label in items if kind == "equation"]
    captions = [
        (WORDS.get(kind, kind.title()), n)
        for _, kind, n, _ in items
        if kind != "equation"
    ]
    return equations, captions


@pytest.mark.parametrize("doc", BOOK.docs)
def test_colab_numbers_equal_the_built_book(doc):
    if not (HTML / f"{doc}.html").is_file():
        pytest.skip(f"{doc}.html not built")
    shown_eqs, shown_captions = _shown(doc)
    eqs, captions = _computed(doc)
    assert eqs == shown_eqs
    assert captions == shown_captions


def test_the_comparison_sees_numbers():
    # A chapter with equations, figures, theorems and exercises: the patterns above match.
    eqs, captions = _shown("notebooks/01_why_position")
    assert len(eqs) >= 3 and eqs[0][1] == "1.1"
    kinds = {word for word, _ in captions}
    assert {"Fig.", "Theorem", "Exercise"} <= kinds, kinds


_LABEL = re.compile(
    r'<div class="citation" id="[^"]+"[^>]*>\s*<span class="label"><span class="fn-bracket">\['
    r"</span>(.*?)<span"
)


def test_colab_citation_labels_are_the_reference_lists():
    page = (HTML / "book/references.html").read_text(encoding="utf-8")
    shown = {html.unescape(label) for label in _LABEL.findall(page)}
    assert shown and set(BOOK.citations.values()) == shown


def test_colab_editions_print_only_labels_of_the_reference_list():
    page = (HTML / "book/references.html").read_text(encoding="utf-8")
    shown = {html.unescape(label) for label in _LABEL.findall(page)}
    references = make_colab.book_url() + "book/references.html"
    cited = set()
    for path in sorted((ROOT / "colab").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] == "markdown":
                text = "".join(cell["source"])
                cited |= set(
                    re.findall(r"\[([^\]]+)\]\(" + re.escape(references), text)
                )
    assert cited and cited <= shown, cited - shown
