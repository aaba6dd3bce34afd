"""Sphinx extension: a page downloads only what it uses (issue 22 asks for 1.0 MB a first visit).

At the end of the build, in the output folder:

1. **Unused files** are removed: ``fontawesome.js`` (replaced by the font), the full fonts,
   source maps of minified files whose sources are not shipped, the theme's translation
   catalogues (compiled into the pages). A page that still asked for one would fail the
   browser check (``http-error``).
2. **Code markup.** Pygments wraps every name and punctuation mark of a code cell in a
   ``<span>`` whose colour is the code block's own colour in both the light and the dark style;
   those spans are unwrapped (a code-heavy chapter page loses about a third of its size and
   looks the same). Operators (``=``, ``+`` …) are unwrapped too, the one visible change:
   they take the code's own colour (:data:`OPERATOR_CLASSES`). The other spans take the
   shortest class styled like theirs, and neighbours of one class merge (strings with their
   prefixes and interpolations): another 5-10 % of a code-heavy page, with the same look.
3. **Style sheets.** The theme's CSS ships all of Bootstrap and 2,000 Font Awesome icons
   (400 kB); every rule whose selector needs a class that no page and no script of the book
   uses is dropped (classes a script adds are kept: every identifier-like token of every
   script counts as used, and so does every class that starts with a token ending in ``-``,
   such as Bootstrap's ``bs-``). The untouched copies are kept in ``_build/.posenc-pristine``
   because Sphinx does not copy theme files again on an incremental build.
   Custom properties (``--bs-…``, ``--pst-…``) that no ``var()`` of any style sheet and no
   script or page names are dropped too (:func:`drop_custom_properties`).
4. **Icon fonts.** Font Awesome's fonts are cut to the glyphs the pages can show (a few kB
   instead of 300 kB).
5. **Bootstrap's script** (81 kB) is not loaded: its only uses were the header's two menus,
   which open on hover by the theme's CSS and on a click by ``_static/posenc.js``, the "back to
   top" button (also ``posenc.js``) and tooltips (the buttons keep their ``title``).

6. **MathJax's fonts** are cut to the characters the book's formulas use: every formula of
   every page is typeset at build time by the same MathJax (``scripts/mathjax_glyphs.cjs``, with
   node), and each of the font's ``woff2`` files keeps the characters drawn (and printable
   ASCII): 166 kB became 39 kB on chapter 4. The browser check compares every character a page
   draws with the fonts served (``missing-glyph``).

MathJax is trimmed by ``make`` (``MATHJAX_FILES``) and ``mathjax3_config`` in ``_config.yml``.
"""

from __future__ import annotations

import logging
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# fontTools logs each table it subsets at INFO, which the book's build would print.
logging.getLogger("fontTools").setLevel(logging.WARNING)

MARK = "/* posenc: rules no page uses removed (_ext/page_weight.py) */\n"
PRISTINE = ".posenc-pristine"  # beside the html folder: _build/.posenc-pristine
KEEP_CSS = ("posenc.css", "posenc-icons.css")  # ours: small and written to be used
SKIP_DIRS = {
    "mathjax",
    "_sources",
    "_images",
}  # MathJax styles itself; sources are text
DATA_SCRIPTS = {
    "searchindex.js",
    "language_data.js",
}  # words of the book, not class names

ICON_DIR = "posenc-icons"  # under _static/ of the output
# The theme's Font Awesome fonts: (family in the CSS, weight, file stem).
FONTS = (
    ("Font Awesome 6 Free", 900, "fa-solid-900"),
    ("Font Awesome 6 Free", 400, "fa-regular-400"),
    ("Font Awesome 6 Brands", 400, "fa-brands-400"),
)
REMOVED_FILES = (
    "_static/scripts/fontawesome.js",
    "_static/scripts/fontawesome.js.LICENSE.txt",
    "_static/scripts/bootstrap.js",
    "_static/scripts/bootstrap.js.LICENSE.txt",
    "_static/webpack-macros.html",  # a template of the theme, copied with its static files
)
REMOVED_GLOBS = (
    "_static/vendor/fontawesome/webfonts/*",
    "_static/**/*.map",
    "_static/locales",
)


