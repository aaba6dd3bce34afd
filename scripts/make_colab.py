"""Write the Colab edition of every chapter (``make colab``): ``colab/<name>.ipynb``.

Colab renders a notebook's markdown as CommonMark with MathJax; the chapters in ``notebooks/``
are written for the book's MyST renderer (roles, directives, labels). This script parses each
markdown cell with markdown-it-py and the MyST plugins of mdit-py-plugins (the parser
myst-parser itself uses) and writes the same content with CommonMark and MathJax only:

- ``{cite}`` -> "(Vaswani et al., 2017)", the book's label of the source (the same pybtex
  style as ``_ext/citation_style.py``), linked to the book's references page;
- ``{eq}`` -> "(5.3)"; every labelled display equation carries ``\\tag{5.3}``;
- ``{ref}``, ``{numref}``, ``{prf:ref}``, ``{doc}`` -> the target's title or number
  ("Fig. 5.2", "Theorem 4.1"), linked to the target on the book's page (an ``{eq}`` only
  when the equation is on another page);
- ``prf:theorem`` and the other numbered statements -> a bold heading and the statement; a
  ``prf:proof`` -> a blockquote; ``exercise`` -> a bold heading, always visible; ``solution``
  -> a ``<details>`` block (``solution-start`` / ``solution-end``, whose code cells run, ->
  the explanation in ``<details>`` and the code cells as they are); ``admonition`` and the
  named admonitions -> a blockquote with a bold title; ``(label)=`` targets and labelled
  equations, statements and figures get an empty ``<a id="label">`` (``equation-label``), and
  a reference to a target in the same notebook links there (``#label``), not to the book;
  a citation links to its entry in the reference list (``#cite-key``);
- a figure cell's caption (``mystnb.figure`` metadata) -> a markdown cell under it,
  "**Fig. 5.2.** caption";
- cell 1, the install cell, is replaced by the Colab install cell (``install_cell``): visible
  (a one-line form in Colab), pinned to ``colab.ref`` in ``_config.yml``, and placed after the
  chapter's title and a note on the edition. Other cells tagged ``remove-cell`` or
  ``remove-input`` keep their code: in Colab a learner needs everything that runs;
- a check cell (tag ``check``, first line ``# @title ✓ verdict``, see ``scripts/lesson.py``)
  -> a form cell (``cellView: form``): Colab shows the verdict and collapses the code.

Outputs are cleared (see README, "Colab edition"). Numbers are the book's: ``Book`` numbers
equations, figures, exercises and each kind of theorem per chapter in the order Sphinx does
(``numfig_secnum_depth: 1``; pages outside the numbered part share one counter), and
``tests/book/built/test_colab_numbers.py`` compares them with the built HTML.

Usage::

    python scripts/make_colab.py [--out DIR] [--check]

``--check`` writes nothing and exits 1 when ``colab/`` differs from what would be written.
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import nbformat
import yaml
from markdown_it import MarkdownIt
from mdit_py_plugins.amsmath import amsmath_plugin
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin
from mdit_py_plugins.myst_role import myst_role_plugin

sys.path.insert(
    0, str(Path(__file__).resolve().parents[1])
)  # the library, when not installed
from _cli import interrupt_once, report_write_error, write_atomic

REPO = Path(__file__).resolve().parents[1]
CONFIG = yaml.safe_load((REPO / "_config.yml").read_text(encoding="utf-8"))
OUT = REPO / "colab"

# The notebooks that get a Colab edition: the chapters and the appendix of claims checked.
SOURCES = ("notebooks/[0-9][0-9]_*.ipynb",)  # the chapters and the appendix

# Statements of sphinx-proof that are numbered, each kind with its own counter (its default
# ``prf_realtyp_to_countertyp``); ``proof`` is not numbered.
PROOF_KINDS = (
    "theorem lemma definition remark conjecture corollary algorithm criterion example "
    "property observation proposition assumption notation"
).split()
ADMONITIONS = (
    "attention caution danger error hint important note seealso tip warning"
).split()
# Sphinx's numfig_format for figures, and sphinx-exercise's for exercises.
FIGURE_FORMAT = "Fig. %s"
EXERCISE_FORMAT = "Exercise %s"


def parser() -> MarkdownIt:
    """markdown-it-py with the MyST syntax the book enables (``parse`` in ``_config.yml``)."""
    return (
        MarkdownIt("commonmark")
        .enable("table")
        .use(front_matter_plugin)
        .use(myst_block_plugin)
        .use(myst_role_plugin)
        .use(dollarmath_plugin, allow_labels=True, double_inline=True)
        .use(amsmath_plugin)
        .use(colon_fence_plugin)
        .use(deflist_plugin)
    )


MD = parser()


# --------------------------------------------------------------------------------------------
# Where the book lives, and what the install cell installs: both from _config.yml.


def book_url(config: dict = CONFIG) -> str:
    """The published book: ``html.baseurl`` when set, else the GitHub Pages site of
    ``repository.url`` (https://github.com/OWNER/REPO -> https://OWNER.github.io/REPO/)."""
    base = (config.get("html") or {}).get("baseurl")
    if base:
        return base.rstrip("/") + "/"
    owner, name = urlsplit(config["repository"]["url"]).path.strip("/").split("/")[:2]
    return f"https://{owner.lower()}.github.io/{name.removesuffix('.git')}/"


def colab_ref(config: dict = CONFIG) -> str:
    """The tag or commit of the library that the Colab install cell installs."""
    return str(config["colab"]["ref"])


#: The install cell's first line: in Colab a form cell (``cellView: form``) shows this title,
#: not the code, so the cell takes one line under the chapter's title.
INSTALL_TITLE = "#@title Install the companion library posenc_lib (run this cell first)"


def install_cell(config: dict = CONFIG) -> str:
    """The Colab edition's install cell: installs posenc_lib at ``colab.ref`` unless importable;
    on failure pip's own reason in one line (its last ``ERROR:`` line) and the command to run
    by hand, no traceback. ``make check-colab`` runs this code with ``REPO`` pointed at a local
    copy of the repository."""
    return f'''\
{INSTALL_TITLE}
# posenc_lib at the book's version; nothing to do where it can be imported already.
import importlib
import importlib.util
import subprocess
import sys

REPO = "{config["repository"]["url"]}"
REF = "{colab_ref(config)}"
if importlib.util.find_spec("posenc_lib") is None:
    SPEC = f"posenc-lib[book] @ git+{{REPO}}@{{REF}}"
    pip = [sys.executable, "-m", "pip", "install", "--quiet", SPEC]
    done = subprocess.run(pip, capture_output=True, text=True)
    if done.returncode == 0:
        importlib.invalidate_caches()  # so that the next cell's import finds it
        print(f"Installed posenc_lib {{REF}} from {{REPO}}")
    else:
        said = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        errors = [line for line in said if line.startswith("ERROR")] or said
        reason = errors[-1] if errors else f"pip exited with {{done.returncode}}"
        print(f"posenc_lib could not be installed: {{reason}}")
        print(f'Run: pip install "{{SPEC}}"')'''


# --------------------------------------------------------------------------------------------
# The book's numbering.


@dataclass
class Target:
    kind: str  # section, equation, figure, exercise, or a sphinx-proof kind
    doc: str  # docname, e.g. notebooks/05_long_range_decay
    number: str = ""  # "5.3"; "" for a section
    title: str = ""  # a section's or a statement's title (markdown)


@dataclass
class Book:
    """Every label of the book with its page, number and title, numbered as Sphinx does."""

    docs: list[str] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)
    labels: dict[str, Target] = field(default_factory=dict)
    citations: dict[str, str] = field(default_factory=dict)
    # Every numbered item in page order: (doc, kind, number, label or ""); kind is
    # "equation", "figure", "exercise" or a sphinx-proof kind such as "theorem".
    items: list[tuple[str, str, str, str]] = field(default_factory=list)
    _counters: dict[tuple, int] = field(default_factory=dict)

    def url(self, doc: str, anchor: str = "") -> str:
        return book_url() + doc + ".html" + (f"#{anchor}" if anchor else "")

    def _next(self, kind: str, chapter: int | None, doc: str, label: str) -> str:
        """The next number of ``kind``: per chapter ("5.3"); pages outside the numbered part
        share one counter ("3"), as Sphinx numbers them with ``numfig_secnum_depth: 1``."""
        key = (kind, chapter)
        self._counters[key] = self._counters.get(key, 0) + 1
        n = self._counters[key]
        number = f"{chapter}.{n}" if chapter is not None else str(n)
        self.items.append((doc, kind.removeprefix("prf:"), number, label or ""))
        return number

    def scan(self, doc: str, chapter: int | None) -> None:
        self.docs.append(doc)
        for kind, item in doc_items(doc):
            if kind == "markdown":
                self._scan_markdown(item, doc, chapter)
            elif kind == "figure":
                number = self._next("figure", chapter, doc, item["name"])
                self.labels[item["name"]] = Target("figure", doc, number)

    def _scan_markdown(self, text: str, doc: str, chapter: int | None) -> None:
        pending: list[str] = []
        tokens = MD.parse(text)
        for i, token in enumerate(tokens):
            if token.type == "myst_target":
                pending.append(token.content.strip())
            elif token.type == "heading_open":
                title = tokens[i + 1].content
                self.titles.setdefault(doc, title)
                for label in pending:
                    self.labels[label] = Target("section", doc, title=title)
                pending = []
            elif token.type == "math_block_label":
                number = self._next("equation", chapter, doc, token.info)
                self.labels[token.info] = Target("equation", doc, number)
            elif token.type in ("fence", "colon_fence") and is_directive(token):
                name, arg, options, body = directive(token)
                label = options.get("label") or options.get("name")
                if "nonumber" in options:
                    number = ""
                elif name in [f"prf:{k}" for k in PROOF_KINDS]:
                    number = self._next(name, chapter, doc, label)
                elif name == "exercise":
                    number = self._next("exercise", chapter, doc, label)
                elif name == "figure" and label:
                    number = self._next("figure", chapter, doc, label)
                elif name == "math" and label:
                    number = self._next("equation", chapter, doc, label)
                else:
                    number = ""
                if label:
                    kind = name.removeprefix("prf:")
                    self.labels[label] = Target(kind, doc, number, title=arg)
                if name not in ("eval-rst", "bibliography", "glossary", "code-cell"):
                    self._scan_markdown(body, doc, chapter)
            elif token.type in ("paragraph_open", "bullet_list_open", "fence"):
                pending = []


