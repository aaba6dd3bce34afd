"""Tag a release of posenc_lib (``make release``): the tag the Colab editions install.

The Colab install cell installs ``git+<repository.url>@<colab.ref>``, so a release is the tag
``v<version>`` of ``pyproject.toml``'s version, and everything that names it must agree:

1. ``colab.ref`` in ``_config.yml`` is ``v<version>``;
2. ``colab/`` is what ``make colab`` writes now (so every edition's install cell pins that tag
   and the repository URL of ``_config.yml``);
3. the working tree is clean (the tag names a commit: uncommitted changes would not be in it);
4. the tag: created (annotated) at HEAD when missing; when it exists, it must point at HEAD.

Nothing is pushed: the script prints the ``git push`` that publishes the tag (the Pages
workflow publishes the book from ``main``). ``--check`` runs 1-3 and checks an existing tag
without creating one. Usage::

    python scripts/release.py [--check]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))


def git(*args: str, repo: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True
    )


def release_tag(repo: Path = REPO) -> str:
    """``v`` + the version in ``pyproject.toml``."""
    data = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))
    return "v" + data["project"]["version"]


def problems(repo: Path = REPO) -> list[str]:
    """What disagrees with the release tag (empty: ready to tag)."""
    import make_colab

    found = []
    tag = release_tag(repo)
    config = yaml.safe_load((repo / "_config.yml").read_text(encoding="utf-8"))
    ref = str((config.get("colab") or {}).get("ref"))
    if ref != tag:
        found.append(
            f"_config.yml: colab.ref is {ref!r}, pyproject.toml's version makes the tag "
            f"{tag!r}: set colab.ref: {tag}, then run make colab"
        )
    expected = make_colab.install_cell(config)
    editions = sorted((repo / "colab").glob("*.ipynb"))
    if not editions:
        found.append("colab/ holds no Colab edition: run make colab")
    for path in editions:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        code = next((c for c in cells if c["cell_type"] == "code"), {"source": ""})
        if "".join(code["source"]) != expected:
            found.append(
                f"{path.relative_to(repo)}: its install cell is not the one for {ref} "
                f"and {config['repository']['url']}: run make colab"
            )
    if repo == REPO and make_colab.main(["--check"]) != 0:
        found.append("colab/ differs from what make colab writes: run make colab")
    dirty = git("status", "--porcelain", repo=repo).stdout.strip()
    if dirty:
        found.append(f"the working tree has uncommitted changes:\n{dirty}")
    head = git("rev-parse", "HEAD", repo=repo).stdout.strip()
    tagged = git(
        "rev-parse", "-q", "--verify", f"refs/tags/{tag}^{{commit}}", repo=repo
    )
    if tagged.returncode == 0 and tagged.stdout.strip() != head:
        found.append(
            f"the tag {tag} exists at {tagged.stdout.strip()[:12]}, not at HEAD "
            f"({head[:12]}): bump the version in pyproject.toml for a new release"
        )
    return found


def main(argv: list[str] | None = None, repo: Path = REPO) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="check only; create no tag"
    )
    args = parser.parse_args(argv)
    tag = release_tag(repo)
    found = problems(repo)
    if found:
        print(f"release {tag}: not ready", file=sys.stderr)
        for problem in found:
            print(f"  - {problem}", file=sys.stderr)
        return 1
    exists = git("rev-parse", "-q", "--verify", f"refs/tags/{tag}", repo=repo)
    if exists.returncode == 0:
        print(
            f"release {tag}: the tag is at HEAD; Colab editions and _config.yml agree"
        )
        return 0
    if args.check:
        print(f"release {tag}: ready to tag (make release creates it)")
        return 0
    done = git("tag", "-a", tag, "-m", f"posenc_lib {tag.removeprefix('v')}", repo=repo)
    if done.returncode != 0:
        print(f"git tag failed: {done.stderr.strip()}", file=sys.stderr)
        return 1
    print(f"release {tag}: tagged HEAD. Publish it with: git push origin {tag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