# --------------------------------------------------------------------------------------------
# 1. Code markup


_HIGHLIGHT_RULE = re.compile(r"([^{}]*?)\.highlight((?: \.[\w-]+)?) \{([^}]*)\}")


#: Pygments' class of operators (``=``, ``+``, ``*`` …; not ``ow``, the word operators such as
#: ``in``): their spans are unwrapped too, so operators show in the code's own colour. About
#: 1,700 spans (40 kB) on a code-heavy chapter page; the one change of look the weight target
#: costs (the theme's palette colours operators like strings).
OPERATOR_CLASSES = frozenset({"o"})


def token_styles(pygments_css: str) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """The code block's colour and each token class's declarations, per colour scheme.

    ``pygments_css`` holds rules like ``html[data-theme="light"] .highlight .n { color: #080808 }``
    beside the block's ``html[data-theme="light"] .highlight { background: ...; color: #080808 }``.
    Returns ``(base, tokens)``: scheme -> block colour, and class -> scheme -> declarations
    (sorted ``name:value`` pairs joined by ``;``).
    """
    base: dict[str, str] = {}
    tokens: dict[str, dict[str, str]] = {}
    css, _ = strip_comments(pygments_css)
    for prefix, token, declarations in _HIGHLIGHT_RULE.findall(css):
        props = dict(
            (part.split(":", 1)[0].strip(), part.split(":", 1)[1].strip().lower())
            for part in declarations.split(";")
            if ":" in part
        )
        if not token:
            if "color" in props:
                base[prefix.strip()] = props["color"]
            continue
        rules = tokens.setdefault(token.strip()[1:], {})
        joined = ";".join(f"{k}:{v}" for k, v in sorted(props.items()))
        scheme = prefix.strip()
        rules[scheme] = f"{rules[scheme]};{joined}" if scheme in rules else joined
    return base, tokens


def plain_token_classes(pygments_css: str) -> set[str]:
    """Token classes whose only style is the code block's own colour, in every colour scheme."""
    base, tokens = token_styles(pygments_css)
    return {
        name
        for name, by_scheme in tokens.items()
        if base
        and set(by_scheme) == set(base)
        and all(rule == f"color:{base[scheme]}" for scheme, rule in by_scheme.items())
    }


def same_style_classes(pygments_css: str) -> dict[str, str]:
    """Each token class -> the shortest class styled exactly like it in every colour scheme.

    Pygments gives strings, operators and numbers many classes (``s2``, ``si``, ``sa``, ``o``
    ...) that the theme's styles colour identically; written with one class, adjacent spans
    can be merged (:func:`merge_spans`) and the page looks the same.
    """
    _, tokens = token_styles(pygments_css)
    groups: dict[tuple[tuple[str, str], ...], list[str]] = {}
    for name, by_scheme in tokens.items():
        groups.setdefault(tuple(sorted(by_scheme.items())), []).append(name)
    return {
        name: min(names, key=lambda n: (len(n), n))
        for names in groups.values()
        for name in names
    }


def unwrap_spans(html: str, classes: set[str]) -> str:
    """``<span class="n">x</span>`` becomes ``x`` for each class in ``classes``."""
    if not classes:
        return html
    names = "|".join(sorted(re.escape(c) for c in classes))
    return re.sub(rf'<span class="(?:{names})">([^<]*)</span>', r"\1", html)


def merge_spans(html: str, same: dict[str, str]) -> str:
    """Code spans renamed to their style's shortest class, then neighbours of one class merged.

    ``<span class="s2">"a</span><span class="si">{</span>`` becomes ``<span class="o">"a{</span>``
    when ``same`` maps both classes to ``o``; spans separated by white space only merge too
    (white space shows no colour).
    """
    if not same:
        return html
    html = re.sub(
        r'<span class="([\w-]+)">',
        lambda m: f'<span class="{same.get(m.group(1), m.group(1))}">',
        html,
    )
    # Only the token classes: Sphinx's signatures split long values into ``pre`` spans at
    # spaces so that they can wrap, and those must stay apart.
    names = "|".join(
        sorted({re.escape(c) for c in same.values()}, key=len, reverse=True)
    )
    pattern = re.compile(
        rf'<span class="({names})">([^<]*)</span>(\s*)<span class="\1">'
    )
    merged = 1
    while merged:
        html, merged = pattern.subn(r'<span class="\1">\2\3', html)
    return html


