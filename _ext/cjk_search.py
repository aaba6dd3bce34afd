"""Sphinx extension: the search box finds the glossary's Chinese terms.

Sphinx's English search splits text at non-word characters, so a run of Chinese characters
such as ``正弦位置编码`` is one "word" and a search for ``正弦`` found nothing. Here every run of
CJK ideographs is indexed as its characters and its overlapping pairs of characters (the usual
bigram indexing of Chinese), and the search page splits a query the same way, so ``正弦``,
``位置编码`` or ``编码`` each find the pages holding them (a query of several pairs needs all of
them, as a multi-word query does). English text is indexed and searched exactly as before.
"""

from __future__ import annotations

import re
from typing import Any

from sphinx.search.en import SearchEnglish

#: CJK Unified Ideographs, Extension A and the compatibility block.
CJK_RANGES = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RUN = re.compile(f"[{CJK_RANGES}]+")


def index_terms(word: str) -> list[str]:
    """The terms a word is indexed under: its non-CJK parts as they are, and each run of CJK
    ideographs as its characters and its overlapping character pairs."""
    terms = _CJK_RUN.sub(" ", word).split()
    for run in _CJK_RUN.findall(word):
        terms += list(run)
        terms += [run[i : i + 2] for i in range(len(run) - 1)]
    return terms


def query_terms(word: str) -> list[str]:
    """The terms a query word is looked up by: a lone ideograph as itself, a longer run as its
    overlapping pairs (the JavaScript ``splitQuery`` below does the same)."""
    terms = _CJK_RUN.sub(" ", word).split()
    for run in _CJK_RUN.findall(word):
        terms += (
            [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
        )
    return terms


_JS_SPLITTER = """
function splitQuery(query) {
  const cjk = /[CJK_RANGES]+/gu;
  const terms = [];
  for (const word of query.split(/[^\\p{Letter}\\p{Number}_\\p{Emoji_Presentation}]+/gu)) {
    if (!word) continue;
    for (const rest of word.replace(cjk, " ").split(" ")) if (rest) terms.push(rest);
    for (const run of word.match(cjk) || []) {
      if (run.length === 1) terms.push(run);
      else for (let i = 0; i + 1 < run.length; i++) terms.push(run.slice(i, i + 2));
    }
  }
  return terms;
}
""".replace("CJK_RANGES", CJK_RANGES)


class SearchEnglishCJK(SearchEnglish):
    """English search whose index also holds the characters and pairs of Chinese text."""

    lang = "en"
    js_splitter_code = _JS_SPLITTER

    def split(self, input: str) -> list[str]:
        return [term for word in super().split(input) for term in index_terms(word)]


def setup(app: Any) -> dict[str, Any]:
    app.add_search_language(SearchEnglishCJK)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
