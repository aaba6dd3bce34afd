"""Sphinx extension: one citation style, author–year, in the text and in the reference list.

sphinxcontrib-bibtex's ``author_year`` style wrote "Vaswani et al., 2017" in the text while
the ``plain`` bibliography numbered its list [1]–[36], so a reader could not find a citation by
its label. Here the bibliography's labels are the author–year text itself ("Vaswani et al.,
2017"; "a", "b" after the year where two sources would read the same), the list is sorted by
author and year, and ``bibtex_reference_style: label`` (``_config.yml``) prints exactly that
label in the text: one label per source, identical in both places.

``_config.yml``: ``bibtex_default_style: posenc``, ``bibtex_reference_style: label``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from pybtex.plugin import register_plugin
from pybtex.style.formatting.plain import Style as PlainStyle
from pybtex.style.labels import BaseLabelStyle
from pybtex.style.sorting import BaseSortingStyle


def _text(rich: Any) -> str:
    return rich.render_as("text")


def _last_names(entry: Any) -> list[str]:
    persons = entry.persons.get("author") or entry.persons.get("editor") or []
    return [
        " ".join(_text(part) for part in person.rich_last_names) for person in persons
    ]


def author_year(entry: Any) -> str:
    """``Su, 2021``; ``Press and Smith, 2022``; ``Vaswani et al., 2017``; a group author as
    written (``PyTorch contributors, 2023``); ``n.d.`` where the source has no year."""
    names = _last_names(entry)
    if not names:
        who = entry.key
    elif len(names) == 1:
        who = names[0]
    elif len(names) == 2:
        who = f"{names[0]} and {names[1]}"
    else:
        who = f"{names[0]} et al."
    return f"{who}, {entry.fields.get('year', 'n.d.')}"


class AuthorYearLabels(BaseLabelStyle):
    """Labels that read like the author–year citation, unique within the bibliography."""

    def format_labels(self, sorted_entries: Iterable[Any]) -> Iterator[str]:
        entries = list(sorted_entries)
        labels = [author_year(entry) for entry in entries]
        counts = Counter(labels)
        seen: Counter[str] = Counter()
        for label in labels:
            if counts[label] > 1:
                seen[label] += 1
                letter = "abcdefghijklmnopqrstuvwxyz"[seen[label] - 1]
                yield (
                    f"{label}-{letter}"
                    if label.endswith("n.d.")
                    else f"{label}{letter}"
                )
            else:
                yield label


class AuthorYearSorting(BaseSortingStyle):
    """Alphabetical by first author as the label shows it (pybtex's own author sort puts
    group authors written in braces, such as ``{PyTorch contributors}``, after Z), one author
    before two before more, then by year and title."""

    def sorting_key(self, entry: Any) -> tuple[str, int, str, str]:
        names = _last_names(entry) or [entry.key]
        return (
            names[0].casefold(),
            min(len(names), 3),  # Su, 2021 before Su et al., 2021
            entry.fields.get("year", "n.d."),
            entry.fields.get("title", "").casefold(),
        )


class Style(PlainStyle):
    """pybtex's ``plain`` entries, sorted by author and year, labelled author–year."""

    default_label_style = AuthorYearLabels
    default_sorting_style = AuthorYearSorting


register_plugin("pybtex.style.formatting", "posenc", Style)


def setup(app: Any) -> dict[str, Any]:
    return {"parallel_read_safe": True, "parallel_write_safe": True}
