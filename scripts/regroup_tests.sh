#!/usr/bin/env bash
# Issue 26: group tests/ by what they test, as one commit that can be replayed on another branch.
#
#   tests/lib/      the library (posenc_lib): unit, property, convention and fuzz tests, helpers
#                   (the course subpackage's tests were moved on to tests/course/ afterwards)
#   tests/book/     the book: pages and their claims, notebooks' hygiene and layout, Colab,
#                   configuration; chapters/ (controls), built/ (the built book), browser/
#   tests/tooling/  scripts, command lines, benchmarks, release, workflows; build_faults/
#
# Run from the repository root on a clean tree, once: `bash scripts/regroup_tests.sh`. It moves
# with `git mv` and fixes every path that names a moved file (depths of `__file__`, the
# Makefile, scripts, docs, CONTRIBUTING.md); a test module in tests/ that no list below names
# (one added since) goes to tests/lib/. It leaves notebooks/ and posenc_lib/ alone unless
# REGROUP_ALL=1: then it also rewrites the test paths cited in the notebooks' markdown and in
# posenc_lib's comments, and runs `make colab`.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

BOOK="test_book_pages_claims test_notation_claims test_source_quotes test_notebook_hygiene
  test_lesson_layout test_figure_style test_colab test_config test_page_weight test_readme"
TOOLING="test_benchmarks test_check_outputs test_check_portable test_cli test_execute_notebooks
  test_release test_workflows helpers_disk"

mkdir -p tests/lib tests/book tests/tooling
moves=()
move() {  # move SOURCE DESTINATION, remembered for the path fixes
  git mv "$1" "$2"
  moves+=("$1=$2")
}
for name in $BOOK; do
  if [ -e "tests/$name.py" ]; then move "tests/$name.py" "tests/book/$name.py"; fi
done
for name in $TOOLING; do
  if [ -e "tests/$name.py" ]; then move "tests/$name.py" "tests/tooling/$name.py"; fi
done
for path in tests/*.py; do
  name=$(basename "$path")
  if [ "$name" = conftest.py ]; then continue; fi
  move "$path" "tests/lib/$name"
done
move tests/chapters tests/book/chapters
move tests/book_checks tests/book/built
move tests/browser tests/book/browser
move tests/build_faults tests/tooling/build_faults

REGROUP_MOVES="${moves[*]}" REGROUP_ALL="${REGROUP_ALL:-0}" python3 - <<'EOF'
import os
import re
import subprocess
from pathlib import Path

moves = [m.split("=", 1) for m in os.environ["REGROUP_MOVES"].split()]
moved_dirs = [(a, b) for a, b in moves if Path(b).is_dir()]

# 1. Every moved Python file lies one folder deeper: parents[N] of __file__ becomes N + 1.
deeper = re.compile(r"(__file__\)(?:\.resolve\(\))?\.parents\[)(\d+)\]")
files = [Path(b) for a, b in moves if b.endswith(".py")]
files += [p for a, b in moved_dirs for p in Path(b).rglob("*.py")]
for path in files:
    text = path.read_text(encoding="utf-8")
    new = deeper.sub(lambda m: f"{m[1]}{int(m[2]) + 1}]", text)
    if new != text:
        path.write_text(new, encoding="utf-8")

# 2. Every path that names a moved file or folder, in every tracked text file.
rules = [(re.escape(a) + (r"(?![\w.])" if a.endswith(".py") else r"(?![\w])"), b) for a, b in moves]
rules.append((r"tests/test_conventions_\*", "tests/lib/test_conventions_*"))
rules.append((r"\btests\.chapters\.", "tests.book.chapters."))
rules = [(re.compile(r"(?<![\w/])" + pattern), new) for pattern, new in rules]
skip = ("tests/book/browser/fixtures/", "colab/", "_build/", "scripts/regroup_tests.sh")
if os.environ["REGROUP_ALL"] != "1":
    skip += ("notebooks/", "posenc_lib/")
tracked = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True)
for name in tracked.stdout.split("\n"):
    path = Path(name)
    if not name or name.startswith(skip) or not path.is_file():
        continue
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        continue
    new = text
    for pattern, replacement in rules:
        new = pattern.sub(replacement, new)
    if new != text:
        path.write_text(new, encoding="utf-8")
        print(f"paths fixed in {name}")

# 3. The root conftest names a helper by its folder and file (collection_path.parent.name).
conftest = Path("conftest.py")
conftest.write_text(
    conftest.read_text()
    .replace('"tests/lib/helpers_torch.py"', '"lib/helpers_torch.py"')
    .replace("checks that); with the\npackage installed,", "checks\nthat); with the package installed,")
)

# 4. Where the docs describe the layout.
how_to = Path("book/how-to-run.md")
how_to.write_text(
    how_to.read_text().replace(
        "tests/       pytest: library, configuration, built book, browser      benchmarks/  `make bench`",
        "tests/       pytest: lib/ (library), book/ (pages, chapters, built book, browser),\n"
        "             tooling/ (scripts, CLIs, CI)                            benchmarks/  `make bench`",
    )
)
contributing = Path("CONTRIBUTING.md")
text = contributing.read_text()
old = "- Tests in `tests/`: examples with known values"
assert old in text, "CONTRIBUTING.md: the line on tests moved"
contributing.write_text(
    text.replace(
        old,
        "- Tests are grouped by what they test: `tests/lib/` the library, `tests/book/` the book\n"
        "  (pages and the numbers they state, notebooks' hygiene and layout, Colab, configuration;\n"
        "  `chapters/` the controls, `built/` the built book, `browser/` the pages in Chromium),\n"
        "  `tests/tooling/` scripts, command lines, benchmarks, release and workflows. Fixtures used\n"
        "  by more than one module live in `tests/conftest.py` (`rng`, `run_python`, `built_book`).\n"
        "  An error test matches the argument's name (`match=r\"^dim\\b\"`), not the whole message.\n"
        + old.replace("- Tests in `tests/`", "- Library tests in `tests/lib/`"),
    )
)
EOF
if [ "${REGROUP_ALL:-0}" = 1 ]; then make colab; fi
git add -u
git add tests
git status --short | grep -v '^R ' || true