def toc_docs() -> list[tuple[str, int | None]]:
    """The book's pages in the order of ``_toc.yml``, each with its chapter number (None for
    a page outside a numbered part)."""
    toc = yaml.safe_load((REPO / "_toc.yml").read_text(encoding="utf-8"))
    pages: list[tuple[str, int | None]] = [(toc["root"], None)]

    def walk(entries: list, numbered: bool, counter: list[int]) -> None:
        for entry in entries:
            if "file" in entry:
                number = None
                if numbered:
                    counter[0] += 1
                    number = counter[0]
                pages.append((entry["file"], number))
            for key in ("sections", "chapters"):
                if key in entry:
                    walk(entry[key], numbered, counter)

    for part in toc.get("parts", []):
        walk(part["chapters"], bool(part.get("numbered")), [0])
    walk(toc.get("chapters", []), False, [0])
    return pages


def source_path(doc: str) -> Path:
    for suffix in (".ipynb", ".md"):
        if (REPO / f"{doc}{suffix}").is_file():
            return REPO / f"{doc}{suffix}"
    raise FileNotFoundError(doc)


def doc_items(doc: str):
    """('markdown', text) and ('figure', {name, caption}) in page order."""
    path = source_path(doc)
    if path.suffix == ".md":
        yield "markdown", path.read_text(encoding="utf-8")
        return
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "markdown":
            yield "markdown", cell.source
        elif cell.cell_type == "code":
            figure = cell.metadata.get("mystnb", {}).get("figure")
            if figure and figure.get("name"):
                yield "figure", figure


