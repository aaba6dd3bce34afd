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

6. **MathJax's fonts and font data** are cut to the characters the book's formulas use: every
   formula of every page is typeset at build time by the same MathJax with the book's own
   configuration (``scripts/mathjax_glyphs.cjs``, with node; a formula its TeX packages cannot
   typeset fails the build), and each of the font's ``woff2`` files keeps the characters drawn
   (166 kB became 39 kB on chapter 4), as do its metric data (``chtml.js``: 110 kB became
   about 32 kB) and the ranges it loads on demand (``chtml/dynamic``). The browser check
   compares every character a page draws with the fonts served, and reports one MathJax has no
   data for (``missing-glyph``).
7. **Minified copies**: the style sheets lose comments and white space
   (:func:`minify_css`), the scripts not minified yet are minified by terser
   (``scripts/minify_assets.cjs``, with node), the Colab logo is made 48 px high
   (:data:`SMALL_IMAGES`), and reference wrappers nothing styles are unwrapped
   (:data:`UNSTYLED_SPANS`).

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
    for path in _files(outdir, "*.html"):
        text = path.read_text(encoding="utf-8", errors="replace")
        for _, value in re.findall(r"""class=(["'])(.*?)\1""", text, re.DOTALL):
            used.update(value.split())
    tokens = script_tokens(outdir)
    prefixes = tuple(sorted(t for t in tokens if t.endswith("-") and len(t) > 2))
    return used | tokens, prefixes


def script_tokens(outdir: Path) -> set[str]:
    """The words (class-name shaped) of every script of the book but MathJax's data."""
    tokens: set[str] = set()
    for path in _files(outdir, "*.js"):
        if path.name not in DATA_SCRIPTS:
            text = path.read_text(encoding="utf-8", errors="replace")
            tokens |= set(re.findall(r"[A-Za-z_][\w-]*", text))
    return tokens


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


_STRING_OR_COMMENT = re.compile(
    r"""("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(/\*.*?\*/)""", re.S
)


def minify_css(css: str) -> str:
    """``css`` without comments (but licence comments, ``/*! ... */``) and without the white
    space nothing reads: runs of it become one space, and none is left beside ``{ } ; ,``.
    Strings are kept as written; spaces around ``:`` stay (in a selector, ``a :hover`` and
    ``a:hover`` differ)."""
    out, pos = [], 0

    def squeeze(text: str) -> str:
        text = re.sub(r"\s+", " ", text)
        return re.sub(r" ?([{};,]) ?", r"\1", text).replace(";}", "}")

    for match in _STRING_OR_COMMENT.finditer(css):
        out.append(squeeze(css[pos : match.start()]))
        string, comment = match.groups()
        if string or comment.startswith("/*!"):
            out.append(match.group(0))
        pos = match.end()
    out.append(squeeze(css[pos:]))
    return "".join(out).strip()


def minify_style_sheets(outdir: Path) -> None:
    """Every style sheet of ``_static`` minified (:func:`minify_css`); the purge's mark stays
    first, so that a later build still finds the pristine copy."""
    for path in _files(outdir / "_static", "*.css"):
        text = path.read_text(encoding="utf-8")
        mark = MARK if text.startswith(MARK) else ""
        slimmed = mark + minify_css(text.removeprefix(mark)) + "\n"
        if len(slimmed) < len(text):
            path.write_text(slimmed, encoding="utf-8")


MINIFY_SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "minify_assets.cjs"


