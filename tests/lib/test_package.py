"""The shape of the package: import layers, no import cycles, no hidden modules, complete
``__all__``, docstrings.

Everything here reads the source (``ast``) or imports each module by name; nothing is compared
with a list typed into this file except the modules other developers own in this phase.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import types
from pathlib import Path

import pytest

import posenc_lib as pe

PACKAGE = Path(pe.__file__).resolve().parent
#: The reusable library's modules (``nn``) and the course's (``course.hessian``), dotted below
#: ``posenc_lib``.
LIBRARY = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")
COURSE = sorted(
    f"course.{p.stem}"
    for p in (PACKAGE / "course").glob("*.py")
    if p.stem != "__init__"
)
MODULES = LIBRARY + COURSE
#: The torch modules of the library: only they, and the course, may import torch or each other.
TORCH_MODULES = {"nn", "scaled_rotary", "alibi_falcon"}
#: What each module needs beyond numpy to be imported.
NEEDS = {
    **{module: "torch" for module in TORCH_MODULES},
    "course.hessian": "torch",
    "course.attention": "torch",
    "course.experiments": "torch",
    "course.transformer": "torch",
    "course.length_experiments": "torch",
}


def _tree(module: str) -> ast.Module:
    path = PACKAGE.joinpath(*module.split(".")).with_suffix(".py")
    return ast.parse(path.read_text(encoding="utf-8"))


def _resolve(module: str, level: int, name: str | None) -> str:
    """The dotted name below ``posenc_lib`` of ``from <level dots><name>`` in ``module``."""
    package = module.split(".")[:-1]
    base = package[: len(package) - (level - 1)]
    return ".".join([*base, *(name.split(".") if name else [])])


def _imported_siblings(module: str, tree: ast.Module | None = None) -> set[str]:
    """Every ``posenc_lib`` module that ``module`` imports, at top level or inside a function."""
    found = set()
    for node in ast.walk(tree or _tree(module)):
        if isinstance(node, ast.ImportFrom):
            if node.level and node.module:  # from .x import ..., from ..x import ...
                target = _resolve(module, node.level, node.module)
                found.add(target)
                found.update(f"{target}.{alias.name}" for alias in node.names)
            elif node.level:  # from . import x
                target = _resolve(module, node.level, None)
                found.update(f"{target}.{a.name}".lstrip(".") for a in node.names)
            elif node.module and node.module.startswith("posenc_lib."):
                target = node.module.removeprefix("posenc_lib.")
                found.add(target)
                found.update(f"{target}.{alias.name}" for alias in node.names)
            elif node.module == "posenc_lib":
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("posenc_lib."):
                    found.add(alias.name.removeprefix("posenc_lib."))
    return found & set(MODULES)


def _layer_violations(graph: dict[str, set[str]]) -> list[str]:
    """Imports that break the layers CONTRIBUTING.md states (empty when none)."""
    bad = []
    for module, imported in sorted(graph.items()):
        for target in sorted(imported):
            if module in LIBRARY and target in COURSE:
                bad.append(f"library module {module} imports the course's {target}")
            if module == "_validation":
                bad.append(f"_validation imports {target} (it is the bottom layer)")
            if (
                module in LIBRARY
                and module not in TORCH_MODULES
                and target in TORCH_MODULES
            ):
                bad.append(f"numpy module {module} imports the torch module {target}")
    return bad


def test_import_layers():
    """The course may import the library, never the reverse; ``_validation`` imports no
    module of the package; the numpy modules never import a torch module."""
    graph = {module: _imported_siblings(module) for module in MODULES}
    assert "nn" in graph["course.transformer"]  # the scan sees relative imports
    assert "course.hessian" in graph["course.attention"]
    assert _layer_violations(graph) == []


def test_the_layer_check_rejects_violations():
    """Controls: a planted import of each forbidden kind is reported."""
    planted = {
        "decay": ast.parse("from .course import hessian"),
        "encoding": ast.parse("from posenc_lib.course.notebook import check"),
        "_validation": ast.parse("from .encoding import frequencies"),
        "layouts": ast.parse("from . import nn"),
    }
    graph = {
        module: _imported_siblings(module, tree) for module, tree in planted.items()
    }
    assert len(_layer_violations(graph)) == 4, graph


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def test_the_cycle_finder_finds_a_cycle():
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_no_import_cycles():
    graph = {module: _imported_siblings(module) for module in MODULES}
    assert graph["encoding"] >= {
        "angle_addition",
        "layouts",
    }  # the scan sees real imports
    assert _find_cycle(graph) is None


@pytest.mark.parametrize("module", MODULES)
def test_import_module_as_gives_a_module(module):
    """``import posenc_lib.<module> as K`` binds the module, never a function of that name."""
    if module in NEEDS:
        pytest.importorskip(NEEDS[module])
    namespace: dict[str, object] = {}
    exec(f"import posenc_lib.{module} as K", namespace)  # the statement a reader types
    assert isinstance(namespace["K"], types.ModuleType)
    assert namespace["K"].__name__ == f"posenc_lib.{module}"


def _defined_public_names(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {name for name in names if not name.startswith("_")}


def _declared_all(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return list(ast.literal_eval(node.value))
    return None


@pytest.mark.parametrize("module", MODULES)
def test_all_lists_exactly_the_public_names(module):
    tree = _tree(module)
    declared = _declared_all(tree)
    assert declared is not None, f"{module} has no __all__"
    assert len(declared) == len(set(declared))
    assert set(declared) == _defined_public_names(tree)


def test_package_all_is_the_core():
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    imported = {
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert set(pe.__all__) == imported
    for name in pe.__all__:
        assert getattr(pe, name) is not None


#: Docstrings that are another developer's work in this phase (issue 11): ``nn`` (developer
#: torch), ``course.notebook`` (frozen).
OTHERS = {"nn", "course.notebook"}


def _public_functions():
    for module in MODULES:
        if module in OTHERS or module.rpartition(".")[2].startswith("_"):
            continue
        if module in NEEDS and importlib.util.find_spec(NEEDS[module]) is None:
            continue
        mod = importlib.import_module(f"posenc_lib.{module}")
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isfunction(obj):
                yield pytest.param(obj, id=f"{module}.{name}")


@pytest.mark.parametrize("function", list(_public_functions()))
def test_public_functions_have_numpydoc_with_examples(function):
    doc = inspect.getdoc(function) or ""
    sections = {line.strip() for line in doc.splitlines()}
    if inspect.signature(function).parameters:
        assert "Parameters" in sections, function.__qualname__
    assert "Returns" in sections, function.__qualname__
    assert "Examples" in sections and ">>> " in doc, function.__qualname__


def test_every_module_is_in_the_chapter_table():
    """The package docstring's chapter -> module table names every public module."""
    for module in MODULES:
        if module.rpartition(".")[2].startswith("_"):
            continue
        assert f":mod:`~posenc_lib.{module}`" in pe.__doc__, module


def _root_conftest_needs() -> dict[str, str]:
    path = Path(__file__).resolve().parents[2] / "conftest.py"
    spec = importlib.util.spec_from_file_location("root_conftest", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._NEEDS


def _imports_at_top(path: Path, package: str) -> bool:
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        if any(name.split(".")[0] == package for name in names):
            return True
    return False


def test_modules_needing_torch_are_skipped_without_it():
    """``make check-oldest`` collects the doctests without torch: the root conftest's
    ``_NEEDS`` (keyed ``folder/file``) must name every module that imports torch at the top."""
    needs = _root_conftest_needs()
    top_level = {
        f"{p.parent.name}/{p.name}"
        for p in [
            *PACKAGE.rglob("*.py"),
            *PACKAGE.parents[0].joinpath("tests").rglob("*.py"),
        ]
        if not p.name.startswith("test_") and _imports_at_top(p, "torch")
    }
    assert top_level, "no module imports torch: the scan is broken"
    missing = {key for key in top_level if needs.get(key) != "torch"}
    assert not missing, f"add to conftest._NEEDS: {sorted(missing)}"