def read_citations() -> dict[str, str]:
    """Key -> the book's label ("Vaswani et al., 2017"), as _ext/citation_style.py makes them
    for the reference list (``:all:`` entries, sorted by its sorting style)."""
    from pybtex.database import parse_file

    sys.path.insert(0, str(REPO / "_ext"))
    try:
        import citation_style
    finally:
        sys.path.pop(0)
    entries = []
    for name in CONFIG["bibtex_bibfiles"]:
        entries += list(parse_file(str(REPO / name)).entries.values())
    ordered = citation_style.AuthorYearSorting().sort(entries)
    labels = citation_style.AuthorYearLabels().format_labels(ordered)
    return {entry.key: label for entry, label in zip(ordered, labels, strict=True)}


def build_book() -> Book:
    book = Book()
    for doc, chapter in toc_docs():
        book.scan(doc, chapter)
    book.citations = read_citations()
    return book


# --------------------------------------------------------------------------------------------
# Directives.


def is_directive(token) -> bool:
    return token.info.strip().startswith("{")


def directive(token) -> tuple[str, str, dict[str, str], str]:
    """(name, argument, options, body) of a ```{name} arg or :::{name} arg fence."""
    match = re.fullmatch(r"\{([^}\s]+)\}\s*(.*)", token.info.strip(), re.S)
    if not match:
        raise ValueError(f"not a directive: {token.info!r}")
    name, arg = match.group(1), match.group(2).strip()
    lines = token.content.splitlines()
    options: dict[str, str] = {}
    if lines and lines[0].strip() == "---":  # a YAML block of options
        end = lines.index("---", 1)
        options = {
            k: str(v)
            for k, v in (yaml.safe_load("\n".join(lines[1:end])) or {}).items()
        }
        lines = lines[end + 1 :]
    else:
        while lines and (
            option := re.fullmatch(r":([\w-]+):\s*(.*)", lines[0].strip())
        ):
            options[option.group(1)] = option.group(2).strip()
            lines = lines[1:]
    return name, arg, options, "\n".join(lines).strip("\n")