# --------------------------------------------------------------------------------------------
# 2. Style sheets


def _scan(css: str) -> Iterator[tuple[str, str | None]]:
    """Top-level items of ``css`` (comments removed): ``(prelude, body)``, body None for a
    statement such as ``@charset "UTF-8";``."""
    i, n = 0, len(css)
    while i < n:
        start = i
        depth = 0
        body_start = None
        while i < n:
            c = css[i]
            if c in "\"'":
                i += 1
                while i < n and css[i] != c:
                    i += 2 if css[i] == "\\" else 1
            elif c == "{":
                if depth == 0:
                    body_start = i
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    break
            elif c == ";" and depth == 0:
                break
            i += 1
        if body_start is None:
            statement = css[start : i + 1].strip()
            if statement:
                yield statement, None
        else:
            yield css[start:body_start].strip(), css[body_start + 1 : i]
        i += 1


def _split_selectors(prelude: str) -> list[str]:
    parts, depth, current = [], 0, []
    for c in prelude:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(c)
    parts.append("".join(current).strip())
    return parts


_CLASS = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
_OPTIONAL = re.compile(r"\[[^\]]*\]|:(?:not|is|where|has)\((?:[^()]|\([^()]*\))*\)")


def selector_is_used(selector: str, used: set[str], prefixes: tuple[str, ...]) -> bool:
    """False when the selector needs a class that nothing uses. Classes inside ``:not()``,
    ``:is()``, ``:where()``, ``:has()`` and attribute selectors are not required."""
    for name in _CLASS.findall(_OPTIONAL.sub("", selector)):
        if name not in used and not name.startswith(prefixes):
            return False
    return True


_GROUPING = ("@media", "@supports", "@layer", "@container", "@document")


def purge_css(css: str, used: set[str], prefixes: tuple[str, ...]) -> str:
    """``css`` without the rules (and selectors) that need a class nothing uses."""
    out = []
    for prelude, body in _scan(css):
        if body is None:
            out.append(prelude)
        elif prelude.startswith(_GROUPING):
            inner = purge_css(body, used, prefixes)
            if inner:
                out.append(f"{prelude}{{{inner}}}")
        elif prelude.startswith("@"):
            out.append(f"{prelude}{{{body}}}")
        else:
            selectors = [
                s
                for s in _split_selectors(prelude)
                if selector_is_used(s, used, prefixes)
            ]
            if selectors:
                out.append(",".join(selectors) + "{" + body + "}")
    return "".join(out)


_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)


def strip_comments(css: str) -> tuple[str, list[str]]:
    """``css`` without comments, and its licence comments (``/*! ... */``), kept apart."""
    licences = [c for c in _COMMENT.findall(css) if c.startswith("/*!")]
    return _COMMENT.sub("", css), licences


def _declarations(body: str) -> list[str]:
    """The declarations of a rule's body, split at the semicolons outside strings and
    brackets."""
    parts, current, depth, quote = [], [], 0, ""
    for c in body:
        if quote:
            quote = "" if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == ";" and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(c)
    parts.append("".join(current))
    return [part for part in parts if part.strip()]


_CUSTOM = re.compile(r"\s*(--[\w-]+)\s*:")


def drop_custom_properties(css: str, used: set[str]) -> str:
    """``css`` without the custom-property declarations (``--name: …``) whose name is not in
    ``used``, and without the rules left empty."""
    out = []
    for prelude, body in _scan(css):
        if body is None:
            out.append(prelude)
        elif prelude.startswith(_GROUPING):
            inner = drop_custom_properties(body, used)
            if inner:
                out.append(f"{prelude}{{{inner}}}")
        elif prelude.startswith("@"):
            out.append(f"{prelude}{{{body}}}")
        else:
            kept = [
                d
                for d in _declarations(body)
                if not (m := _CUSTOM.match(d)) or m.group(1) in used
            ]
            if kept:
                out.append(prelude + "{" + ";".join(kept) + "}")
    return "".join(out)


