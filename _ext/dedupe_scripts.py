"""Sphinx extension: drop repeated <script> entries from each page.

sphinx-thebe 0.3.1 registers its inline configuration script once per `env-before-read-docs`
event, and Jupyter Book's build emits that event twice, so every page declared
`const THEBE_JS_URL` twice and the browser logged "Identifier 'THEBE_JS_URL' has already been
declared". Keeping the first copy of each identical script removes the error.
"""

from __future__ import annotations

from typing import Any


def _script_key(script: Any) -> tuple:
    """Identity of a script entry; an inline script is registered with filename None or ''."""
    attributes = getattr(script, "attributes", {}) or {}
    filename = getattr(script, "filename", script) or ""
    return (str(filename), tuple(sorted((k, str(v)) for k, v in attributes.items())))


def _dedupe(app, pagename, templatename, context, doctree) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    seen: set[tuple] = set()
    unique = []
    for script in scripts:
        key = _script_key(script)
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def setup(app) -> dict[str, Any]:
    app.connect("html-page-context", _dedupe, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
