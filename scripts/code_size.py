"""Count a package's code lines: lines that hold code, without docstrings, comments or blanks.

Used by the closing notes of size work (issue 26): ``python scripts/code_size.py posenc_lib``
prints one row per module and the totals (code lines, all lines), and with ``--exclude course``
leaves out a subpackage.
"""

from __future__ import annotations

import argparse
import ast
import io
import tokenize
from pathlib import Path


def docstring_lines(source: str) -> set[int]:
    """Return the line numbers that belong to a module, class or function docstring."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(
            node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
        ):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                lines.update(range(body[0].lineno, body[0].end_lineno + 1))
    return lines


def code_lines(source: str) -> int:
    """Return the number of lines holding a token other than a comment or a docstring."""
    skip = docstring_lines(source)
    ignored = {
        tokenize.COMMENT,
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENCODING,
        tokenize.ENDMARKER,
    }
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in ignored:
            continue
        for line in range(tok.start[0], tok.end[0] + 1):
            if line not in skip:
                lines.add(line)
    return len(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("package", type=Path, help="package directory, e.g. posenc_lib")
    parser.add_argument(
        "--exclude", action="append", default=[], help="subfolder to leave out"
    )
    args = parser.parse_args(argv)
    total_code = total_all = 0
    for path in sorted(args.package.rglob("*.py")):
        rel = path.relative_to(args.package)
        if rel.parts[0] in args.exclude:
            continue
        source = path.read_text(encoding="utf-8")
        code, lines = code_lines(source), source.count("\n")
        total_code += code
        total_all += lines
        print(f"{rel!s:32s} {code:6d} {lines:6d}")
    print(f"{'total':32s} {total_code:6d} {total_all:6d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