def referenced_properties(css_texts: list[str], other_texts: list[str]) -> set[str]:
    """Custom properties something reads: a ``var(--name`` of a style sheet, or any
    ``--name`` a script or a page writes (``style.setProperty``, ``style`` attributes)."""
    names = {n for text in css_texts for n in re.findall(r"var\(\s*(--[\w-]+)", text)}
    return names | {
        n for text in other_texts for n in re.findall(r"--[a-zA-Z][\w-]*", text)
    }


def used_classes(outdir: Path) -> tuple[set[str], tuple[str, ...]]:
    """Classes the pages use: those in their ``class`` attributes, and every identifier-like
    token of every script (classes a script adds); plus the prefixes a script builds classes
    from (tokens ending in ``-``)."""
    used: set[str] = set()
    tokens: set[str] = set()
    for path in _files(outdir, "*.html"):
        text = path.read_text(encoding="utf-8", errors="replace")
        for _, value in re.findall(r"""class=(["'])(.*?)\1""", text, re.DOTALL):
            used.update(value.split())
    for path in _files(outdir, "*.js"):
        if path.name not in DATA_SCRIPTS:
            text = path.read_text(encoding="utf-8", errors="replace")
            tokens |= set(re.findall(r"[A-Za-z_][\w-]*", text))
    prefixes = tuple(sorted(t for t in tokens if t.endswith("-") and len(t) > 2))
    return used | tokens, prefixes


def _files(outdir: Path, pattern: str) -> Iterator[Path]:
    for path in outdir.rglob(pattern):
        if not SKIP_DIRS & set(path.relative_to(outdir).parts):
            yield path


def purge_style_sheets(outdir: Path) -> None:
    used, prefixes = used_classes(outdir)
    pristine_dir = outdir.parent / PRISTINE
    for path in _files(outdir / "_static", "*.css"):
        if path.name in KEEP_CSS:
            continue
        relative = path.relative_to(outdir)
        text = path.read_text(encoding="utf-8")
        pristine = pristine_dir / relative
        if text.startswith(MARK):
            if not pristine.is_file():
                continue  # purged by an earlier build whose copy is gone: leave it as it is
            text = pristine.read_text(encoding="utf-8")
        else:
            pristine.parent.mkdir(parents=True, exist_ok=True)
            pristine.write_text(text, encoding="utf-8")
        css, licences = strip_comments(text)
        path.write_text(
            MARK + "".join(licences) + purge_css(css, used, prefixes), encoding="utf-8"
        )
    purge_custom_properties(outdir)


def purge_custom_properties(outdir: Path) -> None:
    """Drop the custom properties nothing reads from the theme's style sheets, until none is
    left (a dropped declaration may have been the last reader of another)."""
    sheets = [p for p in _files(outdir / "_static", "*.css") if p.name not in KEEP_CSS]
    others = [
        p.read_text(encoding="utf-8", errors="replace")
        for pattern in ("*.html", "*.js")
        for p in _files(outdir, pattern)
        if p.name not in DATA_SCRIPTS
    ]
    keep = [
        p.read_text(encoding="utf-8")
        for p in _files(outdir / "_static", "*.css")
        if p.name in KEEP_CSS
    ]
    while True:
        texts = {p: p.read_text(encoding="utf-8") for p in sheets}
        used = referenced_properties([*texts.values(), *keep], others)
        changed = False
        for path, text in texts.items():
            css = text.removeprefix(MARK)
            licences = "".join(c for c in _COMMENT.findall(css) if c.startswith("/*!"))
            body = _COMMENT.sub("", css)
            slimmed = drop_custom_properties(body, used)
            if slimmed != body:
                path.write_text(MARK + licences + slimmed, encoding="utf-8")
                changed = True
        if not changed:
            return