def bold_heading(head: str, title: str = "") -> str:
    """``**Theorem 4.1 (Title).**``"""
    return f"**{head} ({title}).**" if title else f"**{head}.**"


def blockquote(text: str) -> str:
    return "\n".join(f"> {line}" if line.strip() else ">" for line in text.split("\n"))


# --------------------------------------------------------------------------------------------
# Markdown conversion.


def anchor(label: str) -> str:
    """The place a link in the same notebook jumps to: an empty HTML anchor, which CommonMark
    passes through and every notebook renderer keeps (a label's characters are already those
    of an HTML id: letters, digits, ``-``, ``_``, ``:``)."""
    if not re.fullmatch(r"[A-Za-z0-9_:.-]+", label):
        raise ValueError(f"label {label!r} cannot be an HTML id")
    return f'<a id="{label}"></a>'


def citation_url(book: Book, key: str) -> str:
    """The reference list's entry of ``key``: its id is ``bibtex_cite_id`` of _config.yml
    (``cite-{key}``), made an id as docutils makes ids."""
    from docutils.nodes import make_id

    template = CONFIG["sphinx"]["config"]["bibtex_cite_id"]
    return book.url("book/references", make_id(template.format(key=key)))


@dataclass
class Converter:
    book: Book
    doc: str

    # ---- roles
    def link(self, text: str, target: Target, anchor: str) -> str:
        """``text`` linked to the target: in this notebook (``#anchor``, the ``<a id>`` that
        ``anchor`` puts at the target) when it is here, else on the book's page."""
        if target.doc == self.doc:
            return f"[{text}](#{anchor})"
        return f"[{text}]({self.book.url(target.doc, anchor)})"

    def target(self, label: str) -> Target:
        if label not in self.book.labels:
            raise KeyError(f"{self.doc}: unknown label {label!r}")
        return self.book.labels[label]

    def role(self, name: str, content: str) -> str:
        content = " ".join(content.split())
        explicit = re.fullmatch(r"(.*?)\s*<([^<>]+)>", content)
        text, label = (
            (explicit.group(1), explicit.group(2)) if explicit else (None, content)
        )
        if name in ("cite", "cite:p", "cite:ps", "cite:t", "cite:ts"):
            keys = [k.strip() for k in content.split(",") if k.strip()]
            labels = [
                (self.book.citations[k], citation_url(self.book, k)) for k in keys
            ]
            if name.startswith("cite:t"):
                parts = []
                for lab, url in labels:
                    who, _, year = lab.rpartition(", ")
                    parts.append(f"[{who} ({year})]({url})")
                return "; ".join(parts)
            return "(" + "; ".join(f"[{lab}]({url})" for lab, url in labels) + ")"
        if name == "eq":
            found = self.target(label)
            return self.link(f"({found.number})", found, f"equation-{label}")
        if name in ("numref", "ref", "prf:ref"):
            found = self.target(label)
            numbered = found.number and found.kind != "equation"
            if name == "numref" and text and "%s" in text:
                shown = text.replace("%s", found.number)
            elif text:
                shown = text
            elif name == "ref" and found.kind == "section":
                shown = found.title
            elif numbered:
                shown = self.numbered_name(found)
            else:
                shown = found.title or label
            return self.link(shown, found, label)
        if name == "doc":
            path = label
            if not path.startswith("/"):
                path = str(Path(self.doc).parent / path)
            doc = Path(path.lstrip("/")).as_posix()
            doc = "/".join(_normalize(doc.split("/")))
            shown = text or self.book.titles.get(doc, doc)
            return f"[{shown}]({self.book.url(doc)})"
        if name == "math":
            return f"${content}$"
        if name in ("term", "abbr", "sub", "sup", "samp", "file", "command", "kbd"):
            return text or content
        raise ValueError(f"{self.doc}: no Colab rendering for the role {{{name}}}")

    @staticmethod
    def numbered_name(found: Target) -> str:
        if found.kind == "figure":
            return FIGURE_FORMAT % found.number
        if found.kind == "exercise":
            return EXERCISE_FORMAT % found.number
        return f"{found.kind.title()} {found.number}"

    # ---- inline text (titles, captions)
    def inline(self, text: str) -> str:
        return self.convert(text).strip()

    # ---- directives
    def render_directive(self, name: str, arg: str, options: dict, body: str) -> str:
        inner = self.convert(body).strip("\n")
        label = options.get("label") or options.get("name")
        if name == "prf:proof":
            return blockquote(f"*Proof.* {inner}".rstrip() + " ∎")
        here = anchor(label) if label else ""
        if name.startswith("prf:"):
            kind = name.removeprefix("prf:")
            number = self.target(label).number if label else ""
            head = kind.title() + (f" {number}" if number else "")
            return f"{here}{bold_heading(head, arg and self.inline(arg))}\n\n{inner}"
        if name == "exercise":
            number = self.target(label).number if label else ""
            head = EXERCISE_FORMAT % number if number else "Exercise"
            return f"{here}{bold_heading(head, arg and self.inline(arg))}\n\n{inner}"
        if name in ("solution", "solution-start"):
            ref = self.target(arg.split()[0]) if arg else None
            summary = "Solution" + (
                f" to {EXERCISE_FORMAT % ref.number}" if ref and ref.number else ""
            )
            if name == "solution-start":  # its code cells follow, outside <details>
                summary += " (its code follows)"
                return f"<details>\n<summary><b>{summary}</b></summary>\n\n{inner}"
            return f"<details>\n<summary><b>{summary}</b></summary>\n\n{inner}\n\n</details>"
        if name == "solution-end":
            return ""
        if name == "admonition" or name in ADMONITIONS:
            title = (
                self.inline(arg)
                if name == "admonition"
                else ("See also" if name == "seealso" else name.title())
            )
            if name != "admonition" and arg:  # a named admonition's argument is content
                inner = f"{self.inline(arg)}\n\n{inner}".strip()
            return blockquote(f"**{title}**\n\n{inner}")
        if name == "math":
            number = self.target(label).number if label else ""
            tag = f" \\tag{{{number}}}" if number else ""
            here = f"{anchor('equation-' + label)}\n\n" if label else ""
            return f"{here}$$\n{body.strip()}{tag}\n$$"
        if name in ("code-block", "code", "sourcecode"):
            return f"```{arg}\n{body}\n```"
        raise ValueError(f"{self.doc}: no Colab rendering for the directive {{{name}}}")

    # ---- a markdown text
    def convert(self, text: str) -> str:
        lines = text.split("\n")
        tokens = MD.parse(text)
        blocks: list[tuple[int, int, str]] = []  # (first line, end line, replacement)
        inline_runs: dict[tuple[int, int], list] = {}
        details_from: int | None = None
        for token in tokens:
            if token.map is None:
                continue
            start, end = token.map
            if token.type == "myst_target":
                blocks.append((start, end, anchor(token.content.strip())))
            elif token.type in ("myst_line_comment", "myst_block_break"):
                blocks.append((start, end, ""))
            elif token.type == "front_matter":
                blocks.append((start, end, ""))
            elif token.type == "math_block_label":
                number = self.target(token.info).number
                content = token.content.strip("\n")
                tagged = f"$$\n{content} \\tag{{{number}}}\n$$"
                blocks.append(
                    (start, end, f"{anchor('equation-' + token.info)}\n\n{tagged}")
                )
            elif token.type in ("fence", "colon_fence") and is_directive(token):
                name, arg, options, body = directive(token)
                new = self.render_directive(name, arg, options, body)
                blocks.append((start, end, new))
                if name == "solution-start":
                    details_from = end
            elif token.type == "inline" and any(
                child.type == "myst_role" for child in token.children or []
            ):
                inline_runs.setdefault((start, end), []).extend(token.children)
        out = list(lines)
        edits = [
            (s, e, self._inline_edit(lines[s:e], children))
            for (s, e), children in inline_runs.items()
        ]
        edits += [(s, e, self._indent(lines[s], new)) for s, e, new in blocks]
        for s, e, new in sorted(edits, reverse=True):
            out[s:e] = ["", *new.split("\n"), ""] if new else []
        result = "\n".join(out)
        if details_from is not None:
            result = result.rstrip("\n") + "\n\n</details>"
        return re.sub(r"\n{3,}", "\n\n", result).strip("\n")

    @staticmethod
    def _indent(first_line: str, new: str) -> str:
        stripped = first_line.lstrip(" >")
        prefix = first_line[: len(first_line) - len(stripped)]
        if not prefix:
            return new
        return "\n".join(
            prefix + line if line else prefix.rstrip() for line in new.split("\n")
        )

    def _inline_edit(self, lines: list[str], children: list) -> str:
        text = "\n".join(lines)
        pos = 0
        pieces: list[str] = []
        for child in children:
            if child.type in ("code_inline", "math_inline", "math_inline_double"):
                found = text.find(child.content, pos)
                if found >= 0:
                    pieces.append(text[pos : found + len(child.content)])
                    pos = found + len(child.content)
            elif child.type == "myst_role":
                name = child.meta["name"]
                words = [re.escape(w) for w in child.content.split()]
                pattern = re.compile(
                    r"\{"
                    + re.escape(name)
                    + r"\}(`+)\s*"
                    + r"\s+".join(words)
                    + r"\s*\1"
                )
                match = pattern.search(text, pos)
                if not match:
                    raise ValueError(
                        f"{self.doc}: role {name} {child.content!r} not found"
                    )
                pieces.append(text[pos : match.start()])
                pieces.append(self.role(name, child.content))
                pos = match.end()
        pieces.append(text[pos:])
        return "".join(pieces)