def run_node(script: Path, *args: str, stdin: str = "") -> str:
    """The standard output of ``node script args...`` fed ``stdin``; RuntimeError with the end
    of its standard error when it fails."""
    import subprocess

    result = subprocess.run(
        ["node", str(script), *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"{script.name} failed: {result.stderr.strip()[-2000:]}")
    return result.stdout


def scripts_to_minify(outdir: Path) -> list[Path]:
    """The scripts of ``_static`` that are not minified yet: not ``*.min.js``, not the theme's
    bundles (``_static/scripts/``, minified by its build), not the search data."""
    return sorted(
        path
        for path in _files(outdir / "_static", "*.js")
        if not path.name.endswith(".min.js")
        and path.name not in DATA_SCRIPTS
        and "scripts" not in path.relative_to(outdir / "_static").parts
    )


def minify_scripts(outdir: Path) -> None:
    """The scripts of :func:`scripts_to_minify` minified in place by terser
    (``scripts/minify_assets.cjs``, with node)."""
    files = scripts_to_minify(outdir)
    if not files:
        return
    run_node(MINIFY_SCRIPT, *map(str, files))


#: Raster images of the theme shown small: (path under the output folder, height in CSS px
#: as shown). The Colab logo of the launch menu (225 px square, 7.6 kB) is shown 1em high.
SMALL_IMAGES = (("_static/images/logo_colab.png", 16),)


def shrink_images(outdir: Path) -> None:
    """Each of :data:`SMALL_IMAGES` resized to three times its shown height (sharp on a phone's
    screen) and written as a PNG of at most 64 colours: 0.8 kB instead of 7.6 kB."""
    from PIL import Image

    for name, height in SMALL_IMAGES:
        path = outdir / name
        if not path.is_file():
            continue
        with Image.open(path) as image:
            image.load()
        if image.height <= 3 * height:
            continue  # shrunk by an earlier build
        width = round(image.width * 3 * height / image.height)
        small = image.convert("RGBA").resize((width, 3 * height), Image.LANCZOS)
        small = small.quantize(64, method=Image.Quantize.FASTOCTREE)
        small.save(path, "PNG", optimize=True)


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

MATH_FONT_DIR = "mathjax/fonts/mathjax-newcm-font"  # under the output folder
MATH_FONTS = f"{MATH_FONT_DIR}/chtml/woff2"
GLYPHS_SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "mathjax_glyphs.cjs"
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
        # Tags out first, then entities: ``&lt; r \;&gt;`` is TeX, not a tag.
        text = re.sub(r'<span class="eqno">.*?</span>', "", inner, flags=re.S)
        text = html_lib.unescape(re.sub(r"<[^>]+>", "", text))
        delimited = _DELIMITED.findall(text)
        for inline, display, double in delimited:
            found.append((inline, False) if inline else (display or double, True))
        if not delimited and text.strip():
            found.append((text.strip(), True))
    return found


def mathjax_glyphs(
    formulas: list[tuple[str, bool]], config: dict[str, Any] | None = None
) -> set[int]:
    """The code points MathJax draws for ``formulas`` (``scripts/mathjax_glyphs.cjs``).

    ``config`` is the book's MathJax configuration (``mathjax3_config``): its components and
    TeX packages are the ones loaded (the full ``input/tex`` without it), and a formula they
    cannot typeset (an undefined macro, a package not loaded) is an error.
    """
    import json

    stdin = json.dumps({"formulas": formulas, "config": config or {}})
    return set(json.loads(run_node(GLYPHS_SCRIPT, stdin=stdin)))


def subset_math_fonts(source: Path, target: Path, points: set[int]) -> None:
    """Each ``woff2`` font of ``source`` written to ``target`` with only the characters of
    ``points``."""
    from fontTools import subset

    keep = set(points)
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


_KEY = r"\d+(?:e\d+)?"  # a code point as a minified object key: 65, 11e3
#: Each variant's metrics, {65:[.683,0,.75],...}.
_CHAR_TABLE = re.compile(rf"\{{{_KEY}:\[")
#: The stretchy delimiters, {40:{dir:V,stretch:[9115,...]},...}.
_DELIMITERS = re.compile(rf"\{{{_KEY}:\{{")
#: The files of on-demand ranges, [["latin",{normal:[[192,214],...]}],...].
_RANGE_FILES = re.compile(r'\[\["[\w-]+",\{')
_INTEGER = re.compile(r"(?<![\w.])\d+(?![\w.])")


def _outside_strings(text: str, start: int = 0) -> Iterator[tuple[int, str, int]]:
    """``(index, character, depth)`` for each character of ``text`` from ``start`` that is not
    inside a string; ``depth`` counts the brackets open before it (an opening bracket counts
    itself, a closing one does not)."""
    depth, quote, i = 0, "", start
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'`":
            quote = c
        else:
            depth += (c in "{[(") - (c in "}])")
            yield i, c, depth
        i += 1


def _closing(text: str, start: int) -> int:
    """The index of the bracket that closes the one at ``text[start]`` (strings skipped)."""
    return next(i for i, c, depth in _outside_strings(text, start) if depth == 0)


def _items(body: str) -> list[str]:
    """The items of an object's or array's ``body``, split at its top-level commas."""
    cuts = [i for i, c, depth in _outside_strings(body) if c == "," and depth == 0]
    bounds = zip([-1, *cuts], [*cuts, len(body)], strict=True)
    return [body[a + 1 : b] for a, b in bounds if b > a + 1]


def _code(key: str) -> int:
    return int(float(key))


def _codes_kept(values: str, keep: set[int]) -> list[str]:
    """The items of ``[code, [first, last], ...]`` that hold a character of ``keep``."""
    kept = []
    for value in _items(values.strip()[1:-1]):
        codes = [_code(v) for v in value.strip("[]").split(",")]
        if any(c in keep for c in range(codes[0], codes[-1] + 1)):
            kept.append(value)
    return kept


def _range_file_kept(entry: str, keep: set[int]) -> str:
    """A range file's ``["name",{variant:[code, [first, last], ...], ...}, delimiters]`` cut to
    the codes and ranges that hold a character of ``keep``; empty when none is left (MathJax
    then never loads that file)."""
    name, variants, *delimiters = _items(entry[1:-1])
    lists = []
    for item in _items(variants[1:-1]):
        variant, _, values = item.partition(":")
        kept = _codes_kept(values, keep)
        if kept:
            lists.append(f"{variant}:[{','.join(kept)}]")
    kept_delimiters = [_codes_kept(d, keep) for d in delimiters]
    if not lists and not any(kept_delimiters):
        return ""
    parts = [name, "{" + ",".join(lists) + "}"]
    parts += ["[" + ",".join(d) + "]" for d in kept_delimiters]
    return "[" + ",".join(parts) + "]"


_DRAWN_AS = re.compile(r"\b(?:c|schar):(\[[\d,]*\]|\d+)")  # the characters drawn for it


def _delimiter_kept(item: str, drawn: set[int]) -> bool:
    """Whether a delimiter ``code:{...}`` is drawn: its character, or the one drawn in its place
    (``c``) or at its sizes (``schar``), is in ``drawn``."""
    code, _, data = item.partition(":")
    drawn_as = ",".join(m.strip("[]") for m in _DRAWN_AS.findall(data)).split(",")
    found = {_code(code)} | {int(n) for n in drawn_as if n}
    return bool(found & drawn)


def with_delimiter_parts(texts: list[str], drawn: set[int]) -> set[int]:
    """``drawn`` and the characters each delimiter drawn is made of (itself, its parts and the
    characters of its sizes), from the delimiter tables of the font data ``texts``: MathJax
    writes the styles of a delimiter's parts, reading their data, once the delimiter is used
    at all, stretched or not."""
    closed = set(drawn)
    for js in texts:
        for match in _DELIMITERS.finditer(js):
            items = _items(js[match.start() + 1 : _closing(js, match.start())])
            for item in items:
                if _delimiter_kept(item, drawn):
                    code, _, data = item.partition(":")
                    closed |= {int(n) for n in _INTEGER.findall(data) if int(n) >= 0x20}
                    closed.add(_code(code))
    return closed


def subset_font_data(js: str, keep: set[int], drawn: set[int] | None = None) -> str:
    """MathJax font data (a font's ``chtml.js`` or one of its ``chtml/dynamic`` files) with only
    the characters of ``keep``.

    Three kinds of table are cut, where their minified literals stand: each variant's
    character metrics ``{65:[h,d,w,{...}],...}`` keep the characters of ``keep``; the
    stretchy delimiters ``{40:{...stretch:[9115,9116,9117]...},...}`` keep those drawn
    (:func:`_delimiter_kept`: their character, or the one drawn for them, is in ``drawn``,
    default ``keep``); the list of on-demand ranges
    (``[["latin",{normal:[[192,214],...]}],...]``) keeps the codes and ranges that hold a
    character of ``keep``, and the files that still hold one. A character MathJax then finds
    no data for would be drawn in a fallback font (``mjx-utext``), which the browser check
    reports (``missing-glyph``).
    """
    out, pos = [], 0
    starts = sorted(
        [(m.start(), "chars") for m in _CHAR_TABLE.finditer(js)]
        + [(m.start(), "delimiters") for m in _DELIMITERS.finditer(js)]
        + [(m.start(), "ranges") for m in _RANGE_FILES.finditer(js)]
    )
    for start, kind in starts:
        if start < pos:
            continue  # inside a table already cut
        end = _closing(js, start)
        items = _items(js[start + 1 : end])
        if kind == "ranges":
            kept = (_range_file_kept(entry, keep) for entry in items)
            out.append(js[pos : start + 1] + ",".join(k for k in kept if k) + "]")
            pos = end + 1
            continue
        if kind == "chars":
            body = ",".join(i for i in items if _code(i.split(":", 1)[0]) in keep)
        else:
            body = ",".join(
                item
                for item in items
                if _delimiter_kept(item, keep if drawn is None else drawn)
            )
        out.append(js[pos : start + 1] + body + "}")
        pos = end + 1
    out.append(js[pos:])
    return "".join(out)


def font_data_files(font_dir: Path) -> list[Path]:
    """A MathJax font's data: its ``chtml.js`` and its ``chtml/dynamic/*.js`` ranges."""
    files = [
        font_dir / "chtml.js",
        *sorted((font_dir / "chtml" / "dynamic").glob("*.js")),
    ]
    return [path for path in files if path.is_file()]


def subset_math_font_data(
    source: Path, target: Path, points: set[int], drawn: set[int] | None = None
) -> None:
    """The font data of the font folder ``source`` (:func:`font_data_files`) written to
    ``target`` with the data of the characters of ``points`` only, and the delimiters of
    ``drawn`` (default ``points``)."""
    for path in font_data_files(source):
        destination = target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        text = subset_font_data(path.read_text(encoding="utf-8"), set(points), drawn)
        destination.write_text(text, encoding="utf-8")


def slim_math_fonts(
    outdir: Path, extra: Path, config: dict[str, Any] | None = None
) -> None:
    """MathJax's fonts and font data in ``outdir`` cut to the characters of every page's
    formulas, typeset with ``config`` (``mathjax3_config``); the full fonts are read from
    ``extra`` (``_extra/``, which the build copies into ``outdir``)."""
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
    drawn = mathjax_glyphs(formulas, config)
    data = [
        p.read_text(encoding="utf-8") for p in font_data_files(extra / MATH_FONT_DIR)
    ]
    points = with_delimiter_parts(data, drawn)
    subset_math_fonts(source, outdir / MATH_FONTS, points)
    subset_math_font_data(extra / MATH_FONT_DIR, outdir / MATH_FONT_DIR, points, drawn)


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


#: Wrappers Sphinx puts around the text of a cross-reference (``<span class="std std-ref">``,
#: 460 in the book, 166 on the appendix): unwrapped where no style sheet and no script names
#: one of their classes (checked on each build: :func:`unstyled_spans`).
UNSTYLED_SPANS = ("std std-ref", "std std-numref", "std std-doc", "doc")


def unstyled_spans(outdir: Path) -> tuple[str, ...]:
    """The class lists of :data:`UNSTYLED_SPANS` none of whose classes a style sheet of
    ``_static`` or a script of the book names."""
    named: set[str] = set()
    for path in _files(outdir / "_static", "*.css"):
        named |= set(
            _CLASS.findall(strip_comments(path.read_text(encoding="utf-8"))[0])
        )
    named |= script_tokens(outdir)
    return tuple(c for c in UNSTYLED_SPANS if not named & set(c.split()))


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


def slim(
    outdir: Path, extra: Path | None = None, config: dict[str, Any] | None = None
) -> None:
    """All the steps on a built HTML folder (the unused files go first: ``fontawesome.js``
    names every icon, which would keep every icon's CSS rule)."""
    doomed = [outdir / name for name in REMOVED_FILES]
    for pattern in REMOVED_GLOBS:
        doomed += outdir.glob(pattern)
    for path in doomed:
        if path.is_dir():
            shutil.rmtree(path)
        elif path.is_file():
            path.unlink()
    # Spans to unwrap: code tokens drawn plain, and reference wrappers nothing styles (the
    # purge below keeps every rule of theirs, since the pages still use them now).
    unwrapped = set(unstyled_spans(outdir))
    pygments = outdir / "_static" / "pygments.css"
    same: dict[str, str] = {}
    if pygments.is_file():
        css = pygments.read_text(encoding="utf-8")
        unwrapped |= plain_token_classes(css) | OPERATOR_CLASSES
        same = same_style_classes(css)
    for path in _files(outdir, "*.html"):
        text = path.read_text(encoding="utf-8")
        slimmed = slim_page(merge_spans(unwrap_spans(text, unwrapped), same))
        if slimmed != text:
            path.write_text(slimmed, encoding="utf-8")
    purge_style_sheets(outdir)
    header = (
        "/* Font Awesome cut to the glyphs the book uses (_ext/page_weight.py). */\n"
    )
    icons = header + subset_icon_fonts(outdir)
    (outdir / "_static" / "posenc-icons.css").write_text(icons, encoding="utf-8")
    minify_style_sheets(outdir)
    minify_scripts(outdir)
    shrink_images(outdir)
    if extra is not None:
        slim_math_fonts(outdir, extra, config)


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
        slim(Path(app.outdir), extra, app.config.mathjax3_config)


def setup(app: Any) -> dict[str, Any]:
    app.add_css_file("posenc-icons.css")  # written by slim(), after the theme's CSS
    # After pydata-sphinx-theme rewrites pygments.css with its light and dark styles.
    app.connect("build-finished", _finish, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