# --------------------------------------------------------------------------------------------
# 3. Icon fonts

_PRIVATE_USE = re.compile(
    r"[\ue000-\uf8ff]|\\(?:f[0-9a-f]{3}|e[0-9a-f]{3})", re.IGNORECASE
)
_ICON_RULE = re.compile(r"([^{}]+)\{content:\"([^\"]+)\"\}")
_ICON_SELECTOR = re.compile(r"^\.(fa-[a-z0-9-]+):(?::)?(?:before|after)$")
_ICON_CLASS = re.compile(r"\bfa-[a-z0-9-]+")


def _codepoints(text: str) -> set[int]:
    """Private-use code points written in a CSS string, literally or as ``\\fXXX`` escapes."""
    return {
        int(token[1:], 16) if token.startswith("\\") else ord(token)
        for token in _PRIVATE_USE.findall(text)
    }


def icon_map(css: str) -> dict[str, set[int]]:
    """``{"fa-bars": {0xF0C9}, ...}`` from Font Awesome's ``.fa-x:before{content:"…"}`` rules."""
    mapping: dict[str, set[int]] = {}
    for selectors, content in _ICON_RULE.findall(css):
        names = [_ICON_SELECTOR.match(s.strip()) for s in selectors.split(",")]
        if names and all(names):
            for match in names:
                mapping.setdefault(match.group(1), set()).update(_codepoints(content))  # type: ignore[union-attr]
    return mapping


def theme_codepoints(css: str) -> set[int]:
    """Icons the theme's CSS draws by itself (admonitions, breadcrumbs, links): every private-use
    code point in a rule that is not one of Font Awesome's per-icon rules."""
    points = set()
    for rule in re.findall(r"[^{}]+\{[^{}]*\}", css):
        selectors, declarations = rule.split("{", 1)
        if all(_ICON_SELECTOR.match(s.strip()) for s in selectors.split(",")):
            continue
        points |= _codepoints(declarations)
    return points


def used_codepoints(outdir: Path) -> set[int]:
    """Every icon glyph a page can show: the ``fa-*`` classes of the HTML and of the scripts
    (the theme's script adds a few), and the glyphs the theme's CSS draws itself."""
    mapping: dict[str, set[int]] = {}
    points: set[int] = set()
    for path in _files(outdir / "_static", "*.css"):
        css = path.read_text(encoding="utf-8")
        for name, found in icon_map(css).items():
            mapping.setdefault(name, set()).update(found)
        points |= theme_codepoints(css)
    names: set[str] = set()
    for path in [*_files(outdir, "*.html"), *_files(outdir / "_static", "*.js")]:
        if "fontawesome" not in path.name:
            names |= set(
                _ICON_CLASS.findall(path.read_text(encoding="utf-8", errors="replace"))
            )
    for name in names:
        points |= mapping.get(name, set())
    return points


def _theme_webfonts() -> Path:
    """The theme's own copy of the Font Awesome fonts (the output's copy is deleted)."""
    import pydata_sphinx_theme

    static = (
        Path(pydata_sphinx_theme.__file__).parent / "theme/pydata_sphinx_theme/static"
    )
    return static / "vendor/fontawesome/webfonts"


def subset_icon_fonts(outdir: Path) -> str:
    """Write the cut-down fonts under ``_static/posenc-icons/``; return their ``@font-face``s.

    They are declared after the theme's (same family, weight and style), so they replace them.
    """
    from fontTools import subset

    points = used_codepoints(outdir)
    (outdir / "_static" / ICON_DIR).mkdir(exist_ok=True)
    faces = []
    for family, weight, stem in FONTS:
        source = _theme_webfonts() / f"{stem}.ttf"
        if not source.is_file():
            continue
        options = subset.Options()
        options.flavor = "woff"  # zlib; woff2 would need the brotli module
        options.layout_features = []
        options.name_IDs = []
        font = subset.load_font(str(source), options)
        present = set(font.getBestCmap()) & points
        if not present:
            continue
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=sorted(present))
        subsetter.subset(font)
        name = f"{stem}.woff"
        subset.save_font(font, str(outdir / "_static" / ICON_DIR / name), options)
        faces.append(
            f'@font-face{{font-family:"{family}";font-style:normal;font-weight:{weight};'
            f'font-display:block;src:url("{ICON_DIR}/{name}") format("woff")}}'
        )
    return "\n".join(faces) + "\n"