def _normalize(parts: list[str]) -> list[str]:
    out: list[str] = []
    for part in parts:
        if part == "..":
            out.pop()
        elif part not in (".", ""):
            out.append(part)
    return out


# --------------------------------------------------------------------------------------------
# Notebooks.

DROPPED_TAGS = {
    "remove-cell",
    "remove-input",
    "remove-output",
    "hide-cell",
    "hide-input",
    "hide-output",
}


def colab_notebook(path: Path, book: Book) -> nbformat.NotebookNode:
    doc = path.relative_to(REPO).with_suffix("").as_posix()
    source = nbformat.read(path, as_version=4)
    converter = Converter(book, doc)
    cells = []
    for index, cell in enumerate(source.cells):
        cell = copy.deepcopy(cell)
        tags = [t for t in cell.metadata.get("tags", []) if t not in DROPPED_TAGS]
        figure = cell.metadata.get("mystnb", {}).get("figure")
        check = "check" in tags
        cell.metadata = {"tags": tags} if tags else {}
        if check:  # a check cell: Colab shows its # @title verdict, code collapsed
            cell.metadata["cellView"] = "form"
        if cell.cell_type == "code":
            if index == 0:
                if 'find_spec("posenc_lib")' not in cell.source:
                    raise ValueError(f"{path.name}: cell 1 is not the install cell")
                cell.source = install_cell()
            cell.outputs = []
            cell.execution_count = None
            cells.append(cell)
            if figure and figure.get("name"):
                number = book.labels[figure["name"]].number
                caption = converter.inline(figure.get("caption", ""))
                here = anchor(figure["name"])
                text = f"{here}**{FIGURE_FORMAT % number}.** {caption}".rstrip()
                cells.append(
                    nbformat.v4.new_markdown_cell(
                        text, id=f"{cell.get('id', index)}-caption"
                    )
                )
        elif cell.cell_type == "markdown":
            cell.source = converter.convert(cell.source)
            if cell.source.strip():
                cells.append(cell)
        else:
            cells.append(cell)
    title = book.titles.get(doc, doc)
    note = nbformat.v4.new_markdown_cell(
        f"*The Colab edition of [{title}]({book.url(doc)}), from the book "
        f"[{CONFIG['title']}]({book_url()}). Run the cell below once: it installs the "
        "companion library `posenc_lib`. Equation, figure, theorem and exercise numbers are "
        "the book's; references to other pages open the book.*",
        id="colab-edition-note",
    )
    # The title first, then the note and the install cell (a one-line form in Colab), then
    # the rest of the chapter, its opening paragraphs included.
    install = cells.pop(0)
    install.metadata["cellView"] = "form"
    heading = next((i for i, c in enumerate(cells) if c.cell_type == "markdown"), 0)
    title_cell, intro = split_title(cells[heading])
    cells[heading : heading + 1] = [title_cell, note, install, *intro]
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.nbformat_minor = source.nbformat_minor
    notebook.metadata = {
        "colab": {"name": path.name, "provenance": [], "toc_visible": True},
        "kernelspec": {
            "display_name": "Python 3",
            "language": "python",
            "name": "python3",
        },
        "language_info": {"name": "python"},
    }
    return notebook


