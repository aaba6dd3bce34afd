"""``make release`` (scripts/release.py): the tag of pyproject's version, created only where the
Colab editions, ``_config.yml`` and the working tree agree with it; run on a scratch git
repository holding copies of those files."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import release  # noqa: E402


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    repo = tmp_path / "repo"
    repo.mkdir()
    for name in ("pyproject.toml", "_config.yml"):
        shutil.copy(ROOT / name, repo / name)
    shutil.copytree(ROOT / "colab", repo / "colab")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
    return repo


def _tag_commit(repo: Path, tag: str) -> str:
    return _git(repo, "rev-parse", f"{tag}^{{commit}}")


def test_release_tags_head_with_pyprojects_version(repo: Path, capsys) -> None:
    tag = release.release_tag(repo)
    assert tag.startswith("v") and tag[1:] in (ROOT / "pyproject.toml").read_text()
    assert release.main(["--check"], repo=repo) == 0
    assert _git(repo, "tag") == ""  # --check creates nothing
    assert release.main([], repo=repo) == 0
    assert _tag_commit(repo, tag) == _git(repo, "rev-parse", "HEAD")
    assert f"git push origin {tag}" in capsys.readouterr().out
    assert release.main([], repo=repo) == 0  # again: the tag is at HEAD, nothing to do


def test_release_refuses_what_disagrees(repo: Path) -> None:
    config = repo / "_config.yml"
    config.write_text(config.read_text().replace("ref: v", "ref: v9"))
    found = "\n".join(release.problems(repo))
    assert "colab.ref is 'v9" in found
    assert "install cell is not the one" in found  # the editions pin the old tag
    assert "uncommitted changes" in found
    assert release.main([], repo=repo) == 1 and _git(repo, "tag") == ""


def test_release_refuses_a_tag_that_is_not_at_head(repo: Path) -> None:
    assert release.main([], repo=repo) == 0
    (repo / "new.txt").write_text("x")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "y")
    found = "\n".join(release.problems(repo))
    assert "not at HEAD" in found and "bump the version" in found