# --------------------------------------------------------------------------------------------
# 4b. MathJax's fonts

MATH_FONTS = "mathjax/fonts/mathjax-newcm-font/chtml/woff2"  # under the output folder
GLYPHS_SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "mathjax_glyphs.cjs"
ASCII = frozenset(
    range(0x20, 0x7F)
)  # kept in every font: a margin for plain text in math

_MATH_OPEN = re.compile(r'<(?:span|div) class="[^"]*\bmath\b[^"]*"[^>]*>')
_DELIMITED = re.compile(r"\\\((.*?)\\\)|\\\[(.*?)\\\]|\$\$(.*?)\$\$", re.S)


def math_formulas(html: str) -> list[tuple[str, bool]]:
    """The formulas of a page as MathJax finds them: ``(tex, display)`` for each ``\\(…\\)``,
    ``\\[…\\]`` and ``$$…$$`` inside an element of class ``math``, or the element's whole text
    (an environment such as ``\\begin{align}``) where it has no delimiters."""
    import html as html_lib

    found = []
    for opening in _MATH_OPEN.finditer(html):
        end = html.find(
            "</div>" if opening.group(0).startswith("<div") else "</span>",
            opening.end(),
        )
        inner = html[opening.end() : end if end > 0 else None]
        text = html_lib.unescape(
            re.sub(r'<span class="eqno">.*?</span>', "", inner, flags=re.S)
        )
        text = re.sub(r"<[^>]+>", "", text)
        delimited = _DELIMITED.findall(text)
        for inline, display, double in delimited:
            found.append((inline, False) if inline else (display or double, True))
        if not delimited and text.strip():
            found.append((text.strip(), True))
    return found


def mathjax_glyphs(formulas: list[tuple[str, bool]]) -> set[int]:
    """The code points MathJax draws for ``formulas`` (``scripts/mathjax_glyphs.cjs``)."""
    import json
    import subprocess

    result = subprocess.run(
        ["node", str(GLYPHS_SCRIPT)],
        input=json.dumps(formulas),
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"{GLYPHS_SCRIPT.name} failed: {result.stderr.strip()[-2000:]}"
        )
    return set(json.loads(result.stdout))


def subset_math_fonts(source: Path, target: Path, points: set[int]) -> None:
    """Each ``woff2`` font of ``source`` written to ``target`` with only the characters of
    ``points`` (and printable ASCII)."""
    from fontTools import subset

    keep = points | ASCII
    target.mkdir(parents=True, exist_ok=True)
    for font_file in sorted(source.glob("*.woff2")):
        options = subset.Options()
        options.flavor = "woff2"
        options.layout_features = ["*"]
        options.name_IDs = ["*"]
        options.notdef_outline = True
        options.drop_tables += ["ltag"]  # language tags: fontTools cannot subset them
        font = subset.load_font(str(font_file), options)
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=sorted(set(font.getBestCmap()) & keep))
        subsetter.subset(font)
        subset.save_font(font, str(target / font_file.name), options)


def slim_math_fonts(outdir: Path, extra: Path) -> None:
    """MathJax's fonts in ``outdir`` cut to the characters of every page's formulas; the full
    fonts are read from ``extra`` (``_extra/``, which the build copies into ``outdir``)."""
    source = extra / MATH_FONTS
    if not source.is_dir() or not (outdir / MATH_FONTS).is_dir():
        return
    formulas = sorted(
        {
            f
            for path in _files(outdir, "*.html")
            for f in math_formulas(path.read_text(encoding="utf-8"))
        }
    )
    subset_math_fonts(source, outdir / MATH_FONTS, mathjax_glyphs(formulas))