def split_title(cell: nbformat.NotebookNode) -> tuple[nbformat.NotebookNode, list]:
    """A markdown cell cut after its first ``# `` heading: (the title, [the rest] or [])."""
    lines = cell.source.split("\n")
    at = next((i for i, line in enumerate(lines) if line.startswith("# ")), None)
    rest = "\n".join(lines[at + 1 :]).strip("\n") if at is not None else ""
    if not rest:
        return cell, []
    title = copy.deepcopy(cell)
    title.source = "\n".join(lines[: at + 1])
    intro = nbformat.v4.new_markdown_cell(rest, id=f"{cell.get('id', 'title')}-intro")
    return title, [intro]


def sources() -> list[Path]:
    found: list[Path] = []
    for pattern in SOURCES:
        found += sorted(REPO.glob(pattern))
    return sorted(set(found))


def render_all(book: Book | None = None) -> dict[str, str]:
    """``{file name: notebook JSON}`` of every Colab edition."""
    book = book or build_book()
    return {
        path.name: nbformat.writes(colab_notebook(path, book)) + "\n"
        for path in sources()
    }


def main(argv: list[str] | None = None) -> int:
    parser_ = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser_.add_argument("--out", type=Path, default=OUT, help="default: colab/")
    parser_.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser_.parse_args(argv)
    rendered = render_all()
    if args.check:
        stale = sorted(
            name
            for name, text in rendered.items()
            if not (args.out / name).is_file()
            or (args.out / name).read_text(encoding="utf-8") != text
        )
        extra = sorted(
            p.name for p in args.out.glob("*.ipynb") if p.name not in rendered
        )
        if stale or extra:
            print(f"colab/ is out of date: {stale + extra}; run `make colab`")
            return 1
        return 0
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        parser_.error(
            f"argument --out: cannot make the folder {args.out}: {exc.strerror}"
        )
    # Each edition is written atomically (a temporary file beside it, then a rename) and only
    # when it changed: a full disk or Ctrl-C leaves every file whole, old or new.
    prog, written, name = "make_colab.py", 0, ""
    with interrupt_once():  # a second Ctrl-C cannot cut the one line of the first short
        try:
            for old in args.out.glob("*.ipynb"):
                if old.name not in rendered:
                    old.unlink()
            for name, text in rendered.items():
                target = args.out / name
                if not target.is_file() or target.read_text(encoding="utf-8") != text:
                    write_atomic(text, target)
                    written += 1
        except KeyboardInterrupt:
            print(f"{prog}: interrupted at {name} ({written} written, each whole)",
                  file=sys.stderr)  # fmt: skip
            return 130
        except OSError as exc:
            kept = f"{written} written before it, each whole; {name} untouched"
            return report_write_error(prog, args.out / name, exc, kept)
    print(f"wrote {len(rendered)} Colab editions to {args.out} ({written} changed)")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # while rendering (main handles it while writing)
        print("make_colab.py: interrupted; nothing written", file=sys.stderr)
        sys.exit(130)
