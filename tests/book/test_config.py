"""The project's configuration files agree with each other."""

import json
import re
import sys
from pathlib import Path

import pytest
import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CONDA_TO_PYPI = {"pytorch": "torch"}


def requirement(spec: str) -> tuple[str, str]:
    """('name', 'specifier') of a requirement string such as 'numpy>=1.24'."""
    match = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)\s*(.*?)\s*", spec)
    assert match, spec
    return match.group(1).lower(), match.group(2).replace(" ", "")


def test_environment_yml_matches_pyproject():
    project = PYPROJECT["project"]
    extras = project["optional-dependencies"]
    wanted = {requirement(s) for s in project["dependencies"]}
    for extra in ("sym", "torch", "plot"):
        wanted |= {requirement(s) for s in extras[extra]}
    conda = yaml.safe_load((ROOT / "environment.yml").read_text())["dependencies"]
    listed = {requirement(s) for s in conda if isinstance(s, str)}
    listed = {(CONDA_TO_PYPI.get(name, name), spec) for name, spec in listed}
    assert ("python", project["requires-python"]) in listed
    listed -= {("python", project["requires-python"]), ("pip", "")}
    assert listed == wanted


def test_book_extra_covers_every_runtime_extra():
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert extras["book"] == ["posenc-lib[sym,torch,plot]"]


def test_lock_pins_every_top_level_requirement_and_cpu_torch():
    lock = {
        requirement(line)[0].replace("_", "-"): requirement(line)[1]
        for line in (ROOT / "requirements/lock.txt").read_text().splitlines()
        if line and not line.startswith("#")
    }
    assert all(spec.startswith("==") for spec in lock.values())
    assert lock["torch"] == "==2.13.0"
    for line in (ROOT / "requirements/dev.in").read_text().splitlines():
        if line and not line.startswith("#"):
            name = requirement(line)[0].replace("_", "-")
            assert name in lock, f"{name} from dev.in is not pinned in lock.txt"


def test_pytest_collects_only_tests_and_notebooks():
    assert PYPROJECT["tool"]["pytest"]["ini_options"]["testpaths"] == [
        "tests",
        "notebooks",
    ]


def _first_code_cell(path: Path) -> dict:
    cells = json.loads(path.read_text())["cells"]
    return next(cell for cell in cells if cell["cell_type"] == "code")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_install_cell_uses_the_configured_repository(path):
    cell = _first_code_cell(path)
    source = "".join(cell["source"])
    assert "remove-cell" in cell["metadata"].get("tags", []), (
        "install cell must be hidden"
    )
    urls = re.findall(r"https://github\.com/[\w.\-/]+", source)
    assert urls == [CONFIG["repository"]["url"]]
    assert 'find_spec("posenc_lib") is None' in source
    assert "git+{REPO}" in source


def test_every_chapter_has_the_same_install_cell():
    """One install cell, copied verbatim (CONTRIBUTING.md): no chapter drifts from it."""
    sources = {"".join(_first_code_cell(path)["source"]) for path in NOTEBOOKS}
    assert len(sources) == 1, f"{len(sources)} different install cells"


def _toc_files(node) -> list[str]:
    files = []
    if isinstance(node, dict):
        if "file" in node:
            files.append(node["file"])
        if "root" in node:
            files.append(node["root"])
        for value in node.values():
            files += _toc_files(value)
    elif isinstance(node, list):
        for item in node:
            files += _toc_files(item)
    return files


def test_toc_lists_every_notebook_and_only_existing_files():
    toc = _toc_files(yaml.safe_load((ROOT / "_toc.yml").read_text()))
    for entry in toc:
        assert any(
            (ROOT / f"{entry}{suffix}").exists() for suffix in (".md", ".ipynb")
        ), entry
    listed = {entry for entry in toc if entry.startswith("notebooks/")}
    assert listed == {f"notebooks/{p.stem}" for p in NOTEBOOKS}


def test_ci_runs_the_readme_command():
    assert "make test" in (ROOT / ".ci/run").read_text()
    assert "make test" in (ROOT / "README.md").read_text()


def test_mathjax_is_served_from_the_book():
    sphinx = CONFIG["sphinx"]["config"]
    assert "://" not in sphinx["mathjax_path"]
    assert sphinx["html_extra_path"] == ["_extra"]


def test_oldest_pins_are_pyprojects_floors():
    """requirements/oldest.txt (what `make check-oldest` installs) pins exactly the floors of
    pyproject.toml, so a floor cannot be lowered without the check testing it (issue 27)."""
    project = PYPROJECT["project"]
    extras = project["optional-dependencies"]
    floors = {}
    for spec in [*project["dependencies"], *extras["sym"], *extras["plot"]]:
        name, specifier = requirement(spec)
        assert specifier.startswith(">="), spec
        floors[name] = specifier[2:]
    oldest = {}
    for line in (ROOT / "requirements/oldest.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            oldest[name.lower()] = version
    assert oldest.keys() == floors.keys()
    for name, floor in floors.items():  # 2.0 is 2.0.0, 3.9 is 3.9.0
        assert oldest[name].split(".")[: len(floor.split("."))] == floor.split("."), (
            name
        )
        assert set(oldest[name].split(".")[len(floor.split(".")) :]) <= {"0"}, name
    torch_floor = requirement(extras["torch"][0])[1]
    check = (ROOT / "scripts/check_oldest.py").read_text()
    assert torch_floor == ">=2.13" and '"torch==2.13.0"' in check