# --------------------------------------------------------------------------------------------


#: Assets a page loads although nothing on it uses them: (marker of a use, tags to drop).
#: sphinx-design's tabs and cards (classes ``sd-…``) and Thebe's live code (no Thebe launch
#: button is configured) are loaded by Jupyter Book on every page.
UNUSED_ASSETS = (
    (
        'class="sd-',
        (
            r"<link [^>]*sphinx-design\.min\.css[^>]*>\s*",
            r"<script [^>]*design-tabs\.js[^>]*></script>\s*",
        ),
    ),
    (
        "initThebeSBT()",
        (
            r"<link [^>]*sphinx-thebe\.css[^>]*>\s*",
            r"<script [^>]*sphinx-thebe\.js[^>]*></script>\s*",
            r'<script type="text/x-thebe-config">.*?</script>\s*',
        ),
    ),
)


#: Tags dropped from every page: Bootstrap's script and its preload (see the module's 5.).
DROPPED_TAGS = (
    r'<link rel="preload" as="script" href="[^"]*scripts/bootstrap\.js[^"]*" />\s*',
    r'<script [^>]*src="[^"]*scripts/bootstrap\.js[^"]*"></script>\s*',
)


def slim_page(html: str) -> str:
    """A page without the assets it does not use, and with shorter math markup.

    Sphinx marks each formula ``class="math notranslate nohighlight"``; ``nohighlight`` only
    keeps highlight.js away, which the book does not load (MathJax looks for ``math``, and
    ``notranslate`` keeps translators off the TeX), so it goes: about 12 bytes a formula.
    """
    html = html.replace(
        'class="math notranslate nohighlight"', 'class="math notranslate"'
    )
    for pattern in DROPPED_TAGS:
        html = re.sub(pattern, "", html)
    for marker, patterns in UNUSED_ASSETS:
        if marker not in html:
            for pattern in patterns:
                html = re.sub(pattern, "", html, flags=re.S)
    return html


def slim(outdir: Path, extra: Path | None = None) -> None:
    """All four steps on a built HTML folder (the unused files go first: ``fontawesome.js``
    names every icon, which would keep every icon's CSS rule)."""
    doomed = [outdir / name for name in REMOVED_FILES]
    for pattern in REMOVED_GLOBS:
        doomed += outdir.glob(pattern)
    for path in doomed:
        if path.is_dir():
            shutil.rmtree(path)
        elif path.is_file():
            path.unlink()
    pygments = outdir / "_static" / "pygments.css"
    if pygments.is_file():
        css = pygments.read_text(encoding="utf-8")
        plain = plain_token_classes(css) | OPERATOR_CLASSES
        same = same_style_classes(css)
        for path in _files(outdir, "*.html"):
            text = path.read_text(encoding="utf-8")
            slimmed = slim_page(merge_spans(unwrap_spans(text, plain), same))
            if slimmed != text:
                path.write_text(slimmed, encoding="utf-8")
    purge_style_sheets(outdir)
    header = (
        "/* Font Awesome cut to the glyphs the book uses (_ext/page_weight.py). */\n"
    )
    icons = header + subset_icon_fonts(outdir)
    (outdir / "_static" / "posenc-icons.css").write_text(icons, encoding="utf-8")
    if extra is not None:
        slim_math_fonts(outdir, extra)


def _finish(app: Any, exception: Exception | None) -> None:
    if exception is None and app.builder.format == "html":
        # MathJax's full fonts: the first html_extra_path folder that holds them.
        roots = [Path(app.confdir or app.srcdir), Path(app.srcdir)]
        extra = next(
            (
                root / folder
                for root in roots
                for folder in app.config.html_extra_path
                if (root / folder / MATH_FONTS).is_dir()
            ),
            None,
        )
        slim(Path(app.outdir), extra)


def setup(app: Any) -> dict[str, Any]:
    app.add_css_file("posenc-icons.css")  # written by slim(), after the theme's CSS
    # After pydata-sphinx-theme rewrites pygments.css with its light and dark styles.
    app.connect("build-finished", _finish, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
